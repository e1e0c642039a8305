package training

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTrainStepBudget holds Config.Steps to its meaning: a budget that is a
// whole number of epochs trains exactly as that many epochs do (bit-equal
// parameters and history), and one that is not ends with a short last epoch
// of the remaining steps, so that the run's steps sum to the budget.
func TestTrainStepBudget(t *testing.T) {
	data := synthLLP(t, 3, 5, 12, 10, 30, 4)
	for _, method := range []string{"llpfc-uniform", "kl"} {
		cfg := baseConfig(method)
		if method == "kl" {
			cfg.BatchSize = 2
		}
		cfg.Epochs = 2
		byEpochs, err := Train(context.Background(), cfg, data, nil)
		require.NoError(t, err)
		spe := byEpochs.History[0].Steps
		require.Equal(t, spe, byEpochs.History[1].Steps, "%s: steps per epoch vary; the test needs them fixed", method)

		whole := cfg
		whole.Epochs, whole.Steps = 0, 2*spe
		bySteps, err := Train(context.Background(), whole, data, nil)
		require.NoError(t, err)
		sameParams(t, method+" steps = 2 epochs", byEpochs.Params, bySteps.Params)
		require.Equal(t, 2, bySteps.Epochs, "%s: epochs", method)
		require.Equal(t, byEpochs.TestAccuracy, bySteps.TestAccuracy, "%s", method)
		require.Len(t, bySteps.History, 2)
		require.Equal(t, byEpochs.History[1].Loss, bySteps.History[1].Loss, "%s", method)

		part := cfg
		part.Epochs, part.Steps = 0, 2*spe+1
		var last ProgressEvent
		short, err := Train(context.Background(), part, data, func(ev ProgressEvent) {
			if ev.EpochDone {
				last = ev
			}
		})
		require.NoError(t, err)
		require.Equal(t, 3, short.Epochs, "%s: a budget one step past 2 epochs takes a third", method)
		require.Len(t, short.History, 3)
		require.Equal(t, 1, short.History[2].Steps, "%s: the last epoch's steps", method)
		sum := 0
		for _, h := range short.History {
			sum += h.Steps
		}
		require.Equal(t, part.Steps, sum, "%s: steps trained", method)
		require.Equal(t, 3, last.Epochs, "%s: the progress's epochs", method)
		require.GreaterOrEqual(t, short.TestAccuracy, 0.0, "%s: the last (short) epoch is evaluated", method)
		require.Equal(t, 2, short.SelectedEpoch, "%s: the reported network is the last epoch's", method)
	}
}

// TestTrainStepBudgetErrors: a budget with epochs, or a negative one, is
// refused before training.
func TestTrainStepBudgetErrors(t *testing.T) {
	data := synthLLP(t, 3, 5, 12, 10, 30, 4)
	for name, c := range map[string]func(*Config){
		"epochs and steps": func(c *Config) { c.Epochs, c.Steps = 2, 10 },
		"negative steps":   func(c *Config) { c.Epochs, c.Steps = 0, -1 },
		"neither":          func(c *Config) { c.Epochs, c.Steps = 0, 0 },
	} {
		cfg := baseConfig("kl")
		cfg.BatchSize = 2
		c(&cfg)
		_, err := Train(context.Background(), cfg, data, nil)
		var in *InputError
		require.ErrorAs(t, err, &in, name)
	}
}
