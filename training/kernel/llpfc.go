package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/internal/rng"
)

// stream is the random stream name of a kernel-method fit.
func stream(seed int64, name string) *rand.Rand {
	return rng.New(seed, "kernel/"+name)
}

// LLPFC is binary LLPFC (Algorithms 2 and 3 with C = 2) with an RBF kernel
// model f(x) = Σ_j β_j k(x_j, x) + b and the logistic loss: the positive
// posterior is σ(f(x)), the clean posterior η = (1−σ, σ), and an instance
// of group i with noisy label c̃ costs −log (T̂_iη(x))_{c̃}, weighted by
// w_i·α̂_i(c̃)/|b| (estimators.Reduction.InstanceWeight). The grouping, T̂_i
// and weights come from estimators.BuildSeed with Options{Mode}.
type LLPFC struct {
	Mode     estimators.Mode // ModeUniform or ModeApprox
	Weights  estimators.WeightScheme
	MaxExact int // exact kernel up to this many instances (0: DefaultMaxExact)
}

// Name is "llpfc-uniform" or "llpfc-approx".
func (m LLPFC) Name() string { return "llpfc-" + m.Mode.String() }

// Grid is λ ∈ LambdaGrid.
func (m LLPFC) Grid() []Params {
	var g []Params
	for _, l := range LambdaGrid {
		g = append(g, Params{Lambda: l})
	}
	return g
}

// fcLoss is the forward-corrected logistic loss of the instances rows (of
// the full data) under the reduction red.
type fcTerms struct {
	noisy  []int
	weight []float64
	T      [][4]float64 // T̂ of the instance's group, row-major
}

func fcTermsOf(red *estimators.Reduction, n int, idx []int) (*fcTerms, error) {
	noisy, group, w, err := red.InstanceArrays(n)
	if err != nil {
		return nil, err
	}
	ft := &fcTerms{}
	for _, i := range idx {
		g := red.Groups[group[i]].T
		ft.noisy = append(ft.noisy, noisy[i])
		ft.weight = append(ft.weight, w[i])
		ft.T = append(ft.T, [4]float64{g.At(0, 0), g.At(0, 1), g.At(1, 0), g.At(1, 1)})
	}
	return ft, nil
}

// weighted returns the row indices with positive weight.
func weighted(red *estimators.Reduction, n int) ([]int, error) {
	_, group, w, err := red.InstanceArrays(n)
	if err != nil {
		return nil, err
	}
	var idx []int
	for i := range w {
		if w[i] > 0 && group[i] >= 0 {
			idx = append(idx, i)
		}
	}
	return idx, nil
}

// FCLoss returns Σ_i w_i·(−log (T̂η(t_i))_{c̃_i}) and its derivative in t.
// log (T̂η)_{c̃} = logsumexp(log T̂(c̃,0) + log σ(−t), log T̂(c̃,1) + log σ(t)).
func (ft *fcTerms) loss(t, g []float64) float64 {
	f := 0.0
	for i, ti := range t {
		c := ft.noisy[i]
		T0, T1 := ft.T[i][2*c], ft.T[i][2*c+1]
		l0 := math.Log(T0) - log1pexp(ti)  // log T(c,0) + log σ(−t)
		l1 := math.Log(T1) - log1pexp(-ti) // log T(c,1) + log σ(t)
		mx := math.Max(l0, l1)
		lq := mx + math.Log(math.Exp(l0-mx)+math.Exp(l1-mx))
		f -= ft.weight[i] * lq
		if g != nil {
			r0 := math.Exp(l0 - lq) // posterior of clean class 0 given noisy c
			s := sigmoid(ti)
			g[i] = ft.weight[i] * (r0*s - (1-r0)*(1-s))
		}
	}
	return f
}

// Fit builds the reduction of the bags and minimizes the regularized
// empirical risk of Algorithm 2/3 by L-BFGS.
func (m LLPFC) Fit(d Data, p Params, seed int64) (Scorer, error) {
	red, err := estimators.BuildSeed(d.Bags, estimators.Options{Mode: m.Mode, Weights: m.Weights}, seed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Name(), err)
	}
	n, _ := d.X.Dims()
	idx, err := weighted(red, n)
	if err != nil {
		return nil, err
	}
	ft, err := fcTermsOf(red, n, idx)
	if err != nil {
		return nil, err
	}
	return fitSmooth(d, idx, p.Lambda, true, m.MaxExact, seed, func([]int) InstanceLoss { return ft.loss })
}

// ValidationLoss is the empirical risk of Algorithm 2/3 (λ = 0) of the held-
// out bags, grouped afresh — the appendix's CV criterion ("using the
// empirical risk provided in Algorithm 2 and Algorithm 3").
func (m LLPFC) ValidationLoss(s Scorer, d Data, seed int64) (float64, error) {
	red, err := estimators.BuildSeed(d.Bags, estimators.Options{Mode: m.Mode, Weights: m.Weights}, seed)
	if err != nil {
		return 0, err
	}
	n, _ := d.X.Dims()
	idx, err := weighted(red, n)
	if err != nil {
		return 0, err
	}
	if len(idx) == 0 {
		return math.Inf(1), errNoTraining
	}
	ft, err := fcTermsOf(red, n, idx)
	if err != nil {
		return 0, err
	}
	return ft.loss(s.Score(rows(d.X, idx)), nil), nil
}

var _ Method = LLPFC{}
