package training

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLLPPVCExactTrainsAtLargeBags: llppvc with the exact
// likelihood, the default, trains the mlp on bags of 512 and of 2048
// synthetic instances (5 classes, Dirichlet proportions, so that at the
// start, every sigmoid near 1/5, most class counts lie many standard
// deviations from their targets): every epoch's mean loss is finite, and the
// last epoch's is below 0.8 of the first's. At these sizes the FFT's
// coefficients at the targets are round-off (TestPVCFFTFloorIsTheRoundOff,
// loss.PVCFFTFloor); the exact loss keeps a gradient from the first step.
func TestLLPPVCExactTrainsAtLargeBags(t *testing.T) {
	for _, size := range []int{512, 2048} {
		data := synthLLP(t, 5, 8, 4, size, 100, 50)
		cfg := baseConfig(MethodLLPPVC)
		cfg.Optimizer = OptimizerConfig{Name: "nesterov", LR: 2.5e-4, Momentum: 0.9}
		cfg.BatchSize, cfg.Epochs, cfg.ChunkSize = 1, 6, 512
		res, err := Train(context.Background(), cfg, data, nil)
		require.NoError(t, err, "bag size %d", size)
		require.Len(t, res.History, cfg.Epochs)
		for _, h := range res.History {
			require.False(t, math.IsNaN(h.Loss) || math.IsInf(h.Loss, 0), "bag size %d, epoch %d: loss %v", size, h.Epoch, h.Loss)
		}
		first, last := res.History[0].Loss, res.History[len(res.History)-1].Loss
		t.Logf("bag size %d: loss %.4g → %.4g", size, first, last)
		assert.Less(t, last, 0.8*first, "bag size %d: the loss did not decrease", size)
	}
}

// TestPVCLikelihoodSetting: Config.PVCLikelihood is only llppvc's (another
// method refuses it, an unknown name is refused naming the choices), and
// a checkpoint's settings name the exact likelihood, so that a run never
// resumes a checkpoint of the FFT, whose settings (as every llppvc
// checkpoint's before the exact likelihood) do not name it.
func TestPVCLikelihoodSetting(t *testing.T) {
	data := synthLLP(t, 3, 4, 2, 4, 0, 1)
	for _, c := range []struct {
		method, lik string
		err         string
		key         string
	}{
		{MethodLLPPVC, "", "", "exact"},
		{MethodLLPPVC, "exact", "", "exact"},
		{MethodLLPPVC, "fft", "", ""},
		{MethodLLPPVC, "dp", "want exact or fft", ""},
		{MethodKL, "fft", "is not llppvc", ""},
		{MethodKL, "", "", ""},
	} {
		cfg := baseConfig(c.method)
		err := cfg.PVCLikelihood.UnmarshalText([]byte(c.lik)) // where a spec or flag enters
		if err == nil {
			cfg, err = withDefaults(cfg)
		}
		if c.err != "" {
			assert.ErrorContains(t, err, c.err, "%s %q", c.method, c.lik)
			continue
		}
		require.NoError(t, err)
		got, ok := RunSettings(cfg, data)["pvc_likelihood"]
		assert.Equal(t, c.key != "", ok, "%s %q", c.method, c.lik)
		assert.Equal(t, c.key, got, "%s %q", c.method, c.lik)
	}
}
