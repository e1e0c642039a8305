package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/fixtures/paper"
	"gonum.org/v1/gonum/stat"
)

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
	// BatchSize is the slot's minibatch (hyper.batch_size, which its seeds
	// share; a method's may differ between bag sizes: grid.Tables).
	BatchSize int
	// SelectedEpochs are the epochs (from 1) whose networks the seeds'
	// results report under hyper.select best-val, in seed order (empty
	// under select last, where every result reports its last epoch).
	SelectedEpochs []int
	// Lo and Hi are the t interval of the mean over the seeds at 1 − Alpha
	// (tInterval; the mean itself for one seed): the plots' error bars.
	Lo, Hi float64
	// Chosen are the trials a label-free search chose (hyper.search), in
	// seed order ("lr 0.001" or "lr 0.001, batch 8"); empty without one.
	Chosen []string
	// ChoiceCost is, per seed of a searched cell, what choosing without a
	// label cost: the highest test accuracy among its trials that did not
	// diverge minus the chosen trial's (≥ 0). The trials' test accuracies
	// are recorded for the reader and read here alone, never by the choice
	// (a choice that read labels would not be label-free); empty without a search.
	ChoiceCost []float64
	// AtEnd is the seeds whose choice sits at an end of their search
	// (SearchEnd): their method was cut off there, not tuned.
	AtEnd int
	// Instances is the training instances visited by the run (the fewest
	// over the seeds; 0 when the results do not say): with Steps, the
	// budget, so that methods are compared at equal work.
	Instances int64
	// Passes is Instances over the training points: how many times the run
	// went over its data (0 when the results do not say).
	Passes float64
}

// Slot is a (method, bag size) position of a table.
type Slot struct {
	Method  string
	BagSize int
}

// Table is one table of the report, in the paper's layout: the results of
// one spec, learner, model, data set and protocol (TableKey), methods × bag
// sizes.
type Table struct {
	grid.TableKey
	Methods  []string
	BagSizes []int
	Ours     map[Slot]Stat
	// Paper holds the paper's numbers for the same model, data set and
	// protocol (Tables 1–4), when the setting matches; PaperTable is the
	// table's LaTeX label.
	Paper      map[Slot]paper.Entry
	PaperTable string
	// Settings holds, per method, the configuration of one of its cells
	// (the hyperparameters are the same at every bag size unless an
	// override says otherwise).
	Settings map[string]experiments.Config
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
	// Paired is the table's paired comparison (pairedTable);
	// PairedErr says why there is none when its cells cannot be paired.
	Paired    []PairedRow
	PairedErr string
}

// BuildTables groups results into tables and aggregates seeds: one table
// per (spec, learner, model, data set, protocol), a cell in the table of
// every spec it belongs to (Result.SpecNames). Within a table each slot
// must hold results of one configuration (up to the seed), and the cells
// must be comparable (Tables); otherwise the error names both
// keys. entries are the paper's numbers (paper.Entries), attached where
// model, data set and protocol ("paper") match.
func BuildTables(results []*grid.Result, entries []paper.Entry) ([]*Table, error) {
	return buildTables(results, entries, nil, "")
}

