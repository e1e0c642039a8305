package proofs_tests

// Statement against proof against lemma: the tests of
// the range disagreements listed in PAPER_MAP's Findings, "Hypotheses and
// ranges". Each evaluates the statement at the end where the two printed
// ranges disagree.

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFindingDeltaRangeEnds: `thm: geb` (line 248) and the second displays
// of `prop: kernel_bound` (1637) and `prop: MLP_bound` (1728) print
// δ ∈ [0, 1]; the lemmas they rest on, `rad.lips.lemma` (1517) and
// `lemma: gen` (1613), print δ ∈ (0, 1]. At δ = 0 the term √(2 log(2/δ)) is
// +∞: the bounds are infinite there, and the four bounds of package theory
// refuse δ = 0 (the lemmas' range) while accepting δ = 1 and δ just above
// 0, where the bound is finite and grows like √(2 log(2/δ)).
func TestFindingDeltaRangeEnds(t *testing.T) {
	s, err := theory.NewLogLossSetting([]mat.Matrix{uniformNoise(t, 2, 0.2)}, []float64{1}, [][]float64{{0.5, 0.5}}, [][]int{{100, 100}})
	require.NoError(t, err)
	bounds := map[string]func(delta float64) (float64, error){
		"GEBBound":      func(d float64) (float64, error) { return theory.GEBBound(s, d, 1, theory.B1(1, 1)) },
		"ClassGEBBound": func(d float64) (float64, error) { return theory.ClassGEBBound(s, d, 1, theory.B2(1, 1, 1)) },
		"LemmaGenBound": func(d float64) (float64, error) { return theory.LemmaGenBound(s, d, 1, 0.1) },
		"RadLipsBound":  func(d float64) (float64, error) { return theory.RadLipsBound(s, d, 1, 0.1) },
	}
	for name, b := range bounds {
		_, err := b(0)
		assert.Errorf(t, err, "%s accepts δ = 0, where √(2 log(2/δ)) = +Inf", name)
		one, err := b(1)
		assert.NoErrorf(t, err, "%s refuses δ = 1, the closed end of every printed range", name)
		tiny, err := b(1e-300)
		require.NoErrorf(t, err, "%s refuses δ = 1e-300", name)
		assert.Falsef(t, math.IsInf(tiny, 0), "%s at δ = 1e-300: %v", name, tiny)
		assert.Greaterf(t, tiny, one, "%s: the bound does not grow as δ → 0", name)
		// The McDiarmid term's δ-dependence is exactly √(2 log(2/δ)): its
		// ratio between two small δ is the ratio of the square roots.
		a, _ := s.ConcentrationTerm(1e-100, 1)
		c, _ := s.ConcentrationTerm(1e-200, 1)
		assert.InDelta(t, math.Sqrt(math.Log(2e200)/math.Log(2e100)), c/a, 1e-12)
	}
	_, err = s.ConcentrationTerm(-0.1, 1)
	assert.Error(t, err, "δ < 0")
	_, err = s.ConcentrationTerm(1.5, 1)
	assert.Error(t, err, "δ > 1")
}

// TestFindingThetaDomain: `thm:inv.cali` (line 174) gives θ: [0, 1] → [0, ∞]
// and bounds the excess 0-1 risk by θ⁻¹ of the excess ℓ_T risk, which
// ranges over [0, ∞): θ⁻¹ is defined on [0, θ(1)] only. With θ = θ_T of
// Proposition `theorem: cali_lowerb` restricted to [0, 1] (the proposition
// itself, line 187, and its restatement, line 1202, define θ_T on [0, ∞]),
// T = I and C = 2: θ(1) = ½, and f(x) = (0.1, 0.9) at η(x) = (1, 0) has
// excess ℓ_T risk log 10 > ½, so θ⁻¹ of it does not exist in [0, 1]; on
// [0, ∞] θ_T⁻¹(log 10) = √(2 log 10) > 1 ≥ the excess 0-1 risk (= 1): the
// statement holds, trivially, once θ⁻¹ is read as θ_T⁻¹ (or capped at 1).
func TestFindingThetaDomain(t *testing.T) {
	T := uniformNoise(t, 2, 0)
	th1, err := theory.CalibrationLowerBound(T, 1)
	require.NoError(t, err)
	assert.InDelta(t, 0.5, th1, 1e-15, "θ_T(1) for T = I")
	r, err := theory.ExcessInnerRiskFC(theory.LogLoss, T, []float64{1, 0}, []float64{0.1, 0.9})
	require.NoError(t, err)
	assert.InDelta(t, math.Log(10), r, 1e-12, "excess ℓ_T risk")
	assert.Greater(t, r, th1, "the excess ℓ_T risk lies beyond θ([0, 1]) = [0, θ(1)]")
	inv, err := theory.CalibrationBoundInverse(T, r)
	require.NoError(t, err)
	assert.InDelta(t, math.Sqrt(2*math.Log(10)), inv, 1e-12)
	c1, err := theory.ExcessZeroOneInnerRisk([]float64{1, 0}, []float64{0.1, 0.9})
	require.NoError(t, err)
	assert.Equal(t, 1.0, c1, "excess 0-1 risk")
	assert.Greater(t, inv, 1.0, "θ_T⁻¹(r) > 1: no ε ∈ [0, 1] has θ_T(ε) = r")
	assert.LessOrEqual(t, c1, inv, "the statement read with θ_T on [0, ∞]")
}

