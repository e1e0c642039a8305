package learn

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/fixtures/bagonly"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadProblemGivenAndFeatureBags: a bag-only cell's problem holds the
// set's bags over its unlabelled split; feature bags of a labelled CSV set
// group its instances by a categorical column; kmeans bags are K.
func TestLoadProblemGivenAndFeatureBags(t *testing.T) {
	p, err := LoadProblem(experiments.Cell{Config: validBagOnlyCell()})
	require.NoError(t, err)
	assert.Len(t, p.Bags.Bags, bagonly.NumBags)
	assert.Nil(t, p.Train.Y)
	assert.Equal(t, bagonly.TestImages, p.Test.N)

	dir := t.TempDir()
	body := "label,colour,x\n0,red,1\n1,red,2\n0,blue,3\n1,blue,4\n0,green,5\n1,red,6\n"
	tr := filepath.Join(dir, "t.csv")
	require.NoError(t, os.WriteFile(tr, []byte(body), 0o644))
	c := experiments.Config{Dataset: "csv:" + tr + "," + tr, Protocol: "feature:colour,max=2", Normalize: "standardize", Seed: 1}
	p, err = LoadProblem(experiments.Cell{Config: c})
	require.NoError(t, err)
	require.Len(t, p.Bags.Bags, 2, "blue (2) and green (1); red (3) is over max=2")
	assert.Equal(t, []int{2, 3}, p.Bags.Bags[0].Indices, "blue")
	assert.Equal(t, []float64{0.5, 0.5}, p.Bags.Bags[0].Proportions)
	assert.Equal(t, 3, p.BagsDropped)
	c.Protocol = "kmeans:3"
	p, err = LoadProblem(experiments.Cell{Config: c})
	require.NoError(t, err)
	assert.Len(t, p.Bags.Bags, 3)
	c.Protocol = "feature:shape"
	_, err = LoadProblem(experiments.Cell{Config: c})
	assert.ErrorContains(t, err, `no column "shape" for the feature protocol (columns: [colour x])`)
}

// TestRunCellRefusesSupervisedOnBagOnly: the supervised ceiling needs
// labels, which a bag-only problem has none of (bad input).
func TestRunCellRefusesSupervisedOnBagOnly(t *testing.T) {
	c := validBagOnlyCell()
	p, err := LoadProblem(experiments.Cell{Config: c})
	require.NoError(t, err)
	c.Method = "supervised"
	_, err = RunCell(context.Background(), experiments.Cell{Config: c}, p, RunOptions{})
	var in *experiments.InputError
	require.ErrorAs(t, err, &in)
	assert.ErrorContains(t, err, "needs instance labels")
}

// bagOnlyFixture is the committed bag-only fixture's data set name.
var bagOnlyFixture = "bags:" + filepath.Join("..", "..", bagonly.Path)

// validBagOnlyCell is a cell on the bag-only fixture.
func validBagOnlyCell() experiments.Config {
	return experiments.Config{Learner: "gorgonia", Dataset: bagOnlyFixture, Model: "mlp", Method: "llpfc-uniform", Protocol: experiments.GivenProtocol,
		Normalize: "standardize", Seed: 1, Hyper: experiments.Hyper{Epochs: 1, Optimizer: "adam", LR: 1e-3, BatchSize: 128, Schedule: experiments.Schedule{Kind: "constant"}}}
}
