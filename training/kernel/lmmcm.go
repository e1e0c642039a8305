package kernel

import (
	"math"
	"sort"
)

// LMMCM is the method of Scott & Zhang (AISTATS 2020) as their code runs it
// (LMMCM/models/kernel_model.py, utils/model_utils.py at commit adb57fa):
// bags sorted by proportion and paired greedily (the i-th smallest with the
// i-th largest, generate_pairs 'greedy'); pairs with γ⁺ = γ⁻ dropped; pair
// weights ∝ (γ⁺ − γ⁻)² summing to 1 ('fixed_size_optimal'); instance weight
// ω = w_pair/|pair|; the backward-corrected logistic loss
// ω(η⁺ℓ(t, +1) + η⁻ℓ(t, −1)) with, for an instance of the pair's bag of
// larger proportion (noisy +1), η⁺ = (1−γ⁻)/Δ, η⁻ = −γ⁻/Δ, and of the other
// bag (noisy −1), η⁺ = (γ⁺−1)/Δ, η⁻ = γ⁺/Δ, Δ = γ⁺ − γ⁻; f(x) = Σβ_j k(x_j, x)
// with no offset; regularizer λβᵀKβ; L-BFGS from β ~ U(−½, ½).
type LMMCM struct {
	MaxExact int
}

// Name is "lmmcm".
func (LMMCM) Name() string { return "lmmcm" }

// Grid is λ ∈ LambdaGrid (run_experiment.py).
func (LMMCM) Grid() []Params { return LLPFC{}.Grid() }

// bcTerms holds the per-instance coefficients of the backward-corrected loss.
type bcTerms struct {
	rows           []int
	omega, ep, emn []float64 // ω, η⁺, η⁻
}

// Pair is one LMMCM bag pair: positions of the bags of larger (Plus) and
// smaller (Minus) proportion.
type Pair struct {
	Plus, Minus        int
	GammaPlus, GammaMn float64
}

// GreedyPairs pairs the bags as generate_pairs(strategy='greedy'): sorted
// by proportion (stable), position i with position n−1−i. With an odd
// number of bags the median bag is left out (the original asserts even).
// Pairs with equal proportions are dropped (drop_invalid_bags).
func GreedyPairs(d Data) []Pair {
	nb := len(d.Bags.Bags)
	ord := make([]int, nb)
	for i := range ord {
		ord[i] = i
	}
	sort.SliceStable(ord, func(a, b int) bool { return d.prop(ord[a]) < d.prop(ord[b]) })
	var out []Pair
	for i := 0; i < nb/2; i++ {
		lo, hi := ord[i], ord[nb-1-i]
		if d.prop(hi) == d.prop(lo) {
			continue
		}
		out = append(out, Pair{Plus: hi, Minus: lo, GammaPlus: d.prop(hi), GammaMn: d.prop(lo)})
	}
	return out
}

// Eta returns (η⁺, η⁻) of an instance with noisy label +1 (plus) or −1.
func Eta(gp, gm float64, plus bool) (float64, float64) {
	D := gp - gm
	if plus {
		return (1 - gm) / D, -gm / D
	}
	return (gp - 1) / D, gp / D
}

func bcTermsOf(d Data) *bcTerms {
	pairs := GreedyPairs(d)
	sumW := 0.0
	for _, p := range pairs {
		sumW += (p.GammaPlus - p.GammaMn) * (p.GammaPlus - p.GammaMn)
	}
	bt := &bcTerms{}
	for _, p := range pairs {
		w := (p.GammaPlus - p.GammaMn) * (p.GammaPlus - p.GammaMn) / sumW
		bp, bm := d.Bags.Bags[p.Plus], d.Bags.Bags[p.Minus]
		omega := w / float64(bp.Size+bm.Size)
		for k, b := range []struct {
			idx  []int
			plus bool
		}{{bp.Indices, true}, {bm.Indices, false}} {
			_ = k
			e1, e2 := Eta(p.GammaPlus, p.GammaMn, b.plus)
			for _, i := range b.idx {
				bt.rows = append(bt.rows, i)
				bt.omega = append(bt.omega, omega)
				bt.ep = append(bt.ep, e1)
				bt.emn = append(bt.emn, e2)
			}
		}
	}
	return bt
}

// loss is Σ ω(η⁺ log(1+e^{−t}) + η⁻ log(1+e^{t})) and its derivative.
func (bt *bcTerms) loss(t, g []float64) float64 {
	f := 0.0
	for i, ti := range t {
		f += bt.omega[i] * (bt.ep[i]*log1pexp(-ti) + bt.emn[i]*log1pexp(ti))
		if g != nil {
			g[i] = bt.omega[i] * (-bt.ep[i]*sigmoid(-ti) + bt.emn[i]*sigmoid(ti))
		}
	}
	return f
}

// Fit minimizes the LMMCM objective.
func (m LMMCM) Fit(d Data, p Params, seed int64) (Scorer, error) {
	bt := bcTermsOf(d)
	return fitSmooth(d, bt.rows, p.Lambda, false, m.MaxExact, seed, func([]int) InstanceLoss { return bt.loss })
}

// ValidationLoss is the unregularized LMMCM objective on the held-out bags
// paired afresh ("noisy_loss" of the authors' GridSearch, get_test_obj).
func (LMMCM) ValidationLoss(s Scorer, d Data, _ int64) (float64, error) {
	bt := bcTermsOf(d)
	if len(bt.rows) == 0 {
		return math.Inf(1), errNoTraining
	}
	return bt.loss(s.Score(rows(d.X, bt.rows)), nil), nil
}

var _ Method = LMMCM{}
