package verify

// Hypotheses (issue 52). A claim is checked inside its assumptions; this file
// lists the assumptions themselves, as the statement gives them, so that
// `llpfc verify` can say of each one whether the result needs it:
//
//   - a Hypothesis is one condition of a statement — a property of the loss,
//     of T, of the grouping, of the function class or its constants, how the
//     data are drawn, or a parameter's stated Range with its ends as printed;
//   - its Probe re-runs the claim with that one hypothesis dropped or
//     violated in a controlled way and reports Needed (with the
//     counterexample, which replays from its stream seed), NotNeeded (with
//     what was tried) or, when there is no probe, NotProbeable (with why);
//   - a Range's Ends evaluate the statement at each end of the range and
//     just inside it, and say where its value there is not what the
//     statement says (undefined, infinite, vacuous, false).
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

// ProbeStatus is what probing a hypothesis found.
type ProbeStatus string

const (
	// Needed: with the hypothesis violated the claim failed; the
	// counterexample replays from its stream seed.
	Needed ProbeStatus = "needed"
	// NotNeeded: the claim held on every violating input tried (Tried says
	// which): a candidate finding about the statement, or about the probe.
	NotNeeded ProbeStatus = "not needed in what was tried"
	// NotProbeable: there is no controlled way to violate it here (Tried
	// says why).
	NotProbeable ProbeStatus = "not probeable here"
)

// ProbeStatuses lists the statuses in the order tables count them.
var ProbeStatuses = []ProbeStatus{Needed, NotNeeded, NotProbeable}

// ProbeResult is the outcome of probing one hypothesis.
type ProbeResult struct {
	Status ProbeStatus
	// Counterexample is, for Needed, the input on which the claim failed
	// and the stream seed that replays it.
	Counterexample string
	// Tried says, for NotNeeded, what was tried; for NotProbeable, why
	// nothing could be; for Needed, the family the counterexample was
	// drawn from.
	Tried string
	// Cases is the number of violating inputs tried.
	Cases int
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
}

// Recorded reports whether the end check is one the issue asks to record:
// a point the printed range includes (a closed end, or just inside) where
// the statement is not what it says.
func (e EndCheck) Recorded() bool {
	return (e.Where == AtClosedEnd || e.Where == AtJustInside) && e.Verdict != EndHolds
}

// Range is a parameter's range as a statement prints it.
type Range struct {
	Param   string // the parameter, e.g. "δ"
	Printed string // the range as printed, e.g. "δ ∈ [0, 1]"
	Lo, Hi  string // the ends as printed: "0", "1", "∞"
	// LoOpen and HiOpen: the end is excluded from the range.
	LoOpen, HiOpen bool
	// Ends evaluates the statement at each end and just inside it.
	Ends func(cfg Config) []EndCheck
}

// Hypothesis is one condition of a claim's statement.
type Hypothesis struct {
	Name string // short, e.g. "T invertible"
	Kind HypothesisKind
	Text string // as the statement gives it
	// Line is the line of the paper's LaTeX where the statement gives it
	// (0 for the claims of methods outside the paper: EasyLLP, …).
	Line  int
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
// name, text or kind, a range hypothesis without a Range and its Ends, or a
// hypothesis with neither a probe nor a reason why there is none: these are
// programming errors caught by every test run.
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
		case names[h.Name]:
			panic("verify: hypothesis " + h.Name + " of " + label + " named twice")
		case h.Kind == HypRange && (h.Range == nil || (h.Range.Ends == nil && h.Probe == nil)):
			panic("verify: range hypothesis " + h.Name + " of " + label + " without its range, or without ends and probe")
		case h.Probe == nil && h.Range == nil && h.Why == "":
			panic("verify: hypothesis " + h.Name + " of " + label + " has neither a probe, a range nor a reason why not")
		case (h.Probe != nil || h.Range != nil) && h.Why == "" && h.Expect == "":
			panic("verify: hypothesis " + h.Name + " of " + label + " is probed but has no expected status")
		}
		names[h.Name] = true
	}
	hypotheses[label] = hs
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
	Ends    []EndCheck `json:"ends,omitempty"`
}

