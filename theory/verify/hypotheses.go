package verify

// Hypotheses. A claim is checked inside its assumptions; this file lists the
// assumptions themselves, so that `llpfc verify` can say of each one whether
// the result needs it:
//
//   - a Hypothesis is one part of a condition in force for a statement:
//     the statement's own, one that a definition it uses carries (the
//     function classes and their constants, the weights and sample sizes of
//     an empirical risk, the norm a "Lipschitz" refers to, the link), or one
//     of a lemma its proof applies (From says which). A compound condition
//     ("an invertible column-stochastic matrix") is registered as its
//     independent parts (Of names the compound), each probed on its own;
//   - its Probe re-runs the claim with that one part violated and every
//     other kept, and reports Needed (with a counterexample inside every
//     definition's domain, re-evaluated from the definitions by a judge
//     independent of the probe's check: judge.go), NeededToDefine (the
//     statement is undefined without it: a point outside a definition's
//     domain is no counterexample), NotNeeded (with what was varied and how
//     far it pushed the statement) or, when there is no probe, NotProbeable
//     (with why). A probe whose points do not violate exactly the probed
//     part, or whose counterexample fails its re-evaluation, is reported
//     ProbeInvalid: the tests hold every probe to its expected status, and
//     no probe to that one;
//   - a Range is a parameter's range as printed (a set with holes included);
//     its Ends evaluate the statement at its ends, just inside and just
//     outside, each end carrying its point, which CheckEnds holds to the
//     range (a point said to lie outside must lie outside).
//
// Hypotheses are registered beside the claims, by label
// (RegisterHypotheses), from any package that registers claims; Run fills
// Result.Hypotheses when Config.Hypotheses is set (the `llpfc verify`
// command sets it; the tests of the claims and `make mutate` do not, so their
// time and their outcomes do not change).

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strings"
)

// HypothesisKind says what a hypothesis constrains.
type HypothesisKind string

const (
	// HypLoss constrains the loss ℓ (continuous, strictly proper, …).
	HypLoss HypothesisKind = "loss"
	// HypMatrix constrains a matrix: T (invertible, column-stochastic), Γ, M.
	HypMatrix HypothesisKind = "T"
	// HypGrouping constrains the bags, their proportions and their grouping.
	HypGrouping HypothesisKind = "grouping"
	// HypClass constrains the function class and its constants.
	HypClass HypothesisKind = "class"
	// HypSampling constrains how the data are drawn (independence, i.i.d.).
	HypSampling HypothesisKind = "sampling"
	// HypDistribution constrains P or a risk (finite Bayes risk, σ(c) ≠ 0).
	HypDistribution HypothesisKind = "distribution"
	// HypRange is a parameter's stated range (Hypothesis.Range).
	HypRange HypothesisKind = "range"
)

// HypothesisKinds lists the kinds in the order tables count them.
var HypothesisKinds = []HypothesisKind{HypLoss, HypMatrix, HypGrouping, HypClass, HypSampling, HypDistribution, HypRange}

// Where a hypothesis comes from (Hypothesis.From begins with one of these).
const (
	// FromStatement: the statement's own sentence.
	FromStatement = "statement"
	// FromDefinition: a definition the statement uses ("definition: 𝒢₂,
	// §4.3"); its line is the definition's.
	FromDefinition = "definition"
	// FromLemma: a lemma the proof applies ("lemma: multi.rad.lemma"); its
	// line is the lemma's.
	FromLemma = "lemma"
	// FromProof: a step of the proof that assumes it without a lemma.
	FromProof = "proof"
	// FromMethod: the paper or code of a method outside the paper.
	FromMethod = "method"
)

var fromPrefixes = []string{FromStatement, FromDefinition, FromLemma, FromProof, FromMethod}

// ProbeStatus is what probing a hypothesis found.
type ProbeStatus string

const (
	// Needed: with the hypothesis violated (every other kept) the claim
	// failed at a point inside every definition's domain; the
	// counterexample replays from its stream seed and was re-evaluated from
	// the definitions.
	Needed ProbeStatus = "needed"
	// NeededToDefine: without the hypothesis the statement is undefined (a
	// definition it uses leaves its domain: ℓ_T needs Tq ∈ Δ^C, an inverse
	// needs an invertible matrix, a conditional needs a positive mass).
	NeededToDefine ProbeStatus = "needed to define the statement"
	// NotNeeded: the claim held on every violating input tried (Tried says
	// which, Slack how far it pushed the statement): a candidate finding
	// about the statement, or about the probe.
	NotNeeded ProbeStatus = "not needed in what was tried"
	// NotProbeable: there is no controlled way to violate it here (Tried
	// says why).
	NotProbeable ProbeStatus = "not probeable here"
	// ProbeInvalid: the probe did not do what it says (a point that keeps
	// the probed part or violates another, a counterexample that fails its
	// re-evaluation, a range end on the wrong side of its range). No
	// hypothesis may end here; the tests fail on it.
	ProbeInvalid ProbeStatus = "probe invalid"
)

