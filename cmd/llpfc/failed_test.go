package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A cell that failed when last run is named with its reason by --check and
// --list (still missing: exit 1), and its record is the store's own: a
// report cannot be written into failed/, nor over a record elsewhere.
func TestCheckAndListNameFailures(t *testing.T) {
	spec, ok := grid.BuiltinSpec("quick")
	require.True(t, ok)
	cells, err := spec.Cells()
	require.NoError(t, err)
	dir := t.TempDir()
	store, err := grid.OpenStore(dir)
	require.NoError(t, err)
	failed := cells[0]
	for _, c := range cells[1:] {
		putFinished(t, store, spec.Name, c)
	}
	why := "grouping at epoch 1: Assumption `grouping assumption: ch` fails: " + strings.Repeat("α ", 200)
	require.NoError(t, store.PutFailure(&grid.Failure{Key: failed.Key, Spec: spec.Name, Seed: failed.Config.Seed, Config: failed.Config, Error: why}))

	var out, errb bytes.Buffer
	assert.Equal(t, exitFailed, runRun([]string{"quick", "--check", "--results", dir}, &out, &errb))
	assert.Contains(t, errb.String(), failed.Key+"  ")
	assert.Contains(t, errb.String(), "failed when last run: grouping at epoch 1: Assumption `grouping assumption: ch` fails")
	assert.Contains(t, errb.String(), "…", "a long reason is cut on --check's line")
	assert.Equal(t, 2, strings.Count(errb.String(), "\n"), "a header and the one missing cell:\n%s", errb.String())

	out.Reset()
	errb.Reset()
	assert.Equal(t, exitOK, runRun([]string{"quick", "--list", "--results", dir}, &out, &errb), errb.String())
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, failed.Key) {
			assert.Contains(t, l, "failed when last run (tried again by the next run): grouping at epoch 1")
		}
	}

	rec := filepath.Join(dir, "failed", failed.Key+".json")
	errb.Reset()
	assert.Equal(t, exitBadUsage, runReport([]string{"--results", dir, "--out", filepath.Join(dir, "failed")}, &out, &errb))
	assert.Contains(t, errb.String(), "failed/ of the results store")
	assert.Equal(t, "a failure record of a results store", ownedFile(rec))
}
