package estimators

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"
)

// reductionWith builds a Reduction whose groups carry the given diagnostics.
func reductionWith(ds ...Diagnostics) *Reduction {
	red := &Reduction{}
	for _, d := range ds {
		red.Groups = append(red.Groups, Group{Diagnostics: d})
	}
	return red
}

// Summarize's quantiles equal gonum's empirical quantiles (the smallest value
// with at least a fraction p of the sample at or below it) over the groups of
// all partitions, with +∞ above every finite value.
func TestSummarizeQuantilesMatchGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 50; trial++ {
		var reds []*Reduction
		var inv, cg []float64
		fails, sing := 0, 0
		for p := 0; p < 1+r.IntN(3); p++ {
			var ds []Diagnostics
			for g := 0; g < 1+r.IntN(7); g++ {
				d := Diagnostics{InvNorm1T: 1 + 100*r.Float64(), CondGamma: 1 + 50*r.Float64(), CondT: 2, AssumptionHolds: r.IntN(2) == 0}
				if r.IntN(6) == 0 {
					d.InvNorm1T = math.Inf(1)
					sing++
				}
				if !d.AssumptionHolds {
					fails++
				}
				inv, cg = append(inv, d.InvNorm1T), append(cg, d.CondGamma)
				ds = append(ds, d)
			}
			reds = append(reds, reductionWith(ds...))
		}
		s := Summarize(reds...)
		sort.Float64s(inv)
		sort.Float64s(cg)
		require.Equal(t, len(inv), s.Groups)
		assert.Equal(t, len(reds), s.Partitions)
		assert.Equal(t, stat.Quantile(0.5, stat.Empirical, inv, nil), s.InvNorm1Median, "median ‖T̂⁻¹‖₁ of %v", inv)
		assert.Equal(t, stat.Quantile(0.9, stat.Empirical, inv, nil), s.InvNorm1P90, "p90 ‖T̂⁻¹‖₁ of %v", inv)
		assert.Equal(t, inv[len(inv)-1], s.InvNorm1Max)
		assert.Equal(t, stat.Quantile(0.5, stat.Empirical, cg, nil), s.CondGammaMedian)
		assert.Equal(t, stat.Quantile(0.9, stat.Empirical, cg, nil), s.CondGammaP90)
		assert.InDelta(t, float64(fails)/float64(len(inv)), s.AssumptionFails, 1e-15)
		assert.InDelta(t, float64(sing)/float64(len(inv)), s.Singular, 1e-15)
	}
}

// A worked case: five groups, ‖T̂⁻¹‖₁ = 1, 2, 3, 4, ∞: median 3 (the third),
// 90th percentile and maximum ∞; one singular group in five.
func TestSummarizeWorkedCase(t *testing.T) {
	s := Summarize(reductionWith(Diagnostics{InvNorm1T: 4}, Diagnostics{InvNorm1T: 1, AssumptionHolds: true}),
		reductionWith(Diagnostics{InvNorm1T: math.Inf(1)}, Diagnostics{InvNorm1T: 3}, Diagnostics{InvNorm1T: 2}))
	assert.Equal(t, 3.0, s.InvNorm1Median)
	assert.True(t, math.IsInf(s.InvNorm1P90, 1))
	assert.True(t, math.IsInf(s.InvNorm1Max, 1))
	assert.InDelta(t, 0.2, s.Singular, 1e-15)
	assert.InDelta(t, 0.8, s.AssumptionFails, 1e-15)
	assert.Equal(t, GroupingSummary{}, Summarize(), "no partition, zero summary")
}

// JSON writes +∞ as null and reads it back as +∞.
func TestGroupingSummaryJSONRoundTrip(t *testing.T) {
	in := GroupingSummary{Partitions: 2, Groups: 9, InvNorm1Median: 12.5, InvNorm1P90: math.Inf(1), InvNorm1Max: math.Inf(1),
		CondGammaMedian: 3, CondGammaP90: 4, CondTMedian: 5, CondTP90: 6, AssumptionFails: 0.5, Singular: 0.25}
	b, err := json.Marshal(in)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"inv_norm1_p90":null`)
	var out GroupingSummary
	require.NoError(t, json.Unmarshal(b, &out))
	assert.Equal(t, in, out)
}

// The warning speaks exactly when the median ‖T̂⁻¹‖₁ exceeds the threshold
// (an infinite median included), and names the number.
func TestGroupingSummaryWarning(t *testing.T) {
	for _, tc := range []struct {
		median float64
		warn   bool
	}{{1, false}, {TroubleInvNorm1, false}, {TroubleInvNorm1 + 1, true}, {math.Inf(1), true}} {
		w := GroupingSummary{InvNorm1Median: tc.median, Singular: 1, AssumptionFails: 1}.Warning()
		assert.Equal(t, tc.warn, w != "", "median %v: %q", tc.median, w)
		if tc.warn {
			assert.Contains(t, w, fmtInf(tc.median))
		}
	}
}

// PredictTrouble summarizes the partitions of rounds 0…rounds−1 exactly as
// BuildRound makes them, the same for the same seed; ideal mode is predicted
// with uniform; a count below 1 is an input error.
func TestPredictTrouble(t *testing.T) {
	set := randomBagSet(rand.New(rand.NewPCG(3, 4)), 3, 24, 0)
	got, err := PredictTrouble(set, Options{Mode: ModeUniform}, 7, 4)
	require.NoError(t, err)
	var reds []*Reduction
	for r := 0; r < 4; r++ {
		red, err := BuildRound(set, Options{Mode: ModeUniform}, 7, r)
		require.NoError(t, err)
		reds = append(reds, red)
	}
	assert.Equal(t, Summarize(reds...), got)
	assert.Equal(t, 4*8, got.Groups)
	ideal, err := PredictTrouble(set, Options{Mode: ModeIdeal}, 7, 4)
	require.NoError(t, err)
	assert.Equal(t, got, ideal)
	other, err := PredictTrouble(set, Options{Mode: ModeUniform}, 8, 4)
	require.NoError(t, err)
	assert.NotEqual(t, got, other, "another seed, other groups")
	_, err = PredictTrouble(set, Options{Mode: ModeUniform}, 7, 0)
	var in *InputError
	assert.ErrorAs(t, err, &in)
}
