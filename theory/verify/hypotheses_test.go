package verify

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The claim "x ≤ b for x ∈ [0, 1)" with one hypothesis part "x < 0.9",
// probed by families of x: its judge decides the part and re-evaluates the
// conclusion by its own arithmetic.
const testProbeLabel = "test: x ≤ b"

func init() {
	RegisterHypotheses(testProbeLabel,
		Hypothesis{Name: "x < 0.9", Kind: HypDistribution, Text: "x < 0.9", From: FromStatement, Why: "probed by the tests of Violate"},
		Hypothesis{Name: "x ≥ 0", Kind: HypDistribution, Text: "x ≥ 0", From: "definition: x's domain", Why: "probed by the tests of Violate"},
	)
}

// leJudge judges x: "x < 0.9" and "x ≥ 0" as parts, [0, 2] as the domain,
// the conclusion x ≤ b recomputed.
func leJudge(b float64) Judge[float64] {
	return Judge[float64]{
		Parts: func(x float64) (map[string]bool, string) {
			out := ""
			if x > 2 {
				out = "x's domain [0, 2]"
			}
			return map[string]bool{"x < 0.9": x < 0.9, "x ≥ 0": x >= 0}, out
		},
		Conclusion: func(x float64) (bool, string) { return x <= b, "x ≤ b recomputed" },
	}
}

func le(b float64) func(float64) Case {
	return func(x float64) Case { return Case{LHS: x, RHS: b, OK: x <= b, Detail: "x"} }
}

// TestViolateReportsNeededWithAReplayableCounterexample: a probe whose
// family (x ∈ [0.9, 1)) breaks the claim x ≤ 0.95 is Needed, its
// counterexample names the stream seed, replays exactly and is
// re-evaluated; a family that keeps the claim (x ≤ 1) is NotNeeded, with
// what was tried, how many cases and its worst ratio.
func TestViolateReportsNeededWithAReplayableCounterexample(t *testing.T) {
	gen := func(r *rand.Rand, _ int) float64 { return 0.9 + 0.1*r.Float64() }
	cfg := Config{Cases: 500, Seed: 3}
	p := Probing{Label: testProbeLabel, Hyp: "x < 0.9", Tried: "x uniform on [0.9, 1)"}
	a := Violate(cfg, p, 100, gen, le(0.95), leJudge(0.95))
	b := Violate(cfg, p, 100, gen, le(0.95), leJudge(0.95))
	require.Equal(t, Needed, a.Status, a.Tried)
	assert.Contains(t, a.Counterexample, "stream seed")
	assert.Equal(t, a.Counterexample, b.Counterexample, "same seed, same counterexample")
	assert.LessOrEqual(t, a.Cases, 100, "the probe's cap")
	assert.Contains(t, a.Judged, "re-evaluated")
	ok := Violate(cfg, Probing{Label: testProbeLabel, Hyp: "x < 0.9", Tried: "x uniform on [0.9, 1)"}, 100, gen, le(1), leJudge(1))
	assert.Equal(t, NotNeeded, ok.Status)
	assert.Equal(t, 100, ok.Cases, "capped at the limit")
	assert.Contains(t, ok.Tried, "x uniform on [0.9, 1) (100 cases)")
	assert.InDelta(t, 1, ok.WorstRatio, 0.01, "the largest x drawn")
	assert.Equal(t, 7, ProbeCases(Config{Cases: 7}, 100), "fewer cases than the cap")
}

