package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/experiments/learn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// specJSON is a valid one-cell spec of the gorgonia learner on the fixture;
// edits replace its fields.
const specJSON = `{"name": "x", "learner": "gorgonia", "model": "mlp", "datasets": ["fashion-mnist-fixture"],
 "methods": ["llpfc-uniform"], "bag_sizes": [64], "seeds": [0], "protocol": "paper", "num_points": 1024,
 "hyper": {"epochs": 1, "optimizer": "adam", "lr": 0.001, "batch_size": 128, "schedule": {"kind": "constant"}}}`

// writeSpec writes specJSON with the replacements old→new applied.
func writeSpec(t *testing.T, dir string, repl ...string) string {
	t.Helper()
	s := strings.NewReplacer(repl...).Replace(specJSON)
	p := filepath.Join(dir, "spec.json")
	require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
	return p
}

// Exit codes: spec problems that once passed validation and `run
// --list`, then failed every cell with exit status 1. Each is now bad input
// at `run --list` time (exit 2, naming the field), and `run` refuses it
// before any cell.
func TestSpecProblemsFailAtList(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "d.csv")
	require.NoError(t, os.WriteFile(csv, []byte("label,a,b\n0,1,2\n1,3,4\n0,1,1\n1,5,5\n"), 0o644))
	wide := filepath.Join(dir, "wide.libsvm")
	require.NoError(t, os.WriteFile(wide, []byte("0 1:1\n1 100000:1\n0 2:1\n1 3:1\n"), 0o644))
	old := learn.MemoryBudget
	learn.MemoryBudget = func() int64 { return 64 << 20 } // the wide file's mlp needs 800 MB
	defer func() { learn.MemoryBudget = old }()
	for _, tc := range []struct {
		name string
		repl []string
		want string
	}{
		{"unknown learner", []string{`"learner": "gorgonia"`, `"learner": "torch"`}, `learner "torch" is not registered`},
		{"logreg with mlp", []string{`"learner": "gorgonia"`, `"learner": "logreg"`}, `the logreg learner trains only model "linear"`},
		{"gmm with train=-5", []string{`"fashion-mnist-fixture"`, `"gmm:train=-5"`}, `train="-5", want a finite number ≥ 0`},
		{"cnn on CSV", []string{`"fashion-mnist-fixture"`, `"csv:` + csv + `,` + csv + `"`, `"model": "mlp"`, `"model": "cnn"`, `1024`, `64`}, `model "cnn" needs images`},
		{"more points than the data set", []string{`1024`, `640000`}, "has 60000 training points"},
		{"missing CSV file", []string{`"fashion-mnist-fixture"`, `"csv:` + filepath.Join(dir, "nope.csv") + `"`}, "nope.csv"},
		{"llpgan with mlp", []string{`"llpfc-uniform"`, `"llpgan"`, `"batch_size": 128`, `"batch_size": 1`}, "method llpgan trains its discriminator llpgan-d"},
		{"llpgan-g as a classifier", []string{`"mlp"`, `"llpgan-g"`}, `"llpgan-g" is not a classifier`},
		{"gd with gorgonia", []string{`"adam"`, `"gd"`}, `"gd"`},
		{"fewer bags than classes", []string{`"bag_sizes": [64]`, `"bag_sizes": [512]`}, "2 bags of 1024 points, fewer than the 10 classes"},
		{"augment on CSV", []string{`"fashion-mnist-fixture"`, `"csv:` + csv + `,` + csv + `"`, `1024`, `4`, `"bag_sizes": [64]`, `"bag_sizes": [1]`, `"schedule"`, `"augment": true, "schedule"`}, "hyper.augment"},
		{"model larger than memory", []string{`"fashion-mnist-fixture"`, `"libsvm:` + wide + `,` + wide + `"`, `1024`, `4`, `"bag_sizes": [64]`, `"bag_sizes": [1]`}, "model mlp on the 100000 features of data set libsvm:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := writeSpec(t, t.TempDir(), tc.repl...)
			res := filepath.Join(t.TempDir(), "res")
			for _, args := range [][]string{{"run", spec, "--list", "--results", res}, {"run", spec, "--results", res}} {
				var o, e bytes.Buffer
				assert.Equal(t, exitBadUsage, dispatch(args, &o, &e), "%v: %s", args, e.String())
				assert.Contains(t, e.String(), tc.want, "%v", args)
				assert.NotContains(t, o.String(), "todo", "%v: no listing of a refused spec", args)
				cells, _ := filepath.Glob(filepath.Join(res, "cells", "*.json"))
				assert.Empty(t, cells, "%v: a refused spec runs no cell", args)
			}
		})
	}
}

// A named data set whose files are absent is noted by `run --list` (a grid
// can be listed without its data) and refused by `run` before any cell.
func TestListNotesMissingData(t *testing.T) {
	spec := writeSpec(t, t.TempDir(), `"fashion-mnist-fixture"`, `"cifar10"`)
	empty := t.TempDir()
	var o, e bytes.Buffer
	require.Equal(t, exitOK, dispatch([]string{"run", spec, "--list", "--data-dir", empty, "--results", filepath.Join(empty, "r")}, &o, &e), e.String())
	assert.Contains(t, o.String(), "todo")
	assert.Contains(t, e.String(), "note: cifar10")
	o.Reset()
	e.Reset()
	assert.Equal(t, exitBadUsage, dispatch([]string{"run", spec, "--data-dir", empty, "--results", filepath.Join(empty, "r")}, &o, &e))
	assert.Contains(t, e.String(), "data not found, nothing was run")
}

// Messages: `run --list --print-spec` once printed the spec and
// ignored --list.
func TestListAndPrintSpecExclusive(t *testing.T) {
	var o, e bytes.Buffer
	assert.Equal(t, exitBadUsage, dispatch([]string{"run", "quick", "--list", "--print-spec"}, &o, &e))
	assert.Contains(t, e.String(), "--list and --print-spec exclude each other")
	assert.Empty(t, o.String())
}
