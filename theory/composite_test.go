package theory

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// naiveCompositeFC evaluates −log((T softmax(s))_c) literally (exp, sum,
// matrix product, log): an independent path valid for moderate scores.
func naiveCompositeFC(T mat.Matrix, s []float64, c int) float64 {
	z := 0.0
	for _, v := range s {
		z += math.Exp(v)
	}
	tp := 0.0
	for k, v := range s {
		tp += T.At(c, k) * math.Exp(v) / z
	}
	return -math.Log(tp)
}

func TestSoftmax(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    []float64
		want []float64
		tol  float64
	}{
		{"zeros", []float64{0, 0}, []float64{0.5, 0.5}, 1e-16},
		{"logs", []float64{0, math.Log(2), math.Log(3)}, []float64{1. / 6, 2. / 6, 3. / 6}, 1e-15},
		// 700+log 2 is rounded to a multiple of ulp(700) ≈ 1.1e-13, so the
		// exact softmax of the stored input differs from 1/6, 2/6, 3/6 by up
		// to about that much.
		{"shifted logs", []float64{700, 700 + math.Log(2), 700 + math.Log(3)}, []float64{1. / 6, 2. / 6, 3. / 6}, 1.2e-13},
		{"extreme", []float64{1000, -1000}, []float64{1, 0}, 0},
		{"equal extreme", []float64{-1000, -1000}, []float64{0.5, 0.5}, 0},
		{"single", []float64{3}, []float64{1}, 0},
	} {
		got, err := Softmax(tc.s)
		require.NoErrorf(t, err, "%s: %v", tc.name, err)
		for i := range got {
			assert.InDeltaf(t, tc.want[i], got[i], tc.tol, "%s: softmax[%d] = %.17g, want %.17g", tc.name, i, got[i], tc.want[i])
		}
	}
}

func TestSoftmaxLinkRoundTrip(t *testing.T) {
	p := []float64{1. / 6, 1. / 3, 1. / 2}
	s, err := SoftmaxLink(p)
	require.NoError(t, err)
	// ψ_i(p) = log p_i − mean log p, derived by hand: mean = (log(1/6)+log(1/3)+log(1/2))/3.
	mean := (math.Log(1./6) + math.Log(1./3) + math.Log(0.5)) / 3
	sum := 0.0
	for i := range s {
		assert.InDeltaf(t, math.Log(p[i])-mean, s[i], 1e-15, "ψ_%d = %g, want %g", i, s[i], math.Log(p[i])-mean)
		sum += s[i]
	}
	assert.InDeltaf(t, 0, sum, 1e-14, "Σψ = %g, want 0 (ψ maps into 𝒱)", sum)
	q, err := Softmax(s)
	require.NoError(t, err)
	for i := range p {
		assert.InDeltaf(t, p[i], q[i], 1e-15, "softmax(ψ(p))[%d] = %g, want %g", i, q[i], p[i])
	}
}

func TestCompositeFCValues(t *testing.T) {
	I2 := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	N2 := mat.NewDense(2, 2, []float64{.5, .5, .5, .5})
	T := mat.NewDense(3, 3, []float64{.7, .1, .2, .2, .8, .1, .1, .1, .7})
	Z := mat.NewDense(2, 2, []float64{1, 1, 0, 0}) // zero second row
	for _, tc := range []struct {
		name string
		T    mat.Matrix
		s    []float64
		c    int
		want float64
	}{
		{"identity is cross-entropy at 0", I2, []float64{0, 0}, 0, math.Log(2)},
		// log(e^1000+e^-1000) − (−1000) = 1000 + log(1+e^-2000) + 1000 = 2000.
		{"identity extreme", I2, []float64{1000, -1000}, 1, 2000},
		{"noise-only T is constant", N2, []float64{123, -4}, 1, math.Log(2)},
		{"generic T", T, []float64{1, -1, 0.5}, 2, naiveCompositeFC(T, []float64{1, -1, 0.5}, 2)},
		{"generic T class 0", T, []float64{-2, 3, 0.1}, 0, naiveCompositeFC(T, []float64{-2, 3, 0.1}, 0)},
		{"zero row is +Inf", Z, []float64{0, 0}, 1, math.Inf(1)},
		// (Tp)_0 with p ≈ (0,1,0): 0.1 exactly in the limit; underflow-free.
		{"generic T extreme", T, []float64{-1000, 1000, -1000}, 0, -math.Log(0.1)},
	} {
		got, err := CompositeFC(tc.T, tc.s, tc.c)
		require.NoErrorf(t, err, "%s: %v", tc.name, err)
		if math.IsInf(tc.want, 1) {
			assert.Truef(t, math.IsInf(got, 1), "%s: got %g, want +Inf", tc.name, got)
			continue
		}
		assert.InDeltaf(t, tc.want, got, 1e-12*(1+math.Abs(tc.want)), "%s: λ = %.17g, want %.17g", tc.name, got, tc.want)
	}
}

