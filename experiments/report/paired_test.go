package report

import (
	"bytes"
	"math"
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pairedCells are five seeds of three methods and the ceiling at bag size
// 32: kl beats llpfc-uniform by exactly 0.01 in every seed, llpfc-approx
// scatters around llpfc-uniform, and the supervised ceiling is highest.
func pairedCells(acc map[string][5]float64) []*grid.Result {
	var rs []*grid.Result
	for _, m := range []string{"kl", "llpfc-uniform", "llpfc-approx", "supervised"} {
		for s := 0; s < 5; s++ {
			r := tableCell(m, 32, int64(s), nil)
			r.Metrics.TestAccuracy = acc[m][s]
			r.Metrics.BagsDigest = "bags-of-seed-" + string(rune('0'+s))
			rs = append(rs, r)
		}
	}
	return rs
}

var pairedAcc = map[string][5]float64{
	"llpfc-uniform": {0.80, 0.82, 0.81, 0.79, 0.83},
	"kl":            {0.81, 0.83, 0.82, 0.80, 0.84},
	"llpfc-approx":  {0.78, 0.84, 0.80, 0.80, 0.83},
	"supervised":    {0.90, 0.90, 0.90, 0.90, 0.90},
}

// TestPairedDifferencesByHand: the paired comparison of a table on
// differences worked by hand — kl is the best (the ceiling, trained on
// labels, is never ranked), llpfc-uniform trails it by exactly 0.01 in
// every seed (an interval of one point, not tied), llpfc-approx trails it
// by 0.01 on average with a spread that straddles 0 (tied). The column
// ranks 3 methods, so each comparison is at 1 − 0.05/2: approx − kl =
// (−0.03, +0.01, −0.02, 0, −0.01), mean −0.01, s = √(0.001/4), and the
// interval −0.01 ± t₄(0.9875)·s/√5 with t₄(0.9875) = 3.4954059325
// (scipy.stats.t.ppf(0.9875, 4), the oracle: not gonum's quantile).
func TestPairedDifferencesByHand(t *testing.T) {
	tables, err := buildTables(pairedCells(pairedAcc), nil, nil, "")
	require.NoError(t, err)
	require.Len(t, tables, 1)
	rows := map[string]PairedRow{}
	for _, r := range tables[0].Paired {
		rows[r.Method] = r
	}
	require.Len(t, rows, 4)
	assert.True(t, rows["kl"].Best)
	assert.False(t, rows["supervised"].Best || rows["supervised"].Tied, "the ceiling is not ranked")
	u := rows["llpfc-uniform"]
	assert.InDelta(t, -0.01, u.VsBest.Mean, 1e-12)
	assert.InDelta(t, -0.01, u.VsBest.Lo, 1e-12)
	assert.InDelta(t, -0.01, u.VsBest.Hi, 1e-12)
	assert.Equal(t, 2, u.VsBest.Family, "three ranked methods: two comparisons with the best")
	assert.False(t, u.Tied)
	assert.Nil(t, u.VsRef, "no difference of the reference with itself")
	a := rows["llpfc-approx"]
	assert.True(t, a.Tied, "approx − kl: −0.03, +0.01, −0.02, 0, −0.01")
	assert.InDelta(t, -0.01, a.VsBest.Mean, 1e-12)
	half := 3.4954059325 * math.Sqrt(0.001/4) / math.Sqrt(5)
	assert.InDelta(t, -0.01-half, a.VsBest.Lo, 1e-9)
	assert.InDelta(t, -0.01+half, a.VsBest.Hi, 1e-9)
	require.NotNil(t, rows["kl"].VsRef)
	assert.InDelta(t, 0.01, rows["kl"].VsRef.Mean, 1e-12)
	assert.Equal(t, 5, rows["kl"].VsRef.N)

	var sb bytes.Buffer
	tables[0].Markdown(&sb)
	assert.Contains(t, sb.String(), "| KL | **best** | +0.0100 [+0.0100, +0.0100] |")
	assert.Contains(t, sb.String(), "| LLPFC-approx | = -0.0100 [-0.0347, +0.0147] |")
	assert.Contains(t, sb.String(), "m = 2")
}

// TestPairingRefusesOtherBags: a seed whose methods trained on different
// bags (their digests differ) cannot be paired: the report says which, and
// shows no paired intervals.
func TestPairingRefusesOtherBags(t *testing.T) {
	rs := pairedCells(pairedAcc)
	rs[7].Metrics.BagsDigest = "other" // llpfc-uniform, seed 2
	tables, err := buildTables(rs, nil, nil, "")
	require.NoError(t, err)
	assert.Empty(t, tables[0].Paired)
	assert.Contains(t, tables[0].PairedErr, "seed 2")
	var sb bytes.Buffer
	tables[0].Markdown(&sb)
	assert.Contains(t, sb.String(), "No paired comparison: bag size 32, seed 2")
}

// TestOnePairOneInterval: when LLPFC-uniform is the best, a method's
// difference against the best and against LLPFC-uniform are one comparison,
// printed twice: one interval, bit for bit (once two intervals of one
// difference parted in the fourth decimal, and a reader saw
// [-0.0761, -0.0633] beside [-0.0761, -0.0637]).
func TestOnePairOneInterval(t *testing.T) {
	acc := map[string][5]float64{
		// Accuracies to four places, as a test set of 10,000 gives them: the
		// resampled means' atoms lie close, so two streams' percentiles part.
		"llpfc-uniform": {0.8427, 0.8536, 0.8337, 0.8512, 0.8479},
		"kl":            {0.7741, 0.7803, 0.7689, 0.7862, 0.7695},
		"llpfc-approx":  {0.8425, 0.8385, 0.8365, 0.8173, 0.8529},
		"supervised":    {0.90, 0.90, 0.90, 0.90, 0.90},
	}
	tables, err := buildTables(pairedCells(acc), nil, nil, "")
	require.NoError(t, err)
	for _, r := range tables[0].Paired {
		if r.Method == PairedReference {
			require.True(t, r.Best)
			continue
		}
		if r.VsRef != nil {
			assert.Equal(t, r.VsBest, *r.VsRef, r.Method)
		}
	}
}

// TestChoiceCostByHand: what choosing without labels cost a
// searched cell, worked by hand — seed 0 chose a trial of 0.80 while another
// reached 0.85 (cost 0.05; a diverged trial never counts, whatever it
// says), seed 1 chose its best (cost 0) — is in the search line as their
// mean and largest.
func TestChoiceCostByHand(t *testing.T) {
	search := func(c *experiments.Config) {
		c.Hyper.LR = 0
		c.Hyper.ValBags = 0.1
		c.Hyper.Search = &experiments.Search{LR: []float64{1e-3, 1e-2, 1e-1}}
	}
	trials := map[int64]*experiments.SearchRecord{
		0: {Chosen: 0, Trials: []experiments.Trial{{LR: 1e-3, TestAccuracy: 0.80}, {LR: 1e-2, TestAccuracy: 0.85}, {LR: 1e-1, TestAccuracy: 0.99, Diverged: "epoch 1 step 2: loss is NaN"}}},
		1: {Chosen: 1, Trials: []experiments.Trial{{LR: 1e-3, TestAccuracy: 0.70}, {LR: 1e-2, TestAccuracy: 0.82}, {LR: 1e-1, TestAccuracy: 0.81}}},
	}
	var rs []*grid.Result
	for seed, s := range trials {
		r := tableCell("kl", 32, seed, search)
		r.Metrics.Search = s
		r.Metrics.TestAccuracy = s.Trials[s.Chosen].TestAccuracy
		rs = append(rs, r)
	}
	tables, err := buildTables(rs, nil, nil, "")
	require.NoError(t, err)
	require.Len(t, tables, 1)
	st := tables[0].Ours[Slot{"kl", 32}]
	require.Len(t, st.ChoiceCost, 2)
	assert.InDeltaSlice(t, []float64{0.05, 0}, st.ChoiceCost, 1e-12)
	var sb bytes.Buffer
	tables[0].Markdown(&sb)
	assert.Contains(t, sb.String(), "choice cost 0.0250, at most 0.0500")
}

// TestOneSeedIsNoComparison: with one seed a slot there is no interval, so
// no method is marked tied with the best (a difference of −0.7 once showed
// as "= −0.7059 (n=1)", tied) and the report says why it gives no paired
// table; a minibatch of one bag reads "batch 1 bag".
func TestOneSeedIsNoComparison(t *testing.T) {
	var rs []*grid.Result
	for m, acc := range map[string]float64{"kl": 0.81, "llpfc-uniform": 0.83, "llpfc-approx": 0.11} {
		r := tableCell(m, 2048, 0, func(c *experiments.Config) {
			if !experiments.CountsInstances(c.Method) {
				c.Hyper.BatchSize = 1
			}
		})
		r.Metrics.TestAccuracy = acc
		rs = append(rs, r)
	}
	tables, err := buildTables(rs, nil, nil, "")
	require.NoError(t, err)
	for _, r := range tables[0].Paired {
		assert.False(t, r.Tied, "%s: tied on one seed", r.Method)
	}
	var sb bytes.Buffer
	tables[0].Markdown(&sb)
	assert.Contains(t, sb.String(), "No paired comparison: one seed a slot, and an interval needs two.")
	assert.NotContains(t, sb.String(), "(n=1)")
	assert.Contains(t, sb.String(), "batch 1 bag;")
}

// TestChoiceCostOnlyForAccuracy: a table of another metric (bag-only data,
// whose trials score no test accuracy) says nothing of what the choice cost,
// rather than a cost of 0.
func TestChoiceCostOnlyForAccuracy(t *testing.T) {
	r := tableCell("kl", 32, 0, func(c *experiments.Config) {
		c.Hyper.LR = 0
		c.Hyper.ValBags = 0.1
		c.Hyper.Search = &experiments.Search{LR: []float64{1e-3, 1e-2}}
	})
	r.Metrics.Search = &experiments.SearchRecord{Chosen: 0, Trials: []experiments.Trial{{LR: 1e-3}, {LR: 1e-2}}}
	r.Metrics.BagProportionError = 0.1
	tables, err := buildTables([]*grid.Result{r}, nil, nil, MetricBagProportionError)
	require.NoError(t, err)
	require.Len(t, tables, 1)
	assert.Empty(t, tables[0].Ours[Slot{"kl", 32}].ChoiceCost)
	var sb bytes.Buffer
	tables[0].Markdown(&sb)
	assert.NotContains(t, sb.String(), "choice cost")
}

// TestSomeSlotsOfOneSeedStillPair: a store part-way through its seeds (one
// bag size at two seeds, the other at one) still gives its paired table —
// whatever slot comes first — with the one-seed slots marked (n=1) and
// never tied.
func TestSomeSlotsOfOneSeedStillPair(t *testing.T) {
	var rs []*grid.Result
	add := func(m string, bag int, seed int64, acc float64) {
		r := tableCell(m, bag, seed, nil)
		r.Metrics.TestAccuracy = acc
		rs = append(rs, r)
	}
	// the first bag size (32) has one seed, the second (128) two
	add("kl", 32, 0, 0.80)
	add("llpfc-uniform", 32, 0, 0.82)
	for s, d := range []float64{0.011, 0.017} {
		add("kl", 128, int64(s), 0.78)
		add("llpfc-uniform", 128, int64(s), 0.78+d)
	}
	tables, err := buildTables(rs, nil, nil, "")
	require.NoError(t, err)
	require.Len(t, tables, 1)
	var sb bytes.Buffer
	tables[0].Markdown(&sb)
	assert.Contains(t, sb.String(), "Paired differences")
	assert.Contains(t, sb.String(), "(n=1)")
	for _, r := range tables[0].Paired {
		if r.BagSize == 32 {
			assert.False(t, r.Tied, r.Method)
		}
	}
}

// TestGroupsByHand: the group of the hand-worked table (kl best,
// llpfc-approx tied, llpfc-uniform behind; the ceiling never ranked) and its
// sentence, the only form a ranking takes in the documentation
// (docs/comparison.md).
func TestGroupsByHand(t *testing.T) {
	tables, err := buildTables(pairedCells(pairedAcc), nil, nil, "")
	require.NoError(t, err)
	gs := tables[0].Groups()
	require.Len(t, gs, 1)
	assert.Equal(t, Group{BagSize: 32, Best: "kl", BestMean: 0.82, Tied: []string{"llpfc-approx"}, Behind: 1}, gs[0])
	assert.Equal(t, "Bag size 32: KL is the best (0.8200); LLPFC-approx cannot be told from it; the remaining one is behind it.", gs[0].Sentence())
	var sb bytes.Buffer
	tables[0].Markdown(&sb)
	assert.Contains(t, sb.String(), "- "+gs[0].Sentence()+"\n")
	two := Group{BagSize: 512, Best: "llpfc-uniform", BestMean: 0.8458, Tied: []string{"llpfc-approx", "kl"}, Behind: 5}
	assert.Equal(t, "Bag size 512: LLPFC-uniform is the best (0.8458); LLPFC-approx and KL cannot be told from it; the remaining 5 are behind it.", two.Sentence())
}
