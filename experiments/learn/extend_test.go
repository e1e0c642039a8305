package learn

import (
	"context"
	"slices"
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNextRate holds the extension rule to hand-built searches on both
// sides of each end: a choice at the lowest rate goes one rung down the
// ladder {1, 3}×10^k, at the highest one rung up, inside stays, a limit
// stops it, and a search whose every trial diverged goes down.
func TestNextRate(t *testing.T) {
	ext := &experiments.Search{LR: []float64{1e-4, 3e-4, 1e-3, 3e-3}, Extend: &experiments.SearchExtend{Min: 1e-5, Max: 1e-2}}
	trials := func(best float64, lrs ...float64) []experiments.Trial {
		var out []experiments.Trial
		for _, lr := range lrs {
			kl := 1.0
			if lr == best {
				kl = 0.5
			}
			out = append(out, experiments.Trial{LR: lr, ValKL: f64(kl)})
		}
		return out
	}
	grid := []float64{1e-4, 3e-4, 1e-3, 3e-3}
	for _, c := range []struct {
		name   string
		trials []experiments.Trial
		want   float64 // 0: stop
	}{
		{"low end goes down", trials(1e-4, grid...), 3e-5},
		{"high end goes up", trials(3e-3, grid...), 1e-2},
		{"inside stays", trials(3e-4, grid...), 0},
		{"inside, next to the high end", trials(1e-3, grid...), 0},
		{"down again from an extended end", trials(3e-5, append(grid, 3e-5)...), 1e-5},
		{"the lower limit stops it", trials(1e-5, append(grid, 3e-5, 1e-5)...), 0},
		{"the upper limit stops it", trials(1e-2, append(grid, 1e-2)...), 0},
		{"an extension that lost returns inside", trials(1e-4, append(grid, 3e-5)...), 0},
		{"every trial diverged: down", []experiments.Trial{{LR: 1e-4, Diverged: "x"}, {LR: 3e-3, Diverged: "y"}}, 3e-5},
	} {
		lr, ok := nextRate(c.trials, ext)
		if c.want == 0 {
			assert.False(t, ok, "%s: got %g", c.name, lr)
			continue
		}
		assert.True(t, ok, c.name)
		assert.Equal(t, c.want, lr, c.name)
	}
	noExt := *ext
	noExt.Extend = nil
	_, ok := nextRate(trials(1e-4, grid...), &noExt)
	assert.False(t, ok, "a search without Extend never extends")
}

// TestLadderStep: the ladder's rungs, written as their literals, and a
// rate off the ladder refused.
func TestLadderStep(t *testing.T) {
	for _, c := range []struct {
		lr   float64
		down bool
		want float64
	}{{1e-4, true, 3e-5}, {3e-5, true, 1e-5}, {3e-3, false, 1e-2}, {1e-2, false, 3e-2}, {1, true, 0.3}, {0.3, false, 1}, {3e-3, true, 1e-3}} {
		got, ok := experiments.LadderStep(c.lr, c.down)
		require.True(t, ok, "%g", c.lr)
		assert.Equal(t, c.want, got, "%g down=%v", c.lr, c.down)
	}
	for _, lr := range []float64{2e-4, 5e-3, 0, -1e-3} {
		_, ok := experiments.LadderStep(lr, true)
		assert.False(t, ok, "%g is off the ladder", lr)
	}
}

// TestSearchExtendsPastItsEnd: a search whose grid holds one rate far too
// small for its problem goes up the ladder, trial by trial, until the
// choice sits inside what it tried or a limit stops it; the extra trials
// are marked, and the chosen trial is the lowest validation KL of them all.
func TestSearchExtendsPastItsEnd(t *testing.T) {
	cell := searchCell("llpfc-uniform")
	cell.Config.Hyper.Search = &experiments.Search{LR: []float64{1e-5}, Extend: &experiments.SearchExtend{Min: 1e-5, Max: 0.1}}
	cell.Key = cell.Config.Key()
	require.NoError(t, cell.Config.Validate())
	prob, err := LoadProblem(cell)
	require.NoError(t, err)
	run, err := RunCell(context.Background(), cell, prob, RunOptions{})
	require.NoError(t, err)
	s := run.Metrics.Search
	require.Greater(t, len(s.Trials), 1, "a choice at the end of a one-rate grid extends")
	assert.False(t, s.Trials[0].Extended)
	var lrs []float64
	for i, tr := range s.Trials {
		lrs = append(lrs, tr.LR)
		if i > 0 {
			assert.True(t, tr.Extended, "trial %d", i)
			want, _ := experiments.LadderStep(s.Trials[i-1].LR, false)
			assert.Equal(t, want, tr.LR, "trial %d climbs one rung", i)
		}
	}
	assert.Equal(t, selectTrial(s.Trials), s.Chosen)
	top := slices.Max(lrs)
	next, _ := experiments.LadderStep(top, false)
	assert.True(t, s.Trials[s.Chosen].LR < top || next > 0.1, "the search stopped with its choice %g at its end %g and room to go", s.Trials[s.Chosen].LR, top)
}

// TestSearchExtendValidation: an extension needs ends on the ladder and
// limits around the grid.
func TestSearchExtendValidation(t *testing.T) {
	for name, s := range map[string]experiments.Search{
		"an end off the ladder": {LR: []float64{2e-4, 1e-3}, Extend: &experiments.SearchExtend{Min: 1e-6, Max: 0.1}},
		"min above the grid":    {LR: []float64{1e-4, 1e-3}, Extend: &experiments.SearchExtend{Min: 3e-4, Max: 0.1}},
		"max below the grid":    {LR: []float64{1e-4, 1e-3}, Extend: &experiments.SearchExtend{Min: 1e-6, Max: 3e-4}},
		"min zero":              {LR: []float64{1e-4, 1e-3}, Extend: &experiments.SearchExtend{Min: 0, Max: 0.1}},
	} {
		c := searchCell("kl")
		c.Config.Hyper.Search = &s
		assert.ErrorContains(t, c.Config.Validate(), "hyper.search.extend", name)
	}
}

// TestCellStepBudget: a cell with hyper.steps trains exactly that many
// optimizer steps, whatever its minibatch counts (instances for LLPFC,
// bags for KL), and a spec that sets both epochs and steps, or steps for a
// learner that counts epochs, is refused.
func TestCellStepBudget(t *testing.T) {
	for _, method := range []string{"llpfc-uniform", "kl"} {
		c := miniCell(method)
		c.Config.Hyper.Epochs, c.Config.Hyper.Steps = 0, 13
		c.Key = c.Config.Key()
		require.NoError(t, c.Config.Validate(), method)
		prob, err := LoadProblem(c)
		require.NoError(t, err)
		run, err := RunCell(context.Background(), c, prob, RunOptions{})
		require.NoError(t, err, method)
		assert.Equal(t, int64(13), run.Metrics.Steps, method)
	}
	c := miniCell("kl")
	c.Config.Hyper.Steps = 13
	assert.ErrorContains(t, c.Config.Validate(), "hyper.steps", "epochs and steps")
	c.Config.Hyper.Epochs, c.Config.Learner = 0, "logreg"
	assert.ErrorContains(t, c.Config.Validate(), "hyper.steps")
}
