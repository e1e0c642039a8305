package training

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/device/cpu"
	"github.com/llpfc/llpfc/training/internal/testutil"
	"github.com/llpfc/llpfc/training/methods"
	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
)

// TestLLPVATMethodLearns trains LLP-VAT (B = 2 bags) on the separable
// 3-class problem of TestTrainLearns and requires accuracy ≥ 0.8, a
// decreasing loss, and bit-equal parameters for equal seeds.
func TestLLPVATMethodLearns(t *testing.T) {
	data := synthLLP(t, 3, 6, 30, 20, 300, 1)
	cfg := baseConfig("llpvat")
	cfg.BatchSize = 2
	cfg.Epochs = 6
	cfg.Optimizer.LR = 3e-3
	res, err := Train(context.Background(), cfg, data, nil)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, res.TestAccuracy, 0.8, "llpvat: test accuracy %.3f, want ≥ 0.8", res.TestAccuracy)
	if h := res.History; !(h[len(h)-1].Loss < h[0].Loss) {
		t.Errorf("llpvat: loss went from %v to %v, want a decrease", h[0].Loss, h[len(h)-1].Loss)
	}
	cfg.Epochs = 2
	a, err := Train(context.Background(), cfg, data, nil)
	require.NoError(t, err)
	b, err := Train(context.Background(), cfg, data, nil)
	require.NoError(t, err)
	sameParams(t, "llpvat same seed", a.Params, b.Params)
}

// imageLLP turns synthLLP's side²-dimensional clusters into 1×side×side
// images.
func imageLLP(t *testing.T, side, numBags, bagSize int, seed int64) *TrainData {
	t.Helper()
	d := synthLLP(t, 3, side*side, numBags, bagSize, 30, seed)
	d.Channels, d.Height, d.Width, d.Features = 1, side, side, 0
	return d
}

func init() {
	// A small batch-norm + dropout network for method tests: WRN-10-1.
	models.RegisterModel("test-wrn-10-1", func(g *gorgonia.ExprGraph, spec nn.ModelSpec, r *rand.Rand) (nn.Model, error) {
		return models.NewWideResNet(g, spec, 10, 1, r)
	})
}

// TestLLPVATMethodWithBatchNormAndDropout runs LLP-VAT on a WRN-10-1 (batch
// norm, dropout 0.3) for one epoch: the run must be reproducible bit for bit
// (dropout masks come from the method's streams), and a step must move the
// batch-norm running averages away from their initial values 0 and 1.
func TestLLPVATMethodWithBatchNormAndDropout(t *testing.T) {
	data := imageLLP(t, 8, 4, 6, 4)
	cfg := baseConfig("llpvat")
	cfg.Model = nn.ModelSpec{Name: "test-wrn-10-1", Dropout: 0.3}
	cfg.BatchSize, cfg.Epochs, cfg.ChunkSize = 2, 1, 12
	a, err := Train(context.Background(), cfg, data, nil)
	require.NoError(t, err)
	b, err := Train(context.Background(), cfg, data, nil)
	require.NoError(t, err)
	sameParams(t, "llpvat wrn same seed", a.Params, b.Params)

	// One step by hand, to look at the running statistics.
	spec := cfg.Model
	spec.Channels, spec.Height, spec.Width, spec.NumClasses = 1, 8, 8, 3
	g := gorgonia.NewGraph()
	model, err := models.NewModel(g, spec, rng.New(1, "init"))
	require.NoError(t, err)
	cfg, err = withDefaults(cfg)
	require.NoError(t, err)
	be := cpu.New()
	env := &MethodEnv{Config: &cfg, Data: data, Spec: spec, Graph: g, Model: model, Backend: be}
	m, err := methods.MustLookup(MethodLLPVAT).New(env)
	require.NoError(t, err)
	defer m.Close()
	if _, err := m.BeginEpoch(0); err != nil {
		t.Fatal(err)
	}
	grads, err := be.NewGrads(model.Learnables())
	require.NoError(t, err)
	if _, _, err := m.Step(0, grads); err != nil {
		t.Fatal(err)
	}
	stats := model.(nn.BatchNormModel).RunningStats()
	require.NotEqual(t, 0, len(stats), "WRN reports no running statistics")
	for i, n := range stats {
		init := 0.0 // means at even positions, variances (init 1) at odd
		if i%2 == 1 {
			init = 1
		}
		moved := false
		for _, v := range testutil.Values(t, n) {
			if v != init {
				moved = true
			}
		}
		if !moved {
			t.Errorf("running statistic %d (%v) still at its initial value after a step", i, n.Name())
		}
	}
}
