package theory

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// FiniteModel is a clean distribution P on 𝒳 × 𝒴 with a finite feature space
// 𝒳 = {0, …, m−1}, given as in Section 5.1 by its class-conditional
// distributions P_c and its clean prior σ:
//
//	P({x} × {c}) = σ(c)·P_c({x}).
//
// Classes and points are 0-based. Cond[c] = P_c must be in Δ^m; Prior = σ
// must be in Δ^C (zero entries are allowed here, for the reweighted models
// P_z of Section 5.1; functions that need σ(c) > 0, as Section 5.1 assumes
// for P, say so).
type FiniteModel struct {
	Cond  [][]float64 // Cond[c][x] = P_c({x}) = P(X = x | Y = c)
	Prior []float64   // Prior[c] = σ(c) = P(Y = c)
}

// Validate reports an error naming the field unless m is well formed.
func (m *FiniteModel) Validate() error {
	if m == nil {
		return errors.New("model: nil")
	}
	C := len(m.Prior)
	if C == 0 {
		return errors.New("model.Prior: no classes")
	}
	if err := CheckSimplex("model.Prior", m.Prior, SimplexTol); err != nil {
		return err
	}
	if len(m.Cond) != C {
		return fmt.Errorf("model.Cond: has %d class conditionals, want C=%d (= len(Prior))", len(m.Cond), C)
	}
	M := len(m.Cond[0])
	for c, row := range m.Cond {
		if len(row) != M {
			return fmt.Errorf("model.Cond[%d]: has %d points, want m=%d (= len(Cond[0]))", c, len(row), M)
		}
		if err := CheckSimplex(fmt.Sprintf("model.Cond[%d]", c), row, SimplexTol); err != nil {
			return err
		}
	}
	return nil
}

// NumClasses returns C; NumPoints returns m = |𝒳|.
func (m *FiniteModel) NumClasses() int { return len(m.Prior) }

// NumPoints returns m = |𝒳|.
func (m *FiniteModel) NumPoints() int { return len(m.Cond[0]) }

// Joint returns P({x} × {y}) = σ(y)·P_y({x}).
func (m *FiniteModel) Joint(x, y int) float64 { return m.Prior[y] * m.Cond[y][x] }

// Marginal returns P_X({x}) = Σ_y σ(y) P_y({x}) for every x.
func (m *FiniteModel) Marginal() []float64 {
	px := make([]float64, m.NumPoints())
	for y := range m.Prior {
		for x := range px {
			px[x] += m.Joint(x, y)
		}
	}
	return px
}

// Posterior returns η(x) = (P(Y=1|x), …, P(Y=C|x)) (Section 2). Where
// P_X({x}) = 0 the posterior is not determined by P; it is then the uniform
// vector, a choice that affects no risk.
func (m *FiniteModel) Posterior(x int) []float64 {
	C := m.NumClasses()
	eta := make([]float64, C)
	s := 0.0
	for y := 0; y < C; y++ {
		eta[y] = m.Joint(x, y)
		s += eta[y]
	}
	for y := range eta {
		if s > 0 {
			eta[y] /= s
		} else {
			eta[y] = 1 / float64(C)
		}
	}
	return eta
}

// Reweighted returns P_z, the distribution with the class-conditionals of m
// and prior z ∈ Δ^C (Section 5.1): P_z({x} × {i}) = z(i)·P_i({x}). A bag
// governed by z draws its (X, Y) pairs i.i.d. from P_z.
func (m *FiniteModel) Reweighted(z []float64) (*FiniteModel, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if len(z) != m.NumClasses() {
		return nil, fmt.Errorf("z: has %d entries, want C=%d", len(z), m.NumClasses())
	}
	if err := CheckSimplex("z", z, SimplexTol); err != nil {
		return nil, err
	}
	return &FiniteModel{Cond: m.Cond, Prior: append([]float64(nil), z...)}, nil
}

