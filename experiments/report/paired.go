package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/training"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Paired comparisons: a ranking is stated only with paired intervals.
// Within a seed every method of a table trains on the same bags
// (Metrics.BagsDigest says so), so method A's and method B's accuracies of
// a seed are a pair; a paired t interval over the seeds' differences, at a
// level corrected for the comparisons its column makes, tells a difference
// from noise. A percentile bootstrap of 5 pairs covers about 84% where it
// claims 95% (TestIntervalsCover): it is not used.

// Alpha is the family-wise error rate of a column's comparisons: each
// bag size's intervals hold together with probability at least 1 − Alpha
// (for normal differences), and its group holds the best method with
// probability at least 1 − Alpha.
const Alpha = 0.05

// Diff is a mean paired difference (method − other, over the seeds both
// ran) with its paired t interval at the two-sided level 1 − Alpha/Family
// (Bonferroni over the Family comparisons of its column); N is the pairs.
// With fewer than two pairs the interval is the mean itself.
type Diff struct {
	Mean, Lo, Hi float64
	N            int
	Family       int
}

// Excludes0 reports whether the interval lies wholly on one side of 0.
func (d Diff) Excludes0() bool { return d.N >= 2 && (d.Lo > 0 || d.Hi < 0) }

// PairedRow is one method at one bag size of a table's paired comparison:
// its difference against the best method of that bag size (the highest mean
// among the methods trained without instance labels) and against the
// reference (LLPFC-uniform), and whether it is statistically tied with the
// best (the interval of its difference holds 0).
type PairedRow struct {
	Method  string
	BagSize int
	Best    bool
	Tied    bool
	VsBest  Diff
	VsRef   *Diff // nil when the table has no reference method
}

// PairedReference is the method every other is set against besides the
// best: LLPFC-uniform, the paper's Algorithm 2.
const PairedReference = training.MethodLLPFCUniform

// pairedTable is t's paired comparison from the results of its cells
// (byKey), every bag size in turn: an error names a seed whose methods
// trained on different bags (their BagsDigest differs), which no pair may
// span.
func pairedTable(t *Table, byKey map[string]*grid.Result) ([]PairedRow, error) {
	var out []PairedRow
	for _, b := range t.BagSizes {
		vals := map[string]map[int64]float64{} // method → seed → accuracy
		digest := map[int64]string{}
		for _, m := range t.Methods {
			st, ok := t.Ours[Slot{m, b}]
			if !ok {
				continue
			}
			vals[m] = map[int64]float64{}
			for i, k := range st.Keys {
				r := byKey[k]
				v, _ := metricValue(r.Metrics, t.Metric)
				vals[m][st.Seeds[i]] = v
				d := r.Metrics.BagsDigest
				if d == "" {
					continue // written before the digest: not checked
				}
				if was, seen := digest[st.Seeds[i]]; seen && was != d {
					return nil, fmt.Errorf("bag size %d, seed %d: %s trained on other bags than another method of the seed (bags digest %.12s… against %.12s…): its cells cannot be paired", b, st.Seeds[i], experiments.MethodLabel(m), d, was)
				}
				digest[st.Seeds[i]] = d
			}
		}
		out = append(out, pairedBagSize(t, b, vals)...)
	}
	return out, nil
}

// pairedBagSize is the paired comparison of one bag size's methods.
// The best is the highest mean (the lowest, for a metric where lower is
// better) among the methods trained without instance labels: the
// supervised ceiling is shown, never ranked. The column's family is its
// ranked methods less one: each is compared with the best and with
// LLPFC-uniform at the level 1 − Alpha/family. A method whose interval
// against the best holds 0 is tied with it: the best and those tied with
// it are the column's group, which holds the truly best method with
// probability at least 1 − Alpha (it leaves that method out only if its
// comparison with the best shown errs, and each of its family-many
// comparisons errs with probability at most Alpha/family; Gupta's subset
// selection, made with Bonferroni's bound: TestGroupHoldsTheBest).
func pairedBagSize(t *Table, b int, vals map[string]map[int64]float64) []PairedRow {
	sign := 1.0
	if lowerIsBetter(t.Metric) {
		sign = -1
	}
	best, bestMean := "", math.Inf(-1)
	for _, m := range t.Methods {
		if vals[m] == nil || experiments.UsesLabels(m) {
			continue
		}
		if mean := sign * meanOf(vals[m]); mean > bestMean {
			best, bestMean = m, mean
		}
	}
	if best == "" {
		return nil
	}
	family := 0
	for _, m := range t.Methods {
		if vals[m] != nil && !experiments.UsesLabels(m) && m != best {
			family++
		}
	}
	family = max(family, 1)
	var out []PairedRow
	for _, m := range t.Methods {
		if vals[m] == nil {
			continue
		}
		row := PairedRow{Method: m, BagSize: b, Best: m == best, VsBest: pairedDiff(vals[m], vals[best], family)}
		row.Tied = !row.Best && !experiments.UsesLabels(m) && row.VsBest.N >= 2 && !row.VsBest.Excludes0()
		if ref := vals[PairedReference]; ref != nil && m != PairedReference {
			d := pairedDiff(vals[m], ref, family)
			row.VsRef = &d
		}
		out = append(out, row)
	}
	return out
}

// lowerIsBetter reports whether a smaller value of metric is the better
// one (the bag-level errors and losses).
func lowerIsBetter(metric string) bool {
	return metric == MetricBagProportionError || metric == MetricValKL
}

