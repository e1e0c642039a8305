package main

import (
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/llpfc/llpfc/experiments/data"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeNPZSet writes arrays to dir/name.
func writeNPZSet(t *testing.T, dir, name string, arrays ...data.NPYArray) string {
	t.Helper()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	require.NoError(t, err)
	require.NoError(t, data.WriteNPZ(f, arrays))
	require.NoError(t, f.Close())
	return p
}

// TestNPZSetTrainAndPredict (what the Python client's
// predict_proba hands the binary): a labelled npz: set trains like any
// labelled set; `predict --data npz:X-only --split train` scores instances
// without labels and gives, bit for bit, the probabilities of the same
// instances read as the labelled test split; training on the unlabelled
// set is refused (exit 2) naming what is missing.
func TestNPZSetTrainAndPredict(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewSource(4))
	n, nt, d := 600, 50, 4
	x, y := make([]float64, (n+nt)*d), make([]int64, n+nt)
	for i := range y {
		y[i] = int64(r.Intn(3))
		for j := 0; j < d; j++ {
			x[i*d+j] = r.NormFloat64() + 2*float64(y[i]*int64(j%2))
		}
	}
	labelled := writeNPZSet(t, dir, "l.npz",
		data.NPYArray{Key: "X", Shape: []int{n, d}, F64: x[:n*d]}, data.NPYArray{Key: "y", Shape: []int{n}, I64: y[:n]},
		data.NPYArray{Key: "test_X", Shape: []int{nt, d}, F64: x[n*d:]}, data.NPYArray{Key: "test_y", Shape: []int{nt}, I64: y[n:]})
	instances := writeNPZSet(t, dir, "x.npz", data.NPYArray{Key: "X", Shape: []int{nt, d}, F64: x[n*d:]})

	model := filepath.Join(dir, "m")
	code, out, errOut := runCmd("train", "--data", "npz:"+labelled, "--bag-size", "8", "--num-points", "256", "--epochs", "3", "--save-model", model, "--quiet", "--json")
	require.Equal(t, exitOK, code, errOut)
	assert.Greater(t, lastJSON(t, out)["test_accuracy"].(float64), 0.5)

	pl, pu := filepath.Join(dir, "pl.npy"), filepath.Join(dir, "pu.npy")
	code, out, errOut = runCmd("predict", "--model", model, "--data", "npz:"+labelled, "--out", pl)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "accuracy")
	code, out, errOut = runCmd("predict", "--model", model, "--data", "npz:"+instances, "--split", "train", "--out", pu)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "no labels: no scores")
	a, err := os.ReadFile(pl)
	require.NoError(t, err)
	b, err := os.ReadFile(pu)
	require.NoError(t, err)
	assert.Equal(t, a, b, "the same instances, labelled or not, get the same probabilities")

	code, _, errOut = runCmd("predict", "--model", model, "--data", "npz:"+instances)
	assert.Equal(t, exitBadUsage, code)
	assert.Contains(t, errOut, "has no test split (no test_X): score its instances (X) with --split train")
	code, _, errOut = runCmd("train", "--data", "npz:"+instances, "--bag-size", "8", "--epochs", "1", "--quiet")
	assert.Equal(t, exitBadUsage, code)
	assert.Contains(t, errOut, "has no labels (no y)")
}
