package algclaims

import (
	"math"
	"math/rand"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/theory/verify"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProbeVerdicts: the verdicts of the probes of Algorithms 1–3 and their
// judges on hand-built points on both sides.
func TestProbeVerdicts(t *testing.T) {
	// σ̂ of bags whose proportions are their labels', and of the same bags
	// with one proportion moved.
	set := &estimators.BagSet{NumClasses: 2, Bags: []estimators.Bag{{ID: 0, Size: 4, Proportions: []float64{0.25, 0.75}}, {ID: 1, Size: 2, Proportions: []float64{1, 0}}}}
	counts := []int{3, 3}
	assert.True(t, sigmaVerdict(set, counts, estimators.SigmaHat(set)).OK)
	set.Bags[0].Proportions = []float64{0.3, 0.7}
	assert.False(t, sigmaVerdict(set, counts, estimators.SigmaHat(set)).OK, "proportions not the labels'")

	// T̂ from a group: column-stochastic with α̂ ∈ Δ^C, not with α̂ < 0.
	G := mat.NewDense(2, 2, []float64{0.8, 0.2, 0.3, 0.7})
	ok := tHatPoint{G: G, alpha: []float64{0.4, 0.6}}
	assert.True(t, tHatCase(ok).OK)
	holds, _ := tHatJudged(ok)
	assert.True(t, holds)
	neg := tHatPoint{G: G, alpha: []float64{1.2, -0.2}}
	assert.False(t, tHatCase(neg).OK, "α̂ = (1.2, −0.2): a negative entry of T̂")
	holds, _ = tHatJudged(neg)
	assert.False(t, holds)
	parts, _ := tHatParts(neg)
	assert.False(t, parts["α̂_i ≥ 0"])
	assert.True(t, parts["α̂_i sums to 1"])

	// α̂ against competitors: the solver's α̂ is the least; a judge that
	// finds a lower residual refuses.
	ap := alphaPoint{G: mat.NewDense(2, 2, []float64{1, 0, 0, 1}), sigma: []float64{0.3, 0.7}}
	assert.True(t, alphaCase(ap).OK)
	holds, _ = alphaJudged(ap)
	assert.True(t, holds)
	assert.InDelta(t, 0, resid2(ap.G.T(), []float64{0.3, 0.7}, ap.sigma), 1e-15)
	assert.InDeltaSlice(t, []float64{0.2, 0.8}, projectSimplex([]float64{0.5, 1.1}), 1e-15, "the projection onto Δ²")

	// The unbiasedness of Algorithm 1's risk: bags drawn from P_{γ̂_b}, and
	// drawn from P_{γ_b} with γ_b ≠ γ̂_b.
	var seed int64
	for r := rand.New(rand.NewSource(1)); ; {
		if seed = r.Int63(); alg1Assumption(seed) {
			break
		}
	}
	assert.True(t, unbiasedCase(seed, refWeight, nil).OK, "governed by γ̂_b: unbiased")
	assert.False(t, unbiasedCase(seed, refWeight, alg1Governed).OK, "governed by ¾γ̂_b + ¼u: biased")
	holds, _ = alg1Judged(alg1Point{seed: seed})
	assert.False(t, holds, "the judge agrees")
}

// TestUnbiasedTolRejectsJustBeyond: unbiasedTol = 1e-10, relative to
// max(1, |rhs|).
func TestUnbiasedTolRejectsJustBeyond(t *testing.T) {
	close := func(lhs, rhs float64) bool { return math.Abs(lhs-rhs) <= unbiasedTol*math.Max(1, math.Abs(rhs)) }
	assert.True(t, close(1+0.5e-10, 1))
	assert.False(t, close(1+2e-10, 1))
}

// TestHypothesesFindWhatTheyFound: Algorithms 1–3's probes end in their
// expected statuses, none invalid.
func TestHypothesesFindWhatTheyFound(t *testing.T) {
	cfg := verify.Config{Cases: verify.DefaultCases, Seed: 1}
	for _, label := range []string{"alg1: empirical risk unbiased", "alg2: T-hat", "alg2: alpha-hat", "alg3: sigma-hat"} {
		hs := verify.CheckHypotheses(label, cfg)
		require.NotEmpty(t, hs, label)
		for _, h := range hs {
			want := h.Expected
			if want == "" {
				want = verify.NotProbeable
			}
			assert.Equalf(t, want, h.Status, "%s / %s: %s %s", label, h.Name, h.Counterexample, h.Tried)
		}
	}
}
