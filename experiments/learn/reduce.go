package learn

import (
	"fmt"
	"math/rand/v2"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/training/methods"
	"gonum.org/v1/gonum/mat"
)

// FCProblem is the LLPFC reduction of a cell's bags in the flat form a
// learner trains on (Section 5, Algorithms 1–3): each instance carries its
// noisy label ỹ (its bag's row in its group), the index of its group's T̂_i
// and its weight, so that the empirical risk is
// Σ_x Weight_x · ℓ_{T̂_{Group_x}}(f(x), ỹ_x).
type FCProblem struct {
	T        []*mat.Dense // T̂_i, one per group
	Inst     []fcInstance
	Leftover int // bags in no group (when the number of bags is not a multiple of C)
	// Reduction is the estimators' full result (Γ̂_i, α̂_i, σ̂_i, diagnostics).
	Reduction *estimators.Reduction
}

type fcInstance struct {
	Index  int     // row of the training data
	Noisy  int     // ỹ
	Group  int     // i
	Weight float64 // the instance's weight in the empirical risk
}

// Reduce partitions the bags into groups afresh from r and computes T̂_i and
// the instance weights with package estimators (estimators.Build): the
// method picks the mode (llpfc-ideal → Algorithm 1 with plug-in σ̂ and Γ̂_i,
// llpfc-uniform → Algorithm 2, llpfc-approx → Algorithm 3), Hyper.Weights
// the group weights w (default uniform, w_i = 1/N as in Section 6) and
// Hyper.Compat the paper's algorithms or the original code's behaviour.
func Reduce(bags *estimators.BagSet, c experiments.Config, r *rand.Rand) (*FCProblem, error) {
	d, ok := experiments.Method(c.Method)
	if !ok || d.Family != methods.FamilyLLPFC {
		return nil, fmt.Errorf("method %s: not an LLPFC method", c.Method)
	}
	red, err := estimators.Build(bags, estimators.Options{Mode: d.Mode, Weights: c.Hyper.Weights, Compat: c.Hyper.Compat}, r)
	if err != nil {
		return nil, err
	}
	inst, err := red.Instances()
	if err != nil {
		return nil, err
	}
	p := &FCProblem{Leftover: len(red.Leftover), Reduction: red}
	for _, g := range red.Groups {
		p.T = append(p.T, g.T)
	}
	p.Inst = make([]fcInstance, len(inst))
	for i, in := range inst {
		p.Inst[i] = fcInstance{Index: in.Index, Noisy: in.NoisyLabel, Group: in.Group, Weight: in.Weight}
	}
	return p, nil
}