// ProbeStatuses lists the statuses a hypothesis may end in, in the order
// tables count them (ProbeInvalid is not one of them).
var ProbeStatuses = []ProbeStatus{Needed, NeededToDefine, NotNeeded, NotProbeable}

// ProbeResult is the outcome of probing one hypothesis.
type ProbeResult struct {
	Status ProbeStatus
	// Counterexample is, for Needed, the input on which the claim failed
	// and the stream seed that replays it; for NeededToDefine, the point
	// where the statement is undefined.
	Counterexample string
	// Tried says, for NotNeeded, what was tried; for NotProbeable, why
	// nothing could be; for Needed, the family the counterexample was
	// drawn from.
	Tried string
	// Cases is the number of violating inputs tried.
	Cases int
	// Judged is what the independent judge found (judge.go): the parts of
	// every point, and the counterexample re-evaluated from the definitions.
	Judged string
	// WorstRatio is the largest LHS/RHS the probe's cases reached (NaN when
	// none had a finite ratio): how far a NotNeeded probe pushed a bound.
	WorstRatio float64
	// Slack says, for a NotNeeded probe that understates a constant of a
	// bound, how far the right side moved against the bound's own slack.
	Slack string
}

// EndVerdict is what a statement is at one point of a range's end.
type EndVerdict string

const (
	// EndHolds: the statement holds there and says what it says.
	EndHolds EndVerdict = "holds"
	// EndUndefined: a quantity of the statement is undefined there.
	EndUndefined EndVerdict = "undefined"
	// EndInfinite: a side of the statement is infinite there.
	EndInfinite EndVerdict = "infinite"
	// EndVacuous: the statement is true there but says nothing.
	EndVacuous EndVerdict = "vacuous"
	// EndFalse: the statement is false there.
	EndFalse EndVerdict = "false"
)

// Where an end check stands relative to the printed range.
const (
	AtClosedEnd  = "closed end (in the range)"
	AtOpenEnd    = "open end (outside the range)"
	AtJustInside = "just inside"
	AtOutside    = "just outside"
)

// EndCheck is the statement evaluated at one point of a range's end.
type EndCheck struct {
	At      string     `json:"at"`    // the point, e.g. "δ = 0"
	Where   string     `json:"where"` // AtClosedEnd, AtOpenEnd, AtJustInside or AtOutside
	Value   string     `json:"value"` // the statement's quantity there, e.g. "bound = +Inf"
	Verdict EndVerdict `json:"verdict"`
	// X is the point's coordinates (one for a range of numbers; a vector,
	// a matrix's entries, … for a set): CheckEnds decides by them on which
	// side of the range the point lies.
	X []float64 `json:"x,omitempty"`
	// Judge re-evaluates a false end outside the range from the
	// definitions, by code apart from the end check's: whether the
	// statement holds there, and what was found. A range is Needed on such
	// an end only when its judge agrees (RangeProbe).
	Judge func() (holds bool, detail string) `json:"-"`
}

// inRange reports whether Where places the point in the printed range.
func (e EndCheck) inRange() bool { return e.Where == AtClosedEnd || e.Where == AtJustInside }

// Recorded reports whether the end check is one the issue asks to record:
// a point the printed range includes (a closed end, or just inside) where
// the statement is not what it says.
func (e EndCheck) Recorded() bool {
	return e.inRange() && e.Verdict != EndHolds
}

// Hypothesis is one part of a condition in force for a claim.
type Hypothesis struct {
	Name string // short, e.g. "T invertible"
	Kind HypothesisKind
	Text string // as the paper gives it
	// Line is the line of the paper's LaTeX where the condition is given
	// (0 for the claims of methods outside the paper: EasyLLP, …).
	Line int
	// From says where the condition comes from: FromStatement, or a
	// definition, lemma, proof step or method, named after a colon
	// ("definition: 𝒢₂ (§4.3)", "lemma: multi.rad.lemma").
	From string
	// Of is the printed compound this hypothesis is one independent part of
	// ("T an invertible column-stochastic matrix"); "" when printed alone.
	Of    string
	Range *Range
	// Probe re-runs the claim with this hypothesis violated. Without one, a
	// Range is probed by its end checks outside the printed range
	// (RangeProbe); otherwise Why says why it cannot be probed here.
	Probe func(cfg Config) ProbeResult
	Why   string
	// Expect is the status the probe found when the hypothesis was written
	// down; the tests hold the probe to it, so that a probe which stops
	// finding its counterexample (or starts finding one) is noticed.
	Expect ProbeStatus
}

