package experiments

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/llpfc/llpfc/fixtures/paper"
	"github.com/llpfc/llpfc/internal/atomicfile"
	"github.com/llpfc/llpfc/training"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// methodOrder is the row order of the paper's tables (baselines first).
var methodOrder = []string{"kl", "llpvat", "llpgan", "easyllp", "mixbag", "llppvc", "llpfc-ideal", "llpfc-uniform", "llpfc-approx", "supervised"}

// methodNames are the paper's spellings.
var methodNames = map[string]string{"kl": "KL", "llpvat": "LLPVAT", "llpgan": "LLPGAN",
	"easyllp": "EasyLLP", "mixbag": "MixBag", "llppvc": "LLP-PVC",
	"llpfc-ideal": "LLPFC-ideal", "llpfc-uniform": "LLPFC-uniform", "llpfc-approx": "LLPFC-approx",
	"supervised": "Supervised (ceiling)"}

// Stat is the test accuracy of one (method, bag size) slot over its seeds:
// the mean and the population standard deviation (ddof = 0, as numpy.std;
// the paper does not say which it reports).
type Stat struct {
	Mean, Std float64
	N         int
	Seeds     []int64
	Keys      []string
	// StepsPerEpoch and Steps are the optimizer steps per epoch and in the
	// whole run (the fewest over the seeds; 0 when the results do not say).
	StepsPerEpoch, Steps int
	// SelectedEpochs are the epochs (from 1) whose networks the seeds'
	// results report under hyper.select best-val, in seed order (empty
	// under select last, where every result reports its last epoch).
	SelectedEpochs []int
}

// MinSteps is the number of optimizer steps below which a cell of a
// bag-level baseline is marked in the table: with minibatches of a few bags,
// a large bag size leaves the baseline only a handful of updates, and its
// accuracy then measures the budget more than the method.
const MinSteps = 100

// Slot is a (method, bag size) position of a table.
type Slot struct {
	Method  string
	BagSize int
}

// Table is one table of the report, in the paper's layout: the results of
// one spec, learner, model, data set and protocol, methods × bag sizes.
type Table struct {
	Spec, Learner, Model, Dataset, Protocol string
	Methods                                 []string
	BagSizes                                []int
	Ours                                    map[Slot]Stat
	// Paper holds the paper's numbers for the same model, data set and
	// protocol (Tables 1–4), when the setting matches; PaperTable is the
	// table's LaTeX label.
	Paper      map[Slot]paper.Entry
	PaperTable string
	// Settings holds, per method, the configuration of one of its cells
	// (the hyperparameters are the same at every bag size unless an
	// override says otherwise).
	Settings map[string]Config
	// Versions counts the table's cells by the code version that made them.
	Versions map[string]int
	// Devices counts the table's cells by the compute back end that trained
	// them (Metrics.Device; "cpu" for results that name none).
	Devices map[string]int
	// Normalization is the input normalization of the table's cells.
	Normalization string
	// Metric is what the table's cells show (ReportMetrics; "" means
	// test_accuracy); the paper's rows appear only beside test accuracy.
	Metric string
}

// Title names the table.
func (t *Table) Title() string {
	return fmt.Sprintf("%s: %s on %s (learner %s, protocol %s)", t.Spec, t.Model, t.Dataset, t.Learner, t.Protocol)
}

// BuildTables groups results into tables and aggregates seeds: one table
// per (spec, learner, model, data set, protocol), a cell in the table of
// every spec it belongs to (Result.SpecNames). Within a table each slot
// must hold results of one configuration (up to the seed), and the cells
// must be comparable (checkComparable); otherwise the error names both
// keys. entries are the paper's numbers (paper.Entries), attached where
// model, data set and protocol ("paper") match.
func BuildTables(results []*Result, entries []paper.Entry) ([]*Table, error) {
	return buildTables(results, entries, nil, "")
}

// tableKey identifies a table.
type tableKey struct{ spec, learner, model, dataset, protocol string }