// JointBarPT returns the joint law P̄_T on 𝒳 × 𝒴 × 𝒴 of (X, Y, Ỹ) of
// Section 2, P̄_T({x} × {y} × {ỹ}) = P({x} × {y})·t_{ỹ,y}, as
// J[x][y][ỹ]. T must be a C×C column-stochastic matrix.
func (m *FiniteModel) JointBarPT(T mat.Matrix) ([][][]float64, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	C := m.NumClasses()
	if err := checkT(T, C); err != nil {
		return nil, err
	}
	J := make([][][]float64, m.NumPoints())
	for x := range J {
		J[x] = make([][]float64, C)
		for y := 0; y < C; y++ {
			J[x][y] = make([]float64, C)
			for yt := 0; yt < C; yt++ {
				J[x][y][yt] = m.Joint(x, y) * T.At(yt, y)
			}
		}
	}
	return J, nil
}

// Noisy returns P_T, the law of (X, Ỹ) under P̄_T (Section 2), as a
// FiniteModel: its prior is the noisy prior α = Tσ, α(i) = P_T(Ỹ = i)
// (Section 4.1), and its class-conditionals are P_T(·|Ỹ = i), the
// distributions the LMNTM sample X_{i,c,j} is drawn from (Section 4.1). T
// must be column-stochastic, and every α(i) must be > 0 (else P_T(·|Ỹ=i) is
// undefined).
func (m *FiniteModel) Noisy(T mat.Matrix) (*FiniteModel, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	C, M := m.NumClasses(), m.NumPoints()
	if err := checkT(T, C); err != nil {
		return nil, err
	}
	out := &FiniteModel{Cond: make([][]float64, C), Prior: make([]float64, C)}
	for i := 0; i < C; i++ {
		row := make([]float64, M)
		for x := 0; x < M; x++ {
			for y := 0; y < C; y++ {
				row[x] += m.Joint(x, y) * T.At(i, y)
			}
		}
		a := 0.0
		for _, v := range row {
			a += v
		}
		if !(a > 0) {
			return nil, fmt.Errorf("T: noisy prior α(%d) = P_T(Ỹ=%d) is %g, so P_T(·|Ỹ=%d) is undefined", i, i, a, i)
		}
		for x := range row {
			row[x] /= a
		}
		out.Cond[i], out.Prior[i] = row, a
	}
	return out, nil
}

// checkPredictor validates a predictor f: 𝒳 → Δ^C on the finite space,
// f[x] = f(x).
func checkPredictor(f [][]float64, M, C int) error {
	if len(f) != M {
		return fmt.Errorf("f: has %d points, want m=%d", len(f), M)
	}
	for x, q := range f {
		if len(q) != C {
			return fmt.Errorf("f[%d]: has %d entries, want C=%d", x, len(q), C)
		}
		if !inSimplex(q, SimplexTol) {
			return CheckSimplex(fmt.Sprintf("f[%d]", x), q, SimplexTol)
		}
	}
	return nil
}

// Risk returns the L-risk R_{L,P}(f) = E_P[L(f(X), Y)] = Σ_{x,y} P({x}×{y})·L(f(x), y)
// (Section 2, Definition of the L-risk), with 0·∞ = 0. f[x] ∈ Δ^C.
func Risk(l ProperLoss, m *FiniteModel, f [][]float64) (float64, error) {
	if l == nil {
		return 0, errors.New("l: nil loss")
	}
	if err := m.Validate(); err != nil {
		return 0, err
	}
	if err := checkPredictor(f, m.NumPoints(), m.NumClasses()); err != nil {
		return 0, err
	}
	r := 0.0
	for x := range f {
		for y := range m.Prior {
			if p := m.Joint(x, y); p > 0 {
				r += p * l.Loss(f[x], y)
			}
		}
	}
	return r, nil
}