// TestFindingMLPDepthTwo: §4.3 defines 𝒩_m "for m > 2" (line 240), which
// leaves 𝒩₂ undefined; App. C defines it "for m > 1" (line 1745). At m = 2
// the bound of `supp.prop: MLP_bound` holds: the supremum over 𝒩₂ found by
// theory.MLPSup (a witness network, re-validated) stays below
// α·2^{m−1}·β^m·√Σa_i² on random samples.
func TestFindingMLPDepthTwo(t *testing.T) {
	rnd := rand.New(rand.NewPCG(52, 2))
	for trial := 0; trial < 20; trial++ {
		M := 1 + rnd.IntN(3)
		X := mat.NewDense(M, 2, nil)
		for i := 0; i < M; i++ {
			x0, x1 := rnd.NormFloat64(), rnd.NormFloat64()
			n := math.Hypot(x0, x1) / (0.2 + rnd.Float64())
			X.SetRow(i, []float64{x0 / n, x1 / n})
		}
		a := make([]float64, M)
		for i := range a {
			a[i] = 0.1 + rnd.Float64()
		}
		alpha := 0.0
		for i := 0; i < M; i++ {
			alpha = math.Max(alpha, mat.Norm(X.RowView(i), 2))
		}
		beta := 0.5 + rnd.Float64()
		rad, err := theory.WeightedRadExact(M, func(eps []float64) float64 {
			v, w, err := theory.MLPSup(2, X, a, beta, theory.ReLU, eps, rnd, theory.MLPSupOptions{Restarts: 4, Steps: 25})
			require.NoError(t, err)
			require.NoError(t, w.Validate(beta, 1e-12), "the witness is in 𝒩₂")
			return v
		})
		require.NoError(t, err)
		bound, err := theory.MLPRadBound(1, 2, alpha, beta, a)
		require.NoError(t, err)
		assert.LessOrEqualf(t, rad, bound*(1+1e-9), "m = 2, trial %d: Rad(𝒩₂) ≥ %v > bound %v", trial, rad, bound)
		assert.Positive(t, rad)
	}
}