// buildTables is BuildTables; from, when not nil, names the stores that
// hold each key, for the errors (Collection.From).
func buildTables(results []*Result, entries []paper.Entry, from map[string][]string, metric string) ([]*Table, error) {
	if _, ok := reportMetrics[metric]; !ok && metric != "" {
		return nil, fmt.Errorf("metric %q: want one of %s", metric, strings.Join(ReportMetrics(), ", "))
	}
	tables := map[tableKey]*Table{}
	proto := map[tableKey]map[Slot]*Result{} // first result of each slot: its config up to the seed
	byTable := map[tableKey][]*Result{}
	for _, r := range results {
		c := r.Config
		specs := r.SpecNames()
		if len(specs) == 0 {
			specs = []string{""}
		}
		for _, spec := range specs {
			k := tableKey{spec, c.Learner, c.Model, c.Dataset, c.Protocol}
			t := tables[k]
			if t == nil {
				t = &Table{Spec: spec, Learner: c.Learner, Model: c.Model, Dataset: c.Dataset, Protocol: c.Protocol,
					Ours: map[Slot]Stat{}, Paper: map[Slot]paper.Entry{}, Settings: map[string]Config{}, Versions: map[string]int{}, Devices: map[string]int{}}
				tables[k] = t
				proto[k] = map[Slot]*Result{}
			}
			s := Slot{c.Method, c.BagSize}
			if p, ok := proto[k][s]; ok {
				a, b := p.Config, c
				a.Seed, b.Seed = 0, 0
				if !reflect.DeepEqual(a, b) {
					return nil, incomparable(t, fmt.Sprintf("%s at bag size %d: results of two configurations,", c.Method, c.BagSize), p, r, configDiff(a, b), from)
				}
			} else {
				proto[k][s] = r
			}
			if _, ok := t.Settings[c.Method]; !ok {
				t.Settings[c.Method] = c
			}
			st := t.Ours[s]
			st.Seeds = append(st.Seeds, r.Seed)
			st.Keys = append(st.Keys, r.Key)
			st.N++
			t.Ours[s] = st
			byTable[k] = append(byTable[k], r)
			t.Versions[versionLabel(r.Provenance)]++
			t.Devices[deviceLabel(r.Metrics.Device)]++
			t.Normalization = c.Normalize
		}
	}
	// Only comparable cells share a table.
	for k, rs := range byTable {
		if err := checkComparable(tables[k], rs, from); err != nil {
			return nil, err
		}
	}
	// Aggregate in seed order so the output does not depend on file order.
	byKey := map[string]*Result{}
	for _, r := range results {
		byKey[r.Key] = r
	}
	var out []*Table
	for _, t := range tables {
		t.Metric = tableMetric(t, byKey, metric)
		for s, st := range t.Ours {
			var err error
			if t.Ours[s], err = aggregate(st, byKey, t.Metric); err != nil {
				return nil, err
			}
			if !containsStr(t.Methods, s.Method) {
				t.Methods = append(t.Methods, s.Method)
			}
			if !containsInt(t.BagSizes, s.BagSize) {
				t.BagSizes = append(t.BagSizes, s.BagSize)
			}
		}
		if t.Protocol == "paper" && (t.Metric == "" || t.Metric == MetricTestAccuracy) {
			for _, e := range entries {
				if e.Model == t.Model && e.Dataset == t.Dataset {
					t.Paper[Slot{e.Method, e.BagSize}] = e
					t.PaperTable = e.Table
				}
			}
		}
		sort.Ints(t.BagSizes)
		sort.Slice(t.Methods, func(i, j int) bool { return methodRank(t.Methods[i]) < methodRank(t.Methods[j]) })
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Title() < out[j].Title() })
	return out, nil
}

// tableMetric is the metric table t shows: metric, or for the default
// ("", test accuracy) on a table none of whose cells had a labelled test
// split, the training bags' proportion error (issue 38: a report of a grid
// over bag-only sets with and without a test split was refused whole).
func tableMetric(t *Table, byKey map[string]*Result, metric string) string {
	if metric != "" {
		return metric
	}
	for _, st := range t.Ours {
		for _, k := range st.Keys {
			if byKey[k].Metrics.HasTest() {
				return metric
			}
		}
	}
	return MetricBagProportionError
}

