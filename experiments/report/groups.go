package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/llpfc/llpfc/experiments"
)

// Group is one bag size's result as a ranking may state it: the best
// method and the methods its paired intervals cannot tell from it (Tied),
// in the order of their means, and the ranked methods behind it. It holds
// the truly best method with probability at least 1 − Alpha
// (pairedBagSize).
type Group struct {
	BagSize  int
	Best     string
	BestMean float64
	Tied     []string
	Behind   int
}

// Groups returns t's groups, one per bag size with a paired comparison
// of at least two seeds, in bag-size order.
func (t *Table) Groups() []Group {
	var out []Group
	for _, b := range t.BagSizes {
		g := Group{BagSize: b}
		paired := false
		type tie struct {
			m    string
			mean float64
		}
		var ties []tie
		for _, r := range t.Paired {
			if r.BagSize != b || experiments.UsesLabels(r.Method) {
				continue
			}
			switch {
			case r.Best:
				g.Best, g.BestMean = r.Method, t.Ours[Slot{r.Method, b}].Mean
			case r.Tied:
				ties = append(ties, tie{r.Method, t.Ours[Slot{r.Method, b}].Mean})
			default:
				g.Behind++
			}
			paired = paired || r.VsBest.N >= 2
		}
		if g.Best == "" || !paired {
			continue
		}
		sign := 1.0
		if lowerIsBetter(t.Metric) {
			sign = -1
		}
		slices.SortStableFunc(ties, func(a, b tie) int {
			switch {
			case sign*a.mean > sign*b.mean:
				return -1
			case sign*a.mean < sign*b.mean:
				return 1
			}
			return 0
		})
		for _, x := range ties {
			g.Tied = append(g.Tied, x.m)
		}
		out = append(out, g)
	}
	return out
}

// Sentence states g as a ranking: "Bag size 512: LLPFC-uniform is the
// best (0.8458); LLPFC-approx cannot be told from it; the remaining 6
// are behind it." It is the only form in which the documentation ranks
// methods (docs/comparison.md, TestReadmeRankingsAreTheReports).
func (g Group) Sentence() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Bag size %s: %s is the best (%.4f)", bagSizeText(g.BagSize), experiments.MethodLabel(g.Best), g.BestMean)
	labels := make([]string, len(g.Tied))
	for i, m := range g.Tied {
		labels[i] = experiments.MethodLabel(m)
	}
	switch len(labels) {
	case 0:
	case 1:
		fmt.Fprintf(&b, "; %s cannot be told from it", labels[0])
	default:
		fmt.Fprintf(&b, "; %s and %s cannot be told from it", strings.Join(labels[:len(labels)-1], ", "), labels[len(labels)-1])
	}
	switch {
	case g.Behind == 0 && len(labels) == 0:
		b.WriteString("; it is the only method ranked")
	case g.Behind == 0:
		b.WriteString("; no method is behind it")
	case g.Behind == 1:
		b.WriteString("; the remaining one is behind it")
	default:
		fmt.Fprintf(&b, "; the remaining %d are behind it", g.Behind)
	}
	b.WriteString(".")
	return b.String()
}

// writeGroups writes t's groups as sentences, one bullet a bag size.
func writeGroups(w io.Writer, t *Table) {
	gs := t.Groups()
	if len(gs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nGroups: at each bag size, the best method and those whose interval against it holds 0; a group holds the truly best method with probability at least %g%% (for normal differences):\n\n", 100*(1-Alpha))
	for _, g := range gs {
		fmt.Fprintf(w, "- %s\n", g.Sentence())
	}
}
