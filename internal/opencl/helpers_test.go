package opencl_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sync"
	"testing"

	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/internal/opencl/ocltest"
)

// The tests share one context and one built library (building it is the
// slow part on PoCL); TestMain closes it.
var shared struct {
	once sync.Once
	ctx  *opencl.Context
	lib  *opencl.Lib
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.ctx != nil {
		if err := shared.ctx.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "closing the shared OpenCL context:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// testLib returns the shared kernel library, or skips the test (fails it
// in CI) when OpenCL is unavailable.
func testLib(t *testing.T) *opencl.Lib {
	t.Helper()
	ocltest.Require(t)
	shared.once.Do(func() {
		shared.ctx, shared.err = opencl.Open(ocltest.Device())
		if shared.err == nil {
			shared.lib, shared.err = shared.ctx.Library()
		}
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.lib
}

// newRNG returns a generator seeded from the test's name, so each test
// draws its own fixed numbers.
func newRNG(t *testing.T) *rand.Rand {
	var h uint64 = 1469598103934665603
	for _, c := range t.Name() {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return rand.New(rand.NewPCG(h, 7))
}

// randn returns n uniform values in [lo, hi).
func randn(rng *rand.Rand, n int, lo, hi float64) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(lo + (hi-lo)*rng.Float64())
	}
	return out
}

// upload copies data to a new device buffer released at the test's end.
func upload(t *testing.T, l *opencl.Lib, data []float32) *opencl.Buffer {
	t.Helper()
	b, err := l.Context().AllocFloat32(data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Release() })
	return b
}

// alloc returns a device buffer of n elements, filled with NaN so that an
// element a kernel forgets to write shows.
func alloc(t *testing.T, l *opencl.Lib, n int) *opencl.Buffer {
	t.Helper()
	b, err := l.Context().Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Release() })
	if err := l.Context().Fill(b, float32(math.NaN())); err != nil {
		t.Fatal(err)
	}
	return b
}

// download reads the first n elements of b.
func download(t *testing.T, b *opencl.Buffer, n int) []float32 {
	t.Helper()
	out := make([]float32, n)
	if err := b.Read(out); err != nil {
		t.Fatal(err)
	}
	return out
}

func downloadInt(t *testing.T, b *opencl.Buffer, n int) []int32 {
	t.Helper()
	out := make([]int32, n)
	if err := b.ReadInt32(out); err != nil {
		t.Fatal(err)
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// rtol is the relative tolerance of every floating-point comparison.
const rtol = 1e-5

// mismatch compares got with the reference want: element i must satisfy
// |got − want| ≤ rtol·(|want| + scale_i), where scale (nil: zeros) is the
// magnitude of the terms a sum behind want_i adds (Σ|term|: the rounding
// of a float sum is relative to it, not to a result that cancels). NaN
// must meet NaN, ±Inf the same Inf. It returns "" or a description of the
// worst element.
func mismatch(got []float32, want []float64, scale []float64) string {
	return mismatchTol(got, want, scale, rtol)
}

// mismatchTol is mismatch with the relative tolerance tol in place of
// rtol (for sums whose length makes their float32 rounding larger).
func mismatchTol(got []float32, want []float64, scale []float64, tol float64) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d values, want %d", len(got), len(want))
	}
	worst, wi := -1.0, -1
	for i, g := range got {
		w := want[i]
		gv := float64(g)
		switch {
		case math.IsNaN(w) || math.IsNaN(gv):
			if math.IsNaN(w) != math.IsNaN(gv) {
				return fmt.Sprintf("element %d: got %v, want %v", i, g, w)
			}
			continue
		case math.IsInf(w, 0) || math.IsInf(gv, 0):
			if gv != w {
				return fmt.Sprintf("element %d: got %v, want %v", i, g, w)
			}
			continue
		}
		s := 0.0
		if scale != nil {
			s = scale[i]
		}
		bound := tol * (math.Abs(w) + s)
		if d := math.Abs(gv - w); d > bound {
			r := d / max(bound, math.SmallestNonzeroFloat64)
			if r > worst {
				worst, wi = r, i
			}
		}
	}
	if wi >= 0 {
		return fmt.Sprintf("%d values; worst element %d: got %v, want %v (%.3g× the tolerance)", len(got), wi, got[wi], want[wi], worst)
	}
	return ""
}

// checkClose fails t if got and want differ beyond the tolerance.
func checkClose(t *testing.T, what string, got []float32, want, scale []float64) {
	t.Helper()
	if m := mismatch(got, want, scale); m != "" {
		t.Errorf("%s: %s", what, m)
	}
}

// detects asserts that the comparison reports a mismatch between got and a
// reference computed with a realistic bug: the check is sensitive to it.
func detects(t *testing.T, bug string, got []float32, wrong, scale []float64) {
	t.Helper()
	if m := mismatch(got, wrong, scale); m == "" {
		t.Errorf("the comparison does not detect %s", bug)
	}
}

// exactMismatch compares bit for bit (NaN meets any NaN).
func exactMismatch(got, want []float32) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d values, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g != g && w != w {
			continue
		}
		if math.Float32bits(g) != math.Float32bits(w) {
			return fmt.Sprintf("element %d: got %v, want %v", i, g, w)
		}
	}
	return ""
}

func checkExact(t *testing.T, what string, got, want []float32) {
	t.Helper()
	if m := exactMismatch(got, want); m != "" {
		t.Errorf("%s: %s", what, m)
	}
}

// f64 widens float32 values.
func f64(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// f32 rounds float64 values to float32.
func f32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

// oddSizes are the lengths the element-wise tests cover: 1, small odd
// sizes, and sizes just off the work-group size and its multiples.
var oddSizes = []int{1, 3, 17, 33, 63, 64, 65, 257, 1000}
