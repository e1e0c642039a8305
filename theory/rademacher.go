package theory

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// MaxExactSigns is the largest number of Rademacher signs for which
// WeightedRad enumerates all 2^M sign vectors instead of sampling them.
const MaxExactSigns = 20

// SupOracle returns, for a sign vector eps (entries ±1), the supremum
// sup_{g∈G} Σ_i a_i ε_i g(x_i) of the weighted Rademacher sum over a function
// class G; the sample S=(x_i) and the weights a are bound into the oracle.
// For a vector-valued class the sign vector has one entry per (i, c) pair,
// laid out as eps[i*C+c] (Appendix C, Proposition `supp.prop: kernel_bound`).
type SupOracle func(eps []float64) float64

// RadEstimate is the value of a weighted Rademacher complexity.
type RadEstimate struct {
	Value  float64 // E_ε sup_g Σ_i a_i ε_i g(x_i), exact or Monte Carlo
	StdErr float64 // standard error of Value; 0 when Exact
	Exact  bool    // all 2^M sign vectors were enumerated
	Draws  int     // sign vectors averaged over (2^M when Exact)
}

// WeightedRad returns the weighted Rademacher complexity
//
//	Rad_{S,a}(G) = E_ε sup_{g∈G} Σ_{i=1}^M a_i ε_i g(x_i)
//
// (Appendix C, the definition before Proposition
// `supp.prop.weighted_rad_properties`) of the class whose supremum sup
// computes, for m sign variables. With m ≤ MaxExactSigns it enumerates all
// 2^m sign vectors (exact; rnd and draws are ignored and rnd may be nil);
// otherwise it averages draws independent sign vectors drawn from rnd and
// reports the standard error.
func WeightedRad(m int, sup SupOracle, rnd *rand.Rand, draws int) (RadEstimate, error) {
	if m <= MaxExactSigns {
		v, err := WeightedRadExact(m, sup)
		if err != nil {
			return RadEstimate{}, err
		}
		return RadEstimate{Value: v, Exact: true, Draws: 1 << m}, nil
	}
	return WeightedRadMC(m, sup, rnd, draws)
}

// WeightedRadExact returns Rad_{S,a}(G) by enumerating all 2^m sign vectors
// (Appendix C, definition of Rad_{S,a}); m must be in [1, MaxExactSigns].
func WeightedRadExact(m int, sup SupOracle) (float64, error) {
	if m < 1 || m > MaxExactSigns {
		return 0, fmt.Errorf("m: is %d, want 1 ≤ m ≤ %d for exact enumeration", m, MaxExactSigns)
	}
	if sup == nil {
		return 0, errors.New("sup: nil oracle")
	}
	eps := make([]float64, m)
	total := 0.0
	n := 1 << m
	for mask := 0; mask < n; mask++ {
		for i := range eps {
			if mask>>i&1 == 1 {
				eps[i] = 1
			} else {
				eps[i] = -1
			}
		}
		v := sup(eps)
		if math.IsNaN(v) {
			return math.NaN(), fmt.Errorf("sup: returned NaN for sign vector %v", eps)
		}
		total += v
	}
	return total / float64(n), nil
}

// WeightedRadMC estimates Rad_{S,a}(G) by averaging the supremum over draws
// sign vectors drawn from rnd (Appendix C, definition of Rad_{S,a}), and
// returns the sample standard error of the mean. draws must be at least 2.
func WeightedRadMC(m int, sup SupOracle, rnd *rand.Rand, draws int) (RadEstimate, error) {
	switch {
	case m < 1:
		return RadEstimate{}, fmt.Errorf("m: is %d, want ≥ 1", m)
	case sup == nil:
		return RadEstimate{}, errors.New("sup: nil oracle")
	case rnd == nil:
		return RadEstimate{}, errors.New("rnd: nil random source (needed for Monte Carlo)")
	case draws < 2:
		return RadEstimate{}, fmt.Errorf("draws: is %d, want ≥ 2", draws)
	}
	eps := make([]float64, m)
	var mean, m2 float64
	for k := 1; k <= draws; k++ {
		RademacherSigns(rnd, eps)
		v := sup(eps)
		if math.IsNaN(v) {
			return RadEstimate{}, fmt.Errorf("sup: returned NaN for sign vector %v", eps)
		}
		d := v - mean
		mean += d / float64(k)
		m2 += d * (v - mean)
	}
	se := math.Sqrt(m2 / float64(draws-1) / float64(draws))
	return RadEstimate{Value: mean, StdErr: se, Draws: draws}, nil
}

