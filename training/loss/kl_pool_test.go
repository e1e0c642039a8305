package loss

import (
	"testing"

	"github.com/llpfc/llpfc/training/internal/testutil"
	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"gorgonia.org/tensor"
)

// TestMaxPool2CNNGradientsMatchGorgonia: a whole cnn's loss and parameter
// gradients (the KL loss of two bags) are the same with the fused 2×2 pool
// as with gorgonia's Rectify and MaxPool2D.
func TestMaxPool2CNNGradientsMatchGorgonia(t *testing.T) {
	spec := nn.ModelSpec{Name: models.ModelCNN, Channels: 1, Height: 9, Width: 10, NumClasses: 3, Dtype: tensor.Float64}
	f := newKLFixture([]int{4, 5}, spec.InputDim(), 3, 2)
	f.spec = spec
	grads := func(fused bool) []float64 {
		old := nn.FusedPool
		nn.FusedPool = fused
		defer func() { nn.FusedPool = old }()
		grads, _, _ := f.wholeBagGrads(t, 4)
		return grads
	}
	want := grads(false)
	assert.Less(t, testutil.MaxAbsDiff(grads(true), want), 1e-12, "cnn gradients, fused pool vs gorgonia's")
}