// versionLabel is the code version of a cell as a table counts it.
func versionLabel(p Provenance) string {
	v := p.CodeVersion
	if v == "" {
		v = "unknown"
	}
	if p.Dirty {
		v += " (uncommitted changes)"
	}
	return v
}

// aggregate returns st with its seeds and keys in seed order, the mean and
// population std of their metric (test accuracy by default), and the
// fewest optimizer steps; a cell that did not record the metric is an
// error naming it.
func aggregate(st Stat, byKey map[string]*Result, metric string) (Stat, error) {
	idx := make([]int, st.N)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return st.Seeds[idx[a]] < st.Seeds[idx[b]] })
	xs := make([]float64, st.N)
	seeds := make([]int64, st.N)
	keys := make([]string, st.N)
	for i, j := range idx {
		v, ok := metricValue(byKey[st.Keys[j]].Metrics, metric)
		if !ok {
			r := byKey[st.Keys[j]]
			e := &MissingMetricError{Key: st.Keys[j], Method: r.Config.Method, BagSize: r.Config.BagSize, Seed: st.Seeds[j], Metric: metricName(metric),
				NoTestSplit: !r.Metrics.HasTest() && testMetric(metric)}
			if sc := r.Metrics.Scores; metric == MetricAUC && sc != nil && len(sc.Confusion) != 2 {
				e.Classes = len(sc.Confusion)
			}
			return st, e
		}
		xs[i], seeds[i], keys[i] = v, st.Seeds[j], st.Keys[j]
	}
	st.Seeds, st.Keys = seeds, keys
	st.Mean, st.Std = stat.PopMeanStdDev(xs, nil)
	st.SelectedEpochs = nil
	for i, key := range keys {
		m := byKey[key].Metrics
		if steps := m.StepsPerEpoch * m.Epochs; i == 0 || steps < st.Steps {
			st.Steps, st.StepsPerEpoch = steps, m.StepsPerEpoch
		}
		if m.SelectedEpoch != nil {
			st.SelectedEpochs = append(st.SelectedEpochs, *m.SelectedEpoch)
		}
	}
	return st, nil
}

