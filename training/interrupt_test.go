package training

import (
	"context"
	"errors"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/device/cpu"
	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Evaluation checks for an interrupt between its batches
// (Ctrl-C during the test-set evaluation used to be ignored, and the run
// exited 0 with a full result).
func TestEvaluationStopsOnInterrupt(t *testing.T) {
	g := gorgonia.NewGraph()
	spec := nn.ModelSpec{Name: "mlp", Features: 4, NumClasses: 3, Dtype: tensor.Float32}
	m, err := models.NewModel(g, spec, rng.New(1, "init"))
	require.NoError(t, err)
	ev, err := newEvaluator(cpu.New(), g, m, spec, 8)
	require.NoError(t, err)
	x := make([]float32, 40*4)
	y := make([]int, 40)
	acc, err := ev.Accuracy(context.Background(), x, y)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, acc, 0.0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = ev.Accuracy(ctx, x, y)
	assert.True(t, errors.Is(err, context.Canceled), "got %v", err)
}
