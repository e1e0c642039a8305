package grid_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/experiments/internal/gridtest"
)

// A store knows its specs (run refuses, before any cell trains, a spec
// whose name the store holds with other settings, as report and merge
// do). Generated edits of a spec already run into a store: settings of
// its cells (epochs, rate, optimizer, points, a method's minibatch, an
// override's) and growth that shares its tables (a seed, a bag size, a
// method, another data set), with or without another name. The oracle is
// the edit: a setting changed under the same name and data set must be
// refused naming the field, with nothing written; anything else runs. Whatever run does,
// the store's cells still make a report's tables (grid.Tables).

const fitsSpec = `{"name": "fits", "learner": "logreg", "model": "linear",
  "datasets": ["gmm:classes=3,dim=4,train=600,test=100,sep=3"],
  "methods": ["llpfc-uniform", "kl"], "bag_sizes": [8], "seeds": [1], "protocol": "paper", "num_points": 192,
  "hyper": {"epochs": 1, "optimizer": "adam", "lr": 0.05, "batch_size": 32, "schedule": {"kind": "constant"}},
  "overrides": [{"when": {"methods": ["kl"]}, "set": {"hyper": {"batch_size": 2}}}]}`

// fitsEdit is one edit of fitsSpec: field is the dotted name the refusal
// must give ("" for an edit that shares the store's tables).
type fitsEdit struct {
	what, field string
	apply       func(s map[string]any)
}

var fitsEdits = []fitsEdit{
	{"epochs 2", "hyper.epochs", func(s map[string]any) { s["hyper"].(map[string]any)["epochs"] = 2 }},
	{"lr 0.1", "hyper.lr", func(s map[string]any) { s["hyper"].(map[string]any)["lr"] = 0.1 }},
	{"optimizer sgd", "hyper.optimizer", func(s map[string]any) { s["hyper"].(map[string]any)["optimizer"] = "sgd" }},
	{"num_points 240", "num_points", func(s map[string]any) { s["num_points"] = 240 }},
	{"batch 16", "hyper.batch_size", func(s map[string]any) { s["hyper"].(map[string]any)["batch_size"] = 16 }},
	{"kl's batch 4", "hyper.batch_size", func(s map[string]any) {
		s["overrides"] = []any{map[string]any{"when": map[string]any{"methods": []any{"kl"}}, "set": map[string]any{"hyper": map[string]any{"batch_size": 4}}}}
	}},
	{"another seed", "", func(s map[string]any) { s["seeds"] = []any{1, 2} }},
	{"another bag size", "", func(s map[string]any) { s["bag_sizes"] = []any{8, 16} }},
	{"another method", "", func(s map[string]any) { s["methods"] = []any{"llpfc-uniform", "kl", "llpfc-approx"} }},
	{"another data set", "", func(s map[string]any) { s["datasets"] = []any{"gmm:classes=3,dim=4,train=600,test=100,sep=2"} }},
}

// storeFiles maps every file of dir to its contents.
func storeFiles(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	require.NoError(t, filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[rel] = string(b)
		}
		return err
	}))
	return out
}

func TestPropertyRunRefusesAnEditedSpec(t *testing.T) {
	base := t.TempDir()
	st, err := grid.OpenStore(base)
	require.NoError(t, err)
	_, err = (&grid.Runner{Store: st}).Run(context.Background(), gridtest.Parse(t, fitsSpec))
	require.NoError(t, err)
	template := storeFiles(t, base)
	r := rand.New(rand.NewSource(62))
	refused, ran := 0, 0
	for i := 0; i < 40; i++ {
		var spec map[string]any
		require.NoError(t, json.Unmarshal([]byte(fitsSpec), &spec))
		picked := map[int]bool{}
		var fields, whats []string
		for k := 0; k < 1+r.Intn(2); k++ {
			j := r.Intn(len(fitsEdits))
			if picked[j] {
				continue
			}
			picked[j] = true
			e := fitsEdits[j]
			e.apply(spec)
			whats = append(whats, e.what)
			if e.field != "" {
				fields = append(fields, e.field)
			}
		}
		renamed := r.Intn(4) == 0
		if renamed {
			spec["name"] = "fits-edited"
			whats = append(whats, "renamed")
		}
		js, _ := json.Marshal(spec)
		dir := t.TempDir()
		for rel, body := range template {
			require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, rel), []byte(body), 0o644))
		}
		st, err := grid.OpenStore(dir)
		require.NoError(t, err)
		edited := gridtest.Parse(t, string(js))
		cells, err := edited.Cells()
		require.NoError(t, err)
		fitsErr := grid.CheckFits(st, edited, cells) // what run --sbatch and --check ask, running nothing
		_, err = (&grid.Runner{Store: st}).Run(context.Background(), edited)
		// Another name or another data set puts the cells in tables of
		// their own.
		wantRefusal := len(fields) > 0 && !renamed && !strings.Contains(string(js), "sep=2")
		assert.Equal(t, wantRefusal, fitsErr != nil, "%v: CheckFits: %v", whats, fitsErr)
		if wantRefusal {
			refused++
			require.Error(t, err, "%v", whats)
			require.True(t, errors.As(err, new(*experiments.InputError)), "%v: not bad input: %v", whats, err)
			named := false
			for _, f := range fields {
				named = named || strings.Contains(err.Error(), f)
			}
			assert.True(t, named, "%v: the refusal names none of %v: %v", whats, fields, err)
			assert.Contains(t, err.Error(), "nothing was run")
			assert.Contains(t, err.Error(), "another --results")
			assert.Equal(t, template, storeFiles(t, dir), "%v: the store changed", whats)
		} else {
			ran++
			require.NoError(t, err, "%v", whats)
		}
		col, err := grid.Collect(st)
		require.NoError(t, err)
		_, err = grid.Tables(col.Results, col.From)
		require.NoError(t, err, "%v: the store is no longer reportable", whats)
	}
	t.Logf("40 edited specs: %d refused, %d run", refused, ran)
	assert.Positive(t, refused)
	assert.Positive(t, ran)
}

// A store's folder that is a file (claims, failed, models, damaged, cells)
// stops the command before any work as bad input, naming it: a run
// trained a cell, then failed with exit status 1 to claim it or to clear
// its failure record.
func TestStorePartAFileIsBadInput(t *testing.T) {
	parts := []string{"cells", "models", "damaged", "claims", "failed"}
	sort.Strings(parts)
	for _, part := range parts {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, part), []byte("x"), 0o644))
		_, err := grid.OpenStore(dir)
		require.Error(t, err, part)
		assert.True(t, errors.As(err, new(*experiments.InputError)), part)
		assert.Contains(t, err.Error(), fmt.Sprintf("%s is a file, not a folder", filepath.Join(dir, part)))
		assert.Contains(t, err.Error(), "move the file out of the store")
	}
}
