package training

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestModelNameConstants (issue 19: names as constants): every constant
// names a registered model (the registrations use the constants too).
func TestModelNameConstants(t *testing.T) {
	for _, name := range []string{ModelMLP, ModelCNN, ModelCNNBN, ModelWRN164, ModelResNet18, ModelVGG16, ModelLLPGAND, ModelLLPGANG} {
		assert.Contains(t, ModelNames(), name)
	}
}
