package training

import (
	"github.com/llpfc/llpfc/training/loss"
)

func init() {
	RegisterMethod(MethodEasyLLP, func(env *MethodEnv) (Method, error) { return newEasyLLP(env) })
}

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
func newEasyLLP(env *MethodEnv) (Method, error) {
	return newBagMethod(env, MethodEasyLLP, loss.HeadLogits, &loss.EasyLLP{Prior: bagPrior(env), Flood: env.Config.Flood})
}

// bagPrior is the class frequency of the training bags: their proportions
// weighted by their sizes.
func bagPrior(env *MethodEnv) []float64 {
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