// TestCompositeFCUnderflow: (T softmax(s))_c = 0.5·e^{-2000}/(1+…) underflows
// in floating point, yet λ is finite: −log 0.5 + 2000.
func TestCompositeFCUnderflow(t *testing.T) {
	T := mat.NewDense(2, 2, []float64{1, 0.5, 0, 0.5})
	got, err := CompositeFC(T, []float64{1000, -1000}, 1)
	require.NoError(t, err)
	want := 2000 + math.Log(2)
	assert.InDeltaf(t, want, got, 1e-9, "λ = %.17g, want %.17g", got, want)
}

func TestCompositeFCGrad(t *testing.T) {
	I3 := mat.NewDense(3, 3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1})
	s := []float64{0.3, -1.2, 2}
	g, err := CompositeFCGrad(I3, s, 1)
	require.NoError(t, err)
	p, _ := Softmax(s)
	for i := range g { // cross-entropy gradient p − e_c
		want := p[i]
		if i == 1 {
			want--
		}
		assert.InDeltaf(t, want, g[i], 1e-15, "∂λ/∂s_%d = %g, want %g", i, g[i], want)
	}
	// A generic T against central differences of the naive formula.
	T := mat.NewDense(3, 3, []float64{.7, .1, .2, .2, .8, .1, .1, .1, .7})
	for c := 0; c < 3; c++ {
		g, err := CompositeFCGrad(T, s, c)
		require.NoError(t, err)
		sum := 0.0
		for i := range s {
			h := 1e-5
			sp := append([]float64(nil), s...)
			sm := append([]float64(nil), s...)
			sp[i] += h
			sm[i] -= h
			fd := (naiveCompositeFC(T, sp, c) - naiveCompositeFC(T, sm, c)) / (2 * h)
			assert.InDeltaf(t, fd, g[i], 1e-8, "c=%d: ∂λ/∂s_%d = %g, finite difference %g", c, i, g[i], fd)
			sum += g[i]
		}
		assert.InDeltaf(t, 0, sum, 1e-15, "c=%d: gradient sums to %g, want 0 (lies in 𝒱)", c, sum)
	}
}

func TestCompositeErrors(t *testing.T) {
	I2 := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	neg := mat.NewDense(2, 2, []float64{1.5, 0, -0.5, 1})
	Z := mat.NewDense(2, 2, []float64{1, 1, 0, 0})
	for _, tc := range []struct {
		name, want string
		err        error
	}{
		{"softmax NaN", "s: entry 1", func() error { _, err := Softmax([]float64{0, math.NaN()}); return err }()},
		{"softmax empty", "s: empty", func() error { _, err := Softmax(nil); return err }()},
		{"link boundary", "p: entry 0", func() error { _, err := SoftmaxLink([]float64{0, 1}); return err }()},
		{"link sum", "p: entries sum", func() error { _, err := SoftmaxLink([]float64{.2, .2}); return err }()},
		{"λ shape", "T: is 2×2, want 3×3", func() error { _, err := CompositeFC(I2, []float64{0, 0, 0}, 0); return err }()},
		{"λ negative", "T: entry (1,0)", func() error { _, err := CompositeFC(neg, []float64{0, 0}, 0); return err }()},
		{"λ class", "c: class 2", func() error { _, err := CompositeFC(I2, []float64{0, 0}, 2); return err }()},
		{"λ Inf score", "s: entry 0", func() error { _, err := CompositeFC(I2, []float64{math.Inf(1), 0}, 0); return err }()},
		{"grad zero row", "T: row 1 is identically zero", func() error { _, err := CompositeFCGrad(Z, []float64{0, 0}, 1); return err }()},
		{"grad class", "c: class -1", func() error { _, err := CompositeFCGrad(I2, []float64{0, 0}, -1); return err }()},
		{"estimate nil rng", "r: nil", func() error { _, err := EstimateLipschitzCompositeFC(I2, nil, 1, 1); return err }()},
		{"estimate radius", "radius", func() error {
			_, err := EstimateLipschitzCompositeFC(I2, rand.New(rand.NewPCG(1, 2)), 1, 0)
			return err
		}()},
	} {
		assert.ErrorContainsf(t, tc.err, tc.want, "%s: error %v, want one containing %q", tc.name, tc.err, tc.want)
	}
}

