package opencl_test

import (
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/opencl"
)

// TestFusedBiasReLU: BiasAdd equals Repeat then Add, and ReLUMask (with
// and without a bias) equals Add, GreaterOrEqual against 0 and Mul — the
// kernels they replace — bit for bit, with ±0 (and a sum of exactly 0),
// NaN and ±Inf among the inputs, for a row bias (1×N over B rows) and a
// middle-axis repeat.
func TestFusedBiasReLU(t *testing.T) {
	l := testLib(t)
	ctx := l.Context()
	rng := newRNG(t)
	for _, g := range []opencl.RepeatGeom{{Outer: 1, Dim: 1, Inner: 7, Rep: 5}, {Outer: 2, Dim: 3, Inner: 4, Rep: 2}} {
		n := g.Outer * g.Dim * g.Inner * g.Rep
		x := randn(rng, n, -2, 2)
		x[0], x[1], x[2], x[3] = 0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(-1))
		b := randn(rng, g.Outer*g.Dim*g.Inner, -1, 1)
		x[5] = -b[repeatSource(5, g)] // a sum of exactly 0
		xb, bb := upload(t, l, x), upload(t, l, b)
		zero := upload(t, l, []float32{0})
		rep, a, m, y := alloc(t, l, n), alloc(t, l, n), alloc(t, l, n), alloc(t, l, n)
		must(t, l.Repeat(bb, rep, g.Outer, g.Dim, g.Inner, g.Rep))
		must(t, l.Binary(opencl.Add, xb, rep, a, n, opencl.SameShape))
		must(t, l.Binary(opencl.Gte, a, zero, m, n, opencl.ScalarB))
		must(t, l.Binary(opencl.Mul, a, m, y, n, opencl.SameShape))
		wantA, wantM, wantY := download(t, a, n), download(t, m, n), download(t, y, n)
		mx, my := alloc(t, l, n), alloc(t, l, n)
		m2, y2 := alloc(t, l, n), alloc(t, l, n)
		ab := alloc(t, l, n)
		before := ctx.Counts()
		must(t, l.BiasAdd(xb, bb, ab, g))
		must(t, l.ReLUMask(xb, bb, g, mx, my, n))
		if k := ctx.Counts().Sub(before).Kernels; k != 2 {
			t.Errorf("BiasAdd and ReLUMask launched %d kernels, want 2", k)
		}
		must(t, l.ReLUMask(xb, nil, g, m2, y2, n)) // on x itself: +0 and −0 among its values
		mx0, yx0 := alloc(t, l, n), alloc(t, l, n)
		must(t, l.Binary(opencl.Gte, xb, zero, mx0, n, opencl.ScalarB))
		must(t, l.Binary(opencl.Mul, xb, mx0, yx0, n, opencl.SameShape))
		wantMx, wantYx := download(t, mx0, n), download(t, yx0, n)
		for _, c := range []struct {
			name      string
			got, want []float32
		}{
			{"bias add", download(t, ab, n), wantA}, {"relu mask with bias: mask", download(t, mx, n), wantM},
			{"relu mask with bias: output", download(t, my, n), wantY}, {"relu mask: mask", download(t, m2, n), wantMx},
			{"relu mask: output", download(t, y2, n), wantYx},
		} {
			for i := range c.want {
				if math.Float32bits(c.got[i]) != math.Float32bits(c.want[i]) && !(c.got[i] != c.got[i] && c.want[i] != c.want[i]) {
					t.Errorf("%v %s[%d] = %g, the unfused kernels' %g", g, c.name, i, c.got[i], c.want[i])
				}
			}
		}
	}
}

// repeatSource is the element of b that numpy.repeat along the middle axis
// puts at element j of the Outer×(Dim·Rep)×Inner result.
func repeatSource(j int, g opencl.RepeatGeom) int {
	i, t := j%g.Inner, j/g.Inner
	return (t/(g.Dim*g.Rep)*g.Dim+t%(g.Dim*g.Rep)/g.Rep)*g.Inner + i
}
