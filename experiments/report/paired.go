package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training"
	"gonum.org/v1/gonum/stat"
)

// Paired comparisons (issue 50): a ranking is stated only with paired
// intervals. Within a seed every method of a table trains on the same bags
// (Metrics.BagsDigest says so), so method A's and method B's accuracies of a
// seed are a pair; their mean difference over the seeds and a bootstrap
// interval over seeds tell a difference from noise.

// BootstrapResamples is the number of resamples of a bootstrap interval.
const BootstrapResamples = 10000

// Diff is a mean paired difference (method − other, over the seeds both
// ran) with its bootstrap 95% percentile interval; N is the pairs. With
// fewer than two pairs the interval is the mean itself.
type Diff struct {
	Mean, Lo, Hi float64
	N            int
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
// supervised ceiling is shown, never ranked.
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
	var out []PairedRow
	for _, m := range t.Methods {
		if vals[m] == nil {
			continue
		}
		row := PairedRow{Method: m, BagSize: b, Best: m == best,
			VsBest: pairedDiff(vals[m], vals[best], pairName(t, b, m, best))}
		row.Tied = !row.Best && !experiments.UsesLabels(m) && row.VsBest.N >= 2 && !row.VsBest.Excludes0()
		if ref := vals[PairedReference]; ref != nil && m != PairedReference {
			d := pairedDiff(vals[m], ref, pairName(t, b, m, PairedReference))
			row.VsRef = &d
		}
		out = append(out, row)
	}
	return out
}

// pairName names the bootstrap stream of method m against other at bag
// size b by the pair alone, so that one comparison printed twice (against
// the best and against LLPFC-uniform when LLPFC-uniform is the best) has
// one interval (TestOnePairOneInterval).
func pairName(t *Table, b int, m, other string) string {
	return fmt.Sprintf("%s/%d/%s-%s", t.Title(), b, m, other)
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

// pairedDiff is the mean of a[s] − b[s] over the seeds s both hold, with a
// percentile bootstrap interval: BootstrapResamples resamples of the pairs
// with replacement, drawn from a stream named after what (so a report is the
// same every time).
func pairedDiff(a, b map[int64]float64, what string) Diff {
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
	out := Diff{N: len(d)}
	if len(d) == 0 {
		return out
	}
	out.Mean, out.Lo, out.Hi = bootstrapMean(d, what)
	return out
}

// bootstrapMean is the mean of xs and its percentile bootstrap 95%
// interval: BootstrapResamples resamples with replacement, drawn from a
// stream named after what (a report is the same every time); with fewer
// than two values the interval is the mean.
func bootstrapMean(xs []float64, what string) (mean, lo, hi float64) {
	mean = stat.Mean(xs, nil)
	if len(xs) < 2 {
		return mean, mean, mean
	}
	r := rng.New(1, "bootstrap/"+what)
	means := make([]float64, BootstrapResamples)
	for k := range means {
		var sum float64
		for range xs {
			sum += xs[r.IntN(len(xs))]
		}
		means[k] = sum / float64(len(xs))
	}
	sort.Float64s(means)
	return mean, stat.Quantile(0.025, stat.Empirical, means, nil), stat.Quantile(0.975, stat.Empirical, means, nil)
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
	fmt.Fprintf(w, "\nPaired differences in %s over the seeds (each seed's methods trained on the same bags), mean and bootstrap 95%% interval (%d resamples of the seeds): against the best method of the bag size (**best**; = tied with it: the interval holds 0) and against %s.\n\n",
		unit, BootstrapResamples, experiments.MethodLabel(PairedReference))
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

// diffText is d as "+0.0123 [+0.0040, +0.0201]".
func diffText(d Diff) string {
	if d.N < 2 {
		return fmt.Sprintf("%+.4f (n=%d)", d.Mean, d.N)
	}
	return fmt.Sprintf("%+.4f [%+.4f, %+.4f]", d.Mean, d.Lo, d.Hi)
}