// TestViolateRefusesProbesThatAreNotWhatTheySay: a family that keeps the
// part it claims to drop, one that also drops another part, one that
// leaves the definitions' domain, and a counterexample that its judge
// re-evaluates as no counterexample all end ProbeInvalid.
func TestViolateRefusesProbesThatAreNotWhatTheySay(t *testing.T) {
	cfg := Config{Cases: 50, Seed: 1}
	p := Probing{Label: testProbeLabel, Hyp: "x < 0.9", Tried: "family"}
	for name, c := range map[string]struct {
		gen   func(*rand.Rand, int) float64
		check func(float64) Case
		judge Judge[float64]
	}{
		"keeps the part":    {func(r *rand.Rand, _ int) float64 { return 0.5 * r.Float64() }, le(0.95), leJudge(0.95)},
		"drops two parts":   {func(r *rand.Rand, _ int) float64 { return -1 - r.Float64() }, le(0.95), leJudge(0.95)},
		"outside a domain":  {func(r *rand.Rand, _ int) float64 { return 3 + r.Float64() }, le(0.95), leJudge(0.95)},
		"counts any point":  {func(r *rand.Rand, _ int) float64 { return 0.9 + 0.05*r.Float64() }, func(float64) Case { return Case{OK: false} }, leJudge(0.95)},
		"no conclusion":     {func(r *rand.Rand, _ int) float64 { return 0.96 }, le(0.95), Judge[float64]{Parts: leJudge(0.95).Parts}},
		"judge undecided":   {func(r *rand.Rand, _ int) float64 { return 0.96 }, le(0.95), Judge[float64]{Parts: func(float64) (map[string]bool, string) { return map[string]bool{"x < 0.9": false}, "" }}},
		"no judge of parts": {func(r *rand.Rand, _ int) float64 { return 0.96 }, le(0.95), Judge[float64]{}},
	} {
		got := Violate(cfg, p, 50, c.gen, c.check, c.judge)
		assert.Equalf(t, ProbeInvalid, got.Status, "%s: %+v", name, got)
		assert.NotEmptyf(t, got.Tried, "%s: an invalid probe says why", name)
	}
}

// TestPartsVerdict: the verdict on one point, both sides of each rule.
func TestPartsVerdict(t *testing.T) {
	names := []string{"a", "b", "c"}
	for _, c := range []struct {
		parts       map[string]bool
		outside     string
		wantOutside bool
		bad         bool
	}{
		{map[string]bool{"a": false, "b": true, "c": true}, "", false, false},
		{map[string]bool{"a": true, "b": true, "c": true}, "", false, true},   // keeps a
		{map[string]bool{"a": false, "b": false, "c": true}, "", false, true}, // drops b too
		{map[string]bool{"a": false, "b": true}, "", false, true},             // c undecided
		{map[string]bool{"b": true, "c": true}, "", false, true},              // a undecided
		{map[string]bool{"a": false, "b": true, "c": true}, "ℓ_T", false, true},
		{map[string]bool{"a": false, "b": true, "c": true}, "ℓ_T", true, false},
		{map[string]bool{"a": false, "b": true, "c": true}, "", true, true},
	} {
		got := PartsVerdict("a", names, c.parts, c.outside, c.wantOutside)
		assert.Equalf(t, c.bad, got != "", "%+v: %q", c, got)
	}
}

// TestUndefine: a family of points outside a definition's domain is
// NeededToDefine, naming the domain; one inside is ProbeInvalid.
func TestUndefine(t *testing.T) {
	cfg := Config{Cases: 20, Seed: 1}
	p := Probing{Label: testProbeLabel, Hyp: "x < 0.9", Tried: "x > 2"}
	desc := func(x float64) string { return "x" }
	out := Undefine(cfg, p, 20, func(r *rand.Rand, _ int) float64 { return 3 }, desc, leJudge(1))
	require.Equal(t, NeededToDefine, out.Status, out.Tried)
	assert.Contains(t, out.Tried, "x's domain [0, 2]")
	assert.Contains(t, out.Counterexample, "stream seed")
	in := Undefine(cfg, p, 20, func(r *rand.Rand, _ int) float64 { return 1.5 }, desc, leJudge(1))
	assert.Equal(t, ProbeInvalid, in.Status, "a point inside the domain defines the statement")
}