var hypotheses = map[string][]Hypothesis{}

// RegisterHypotheses records the hypotheses of the claim labelled label. It
// panics on a second registration for one label, a hypothesis without a
// name, text, kind or origin, a range hypothesis without a Range and its
// Ends, or a hypothesis with neither a probe nor a reason why there is none:
// these are programming errors caught by every test run.
func RegisterHypotheses(label string, hs ...Hypothesis) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := hypotheses[label]; dup {
		panic("verify: hypotheses of " + label + " registered twice")
	}
	if len(hs) == 0 {
		panic("verify: no hypotheses for " + label)
	}
	names := map[string]bool{}
	for _, h := range hs {
		switch {
		case h.Name == "" || h.Text == "" || h.Kind == "":
			panic(fmt.Sprintf("verify: hypothesis of %s needs a name, text and kind: %+v", label, h))
		case !knownFrom(h.From):
			panic(fmt.Sprintf("verify: hypothesis %s of %s: From %q, want one of %v (then a colon and what)", h.Name, label, h.From, fromPrefixes))
		case names[h.Name]:
			panic("verify: hypothesis " + h.Name + " of " + label + " named twice")
		case h.Kind == HypRange && (h.Range == nil || (h.Range.Ends == nil && h.Probe == nil)):
			panic("verify: range hypothesis " + h.Name + " of " + label + " without its range, or without ends and probe")
		case h.Probe == nil && h.Range == nil && h.Why == "":
			panic("verify: hypothesis " + h.Name + " of " + label + " has neither a probe, a range nor a reason why not")
		case (h.Probe != nil || h.Range != nil) && h.Why == "" && h.Expect == "":
			panic("verify: hypothesis " + h.Name + " of " + label + " is probed but has no expected status")
		case h.Expect == ProbeInvalid:
			panic("verify: hypothesis " + h.Name + " of " + label + " expects an invalid probe")
		}
		names[h.Name] = true
	}
	hypotheses[label] = hs
}

// knownFrom reports whether from names one of the origins, alone (the
// statement) or followed by a colon and what.
func knownFrom(from string) bool {
	if from == FromStatement {
		return true
	}
	for _, p := range fromPrefixes {
		if rest, ok := strings.CutPrefix(from, p+": "); ok && rest != "" {
			return true
		}
	}
	return false
}

// HypothesesOf returns the hypotheses registered for label.
func HypothesesOf(label string) []Hypothesis {
	mu.Lock()
	defer mu.Unlock()
	return hypotheses[label]
}

