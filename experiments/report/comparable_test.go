package report

import (
	"strings"
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/training/methods"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func tableCell(method string, bag int, seed int64, edit func(*experiments.Config)) *grid.Result {
	c := experiments.Config{Learner: "gorgonia", Normalize: "standardize", Dataset: "fashion-mnist", Model: "mlp", Method: method,
		Protocol: "paper", BagSize: bag, NumPoints: 40960, Seed: seed,
		Hyper: experiments.Hyper{Epochs: 10, Optimizer: "adam", LR: 1e-3, BatchSize: 128, Schedule: experiments.Schedule{Kind: "constant"}, RegroupEvery: 5}}
	if !experiments.CountsInstances(method) {
		c.Hyper.BatchSize, c.Hyper.RegroupEvery = 2, 0
	}
	if edit != nil {
		edit(&c)
	}
	steps := 40960 / c.Hyper.BatchSize
	if !experiments.CountsInstances(method) {
		steps = 40960 / bag / c.Hyper.BatchSize
	}
	return &grid.Result{Format: grid.ResultFormat, Key: c.Key(), Spec: "fashion-mnist", Seed: seed, Config: c,
		Metrics: experiments.Metrics{TestAccuracy: 0.8, Epochs: c.Hyper.Epochs, StepsPerEpoch: steps}}
}

// oneTable builds the report of rs, which must make one table, and
// returns its Markdown.
func oneTable(t *testing.T, rs []*grid.Result) string {
	t.Helper()
	tables, err := BuildTables(rs, nil)
	require.NoError(t, err)
	require.Len(t, tables, 1)
	var sb strings.Builder
	tables[0].Markdown(&sb)
	return sb.String()
}

// Cells that differ only in the grid's axes and the per-method settings share
// a table; any other difference is refused naming the field and both cells.
func TestReportRefusesIncomparableCells(t *testing.T) {
	ok := []*grid.Result{tableCell("kl", 32, 0, nil), tableCell("kl", 2048, 1, nil),
		tableCell("llpfc-uniform", 32, 0, nil), tableCell("llpfc-uniform", 2048, 0, nil)}
	_, err := BuildTables(ok, nil)
	require.NoError(t, err, "batch size and regrouping differ by method only")
	// the newer methods bring their authors' optimizer and rate
	ok = append(ok, tableCell("mixbag", 32, 0, func(c *experiments.Config) { c.Hyper.LR, c.Hyper.BatchSize = 3e-4, 32 }),
		tableCell("easyllp", 32, 0, func(c *experiments.Config) {
			c.Hyper.Optimizer, c.Hyper.LR, c.Hyper.Momentum, c.Hyper.WeightDecay, c.Hyper.Flood = "nesterov", 1e-4, 0.9, 5e-5, 0.3
		}))
	_, err = BuildTables(ok, nil)
	require.NoError(t, err, "a newer method's authors' optimizer and rate are its own")
	for _, tc := range []struct {
		name  string
		bad   *grid.Result
		field string
	}{
		{"normalization of one method", tableCell("llpfc-uniform", 512, 0, func(c *experiments.Config) { c.Normalize = "none" }), "normalize"},
		{"epochs of another method", tableCell("llpvat", 512, 0, func(c *experiments.Config) { c.Hyper.Epochs = 2 }), "hyper.epochs"},
		{"learning rate within a method", tableCell("kl", 512, 0, func(c *experiments.Config) { c.Hyper.LR = 0.1 }), "hyper.lr"},
		{"batch within a method at one bag size", tableCell("kl", 32, 1, func(c *experiments.Config) { c.Hyper.BatchSize = 4 }), "hyper.batch_size"},
		{"another per-method setting within a method across bag sizes", tableCell("llpfc-uniform", 512, 0, func(c *experiments.Config) { c.Hyper.RegroupEvery = 7 }), "hyper.regroup_every"},
		{"points", tableCell("llpfc-approx", 512, 0, func(c *experiments.Config) { c.NumPoints = 20480 }), "num_points"},
		{"an older method's optimizer beside a newer method", tableCell("llpfc-approx", 512, 0, func(c *experiments.Config) { c.Hyper.Optimizer = "sgd" }), "hyper.optimizer"},
		{"a newer method's epochs", tableCell("mixbag", 512, 0, func(c *experiments.Config) { c.Hyper.Epochs = 2 }), "hyper.epochs"},
	} {
		_, err := BuildTables(append(append([]*grid.Result(nil), ok...), tc.bad), nil)
		require.Error(t, err, tc.name)
		assert.Contains(t, err.Error(), tc.field, tc.name)
		assert.Contains(t, err.Error(), tc.bad.Key, tc.name)
		assert.Contains(t, err.Error(), "not comparable", tc.name)
	}
}

