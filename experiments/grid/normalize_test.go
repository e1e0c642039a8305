package grid

import (
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A spec standardizes by default; "none" is kept; the two give different
// keys; anything else is refused naming the field.
func TestSpecNormalizeDefault(t *testing.T) {
	spec := func(norm string) *Spec {
		return &Spec{Name: "n", Learner: "logreg", Model: "linear", Datasets: []string{"gmm:"}, Methods: []string{"kl"},
			BagSizes: []int{8}, Seeds: []int64{1}, Protocol: "paper", NumPoints: 64, Normalize: norm,
			Hyper: experiments.Hyper{Epochs: 1, Optimizer: "sgd", LR: 0.1, BatchSize: 2, Schedule: experiments.Schedule{Kind: "constant"}}}
	}
	def, err := spec("").Cells()
	require.NoError(t, err)
	none, err := spec("none").Cells()
	require.NoError(t, err)
	assert.Equal(t, data.Standardize, def[0].Config.Normalize)
	assert.Equal(t, data.NoNormalization, none[0].Config.Normalize)
	assert.NotEqual(t, def[0].Key, none[0].Key)
	_, err = spec("minmax").Cells()
	assert.ErrorContains(t, err, "normalize")
}
