package verify

// Judges. A probe's own check says whether the claim held at a point; a
// judge, written apart from it and from the definitions, says what the
// point is: which hypothesis parts hold there, whether it lies inside the
// domain of every definition the statement uses, and — at a counterexample
// — whether the conclusion really fails there (an infimum computed as an
// infimum, a risk from its definition). Violate, Undefine and JudgeOutcome
// hold every probe to its judge, so that a probe which drops two parts at
// once, keeps the part it says it drops, reports a value its conclusion's
// own definition makes impossible, or finds its "counterexample" outside a
// loss's domain, ends ProbeInvalid instead of Needed or NotNeeded.

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Judge re-evaluates the points of a probe over inputs of type T.
type Judge[T any] struct {
	// Parts judges one point: every hypothesis part of the claim, by name,
	// true where it holds there, and the definition whose domain the point
	// leaves ("" when it leaves none).
	Parts func(T) (parts map[string]bool, outside string)
	// Conclusion re-evaluates the claim's conclusion at a counterexample
	// from the definitions: whether it holds there, and what was found.
	Conclusion func(T) (holds bool, detail string)
}

// judging accumulates a judge's verdicts over a probe's points.
type judging[T any] struct {
	p       Probing
	judge   Judge[T]
	names   []string // the claim's hypothesis parts
	points  int
	bad     string // the first point that is not what the family says
	outside map[string]int
}

func newJudging[T any](p Probing, judge Judge[T]) *judging[T] {
	j := &judging[T]{p: p, judge: judge, outside: map[string]int{}}
	for _, h := range HypothesesOf(p.Label) {
		j.names = append(j.names, h.Name)
	}
	return j
}

// point judges one point of the family: it must violate p.Hyp, keep every
// other part the claim registers, and lie outside a definition's domain
// exactly when wantOutside.
func (j *judging[T]) point(v T, wantOutside bool) {
	j.points++
	if j.bad != "" {
		return
	}
	if j.judge.Parts == nil {
		j.bad = "no judge of the points"
		return
	}
	parts, outside := j.judge.Parts(v)
	j.bad = PartsVerdict(j.p.Hyp, j.names, parts, outside, wantOutside)
	if j.bad != "" {
		j.bad = fmt.Sprintf("point %d: %s", j.points, j.bad)
	}
	if outside != "" {
		j.outside[outside]++
	}
}

// PartsVerdict says what is wrong with a point of a probe of the part hyp,
// "" when nothing is: the judge must decide hyp and every name of the claim
// (names; none when the claim registers no hypotheses), hyp must fail and
// every other part of the claim hold (what the judge says of names the
// claim does not register is not read), and the point must lie outside a
// definition's domain (outside ≠ "") exactly when wantOutside.
func PartsVerdict(hyp string, names []string, parts map[string]bool, outside string, wantOutside bool) string {
	held, ok := parts[hyp]
	switch {
	case !ok:
		return fmt.Sprintf("the judge does not decide the probed part %q", hyp)
	case held:
		return fmt.Sprintf("the point keeps the probed part %q", hyp)
	}
	var missing, broken []string
	for _, n := range names {
		v, ok := parts[n]
		switch {
		case !ok:
			missing = append(missing, n)
		case n != hyp && !v:
			broken = append(broken, n)
		}
	}
	sort.Strings(broken)
	switch {
	case len(missing) > 0:
		return "the judge does not decide " + strings.Join(missing, ", ")
	case len(broken) > 0:
		return fmt.Sprintf("the point violates %s besides %q", strings.Join(broken, ", "), hyp)
	case wantOutside && outside == "":
		return "the point lies inside every definition's domain: the statement is defined there"
	case !wantOutside && outside != "":
		return "the point lies outside the domain of " + outside + ": it is no counterexample, and says nothing about the statement"
	}
	return ""
}

// summary says what the judge found of the points.
func (j *judging[T]) summary() string {
	others := len(j.names) - 1
	if others < 0 {
		others = 0
	}
	if j.points == 1 {
		return fmt.Sprintf("the one point judged violates %q and keeps the other %d parts", j.p.Hyp, others)
	}
	return fmt.Sprintf("each of the %d points judged violates %q and keeps the other %d parts", j.points, j.p.Hyp, others)
}

// outsideSummary names the domains the points left, with their counts.
func (j *judging[T]) outsideSummary() string {
	var ks []string
	for k := range j.outside {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var b []string
	for _, k := range ks {
		b = append(b, fmt.Sprintf("outside the domain of %s (%d)", k, j.outside[k]))
	}
	return strings.Join(b, "; ")
}

// result turns the outcome of the probe's property into its result.
func (j *judging[T]) result(o Outcome) ProbeResult {
	tried := fmt.Sprintf("%s (%d cases)", j.p.Tried, o.Cases)
	if j.bad != "" {
		return ProbeResult{Status: ProbeInvalid, Tried: tried + ": " + j.bad, Cases: o.Cases, WorstRatio: math.NaN()}
	}
	if !o.Failed {
		return ProbeResult{Status: NotNeeded, Tried: tried, Cases: o.Cases, Judged: j.summary(), WorstRatio: o.WorstRatio}
	}
	w, ok := o.Witness.(T)
	if !ok || j.judge.Conclusion == nil {
		return ProbeResult{Status: ProbeInvalid, Tried: tried + ": the counterexample could not be re-evaluated (" + o.Counterexample + ")", Cases: o.Cases, WorstRatio: math.NaN()}
	}
	holds, detail := j.judge.Conclusion(w)
	if holds {
		return ProbeResult{Status: ProbeInvalid, Tried: tried + ": the counterexample fails its re-evaluation from the definitions: " + detail + " (" + o.Counterexample + ")",
			Cases: o.Cases, WorstRatio: math.NaN()}
	}
	return ProbeResult{Status: Needed, Counterexample: o.Counterexample, Tried: j.p.Tried, Cases: o.Cases,
		Judged: j.summary() + "; the counterexample re-evaluated from the definitions: " + detail, WorstRatio: o.WorstRatio}
}