// BayesRisk returns the L-Bayes risk R*_{L,P} = Σ_x P_X({x})·C*_{L,η(x)}
// (Section 2), using the closed-form minimal inner risk of l (MinInnerRisk).
func BayesRisk(l ProperLoss, m *FiniteModel) (float64, error) {
	if err := m.Validate(); err != nil {
		return 0, err
	}
	px := m.Marginal()
	r := 0.0
	for x, p := range px {
		if p == 0 {
			continue
		}
		v, err := MinInnerRisk(l, m.Posterior(x))
		if err != nil {
			return 0, err
		}
		r += p * v
	}
	return r, nil
}

// FCRisk returns R_{ℓ_T,P_T}(f) = E_{P_T}[ℓ(T f(X), Ỹ)] =
// Σ_x Σ_c P_T({x}×{c})·ℓ(T f(x), c), the risk of the forward-corrected loss
// under the noisy distribution (Section 2), with 0·∞ = 0. T must be
// column-stochastic.
func FCRisk(l ProperLoss, T mat.Matrix, m *FiniteModel, f [][]float64) (float64, error) {
	if l == nil {
		return 0, errors.New("l: nil loss")
	}
	if err := m.Validate(); err != nil {
		return 0, err
	}
	C := m.NumClasses()
	if err := checkT(T, C); err != nil {
		return 0, err
	}
	if err := checkPredictor(f, m.NumPoints(), C); err != nil {
		return 0, err
	}
	r := 0.0
	for x := range f {
		q := mulVec(T, f[x])
		for c := 0; c < C; c++ {
			pt := 0.0 // P_T({x}×{c}) = Σ_y P({x}×{y}) t_{c,y}
			for y := 0; y < C; y++ {
				pt += m.Joint(x, y) * T.At(c, y)
			}
			if pt > 0 {
				r += pt * l.Loss(q, c)
			}
		}
	}
	return r, nil
}

// checkGroups validates N ≥ 1 column-stochastic C×C matrices and w ∈ Δ^N.
func checkGroups(Ts []mat.Matrix, w []float64, C int) error {
	if len(Ts) == 0 {
		return errors.New("Ts: no noise transition matrices")
	}
	if len(w) != len(Ts) {
		return fmt.Errorf("w: has %d entries, want N=%d (= len(Ts))", len(w), len(Ts))
	}
	if err := CheckSimplex("w", w, SimplexTol); err != nil {
		return err
	}
	for i, T := range Ts {
		if err := checkT(T, C); err != nil {
			return fmt.Errorf("Ts[%d]: %w", i, err)
		}
	}
	return nil
}

// LMNTMRisk returns the weighted risk of Theorem `llp.cali` (Section 4.2),
//
//	R̃_{ℓ,P,𝒯}(f) = Σ_i w_i R_{ℓ_{T_i},P_{T_i}}(f),
//
// for column-stochastic T_1, …, T_N and w ∈ Δ^N.
func LMNTMRisk(l ProperLoss, Ts []mat.Matrix, w []float64, m *FiniteModel, f [][]float64) (float64, error) {
	if err := m.Validate(); err != nil {
		return 0, err
	}
	if err := checkGroups(Ts, w, m.NumClasses()); err != nil {
		return 0, err
	}
	r := 0.0
	for i, T := range Ts {
		if w[i] == 0 {
			continue
		}
		v, err := FCRisk(l, T, m, f)
		if err != nil {
			return 0, fmt.Errorf("group %d: %w", i, err)
		}
		r += w[i] * v
	}
	return r, nil
}