// TestJudgeOutcome: a claim's own checker run on a violating family is
// judged at its first point and its counterexample.
func TestJudgeOutcome(t *testing.T) {
	cfg := Config{Cases: 50, Seed: 2}
	gen := func(r *rand.Rand, _ int) float64 { return 0.9 + 0.1*r.Float64() }
	p := Probing{Label: testProbeLabel, Hyp: "x < 0.9", Tried: "the claim's checker"}
	o := Property(cfg, "t", Bound, gen, le(0.95))
	require.True(t, o.Failed)
	assert.Equal(t, Needed, JudgeOutcome(o, p, leJudge(0.95)).Status)
	assert.Equal(t, ProbeInvalid, JudgeOutcome(o, p, leJudge(2)).Status, "the judge finds the claim holding there")
	kept := Property(cfg, "t", Bound, func(r *rand.Rand, _ int) float64 { return 0.1 }, le(0.95))
	assert.Equal(t, ProbeInvalid, JudgeOutcome(kept, p, leJudge(0.95)).Status, "the first point keeps the part")
	assert.Equal(t, ProbeInvalid, JudgeOutcome(o, p, Judge[int]{}).Status, "a judge of another type")
}

// TestRangeProbeFromTheEnds: a range without a probe of its own is Needed
// when the statement is false outside it, NeededToDefine when it is
// undefined there, NotNeeded when it holds (or is vacuous) there,
// NotProbeable when nothing outside was evaluated; Recorded marks the
// in-range ends that are not "holds".
func TestRangeProbeFromTheEnds(t *testing.T) {
	in := EndCheck{At: "x = 0", Where: AtClosedEnd, Verdict: EndInfinite}
	out := func(v EndVerdict) EndCheck {
		return EndCheck{At: "x = −1", Where: AtOutside, Verdict: v, Value: "v", Judge: func() (bool, string) { return false, "false again" }}
	}
	wrongJudge := EndCheck{At: "x = −1", Where: AtOutside, Verdict: EndFalse, Judge: func() (bool, string) { return true, "holds" }}
	noJudge := EndCheck{At: "x = −1", Where: AtOutside, Verdict: EndFalse}
	for _, c := range []struct {
		ends []EndCheck
		want ProbeStatus
	}{
		{[]EndCheck{in, out(EndFalse)}, Needed},
		{[]EndCheck{in, out(EndUndefined)}, NeededToDefine},
		{[]EndCheck{in, out(EndUndefined), out(EndFalse)}, Needed},
		{[]EndCheck{in, out(EndHolds), out(EndVacuous)}, NotNeeded},
		{[]EndCheck{in}, NotProbeable},
		{[]EndCheck{in, wrongJudge}, ProbeInvalid},
		{[]EndCheck{in, noJudge}, ProbeInvalid},
	} {
		assert.Equal(t, c.want, RangeProbe(RangeResult{Printed: "x ∈ [0, 1]", Ends: c.ends}).Status, "%+v", c.ends)
	}
	assert.True(t, in.Recorded(), "a closed end that is infinite is recorded")
	assert.False(t, out(EndFalse).Recorded(), "outside the range: not a finding about the statement")
	assert.False(t, EndCheck{Where: AtJustInside, Verdict: EndHolds}.Recorded())
}

