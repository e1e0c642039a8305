package experiments

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/fixtures/bagonly"
)

// bagOnlyFixture is the committed bag-only fixture's data set name.
var bagOnlyFixture = "bags:" + filepath.Join("..", bagonly.Path)

// validBagOnlyCell is a cell on the bag-only fixture.
func validBagOnlyCell() Config {
	return Config{Learner: "gorgonia", Dataset: bagOnlyFixture, Model: "mlp", Method: "llpfc-uniform", Protocol: GivenProtocol,
		Normalize: "standardize", Seed: 1, Hyper: Hyper{Epochs: 1, Optimizer: "adam", LR: 1e-3, BatchSize: 128, Schedule: Schedule{Kind: "constant"}}}
}

// TestConfigBagShape: the rules of bag sizes and points for given bags and
// the protocols of bags of varying sizes, each error naming its field.
func TestConfigBagShape(t *testing.T) {
	cases := []struct {
		name string
		edit func(c *Config)
		want string // "" valid
	}{
		{"given bags", func(c *Config) {}, ""},
		{"bag-only with a drawing protocol", func(c *Config) { c.Protocol = "paper" }, `protocol: is "paper", but data set ` + bagOnlyFixture + " is bag-only"},
		{"bag-only with a bag size", func(c *Config) { c.BagSize = 64 }, "bag_size, num_points: are 64 and 0"},
		{"bag-only with points", func(c *Config) { c.NumPoints = 64 }, "bag_size, num_points: are 0 and 64"},
		{"bag-only supervised", func(c *Config) { c.Method = "supervised" }, "method: supervised trains on instance labels"},
		{"given on a labelled set", func(c *Config) { c.Dataset = "fixture" }, `protocol: "given" takes the bags of a bag-only data set`},
		{"kmeans", func(c *Config) { c.Dataset, c.Protocol = "fixture", "kmeans:40" }, ""},
		{"kmeans with a bag size", func(c *Config) { c.Dataset, c.Protocol, c.BagSize = "fixture", "kmeans:40", 64 }, "bag_size: is 64, but protocol kmeans:40 makes bags of varying sizes"},
		{"kmeans negative points", func(c *Config) { c.Dataset, c.Protocol, c.NumPoints = "fixture", "kmeans:40", -1 }, "num_points: is -1"},
		{"feature with points", func(c *Config) { c.Dataset, c.Protocol, c.NumPoints = "csv:x.csv", "feature:a,b,max=9", 100 }, ""},
		{"bad feature", func(c *Config) { c.Dataset, c.Protocol = "fixture", "feature:a,min=x" }, "protocol: protocol \"feature:a,min=x\": min=\"x\""},
		{"paper without a bag size", func(c *Config) { c.Dataset, c.Protocol = "fixture", "paper" }, "bag_size: is 0, want > 0"},
		{"kl on given bags", func(c *Config) { c.Method, c.Hyper.BatchSize, c.Hyper.KLScale = "kl", 2, "authors" }, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := validBagOnlyCell()
			c.edit(&cfg)
			err := cfg.Validate()
			if c.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, c.want)
		})
	}
}

// TestLoadProblemGivenAndFeatureBags: a bag-only cell's problem holds the
// set's bags over its unlabelled split; feature bags of a labelled CSV set
// group its instances by a categorical column; kmeans bags are K.
func TestLoadProblemGivenAndFeatureBags(t *testing.T) {
	p, err := LoadProblem(Cell{Config: validBagOnlyCell()})
	require.NoError(t, err)
	assert.Len(t, p.Bags.Bags, bagonly.NumBags)
	assert.Nil(t, p.Train.Y)
	assert.Equal(t, bagonly.TestImages, p.Test.N)

	dir := t.TempDir()
	body := "label,colour,x\n0,red,1\n1,red,2\n0,blue,3\n1,blue,4\n0,green,5\n1,red,6\n"
	tr := filepath.Join(dir, "t.csv")
	require.NoError(t, os.WriteFile(tr, []byte(body), 0o644))
	c := Config{Dataset: "csv:" + tr + "," + tr, Protocol: "feature:colour,max=2", Normalize: "standardize", Seed: 1}
	p, err = LoadProblem(Cell{Config: c})
	require.NoError(t, err)
	require.Len(t, p.Bags.Bags, 2, "blue (2) and green (1); red (3) is over max=2")
	assert.Equal(t, []int{2, 3}, p.Bags.Bags[0].Indices, "blue")
	assert.Equal(t, []float64{0.5, 0.5}, p.Bags.Bags[0].Proportions)
	assert.Equal(t, 3, p.BagsDropped)
	c.Protocol = "kmeans:3"
	p, err = LoadProblem(Cell{Config: c})
	require.NoError(t, err)
	assert.Len(t, p.Bags.Bags, 3)
	c.Protocol = "feature:shape"
	_, err = LoadProblem(Cell{Config: c})
	assert.ErrorContains(t, err, `no column "shape" for the feature protocol (columns: [colour x])`)
}

// TestRunCellRefusesSupervisedOnBagOnly: the supervised ceiling needs
// labels, which a bag-only problem has none of (bad input).
func TestRunCellRefusesSupervisedOnBagOnly(t *testing.T) {
	c := validBagOnlyCell()
	p, err := LoadProblem(Cell{Config: c})
	require.NoError(t, err)
	c.Method = "supervised"
	_, err = RunCell(context.Background(), Cell{Config: c}, p, RunOptions{})
	var in *InputError
	require.ErrorAs(t, err, &in)
	assert.ErrorContains(t, err, "needs instance labels")
}
