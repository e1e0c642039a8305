package grid

import (
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/training"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every kl and llpvat cell of a spec carries the KL loss's scale, the
// authors' by default and the paper's when a spec says so; other methods
// carry none and may not set one.
func TestSpecKLScale(t *testing.T) {
	s, ok := BuiltinSpec("fashion-mnist")
	require.True(t, ok)
	cells, err := s.Cells()
	require.NoError(t, err)
	for _, c := range cells {
		if experiments.UsesKL(c.Config.Method) {
			assert.Equal(t, training.KLScaleAuthors, c.Config.Hyper.KLScale, "%s", c.Config.Method)
		} else {
			assert.Empty(t, c.Config.Hyper.KLScale, "%s", c.Config.Method)
		}
	}
	s.Overrides = append(s.Overrides, Override{When: Match{Methods: []string{"kl"}}, Set: set(obj{"hyper": obj{"kl_scale": "paper"}})})
	cells, err = s.Cells()
	require.NoError(t, err)
	for _, c := range cells {
		if c.Config.Method == "kl" {
			assert.Equal(t, training.KLScalePaper, c.Config.Hyper.KLScale)
		}
	}
	bad := cells[0].Config
	for _, c := range cells {
		if experiments.IsLLPFC(c.Config.Method) {
			bad = c.Config
		}
	}
	bad.Hyper.KLScale = training.KLScalePaper
	assert.ErrorContains(t, bad.Validate(), "hyper.kl_scale")
}

// A spec naming an unknown model (for the gorgonia learner)
// or data set fails before any cell runs, naming the field.
func TestSpecRefusesUnknownModelAndDataset(t *testing.T) {
	s, ok := BuiltinSpec("quick")
	require.True(t, ok)
	s.Model = "resnet9000"
	_, err := s.Cells()
	assert.ErrorContains(t, err, `model: "resnet9000" is unknown`)
	s, _ = BuiltinSpec("quick")
	s.Datasets = []string{"imagenet"}
	_, err = s.Cells()
	assert.ErrorContains(t, err, `dataset: "imagenet" is unknown`)
}
