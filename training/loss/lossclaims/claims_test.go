package lossclaims

// The newer methods' claims run in their own package's tests (not only
// through proofs_tests): each holds on the default 500 cases, its negative
// control is caught, its probes' verdicts and judges answer hand-built
// points on both sides, and every tolerance rejects a point just beyond it.

import (
	"math"
	"testing"

	"github.com/llpfc/llpfc/theory/verify"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClaimsHoldAndCatchTheirControls runs the four claims at the default
// cases and seed 1.
func TestClaimsHoldAndCatchTheirControls(t *testing.T) {
	for _, label := range []string{labelEasy, labelPVC, labelMixture, labelCoverage} {
		c, ok := verify.Lookup(label)
		require.True(t, ok, label)
		r := verify.Run(c, verify.Config{Cases: verify.DefaultCases, Seed: 1})
		assert.Equalf(t, "pass", r.Status, "%s: %s", label, r.Counterexample)
		assert.GreaterOrEqualf(t, r.Cases, verify.DefaultCases, "%s: cases", label)
		assert.Equalf(t, "caught", r.NegativeControl, "%s: negative control %q", label, c.NegativeName)
	}
}

// TestHypothesesFindWhatTheyFound: the four claims' probes end in their
// expected statuses, none invalid.
func TestHypothesesFindWhatTheyFound(t *testing.T) {
	cfg := verify.Config{Cases: verify.DefaultCases, Seed: 1}
	for _, label := range []string{labelEasy, labelPVC, labelMixture, labelCoverage} {
		for _, h := range verify.CheckHypotheses(label, cfg) {
			assert.Equalf(t, h.Expected, h.Status, "%s / %s: %s %s", label, h.Name, h.Counterexample, h.Tried)
		}
	}
}

// easyHand is a population of two points, one per class.
func easyHand() easyDist {
	return easyDist{C: 2, W: []float64{0.6, 0.4}, Y: []int{0, 1}, Z: [][]float64{{1, -1}, {0.5, 0.2}}}
}

func TestEasyVerdicts(t *testing.T) {
	d := easyHand()
	c := easyCase{d: d, k: 3}
	got, err := easyExpect(d, 3, d.W, d.prior(), easyLossRef)
	require.NoError(t, err)
	assert.InDelta(t, instanceRiskDef(d), got, 1e-12, "i.i.d. bags, the population's prior: unbiased")
	assert.InDelta(t, got, easyExpectDef(d, 3, d.W, d.prior(), false), 1e-12, "loss.EasyLLP against its definition")
	holds, _ := easyPriorJudge.Conclusion(c)
	assert.False(t, holds, "the bag's own proportions as p: biased")
	gov := governedCase{easyCase: easyCase{d: d, k: 2}, delta: []float64{0.3, -0.3}}
	assert.False(t, easyGovernedCase(gov).OK, "bags governed by p ± δ")
	holds, _ = easyGovernedJudge.Conclusion(gov)
	assert.False(t, holds)
	none := governedCase{easyCase: easyCase{d: d, k: 2}, delta: []float64{0, 0}}
	assert.True(t, easyGovernedCase(none).OK, "δ = 0: i.i.d. from the population")
	holds, _ = easyGovernedJudge.Conclusion(none)
	assert.True(t, holds)
	parts, _ := easyGovernedJudge.Parts(none)
	assert.True(t, parts["bags i.i.d. from the population"])
}

func TestPVCVerdicts(t *testing.T) {
	b := pvcBag{S: 2, C: 2, Z: []float64{1, -0.5, -0.3, 2}, Labels: []int{0, 1}}
	assert.False(t, pvcCategoricalCase(b).OK, "one class per instance: counts dependent")
	holds, _ := pvcCategoricalJudge.Conclusion(b)
	assert.False(t, holds)
	assert.False(t, pvcSharedCase(b).OK, "a shared factor: labels dependent")
	holds, _ = pvcSharedJudge.Conclusion(b)
	assert.False(t, holds)
	// One instance: no dependence between instances to speak of, and the
	// categorical count vector (1 of class c) has the same probability as
	// the product only when C = 1 — the verdicts' other side, where the
	// two computations agree: one instance of one class.
	one := pvcBag{S: 1, C: 1, Z: []float64{0.7}, Labels: []int{0}}
	assert.True(t, pvcCategoricalCase(one).OK)
	holds, _ = pvcCategoricalJudge.Conclusion(one)
	assert.True(t, holds)
	for _, k := range []int{0, 1, 2} {
		assert.InDelta(t, countProb([]float64{0.3, 0.6}, k), poissonBinomial([]float64{0.3, 0.6}, k), 1e-15, "k = %d", k)
	}
}

func TestMixVerdicts(t *testing.T) {
	sorted := mixPair{C: 2, Mi: 4, Mj: 4, Labels: []int{1, 0, 1, 0, 0, 0, 1, 1}}
	assert.False(t, mixSortedCase(sorted).OK, "sorted sub-bags: their proportions are not the mixture's")
	holds, _ := mixSortedJudge.Conclusion(sorted)
	assert.False(t, holds)
	pure := mixPair{C: 2, Mi: 3, Mj: 3, Labels: []int{0, 0, 0, 1, 1, 1}}
	assert.True(t, mixSortedCase(pure).OK, "pure bags: every sub-bag has the bag's proportions")
	holds, _ = mixSortedJudge.Conclusion(pure)
	assert.True(t, holds)
}

func TestCoverVerdicts(t *testing.T) {
	small := coverCase{m: 8, C: 2, pairs: 20000, draw: 1, seed: 3, fixed: true, counts: []int{1, 0}}
	cov, n := coverage(small, intervalRef, 0.005)
	assert.False(t, coverVerdict(small, cov, n, 0.005).OK, "one instance of a class in a bag of 8: coverage %v", cov)
	holds, _ := coverJudge.Conclusion(small)
	assert.False(t, holds)
	parts, _ := coverJudge.Parts(small)
	assert.False(t, parts["counts approximately normal"])
	big := coverCase{m: 100, C: 2, pairs: 10, draw: 40, seed: 3}
	cov, n = coverage(big, intervalRef, 0.005)
	assert.True(t, coverVerdict(big, cov, n, 0.005).OK, "bags of 100: coverage %v", cov)
}

// TestTolerancesReject: each named tolerance rejects a point just beyond
// its documented value (2× it), so that loosening it tenfold is caught.
func TestTolerancesReject(t *testing.T) {
	d := easyHand()
	want := instanceRiskDef(d)
	close := func(got float64) bool { return math.Abs(got-want) <= easyTol*math.Max(1, math.Abs(want)) }
	assert.True(t, close(want+0.5e-10*math.Max(1, want)))
	assert.False(t, close(want+2e-10*math.Max(1, want)), "easyTol is 1e-10")
	b := pvcBag{S: 2, C: 2, Z: []float64{1, -0.5, -0.3, 2}, Labels: []int{0, 1}}
	got, err := pvcLossRef(b)
	require.NoError(t, err)
	shifted := func(l float64) bool {
		want := 0.0
		counts := pvcCounts(b)
		for c := 0; c < b.C; c++ {
			p := []float64{b.prob(0, c), b.prob(1, c)}
			want -= math.Log(countProb(p, counts[c]))
		}
		return math.Abs(l-want) <= pvcTol*math.Max(1, math.Abs(want))
	}
	assert.True(t, shifted(got))
	assert.False(t, shifted(got+2e-9*math.Max(1, math.Abs(got))), "pvcTol is 1e-9")
	assert.False(t, math.Abs(2e-12) <= mixTol, "mixTol is 1e-12")
	assert.True(t, math.Abs(0.5e-12) <= mixTol)
}
