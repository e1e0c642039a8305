package models

import (
	"testing"

	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
)

// TestModelNameConstants (names as constants): every constant
// names a registered model (the registrations use the constants too).
func TestModelNameConstants(t *testing.T) {
	for _, name := range []string{ModelMLP, ModelCNN, ModelCNNBN, ModelWRN164, ModelResNet18, ModelVGG16, ModelLLPGAND, ModelLLPGANG} {
		assert.Contains(t, ModelNames(), name)
	}
}

// TestBatchNormLayers counts the batch-norm layers a bnSweep drives: none
// in the mlp and the cnn, two in cnn-bn, 13 in WRN-16-4 (one per
// pre-activation of its 6 blocks' two convolutions, and the final one) and
// 13 in VGG16 with batch norm (one per convolution).
func TestBatchNormLayers(t *testing.T) {
	for _, tc := range []struct {
		spec nn.ModelSpec
		want int
	}{
		{nn.ModelSpec{Name: ModelMLP, Features: 8, NumClasses: 3}, 0},
		{nn.ModelSpec{Name: ModelCNN, Channels: 1, Height: 8, Width: 8, NumClasses: 3}, 0},
		{nn.ModelSpec{Name: ModelCNNBN, Channels: 1, Height: 8, Width: 8, NumClasses: 3}, 2},
		{nn.ModelSpec{Name: ModelWRN164, Channels: 3, Height: 8, Width: 8, NumClasses: 3}, 13},
		{nn.ModelSpec{Name: ModelVGG16, Channels: 3, Height: 32, Width: 32, NumClasses: 3}, 13},
	} {
		k, err := BatchNormLayers(tc.spec)
		if assert.NoError(t, err, tc.spec.Name) {
			assert.Equal(t, tc.want, k, tc.spec.Name)
		}
	}
}
