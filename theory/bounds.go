package theory

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// LMNTMSetting holds the quantities of a learning-with-multiple-noise-
// transition-matrices problem (Section 4.1) that the generalization bounds of
// Section 4.3 and Appendix C depend on, for N groups and C classes.
type LMNTMSetting struct {
	W     []float64   // group weights w ∈ Δ^N
	Alpha [][]float64 // Alpha[i] = α_i, the noisy prior of group i, in the interior of Δ^C
	N     [][]int     // N[i][c] = n_{i,c} ≥ 1, the sample size drawn from P_{T_i}(·|c)
	Lip   []float64   // Lip[i] ≥ |λ_{ℓ_{T_i}}|, a Lipschitz constant of λ_{ℓ_{T_i}}(·,c) for every c
	Lip0  []float64   // Lip0[i] = |λ_{ℓ_{T_i}}|₀ = max_c |λ_{ℓ_{T_i}}(0,c)|
}

// LogLossLip is √2, the Lipschitz constant of the forward-corrected log loss
// composed with the softmax link for every column-stochastic T
// (Proposition `lip.upper.bd.cel`).
var LogLossLip = math.Sqrt2

// NewLogLossSetting returns the setting of the log loss with the softmax
// link: Lip[i] = √2 (Proposition `lip.upper.bd.cel`) and
// Lip0[i] = |λ_{ℓ_{T_i}}|₀ = Lambda0(T_i) (Section 4.3).
func NewLogLossSetting(Ts []mat.Matrix, w []float64, alpha [][]float64, n [][]int) (LMNTMSetting, error) {
	s := LMNTMSetting{W: w, Alpha: alpha, N: n, Lip: make([]float64, len(Ts)), Lip0: make([]float64, len(Ts))}
	for i, T := range Ts {
		if err := CheckColumnStochastic(fmt.Sprintf("Ts[%d]", i), T, SimplexTol); err != nil {
			return LMNTMSetting{}, err
		}
		l0, err := Lambda0(T)
		if err != nil {
			return LMNTMSetting{}, fmt.Errorf("Ts[%d]: %w", i, err)
		}
		s.Lip[i], s.Lip0[i] = LogLossLip, l0
	}
	return s, s.Validate()
}

// Validate reports an error naming the field unless s is a well-formed
// setting: N ≥ 1 groups, w ∈ Δ^N, each α_i in the interior of Δ^C with the
// same C ≥ 1, n_{i,c} ≥ 1, and finite Lipschitz constants ≥ 0.
func (s LMNTMSetting) Validate() error {
	N := len(s.W)
	if N == 0 {
		return errors.New("W: no groups")
	}
	if err := CheckSimplex("W", s.W, SimplexTol); err != nil {
		return err
	}
	if len(s.Alpha) != N || len(s.N) != N || len(s.Lip) != N || len(s.Lip0) != N {
		return fmt.Errorf("Alpha, N, Lip, Lip0: have %d, %d, %d, %d groups, want %d (len(W))",
			len(s.Alpha), len(s.N), len(s.Lip), len(s.Lip0), N)
	}
	C := len(s.Alpha[0])
	for i := 0; i < N; i++ {
		if len(s.Alpha[i]) != C || len(s.N[i]) != C {
			return fmt.Errorf("group %d: Alpha has %d and N has %d classes, want C=%d", i, len(s.Alpha[i]), len(s.N[i]), C)
		}
		if err := CheckInteriorSimplex(fmt.Sprintf("Alpha[%d]", i), s.Alpha[i], SimplexTol); err != nil {
			return err
		}
		for c, n := range s.N[i] {
			if n < 1 {
				return fmt.Errorf("N[%d][%d]: is %d, want n_{i,c} ≥ 1", i, c, n)
			}
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"Lip", s.Lip[i]}, {"Lip0", s.Lip0[i]}} {
			if !(f.v >= 0) || math.IsInf(f.v, 0) {
				return fmt.Errorf("%s[%d]: is %g, want a finite number ≥ 0", f.name, i, f.v)
			}
		}
	}
	return nil
}