// RademacherSigns fills eps with independent Rademacher signs (±1 with
// probability ½ each) drawn from rnd.
func RademacherSigns(rnd *rand.Rand, eps []float64) {
	for i := range eps {
		if rnd.Uint64()&1 == 1 {
			eps[i] = 1
		} else {
			eps[i] = -1
		}
	}
}

func radCheckWeights(a []float64) error {
	if len(a) == 0 {
		return errors.New("a: no weights (empty sample)")
	}
	for i, v := range a {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("a: entry %d is %g, want a finite number ≥ 0 (Appendix C: a_i ≥ 0)", i, v)
		}
	}
	return nil
}

func radCheckFinite(name string, M mat.Matrix) error {
	r, c := M.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if v := M.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%s: entry (%d,%d) is %v, want a finite number", name, i, j, v)
			}
		}
	}
	return nil
}

// FiniteClassSup returns the oracle of a finite real-valued class given by
// its values on the sample: values(g, i) = g(x_i), one row per function,
// one column per sample point. Its supremum is the maximum over rows of
// Σ_i a_i ε_i values(g, i) (Appendix C, definition of Rad_{S,a}).
func FiniteClassSup(values mat.Matrix, a []float64) (SupOracle, error) {
	if err := radCheckWeights(a); err != nil {
		return nil, err
	}
	G, M := values.Dims()
	if G == 0 {
		return nil, errors.New("values: empty class (no rows)")
	}
	if M != len(a) {
		return nil, fmt.Errorf("values: has %d columns (sample points), want len(a)=%d", M, len(a))
	}
	if err := radCheckFinite("values", values); err != nil {
		return nil, err
	}
	v := mat.DenseCopyOf(values)
	return func(eps []float64) float64 {
		best := math.Inf(-1)
		for g := 0; g < G; g++ {
			row := v.RawRowView(g)
			s := 0.0
			for i, x := range row {
				s += a[i] * eps[i] * x
			}
			if s > best {
				best = s
			}
		}
		return best
	}, nil
}

// FiniteVectorClassSup returns the oracle of a finite class of ℝ^C-valued
// functions: values[g] is the M×C matrix with entries g_c(x_i). Its supremum
// is max_g Σ_i a_i Σ_c ε_{i,c} g_c(x_i), with eps laid out as eps[i*C+c]
// (Lemmas `lemma: multi.rad.1` and `multi.rad.lemma`).
func FiniteVectorClassSup(values []mat.Matrix, a []float64) (SupOracle, error) {
	if err := radCheckWeights(a); err != nil {
		return nil, err
	}
	if len(values) == 0 {
		return nil, errors.New("values: empty class")
	}
	M := len(a)
	_, C := values[0].Dims()
	flat := make([][]float64, len(values))
	for g, V := range values {
		r, c := V.Dims()
		if r != M || c != C || C == 0 {
			return nil, fmt.Errorf("values[%d]: is %d×%d, want %d×%d (M×C)", g, r, c, M, C)
		}
		if err := radCheckFinite(fmt.Sprintf("values[%d]", g), V); err != nil {
			return nil, err
		}
		f := make([]float64, M*C)
		for i := 0; i < M; i++ {
			for k := 0; k < C; k++ {
				f[i*C+k] = a[i] * V.At(i, k)
			}
		}
		flat[g] = f
	}
	return func(eps []float64) float64 {
		best := math.Inf(-1)
		for _, f := range flat {
			s := 0.0
			for j, x := range f {
				s += eps[j] * x
			}
			if s > best {
				best = s
			}
		}
		return best
	}, nil
}