func meanOf(v map[int64]float64) float64 {
	var xs []float64
	for _, x := range v {
		xs = append(xs, x)
	}
	return stat.Mean(xs, nil)
}

// pairedDiff is the mean of a[s] − b[s] over the seeds s both hold, with
// its paired t interval at the two-sided level 1 − Alpha/family.
func pairedDiff(a, b map[int64]float64, family int) Diff {
	var seeds []int64
	for s := range a {
		if _, ok := b[s]; ok {
			seeds = append(seeds, s)
		}
	}
	slices.Sort(seeds)
	d := make([]float64, len(seeds))
	for i, s := range seeds {
		d[i] = a[s] - b[s]
	}
	out := Diff{N: len(d), Family: family}
	if len(d) == 0 {
		return out
	}
	out.Mean, out.Lo, out.Hi = tInterval(d, Alpha/float64(family))
	return out
}

// tInterval is the mean of xs and its Student t interval at the two-sided
// level 1 − alpha: mean ± t_{n−1}(1 − alpha/2)·s/√n, s the sample standard
// deviation; exact for normal values, the interval of paired differences
// over a handful of seeds. With fewer than two values the interval is the
// mean.
func tInterval(xs []float64, alpha float64) (mean, lo, hi float64) {
	mean = stat.Mean(xs, nil)
	n := len(xs)
	if n < 2 {
		return mean, mean, mean
	}
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(1 - alpha/2)
	half := q * stat.StdDev(xs, nil) / math.Sqrt(float64(n))
	return mean, mean - half, mean + half
}

// writePaired writes t's paired comparison: per bag size, each method's
// difference against the best and against LLPFC-uniform, the best in bold
// and the methods tied with it marked.
func writePaired(w io.Writer, t *Table) {
	if len(t.Paired) == 0 {
		if t.PairedErr != "" {
			fmt.Fprintf(w, "\nNo paired comparison: %s.\n", t.PairedErr)
		}
		return
	}
	unit := "accuracy"
	if t.Metric != "" && t.Metric != MetricTestAccuracy {
		unit = metricName(t.Metric)
	}
	n := 0 // the most seeds a slot pairs: slots of one seed beside slots of more still make a table
	for _, r := range t.Paired {
		n = max(n, r.VsBest.N)
	}
	if n < 2 {
		fmt.Fprintf(w, "\nNo paired comparison: one seed a slot, and an interval needs two.\n")
		return
	}
	fmt.Fprintf(w, "\nPaired differences in %s over the seeds (each seed's methods trained on the same bags), mean and paired t interval, Bonferroni-corrected over the comparisons of each bag size (%s: each interval at 1 − %g/m, so that a column's intervals hold together at %g%%): against the best method of the bag size (**best**; = tied with it: the interval holds 0) and against %s.\n\n",
		unit, familyText(t), Alpha, 100*(1-Alpha), experiments.MethodLabel(PairedReference))
	fmt.Fprint(w, "| Method |")
	for _, b := range t.BagSizes {
		fmt.Fprintf(w, " %d: vs best | %d: vs %s |", b, b, experiments.MethodLabel(PairedReference))
	}
	fmt.Fprint(w, "\n|---|")
	fmt.Fprint(w, strings.Repeat("---|---|", len(t.BagSizes)), "\n")
	rows := map[Slot]PairedRow{}
	for _, r := range t.Paired {
		rows[Slot{r.Method, r.BagSize}] = r
	}
	for _, m := range t.Methods {
		fmt.Fprintf(w, "| %s |", experiments.MethodLabel(m))
		for _, b := range t.BagSizes {
			r, ok := rows[Slot{m, b}]
			switch {
			case !ok:
				fmt.Fprint(w, " | |")
				continue
			case r.Best:
				fmt.Fprint(w, " **best** |")
			case r.Tied:
				fmt.Fprintf(w, " = %s |", diffText(r.VsBest))
			default:
				fmt.Fprintf(w, " %s |", diffText(r.VsBest))
			}
			if r.VsRef == nil {
				fmt.Fprint(w, " — |")
			} else {
				fmt.Fprintf(w, " %s |", diffText(*r.VsRef))
			}
		}
		fmt.Fprintln(w)
	}
	if n < 5 {
		fmt.Fprintf(w, "\nWith %d seeds the intervals are wide: read a tie as \"not told apart\", not as \"equal\".\n", n)
	}
}

// familyText lists the columns' families: "m = 7" when every bag size
// compares as many methods, else each bag size's m.
func familyText(t *Table) string {
	fam := map[int]int{}
	var ms []int
	for _, r := range t.Paired {
		if _, ok := fam[r.BagSize]; !ok {
			fam[r.BagSize] = r.VsBest.Family
			if !slices.Contains(ms, r.VsBest.Family) {
				ms = append(ms, r.VsBest.Family)
			}
		}
	}
	if len(ms) == 1 {
		return fmt.Sprintf("m = %d", ms[0])
	}
	var parts []string
	for _, b := range t.BagSizes {
		if m, ok := fam[b]; ok {
			parts = append(parts, fmt.Sprintf("m = %d at %s", m, bagSizeText(b)))
		}
	}
	return strings.Join(parts, ", ")
}

// diffText is d as "+0.0123 [+0.0040, +0.0201]".
func diffText(d Diff) string {
	if d.N < 2 {
		return fmt.Sprintf("%+.4f (n=%d)", d.Mean, d.N)
	}
	return fmt.Sprintf("%+.4f [%+.4f, %+.4f]", d.Mean, d.Lo, d.Hi)
}