// LMNTMBayesRisk returns R̃*_{ℓ,P,𝒯} = inf_f R̃_{ℓ,P,𝒯}(f) for a proper loss
// ℓ. As in the proof of Theorem `llp.cali`, every term is minimized by f = η,
// because C_{ℓ_T,P_T,x}(q) = Σ_c (Tη(x))_c ℓ(Tq, c) is minimized over the
// whole simplex at Tq = Tη(x) when ℓ is proper; so
//
//	R̃* = Σ_i w_i Σ_x P_X({x}) C*_{ℓ, T_i η(x)},
//
// evaluated with the closed-form minimal inner risk (MinInnerRisk) — a
// computation independent of evaluating LMNTMRisk at f = η.
func LMNTMBayesRisk(l ProperLoss, Ts []mat.Matrix, w []float64, m *FiniteModel) (float64, error) {
	if err := m.Validate(); err != nil {
		return 0, err
	}
	if err := checkGroups(Ts, w, m.NumClasses()); err != nil {
		return 0, err
	}
	px := m.Marginal()
	r := 0.0
	for i, T := range Ts {
		for x, p := range px {
			if p == 0 || w[i] == 0 {
				continue
			}
			eta := m.Posterior(x)
			v, err := MinInnerRisk(l, mulVec(T, eta))
			if err != nil {
				return 0, fmt.Errorf("group %d, point %d: %w", i, x, err)
			}
			r += w[i] * p * v
		}
	}
	return r, nil
}

// LMNTMThetaCoefficient returns κ = Σ_i w_i / ‖T_i⁻¹‖₁², so that the
// calibration function LMNTMTheta is θ(ε) = κε²/2.
func LMNTMThetaCoefficient(Ts []mat.Matrix, w []float64) (float64, error) {
	if len(Ts) == 0 {
		return 0, errors.New("Ts: no noise transition matrices")
	}
	C, _ := Ts[0].Dims()
	if err := checkGroups(Ts, w, C); err != nil {
		return 0, err
	}
	k := 0.0
	for i, T := range Ts {
		v, err := InvNorm1(T)
		if err != nil {
			return 0, fmt.Errorf("Ts[%d]: %w", i, err)
		}
		k += w[i] / (v * v)
	}
	return k, nil
}

// LMNTMTheta returns an explicit calibration function of Theorem `llp.cali`
// for the log loss:
//
//	θ(ε) = Σ_i w_i θ̲_{T_i}(ε) = (ε²/2)·Σ_i w_i/‖T_i⁻¹‖₁².
//
// Derivation: the proof of Theorem `llp.cali` takes θ = Σ_i w_i θ_i where θ_i
// is any calibration function of the single matrix T_i (Theorem
// `thm:cali.noise`); for the log loss Proposition `theorem: cali_lowerb`
// supplies θ_i = θ̲_{T_i}(ε) = ε²/(2‖T_i⁻¹‖₁²). Then
// Σ_i w_i θ_i(R_L(f) − R_L*) ≤ Σ_i w_i (R_i(f) − R_i*) = R̃(f) − R̃*, the last
// step because η minimizes every R_i. θ is convex, strictly increasing and
// θ(0) = 0, and θ ≥ (min_i w_i) Σ_i θ̲_{T_i} ≥ ε²/(2 max_i ‖T_i⁻¹‖₁²). Every
// T_i must be invertible and column-stochastic, w ∈ Δ^N, ε ≥ 0.
func LMNTMTheta(Ts []mat.Matrix, w []float64, eps float64) (float64, error) {
	if !(eps >= 0) || math.IsInf(eps, 0) {
		return 0, fmt.Errorf("eps: is %g, want a finite number ≥ 0", eps)
	}
	k, err := LMNTMThetaCoefficient(Ts, w)
	if err != nil {
		return 0, err
	}
	return k * eps * eps / 2, nil
}

