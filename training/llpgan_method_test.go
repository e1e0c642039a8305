package training

import (
	"context"
	"path/filepath"
	"testing"
)

// TestLLPGANMethodLearns trains LLPGAN (llpgan-d, B = 1 bag, Adam 3e-4 with
// β₁ = 0.5 for both networks) on 1×8×8 images of the 3-cluster problem and
// requires test accuracy ≥ 0.8 (chance is 1/3).
func TestLLPGANMethodLearns(t *testing.T) {
	data := imageLLP(t, 30, 20, 5)
	cfg := baseConfig("llpgan")
	cfg.Model = ModelSpec{Name: "llpgan-d"}
	cfg.Optimizer = OptimizerConfig{Name: "adam", LR: 3e-4, Beta1: 0.5, Beta2: 0.999}
	cfg.BatchSize, cfg.Epochs = 1, 4
	res, err := Train(context.Background(), cfg, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.TestAccuracy < 0.8 {
		t.Errorf("llpgan: test accuracy %.3f, want ≥ 0.8", res.TestAccuracy)
	}
}

// TestLLPGANMethodResumeIsIdentical: 2 epochs straight equal 1 epoch +
// checkpoint + 1 resumed epoch bit for bit, which needs the generator, its
// batch-norm statistics and its Adam moments in the checkpoint
// (SaveState/LoadState); and equal seeds give equal runs.
func TestLLPGANMethodResumeIsIdentical(t *testing.T) {
	data := imageLLP(t, 6, 10, 6)
	cfg := baseConfig("llpgan")
	cfg.Model = ModelSpec{Name: "llpgan-d"}
	cfg.Optimizer = OptimizerConfig{Name: "adam", LR: 3e-4, Beta1: 0.5, Beta2: 0.999}
	cfg.BatchSize, cfg.Epochs = 1, 2
	straight, err := Train(context.Background(), cfg, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Train(context.Background(), cfg, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameParams(t, "llpgan same seed", straight.Params, again.Params)
	ck := filepath.Join(t.TempDir(), "gan.ckpt")
	first := cfg
	first.Epochs, first.Checkpoint = 1, ck
	if _, err := Train(context.Background(), first, data, nil); err != nil {
		t.Fatal(err)
	}
	rest := cfg
	rest.Checkpoint, rest.Resume = ck, true
	resumed, err := Train(context.Background(), rest, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameParams(t, "llpgan resumed", straight.Params, resumed.Params)
}

// TestLLPGANMethodNeedsFeaturesAndEqualBags: a model without f_conv and
// bags of different sizes are refused with errors naming the problem.
func TestLLPGANMethodNeedsFeaturesAndEqualBags(t *testing.T) {
	data := imageLLP(t, 4, 6, 7)
	cfg := baseConfig("llpgan")
	cfg.Model = ModelSpec{Name: "cnn"}
	cfg.BatchSize, cfg.Epochs = 1, 1
	if _, err := Train(context.Background(), cfg, data, nil); err == nil {
		t.Error("llpgan with cnn: no error")
	}
	cfg.Model = ModelSpec{Name: "llpgan-d"}
	data.Bags.Bags[1].Indices = data.Bags.Bags[1].Indices[:5]
	data.Bags.Bags[1].Size = 5
	data.Bags.Bags[1].Proportions = []float64{1, 0, 0}
	if _, err := Train(context.Background(), cfg, data, nil); err == nil {
		t.Error("llpgan with bags of sizes 6 and 5: no error")
	}
}
