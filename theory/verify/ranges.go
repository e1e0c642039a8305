package verify

// Ranges as printed. A Range records a parameter's range as the paper
// prints it — its ends, which of them are open, the points a printed set
// leaves out (m ∈ {1} ∪ {3, 4, …} leaves out 2) — and decides on which side
// of it a point lies (Contains), so that an end check said to lie outside
// the range is held to lie outside (CheckEnds), and the flags are held to
// the printed text (ParsePrinted; TestRangesAgreeWithTheirPrintedForm).

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Range is a parameter's range as a statement prints it.
type Range struct {
	Param   string // the parameter, e.g. "δ"
	Printed string // the range as printed, e.g. "δ ∈ [0, 1]"
	Lo, Hi  string // the ends as printed: "0", "1", "∞"
	// LoOpen and HiOpen: the end is excluded from the range.
	LoOpen, HiOpen bool
	// Holes are the points between Lo and Hi that the printed set leaves
	// out, as printed ("2").
	Holes []string
	// Integer: the range is a set of integers (ℕ, {0, …, s}).
	Integer bool
	// Member decides whether a point (EndCheck.X) lies in a range that is
	// not a set of numbers (Δ^C, a class of matrices); nil for a range of
	// numbers, which Lo, Hi, the flags, Holes and Integer decide.
	Member func(x []float64) bool
	// Ends evaluates the statement at each end, just inside and just
	// outside it.
	Ends func(cfg Config) []EndCheck
}