// EmpiricalLMNTMRisk returns the empirical risk of equation
// `llpfc-ideal: empirical risk` (Section 4.3),
//
//	R̂_{w,S}(f) = Σ_i w_i Σ_c α_i(c)/n_{i,c} Σ_j ℓ_{T_i}(f(X_{i,c,j}), c),
//
// where preds[i][c][j] = f(X_{i,c,j}) ∈ Δ^C is the prediction at the j-th
// point drawn from P_{T_i}(·|c), n_{i,c} = len(preds[i][c]) ≥ 1, alpha[i] =
// α_i the noisy prior of group i, Ts[i] = T_i (column-stochastic) and
// w ∈ Δ^N. It is an unbiased estimate of R̃_{ℓ,P,𝒯}(f) (LMNTMRisk) when
// α_i(c) = P_{T_i}(Ỹ = c).
func EmpiricalLMNTMRisk(l ProperLoss, Ts []mat.Matrix, w []float64, alpha [][]float64, preds [][][][]float64) (float64, error) {
	if l == nil {
		return 0, errors.New("l: nil loss")
	}
	if len(Ts) == 0 {
		return 0, errors.New("Ts: no noise transition matrices")
	}
	C, _ := Ts[0].Dims()
	if err := checkGroups(Ts, w, C); err != nil {
		return 0, err
	}
	if len(alpha) != len(Ts) || len(preds) != len(Ts) {
		return 0, fmt.Errorf("alpha, preds: have %d and %d groups, want N=%d (= len(Ts))", len(alpha), len(preds), len(Ts))
	}
	r := 0.0
	for i := range Ts {
		if len(alpha[i]) != C {
			return 0, fmt.Errorf("alpha[%d]: has %d entries, want C=%d", i, len(alpha[i]), C)
		}
		if err := CheckSimplex(fmt.Sprintf("alpha[%d]", i), alpha[i], SimplexTol); err != nil {
			return 0, err
		}
		if len(preds[i]) != C {
			return 0, fmt.Errorf("preds[%d]: has %d classes, want C=%d", i, len(preds[i]), C)
		}
		gi := 0.0
		for c := 0; c < C; c++ {
			n := len(preds[i][c])
			if n == 0 {
				return 0, fmt.Errorf("preds[%d][%d]: empty, want n_{i,c} ≥ 1 points", i, c)
			}
			s := 0.0
			for j, q := range preds[i][c] {
				if len(q) != C {
					return 0, fmt.Errorf("preds[%d][%d][%d]: has %d entries, want C=%d", i, c, j, len(q), C)
				}
				if !inSimplex(q, SimplexTol) {
					return 0, CheckSimplex(fmt.Sprintf("preds[%d][%d][%d]", i, c, j), q, SimplexTol)
				}
				s += l.Loss(mulVec(Ts[i], q), c)
			}
			if alpha[i][c] > 0 {
				gi += alpha[i][c] / float64(n) * s
			}
		}
		if w[i] > 0 {
			r += w[i] * gi
		}
	}
	return r, nil
}

// AssumptionTol is the numerical margin of the decisions of Assumption
// `grouping assumption: ch`: α counts as interior when min_c α(c) > AssumptionTol,
// and Γ counts as invertible when its condition number is below
// 1/AssumptionCondTol. The computed α carries an error of order
// cond(Γ)·eps, so a case whose min_c α(c) is within that of AssumptionTol is
// numerically undetermined and may be decided either way.
const (
	AssumptionTol     = 1e-9
	AssumptionCondTol = 1e-12
)

// ErrAssumption is wrapped by the errors of IdealAlpha that mean Assumption
// `grouping assumption: ch` fails (as opposed to malformed input).
var ErrAssumption = errors.New("Assumption `grouping assumption: ch` fails")

// checkGroupInput validates a group's proportions Γ (C×C, rows γ_i ∈ Δ^C) and
// the clean prior σ (in Δ^C with every σ(c) > 0, Section 5.1).
func checkGroupInput(gamma mat.Matrix, sigma []float64) (int, error) {
	if gamma == nil {
		return 0, errors.New("gamma: nil matrix")
	}
	C, c2 := gamma.Dims()
	if C != c2 || C == 0 {
		return 0, fmt.Errorf("gamma: is %d×%d, want C×C", C, c2)
	}
	for i := 0; i < C; i++ {
		if err := CheckSimplex(fmt.Sprintf("gamma row %d", i), mat.Row(nil, i, gamma), SimplexTol); err != nil {
			return 0, err
		}
	}
	if len(sigma) != C {
		return 0, fmt.Errorf("sigma: has %d entries, want C=%d", len(sigma), C)
	}
	if err := CheckInteriorSimplex("sigma", sigma, SimplexTol); err != nil {
		return 0, err
	}
	return C, nil
}