// HypothesisLabels lists the labels with registered hypotheses, sorted.
func HypothesisLabels() []string {
	mu.Lock()
	defer mu.Unlock()
	out := make([]string, 0, len(hypotheses))
	for l := range hypotheses {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// RangeResult is a Range in a report, with its end checks.
type RangeResult struct {
	Param   string     `json:"param"`
	Printed string     `json:"printed"`
	Lo      string     `json:"lo"`
	Hi      string     `json:"hi"`
	LoOpen  bool       `json:"lo_open"`
	HiOpen  bool       `json:"hi_open"`
	Holes   []string   `json:"holes,omitempty"`
	Ends    []EndCheck `json:"ends,omitempty"`
}

// HypothesisResult is one hypothesis of a claim in a report.
type HypothesisResult struct {
	Name           string         `json:"name"`
	Kind           HypothesisKind `json:"kind"`
	Text           string         `json:"text"`
	Line           int            `json:"line,omitempty"`
	From           string         `json:"from"`
	Of             string         `json:"part_of,omitempty"`
	Range          *RangeResult   `json:"range,omitempty"`
	Status         ProbeStatus    `json:"status"`
	Expected       ProbeStatus    `json:"expected_status,omitempty"`
	Counterexample string         `json:"counterexample,omitempty"`
	Tried          string         `json:"tried,omitempty"`
	ProbeCases     int            `json:"probe_cases,omitempty"`
	Judged         string         `json:"judged,omitempty"`
	WorstRatio     *float64       `json:"probe_worst_ratio,omitempty"`
	Slack          string         `json:"slack,omitempty"`
}

// CheckHypothesis probes h and evaluates its range's ends under cfg.
func CheckHypothesis(h Hypothesis, cfg Config) HypothesisResult {
	out := HypothesisResult{Name: h.Name, Kind: h.Kind, Text: h.Text, Line: h.Line, From: h.From, Of: h.Of, Expected: h.Expect}
	if h.Range != nil {
		rg := h.Range
		out.Range = &RangeResult{Param: rg.Param, Printed: rg.Printed, Lo: rg.Lo, Hi: rg.Hi, LoOpen: rg.LoOpen, HiOpen: rg.HiOpen, Holes: rg.Holes}
		if rg.Ends != nil {
			out.Range.Ends = rg.Ends(cfg)
			if err := CheckEnds(*rg, out.Range.Ends); err != nil {
				out.Status, out.Tried = ProbeInvalid, err.Error()
				return out
			}
		}
	}
	var p ProbeResult
	switch {
	case h.Probe != nil:
		p = h.Probe(cfg)
	case out.Range != nil && h.Range.Ends != nil && h.Why == "":
		p = RangeProbe(*out.Range)
	default:
		out.Status, out.Tried = NotProbeable, h.Why
		return out
	}
	out.Status, out.Counterexample, out.Tried, out.ProbeCases = p.Status, p.Counterexample, p.Tried, p.Cases
	out.Judged, out.Slack = p.Judged, p.Slack
	if !math.IsNaN(p.WorstRatio) && !math.IsInf(p.WorstRatio, 0) && p.WorstRatio != 0 {
		v := p.WorstRatio
		out.WorstRatio = &v
	}
	if h.Probe != nil && p.Status != NotProbeable && p.Status != ProbeInvalid && p.Judged == "" {
		out.Status = ProbeInvalid
		out.Tried = "the probe's points were not judged (write it with Violate, Undefine or JudgeOutcome): " + p.Tried
	}
	return out
}

// CheckHypotheses checks every hypothesis of the claim labelled label.
func CheckHypotheses(label string, cfg Config) []HypothesisResult {
	var out []HypothesisResult
	for _, h := range HypothesesOf(label) {
		out = append(out, CheckHypothesis(h, cfg))
	}
	return out
}

// RangeProbe is the probe of a range without a probe of its own: the
// statement evaluated outside the printed range (its end checks at an open
// end or just outside, which CheckEnds has held to lie outside). The range
// is Needed when the statement is false at one of them (the counterexample
// names the point), NeededToDefine when it is undefined there, NotNeeded
// when it holds (or is vacuous, or infinite) at all of them: the range could
// be wider there, a candidate finding; NotProbeable when no end check lies
// outside.
func RangeProbe(r RangeResult) ProbeResult {
	var tried []string
	var undefined *EndCheck
	for i, e := range r.Ends {
		if e.inRange() {
			continue
		}
		switch e.Verdict {
		case EndFalse:
			if e.Judge == nil {
				return ProbeResult{Status: ProbeInvalid, Tried: fmt.Sprintf("%s: a false end outside %s without a judge to re-evaluate it", e.At, r.Printed), WorstRatio: math.NaN()}
			}
			if holds, d := e.Judge(); holds {
				return ProbeResult{Status: ProbeInvalid, Tried: fmt.Sprintf("%s: the false end fails its re-evaluation from the definitions: %s", e.At, d), WorstRatio: math.NaN()}
			} else {
				return ProbeResult{Status: Needed, Counterexample: fmt.Sprintf("%s (%s): %s", e.At, e.Where, e.Value),
					Tried: "the statement evaluated outside " + r.Printed, Cases: 1, Judged: "an end check at a point outside " + r.Printed + "; re-evaluated from the definitions: " + d, WorstRatio: math.NaN()}
			}
		case EndUndefined:
			if undefined == nil {
				undefined = &r.Ends[i]
			}
		}
		tried = append(tried, fmt.Sprintf("%s: %s (%s)", e.At, e.Verdict, e.Value))
	}
	if undefined != nil {
		e := *undefined
		return ProbeResult{Status: NeededToDefine, Counterexample: fmt.Sprintf("%s (%s): %s", e.At, e.Where, e.Value),
			Tried: fmt.Sprintf("outside %s the statement is undefined: %s (%s): %s", r.Printed, e.At, e.Where, e.Value), Cases: len(tried),
			Judged: "an end check at a point outside " + r.Printed, WorstRatio: math.NaN()}
	}
	if len(tried) == 0 {
		return ProbeResult{Status: NotProbeable, Tried: "no point outside " + r.Printed + " was evaluated", WorstRatio: math.NaN()}
	}
	return ProbeResult{Status: NotNeeded, Tried: "outside " + r.Printed + ": " + strings.Join(tried, "; "), Cases: len(tried),
		Judged: "end checks at points outside " + r.Printed, WorstRatio: math.NaN()}
}

// ProbeCases is the number of violating inputs a probe tries under cfg: the
// run's cases, at most limit (the expensive claims' probes are capped).
func ProbeCases(cfg Config, limit int) int {
	n := cfg.Cases
	if n < 1 {
		n = DefaultCases
	}
	return min(n, limit)
}

// Probing names a probe: the claim, the hypothesis part it violates, and
// what it tries. Its stream is "probe/" + Label + "/" + Hyp, so that it
// never shifts a claim's inputs.
type Probing struct {
	Label, Hyp, Tried string
}

// Stream is the name of the probe's random stream.
func (p Probing) Stream() string { return "probe/" + p.Label + "/" + p.Hyp }

// Violate runs check on ProbeCases(cfg, limit) inputs drawn from gen, a
// family of inputs that violate the hypothesis part p.Hyp and keep every
// other, each inside every definition's domain. judge holds the family to
// that at every point (judge.Parts) and re-evaluates the first
// counterexample from the definitions (judge.Conclusion). The hypothesis is
// Needed when some case fails and its re-evaluation agrees (the
// counterexample replays from the stream seed it names), NotNeeded when no
// case fails, ProbeInvalid when a point is not what the family says or the
// re-evaluation disagrees.
func Violate[T any](cfg Config, p Probing, limit int, gen func(r *rand.Rand, size int) T, check func(T) Case, judge Judge[T]) ProbeResult {
	j := newJudging(p, judge)
	c := Config{Cases: ProbeCases(cfg, limit), Seed: cfg.Seed}
	o := Property(c, p.Stream(), Bound, gen, func(v T) Case {
		j.point(v, false)
		return check(v)
	})
	return j.result(o)
}

// Undefine runs the probe of a hypothesis part without which the statement
// is undefined: gen draws points that violate p.Hyp, keep every other part,
// and leave the domain of a definition the statement uses (judge.Parts says
// which). It is NeededToDefine when every point does, ProbeInvalid
// otherwise.
func Undefine[T any](cfg Config, p Probing, limit int, gen func(r *rand.Rand, size int) T, describe func(T) string, judge Judge[T]) ProbeResult {
	j := newJudging(p, judge)
	c := Config{Cases: ProbeCases(cfg, limit), Seed: cfg.Seed}
	var firstDetail string
	o := Property(c, p.Stream(), Bound, gen, func(v T) Case {
		j.point(v, true)
		if firstDetail == "" {
			firstDetail = describe(v)
		}
		return Case{OK: true}
	})
	if j.bad != "" {
		return ProbeResult{Status: ProbeInvalid, Tried: p.Tried + ": " + j.bad, Cases: o.Cases, WorstRatio: math.NaN()}
	}
	return ProbeResult{Status: NeededToDefine, Counterexample: fmt.Sprintf("%s (stream seed %d): %s", p.Stream(), StreamSeed(cfg.Seed, p.Stream()), firstDetail),
		Tried: fmt.Sprintf("%s (%d cases): %s", p.Tried, o.Cases, j.outsideSummary()), Cases: o.Cases,
		Judged: j.summary(), WorstRatio: math.NaN()}
}

// JudgeOutcome is the result of a probe run as a claim's own checker on a
// violating family (o): judge holds the first input tried and the
// counterexample, if any, to the family (judge.Parts) and re-evaluates the
// counterexample (judge.Conclusion). T is the checker's input type.
func JudgeOutcome[T any](o Outcome, p Probing, judge Judge[T]) ProbeResult {
	j := newJudging(p, judge)
	for _, v := range []any{o.First, o.Witness} {
		if v == nil {
			continue
		}
		t, ok := v.(T)
		if !ok {
			return ProbeResult{Status: ProbeInvalid, Tried: fmt.Sprintf("%s: the judge takes %T, the checker drew %T", p.Tried, *new(T), v), WorstRatio: math.NaN()}
		}
		j.point(t, false)
	}
	return j.result(o)
}

// FormatValue prints a side of a statement at a range's end: "+Inf",
// "NaN" or the number.
func FormatValue(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return fmt.Sprintf("%.6g", v)
}