func methodRank(m string) int {
	for i, x := range methodOrder {
		if x == m {
			return i
		}
	}
	return len(methodOrder)
}

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
		fmt.Fprintf(w, "| %s |", methodLabel(m))
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
		fmt.Fprintf(w, "| %s (paper) |", methodLabel(m))
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
		if !CountsInstances(m) {
			unit = "bags"
		}
		fmt.Fprintf(w, "- %s: %s, %d epochs, %s, %s lr %g (%s), batch %d %s",
			methodLabel(m), pointsText(c), h.Epochs, t.reportedEpoch(m), h.Optimizer, h.LR, h.Schedule.Kind, h.BatchSize, unit)
		if h.WeightDecay != 0 {
			fmt.Fprintf(w, ", weight decay %g", h.WeightDecay)
		}
		if h.Flood != 0 {
			fmt.Fprintf(w, ", flooding b = %g", h.Flood)
		}
		if IsLLPFC(m) && h.RegroupEvery > 0 {
			fmt.Fprintf(w, ", regroup every %d epochs", h.RegroupEvery)
		}
		if steps := t.stepsLine(m); steps != "" {
			fmt.Fprintf(w, "; optimizer steps per epoch %s", steps)
		}
		fmt.Fprintln(w)
	}
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
			vs = append(vs, fmt.Sprintf("%s (%d cells)", v, n))
		}
		sort.Strings(vs)
		fmt.Fprintf(w, " Code versions: %s.", strings.Join(vs, ", "))
	}
	if _, onlyCPU := t.Devices["cpu"]; len(t.Devices) > 1 || (len(t.Devices) == 1 && !onlyCPU) {
		// Said when any cell ran elsewhere than the CPU (a report of CPU
		// cells reads as it did before devices existed).
		ds := make([]string, 0, len(t.Devices))
		for d, n := range t.Devices {
			ds = append(ds, fmt.Sprintf("%s (%d cells)", d, n))
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
	if !CountsInstances(m) && s.Steps > 0 && s.Steps < MinSteps {
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

func methodLabel(m string) string {
	if n, ok := methodNames[m]; ok {
		return n
	}
	return m
}

// errPoints are a method's means with ±std error bars.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// Plot draws test accuracy against bag size (log₂ axis) with one line per
// method and ±std error bars; the paper's numbers, where they exist, are
// drawn as dashed lines of the same colour. The plot is saved as PNG at path.
func (t *Table) Plot(path string) error {
	p, err := t.newPlot()
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	// gonum/plot puts the title at the canvas's top edge (Title.Padding is
	// the gap below it), where its ascenders touched or were cut by the
	// image's border: the plot is drawn in the canvas less a top margin.
	c := vgimg.New(7*vg.Inch, 4.5*vg.Inch)
	p.Draw(draw.Crop(draw.New(c), 0, 0, 0, -vg.Points(8)))
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
		return err
	})
}

// newPlot builds the plot that Plot draws.
func (t *Table) newPlot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s on %s, protocol %s", t.Spec, t.Model, t.Dataset, t.Protocol)
	p.Title.Padding = vg.Points(10) // the gap between the title and the axes
	p.X.Label.Text = "bag size"
	p.Y.Label.Text = strings.ToLower(metricLabel(t.Metric))
	p.X.Scale = plot.LogScale{}
	var ticks []plot.Tick
	for _, b := range t.BagSizes {
		ticks = append(ticks, plot.Tick{Value: bagSizeX(b), Label: bagSizeText(b)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	if n := len(t.BagSizes); n > 0 { // a margin of a third of a doubling on each side
		p.X.Min, p.X.Max = bagSizeX(t.BagSizes[0])/1.25, bagSizeX(t.BagSizes[n-1])*1.25
	}
	lo, hi := 1.0, 0.0
	for s, st := range t.Ours {
		lo, hi = min(lo, st.Mean-st.Std), max(hi, st.Mean+st.Std)
		if e, ok := t.Paper[s]; ok && !e.OutOfRAM {
			lo, hi = min(lo, e.Mean), max(hi, e.Mean)
		}
	}
	// The accuracies' range with a margin, within [0,1].
	p.Y.Min, p.Y.Max = max(0, lo-0.05), min(1, hi+0.05)
	p.Legend.Top = false
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	for i, m := range t.Methods {
		var pts errPoints
		for _, b := range t.BagSizes {
			if s, ok := t.Ours[Slot{m, b}]; ok {
				pts.XYs = append(pts.XYs, plotter.XY{X: bagSizeX(b), Y: s.Mean})
				pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{s.Std, s.Std})
			}
		}
		if len(pts.XYs) == 0 {
			continue
		}
		col := plotutil.Color(i)
		line, scatter, err := plotter.NewLinePoints(pts.XYs)
		if err != nil {
			return nil, err
		}
		line.Color, scatter.Color = col, col
		line.Width = vg.Points(1.5)
		scatter.Shape = plotutil.Shape(i)
		bars, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, err
		}
		bars.Color = col
		bars.CapWidth = vg.Points(6)
		p.Add(line, scatter, bars)
		p.Legend.Add(methodLabel(m), line, scatter)
		var paperPts plotter.XYs
		for _, b := range t.BagSizes {
			if e, ok := t.Paper[Slot{m, b}]; ok && !e.OutOfRAM {
				paperPts = append(paperPts, plotter.XY{X: bagSizeX(b), Y: e.Mean})
			}
		}
		if len(paperPts) > 0 {
			pl, err := plotter.NewLine(paperPts)
			if err != nil {
				return nil, err
			}
			pl.Color = col
			pl.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			p.Add(pl)
			p.Legend.Add(methodLabel(m)+" (paper)", pl)
		}
	}
	return p, nil
}

// ReportFiles are the files WriteReport made.
type ReportFiles struct {
	Markdown string
	Plots    []string
	// Damaged are the damaged cell files left out of the report (Damage
	// says how to repair each).
	Damaged []Damage
}

// WriteReport reads every result of store, builds the tables (with the
// paper's numbers from fixtures/paper), and writes outDir/report.md and one
// PNG plot per table (PlotNames). It returns the markdown as well.
func WriteReport(store *Store, outDir string) (ReportFiles, []byte, error) {
	return WriteReports([]*Store{store}, outDir)
}

// WriteReports is WriteReport over several stores read together (for
// example one per bag protocol): a table per spec as always, and, when any
// LLPFC cell recorded its groups' diagnostics, the section of TroubleMarkdown
// and the plot outDir/trouble.png over the cells of every store, so that the
// protocols stand side by side (issue 16). Each cell counts once however
// many of the stores hold it (Collect); damaged cell files are left out and
// listed (ReportFiles.Damaged, and a line of the report).
func WriteReports(stores []*Store, outDir string) (ReportFiles, []byte, error) {
	return WriteReportsContext(context.Background(), stores, outDir)
}

// WriteReportsContext is WriteReports, stopping between two files when ctx
// is cancelled (an interrupted report leaves whole files only: every file is
// written atomically, and the temporary files of an earlier report that was
// killed are removed first).
func WriteReportsContext(ctx context.Context, stores []*Store, outDir string) (ReportFiles, []byte, error) {
	return WriteReportsMetric(ctx, stores, outDir, "")
}

// WriteReportsMetric is WriteReportsContext with the tables showing metric
// (ReportMetrics; "" is test accuracy) instead of test accuracy (issue 29:
// `llpfc report --metric`).
func WriteReportsMetric(ctx context.Context, stores []*Store, outDir, metric string) (ReportFiles, []byte, error) {
	col, err := Collect(stores...)
	if err != nil {
		return ReportFiles{}, nil, err
	}
	files := ReportFiles{Damaged: col.Damaged}
	results := col.Results
	if len(results) == 0 {
		msg := fmt.Sprintf("results directory %s: no finished cells (run `llpfc run SPEC --results %s` first)", stores[0].Dir, stores[0].Dir)
		if len(col.Damaged) > 0 {
			msg += "; " + col.Damaged[0].Error()
		}
		return files, nil, errors.New(msg)
	}
	entries, err := paper.Entries()
	if err != nil {
		return files, nil, err
	}
	noTest := metric == "" && !anyTest(results)
	if noTest { // the default, test accuracy, exists in no cell: show what they hold
		metric = MetricBagProportionError
	}
	tables, err := buildTables(results, entries, col.From, metric)
	if err != nil {
		return files, nil, err
	}
	if st, err := os.Stat(outDir); err == nil && !st.IsDir() {
		return files, nil, fmt.Errorf("report directory %s: is a file, want a directory", outDir)
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return files, nil, fmt.Errorf("report directory %s: %w", outDir, err)
	}
	names := PlotNames(tables)
	removeTemps(outDir, append([]string{"report.md", troublePNG}, names...))
	var md bytes.Buffer
	fmt.Fprintf(&md, "# llpfc results\n\n%d finished cells from %s.\n\n", len(results), storeList(stores))
	if noTest {
		fmt.Fprintf(&md, "No cell had a labelled test split (bag-only data without one), so the tables show a bag-level figure: the training bags' proportion error ‖p̄ − γ‖₁ under the final network (lower is better).\n\n")
	} else if metric == "" && anyBagLevel(tables) {
		fmt.Fprintf(&md, "The tables of data sets without a labelled test split (bag-only data without one) show a bag-level figure instead of test accuracy: the training bags' proportion error ‖p̄ − γ‖₁ under the final network (lower is better).\n\n")
	}
	if n := len(col.Damaged); n > 0 {
		fmt.Fprintf(&md, "Left out: %d damaged cell file(s), e.g. `%s` (`llpfc run` sets them aside and runs their cells again).\n\n", n, col.Damaged[0].Path)
	}
	for i, t := range tables {
		if err := ctx.Err(); err != nil {
			return files, nil, err
		}
		t.Markdown(&md)
		path := filepath.Join(outDir, names[i])
		if err := t.Plot(path); err != nil {
			return files, nil, err
		}
		fmt.Fprintf(&md, "![%s](%s)\n\n", t.Title(), names[i])
		files.Plots = append(files.Plots, path)
	}
	pts := TroublePoints(results)
	if hasGroups(pts) {
		if err := ctx.Err(); err != nil {
			return files, nil, err
		}
		TroubleMarkdown(&md, pts)
		path := filepath.Join(outDir, troublePNG)
		if err := TroublePlot(path, pts); err != nil {
			return files, nil, err
		}
		fmt.Fprintf(&md, "![LLPFC accuracy against ‖T̂⁻¹‖₁, and KL against bag size](%s)\n\n", troublePNG)
		files.Plots = append(files.Plots, path)
	}
	files.Markdown = filepath.Join(outDir, "report.md")
	if err := atomicfile.WriteFile(files.Markdown, md.Bytes()); err != nil {
		return files, nil, err
	}
	return files, md.Bytes(), nil
}

// troublePNG is the file name of the trouble plot.
const troublePNG = "trouble.png"

// storeList names the stores, each once, as the report's first line does.
func storeList(stores []*Store) string {
	var dirs []string
	seen := map[string]bool{}
	for _, st := range stores {
		if !seen[st.Dir] {
			seen[st.Dir] = true
			dirs = append(dirs, "`"+st.Dir+"`")
		}
	}
	return strings.Join(dirs, " and ")
}

// PlotNames returns the file name of each table's plot (issue 27, item 4:
// names must not collide): spec-model-dataset, with -protocol-learner
// appended when tables share that, made portable (sanitize), shortened
// with a hash when long, and numbered -2, -3, … when two still collide
// (compared without case, as on case-insensitive file systems).
// "trouble.png" is reserved.
func PlotNames(tables []*Table) []string {
	base := func(t *Table) string { return fmt.Sprintf("%s-%s-%s", t.Spec, t.Model, t.Dataset) }
	count := map[string]int{}
	for _, t := range tables {
		count[base(t)]++
	}
	used := map[string]bool{troublePNG: true, "report.md": true}
	out := make([]string, len(tables))
	for i, t := range tables {
		n := base(t)
		if count[n] > 1 {
			n += "-" + t.Protocol + "-" + t.Learner
		}
		name := sanitize(n)
		if len(name) > 120 {
			sum := sha256.Sum256([]byte(n))
			name = name[:100] + "-" + hex.EncodeToString(sum[:4])
		}
		cand := name
		for k := 2; used[strings.ToLower(cand+".png")]; k++ {
			cand = fmt.Sprintf("%s-%d", name, k)
		}
		used[strings.ToLower(cand+".png")] = true
		out[i] = cand + ".png"
	}
	return out
}

// removeTemps removes the temporary files that an atomic write of one of
// names left in dir when its process was killed (".NAME.tmp-*").
func removeTemps(dir string, names []string) {
	for _, n := range names {
		matches, _ := filepath.Glob(filepath.Join(dir, "."+n+".tmp-*"))
		for _, m := range matches {
			if st, err := os.Lstat(m); err == nil && st.Mode().IsRegular() {
				os.Remove(m)
			}
		}
	}
}

// hasGroups reports whether any point carries its groups' diagnostics.
func hasGroups(pts []TroublePoint) bool {
	for _, p := range pts {
		if p.InvNorm1 > 0 {
			return true
		}
	}
	return false
}

// sanitize keeps a file name portable.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, s)
}

