package proofs_tests

// Claims of Section 4 (LMNTM risk, composite loss, weights) and Sections
// 5.2–5.3 with Appendices D–E (the probabilistic model of LLP).

import (
	"math"
	randv2 "math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLlpCali: Theorem `llp.cali` with θ(ε) = (ε²/2)Σ_i w_i/‖T_i⁻¹‖₁².
func TestLlpCali(t *testing.T) { checkClaim(t, "llp.cali", true) }

// TestLipUpperBdCel: Proposition `lip.upper.bd.cel`, |λ_{ℓ_T}| ≤ √2.
func TestLipUpperBdCel(t *testing.T) { checkClaim(t, "lip.upper.bd.cel", true) }

// TestLambda0Formula: |λ_{ℓ_T}|₀ = max_c −log((1/C)Σ_j t_{c,j}) (Section 4.3).
func TestLambda0Formula(t *testing.T) { checkClaim(t, "lambda0.formula", true) }

// TestSecCfmProbModel: the identities of Appendix `sec:cfm prob model`.
func TestSecCfmProbModel(t *testing.T) { checkClaim(t, "sec:cfm prob model", true) }

// TestGroupingAssumptionCh: Assumption `grouping assumption: ch` ⇔ independent
// γ's with σ interior to their hull.
func TestGroupingAssumptionCh(t *testing.T) { checkClaim(t, "grouping assumption: ch", true) }

// TestGroupingAssumptionAllGroups: Assumption `grouping assumption all groups`.
func TestGroupingAssumptionAllGroups(t *testing.T) {
	checkClaim(t, "grouping assumption all groups", true)
}

// TestHMWeightsOptimal: the harmonic-mean weights of Section 4.3 are optimal.
func TestHMWeightsOptimal(t *testing.T) { checkClaim(t, "hm.weights.optimal", true) }

// TestLlpfcIdealEmpiricalRisk: equation `llpfc-ideal: empirical risk` is unbiased.
func TestLlpfcIdealEmpiricalRisk(t *testing.T) { checkClaim(t, "llpfc-ideal: empirical risk", true) }

// TestGroupingAssumptionNeedsUniqueness shows why the "unique" of Assumption
// `grouping assumption: ch` cannot be dropped from the equivalence "T_i is
// column-stochastic with α_i in the open simplex": with two identical bags
// (Γ singular, C = 3) and σ inside the hull, a whole segment of interior α's
// gives a column-stochastic T, yet the assumption fails and Algorithm 1
// line 5 (α = Γ^{-tr}σ) is undefined.
func TestGroupingAssumptionNeedsUniqueness(t *testing.T) {
	G := mat.NewDense(3, 3, []float64{
		.6, .2, .2,
		.6, .2, .2, // the same bag twice
		.1, .1, .8,
	})
	for _, alpha := range [][]float64{{.3, .2, .5}, {.1, .4, .5}, {.25, .25, .5}} {
		sigma, err := theory.NoisyToCleanPrior(G, alpha)
		require.NoError(t, err)
		// σ = 0.5·(0.6,0.2,0.2) + 0.5·(0.1,0.1,0.8) = (0.35, 0.15, 0.5) for all three α.
		for j, want := range []float64{.35, .15, .5} {
			require.InDeltaf(t, want, sigma[j], 1e-15, "σ(%d) = %g, want %g", j, sigma[j], want)
		}
		T, err := theory.TransitionMatrix(G, alpha, sigma)
		require.NoError(t, err)
		assert.NoErrorf(t, theory.CheckColumnStochastic("T", T, 1e-12), "α=%v", alpha)
		ok, err := theory.AssumptionCH(G, sigma)
		assert.NoErrorf(t, err, "α=%v: AssumptionCH", alpha)
		assert.Falsef(t, ok, "α=%v: AssumptionCH = true; want false (α not unique)", alpha)
		ok, _, err = theory.HullInterior(G, sigma)
		assert.NoErrorf(t, err, "α=%v: HullInterior", alpha)
		assert.Falsef(t, ok, "α=%v: HullInterior = true; want false (γ's dependent)", alpha)
	}
}

// TestLipschitzTightness: the bound √2 of Proposition `lip.upper.bd.cel` is
// the true constant when row c of T has a zero entry (p → the vertex where
// t_{c,i} = 0), and is not attained for a T with positive entries. For
// T = [[3/4, 1/4], [1/4, 3/4]] and p = (x, 1−x) the gradient for c = 0 is
// ±(2x(x−1)/(1+2x))·(1, −1), whose norm is maximal at x = (√3−1)/2 with
// value √2(2−√3) ≈ 0.3789 (derived by hand; c = 1 is symmetric).
func TestLipschitzTightness(t *testing.T) {
	r := randv2.New(randv2.NewPCG(7, 7))
	for _, tc := range []struct {
		name   string
		T      *mat.Dense
		lo, hi float64
	}{
		{"zero entry", mat.NewDense(2, 2, []float64{1, .3, 0, .7}), math.Sqrt2 - 1e-6, math.Sqrt2},
		{"uniform noise a=0.5", mat.NewDense(2, 2, []float64{.75, .25, .25, .75}), math.Sqrt2*(2-math.Sqrt(3)) - 1e-6, math.Sqrt2 * (2 - math.Sqrt(3)) * (1 + 1e-12)},
	} {
		est, err := theory.EstimateLipschitzCompositeFC(tc.T, r, 500, 40)
		require.NoError(t, err)
		t.Logf("%s: estimated |λ_{ℓ_T}| = %.10g (bound √2 = %.10g)", tc.name, est, math.Sqrt2)
		assert.Truef(t, est >= tc.lo && est <= tc.hi, "%s: estimate %.10g, want in [%g, %g]", tc.name, est, tc.lo, tc.hi)
	}
}
