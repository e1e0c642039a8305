package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/training"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func f64(v float64) *float64 { return &v }

// TestSelectionReadsNoLabel: the search chooses the trial with
// the lowest validation KL of the held-out bags, whatever the trials' test
// accuracies say (here they rank the trials the other way round), skips
// diverged trials (no score) and says −1 when every trial diverged.
func TestSelectionReadsNoLabel(t *testing.T) {
	trials := []experiments.Trial{
		{LR: 1e-4, ValKL: f64(0.50), TestAccuracy: 0.90},
		{LR: 3e-4, ValKL: f64(0.31), TestAccuracy: 0.40},
		{LR: 1e-3, Diverged: "epoch 0 step 3: loss is NaN", TestAccuracy: 0.95},
		{LR: 3e-3, ValKL: f64(0.31), TestAccuracy: 0.10},
		{LR: 1e-2, ValKL: f64(0.45), TestAccuracy: 0.99},
	}
	assert.Equal(t, 1, selectTrial(trials), "the lowest validation KL, the first of equal ones")
	assert.Equal(t, -1, selectTrial([]experiments.Trial{{Diverged: "x"}, {Diverged: "y"}}))
}

// searchCell is miniCell with a search over two rates, a quarter of the
// bags held out.
func searchCell(method string) experiments.Cell {
	c := miniCell(method)
	c.Config.Hyper.Epochs = 2
	c.Config.Hyper.ValBags = 0.25
	c.Config.Hyper.LR = 0
	c.Config.Hyper.Search = &experiments.Search{LR: []float64{1e-4, 3e-2}}
	c.Key = c.Config.Key()
	return c
}

// TestSearchReportsTheChosenTrial: a searched cell runs each trial on the
// same bags, records every trial's validation score, and reports the chosen
// one — whose accuracy, loss and steps are exactly those of the same
// configuration run as a plain cell (the oracle: RunCell without a search).
func TestSearchReportsTheChosenTrial(t *testing.T) {
	cell := searchCell("llpfc-uniform")
	require.NoError(t, cell.Config.Validate())
	prob, err := LoadProblem(cell)
	require.NoError(t, err)
	run, err := RunCell(context.Background(), cell, prob, RunOptions{})
	require.NoError(t, err)
	s := run.Metrics.Search
	require.NotNil(t, s)
	require.Len(t, s.Trials, 2)
	assert.Equal(t, SearchRule, s.Rule)
	for _, tr := range s.Trials {
		require.NotNil(t, tr.ValKL, "lr %g", tr.LR)
		assert.Equal(t, 64, tr.BatchSize)
		assert.Positive(t, tr.Steps)
	}
	assert.Equal(t, selectTrial(s.Trials), s.Chosen)
	chosen := s.Trials[s.Chosen]

	plain, err := RunCell(context.Background(), trialCell(cell, chosen.LR, 0), prob, RunOptions{})
	require.NoError(t, err)
	assert.Equal(t, plain.Metrics.TestAccuracy, run.Metrics.TestAccuracy)
	assert.Equal(t, plain.Metrics.FinalLoss, run.Metrics.FinalLoss)
	assert.Equal(t, *plain.Metrics.ValKL, *chosen.ValKL)
	assert.Equal(t, plain.Metrics.Steps, run.Metrics.Steps)
	assert.Equal(t, plain.Metrics.BagsDigest, run.Metrics.BagsDigest)
	assert.InDelta(t, s.Trials[0].WallSeconds+s.Trials[1].WallSeconds, run.Metrics.WallSeconds, 1e-9, "the search's wall time")
}

// TestMethodsOfASeedSeeTheSameBags: within a seed every method
// trains on the same bags (and holds out the same ones), so a report may
// pair their accuracies; another seed draws other bags.
func TestMethodsOfASeedSeeTheSameBags(t *testing.T) {
	digest := func(method string, seed int64) string {
		c := miniCell(method)
		c.Config.Seed = seed
		c.Config.Hyper.Epochs, c.Config.Hyper.ValBags = 1, 0.25
		c.Key = c.Config.Key()
		prob, err := LoadProblem(c)
		require.NoError(t, err)
		run, err := RunCell(context.Background(), c, prob, RunOptions{})
		require.NoError(t, err)
		require.NotEmpty(t, run.Metrics.BagsDigest)
		return run.Metrics.BagsDigest
	}
	a := digest("llpfc-uniform", 7)
	assert.Equal(t, a, digest("kl", 7), "two methods, one seed")
	assert.NotEqual(t, a, digest("llpfc-uniform", 8), "another seed")
}

