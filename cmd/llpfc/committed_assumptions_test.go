package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/experiments/learn"
	"github.com/llpfc/llpfc/training"
)

var updateAssumptions = flag.Bool("update-assumptions", false,
	"compute the committed cells' assumption diagnostics from their configurations (their bags, no training) and write them into results/*/cells (needs a clean checkout: the cells record the code version)")

// TestCommittedCellsCarryTheirAssumptions: every committed cell whose method
// has a measured assumption carries the checks learn.CellAssumptions
// computes from the cell's configuration alone — its bags, drawn again from
// the cell's seed, and its stored regroupings — so the diagnostics in the
// committed stores are reproducible, whether the run that trained the cell
// recorded them or -update-assumptions added them later without retraining
// (then Assumptions.Code names the code that added them).
func TestCommittedCellsCarryTheirAssumptions(t *testing.T) {
	t.Chdir("../..")
	rev, dirty := experiments.CodeVersion()
	if *updateAssumptions {
		require.False(t, dirty, "-update-assumptions on uncommitted code: the cells would record a code version that does not exist")
	}
	for _, name := range committedTables {
		dir := filepath.Join("results", name)
		if _, err := os.Stat(filepath.Join(dir, "cells")); os.IsNotExist(err) {
			continue
		}
		st := &grid.Store{Dir: dir}
		rs, err := st.All()
		require.NoError(t, err)
		for _, r := range rs {
			prob, err := learn.LoadProblem(experiments.Cell{Key: r.Key, Config: r.Config})
			require.NoError(t, err, "%s: cell %s", dir, r.Key)
			trained, _, err := training.HeldOut(r.Config.Hyper.ValBags, r.Config.Seed, prob.Bags.Bags)
			require.NoError(t, err)
			want := learn.CellAssumptions(r.Config, prob, trained, r.Metrics.Regroupings)
			if *updateAssumptions {
				if want != nil {
					want.Code = rev
				}
				r.Metrics.Assumptions = want
				require.NoError(t, st.Put(r))
				continue
			}
			got := r.Metrics.Assumptions
			if want == nil {
				assert.Nil(t, got, "%s: cell %s (%s) has no assumption to measure", dir, r.Key, r.Config.Method)
				continue
			}
			if assert.NotNil(t, got, "%s: cell %s (%s) carries no assumption diagnostics; run go test ./cmd/llpfc -run TestCommittedCellsCarryTheirAssumptions -update-assumptions", dir, r.Key, r.Config.Method) {
				assert.Equal(t, want.Checks, got.Checks, "%s: cell %s (%s)", dir, r.Key, r.Config.Method)
			}
		}
	}
}