// LinearBallSup returns the oracle of the linear class
// {x ↦ ⟨v, x⟩ : ‖v‖₂ ≤ beta} — the first MLP layer 𝒩₁ of Section 4.3 —
// on the sample whose rows are x_i. By Cauchy–Schwarz its supremum is
// beta·‖Σ_i a_i ε_i x_i‖₂ (Appendix C, proof of Proposition
// `supp.prop: MLP_bound`).
func LinearBallSup(X mat.Matrix, a []float64, beta float64) (SupOracle, error) {
	if err := radCheckWeights(a); err != nil {
		return nil, err
	}
	M, d := X.Dims()
	if M != len(a) || d == 0 {
		return nil, fmt.Errorf("X: is %d×%d, want len(a)=%d rows and ≥ 1 column", M, d, len(a))
	}
	if err := radCheckFinite("X", X); err != nil {
		return nil, err
	}
	if !(beta >= 0) || math.IsInf(beta, 0) {
		return nil, fmt.Errorf("beta: is %g, want a finite number ≥ 0", beta)
	}
	x := mat.DenseCopyOf(X)
	z := make([]float64, d)
	return func(eps []float64) float64 {
		for k := range z {
			z[k] = 0
		}
		for i := 0; i < M; i++ {
			s := a[i] * eps[i]
			for k, v := range x.RawRowView(i) {
				z[k] += s * v
			}
		}
		n := 0.0
		for _, v := range z {
			n += v * v
		}
		return beta * math.Sqrt(n)
	}, nil
}

// RKHSBallSup returns the oracle of the ball of radius R of the RKHS of a
// kernel k, given the Gram matrix K(i,j) = k(x_i, x_j) of the sample. By the
// reproducing property and Cauchy–Schwarz its supremum is
// R·√(εᵀ A K A ε) with A = diag(a) (Appendix C, proof of Proposition
// `supp.prop: kernel_bound`, equality (supp.eq: CS)). K must be symmetric
// positive semidefinite (checked to 1e-9 relative).
func RKHSBallSup(K mat.Symmetric, a []float64, R float64) (SupOracle, error) {
	if err := radCheckWeights(a); err != nil {
		return nil, err
	}
	M := K.SymmetricDim()
	if M != len(a) {
		return nil, fmt.Errorf("K: is %d×%d, want len(a)=%d", M, M, len(a))
	}
	if err := radCheckFinite("K", K); err != nil {
		return nil, err
	}
	if !(R >= 0) || math.IsInf(R, 0) {
		return nil, fmt.Errorf("R: is %g, want a finite radius ≥ 0", R)
	}
	if err := radCheckPSD("K", K); err != nil {
		return nil, err
	}
	k := mat.NewSymDense(M, nil)
	k.CopySym(K)
	u := make([]float64, M)
	return func(eps []float64) float64 {
		for i := range u {
			u[i] = a[i] * eps[i]
		}
		q := 0.0
		for i := 0; i < M; i++ {
			s := 0.0
			for j := 0; j < M; j++ {
				s += k.At(i, j) * u[j]
			}
			q += u[i] * s
		}
		if q < 0 { // rounding on a singular K
			q = 0
		}
		return R * math.Sqrt(q)
	}, nil
}

// psdTol is the relative margin below 0 a Gram matrix's smallest
// eigenvalue may reach and still count as positive semidefinite: the
// symmetric eigensolver's backward error is a few ulps of the largest
// diagonal entry (≈ 1e-15 of it for the ≤ 16×16 Gram matrices here); 1e-9
// leaves room for Gram matrices assembled from rounded kernel values.
const psdTol = 1e-9

func radCheckPSD(name string, K mat.Symmetric) error {
	n := K.SymmetricDim()
	var eig mat.EigenSym
	if !eig.Factorize(K, false) {
		return fmt.Errorf("%s: eigendecomposition failed", name)
	}
	vals := eig.Values(nil)
	scale := 0.0
	for i := 0; i < n; i++ {
		scale = math.Max(scale, math.Abs(K.At(i, i)))
	}
	if vals[0] < -psdTol*math.Max(scale, 1) {
		return fmt.Errorf("%s: smallest eigenvalue is %g, want a positive semidefinite Gram matrix", name, vals[0])
	}
	return nil
}