// IdealAlpha returns α = Γ^{−tr}σ, the unique noisy prior of a group with
// proportions Γ (row i = γ_i) and clean prior σ (Section 5.2; Algorithm 1
// line 5). It returns an error wrapping ErrAssumption, naming the rule of
// Assumption `grouping assumption: ch` that fails, when Γ is singular (α is
// then not unique, or does not exist) or when α is not in the open simplex
// (min_c α(c) ≤ AssumptionTol).
func IdealAlpha(gamma mat.Matrix, sigma []float64) ([]float64, error) {
	C, err := checkGroupInput(gamma, sigma)
	if err != nil {
		return nil, err
	}
	var lu mat.LU
	lu.Factorize(gamma.T())
	if cond := lu.Cond(); math.IsInf(cond, 1) || cond > SingularCond {
		return nil, fmt.Errorf("%w: %w", ErrAssumption, &SingularError{Name: "gamma", Quantity: "the unique α with Γᵀα = σ", Cond: cond})
	} else if cond*AssumptionCondTol > 1 {
		return nil, fmt.Errorf("%w: gamma is too ill-conditioned to decide it (condition number %.3g > 1/AssumptionCondTol = %.0e): α = Γ^{-tr}σ would carry an error of order cond·ε", ErrAssumption, cond, 1/AssumptionCondTol)
	}
	var a mat.VecDense
	if err := lu.SolveVecTo(&a, false, mat.NewVecDense(C, append([]float64(nil), sigma...))); err != nil {
		return nil, fmt.Errorf("%w: gamma: %v", ErrAssumption, err)
	}
	alpha := mat.Col(nil, 0, &a)
	for c, v := range alpha {
		if !(v > AssumptionTol) {
			return alpha, fmt.Errorf("%w: α = Γ^{-tr}σ has entry %d = %.3g, want > %g (α in the open simplex)", ErrAssumption, c, v, AssumptionTol)
		}
	}
	return alpha, nil
}

// AssumptionCH decides Assumption `grouping assumption: ch` (Section 5.2):
// there is a unique α in the open simplex with Γᵀα = σ. The error is non-nil
// only for malformed input.
func AssumptionCH(gamma mat.Matrix, sigma []float64) (bool, error) {
	_, err := IdealAlpha(gamma, sigma)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, ErrAssumption):
		return false, nil
	default:
		return false, err
	}
}

// HullInterior decides the stated equivalent of Assumption
// `grouping assumption: ch` (Section 5.2) without inverting Γ: {γ_1, …, γ_C}
// is linearly independent (decided from the singular values of Γ:
// σ_min > AssumptionCondTol·σ_max) and σ lies in the (relative) interior of
// the convex hull of {γ_1, …, γ_C} (decided by the linear program
// max t s.t. Σ_i λ_i γ_i = σ, λ_i ≥ t ≥ 0, solved by gonum's simplex method:
// σ is interior iff it is a convex combination with every weight
// > AssumptionTol). It returns the optimal margin t* (0 when infeasible or
// when the γ's are dependent).
func HullInterior(gamma mat.Matrix, sigma []float64) (ok bool, margin float64, err error) {
	C, err := checkGroupInput(gamma, sigma)
	if err != nil {
		return false, 0, err
	}
	var svd mat.SVD
	if !svd.Factorize(gamma, mat.SVDNone) {
		return false, 0, errors.New("gamma: SVD did not converge")
	}
	sv := svd.Values(nil)
	if !(sv[len(sv)-1] > AssumptionCondTol*sv[0]) {
		return false, 0, nil // linearly dependent
	}
	// Variables x = (μ_1, …, μ_C, t) ≥ 0 with λ = μ + t·1:
	// Γᵀμ + t·Γᵀ1 = σ; minimize −t. Σ_i λ_i = 1 is implied, because every γ_i
	// and σ sum to 1.
	A := mat.NewDense(C, C+1, nil)
	for j := 0; j < C; j++ {
		s := 0.0
		for i := 0; i < C; i++ {
			A.Set(j, i, gamma.At(i, j))
			s += gamma.At(i, j)
		}
		A.Set(j, C, s)
	}
	cost := make([]float64, C+1)
	cost[C] = -1
	opt, lperr := lpSimplex(cost, A, sigma)
	switch {
	case errors.Is(lperr, lp.ErrInfeasible):
		return false, 0, nil
	case lperr != nil:
		return false, 0, fmt.Errorf("gamma, sigma: convex-hull LP failed: %w", lperr)
	}
	t := -opt
	return t > AssumptionTol, t, nil
}

