package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/llpfc/llpfc/theory/verify"
)

// hypCellWidth is how much of a counterexample or of what was tried the
// hypotheses table shows (`--json` carries them whole).
const hypCellWidth = 110

// printHypotheses writes, after the claims' table, the table of every
// claim's hypotheses: each as its statement gives it, with the
// LaTeX line, its kind, what probing it found (needed, with the
// counterexample; not needed in what was tried, with what was tried; not
// probeable here, with why) and, for a range, its printed form; then the
// range ends where the statement is not what it says, and a count per
// status.
func printHypotheses(w io.Writer, results []verify.Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nCLAIM\tHYPOTHESIS\tKIND\tLINE\tSTATUS\tCOUNTEREXAMPLE / WHAT WAS TRIED / WHY NOT")
	counts := map[verify.ProbeStatus]int{}
	n := 0
	for _, r := range results {
		for _, h := range r.Hypotheses {
			counts[h.Status]++
			n++
			what := h.Tried
			if h.Status == verify.Needed {
				what = h.Counterexample
			}
			line := "–"
			if h.Line > 0 {
				line = fmt.Sprint(h.Line)
			}
			name := h.Name
			if h.Range != nil && h.Range.Printed != h.Name {
				name += " [" + h.Range.Printed + "]"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Label, name, h.Kind, line, h.Status, clip(what, hypCellWidth))
		}
	}
	tw.Flush()
	ends := printRecordedEnds(w, results)
	var parts []string
	for _, s := range verify.ProbeStatuses {
		parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
	}
	fmt.Fprintf(w, "\n%d hypotheses of %d claims: %s; %d range ends where the statement is not what it says\n", n, len(results), strings.Join(parts, ", "), ends)
}

// printRecordedEnds lists the ends of printed ranges (closed ends, points
// just inside) where the statement is undefined, infinite, vacuous or
// false, and returns how many.
func printRecordedEnds(w io.Writer, results []verify.Result) int {
	k := 0
	for _, r := range results {
		for _, h := range r.Hypotheses {
			if h.Range == nil {
				continue
			}
			for _, e := range h.Range.Ends {
				if !e.Recorded() {
					continue
				}
				if k == 0 {
					fmt.Fprintln(w, "\nRange ends where the statement is not what it says:")
				}
				k++
				fmt.Fprintf(w, "  %s, %s [%s] at %s (%s): %s — %s\n", r.Label, h.Name, h.Range.Printed, e.At, e.Where, e.Verdict, clip(e.Value, 2*hypCellWidth))
			}
		}
	}
	return k
}

// clip shortens s to n runes, newlines flattened, with "…" when cut.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