// NumClasses returns C.
func (s LMNTMSetting) NumClasses() int { return len(s.Alpha[0]) }

// PointWeights returns, for each sample point X_{i,c,j}, the weight
// w_i·α_i(c)/n_{i,c} with which it enters the empirical risk
// (equation `llpfc-ideal: empirical risk`), in the order i, c, j.
func (s LMNTMSetting) PointWeights() []float64 {
	var a []float64
	for i := range s.W {
		for c, n := range s.N[i] {
			for j := 0; j < n; j++ {
				a = append(a, s.W[i]*s.Alpha[i][c]/float64(n))
			}
		}
	}
	return a
}

func radCheckDelta(delta float64) error {
	if !(delta > 0 && delta <= 1) {
		return fmt.Errorf("delta: is %g, want 0 < δ ≤ 1", delta)
	}
	return nil
}

func radCheckNonNeg(name string, v float64) error {
	if !(v >= 0) || math.IsInf(v, 0) {
		return fmt.Errorf("%s: is %g, want a finite number ≥ 0", name, v)
	}
	return nil
}

// ConcentrationTerm returns the bounded-difference (McDiarmid) term of
// Lemmas `rad.lips.lemma` and `lemma: gen`,
//
//	√(2 log(2/δ) Σ_i Σ_c w_i² α_i(c)²/n_{i,c} · (|λ_{ℓ_{T_i}}|·A + |λ_{ℓ_{T_i}}|₀)²),
//
// where A bounds ‖g(x)‖₂ over the class.
func (s LMNTMSetting) ConcentrationTerm(delta, A float64) (float64, error) {
	if err := s.Validate(); err != nil {
		return 0, err
	}
	if err := radCheckDelta(delta); err != nil {
		return 0, err
	}
	if err := radCheckNonNeg("A", A); err != nil {
		return 0, err
	}
	v := 0.0
	for i, w := range s.W {
		b := s.Lip[i]*A + s.Lip0[i]
		for c, n := range s.N[i] {
			v += w * w * s.Alpha[i][c] * s.Alpha[i][c] / float64(n) * b * b
		}
	}
	return math.Sqrt(2 * math.Log(2/delta) * v), nil
}

// RadLipsBound returns the right side of Lemma `rad.lips.lemma`:
// ConcentrationTerm(δ, A) + 2·radLoss, where radLoss is the weighted
// Rademacher complexity of the loss class,
// E_{S,ε} sup_g Σ_i w_i Σ_c α_i(c)/n_{i,c} Σ_j ε_{i,c,j} λ_{ℓ_{T_i}}(g(X_{i,c,j}), c).
func RadLipsBound(s LMNTMSetting, delta, A, radLoss float64) (float64, error) {
	t, err := s.ConcentrationTerm(delta, A)
	if err != nil {
		return 0, err
	}
	if err := radCheckNonNeg("radLoss", radLoss); err != nil {
		return 0, err
	}
	return t + 2*radLoss, nil
}

// LemmaGenBound returns the right side of Lemma `lemma: gen`, corrected:
// ConcentrationTerm(δ, A) + 2√2·radVec, where radVec is the vector-valued
// weighted Rademacher complexity
// E_{S,ε} sup_g Σ_i w_i|λ_{ℓ_{T_i}}| Σ_c α_i(c)/n_{i,c} Σ_j Σ_{c'} ε_{i,c,j,c'} g_{c'}(X_{i,c,j}).
//
// The paper states the factor 2; its proof combines Lemma `rad.lips.lemma`
// (factor 2) with Lemma `multi.rad.lemma` (factor √2), which gives 2√2, and
// the √2 cannot be dropped from Lemma `multi.rad.lemma` (see PAPER_MAP.md, Findings,
// "Section 4.3 and Appendix C").
func LemmaGenBound(s LMNTMSetting, delta, A, radVec float64) (float64, error) {
	t, err := s.ConcentrationTerm(delta, A)
	if err != nil {
		return 0, err
	}
	if err := radCheckNonNeg("radVec", radVec); err != nil {
		return 0, err
	}
	return t + 2*math.Sqrt2*radVec, nil
}

