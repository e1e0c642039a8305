package verify

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestViolateReportsNeededWithAReplayableCounterexample: a probe whose
// family breaks the claim (x ≤ 0.9 on [0,1)) is Needed, its counterexample
// names the stream seed and replays exactly; a family that keeps it (x ≤ 1)
// is NotNeeded, with what was tried and how many cases.
func TestViolateReportsNeededWithAReplayableCounterexample(t *testing.T) {
	gen := func(r *rand.Rand, _ int) float64 { return r.Float64() }
	le := func(b float64) func(float64) Case {
		return func(x float64) Case { return Case{LHS: x, RHS: b, OK: x <= b, Detail: "x"} }
	}
	cfg := Config{Cases: 500, Seed: 3}
	a := Violate(cfg, "probe/t/h", "x uniform on [0,1)", 100, gen, le(0.9))
	b := Violate(cfg, "probe/t/h", "x uniform on [0,1)", 100, gen, le(0.9))
	require.Equal(t, Needed, a.Status)
	assert.Contains(t, a.Counterexample, "stream seed")
	assert.Equal(t, a.Counterexample, b.Counterexample, "same seed, same counterexample")
	assert.LessOrEqual(t, a.Cases, 100, "the probe's cap")
	ok := Violate(cfg, "probe/t/h2", "x uniform on [0,1)", 100, gen, le(1))
	assert.Equal(t, NotNeeded, ok.Status)
	assert.Equal(t, 100, ok.Cases, "capped at the limit")
	assert.Contains(t, ok.Tried, "x uniform on [0,1) (100 cases)")
	assert.Equal(t, 7, ProbeCases(Config{Cases: 7}, 100), "fewer cases than the cap")
}

// TestRangeProbeFromTheEnds: a range without a probe of its own is Needed
// when the statement is false or undefined outside it, NotNeeded when it
// holds (or is vacuous) there, NotProbeable when nothing outside was
// evaluated; Recorded marks the in-range ends that are not "holds".
func TestRangeProbeFromTheEnds(t *testing.T) {
	in := EndCheck{At: "x = 0", Where: AtClosedEnd, Verdict: EndInfinite}
	out := func(v EndVerdict) EndCheck { return EndCheck{At: "x = −1", Where: AtOutside, Verdict: v, Value: "v"} }
	for _, c := range []struct {
		ends []EndCheck
		want ProbeStatus
	}{
		{[]EndCheck{in, out(EndFalse)}, Needed},
		{[]EndCheck{in, out(EndUndefined)}, Needed},
		{[]EndCheck{in, out(EndHolds), out(EndVacuous)}, NotNeeded},
		{[]EndCheck{in}, NotProbeable},
	} {
		assert.Equal(t, c.want, RangeProbe(RangeResult{Printed: "x ∈ [0, 1]", Ends: c.ends}).Status, "%+v", c.ends)
	}
	assert.True(t, in.Recorded(), "a closed end that is infinite is recorded")
	assert.False(t, out(EndFalse).Recorded(), "outside the range: not a finding about the statement")
	assert.False(t, EndCheck{Where: AtJustInside, Verdict: EndHolds}.Recorded())
}

// TestRunProbesHypothesesOnlyWhenAsked: Config.Hypotheses makes Run fill
// Result.Hypotheses (probes run, ranges' ends evaluated, a reason given for
// what cannot be probed); without it the rows are as before.
func TestRunProbesHypothesesOnlyWhenAsked(t *testing.T) {
	label := "test: hypotheses of a claim"
	RegisterHypotheses(label,
		Hypothesis{Name: "x < 1", Kind: HypRange, Text: "for x ∈ [0, 1)", Line: 1, Expect: Needed,
			Range: &Range{Param: "x", Printed: "x ∈ [0, 1)", Lo: "0", Hi: "1", HiOpen: true, Ends: func(Config) []EndCheck {
				return []EndCheck{{At: "x = 1", Where: AtOpenEnd, Value: "1/(1−x) = +Inf", Verdict: EndUndefined}}
			}}},
		Hypothesis{Name: "measurable", Kind: HypDistribution, Text: "f measurable", Why: "every function on a finite set is"},
	)
	c := Claim{Label: label, Check: func(Config) Outcome { return Outcome{Cases: 1, WorstRatio: math.NaN()} }}
	assert.Empty(t, Run(c, Config{Cases: 1}).Hypotheses)
	hs := Run(c, Config{Cases: 1, Hypotheses: true}).Hypotheses
	require.Len(t, hs, 2)
	assert.Equal(t, Needed, hs[0].Status)
	assert.Contains(t, hs[0].Counterexample, "x = 1")
	require.NotNil(t, hs[0].Range)
	assert.True(t, hs[0].Range.HiOpen)
	assert.Equal(t, NotProbeable, hs[1].Status)
	assert.Equal(t, "every function on a finite set is", hs[1].Tried)
}

// TestRegisterHypothesesRefusesIncompleteOnes: a hypothesis without text,
// a range without its range, a hypothesis neither probed nor explained, a
// probed one without the status it found, a label registered twice.
func TestRegisterHypothesesRefusesIncompleteOnes(t *testing.T) {
	probe := func(Config) ProbeResult { return ProbeResult{Status: NotNeeded} }
	for name, h := range map[string]Hypothesis{
		"no text":        {Name: "a", Kind: HypLoss, Why: "w"},
		"range no range": {Name: "a", Kind: HypRange, Text: "t", Why: "w"},
		"no reason":      {Name: "a", Kind: HypLoss, Text: "t"},
		"no expectation": {Name: "a", Kind: HypLoss, Text: "t", Probe: probe},
	} {
		assert.Panics(t, func() { RegisterHypotheses("test: bad "+name, h) }, name)
	}
	RegisterHypotheses("test: twice", Hypothesis{Name: "a", Kind: HypLoss, Text: "t", Why: "w"})
	assert.Panics(t, func() { RegisterHypotheses("test: twice", Hypothesis{Name: "a", Kind: HypLoss, Text: "t", Why: "w"}) })
}