// buildTables is BuildTables; from, when not nil, names the stores that
// hold each key, for the errors (Collection.From).
func buildTables(results []*grid.Result, entries []paper.Entry, from map[string][]string, metric string) ([]*Table, error) {
	if _, ok := reportMetrics[metric]; !ok && metric != "" {
		return nil, fmt.Errorf("metric %q: want one of %s", metric, strings.Join(ReportMetrics(), ", "))
	}
	cells, err := grid.Tables(results, from)
	if err != nil {
		return nil, err
	}
	// Aggregate in seed order so the output does not depend on file order.
	byKey := map[string]*grid.Result{}
	for _, r := range results {
		byKey[r.Key] = r
	}
	var out []*Table
	for _, tc := range cells {
		t := newTable(tc)
		t.Metric = tableMetric(t, byKey, metric)
		for s, st := range t.Ours {
			var err error
			if t.Ours[s], err = aggregate(st, byKey, t.Metric); err != nil {
				return nil, err
			}
			if !slices.Contains(t.Methods, s.Method) {
				t.Methods = append(t.Methods, s.Method)
			}
			if !slices.Contains(t.BagSizes, s.BagSize) {
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
		sort.Slice(t.Methods, func(i, j int) bool {
			return experiments.MethodRank(t.Methods[i]) < experiments.MethodRank(t.Methods[j])
		})
		if t.Paired, err = pairedTable(t, byKey); err != nil {
			t.Paired, t.PairedErr = nil, err.Error()
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Title() < out[j].Title() })
	return out, nil
}

// newTable is the table of cells tc before its seeds are aggregated: each
// slot's seeds and keys, each method's settings, the code versions, devices
// and normalization of its cells.
func newTable(tc grid.TableCells) *Table {
	t := &Table{TableKey: tc.Key, Ours: map[Slot]Stat{}, Paper: map[Slot]paper.Entry{}, Settings: map[string]experiments.Config{}, Versions: map[string]int{}, Devices: map[string]int{}}
	for _, r := range tc.Results {
		c := r.Config
		if _, ok := t.Settings[c.Method]; !ok {
			t.Settings[c.Method] = c
		}
		s := Slot{c.Method, c.BagSize}
		st := t.Ours[s]
		st.Seeds = append(st.Seeds, r.Seed)
		st.Keys = append(st.Keys, r.Key)
		st.BatchSize = c.Hyper.BatchSize
		st.N++
		t.Ours[s] = st
		t.Versions[versionLabel(r.Provenance)]++
		t.Devices[deviceLabel(r.Metrics.Device)]++
		t.Normalization = c.Normalize
	}
	return t
}

// tableMetric is the metric table t shows: metric, or for the default
// ("", test accuracy) on a table none of whose cells had a labelled test
// split, the training bags' proportion error (a report of a grid over
// bag-only sets with and without a test split was once refused whole).
func tableMetric(t *Table, byKey map[string]*grid.Result, metric string) string {
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
func versionLabel(p grid.Provenance) string {
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
func aggregate(st Stat, byKey map[string]*grid.Result, metric string) (Stat, error) {
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
	_, st.Lo, st.Hi = tInterval(xs, Alpha)
	st.SelectedEpochs = nil
	st.Chosen, st.ChoiceCost, st.AtEnd = nil, nil, 0
	for i, key := range keys {
		m := byKey[key].Metrics
		steps := m.StepsPerEpoch * m.Epochs
		if m.Steps > 0 {
			steps = int(m.Steps)
		}
		if i == 0 || steps < st.Steps {
			st.Steps, st.StepsPerEpoch = steps, m.StepsPerEpoch
		}
		if i == 0 || m.InstanceEpochs < st.Instances {
			st.Instances = m.InstanceEpochs
			if m.TrainPoints > 0 {
				st.Passes = float64(m.InstanceEpochs) / float64(m.TrainPoints)
			}
		}
		if s := m.Search; s != nil && s.Chosen >= 0 && s.Chosen < len(s.Trials) {
			st.Chosen = append(st.Chosen, trialText(s.Trials[s.Chosen], byKey[key].Config.Hyper.Search))
			if SearchEnd(s, byKey[key].Config.Hyper.Search) != "" {
				st.AtEnd++
			}
			if metric == "" || metric == MetricTestAccuracy {
				// a table of another metric (bag-only data has no test
				// labels) has no accuracy to say the choice cost
				st.ChoiceCost = append(st.ChoiceCost, choiceCost(s))
			}
		}
		if m.SelectedEpoch != nil {
			st.SelectedEpochs = append(st.SelectedEpochs, *m.SelectedEpoch)
		}
	}
	return st, nil
}

// choiceCost is the highest test accuracy among s's trials that did not
// diverge minus the chosen trial's: what the label-free choice cost this
// cell, measured with the test labels after the fact (Stat.ChoiceCost).
func choiceCost(s *experiments.SearchRecord) float64 {
	best := s.Trials[s.Chosen].TestAccuracy
	for _, t := range s.Trials {
		if t.Diverged == "" && t.TestAccuracy > best {
			best = t.TestAccuracy
		}
	}
	return best - s.Trials[s.Chosen].TestAccuracy
}

// deviceLabel names the device of a result for the report ("" is the CPU:
// results written before devices existed ran there).
func deviceLabel(d string) string {
	if d == "" {
		return "cpu"
	}
	return d
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

// trialText names a search's trial by what the search varied: its rate,
// and its minibatch when the search tried several.
func trialText(t experiments.Trial, s *experiments.Search) string {
	if s != nil && len(s.BatchSize) > 1 {
		return fmt.Sprintf("lr %g, batch %d", t.LR, t.BatchSize)
	}
	return fmt.Sprintf("lr %g", t.LR)
}