// deviceLabel names the device of a result for the report ("" is the CPU:
// results written before devices existed ran there).
func deviceLabel(d string) string {
	if d == "" {
		return "cpu"
	}
	return d
}

// The metrics a report can tabulate (report --metric).
const (
	MetricTestAccuracy       = "test_accuracy"
	MetricMacroF1            = "macro_f1"
	MetricAUC                = "auc"
	MetricBagProportionError = "bag_proportion_error"
	MetricValKL              = "val_kl"
	// MetricPeakRSS is the peak resident memory of the process that ran a
	// cell (Metrics.PeakRSSBytes), tabulated in MiB (issue 41: a grid's
	// memory per cell).
	MetricPeakRSS = "peak_rss_bytes"
)

// reportMetrics labels each metric of ReportMetrics.
var reportMetrics = map[string]string{
	MetricTestAccuracy:       "Test accuracy",
	MetricMacroF1:            "Test macro-F1",
	MetricAUC:                "Test AUC",
	MetricBagProportionError: "Training bags' proportion error ‖p̄ − γ‖₁",
	MetricValKL:              "Held-out bags' validation KL",
	MetricPeakRSS:            "Peak resident memory of the cell's process (MiB)",
}

// ReportMetrics returns the metrics a report can tabulate, sorted.
func ReportMetrics() []string {
	var ms []string
	for m := range reportMetrics {
		ms = append(ms, m)
	}
	sort.Strings(ms)
	return ms
}

