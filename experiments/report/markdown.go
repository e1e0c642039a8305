package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/training"
	"gonum.org/v1/gonum/stat"
)

// MinSteps is the number of optimizer steps below which a cell of a
// bag-level baseline is marked in the table: with minibatches of a few bags,
// a large bag size leaves the baseline only a handful of updates, and its
// accuracy then measures the budget more than the method.
const MinSteps = 100

// Markdown writes the table in the paper's layout: one row per method with
// mean ± std over seeds for each bag size ("(n=k)" when a slot has fewer
// seeds than the table's fullest slot, "—" when it is empty), and below each
// method the paper's row when the paper has one.
func (t *Table) Markdown(w io.Writer) {
	fmt.Fprintf(w, "### %s\n\n", t.Title())
	maxN := 0
	for _, s := range t.Ours {
		maxN = max(maxN, s.N)
	}
	seeds := "seeds"
	if maxN == 1 {
		seeds = "seed"
	}
	fmt.Fprintf(w, "%s, mean ± population std over %d %s", metricLabel(t.Metric), maxN, seeds)
	if t.PaperTable != "" {
		fmt.Fprintf(w, "; paper rows from Table `%s` (5 runs, the paper's full budgets on a GPU; the paper does not say which epoch's accuracy it reports, see PAPER_MAP)", t.PaperTable)
	}
	fmt.Fprint(w, ".\n\n| Method |")
	for _, b := range t.BagSizes {
		fmt.Fprintf(w, " %s |", bagSizeText(b))
	}
	fmt.Fprint(w, "\n|---|")
	for range t.BagSizes {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for _, m := range t.Methods {
		fmt.Fprintf(w, "| %s |", experiments.MethodLabel(m))
		for _, b := range t.BagSizes {
			s, ok := t.Ours[Slot{m, b}]
			switch {
			case !ok:
				fmt.Fprint(w, " — |")
			case s.N < maxN:
				fmt.Fprintf(w, " %s (n=%d)%s |", meanStd(t.Metric, s.Mean, s.Std), s.N, t.fewSteps(m, s))
			default:
				fmt.Fprintf(w, " %s%s |", meanStd(t.Metric, s.Mean, s.Std), t.fewSteps(m, s))
			}
		}
		fmt.Fprintln(w)
		if !t.hasPaperRow(m) {
			continue
		}
		fmt.Fprintf(w, "| %s (paper) |", experiments.MethodLabel(m))
		for _, b := range t.BagSizes {
			e, ok := t.Paper[Slot{m, b}]
			switch {
			case !ok:
				fmt.Fprint(w, " — |")
			case e.OutOfRAM:
				fmt.Fprint(w, " Out of RAM |")
			default:
				fmt.Fprintf(w, " %.4f ± %.2f |", e.Mean, e.Std)
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	for _, m := range t.Methods {
		c := t.Settings[m]
		h := c.Hyper
		unit := "instances"
		if !experiments.CountsInstances(m) {
			unit = "bags"
		}
		budget := fmt.Sprintf("%d epochs", h.Epochs)
		if h.Steps > 0 {
			budget = fmt.Sprintf("%d optimizer steps", h.Steps)
		}
		fmt.Fprintf(w, "- %s: %s, %s, %s, %s %s (%s), %s",
			experiments.MethodLabel(m), pointsText(c), budget, t.reportedEpoch(m), h.Optimizer, lrText(h), h.Schedule.Kind, t.batchLine(m, unit))
		if h.WeightDecay != 0 {
			fmt.Fprintf(w, ", weight decay %g", h.WeightDecay)
		}
		if h.Flood != 0 {
			fmt.Fprintf(w, ", flooding b = %g", h.Flood)
		}
		for _, name := range slices.Sorted(maps.Keys(h.Settings)) { // the method's own settings declared since (their defaults unstated)
			fmt.Fprintf(w, ", %s %s", name, h.Settings[name])
		}
		if experiments.IsLLPFC(m) && h.RegroupEvery > 0 {
			fmt.Fprintf(w, ", regroup every %d epochs", h.RegroupEvery)
		}
		if steps := t.stepsLine(m); steps != "" {
			fmt.Fprintf(w, "; optimizer steps per epoch %s", steps)
		}
		if h.Search != nil {
			fmt.Fprintf(w, "; %s", t.searchLine(m))
		}
		fmt.Fprintln(w)
	}
	writePaired(w, t)
	writeGroups(w, t)
	fmt.Fprintln(w)
	if t.anyFewSteps() {
		fmt.Fprintf(w, "† fewer than %d optimizer steps in the whole run: with minibatches of bags, a large bag size leaves the baseline few updates in this budget, so the cell measures the budget more than the method.\n\n", MinSteps)
	}
	if t.Normalization != "" {
		fmt.Fprintf(w, "Inputs: %s (the constants of the training split, as the authors do for every data set).", t.Normalization)
	}
	if len(t.Versions) > 0 {
		vs := make([]string, 0, len(t.Versions))
		for v, n := range t.Versions {
			vs = append(vs, fmt.Sprintf("%s (%s)", v, cellCount(n)))
		}
		sort.Strings(vs)
		fmt.Fprintf(w, " Code versions: %s.", strings.Join(vs, ", "))
	}
	if _, onlyCPU := t.Devices["cpu"]; len(t.Devices) > 1 || (len(t.Devices) == 1 && !onlyCPU) {
		// Said when any cell ran elsewhere than the CPU (a report of CPU
		// cells reads as it did before devices existed).
		ds := make([]string, 0, len(t.Devices))
		for d, n := range t.Devices {
			ds = append(ds, fmt.Sprintf("%s (%s)", d, cellCount(n)))
		}
		sort.Strings(ds)
		fmt.Fprintf(w, " Devices: %s.", strings.Join(ds, ", "))
	}
	fmt.Fprint(w, "\n\n")
}

// reportedEpoch says which epoch's network method m's accuracies are of:
// "accuracy of the last epoch" under hyper.select last (the default, and
// what the authors' code logs last), or under best-val the epoch of lowest
// validation KL on the held-out bags, with the epochs the seeds' results
// chose (1-based) over every bag size.
func (t *Table) reportedEpoch(m string) string {
	h := t.Settings[m].Hyper
	if h.Select != training.SelectBestVal {
		return "accuracy of the last epoch"
	}
	seen := map[int]bool{}
	var eps []int
	for sl, s := range t.Ours {
		if sl.Method != m {
			continue
		}
		for _, e := range s.SelectedEpochs {
			if !seen[e] {
				seen[e] = true
				eps = append(eps, e)
			}
		}
	}
	sort.Ints(eps)
	txt := make([]string, len(eps))
	for i, e := range eps {
		txt[i] = fmt.Sprint(e)
	}
	held := fmt.Sprintf("%g held-out bags", h.ValBags)
	if h.ValBags < 1 {
		held = fmt.Sprintf("%g%% of the bags held out", 100*h.ValBags)
	}
	if len(txt) == 0 {
		return fmt.Sprintf("accuracy of the epoch of lowest validation KL on %s", held)
	}
	return fmt.Sprintf("accuracy of the epoch of lowest validation KL on %s (epochs chosen: %s)", held, strings.Join(txt, ", "))
}

// fewSteps returns the marker "†" for a cell of a bag-level baseline that
// made fewer than MinSteps optimizer steps, else "".
func (t *Table) fewSteps(m string, s Stat) string {
	if !experiments.CountsInstances(m) && s.Steps > 0 && s.Steps < MinSteps {
		return " †"
	}
	return ""
}

func (t *Table) anyFewSteps() bool {
	for sl, s := range t.Ours {
		if t.fewSteps(sl.Method, s) != "" {
			return true
		}
	}
	return false
}

// stepsLine lists method m's optimizer steps per epoch by bag size, e.g.
// "640 (32), 160 (128)"; "" when the results do not say.
func (t *Table) stepsLine(m string) string {
	var parts []string
	for _, b := range t.BagSizes {
		if s, ok := t.Ours[Slot{m, b}]; ok && s.StepsPerEpoch > 0 {
			parts = append(parts, fmt.Sprintf("%d (bag %d)", s.StepsPerEpoch, b))
		}
	}
	return strings.Join(parts, ", ")
}

func (t *Table) hasPaperRow(m string) bool {
	for s := range t.Paper {
		if s.Method == m {
			return true
		}
	}
	return false
}

// lrText is a cell's learning rate, or the rates its search tried.
func lrText(h experiments.Hyper) string {
	if h.Search == nil {
		return fmt.Sprintf("lr %g", h.LR)
	}
	var lrs []string
	for _, lr := range h.Search.LR {
		lrs = append(lrs, fmt.Sprint(lr))
	}
	return "lr tuned over {" + strings.Join(lrs, ", ") + "}"
}

// batchText is a cell's minibatch, or the minibatches its search tried.
func batchText(h experiments.Hyper, unit string) string {
	if h.Search != nil && len(h.Search.BatchSize) > 0 {
		return fmt.Sprintf("batch tuned over %v %s", h.Search.BatchSize, unit)
	}
	if h.BatchSize == 1 {
		unit = strings.TrimSuffix(unit, "s")
	}
	return fmt.Sprintf("batch %d %s", h.BatchSize, unit)
}

// batchLine is method m's minibatch, by bag size where its cells'
// differ (a step-matched grid's minibatches of bags): "batch 2 bags (bag
// 64), 1 bag (bag 256)".
func (t *Table) batchLine(m, unit string) string {
	h := t.Settings[m].Hyper
	var parts []string
	same := true
	for _, b := range t.BagSizes {
		s, ok := t.Ours[Slot{m, b}]
		if !ok {
			continue
		}
		same = same && s.BatchSize == h.BatchSize
		u := unit
		if s.BatchSize == 1 {
			u = strings.TrimSuffix(unit, "s")
		}
		parts = append(parts, fmt.Sprintf("%d %s (bag %s)", s.BatchSize, u, bagSizeText(b)))
	}
	if same || (h.Search != nil && len(h.Search.BatchSize) > 0) {
		return batchText(h, unit)
	}
	return "batch " + strings.Join(parts, ", ")
}

// searchLine says how method m's cells were tuned and what each bag size's
// seeds chose, with the budget of a chosen run (optimizer steps, instances
// seen).
func (t *Table) searchLine(m string) string {
	h := t.Settings[m].Hyper
	var parts []string
	costs := false
	for _, b := range t.BagSizes {
		s, ok := t.Ours[Slot{m, b}]
		if !ok {
			continue
		}
		counts := map[string]int{}
		var order []string
		for _, c := range s.Chosen {
			if counts[c] == 0 {
				order = append(order, c)
			}
			counts[c]++
		}
		var cs []string
		for _, c := range order {
			cs = append(cs, fmt.Sprintf("%s ×%d", c, counts[c]))
		}
		cost := ""
		if len(s.ChoiceCost) > 0 {
			costs = true
			cost = fmt.Sprintf("; choice cost %.4f, at most %.4f", stat.Mean(s.ChoiceCost, nil), slices.Max(s.ChoiceCost))
		}
		if s.AtEnd > 0 {
			cost += fmt.Sprintf("; %d of %d at an end of the search", s.AtEnd, len(s.Chosen))
		}
		passes := ""
		if s.Passes > 0 {
			passes = fmt.Sprintf(", %.3g passes over the data", s.Passes)
		}
		parts = append(parts, fmt.Sprintf("bag %s: %s (%d steps, %d instances seen%s%s)", bagSizeText(b), strings.Join(cs, ", "), s.Steps, s.Instances, passes, cost))
	}
	trials := fmt.Sprintf("%d trials a cell", h.Search.Trials())
	if e := h.Search.Extend; e != nil {
		trials += fmt.Sprintf(", more where the choice sat at an end of the rates (the search went on along {1, 3}×10^k within [%g, %g])", e.Min, e.Max)
	}
	line := fmt.Sprintf("%s, chosen without a label by the lowest proportion loss of %g held-out bags; chosen %s",
		trials, h.ValBags, strings.Join(parts, "; "))
	if costs {
		line += " (choice cost: the best trial's test accuracy minus the chosen one's, mean and largest over the seeds, read after the choice for the reader)"
	}
	return line
}

// cellCount is n with its noun: "1 cell", "3 cells".
func cellCount(n int) string {
	if n == 1 {
		return "1 cell"
	}
	return fmt.Sprintf("%d cells", n)
}