// ParseEnd reads an end as printed: a number, "½", "∞" or "−∞".
func ParseEnd(s string) (float64, bool) {
	switch strings.TrimSpace(s) {
	case "∞", "+∞":
		return math.Inf(1), true
	case "−∞", "-∞":
		return math.Inf(-1), true
	case "½":
		return 0.5, true
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return v, err == nil
}

// numeric returns the range's ends as numbers, false when it is not a
// range of numbers.
func (r Range) numeric() (lo, hi float64, ok bool) {
	lo, ok1 := ParseEnd(r.Lo)
	hi, ok2 := ParseEnd(r.Hi)
	return lo, hi, ok1 && ok2
}

// Contains reports whether the point x lies in the range; decided is false
// when the range can decide no point (neither numbers nor a Member).
func (r Range) Contains(x []float64) (in, decided bool) {
	if r.Member != nil {
		return r.Member(x), true
	}
	lo, hi, ok := r.numeric()
	if !ok || len(x) != 1 {
		return false, false
	}
	v := x[0]
	switch {
	case math.IsNaN(v), v < lo, v > hi, v == lo && r.LoOpen, v == hi && r.HiOpen:
		return false, true
	case r.Integer && v != math.Trunc(v):
		return false, true
	}
	for _, h := range r.Holes {
		if hv, ok := ParseEnd(h); ok && hv == v {
			return false, true
		}
	}
	return true, true
}

// CheckEnds holds each end check of r to the side of the range it says it
// stands on: a closed end or a point just inside must lie in the range, an
// open end or a point just outside must not. Every end check of a range
// that decides its points must carry its point.
func CheckEnds(r Range, ends []EndCheck) error {
	for _, e := range ends {
		switch e.Where {
		case AtClosedEnd, AtJustInside, AtOpenEnd, AtOutside:
		default:
			return fmt.Errorf("%s: end check %q stands %q, not one of the four places", r.Printed, e.At, e.Where)
		}
		if len(e.X) == 0 {
			return fmt.Errorf("%s: end check %q carries no point", r.Printed, e.At)
		}
		in, decided := r.Contains(e.X)
		switch {
		case !decided:
			return fmt.Errorf("%s: the range decides no point (no numeric ends, no Member): end check %q", r.Printed, e.At)
		case in && !e.inRange():
			return fmt.Errorf("%s: end check %q (%s) lies inside the range it says it leaves (x = %v)", r.Printed, e.At, e.Where, e.X)
		case !in && e.inRange():
			return fmt.Errorf("%s: end check %q (%s) lies outside the range it says it is in (x = %v)", r.Printed, e.At, e.Where, e.X)
		}
	}
	return nil
}

// Printed is a range of numbers as the text prints it: its ends, which are
// open, and the points it leaves out.
type Printed struct {
	Lo, Hi         string
	LoOpen, HiOpen bool
	Holes          []string
}

var (
	// An interval: "[0, 1]", "(0, ∞)", "(0, 1]", "[0, ∞)".
	printedInterval = regexp.MustCompile(`([\[(])\s*([^,\[\]()]+?)\s*,\s*([^,\[\]()]+?)\s*([\])])`)
	// A run of integers: "{1, 2, …}", "{0, …, s}", "{3, 4, …}".
	printedRun = regexp.MustCompile(`\{\s*([^{}]*?)\s*\}`)
)

// ParsePrinted reads a printed range of numbers: the first interval
// "[a, b]" (brackets and parentheses as printed), or a union of sets of
// integers "{1} ∪ {3, 4, …}" (the integers between the smallest and the
// largest that no set lists or runs over are holes), or "ℕ" (= {1, 2, …}),
// "ℝ" or "ℝ₊" (the positive reals, line 133). ok is false when printed
// names no range of numbers (Δ^C, a class of matrices).
func ParsePrinted(printed string) (p Printed, integer, ok bool) {
	if _, after, found := strings.Cut(printed, "∈"); found {
		printed = after // the range, not its parameter's subscripts
	}
	if m := printedInterval.FindStringSubmatch(printed); m != nil {
		return Printed{Lo: m[2], Hi: m[3], LoOpen: m[1] == "(", HiOpen: m[4] == ")"}, false, true
	}
	if runs := printedRun.FindAllStringSubmatch(printed, -1); runs != nil {
		return parseIntegerSets(runs)
	}
	switch {
	case strings.Contains(printed, "ℝ₊"):
		return Printed{Lo: "0", Hi: "∞", LoOpen: true, HiOpen: true}, false, true
	case strings.Contains(printed, "ℕ"):
		return Printed{Lo: "1", Hi: "∞", HiOpen: true}, true, true
	case strings.Contains(printed, "ℝ"):
		return Printed{Lo: "−∞", Hi: "∞", LoOpen: true, HiOpen: true}, false, true
	}
	return Printed{}, false, false
}

// parseIntegerSets reads a union of printed sets of integers: each set
// lists integers and may run on ("…") to its last entry, or to ∞ when "…"
// ends it.
func parseIntegerSets(runs [][]string) (Printed, bool, bool) {
	type span struct {
		lo, hi  float64
		hiLabel string
	}
	var spans []span
	for _, m := range runs {
		items := strings.Split(m[1], ",")
		var nums []float64
		var labels []string
		open := false
		for k, it := range items {
			it = strings.TrimSpace(it)
			if it == "…" || it == "..." {
				if k == len(items)-1 {
					open = true
				}
				continue
			}
			v, ok := ParseEnd(it)
			if !ok {
				if k == len(items)-1 { // a symbolic last entry: "{0, …, s}"
					labels = append(labels, it)
					continue
				}
				return Printed{}, false, false
			}
			nums = append(nums, v)
			labels = append(labels, it)
		}
		if len(nums) == 0 {
			return Printed{}, false, false
		}
		sp := span{lo: nums[0], hi: nums[len(nums)-1], hiLabel: labels[len(labels)-1]}
		if open {
			sp.hi, sp.hiLabel = math.Inf(1), "∞"
		}
		if len(labels) > len(nums) { // symbolic end
			sp.hi = math.Inf(1)
		}
		spans = append(spans, sp)
	}
	p := Printed{Lo: fmt.Sprint(spans[0].lo), Hi: spans[len(spans)-1].hiLabel}
	p.HiOpen = math.IsInf(spans[len(spans)-1].hi, 1) && p.Hi == "∞"
	for k := 1; k < len(spans); k++ {
		for v := spans[k-1].hi + 1; v < spans[k].lo; v++ {
			p.Holes = append(p.Holes, fmt.Sprint(v))
		}
	}
	return p, true, true
}