// KernelRadBound returns C·R·K·√(Σ_i a_i²), the bound of Proposition
// `supp.prop: kernel_bound` on E_ε sup_{g_c∈𝒢^k_{K,R}} Σ_i a_i Σ_c ε_{i,c}
// g_c(x_i), where K bounds ‖k(·,x)‖_ℋ = √k(x,x).
func KernelRadBound(C int, R, K float64, a []float64) (float64, error) {
	if C < 1 {
		return 0, fmt.Errorf("C: is %d, want ≥ 1", C)
	}
	if err := radCheckNonNeg("R", R); err != nil {
		return 0, err
	}
	if err := radCheckNonNeg("K", K); err != nil {
		return 0, err
	}
	if err := radCheckWeights(a); err != nil {
		return 0, err
	}
	return float64(C) * R * K * math.Sqrt(radDot(a, a)), nil
}

// KernelRadBoundDiag returns C·R·√(Σ_i a_i² k(x_i,x_i)), the sharper
// intermediate bound of the proof of Proposition `supp.prop: kernel_bound`
// (line supp.eq.kernel: ind of rads r.v.), given the Gram diagonal.
func KernelRadBoundDiag(C int, R float64, a, diag []float64) (float64, error) {
	if C < 1 {
		return 0, fmt.Errorf("C: is %d, want ≥ 1", C)
	}
	if err := radCheckNonNeg("R", R); err != nil {
		return 0, err
	}
	if err := radCheckWeights(a); err != nil {
		return 0, err
	}
	if len(diag) != len(a) {
		return 0, fmt.Errorf("diag: has %d entries, want len(a)=%d", len(diag), len(a))
	}
	v := 0.0
	for i, d := range diag {
		if !(d >= 0) || math.IsInf(d, 0) {
			return 0, fmt.Errorf("diag: entry %d is %g, want k(x_i,x_i) ≥ 0", i, d)
		}
		v += a[i] * a[i] * d
	}
	return float64(C) * R * math.Sqrt(v), nil
}

// MLPRadBound returns C·α·2^{m−1}·β^m·√(Σ_i a_i²), the bound of Proposition
// `supp.prop: MLP_bound` on E_ε sup_{g_c∈𝒩_m} Σ_i a_i Σ_c ε_{i,c} g_c(x_i)
// when ‖x_i‖₂ ≤ alpha.
func MLPRadBound(C, m int, alpha, beta float64, a []float64) (float64, error) {
	if C < 1 || m < 1 {
		return 0, fmt.Errorf("C, m: are %d, %d, want both ≥ 1", C, m)
	}
	if err := radCheckNonNeg("alpha", alpha); err != nil {
		return 0, err
	}
	if err := radCheckNonNeg("beta", beta); err != nil {
		return 0, err
	}
	if err := radCheckWeights(a); err != nil {
		return 0, err
	}
	return float64(C) * alpha * math.Pow(2, float64(m-1)) * math.Pow(beta, float64(m)) * math.Sqrt(radDot(a, a)), nil
}

// B1 returns the class constant B_1 of Theorem `thm: geb` for 𝒢₁ (C balls of
// radius R in an RKHS with ‖k(·,x)‖ ≤ K): 2√2·R·K. Proposition
// `prop: kernel_bound` writes R·K, dropping the factor 2 of Lemma
// `lemma: gen` and the √2 of Lemma `multi.rad.lemma` (see Findings).
func B1(R, K float64) float64 { return 2 * math.Sqrt2 * R * K }