// metricLabel names a metric in a table's caption and plot.
func metricLabel(metric string) string {
	if metric == "" {
		metric = MetricTestAccuracy
	}
	return reportMetrics[metric]
}

// metricValue reads a metric from a cell's metrics, and whether the cell
// recorded it.
func metricValue(m Metrics, metric string) (float64, bool) {
	switch metric {
	case "", MetricTestAccuracy:
		return m.TestAccuracy, m.HasTest()
	case MetricMacroF1:
		if m.Scores != nil && m.HasTest() {
			return m.Scores.MacroF1, true
		}
	case MetricAUC:
		if m.Scores != nil && m.Scores.AUC != nil && m.HasTest() {
			return *m.Scores.AUC, true
		}
	case MetricBagProportionError:
		return m.BagProportionError, m.BagProportionError != 0
	case MetricValKL:
		if m.ValKL != nil {
			return *m.ValKL, true
		}
	case MetricPeakRSS:
		return float64(m.PeakRSSBytes) / (1 << 20), m.PeakRSSBytes > 0
	}
	return 0, false
}

// anyBagLevel reports whether a table shows the bag-level default
// (tableMetric).
func anyBagLevel(tables []*Table) bool {
	for _, t := range tables {
		if t.Metric == MetricBagProportionError {
			return true
		}
	}
	return false
}