// A method's minibatch may differ between bag sizes (a step-matched grid's
// minibatches of bags), and the report then states it per bag size rather
// than the first cell's for all.
func TestReportStatesAMinibatchPerBagSize(t *testing.T) {
	rs := []*grid.Result{tableCell("kl", 32, 0, nil), tableCell("kl", 512, 0, func(c *experiments.Config) { c.Hyper.BatchSize = 1 }),
		tableCell("llpfc-uniform", 32, 0, nil), tableCell("llpfc-uniform", 512, 0, nil)}
	md := oneTable(t, rs)
	assert.Contains(t, md, "(constant), batch 2 bags (bag 32), 1 bag (bag 512);")
	assert.Contains(t, md, "(constant), batch 128 instances,", "a minibatch the cells share is stated once")
}

// A bag-level baseline's cell with fewer than MinSteps optimizer steps in the
// whole run is marked † with a footnote; LLPFC's cells never are; the note
// lists the steps per epoch by bag size and the inputs' normalization.
func TestReportMarksFewSteps(t *testing.T) {
	rs := []*grid.Result{tableCell("kl", 32, 0, nil), tableCell("kl", 2048, 0, nil), tableCell("kl", 4096, 0, nil),
		tableCell("llpfc-uniform", 32, 0, nil), tableCell("llpfc-uniform", 4096, 0, nil)}
	md := oneTable(t, rs)
	assert.Contains(t, md, "| KL | 0.8000 ± 0.0000 | 0.8000 ± 0.0000 | 0.8000 ± 0.0000 † |",
		"bag 2048: 10 steps per epoch × 10 epochs = 100, not below 100; bag 4096: 5 × 10 = 50")
	assert.Contains(t, md, "| LLPFC-uniform | 0.8000 ± 0.0000 | — | 0.8000 ± 0.0000 |")
	assert.Contains(t, md, "† fewer than 100 optimizer steps")
	assert.Contains(t, md, "optimizer steps per epoch 640 (bag 32), 10 (bag 2048), 5 (bag 4096)")
	assert.Contains(t, md, "optimizer steps per epoch 320 (bag 32), 320 (bag 4096)")
	assert.Contains(t, md, "Inputs: standardize")
}

// TestNewerMethodsTakeAllBagsWhenFewer: a minibatch of more bags than a cell
// has is refused for the older bag methods (a mistake in a spec) but is one
// minibatch of every bag for the newer methods, as the authors' DataLoader
// makes MixBag's 32 of 20 bags at bag size 2048.
func TestNewerMethodsTakeAllBagsWhenFewer(t *testing.T) {
	for _, m := range []string{"kl", "easyllp", "mixbag", "llppvc"} {
		c := tableCell(m, 2048, 0, func(c *experiments.Config) { c.Hyper.BatchSize = 32; c.NumPoints = 40960 }).Config
		if m == "easyllp" || m == "mixbag" || m == "llppvc" {
			c.Hyper.KLScale = 0
		}
		err := c.Validate()
		if m == "kl" {
			require.Error(t, err, m)
			assert.Contains(t, err.Error(), "hyper.batch_size: 32 bags, but method kl at bag size 2048 has only 20 bags")
			continue
		}
		assert.NoError(t, err, m)
	}
}

// TestReportStatesTheNewerMethodsSettings: a newer method's line states its
// own optimizer, rate, weight decay and EasyLLP's flooding level.
func TestReportStatesTheNewerMethodsSettings(t *testing.T) {
	rs := []*grid.Result{tableCell("kl", 32, 0, nil), tableCell("easyllp", 32, 0, func(c *experiments.Config) {
		c.Hyper.Optimizer, c.Hyper.LR, c.Hyper.Momentum, c.Hyper.WeightDecay, c.Hyper.Flood, c.Hyper.BatchSize = "nesterov", 1e-4, 0.9, 5e-5, 0.3, 8
		c.Hyper.KLScale = 0
	})}
	md := oneTable(t, rs)
	assert.Contains(t, md, "- EasyLLP: ")
	assert.Contains(t, md, "nesterov lr 0.0001 (constant), batch 8 bags, weight decay 5e-05, flooding b = 0.3")
}

// A method's own settings declared since declarations (hyper.settings, at
// values other than their defaults: a default is never stated) are named on
// its line of the table's settings, as flooding is.
func TestReportNamesAMethodsOwnSettings(t *testing.T) {
	rs := []*grid.Result{tableCell("sqprop", 32, 0, func(c *experiments.Config) {
		c.Hyper.Settings = methods.Values{"test_iters": methods.NumValue(7), "test_gain": methods.NumValue(0.5)}
	}), tableCell("kl", 32, 0, nil)}
	md := oneTable(t, rs)
	assert.Regexp(t, `(?m)^- SqProp: .*, test_gain 0\.5, test_iters 7`, md)
	assert.NotRegexp(t, `(?m)^- KL: .*test_`, md)
}
