package experiments_test

import (
	"path/filepath"
	"testing"

	"github.com/llpfc/llpfc/experiments"
	_ "github.com/llpfc/llpfc/experiments/learn" // registers the gorgonia learner the valid cells name
	"github.com/llpfc/llpfc/training"

	"github.com/stretchr/testify/assert"

	"github.com/llpfc/llpfc/fixtures/bagonly"
)

// bagOnlyFixture is the committed bag-only fixture's data set name.
var bagOnlyFixture = "bags:" + filepath.Join("..", bagonly.Path)

// validBagOnlyCell is a cell on the bag-only fixture.
func validBagOnlyCell() experiments.Config {
	return experiments.Config{Learner: "gorgonia", Dataset: bagOnlyFixture, Model: "mlp", Method: "llpfc-uniform", Protocol: experiments.GivenProtocol,
		Normalize: "standardize", Seed: 1, Hyper: experiments.Hyper{Epochs: 1, Optimizer: "adam", LR: 1e-3, BatchSize: 128, Schedule: experiments.Schedule{Kind: "constant"}}}
}

// TestConfigBagShape: the rules of bag sizes and points for given bags and
// the protocols of bags of varying sizes, each error naming its field.
func TestConfigBagShape(t *testing.T) {
	cases := []struct {
		name string
		edit func(c *experiments.Config)
		want string // "" valid
	}{
		{"given bags", func(c *experiments.Config) {}, ""},
		{"bag-only with a drawing protocol", func(c *experiments.Config) { c.Protocol = "paper" }, `protocol: is "paper", but data set ` + bagOnlyFixture + " is bag-only"},
		{"bag-only with a bag size", func(c *experiments.Config) { c.BagSize = 64 }, "bag_size, num_points: are 64 and 0"},
		{"bag-only with points", func(c *experiments.Config) { c.NumPoints = 64 }, "bag_size, num_points: are 0 and 64"},
		{"bag-only supervised", func(c *experiments.Config) { c.Method = "supervised" }, "method: supervised trains on instance labels"},
		{"given on a labelled set", func(c *experiments.Config) { c.Dataset = "fixture" }, `protocol: "given" takes the bags of a bag-only data set`},
		{"kmeans", func(c *experiments.Config) { c.Dataset, c.Protocol = "fixture", "kmeans:40" }, ""},
		{"kmeans with a bag size", func(c *experiments.Config) { c.Dataset, c.Protocol, c.BagSize = "fixture", "kmeans:40", 64 }, "bag_size: is 64, but protocol kmeans:40 makes bags of varying sizes"},
		{"kmeans negative points", func(c *experiments.Config) { c.Dataset, c.Protocol, c.NumPoints = "fixture", "kmeans:40", -1 }, "num_points: is -1"},
		{"feature with points", func(c *experiments.Config) {
			c.Dataset, c.Protocol, c.NumPoints = "csv:x.csv", "feature:a,b,max=9", 100
		}, ""},
		{"bad feature", func(c *experiments.Config) { c.Dataset, c.Protocol = "fixture", "feature:a,min=x" }, "protocol: protocol \"feature:a,min=x\": min=\"x\""},
		{"paper without a bag size", func(c *experiments.Config) { c.Dataset, c.Protocol = "fixture", "paper" }, "bag_size: is 0, want > 0"},
		{"kl on given bags", func(c *experiments.Config) {
			c.Method, c.Hyper.BatchSize, c.Hyper.KLScale = "kl", 2, training.KLScaleAuthors
		}, ""},
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