// meanStd writes a table cell's mean ± std: four decimals, or whole MiB
// for the peak memory.
func meanStd(metric string, mean, std float64) string {
	if metric == MetricPeakRSS {
		return fmt.Sprintf("%.0f ± %.0f", mean, std)
	}
	return fmt.Sprintf("%.4f ± %.4f", mean, std)
}

// anyTest reports whether some result was evaluated on a test split.
func anyTest(results []*Result) bool {
	for _, r := range results {
		if r.Metrics.HasTest() {
			return true
		}
	}
	return false
}

// testMetric reports whether metric is measured on the labelled test split.
func testMetric(metric string) bool {
	return metric == "" || metric == MetricTestAccuracy || metric == MetricMacroF1 || metric == MetricAUC
}

// metricName is metric with "" spelled out.
func metricName(metric string) string {
	if metric == "" {
		return MetricTestAccuracy
	}
	return metric
}

// MissingMetricError is a report of a metric that a cell did not record.
type MissingMetricError struct {
	Key, Method, Metric string
	BagSize             int
	Seed                int64
	// NoTestSplit: the cell's data had no labelled test split (a bag-only
	// set without one), so it has no test metric at all.
	NoTestSplit bool
	// Classes, set for the AUC of a cell of other than two classes: the
	// AUC is measured for two (issue 38: "--metric auc" on three classes
	// blamed the results' age).
	Classes int
}

func (e *MissingMetricError) Error() string {
	if e.Classes > 0 {
		return fmt.Sprintf("cell %s (%s, bag size %d, seed %d) has no %s: the AUC is measured for two classes, and its data set has %d; report %s or %s",
			e.Key, e.Method, e.BagSize, e.Seed, e.Metric, e.Classes, MetricTestAccuracy, MetricMacroF1)
	}
	if e.NoTestSplit {
		return fmt.Sprintf("cell %s (%s, bag size %d, seed %d) has no %s: its data set had no labelled test split; report a bag-level metric (--metric %s, or %s with held-out bags)",
			e.Key, e.Method, e.BagSize, e.Seed, e.Metric, MetricBagProportionError, MetricValKL)
	}
	return fmt.Sprintf("cell %s (%s, bag size %d, seed %d) did not record %s (results written before it, or by a learner that does not compute it); report another metric",
		e.Key, e.Method, e.BagSize, e.Seed, e.Metric)
}
