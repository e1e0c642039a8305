package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
)

// AssumptionsMarkdown writes the trouble section on the methods' hypotheses: for every
// (method, protocol, bag size, assumption) of the cells that carry
// assumption diagnostics (experiments.Metrics.Assumptions, computed from
// their bags by learn.CellAssumptions), in how many cells it holds, the mean
// value and threshold, and the cells where it fails, by key and seed. It
// writes nothing when no cell carries diagnostics.
func AssumptionsMarkdown(w io.Writer, results []*grid.Result) {
	type rowKey struct {
		method, protocol string
		bag              int
		name             string
	}
	type row struct {
		n, holds  int
		value, th float64
		failing   []string
		statistic string
		atLeast   bool
	}
	rows := map[rowKey]*row{}
	var keys []rowKey
	with, without, failingCells := 0, 0, 0
	for _, r := range results {
		a := r.Metrics.Assumptions
		if a == nil {
			if experiments.MeasuresAssumptions(r.Config.Method) {
				without++
			}
			continue
		}
		with++
		if len(a.Failing()) > 0 {
			failingCells++
		}
		for _, c := range a.Checks {
			k := rowKey{r.Config.Method, r.Config.Protocol, r.Config.BagSize, c.Name}
			rw, ok := rows[k]
			if !ok {
				rw = &row{statistic: c.Statistic, atLeast: c.AtLeast}
				rows[k] = rw
				keys = append(keys, k)
			}
			rw.n++
			rw.value += c.Value
			rw.th += c.Threshold
			if c.Holds {
				rw.holds++
			} else {
				rw.failing = append(rw.failing, fmt.Sprintf("`%s` (seed %d)", shortKey(r.Key), r.Seed))
			}
		}
	}
	if with == 0 {
		return
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.protocol != b.protocol {
			return a.protocol < b.protocol
		}
		if a.method != b.method {
			return experiments.MethodRank(a.method) < experiments.MethodRank(b.method)
		}
		if a.bag != b.bag {
			return a.bag < b.bag
		}
		return a.name < b.name
	})
	fmt.Fprintf(w, "## Do the experiments meet their methods' assumptions?\n\n")
	fmt.Fprintf(w, "Each cell's method's assumptions, measured on the bags it trained on from their sizes and proportions only "+
		"(no instance's label; `learn.CellAssumptions`): LLPFC's grouping assumption and invertible T̂_i, EasyLLP's i.i.d. bags "+
		"(the bias of its debiased soft labels), LLP-PVC's independent labels (the dispersion of the bags' class counts), KL's "+
		"and LLP-VAT's pure bags, MixBag's interval coverage and equal bag sizes. A threshold marked ≥ must be reached, the "+
		"others not exceeded; the i.i.d. thresholds are the 99th percentile of the statistic over i.i.d. bags of the same sizes.\n\n")
	fmt.Fprintln(w, "| protocol | method | bag size | assumption | holds in | value (mean) | threshold (mean) | cells where it fails |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, k := range keys {
		rw := rows[k]
		th := fmt.Sprintf("%.4g", rw.th/float64(rw.n))
		if rw.atLeast {
			th = "≥ " + th
		}
		fail := strings.Join(rw.failing, ", ")
		if fail == "" {
			fail = "—"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %d of %d | %.4g | %s | %s |\n", k.protocol, experiments.MethodLabel(k.method), bagSizeCell(k.bag),
			k.name, rw.holds, rw.n, rw.value/float64(rw.n), th, fail)
	}
	fmt.Fprintf(w, "\nCells whose method's assumption fails: %d of the %d cells with diagnostics.", failingCells, with)
	if without > 0 {
		verb := "carry"
		if without == 1 {
			verb = "carries"
		}
		fmt.Fprintf(w, " %s %s none (written before the diagnostics).", cellCount(without), verb)
	}
	fmt.Fprint(w, "\n\n")
}

// shortKey is the first 8 characters of a cell's key.
func shortKey(k string) string {
	if len(k) > 8 {
		return k[:8]
	}
	return k
}

// bagSizeCell prints a bag size, "varying" for 0 (bags of the feature
// protocols or from a file).
func bagSizeCell(b int) string {
	if b == 0 {
		return "varying"
	}
	return fmt.Sprint(b)
}