// AssumptionAllGroups decides Assumption `grouping assumption all groups`
// (Section 5.3): Assumption `grouping assumption: ch` holds for every group's
// Γ_i with the same σ. It returns the indices of the groups where it fails.
func AssumptionAllGroups(gammas []mat.Matrix, sigma []float64) (ok bool, failing []int, err error) {
	if len(gammas) == 0 {
		return false, nil, errors.New("gammas: no groups")
	}
	for i, g := range gammas {
		holds, err := AssumptionCH(g, sigma)
		if err != nil {
			return false, nil, fmt.Errorf("group %d: %w", i, err)
		}
		if !holds {
			failing = append(failing, i)
		}
	}
	return len(failing) == 0, failing, nil
}

// lpSimplex runs gonum's lp.Simplex on min cᵀx s.t. Ax = b, x ≥ 0 and
// returns the optimal value. Gonum v0.17 panics ("lp: subcolumns of A for
// supplied initial basic singular") when, in its own Phase I, the artificial
// column happens to be linearly dependent on the rest of its starting basis —
// a library bug that shows on degenerate but well-posed problems (σ at a
// vertex of the hull); on such problems its Phase I can also stop with "matrix
// singular or near-singular". The panic is recovered, and after a panic or any
// error other than infeasible/unbounded the same problem is retried with its
// variables cyclically reordered (an equivalent LP: gonum picks its starting
// basis greedily in column order, so the Phase I starts elsewhere); when every
// order fails the last error is returned.
func lpSimplex(c []float64, A *mat.Dense, b []float64) (opt float64, err error) {
	m, n := A.Dims()
	for shift := 0; shift < n; shift++ {
		As := mat.NewDense(m, n, nil)
		cs := make([]float64, n)
		for j := 0; j < n; j++ {
			src := (j + shift) % n
			cs[j] = c[src]
			for i := 0; i < m; i++ {
				As.Set(i, j, A.At(i, src))
			}
		}
		opt, err = func() (opt float64, err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("%w: %v", errLPPanic, r)
				}
			}()
			opt, _, err = lp.Simplex(cs, As, append([]float64(nil), b...), 1e-12, nil)
			return opt, err
		}()
		if err == nil || errors.Is(err, lp.ErrInfeasible) || errors.Is(err, lp.ErrUnbounded) {
			return opt, err
		}
	}
	return opt, err
}

var errLPPanic = errors.New("gonum lp.Simplex panicked")

// inSimplex reports whether CheckSimplex would accept p, without building
// the error's name: the hot loops format a name only when p is rejected.
func inSimplex(p []float64, tol float64) bool {
	if len(p) == 0 {
		return false
	}
	sum := 0.0
	for _, v := range p {
		if !(v >= 0) || math.IsInf(v, 0) {
			return false
		}
		sum += v
	}
	return math.Abs(sum-1) <= tol
}