// HypothesisResult is one hypothesis of a claim in a report.
type HypothesisResult struct {
	Name           string         `json:"name"`
	Kind           HypothesisKind `json:"kind"`
	Text           string         `json:"text"`
	Line           int            `json:"line,omitempty"`
	Range          *RangeResult   `json:"range,omitempty"`
	Status         ProbeStatus    `json:"status"`
	Expected       ProbeStatus    `json:"expected_status,omitempty"`
	Counterexample string         `json:"counterexample,omitempty"`
	Tried          string         `json:"tried,omitempty"`
	ProbeCases     int            `json:"probe_cases,omitempty"`
}

// CheckHypothesis probes h and evaluates its range's ends under cfg.
func CheckHypothesis(h Hypothesis, cfg Config) HypothesisResult {
	out := HypothesisResult{Name: h.Name, Kind: h.Kind, Text: h.Text, Line: h.Line, Expected: h.Expect}
	if h.Range != nil {
		rg := h.Range
		out.Range = &RangeResult{Param: rg.Param, Printed: rg.Printed, Lo: rg.Lo, Hi: rg.Hi, LoOpen: rg.LoOpen, HiOpen: rg.HiOpen}
		if rg.Ends != nil {
			out.Range.Ends = rg.Ends(cfg)
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
// end or just outside). The range is Needed when the statement is false or
// undefined at one of them (the counterexample names the point), NotNeeded
// when it holds (or is vacuous, or infinite) at all of them: the range could
// be wider there, a candidate finding; NotProbeable when no end check lies
// outside.
func RangeProbe(r RangeResult) ProbeResult {
	var tried []string
	for _, e := range r.Ends {
		if e.Where != AtOpenEnd && e.Where != AtOutside {
			continue
		}
		if e.Verdict == EndFalse || e.Verdict == EndUndefined {
			return ProbeResult{Status: Needed, Counterexample: fmt.Sprintf("%s (%s): %s", e.At, e.Where, e.Value),
				Tried: "the statement evaluated outside " + r.Printed, Cases: 1}
		}
		tried = append(tried, fmt.Sprintf("%s: %s (%s)", e.At, e.Verdict, e.Value))
	}
	if len(tried) == 0 {
		return ProbeResult{Status: NotProbeable, Tried: "no point outside " + r.Printed + " was evaluated"}
	}
	return ProbeResult{Status: NotNeeded, Tried: "outside " + r.Printed + ": " + strings.Join(tried, "; "), Cases: len(tried)}
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

// Violate runs check on ProbeCases(cfg, limit) inputs drawn from gen, a
// family of inputs that violate one hypothesis and meet the others (tried
// describes the family), on the stream name (a probe's own: "probe/" +
// label + "/" + hypothesis, so that it never shifts a claim's inputs). The
// hypothesis is Needed when some case fails (the counterexample replays
// from the stream seed it names), NotNeeded otherwise.
func Violate[T any](cfg Config, name, tried string, limit int, gen func(r *rand.Rand, size int) T, check func(T) Case) ProbeResult {
	c := Config{Cases: ProbeCases(cfg, limit), Seed: cfg.Seed}
	o := Property(c, name, Bound, gen, check)
	return probeOutcome(o, tried)
}

// probeOutcome turns the outcome of a probe's property into its result.
func probeOutcome(o Outcome, tried string) ProbeResult {
	if o.Failed {
		return ProbeResult{Status: Needed, Counterexample: o.Counterexample, Tried: tried, Cases: o.Cases}
	}
	return ProbeResult{Status: NotNeeded, Tried: fmt.Sprintf("%s (%d cases)", tried, o.Cases), Cases: o.Cases}
}

// ProbeOutcome is probeOutcome for a probe written with ForAll, Merge or a
// claim's own checker: o is the outcome of the claim's property run on
// inputs that violate the hypothesis.
func ProbeOutcome(o Outcome, tried string) ProbeResult { return probeOutcome(o, tried) }

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
