package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateCells = flag.Bool("update-cells", false, "rewrite testdata/table-cells.golden.json")

//go:generate go test -count=1 -run ^TestTableCellsGolden$ -update-cells

// Every setting pinned: `reproduce --table T --dry-run --json` prints every cell's full
// configuration, and a golden file pins, for every table, the first cell of
// each method (seed 0, the smallest bag size): any change of a table's
// settings — a learning rate, a schedule, the KL scale, ε, augmentation, the
// normalization — shows here and must be made on purpose
// (go test ./cmd/llpfc -run TestTableCellsGolden -update-cells).
func TestTableCellsGolden(t *testing.T) {
	golden := map[string][]json.RawMessage{}
	for _, grid := range []string{"quick", "fashion-mnist", "fashion-mnist-shuffle", "wrn16-4", "resnet18", "vgg16", "llpgan"} {
		args := []string{"reproduce", "--dry-run", "--json", "--results", filepath.Join(t.TempDir(), "none")}
		if grid != "quick" {
			args = append(args, "--table", grid)
		}
		var out, errb bytes.Buffer
		require.Equal(t, exitOK, dispatch(args, &out, &errb), errb.String())
		var cells []struct {
			Key    string          `json:"key"`
			Config json.RawMessage `json:"config"`
		}
		require.NoError(t, json.Unmarshal(out.Bytes(), &cells), grid)
		require.NotEmpty(t, cells, grid)
		seen := map[string]bool{}
		for _, c := range cells {
			var cfg struct {
				Method string `json:"method"`
			}
			require.NoError(t, json.Unmarshal(c.Config, &cfg))
			if !seen[cfg.Method] { // cells come seed-major, smallest bag size first
				seen[cfg.Method] = true
				golden[grid] = append(golden[grid], c.Config)
			}
		}
	}
	got, err := json.MarshalIndent(golden, "", "  ")
	require.NoError(t, err)
	got = append(got, '\n')
	path := filepath.Join("testdata", "table-cells.golden.json")
	if *updateCells {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./cmd/llpfc -run TestTableCellsGolden -update-cells to create it")
	assert.Equal(t, string(want), string(got), "a table's cells changed; if on purpose, rerun with -update-cells")
}

// --model cnn runs the Fashion-MNIST tables with the cnn: every
// cell's model is cnn, every other setting as the mlp table's.
func TestReproduceFashionModelFlag(t *testing.T) {
	run := func(extra ...string) []map[string]any {
		var out, errb bytes.Buffer
		args := append([]string{"reproduce", "--table", "fashion-mnist", "--dry-run", "--json", "--results", filepath.Join(t.TempDir(), "none")}, extra...)
		require.Equal(t, exitOK, dispatch(args, &out, &errb), errb.String())
		var cells []map[string]any
		require.NoError(t, json.Unmarshal(out.Bytes(), &cells))
		return cells
	}
	mlp, cnn := run(), run("--model", "cnn")
	require.Len(t, cnn, len(mlp))
	for i := range cnn {
		c, m := cnn[i]["config"].(map[string]any), mlp[i]["config"].(map[string]any)
		assert.Equal(t, "cnn", c["model"])
		c["model"] = "mlp"
		assert.Equal(t, m, c, "cell %d: only the model differs", i)
	}
}