// ProductSup returns the oracle of the Cartesian product G^C of C copies of
// a real-valued class G — the classes 𝒢₁ and 𝒢₂ of Section 4.3 — from the
// oracle of G on M points. Because the C components are chosen
// independently, sup_{g∈G^C} Σ_i a_i Σ_c ε_{i,c} g_c(x_i) = Σ_c sup_{g∈G}
// Σ_i a_i ε_{i,c} g(x_i), with eps laid out as eps[i*C+c].
func ProductSup(C, M int, sup SupOracle) (SupOracle, error) {
	if C < 1 || M < 1 {
		return nil, fmt.Errorf("C, M: are %d, %d, want both ≥ 1", C, M)
	}
	if sup == nil {
		return nil, errors.New("sup: nil oracle")
	}
	col := make([]float64, M)
	return func(eps []float64) float64 {
		total := 0.0
		for c := 0; c < C; c++ {
			for i := 0; i < M; i++ {
				col[i] = eps[i*C+c]
			}
			total += sup(col)
		}
		return total
	}, nil
}

// GaussianKernel returns k(x, y) = exp(−‖x−y‖²/(2·bw²)), a bounded SPD kernel
// with k(x, x) = 1, hence ‖k(·,x)‖_ℋ = 1 = K in the notation of Section 4.3.
func GaussianKernel(x, y []float64, bw float64) float64 {
	d := 0.0
	for i := range x {
		t := x[i] - y[i]
		d += t * t
	}
	return math.Exp(-d / (2 * bw * bw))
}

// GaussianGram returns the Gram matrix K(i,j) = exp(−‖x_i−x_j‖²/(2·bw²)) of
// the rows of X (see GaussianKernel). bw must be positive and finite.
func GaussianGram(X mat.Matrix, bw float64) (*mat.SymDense, error) {
	if !(bw > 0) || math.IsInf(bw, 0) {
		return nil, fmt.Errorf("bw: is %g, want a finite bandwidth > 0", bw)
	}
	M, d := X.Dims()
	if M == 0 || d == 0 {
		return nil, fmt.Errorf("X: is %d×%d, want a non-empty sample", M, d)
	}
	if err := radCheckFinite("X", X); err != nil {
		return nil, err
	}
	x := mat.DenseCopyOf(X)
	K := mat.NewSymDense(M, nil)
	for i := 0; i < M; i++ {
		for j := i; j < M; j++ {
			K.SetSym(i, j, GaussianKernel(x.RawRowView(i), x.RawRowView(j), bw))
		}
	}
	return K, nil
}

// Activation is a 1-Lipschitz activation function μ of the MLP class 𝒩_m
// (Section 4.3), with a derivative (a subgradient at kinks) used by local
// ascent. The class assumption 0 ∈ μ∘𝒩_m holds when μ(0) = 0.
type Activation struct {
	Name string
	F    func(float64) float64 // μ
	D    func(float64) float64 // μ′ (any subgradient at kinks)
}

// ReLU is μ(t) = max(t, 0): 1-Lipschitz with μ(0) = 0.
var ReLU = Activation{
	Name: "relu",
	F:    func(t float64) float64 { return math.Max(t, 0) },
	D: func(t float64) float64 {
		if t > 0 {
			return 1
		}
		return 0
	},
}

// Tanh is μ(t) = tanh(t): 1-Lipschitz with μ(0) = 0.
var Tanh = Activation{
	Name: "tanh",
	F:    math.Tanh,
	D:    func(t float64) float64 { h := math.Tanh(t); return 1 - h*h },
}

// MLP is a member of the class 𝒩_m of Section 4.3 (after Zhang et al. 2017)
// written as a layered network: Weights[0] is d₁×p with rows u_j, so that
// the first-layer units x ↦ ⟨u_j, x⟩ are in 𝒩₁ when ‖u_j‖₂ ≤ β; Weights[k],
// k ≥ 1, is d_{k+1}×d_k and unit j of layer k+1 is Σ_l Weights[k](j,l)·μ(unit l
// of layer k), in 𝒩_{k+1} when the row has ‖·‖₁ ≤ β. The last layer has one
// row, the output. m = len(Weights) is the depth.
type MLP struct {
	Weights []*mat.Dense
	Mu      Activation
}

// Depth returns m, the number of weight layers.
func (n MLP) Depth() int { return len(n.Weights) }