// TestObjectiveDiagnosticsInTheCell: a bag objective's
// diagnostics reach the cell's Metrics: EasyLLP flooded at a level above
// any loss it can reach reverses every step (share 1), unflooded none; the
// objective's steps are the run's; its soft labels k·α − (k−1)·p of bags of
// 16 reach below 0 (the bags' proportions are sparse); a method whose
// objective counts nothing (KL) records none.
func TestObjectiveDiagnosticsInTheCell(t *testing.T) {
	run := func(method string, flood float64) experiments.Metrics {
		c := miniCell(method)
		c.Config.Hyper.Epochs, c.Config.Hyper.Flood = 1, flood
		if method == "easyllp" {
			c.Config.Hyper.BatchSize = 4
		}
		c.Key = c.Config.Key()
		prob, err := LoadProblem(c)
		require.NoError(t, err)
		r, err := RunCell(context.Background(), c, prob, RunOptions{})
		require.NoError(t, err)
		return r.Metrics
	}
	m := run("easyllp", 1000)
	require.NotNil(t, m.Objective)
	assert.Equal(t, 1.0, m.Objective.FloodedShare)
	assert.Equal(t, m.Steps, int64(m.Objective.Steps))
	assert.Less(t, m.Objective.SoftMin, 0.0)
	assert.Greater(t, m.Objective.SoftNegativeShare, 0.0)
	assert.Greater(t, m.Objective.MeanLoss, m.Objective.MeanRawLoss, "flooded: 2b − L above L")
	plain := run("easyllp", 0)
	assert.Zero(t, plain.Objective.FloodedShare)
	assert.Equal(t, plain.Objective.MeanLoss, plain.Objective.MeanRawLoss)
	assert.Nil(t, run("kl", 0).Objective)
}

// TestSearchRecordsEveryDivergence: a trial whose network blows up is
// recorded as diverged and not chosen — whether its loss goes non-finite
// before an update or a finite update leaves the network's outputs
// non-finite when the held-out bags are scored (once a search stopped there,
// losing the cell) — while an error of another kind stops the search.
func TestSearchRecordsEveryDivergence(t *testing.T) {
	for name, err := range map[string]error{
		"loss":    fmt.Errorf("epoch 2 step 3: %w", &training.NonFiniteError{What: "loss", Value: math.NaN()}),
		"outputs": fmt.Errorf("epoch 2: validation: %w", &training.NonFiniteOutputError{Row: 7, Probs: []float64{math.NaN()}}),
	} {
		assert.True(t, diverged(err), name)
	}
	assert.False(t, diverged(errors.New("open data: no such file")))
	assert.False(t, diverged(nil))

	// End to end: a rate that sends the weights to infinity in its first
	// steps; the search keeps the other trial.
	// One epoch of one step (every bag in one minibatch): the blown-up
	// network is first seen when the held-out bags are scored.
	cell := searchCell("kl")
	cell.Config.Hyper.Epochs = 1
	cell.Config.Hyper.BatchSize = 96 // the 128 bags less the 32 held out
	cell.Config.Hyper.Search = &experiments.Search{LR: []float64{1e-3, 1e36}}
	cell.Key = cell.Config.Key()
	prob, err := LoadProblem(cell)
	require.NoError(t, err)
	run, err := RunCell(context.Background(), cell, prob, RunOptions{})
	require.NoError(t, err)
	s := run.Metrics.Search
	require.Len(t, s.Trials, 2)
	assert.Empty(t, s.Trials[0].Diverged)
	assert.Contains(t, s.Trials[1].Diverged, "not finite", "lr 1e36: caught when the held-out bags are scored")
	assert.Equal(t, 0, s.Chosen)
}