// TestContainsAndCheckEnds: membership from the printed ends, flags and
// holes; an end check on the wrong side of its range, or without its
// point, is refused.
func TestContainsAndCheckEnds(t *testing.T) {
	m := Range{Printed: "m ∈ {1} ∪ {3, 4, …}", Lo: "1", Hi: "∞", HiOpen: true, Holes: []string{"2"}, Integer: true}
	for x, want := range map[float64]bool{0: false, 1: true, 2: false, 3: true, 2.5: false, math.Inf(1): false} {
		in, decided := m.Contains([]float64{x})
		assert.Truef(t, decided, "m = %v", x)
		assert.Equalf(t, want, in, "m = %v", x)
	}
	d := Range{Printed: "δ ∈ (0, 1]", Lo: "0", Hi: "1", LoOpen: true}
	ok := []EndCheck{{At: "δ = 0", Where: AtOpenEnd, X: []float64{0}}, {At: "δ = 1", Where: AtClosedEnd, X: []float64{1}},
		{At: "δ = 1e-9", Where: AtJustInside, X: []float64{1e-9}}, {At: "δ = 1.5", Where: AtOutside, X: []float64{1.5}}}
	require.NoError(t, CheckEnds(d, ok))
	for _, bad := range []EndCheck{
		{At: "δ = 0.5 said outside", Where: AtOutside, X: []float64{0.5}},
		{At: "δ = 0 said closed", Where: AtClosedEnd, X: []float64{0}},
		{At: "no point", Where: AtOutside},
		{At: "nowhere", Where: "somewhere", X: []float64{0}},
	} {
		assert.Errorf(t, CheckEnds(d, []EndCheck{bad}), "%+v", bad)
	}
	assert.Error(t, CheckEnds(m, []EndCheck{{At: "m = 2", Where: AtJustInside, X: []float64{2}}}), "the hole is outside")
	assert.Error(t, CheckEnds(Range{Printed: "p ∈ Δ^C"}, []EndCheck{{At: "p", Where: AtOutside, X: []float64{1, 1}}}), "no membership")
	simplex := Range{Printed: "p ∈ Δ^C", Member: func(x []float64) bool { return x[0] >= 0 && x[1] >= 0 && x[0]+x[1] == 1 }}
	assert.NoError(t, CheckEnds(simplex, []EndCheck{{At: "p = (1, 1)", Where: AtOutside, X: []float64{1, 1}}}))
}

// TestParsePrinted: intervals, open and closed ends, unions of sets of
// integers with their holes, and the named sets.
func TestParsePrinted(t *testing.T) {
	for printed, want := range map[string]Printed{
		"δ ∈ [0, 1]":                 {Lo: "0", Hi: "1"},
		"δ ∈ (0, 1]":                 {Lo: "0", Hi: "1", LoOpen: true},
		"a_i ∈ [0, ∞)":               {Lo: "0", Hi: "∞", HiOpen: true},
		"q ∈ (0, ½)":                 {Lo: "0", Hi: "½", LoOpen: true, HiOpen: true},
		"ε ∈ ℝ₊ = (0, ∞)":            {Lo: "0", Hi: "∞", LoOpen: true, HiOpen: true},
		"β ∈ ℝ₊":                     {Lo: "0", Hi: "∞", LoOpen: true, HiOpen: true},
		"c₀ ∈ ℝ":                     {Lo: "−∞", Hi: "∞", LoOpen: true, HiOpen: true},
		"n_{i,c} ∈ ℕ = {1, 2, …}":    {Lo: "1", Hi: "∞", HiOpen: true},
		"k ∈ ℕ":                      {Lo: "1", Hi: "∞", HiOpen: true},
		"m ∈ {1} ∪ {3, 4, …} (§4.3)": {Lo: "1", Hi: "∞", HiOpen: true, Holes: []string{"2"}},
		"s·α_c ∈ {0, …, s}":          {Lo: "0", Hi: "s"},
	} {
		got, _, ok := ParsePrinted(printed)
		require.Truef(t, ok, "%s", printed)
		assert.Equalf(t, want, got, "%s", printed)
	}
	_, _, ok := ParsePrinted("p ∈ Δ^C")
	assert.False(t, ok, "a simplex is no range of numbers")
}