// TestFindingZeroWeights: the contraction lemmas take weights w_i > 0
// (`multi.rad.lemma`, line 1585), a > 0 (`lemma: multi.rad.1`, 1557) and
// a_i > 0 (`supp.prop: kernel_bound`, 1650; `supp.prop: MLP_bound`, 1741),
// while `lemma: gen` (1611) and the propositions apply them with
// w ∈ Δ^N (zero weights allowed, line 213) and the definition of Rad
// (1672) allows a_i ≥ 0. At a zero weight every bound holds: the term
// drops from both sides.
func TestFindingZeroWeights(t *testing.T) {
	X := mat.NewDense(3, 1, []float64{0.5, -1, 0.8})
	a := []float64{1, 0, 0.5}
	aDrop := []float64{1, 0.5}
	XDrop := mat.NewDense(2, 1, []float64{0.5, 0.8})
	g, err := theory.GaussianGram(X, 1)
	require.NoError(t, err)
	sup, err := theory.RKHSBallSup(g, a, 1)
	require.NoError(t, err)
	kern, err := theory.WeightedRadExact(3, sup)
	require.NoError(t, err)
	kb, err := theory.KernelRadBound(1, 1, 1, a)
	require.NoError(t, err)
	assert.LessOrEqual(t, kern, kb*(1+1e-12), "kernel bound at a₂ = 0")
	gDrop, err := theory.GaussianGram(XDrop, 1)
	require.NoError(t, err)
	supDrop, err := theory.RKHSBallSup(gDrop, aDrop, 1)
	require.NoError(t, err)
	kernDrop, err := theory.WeightedRadExact(2, supDrop)
	require.NoError(t, err)
	assert.InDelta(t, kernDrop, kern, 1e-12, "a zero weight is the point dropped")
	lin, err := theory.LinearBallSup(X, a, 1)
	require.NoError(t, err)
	ml, err := theory.WeightedRadExact(3, lin)
	require.NoError(t, err)
	mb, err := theory.MLPRadBound(1, 1, 1, 1, a)
	require.NoError(t, err)
	assert.LessOrEqual(t, ml, mb*(1+1e-12), "MLP bound (m = 1) at a₂ = 0")
	// multi.rad.lemma with w₂ = 0: λ_i = ‖·‖₂ (|λ_i| = 1), ℋ = {0, (1, 1)} at
	// every point; the left side is the lemma's for the points with w > 0.
	vals := mat.NewDense(2, 3, []float64{0, 0, 0, math.Sqrt2, math.Sqrt2, math.Sqrt2})
	lsup, err := theory.FiniteClassSup(vals, a)
	require.NoError(t, err)
	lhs, err := theory.WeightedRadExact(3, lsup)
	require.NoError(t, err)
	zero := mat.NewDense(3, 2, nil)
	one := mat.NewDense(3, 2, []float64{1, 1, 1, 1, 1, 1})
	vsup, err := theory.FiniteVectorClassSup([]mat.Matrix{zero, one}, a)
	require.NoError(t, err)
	rhs, err := theory.WeightedRadExact(6, vsup)
	require.NoError(t, err)
	assert.LessOrEqual(t, lhs, math.Sqrt2*rhs*(1+1e-12), "multi.rad.lemma at w₂ = 0")
}

// TestFindingLipZeroRow: `lip.upper.bd.cel` (line 262) asks only that T be
// column-stochastic, which allows a zero row c; then λ_{ℓ_T}(·, c) = −log 0
// = +∞ for every s and has no Lipschitz constant. The text after it (265)
// and `thm: geb` (247) ask T invertible, which excludes zero rows; the
// proof needs only that row c be non-zero (Findings, Section 4, item 3c):
// for a non-negative T whose columns do not sum to 1 the gradient still
// obeys √2.
func TestFindingLipZeroRow(t *testing.T) {
	T := mat.NewDense(2, 2, []float64{1, 1, 0, 0})
	require.NoError(t, theory.CheckColumnStochastic("T", T, 1e-12), "the matrix is in the proposition's range")
	v, err := theory.CompositeFC(T, []float64{0.3, -0.2}, 1)
	require.NoError(t, err)
	assert.True(t, math.IsInf(v, 1), "λ(s, 2) = %v, want +Inf", v)
	_, err = theory.CompositeFCGrad(T, []float64{0.3, -0.2}, 1)
	assert.Error(t, err, "a zero row has no gradient")
	rnd := rand.New(rand.NewPCG(52, 5))
	for trial := 0; trial < 2000; trial++ {
		C := 2 + rnd.IntN(5)
		N := mat.NewDense(C, C, nil)
		for i := 0; i < C; i++ {
			for j := 0; j < C; j++ {
				N.Set(i, j, 5*rnd.Float64())
			}
		}
		s := make([]float64, C)
		for i := range s {
			s[i] = 10 * rnd.NormFloat64()
		}
		g, err := theory.CompositeFCGrad(N, s, rnd.IntN(C))
		require.NoError(t, err)
		n := 0.0
		for _, x := range g {
			n += x * x
		}
		assert.LessOrEqualf(t, math.Sqrt(n), math.Sqrt2*(1+1e-12), "T=%v s=%v", mat.Formatted(N), s)
	}
}

// uniformNoise is theory.UniformNoiseT, failing the test on an error.
func uniformNoise(t *testing.T, C int, alpha float64) *mat.Dense {
	t.Helper()
	T, err := theory.UniformNoiseT(alpha, C)
	require.NoError(t, err)
	return T
}
