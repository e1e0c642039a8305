package training

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRegroupEveryZeroMeansNever (one meaning of every zero
// value): Config.RegroupEvery = 0 draws the groups once, at epoch 0, as
// experiments.Hyper.RegroupEvery = 0 does — the same run, loss for loss, as
// a period of Epochs, and a different one from the
// appendix's period when that period is shorter than the run. A negative
// period is an error.
func TestRegroupEveryZeroMeansNever(t *testing.T) {
	data := synthLLP(t, 3, 5, 12, 10, 30, 3)
	run := func(r int) *Result {
		cfg := baseConfig("llpfc-uniform")
		cfg.RegroupEvery = r
		res, err := Train(context.Background(), cfg, data, nil)
		require.NoError(t, err)
		return res
	}
	never, epochs, every := run(0), run(baseConfig("llpfc-uniform").Epochs), run(1)
	require.Len(t, never.Regroupings, 1, "groups drawn once")
	assert.Equal(t, 0, never.Regroupings[0].Epoch)
	assert.Equal(t, epochs.FinalLoss, never.FinalLoss, "0 = a period of Epochs")
	assert.Equal(t, epochs.TestAccuracy, never.TestAccuracy)
	assert.NotEqual(t, every.FinalLoss, never.FinalLoss, "regrouping every epoch is another run")
	cfg := baseConfig("llpfc-uniform")
	cfg.RegroupEvery = -1
	_, err := Train(context.Background(), cfg, data, nil)
	assert.ErrorContains(t, err, "regroup every -1")
}