// TestRunProbesHypothesesOnlyWhenAsked: Config.Hypotheses makes Run fill
// Result.Hypotheses (probes run, ranges' ends evaluated, a reason given for
// what cannot be probed); without it the rows are as before.
func TestRunProbesHypothesesOnlyWhenAsked(t *testing.T) {
	label := "test: hypotheses of a claim"
	RegisterHypotheses(label,
		Hypothesis{Name: "x < 1", Kind: HypRange, Text: "for x ∈ [0, 1)", Line: 1, From: FromStatement, Expect: NeededToDefine,
			Range: &Range{Param: "x", Printed: "x ∈ [0, 1)", Lo: "0", Hi: "1", HiOpen: true, Ends: func(Config) []EndCheck {
				return []EndCheck{{At: "x = 1", Where: AtOpenEnd, Value: "1/(1−x) = +Inf", Verdict: EndUndefined, X: []float64{1}}}
			}}},
		Hypothesis{Name: "measurable", Kind: HypDistribution, Text: "f measurable", From: "definition: ℱ", Why: "every function on a finite set is"},
		Hypothesis{Name: "unjudged", Kind: HypLoss, Text: "a probe without a judge", From: FromStatement, Expect: NotNeeded,
			Probe: func(Config) ProbeResult { return ProbeResult{Status: NotNeeded, Tried: "anything"} }},
		Hypothesis{Name: "end inside", Kind: HypRange, Text: "x ∈ [0, 1]", From: FromStatement, Expect: NotNeeded,
			Range: &Range{Param: "x", Printed: "x ∈ [0, 1]", Lo: "0", Hi: "1", Ends: func(Config) []EndCheck {
				return []EndCheck{{At: "x = 0.5", Where: AtOutside, Value: "holds", Verdict: EndHolds, X: []float64{0.5}}}
			}}},
	)
	c := Claim{Label: label, Check: func(Config) Outcome { return Outcome{Cases: 1, WorstRatio: math.NaN()} }}
	assert.Empty(t, Run(c, Config{Cases: 1}).Hypotheses)
	hs := Run(c, Config{Cases: 1, Hypotheses: true}).Hypotheses
	require.Len(t, hs, 4)
	assert.Equal(t, NeededToDefine, hs[0].Status)
	assert.Contains(t, hs[0].Counterexample, "x = 1")
	require.NotNil(t, hs[0].Range)
	assert.True(t, hs[0].Range.HiOpen)
	assert.Equal(t, NotProbeable, hs[1].Status)
	assert.Equal(t, "every function on a finite set is", hs[1].Tried)
	assert.Equal(t, "definition: ℱ", hs[1].From)
	assert.Equal(t, ProbeInvalid, hs[2].Status, "a probe whose points no judge saw")
	assert.Equal(t, ProbeInvalid, hs[3].Status, "a range probe trying a point inside the range it leaves")
}

// TestRegisterHypothesesRefusesIncompleteOnes: a hypothesis without text
// or origin, a range without its range, a hypothesis neither probed nor
// explained, a probed one without the status it found or expecting an
// invalid probe, a label registered twice.
func TestRegisterHypothesesRefusesIncompleteOnes(t *testing.T) {
	probe := func(Config) ProbeResult { return ProbeResult{Status: NotNeeded} }
	for name, h := range map[string]Hypothesis{
		"no text":        {Name: "a", Kind: HypLoss, From: FromStatement, Why: "w"},
		"no origin":      {Name: "a", Kind: HypLoss, Text: "t", Why: "w"},
		"bad origin":     {Name: "a", Kind: HypLoss, Text: "t", From: "lemma", Why: "w"},
		"range no range": {Name: "a", Kind: HypRange, Text: "t", From: FromStatement, Why: "w"},
		"no reason":      {Name: "a", Kind: HypLoss, Text: "t", From: FromStatement},
		"no expectation": {Name: "a", Kind: HypLoss, Text: "t", From: FromStatement, Probe: probe},
		"invalid":        {Name: "a", Kind: HypLoss, Text: "t", From: FromStatement, Probe: probe, Expect: ProbeInvalid},
	} {
		assert.Panics(t, func() { RegisterHypotheses("test: bad "+name, h) }, name)
	}
	RegisterHypotheses("test: twice", Hypothesis{Name: "a", Kind: HypLoss, Text: "t", From: FromStatement, Why: "w"})
	assert.Panics(t, func() {
		RegisterHypotheses("test: twice", Hypothesis{Name: "a", Kind: HypLoss, Text: "t", From: FromStatement, Why: "w"})
	})
}
