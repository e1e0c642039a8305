package grid

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/fixtures/bagonly"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSpecBagOnly: a spec over bag-only data sets needs no protocol, bag
// sizes or points: one cell per seed and method, on the set's own bags; a
// kmeans spec likewise has no bag sizes.
func TestSpecBagOnly(t *testing.T) {
	spec, err := ParseSpec("own", strings.NewReader(`{"name": "own", "learner": "gorgonia", "model": "mlp",
	  "datasets": ["`+bagOnlyFixture+`"], "methods": ["llpfc-uniform", "kl"], "seeds": [1, 2],
	  "hyper": {"epochs": 1, "optimizer": "adam", "lr": 0.001, "batch_size": 2, "schedule": {"kind": "constant"}}}`))
	require.NoError(t, err)
	cells, err := spec.Cells()
	require.NoError(t, err)
	require.Len(t, cells, 4)
	for _, c := range cells {
		assert.Equal(t, experiments.GivenProtocol, c.Config.Protocol)
		assert.Zero(t, c.Config.BagSize)
		assert.Zero(t, c.Config.NumPoints)
	}
	missing, err := spec.CheckData("")
	require.NoError(t, err)
	assert.Empty(t, missing)
	_, err = ParseSpec("bad", strings.NewReader(`{"name": "bad", "learner": "gorgonia", "model": "mlp",
	  "datasets": ["fixture"], "methods": ["kl"], "seeds": [1], "protocol": "paper", "num_points": 64,
	  "hyper": {"epochs": 1, "optimizer": "adam", "lr": 0.001, "batch_size": 2, "schedule": {"kind": "constant"}}}`))
	assert.ErrorContains(t, err, "bag_sizes: is empty")
	km, err := ParseSpec("km", strings.NewReader(`{"name": "km", "learner": "gorgonia", "model": "mlp",
	  "datasets": ["fixture"], "methods": ["llpfc-uniform"], "seeds": [1], "protocol": "kmeans:64", "num_points": 4096,
	  "hyper": {"epochs": 1, "optimizer": "adam", "lr": 0.001, "batch_size": 128, "schedule": {"kind": "constant"}}}`))
	require.NoError(t, err)
	kc, err := km.Cells()
	require.NoError(t, err)
	require.Len(t, kc, 1)
	assert.Equal(t, 0, kc[0].Config.BagSize)
	cnn := *spec
	cnn.Model = "cnn"
	require.NoError(t, cnn.Validate(), "a bag-only .npz may hold images: the model is checked against its shape")
	tab := writeBagOnlyCSV(t)
	cnn.Datasets = []string{tab}
	_, err = cnn.CheckData("")
	assert.ErrorContains(t, err, `model: "cnn" needs images`)
}

// writeBagOnlyCSV writes a small bag-only set of CSV tables and returns its
// name.
func writeBagOnlyCSV(t *testing.T) string {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"train.csv":       "a,b,bag\n1,2,0\n3,4,0\n5,6,1\n7,8,1\n",
		"proportions.csv": "bag,x,y\n0,0.5,0.5\n1,1,0\n",
		"test.csv":        "a,b,label\n1,1,x\n2,2,y\n",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	return "bags:" + dir
}

// bagOnlyFixture is the committed bag-only fixture's data set name.
var bagOnlyFixture = "bags:" + filepath.Join("..", "..", bagonly.Path)
