package kernel

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// Basis is the expansion f(x) = Σ_j θ_j k(z_j, x) + b over the centres z_j
// (all training points: exact; m landmarks: Nyström).
type Basis struct {
	Kind    Kind
	Gamma   float64
	Centres *mat.Dense // m×d, standardized
	Exact   bool       // centres are all training points
}

// DefaultMaxExact is the largest training set solved with the exact kernel
// matrix; larger sets use a Nyström basis of DefaultMaxExact landmarks
// (A is n×m: 8192×2048 float64 = 128 MiB for Adult at bag size 8).
const DefaultMaxExact = 2048

// NewBasis returns the exact basis of Z when its n rows are ≤ maxExact, else
// a Nyström basis of maxExact landmarks drawn uniformly without replacement
// by r (maxExact ≤ 0 means DefaultMaxExact).
func NewBasis(kind Kind, gamma float64, Z *mat.Dense, maxExact int, r *rand.Rand) *Basis {
	if maxExact <= 0 {
		maxExact = DefaultMaxExact
	}
	n, _ := Z.Dims()
	if n <= maxExact {
		return &Basis{Kind: kind, Gamma: gamma, Centres: Z, Exact: true}
	}
	perm := r.Perm(n)[:maxExact]
	return &Basis{Kind: kind, Gamma: gamma, Centres: rows(Z, perm)}
}

// Design returns A = k(Z, centres) (n×m) and R = k(centres, centres).
func (bs *Basis) Design(Z mat.Matrix) (A, R *mat.Dense) {
	A = Gram(bs.Kind, bs.Gamma, Z, bs.Centres)
	if bs.Exact {
		return A, A
	}
	return A, Gram(bs.Kind, bs.Gamma, bs.Centres, bs.Centres)
}

// NystromError returns ‖K − K_nm K_mm⁺ K_mn‖_F / ‖K‖_F for the rows of Z and
// the landmarks L: the relative error of the Nyström approximation of the
// Gram matrix (K_mm⁺ through a symmetric eigendecomposition, eigenvalues
// below 1e-12·λ_max dropped).
func NystromError(kind Kind, gamma float64, Z, L mat.Matrix) (float64, error) {
	K := Gram(kind, gamma, Z, Z)
	Knm := Gram(kind, gamma, Z, L)
	Kmm := Gram(kind, gamma, L, L)
	m, _ := Kmm.Dims()
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(m, Kmm.RawMatrix().Data), true) {
		return 0, errors.New("nystrom: eigendecomposition failed")
	}
	vals := eig.Values(nil)
	var V mat.Dense
	eig.VectorsTo(&V)
	top := vals[len(vals)-1]
	for i, v := range vals {
		s := 0.0
		if v > 1e-12*top {
			s = 1 / math.Sqrt(v)
		}
		for r := 0; r < m; r++ {
			V.Set(r, i, V.At(r, i)*s)
		}
	}
	var F, approx mat.Dense
	F.Mul(Knm, &V) // Φ = K_nm V Λ^{-1/2}
	approx.Mul(&F, F.T())
	var diff mat.Dense
	diff.Sub(K, &approx)
	return mat.Norm(&diff, 2) / mat.Norm(K, 2), nil
}

// Model is a trained kernel scorer: standardize, expand, add b.
type Model struct {
	Std   *Standardizer
	Basis *Basis
	Theta []float64
	B     float64
}

// Score returns f(x) for every row of X (raw features).
func (m *Model) Score(X mat.Matrix) []float64 {
	Z := m.Std.Apply(X)
	A := Gram(m.Basis.Kind, m.Basis.Gamma, Z, m.Basis.Centres)
	t := mat.NewVecDense(len(m.Theta), m.Theta)
	n, _ := A.Dims()
	out := mat.NewVecDense(n, nil)
	out.MulVec(A, t)
	s := out.RawVector().Data
	for i := range s {
		s[i] += m.B
	}
	return s
}

// InstanceLoss is a per-instance loss of the score t_i: it adds the weighted
// losses Σ_i ℓ_i(t_i) and, when g is not nil, sets g_i = dℓ_i/dt_i.
type InstanceLoss func(t, g []float64) float64