// TestEstimateLipschitzCompositeFC: for T = I the supremum √2 is approached
// (p → a vertex other than e_c), for the noise-only matrix λ is constant.
func TestEstimateLipschitzCompositeFC(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	I3 := mat.NewDense(3, 3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1})
	got, err := EstimateLipschitzCompositeFC(I3, r, 200, 30)
	require.NoError(t, err)
	assert.LessOrEqualf(t, got, LipschitzCompositeFC, "identity: estimate %.10g, want within 1e-6 below √2", got)
	assert.GreaterOrEqualf(t, got, LipschitzCompositeFC-1e-6, "identity: estimate %.10g, want within 1e-6 below √2", got)
	N := mat.NewDense(3, 3, nil)
	for i := 0; i < 9; i++ {
		N.Set(i/3, i%3, 1./3)
	}
	got, err = EstimateLipschitzCompositeFC(N, r, 200, 30)
	require.NoError(t, err)
	// 1e-14: rounding of p − a with a = p exactly in exact arithmetic.
	assert.LessOrEqualf(t, got, 1e-14, "noise-only: estimate %g, want 0", got)
}

func BenchmarkCompositeFCGrad(b *testing.B) {
	C := 10
	T := mat.NewDense(C, C, nil)
	for i := 0; i < C; i++ {
		for j := 0; j < C; j++ {
			T.Set(i, j, 1/float64(C))
		}
	}
	s := make([]float64, C)
	for i := range s {
		s[i] = float64(i)
	}
	for b.Loop() {
		_, _ = CompositeFCGrad(T, s, 3)
	}
}

// FuzzCompositeFC: for any finite scores and any column-stochastic 3×3 T
// (built from the fuzzed numbers), λ is never NaN, is +Inf exactly for a
// zero row, respects λ ≥ −log(max_k t_{c,k}) (since (Tp)_c ≤ max_k t_{c,k}),
// and its gradient has norm ≤ √2 (Proposition `lip.upper.bd.cel`) and sums
// to 0.
func FuzzCompositeFC(f *testing.F) {
	f.Add(0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, uint8(0))
	f.Add(1000.0, -1000.0, 3.0, 0.2, 0.5, 0.0, 0.0, 0.5, 1.0, uint8(2))
	f.Add(-700.0, 700.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, uint8(1))
	f.Fuzz(func(t *testing.T, s0, s1, s2, a, b, c, d, e, g float64, cls uint8) {
		s := []float64{s0, s1, s2}
		for _, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e6 {
				t.Skip()
			}
		}
		raw := []float64{a, b, c, d, e, g}
		for _, v := range raw {
			if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e6 {
				t.Skip()
			}
		}
		// Columns (|a|,|b|,·), (|c|,|d|,·), (|e|,|g|,·) completed and normalized.
		T := mat.NewDense(3, 3, nil)
		for j := 0; j < 3; j++ {
			x, y := math.Abs(raw[2*j]), math.Abs(raw[2*j+1])
			z := math.Abs(x - y)
			sum := x + y + z
			if sum == 0 {
				x, sum = 1, 1
			}
			T.Set(0, j, x/sum)
			T.Set(1, j, y/sum)
			T.Set(2, j, z/sum)
		}
		k := int(cls % 3)
		v, err := CompositeFC(T, s, k)
		require.NoErrorf(t, err, "CompositeFC: %v", err)
		maxT := math.Max(T.At(k, 0), math.Max(T.At(k, 1), T.At(k, 2)))
		if maxT == 0 {
			require.Truef(t, math.IsInf(v, 1), "zero row %d: λ = %g, want +Inf", k, v)
			return
		}
		require.Falsef(t, math.IsNaN(v) || math.IsInf(v, 0), "T=%v s=%v c=%d: λ = %g, want finite ≥ −log max_k t_ck = %g", T.RawMatrix().Data, s, k, v, -math.Log(maxT))
		require.GreaterOrEqualf(t, v, -math.Log(maxT)-1e-12*(1+math.Abs(v)), "T=%v s=%v c=%d: λ = %g, want finite ≥ −log max_k t_ck = %g", T.RawMatrix().Data, s, k, v, -math.Log(maxT))
		gr, err := CompositeFCGrad(T, s, k)
		require.NoError(t, err)
		n := math.Sqrt(gr[0]*gr[0] + gr[1]*gr[1] + gr[2]*gr[2])
		require.LessOrEqualf(t, n, math.Sqrt2*(1+1e-14), "T=%v s=%v c=%d: ‖∇λ‖ = %.17g, Σ∇λ = %g", T.RawMatrix().Data, s, k, n, gr[0]+gr[1]+gr[2])
		require.InDeltaf(t, 0, gr[0]+gr[1]+gr[2], 1e-15, "T=%v s=%v c=%d: ‖∇λ‖ = %.17g, Σ∇λ = %g", T.RawMatrix().Data, s, k, n, gr[0]+gr[1]+gr[2])
	})
}
