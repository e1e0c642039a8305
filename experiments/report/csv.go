package report

import (
	"encoding/csv"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/llpfc/llpfc/experiments/grid"
)

// CSVColumns are the columns of WriteCSV, in order: the cell (spec, key,
// learner, data set, model, method, protocol, bag size, points, epochs,
// seed), its outcome (test accuracy, macro-F1, AUC, the training bags'
// proportion error, the selected epoch and its validation KL, the final
// loss) and where and how fast it ran (device, code version, wall seconds,
// training instances per second).
var CSVColumns = []string{
	"spec", "key", "learner", "dataset", "model", "method", "protocol", "bag_size", "num_points", "epochs", "seed",
	"test_accuracy", "macro_f1", "auc", "bag_proportion_error", "selected_epoch", "val_kl", "final_loss",
	"device", "code_version", "wall_seconds", "train_images_per_second",
}

// WriteCSV writes one row per cell and spec of results in long format
// (`llpfc report --csv`, for pandas), sorted by spec, data set,
// model, method, bag size and seed; a metric a cell did not record (older
// results, learners without it) is an empty field.
func WriteCSV(w io.Writer, results []*grid.Result) error {
	type row struct {
		spec string
		r    *grid.Result
	}
	var rows []row
	for _, r := range results {
		specs := r.SpecNames()
		if len(specs) == 0 {
			specs = []string{""}
		}
		for _, s := range specs {
			rows = append(rows, row{s, r})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		ka := []string{a.spec, a.r.Config.Dataset, a.r.Config.Model, a.r.Config.Method}
		kb := []string{b.spec, b.r.Config.Dataset, b.r.Config.Model, b.r.Config.Method}
		if c := strings.Compare(strings.Join(ka, "\x00"), strings.Join(kb, "\x00")); c != 0 {
			return c < 0
		}
		if a.r.Config.BagSize != b.r.Config.BagSize {
			return a.r.Config.BagSize < b.r.Config.BagSize
		}
		return a.r.Seed < b.r.Seed
	})
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVColumns); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, x := range rows {
		c, m := x.r.Config, x.r.Metrics
		var f1, auc, sel, val string
		if m.Scores != nil {
			f1 = f(m.Scores.MacroF1)
			if m.Scores.AUC != nil {
				auc = f(*m.Scores.AUC)
			}
		}
		if m.SelectedEpoch != nil {
			sel = strconv.Itoa(*m.SelectedEpoch)
		}
		if m.ValKL != nil {
			val = f(*m.ValKL)
		}
		testAcc := "" // no test split: no accuracy (Metrics.HasTest)
		if m.HasTest() {
			testAcc = f(m.TestAccuracy)
		}
		bagErr := ""
		if m.BagProportionError != 0 {
			bagErr = f(m.BagProportionError)
		}
		rec := []string{x.spec, x.r.Key, c.Learner, c.Dataset, c.Model, c.Method, c.Protocol, strconv.Itoa(c.BagSize),
			strconv.Itoa(c.NumPoints), strconv.Itoa(m.Epochs), strconv.FormatInt(x.r.Seed, 10),
			testAcc, f1, auc, bagErr, sel, val, f(m.FinalLoss),
			deviceLabel(m.Device), versionLabel(x.r.Provenance), f(m.WallSeconds), f(m.TrainImagesPerSecond)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
