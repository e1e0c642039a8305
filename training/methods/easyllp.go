package methods

import (
	"math"

	"github.com/llpfc/llpfc/training/loss"
)

// EasyLLP is EasyLLP's name (Busa-Fekete et al., "Easy Learning from Label
// Proportions", NeurIPS 2023).
const EasyLLP = "easyllp"

func init() {
	RegisterBag(Descriptor{
		Name: EasyLLP, Label: "EasyLLP", Order: 40, Style: 4,
		Paper:        "Busa-Fekete et al., Easy Learning from Label Proportions, NeurIPS 2023",
		Code:         "TianhaoMa5/ICLR2026_LLP-PVC@fe11a00:easyllp.py, easyllp_flood.py",
		DefaultBatch: 8,
		Help:         "EasyLLP: each instance's cross-entropy against its bag's debiased soft label k·α − (k−1)·p, optionally flooded (--flood)",
		Settings:     []*Setting{&FloodSetting},
		Authors: &Preset{Optimizer: "nesterov", LR: 1e-4, Momentum: 0.9, WeightDecay: 5e-5, BatchSize: 8, Flood: 0.3,
			Source: "easyllp.py@fe11a00:396-397, 408-413, 493-494; flooding b = 0.3, easyllp_flood.py@fe11a00:280-281"},
		Search: DefaultSearch,
	}, BagSpec{Objective: newEasyLLP})
}

// FloodSetting is EasyLLP's flooding level b (Config.Flood).
var FloodSetting = Setting{Name: SettingFlood, Kind: KindFloat, Default: "0", Min: 0, Max: math.Inf(1),
	Help: "flooding level b, the loss trained being |L − b| + b (Ishida et al., ICML 2020; the authors' easyllp_flood.py uses 0.3); 0: none, EasyLLP's plain loss"}

// newEasyLLP trains with EasyLLP's debiased instance loss (loss.EasyLLP:
// every instance's cross-entropy against its bag's soft label
// k·α − (k−1)·p) over minibatches of Config.BatchSize bags (the authors'
// easyllp.py@fe11a00:396-397 uses 8). The prior p is the class frequency of
// all the training bags, Σ_b m_b α_b / Σ_b m_b, which only the bags'
// proportions give: the paper's known prior, estimated once. The authors'
// code takes the mean proportion of each minibatch's bags instead
// (easyllp.py@fe11a00:225), which makes the soft labels depend on the bag's
// own proportions twice and the estimate biased (PAPER_MAP). Config.Flood
// bounds the loss from below as the authors' easyllp_flood.py does.
func newEasyLLP(env *Env) (loss.BagObjective, error) {
	return &loss.EasyLLP{Prior: bagPrior(env), Flood: env.Config.Flood}, nil
}

// bagPrior is the class frequency of the training bags: their proportions
// weighted by their sizes.
func bagPrior(env *Env) []float64 {
	C := env.Spec.NumClasses
	p := make([]float64, C)
	n := 0
	for _, b := range env.Data.Bags.Bags {
		for c := 0; c < C && c < len(b.Proportions); c++ {
			p[c] += float64(len(b.Indices)) * b.Proportions[c]
		}
		n += len(b.Indices)
	}
	for c := range p {
		p[c] /= float64(max(n, 1))
	}
	return p
}
