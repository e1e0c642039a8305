package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTrainPresetIsTheTableCell ("one definition per table cell"): for
// every cell of every paper table, at one bag size,
// `llpfc train --preset T --data D --method M --bag-size B --seed S` builds
// exactly the configuration the grid runs for that cell — the same
// experiments.Config, so the same key and the same training configuration
// (learn.TrainingConfig) — without reading any data.
func TestTrainPresetIsTheTableCell(t *testing.T) {
	for _, table := range []string{"wrn16-4", "resnet18", "vgg16", "llpgan", "fashion-mnist", "quick"} {
		spec, ok := grid.BuiltinSpec(table)
		require.True(t, ok, table)
		for _, ds := range spec.Datasets {
			for _, m := range spec.Methods {
				bag := spec.BagSizes[len(spec.BagSizes)/2]
				name := fmt.Sprintf("%s/%s/%s", table, ds, m)
				cell, err := grid.PresetCell(table, ds, m, bag, 3)
				require.NoError(t, err, name)
				r, status := parseTrain([]string{"--preset", table, "--data", ds, "--method", m,
					"--bag-size", fmt.Sprint(bag), "--seed", "3"}, io.Discard)
				require.NotNil(t, r, "%s: status %d", name, status)
				assert.Equal(t, cell, r.cell, name)
				assert.Equal(t, cell.Key(), r.cell.Key(), name)
			}
		}
	}
	// A flag given explicitly wins over the cell.
	r, _ := parseTrain([]string{"--preset", "wrn16-4-cifar", "--data", "cifar10", "--method", "kl", "--bag-size", "32", "--lr", "0.1", "--epochs", "3"}, io.Discard)
	require.NotNil(t, r)
	assert.Equal(t, 0.1, r.cell.Hyper.LR)
	assert.Equal(t, 3, r.cell.Hyper.Epochs)
	assert.Equal(t, "nesterov", r.cell.Hyper.Optimizer, "the rest is the cell's")
	var stderr strings.Builder
	r, status := parseTrain([]string{"--preset", "wrn16-4", "--data", "mnist", "--method", "kl"}, &stderr)
	assert.Nil(t, r)
	assert.Equal(t, exitBadUsage, status)
	assert.Contains(t, stderr.String(), "--preset: preset wrn16-4 has no data set mnist")
}

// TestTrainResultIsTheGridCellResult (one description of a run,
// one code path): `llpfc train --preset quick … --json` and the grid's
// runner, for the quick table's LLPFC-uniform and KL cells cut to 640 points
// and one epoch, give the same result JSON — the same key, the same config
// object and the same metrics object (every field but the three that measure
// the machine: wall time, throughput, peak RSS), field for field, bit for
// bit. The grid's side is the cell file the runner stores.
func TestTrainResultIsTheGridCellResult(t *testing.T) {
	machine := []string{"wall_seconds", "train_images_per_second", "peak_rss_bytes"}
	for _, method := range []string{"llpfc-uniform", "kl"} {
		spec, ok := grid.BuiltinSpec("quick")
		require.True(t, ok)
		spec.Methods, spec.BagSizes, spec.Seeds, spec.NumPoints, spec.Hyper.Epochs = []string{method}, []int{64}, []int64{0}, 640, 1
		store, err := grid.OpenStore(t.TempDir())
		require.NoError(t, err)
		sum, err := (&grid.Runner{Store: store}).Run(context.Background(), spec)
		require.NoError(t, err, method)
		require.Equal(t, 1, sum.Finished, "%s: %v", method, sum.Failed)
		cells, err := spec.Cells()
		require.NoError(t, err)
		stored, err := os.ReadFile(filepath.Join(store.Dir, "cells", cells[0].Key+".json"))
		require.NoError(t, err)
		var grid map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(stored, &grid))
		var gridMetrics map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(grid["metrics"], &gridMetrics))

		code, out, errOut := runTrainCmd("--data", "fixture", "--preset", "quick", "--method", method, "--bag-size", "64",
			"--num-points", "640", "--epochs", "1", "--seed", "0", "--json", "--quiet")
		require.Equal(t, exitOK, code, errOut)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		var train map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &train))

		assert.JSONEq(t, string(grid["key"]), string(train["key"]), "%s: key", method)
		assert.JSONEq(t, string(grid["config"]), string(train["config"]), "%s: config", method)
		for _, k := range machine {
			assert.Contains(t, train, k, "%s: train reports %s", method, k)
			delete(gridMetrics, k)
		}
		if method == "llpfc-uniform" {
			require.NotEmpty(t, gridMetrics["regroupings"], "the groups are compared too")
		}
		for k, v := range gridMetrics {
			require.Contains(t, train, k, "%s: metrics.%s", method, k)
			assert.JSONEq(t, string(v), string(train[k]), "%s: metrics.%s, grid cell vs train", method, k)
		}
		for k := range train {
			_, shared := gridMetrics[k]
			assert.True(t, shared || slices.Contains(append(machine, "key", "config", "num_bags", "settings"), k),
				"%s: train's field %s is neither the grid cell's nor one of train's own", method, k)
		}
	}
}
