package opencl_test

import (
	"math"
	"testing"
)

// TestRowsNormalize: each row divided by its norm in float64 on the host
// and scaled, to float32 rounding; a zero row and a NaN row take prev's
// row (scaled), in place too.
func TestRowsNormalize(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	const rows, d, scale = 5, 37, 6.0
	src := randn(rng, rows*d, -2, 2)
	for j := 0; j < d; j++ {
		src[1*d+j] = 0                       // a zero row
		src[3*d+j] = float32(math.NaN()) * 0 // NaN
	}
	src[3*d] = float32(math.NaN())
	prev := randn(rng, rows*d, -1, 1)
	want := make([]float64, rows*d)
	for i := 0; i < rows; i++ {
		var s float64
		for j := 0; j < d; j++ {
			s += float64(src[i*d+j]) * float64(src[i*d+j])
		}
		for j := 0; j < d; j++ {
			if s == 0 || math.IsNaN(s) {
				want[i*d+j] = scale * float64(prev[i*d+j])
			} else {
				want[i*d+j] = scale * float64(src[i*d+j]) / math.Sqrt(s)
			}
		}
	}
	dst := alloc(t, l, rows*d)
	must(t, l.RowsNormalize(upload(t, l, src), upload(t, l, prev), dst, rows, d, scale))
	got := download(t, dst, rows*d)
	checkClose(t, "normalized rows", got, want, nil)
	inPlace := upload(t, l, prev)
	must(t, l.RowsNormalize(upload(t, l, src), inPlace, inPlace, rows, d, scale))
	checkClose(t, "normalized rows in place", download(t, inPlace, rows*d), want, nil)
	wrong := make([]float64, len(want)) // a zero row left zero
	copy(wrong, want)
	for j := 0; j < d; j++ {
		wrong[d+j] = 0
	}
	detects(t, "a zero row not replaced by the previous one", got, wrong, nil)
}

// TestTallies: the scaled loss and the negative entropy add to the step
// flag's loss sum what the host computes in float64 (q = 0 adding
// nothing); a non-finite term flags the step.
func TestTallies(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	const rows, c = 3, 4
	p := randn(rng, 4*c, 0, 1) // a fourth, padding row the tally leaves out
	p[5] = 0
	f, err := l.NewStepFlag()
	must(t, err)
	defer f.Release()
	must(t, l.TallyScaled(upload(t, l, []float32{1.5}), f, 0, 0.25))
	const w, scale = 1.0 / 3, 0.5
	must(t, l.TallyNegEntropy(upload(t, l, p), rows, c, w, scale, f, 0))
	st, err := f.Read()
	must(t, err)
	want := 0.25 * 1.5
	for i := 0; i < rows*c; i++ {
		if q := float64(p[i]); q > 0 {
			want += scale * w * q * math.Log(q)
		}
	}
	tol := 1e-6
	if l.FP64() {
		tol = 1e-12
	}
	if st.Flagged || math.Abs(st.LossSum-want) > tol*math.Abs(want) {
		t.Errorf("loss sum %.17g (flagged %v), want %.17g", st.LossSum, st.Flagged, want)
	}
	must(t, l.TallyScaled(upload(t, l, []float32{float32(math.Inf(1))}), f, 7, 1))
	if st, err = f.Read(); err != nil || !st.Flagged || st.Tag != 7 || !st.Loss {
		t.Errorf("an infinite loss: %+v, %v; want step 7 flagged by its loss", st, err)
	}
}
