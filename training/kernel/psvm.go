package kernel

import (
	"errors"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// The competitors InvCal and alter-∝SVM run as in the pSVM code the LMMCM
// authors used (pSVM/*.m at commit adb57fa, modified from Felix Yu's
// implementation): the continuous columns standardized with the training
// rows' statistics, the kernel exp(−γ‖x−y‖) with γ ∈ {1, 0.1, 0.01}
// (kernel_f.m), 5-fold CV on the size-weighted bag error.

// PSVMGammas are the kernel widths of kernel_f.m ("rbf1", "rbf01", "rbf001").
var PSVMGammas = []float64{1, 0.1, 0.01}

// ExpModel is f(x) = Σ_k Coef_k·exp(−γ‖z_k − z(x)‖) + B over standardized
// training points z_k.
type ExpModel struct {
	Std     *Standardizer
	Gamma   float64
	Centres *mat.Dense
	Coef    []float64
	B       float64
}

// Score evaluates f on the rows of X in chunks of 256 rows.
func (m *ExpModel) Score(X mat.Matrix) []float64 {
	Z := m.Std.Apply(X)
	n, _ := Z.Dims()
	out := make([]float64, n)
	c := mat.NewVecDense(len(m.Coef), m.Coef)
	for lo := 0; lo < n; lo += 256 {
		hi := min(n, lo+256)
		G := Gram(ExpDist, m.Gamma, Z.Slice(lo, hi, 0, Z.RawMatrix().Cols), m.Centres)
		var v mat.VecDense
		v.MulVec(G, c)
		for i := lo; i < hi; i++ {
			out[i] = v.AtVec(i-lo) + m.B
		}
	}
	return out
}

// bagRows lists the rows of every bag in bag order and the bag of each row.
func bagRows(d Data) (idx, bagOf []int) {
	for k, b := range d.Bags.Bags {
		for _, i := range b.Indices {
			idx = append(idx, i)
			bagOf = append(bagOf, k)
		}
	}
	return idx, bagOf
}

// BagError is the pSVM code's model-selection criterion (get_bag_err in
// test_all_method.m): Σ_bags |b|/N·|p̂_b − p_b|, p̂_b the fraction of the
// bag's instances with f > 0.
func BagError(s Scorer, d Data) (float64, error) {
	idx, bagOf := bagRows(d)
	if len(idx) == 0 {
		return 0, errors.New("kernel: no validation instances")
	}
	f := s.Score(rows(d.X, idx))
	pos := make([]float64, len(d.Bags.Bags))
	size := make([]float64, len(d.Bags.Bags))
	for r, k := range bagOf {
		size[k]++
		if f[r] > 0 {
			pos[k]++
		}
	}
	e := 0.0
	for k := range pos {
		if size[k] > 0 {
			e += math.Abs(pos[k]/size[k]-d.prop(k)) * size[k] / float64(len(idx))
		}
	}
	return e, nil
}

// InvCal is Rüping's inverse calibration (ICML 2010) in the dual form of
// invcal_dual.m: each bag b is one regression example, its kernel mean
// embedding with target z_b = log(p_b/(1−p_b)) (p_b clipped to
// [1/N, 1−1/N], N the number of training instances) and tube width
// ε_b = ε/(p_b(1−p_b)); ε-SVR with loss weight C on the bag-level kernel
// K_bag(a, b) = mean_{x∈a, x'∈b} k(x, x'). f(x) = Σ_b (α_b − α*_b)·mean_{x'∈b}
// k(x, x') + b₀. Grid C ∈ {0.1, 1, 10}, ε ∈ {0, 0.01, 0.1}, γ ∈ PSVMGammas.
type InvCal struct{}

// Name is "invcal".
func (InvCal) Name() string { return "invcal" }

// Grid is the 27 points of InvCal_cv.m.
func (InvCal) Grid() []Params {
	var g []Params
	for _, gm := range PSVMGammas {
		for _, e := range []float64{0, 0.01, 0.1} {
			for _, c := range []float64{0.1, 1, 10} {
				g = append(g, Params{C: c, Eps: e, Gamma: gm})
			}
		}
	}
	return g
}

// Fit solves the bag-level ε-SVR with SolveQP.
func (InvCal) Fit(d Data, p Params, _ int64) (Scorer, error) {
	idx, bagOf := bagRows(d)
	if len(idx) == 0 {
		return nil, errNoTraining
	}
	e := d.standardizedDistances(idx)
	std, Z := e.std, e.Z
	nb := len(d.Bags.Bags)
	size := make([]float64, nb)
	for _, k := range bagOf {
		size[k]++
	}
	// K_bag = Mᵀ K M, M(r, b) = 1/|b| for row r in bag b, by blocks of rows.
	Kb := mat.NewDense(nb, nb, nil)
	n := len(idx)
	kb := Kb.RawMatrix()
	for r := 0; r < n; r++ {
		a := bagOf[r]
		for c := 0; c < n; c++ {
			b := bagOf[c]
			kb.Data[a*kb.Stride+b] += math.Exp(-p.Gamma*math.Sqrt(e.D.At(r, c))) / (size[a] * size[b])
		}
	}
	N := float64(n)
	base := make([]int, 2*nb)
	y := make([]float64, 2*nb)
	lin := make([]float64, 2*nb)
	C := make([]float64, 2*nb)
	for b := 0; b < nb; b++ {
		pb := math.Min(math.Max(d.prop(b), 1/N), 1-1/N)
		z := math.Log(pb / (1 - pb))
		eps := p.Eps / (pb * (1 - pb))
		base[b], base[nb+b] = b, b
		y[b], y[nb+b] = 1, -1
		lin[b], lin[nb+b] = eps-z, eps+z
		C[b], C[nb+b] = p.C, p.C
	}
	sol, err := SolveQP(QP{Gram: Kb, Base: base, Y: y, P: lin, C: C}, DefaultQPTol)
	if err != nil {
		return nil, err
	}
	coef := make([]float64, n)
	for r, b := range bagOf {
		coef[r] = (sol.A[b] - sol.A[nb+b]) / size[b]
	}
	return &ExpModel{Std: std, Gamma: p.Gamma, Centres: Z, Coef: coef, B: -sol.Rho}, nil
}

// ValidationLoss is BagError.
func (InvCal) ValidationLoss(s Scorer, d Data, _ int64) (float64, error) { return BagError(s, d) }

// AlterPSVM is alter-∝SVM (Yu et al., ICML 2013) as alternating_svm_dual_
// with_slack.m and test_all_method.m run it: minimize over labels y and an
// SVM (α, b)
//
//	C·Σ_i max(0, 1 − y_i f(x_i)) + ½‖f‖² + C_p·Σ_b |b|·|p̂_b(y) − p_b|
//
// alternately — the w-step a C-SVC on the current labels (SolveQP), the
// y-step per bag exactly (sort the hinge-loss decrease of flipping to +1 and
// take the best number of positives) — until the objective changes by less
// than 0.01 (at most 100 rounds), with the annealing of test_all_method.m:
// the loss weight runs from 10⁻⁴C up by ×1.5 to C, each stage starting from
// the previous labels; the first from a random half of the labels −1. Grid
// C ∈ {0.1, 1, 10}, C_p ∈ {1, 10, 100}, γ ∈ PSVMGammas (alterPSVM_cv.m).
type AlterPSVM struct {
	MaxIter int // alternations per stage (0: 100)
}

// Name is "alter-psvm".
func (AlterPSVM) Name() string { return "alter-psvm" }

// Grid is the 27 points of alterPSVM_cv.m.
func (AlterPSVM) Grid() []Params {
	var g []Params
	for _, gm := range PSVMGammas {
		for _, cp := range []float64{1, 10, 100} {
			for _, c := range []float64{0.1, 1, 10} {
				g = append(g, Params{C: c, Cp: cp, Gamma: gm})
			}
		}
	}
	return g
}

// svm is a trained C-SVC: decision Σ Coef_i K(i, ·) + B over training rows.
type svm struct {
	coef []float64
	b    float64
	f    []float64 // decision values on the training rows
}

// trainSVM solves the C-SVC on the precomputed kernel K with labels y ∈ ±1.
// ok is false when y has a single class (libsvm then returns no support
// vector and the pSVM code keeps its previous model).
func trainSVM(K *mat.Dense, y []float64, C float64) (*svm, bool, error) {
	n := len(y)
	hasPos, hasNeg := false, false
	for _, v := range y {
		hasPos = hasPos || v > 0
		hasNeg = hasNeg || v < 0
	}
	if !hasPos || !hasNeg {
		return nil, false, nil
	}
	base := make([]int, n)
	p := make([]float64, n)
	Cs := make([]float64, n)
	for i := range base {
		base[i], p[i], Cs[i] = i, -1, C
	}
	sol, err := SolveQP(QP{Gram: K, Base: base, Y: y, P: p, C: Cs}, DefaultQPTol)
	if err != nil {
		return nil, false, err
	}
	m := &svm{coef: make([]float64, n), b: -sol.Rho}
	for i := range y {
		m.coef[i] = y[i] * sol.A[i]
	}
	fv := mat.NewVecDense(n, nil)
	fv.MulVec(K, mat.NewVecDense(n, m.coef))
	m.f = fv.RawVector().Data
	for i := range m.f {
		m.f[i] += m.b
	}
	return m, true, nil
}

// LabelStep returns the labels minimizing, bag by bag,
// Σ_{i∈b} max(0, 1 − y_i f_i) + ratio·|b|·|p̂_b(y) − p_b| given f (optimize_y
// with ε = 0): start all −1, flip to +1 in decreasing order of the hinge
// decrease, take the first best count. bags lists the rows of each bag.
func LabelStep(f []float64, bags [][]int, props []float64, ratio float64) []float64 {
	y := make([]float64, len(f))
	for i := range y {
		y[i] = -1
	}
	for k, rowsK := range bags {
		nk := len(rowsK)
		gain := make([]float64, nk)
		base := 0.0
		for j, i := range rowsK {
			xn := math.Max(0, 1+f[i])
			xp := math.Max(0, 1-f[i])
			gain[j] = xn - xp
			base += xn
		}
		ord := make([]int, nk)
		for j := range ord {
			ord[j] = j
		}
		sort.SliceStable(ord, func(a, b int) bool { return gain[ord[a]] > gain[ord[b]] })
		best, bestObj, cum := 0, math.Inf(1), 0.0
		for npos := 0; npos <= nk; npos++ {
			if npos > 0 {
				cum += gain[ord[npos-1]]
			}
			obj := base - cum + ratio*float64(nk)*math.Abs(props[k]-float64(npos)/float64(nk))
			if obj < bestObj {
				best, bestObj = npos, obj
			}
		}
		for j := 0; j < best; j++ {
			y[rowsK[ord[j]]] = 1
		}
	}
	return y
}

// psvmObjective is compute_obj of alternating_svm_dual_with_slack.m.
func psvmObjective(K *mat.Dense, m *svm, y []float64, bags [][]int, props []float64, C, Cp float64) float64 {
	hinge := 0.0
	for i := range y {
		hinge += math.Max(0, 1-y[i]*m.f[i])
	}
	c := mat.NewVecDense(len(m.coef), m.coef)
	var Kc mat.VecDense
	Kc.MulVec(K, c)
	reg := 0.5 * mat.Dot(c, &Kc)
	prop := 0.0
	for k, rk := range bags {
		pos := 0.0
		for _, i := range rk {
			if y[i] > 0 {
				pos++
			}
		}
		prop += float64(len(rk)) * math.Abs(pos/float64(len(rk))-props[k])
	}
	return C*hinge + reg + Cp*prop
}

// alternate is alternating_svm_dual_with_slack.m at a fixed loss weight C:
// from labels y, w-step and y-step until the objective changes by less than
// 0.01 or maxIter rounds; it returns the last SVM (nil if the labels never
// had two classes), the labels and the objective after every round.
func alternate(K *mat.Dense, y []float64, bags [][]int, props []float64, C, Cp float64, maxIter int) (*svm, []float64, []float64, error) {
	var model *svm
	var objs []float64
	objPre := math.Inf(1)
	for it := 0; it < maxIter; it++ {
		m, ok, err := trainSVM(K, y, C)
		if err != nil {
			return nil, nil, nil, err
		}
		if !ok {
			break // single-class labels: keep the previous model
		}
		model = m
		y = LabelStep(m.f, bags, props, Cp/C)
		obj := psvmObjective(K, m, y, bags, props, C, Cp)
		objs = append(objs, obj)
		if math.Abs(obj-objPre) < 0.01 {
			break
		}
		objPre = obj
	}
	return model, y, objs, nil
}

// Fit runs the annealed alternating solver.
func (a AlterPSVM) Fit(d Data, p Params, seed int64) (Scorer, error) {
	idx, bagOf := bagRows(d)
	if len(idx) == 0 {
		return nil, errNoTraining
	}
	e := d.standardizedDistances(idx)
	std, Z := e.std, e.Z
	K := mat.DenseCopyOf(e.D)
	applyKernel(ExpDist, p.Gamma, K)
	n := len(idx)
	bags := make([][]int, len(d.Bags.Bags))
	props := make([]float64, len(d.Bags.Bags))
	for r, k := range bagOf {
		bags[k] = append(bags[k], r)
	}
	for k := range props {
		props[k] = d.prop(k)
	}
	y := make([]float64, n)
	for i := range y {
		y[i] = 1
	}
	for _, i := range stream(seed, "psvm-init").Perm(n)[:n/2] {
		y[i] = -1
	}
	maxIter := a.MaxIter
	if maxIter <= 0 {
		maxIter = 100
	}
	var model *svm
	for Ccur := 1e-4 * p.C; Ccur != p.C; {
		Ccur = math.Min(Ccur*1.5, p.C)
		m, yNew, _, err := alternate(K, y, bags, props, Ccur, p.Cp, maxIter)
		if err != nil {
			return nil, err
		}
		if m != nil {
			model, y = m, yNew
		}
	}
	if model == nil {
		// No SVM was ever trained: the pSVM code predicts +1 everywhere.
		return &ExpModel{Std: std, Gamma: p.Gamma, Centres: Z, Coef: make([]float64, n), B: 1}, nil
	}
	return &ExpModel{Std: std, Gamma: p.Gamma, Centres: Z, Coef: model.coef, B: model.b}, nil
}

// ValidationLoss is BagError.
func (AlterPSVM) ValidationLoss(s Scorer, d Data, _ int64) (float64, error) { return BagError(s, d) }

var _ Method = InvCal{}
var _ Method = AlterPSVM{}