// B2 returns the class constant B_2 of Theorem `thm: geb` for 𝒢₂ = 𝒩_m^C
// with ‖x‖₂ ≤ alpha: 2√2·α·2^{m−1}·β^m (Proposition `prop: MLP_bound`
// writes α·2^{m−1}·β^m; see B1 and Findings).
func B2(m int, alpha, beta float64) float64 {
	return 2 * math.Sqrt2 * alpha * math.Pow(2, float64(m-1)) * math.Pow(beta, float64(m))
}

// A1 returns √C·R·K = sup_{x, g∈𝒢₁} ‖g(x)‖₂ for 𝒢₁ (C balls of radius R, ‖k(·,x)‖_ℋ ≤ K,
// with equality where ‖k(·,x)‖_ℋ = K): each |g_c(x)| = |⟨g_c, k(·,x)⟩| ≤ RK by
// Cauchy–Schwarz (Appendix C, proof of Proposition `supp.prop: kernel_bound`).
// It is the constant A_1 of Theorem `thm: geb`.
func A1(C int, R, K float64) float64 { return math.Sqrt(float64(C)) * R * K }

// A2 returns √C·α·β^m, a bound on sup_{x, g∈𝒢₂} ‖g(x)‖₂ for 𝒢₂ = 𝒩_m^C with
// ‖x‖₂ ≤ α and 1-Lipschitz μ with μ(0) = 0 (so |μ(t)| ≤ |t|): |⟨v, x⟩| ≤ βα
// on 𝒩₁ and |Σ_j v_j μ(f_j(x))| ≤ ‖v‖₁·max_j|f_j(x)| on 𝒩_m. It is the
// constant A_2 of Theorem `thm: geb`.
func A2(C, m int, alpha, beta float64) float64 {
	return math.Sqrt(float64(C)) * alpha * math.Pow(beta, float64(m))
}

// GEBBound returns the right side of Theorem `thm: geb`,
//
//	(max_i(|λ_{ℓ_{T_i}}|A + |λ_{ℓ_{T_i}}|₀)·√(2 log(2/δ)) + C·B·max_i|λ_{ℓ_{T_i}}|)·√(Σ_i Σ_c w_i²/n_{i,c}),
//
// with B = B1(R, K) for 𝒢₁ or B2(m, α, β) for 𝒢₂, and A bounding ‖g(x)‖₂.
func GEBBound(s LMNTMSetting, delta, A, B float64) (float64, error) {
	if err := s.Validate(); err != nil {
		return 0, err
	}
	if err := radCheckDelta(delta); err != nil {
		return 0, err
	}
	if err := radCheckNonNeg("A", A); err != nil {
		return 0, err
	}
	if err := radCheckNonNeg("B", B); err != nil {
		return 0, err
	}
	maxB, maxL, v := 0.0, 0.0, 0.0
	for i, w := range s.W {
		maxB = math.Max(maxB, s.Lip[i]*A+s.Lip0[i])
		maxL = math.Max(maxL, s.Lip[i])
		for _, n := range s.N[i] {
			v += w * w / float64(n)
		}
	}
	C := float64(s.NumClasses())
	return (maxB*math.Sqrt(2*math.Log(2/delta)) + C*B*maxL) * math.Sqrt(v), nil
}

// ClassGEBBound returns the bound of Propositions `prop: kernel_bound` and
// `prop: MLP_bound` (their second displays, corrected as in B1 and B2),
//
//	(max_i(|λ_i|A + |λ_i|₀)·√(2 log(2/δ)) + C·B·max_i|λ_i|)·√(Σ_i w_i² Σ_c α_i(c)²/n_{i,c}),
//
// which is at most GEBBound because α_i(c) ≤ 1.
func ClassGEBBound(s LMNTMSetting, delta, A, B float64) (float64, error) {
	g, err := GEBBound(s, delta, A, B)
	if err != nil {
		return 0, err
	}
	num, den := 0.0, 0.0
	for i, w := range s.W {
		for c, n := range s.N[i] {
			num += w * w * s.Alpha[i][c] * s.Alpha[i][c] / float64(n)
			den += w * w / float64(n)
		}
	}
	return g * math.Sqrt(num/den), nil
}