// Validate reports an error naming the layer unless n is a well-formed
// member of 𝒩_m with parameter beta: consistent shapes, a one-row output
// layer, first-layer rows with ‖·‖₂ ≤ beta(1+tol) and later rows with
// ‖·‖₁ ≤ beta(1+tol) (Section 4.3, definition of 𝒩_m).
func (n MLP) Validate(beta, tol float64) error {
	if len(n.Weights) == 0 {
		return errors.New("Weights: no layers (depth m must be ≥ 1)")
	}
	if n.Mu.F == nil && len(n.Weights) > 1 {
		return errors.New("Mu: nil activation")
	}
	for k, W := range n.Weights {
		if W == nil {
			return fmt.Errorf("Weights[%d]: nil", k)
		}
		r, c := W.Dims()
		if k > 0 {
			if pr, _ := n.Weights[k-1].Dims(); c != pr {
				return fmt.Errorf("Weights[%d]: has %d columns, want %d (the rows of Weights[%d])", k, c, pr, k-1)
			}
		}
		if k == len(n.Weights)-1 && r != 1 {
			return fmt.Errorf("Weights[%d]: output layer has %d rows, want 1", k, r)
		}
		if err := radCheckFinite(fmt.Sprintf("Weights[%d]", k), W); err != nil {
			return err
		}
		for j := 0; j < r; j++ {
			row := W.RawRowView(j)
			var norm float64
			if k == 0 {
				for _, v := range row {
					norm += v * v
				}
				norm = math.Sqrt(norm)
			} else {
				for _, v := range row {
					norm += math.Abs(v)
				}
			}
			if norm > beta*(1+tol) {
				kind := "‖·‖₁"
				if k == 0 {
					kind = "‖·‖₂"
				}
				return fmt.Errorf("Weights[%d]: row %d has %s = %g, want ≤ beta = %g", k, j, kind, norm, beta)
			}
		}
	}
	return nil
}

// Eval returns the network's output at x (len(x) must equal the number of
// columns of Weights[0]; shapes are assumed valid, see Validate).
func (n MLP) Eval(x []float64) float64 {
	h := x
	for k, W := range n.Weights {
		r, _ := W.Dims()
		out := make([]float64, r)
		for j := 0; j < r; j++ {
			s := 0.0
			for l, v := range W.RawRowView(j) {
				in := h[l]
				if k > 0 {
					in = n.Mu.F(in)
				}
				s += v * in
			}
			out[j] = s
		}
		h = out
	}
	return h[0]
}

// MLPSupOptions tunes the search of MLPSup for depth 2.
type MLPSupOptions struct {
	Restarts int // random starting points of the ascent (default 16)
	Steps    int // projected-gradient steps per start (default 60)
}