// Objective is J(θ, b) = L(Aθ + b) + λθᵀRθ (b only when Bias).
type Objective struct {
	A, R   *mat.Dense
	Lambda float64
	Bias   bool
	Loss   InstanceLoss
}

// dim is the number of parameters.
func (o *Objective) dim() int {
	_, m := o.A.Dims()
	if o.Bias {
		return m + 1
	}
	return m
}

func (o *Objective) split(x []float64) (theta []float64, b float64) {
	_, m := o.A.Dims()
	if o.Bias {
		return x[:m], x[m]
	}
	return x[:m], 0
}

// Scores returns t = Aθ + b.
func (o *Objective) Scores(x []float64) []float64 {
	theta, b := o.split(x)
	n, _ := o.A.Dims()
	t := mat.NewVecDense(n, nil)
	t.MulVec(o.A, mat.NewVecDense(len(theta), theta))
	s := t.RawVector().Data
	for i := range s {
		s[i] += b
	}
	return s
}

// ValueGrad returns J(x) and, when grad is not nil, fills ∇J(x):
// ∇_θ = Aᵀg + 2λRθ, ∂_b = Σ g_i.
func (o *Objective) ValueGrad(x, grad []float64) float64 {
	theta, _ := o.split(x)
	tv := mat.NewVecDense(len(theta), theta)
	t := o.Scores(x)
	var g []float64
	if grad != nil {
		g = make([]float64, len(t))
	}
	f := o.Loss(t, g)
	var Rt mat.VecDense
	Rt.MulVec(o.R, tv)
	f += o.Lambda * mat.Dot(tv, &Rt)
	if grad != nil {
		gv := mat.NewVecDense(len(g), g)
		var Ag mat.VecDense
		Ag.MulVec(o.A.T(), gv)
		for j := range theta {
			grad[j] = Ag.AtVec(j) + 2*o.Lambda*Rt.AtVec(j)
		}
		if o.Bias {
			s := 0.0
			for _, v := range g {
				s += v
			}
			grad[len(theta)] = s
		}
	}
	return f
}

// Solver holds the L-BFGS settings. The LMMCM code (run_experiment.py)
// calls scipy's L-BFGS-B with ftol 1e-5, maxiter 100, maxcor 80, which the
// LLPFC authors say they modified; Default mirrors it with gonum's LBFGS:
// memory 80, at most 100 major iterations, stop when one iteration improves
// J by less than 1e-5·max(|J|, 1) (scipy's ftol test).
type Solver struct {
	MaxIter int
	Memory  int
	FTol    float64
}

// DefaultSolver is the authors' setting.
var DefaultSolver = Solver{MaxIter: 100, Memory: 80, FTol: 1e-5}

// Minimize runs L-BFGS from x0 and returns the best point found.
func (s Solver) Minimize(o *Objective, x0 []float64) ([]float64, float64, error) {
	if len(x0) != o.dim() {
		return nil, 0, fmt.Errorf("kernel: start has %d parameters, want %d", len(x0), o.dim())
	}
	p := optimize.Problem{
		Func: func(x []float64) float64 { return o.ValueGrad(x, nil) },
		Grad: func(grad, x []float64) { o.ValueGrad(x, grad) },
	}
	set := &optimize.Settings{
		MajorIterations: s.MaxIter,
		Converger:       &optimize.FunctionConverge{Absolute: s.FTol, Relative: s.FTol, Iterations: 1},
	}
	res, err := optimize.Minimize(p, x0, set, &optimize.LBFGS{Store: s.Memory})
	if res == nil {
		return nil, 0, fmt.Errorf("kernel: L-BFGS: %w", err)
	}
	if math.IsNaN(res.F) || math.IsInf(res.F, 0) {
		return nil, 0, fmt.Errorf("kernel: L-BFGS ended at a non-finite objective %v", res.F)
	}
	// A line-search failure after progress still leaves the best point.
	return res.X, res.F, nil
}

// initTheta draws θ ~ U(−½, ½) (the LMMCM code's start) and b = 0.
func initTheta(dim int, r *rand.Rand) []float64 {
	x := make([]float64, dim)
	for i := range x {
		x[i] = r.Float64() - 0.5
	}
	return x
}
