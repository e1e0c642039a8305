package training

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// synthLabels recovers the true class of every row of synthLLP's data: each
// bag's rows are laid out class by class, in the counts its proportions give.
func synthLabels(d *TrainData) []int {
	labels := make([]int, len(d.X)/d.Features)
	for _, b := range d.Bags.Bags {
		k := 0
		for c, p := range b.Proportions {
			for n := int(math.Round(p * float64(b.Size))); n > 0; n-- {
				labels[b.Indices[k]] = c
				k++
			}
		}
	}
	return labels
}

// The supervised ceiling learns the separable problem from the true labels
// far better than chance, visits every bagged instance once per epoch, and is
// refused without labels or with a label out of range.
func TestSupervisedMethod(t *testing.T) {
	data := synthLLP(t, 3, 5, 12, 20, 60, 4)
	cfg := baseConfig(Supervised)
	_, err := Train(context.Background(), cfg, data, nil)
	assert.ErrorContains(t, err, "needs the true label")
	data.Labels = synthLabels(data)
	cfg.Epochs = 5
	res, err := Train(context.Background(), cfg, data, nil)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, res.TestAccuracy, 0.9, "chance is 1/3")
	assert.Less(t, res.History[4].Loss, res.History[0].Loss)
	assert.Equal(t, (240+31)/32, res.History[0].Steps, "240 bagged instances in minibatches of 32")
	assert.Equal(t, 240, res.History[0].Images)
	data.Labels[0] = 7
	_, err = Train(context.Background(), cfg, data, nil)
	assert.ErrorContains(t, err, "label 7")
}