// MLPSup returns sup_{g∈𝒩_m} Σ_i a_i ε_i g(x_i) for the rows x_i of X, and a
// network in 𝒩_m attaining the returned value (a witness the caller can
// re-evaluate). For m = 1 the value is exact: β‖Σ_i a_i ε_i x_i‖₂. For m = 2
// it uses the exact reduction
//
//	sup_{g∈𝒩₂} Σ_i a_i ε_i g(x_i) = β · sup_{‖u‖₂≤β} |Σ_i a_i ε_i μ(⟨u, x_i⟩)|
//
// (the outer ℓ1 ball puts all its mass on the best unit, with its sign, and
// the units of 𝒩₁ are chosen independently, so the width d does not matter),
// and maximizes the right side over u by projected gradient ascent from
// opts.Restarts random starts plus the directions ±x_i/‖x_i‖ and
// ±Σ_i a_iε_i x_i: the value returned is then a lower bound on the supremum
// attained by its witness, which is the safe direction for trying to falsify
// an upper bound (Proposition `prop: MLP_bound`). Other depths are an error.
func MLPSup(m int, X mat.Matrix, a []float64, beta float64, mu Activation, eps []float64, rnd *rand.Rand, opts MLPSupOptions) (float64, MLP, error) {
	if err := radCheckWeights(a); err != nil {
		return 0, MLP{}, err
	}
	M, p := X.Dims()
	if M != len(a) || p == 0 {
		return 0, MLP{}, fmt.Errorf("X: is %d×%d, want len(a)=%d rows and ≥ 1 column", M, p, len(a))
	}
	if len(eps) != M {
		return 0, MLP{}, fmt.Errorf("eps: has %d signs, want %d", len(eps), M)
	}
	for i, e := range eps {
		if e != 1 && e != -1 {
			return 0, MLP{}, fmt.Errorf("eps: entry %d is %g, want a Rademacher sign ±1", i, e)
		}
	}
	if !(beta >= 0) || math.IsInf(beta, 0) {
		return 0, MLP{}, fmt.Errorf("beta: is %g, want a finite number ≥ 0", beta)
	}
	x := mat.DenseCopyOf(X)
	c := make([]float64, M) // c_i = a_i ε_i
	z := make([]float64, p) // Σ c_i x_i
	for i := 0; i < M; i++ {
		c[i] = a[i] * eps[i]
		for k, v := range x.RawRowView(i) {
			z[k] += c[i] * v
		}
	}
	switch m {
	case 1:
		nz := math.Sqrt(radDot(z, z))
		u := make([]float64, p)
		if nz > 0 {
			for k := range u {
				u[k] = beta * z[k] / nz
			}
		}
		return beta * nz, MLP{Weights: []*mat.Dense{mat.NewDense(1, p, u)}, Mu: mu}, nil
	case 2:
	default:
		return 0, MLP{}, fmt.Errorf("m: is %d, MLPSup supports depths 1 (exact) and 2 (search)", m)
	}
	if mu.F == nil || mu.D == nil {
		return 0, MLP{}, errors.New("mu: activation needs F and D")
	}
	if rnd == nil {
		return 0, MLP{}, errors.New("rnd: nil random source (needed for the restarts)")
	}
	if opts.Restarts <= 0 {
		opts.Restarts = 16
	}
	if opts.Steps <= 0 {
		opts.Steps = 60
	}
	// F(u) = Σ_i c_i μ(⟨u, x_i⟩); we maximize s·F(u) for s = ±1 over ‖u‖ ≤ β.
	F := func(u []float64) float64 {
		s := 0.0
		for i := 0; i < M; i++ {
			s += c[i] * mu.F(radDot(u, x.RawRowView(i)))
		}
		return s
	}
	grad := func(u, g []float64) {
		for k := range g {
			g[k] = 0
		}
		for i := 0; i < M; i++ {
			xi := x.RawRowView(i)
			d := c[i] * mu.D(radDot(u, xi))
			for k := range g {
				g[k] += d * xi[k]
			}
		}
	}
	project := func(u []float64) {
		if n := math.Sqrt(radDot(u, u)); n > beta {
			for k := range u {
				u[k] *= beta / n
			}
		}
	}
	var starts [][]float64
	addDir := func(v []float64) {
		n := math.Sqrt(radDot(v, v))
		if n == 0 {
			return
		}
		for _, s := range []float64{1, -1} {
			u := make([]float64, p)
			for k := range u {
				u[k] = s * beta * v[k] / n
			}
			starts = append(starts, u)
		}
	}
	addDir(z)
	for i := 0; i < M; i++ {
		addDir(x.RawRowView(i))
	}
	for r := 0; r < opts.Restarts; r++ {
		u := make([]float64, p)
		for k := range u {
			u[k] = rnd.NormFloat64()
		}
		n := math.Sqrt(radDot(u, u))
		rad := beta * math.Pow(rnd.Float64(), 1/float64(p))
		for k := range u {
			u[k] *= rad / n
		}
		starts = append(starts, u)
	}
	bestVal := 0.0 // u = 0 gives 0
	bestU := make([]float64, p)
	bestSign := 1.0
	g := make([]float64, p)
	trial := make([]float64, p)
	for _, u0 := range starts {
		for _, s := range []float64{1, -1} {
			u := append([]float64(nil), u0...)
			val := s * F(u)
			step := beta
			for it := 0; it < opts.Steps && step > 1e-12*math.Max(beta, 1); it++ {
				grad(u, g)
				gn := math.Sqrt(radDot(g, g))
				if gn == 0 {
					break
				}
				for k := range trial {
					trial[k] = u[k] + step*s*g[k]/gn
				}
				project(trial)
				if tv := s * F(trial); tv > val {
					copy(u, trial)
					val = tv
					step *= 1.5
				} else {
					step /= 2
				}
			}
			if val > bestVal {
				bestVal, bestSign = val, s
				copy(bestU, u)
			}
		}
	}
	w := MLP{
		Weights: []*mat.Dense{mat.NewDense(1, p, bestU), mat.NewDense(1, 1, []float64{bestSign * beta})},
		Mu:      mu,
	}
	return beta * bestVal, w, nil
}

func radDot(x, y []float64) float64 {
	s := 0.0
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}
