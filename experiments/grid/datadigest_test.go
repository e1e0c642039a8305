package grid

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A finished cell is kept only on the data it ran on: its result records
// the data's digest, and a later run into the store refuses it, naming the
// data set and its files and training nothing, once the data's files
// changed; it runs again as before once they are restored. A result
// written before the digest existed is kept as it was.
func TestRunRefusesChangedData(t *testing.T) {
	dataset := writeBagOnlyCSV(t)
	dir := strings.TrimPrefix(dataset, "bags:")
	spec, err := ParseSpec("own", strings.NewReader(`{"name": "own", "learner": "gorgonia", "model": "mlp",
	  "datasets": ["`+dataset+`"], "methods": ["llpfc-uniform"], "seeds": [1],
	  "hyper": {"epochs": 1, "optimizer": "adam", "lr": 0.001, "batch_size": 2, "schedule": {"kind": "constant"}}}`))
	require.NoError(t, err)
	cells, err := spec.Cells()
	require.NoError(t, err)
	require.Len(t, cells, 1)
	st, err := OpenStore(t.TempDir())
	require.NoError(t, err)
	var log bytes.Buffer
	run := func() (Summary, error) { return (&Runner{Store: st, Log: &log}).Run(context.Background(), spec) }

	sum, err := run()
	require.NoError(t, err)
	require.Equal(t, 1, sum.Finished)
	first, err := st.Get(cells[0].Key)
	require.NoError(t, err)
	require.NotEmpty(t, first.DataDigest, "the result records its data's digest")
	sum, err = run()
	require.NoError(t, err)
	assert.Equal(t, 1, sum.Skipped, "the same data: the finished cell is kept")

	train := filepath.Join(dir, "train.csv")
	orig, err := os.ReadFile(train)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(train, []byte(strings.Replace(string(orig), "7,8,1", "7,9,1", 1)), 0o644))
	sum, err = run()
	var in *experiments.InputError
	require.ErrorAs(t, err, &in, "changed data is the user's input to fix: exit status 2")
	assert.ErrorContains(t, err, "ran on other contents of data set "+dataset)
	assert.ErrorContains(t, err, dir)
	assert.ErrorContains(t, err, cells[0].Key)
	assert.ErrorContains(t, err, "nothing was run")
	assert.Zero(t, sum.Finished)
	again, err := st.Get(cells[0].Key)
	require.NoError(t, err)
	assert.Equal(t, first, again, "the stored result is left as it was")

	require.NoError(t, os.WriteFile(train, orig, 0o644))
	sum, err = run()
	require.NoError(t, err)
	assert.Equal(t, 1, sum.Skipped, "restored data: the finished cell is kept")

	// A result from before the digest is kept, with a word that its data
	// is not checked.
	old := *first
	old.DataDigest = ""
	require.NoError(t, st.Put(&old))
	require.NoError(t, os.WriteFile(train, []byte(strings.Replace(string(orig), "7,8,1", "7,9,1", 1)), 0o644))
	log.Reset()
	sum, err = run()
	require.NoError(t, err)
	assert.Equal(t, 1, sum.Skipped)
	assert.Contains(t, log.String(), "1 finished cells were stored before results recorded their data's digest")
}
