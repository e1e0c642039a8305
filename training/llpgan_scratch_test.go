package training

import (
	"context"
	"testing"
)

func TestScratchTR2(t *testing.T) {
	data := imageLLP(t, 30, 20, 5)
	for _, m := range []string{"kl", "llpgan"} {
		cfg := baseConfig(m)
		cfg.Model = ModelSpec{Name: "llpgan-d"}
		cfg.Optimizer = OptimizerConfig{Name: "adam", LR: 3e-4, Beta1: 0.5, Beta2: 0.999}
		cfg.BatchSize, cfg.Epochs, cfg.EvalEvery = 1, 3, 1
		res, err := Train(context.Background(), cfg, data, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.History {
			t.Logf("%s epoch %d loss %.4f acc %.3f sec %.1f", m, h.Epoch, h.Loss, h.TestAccuracy, h.Seconds)
		}
	}
}
