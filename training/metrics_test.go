package training

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResultProbabilitiesAndBagError: the result's test
// probabilities are distributions whose argmax scores exactly the reported
// test accuracy, and its bag proportion error is the mean over training
// bags of ‖p̄ − γ‖₁ recomputed from scratch with a Predictor of the saved
// network (an independent path: its own graph, program and softmax); a
// network that predicts every bag's proportions would score 0, so the
// error is positive and at most 2.
func TestResultProbabilitiesAndBagError(t *testing.T) {
	data := imageLLP(t, 8, 6, 8, 3)
	cfg := baseConfig(MethodLLPFCUniform)
	cfg.Epochs, cfg.KeepModel = 2, true
	res, err := Train(context.Background(), cfg, data, nil)
	require.NoError(t, err)
	C := data.Bags.NumClasses
	require.Len(t, res.TestProbs, len(data.TestY)*C)
	right := 0
	for i, y := range data.TestY {
		p := res.TestProbs[i*C : (i+1)*C]
		var s float64
		best := 0
		for c, v := range p {
			s += v
			if v > p[best] {
				best = c
			}
		}
		assert.InDelta(t, 1, s, 1e-12)
		if best == y {
			right++
		}
	}
	assert.Equal(t, res.TestAccuracy, float64(right)/float64(len(data.TestY)))

	pr, err := NewPredictor(res.Model, "", 7)
	require.NoError(t, err)
	defer pr.Close()
	probs, err := pr.Probabilities(context.Background(), data.X)
	require.NoError(t, err)
	var want float64
	for _, b := range data.Bags.Bags {
		for c, g := range b.Proportions {
			var m float64
			for _, i := range b.Indices {
				m += probs[i*C+c]
			}
			want += math.Abs(m/float64(len(b.Indices)) - g)
		}
	}
	want /= float64(len(data.Bags.Bags))
	assert.InDelta(t, want, res.BagProportionError, 1e-9)
	assert.Greater(t, res.BagProportionError, 0.0)
	assert.LessOrEqual(t, res.BagProportionError, 2.0)
}
