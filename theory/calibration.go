package theory

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// NoisyPosterior returns η_T = Tη, the class posterior of the noisy label Ỹ
// given X = x when η is the clean posterior (Section 2: "η_T(x) = Tη(x)").
// T must be C×C column-stochastic and η in Δ^C.
func NoisyPosterior(T mat.Matrix, eta []float64) ([]float64, error) {
	if err := CheckSimplex("eta", eta, SimplexTol); err != nil {
		return nil, err
	}
	if err := checkT(T, len(eta)); err != nil {
		return nil, err
	}
	return mulVec(T, eta), nil
}

// InnerRiskFC returns the inner ℓ_T-risk under the noisy distribution P_T,
//
//	C_{ℓ_T,P_T,x}(q) = Σ_c (Tη)_c ℓ(Tq, c),
//
// at a point x with clean posterior η (Section 2, definitions of the inner
// risk and of the FC loss; App. B, proof of Lemma `cali.inner.lemma`).
func InnerRiskFC(l ProperLoss, T mat.Matrix, eta, q []float64) (float64, error) {
	if err := checkFCArgs(l, T, eta, q); err != nil {
		return 0, err
	}
	return innerRisk(l, mulVec(T, eta), mulVec(T, q)), nil
}

// MinInnerRiskFC returns the minimal inner ℓ_T-risk under P_T,
// C*_{ℓ_T,P_T,x} = inf_{q∈Δ^C} Σ_c (Tη)_c ℓ(Tq,c). Because ℓ is proper and
// Tq = Tη at q = η, the infimum is C*_{ℓ,Tη}, computed in closed form by
// MinInnerRisk (App. B, proof of Lemma `YW_lemma:KL` for the log loss).
func MinInnerRiskFC(l ProperLoss, T mat.Matrix, eta []float64) (float64, error) {
	if l == nil {
		return 0, fmt.Errorf("l: nil loss")
	}
	te, err := NoisyPosterior(T, eta)
	if err != nil {
		return 0, err
	}
	return MinInnerRisk(l, clampSimplex(te))
}

// ExcessInnerRisk returns C_{ℓ,η}(q) − C*_{ℓ,η}, the excess inner ℓ-risk
// (Section 2), using the closed form of MinInnerRisk. For ZeroOneLoss this is
// the target excess C_{1,x}(q) of the proof of Lemma `cali.inner.lemma`.
func ExcessInnerRisk(l ProperLoss, eta, q []float64) (float64, error) {
	r, err := InnerRisk(l, eta, q)
	if err != nil {
		return 0, err
	}
	m, err := MinInnerRisk(l, eta)
	if err != nil {
		return 0, err
	}
	return r - m, nil
}

// ExcessInnerRiskFC returns the surrogate excess inner risk of the proof of
// Lemma `cali.inner.lemma` (App. B),
//
//	C_2(q, η) = Σ_c (Tη)_c (ℓ(Tq,c) − ℓ(Tη,c)) = C_{ℓ_T,P_T,x}(q) − C*_{ℓ_T,P_T,x},
//
// where the second equality holds because ℓ is proper. Terms with (Tη)_c = 0
// contribute 0. For the log loss this equals KL(Tη‖Tq) (Lemma `YW_lemma:KL`)
// and for the square loss ‖T(η−q)‖₂².
func ExcessInnerRiskFC(l ProperLoss, T mat.Matrix, eta, q []float64) (float64, error) {
	if err := checkFCArgs(l, T, eta, q); err != nil {
		return 0, err
	}
	te, tq := mulVec(T, eta), mulVec(T, q)
	s := 0.0
	for c, w := range te {
		if w == 0 {
			continue
		}
		s += w * (l.Loss(tq, c) - l.Loss(te, c))
	}
	return s, nil
}

// ExcessZeroOneInnerRisk returns the excess inner 0-1 risk
//
//	C_{L,P,x}(q) − C*_{L,P,x} = max_c η_c − η_{min argmax q}
//
// (App. B, `equation: calibration function - lower`, with
// `equation-definition: Bayes risk - zo loss` and
// `equation-definition: Bayes minimum risk - zo loss`).
func ExcessZeroOneInnerRisk(eta, q []float64) (float64, error) {
	if err := CheckSimplex("eta", eta, SimplexTol); err != nil {
		return 0, err
	}
	if err := CheckSimplex("q", q, SimplexTol); err != nil {
		return 0, err
	}
	if len(eta) != len(q) {
		return 0, fmt.Errorf("q: has %d entries, want %d (= len(eta))", len(q), len(eta))
	}
	return eta[ArgMax(eta)] - eta[ArgMax(q)], nil
}

// CalibrationLowerBound returns θ_T(ε) = ε² / (2‖T⁻¹‖₁²), the convex lower
// bound on the calibration function of the FC log loss (Proposition
// `theorem: cali_lowerb`). T must be invertible and column-stochastic and
// ε ≥ 0.
func CalibrationLowerBound(T mat.Matrix, eps float64) (float64, error) {
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return 0, fmt.Errorf("eps: is %g, want a finite number ≥ 0", eps)
	}
	n, err := fcInvNorm1(T)
	if err != nil {
		return 0, err
	}
	return eps * eps / (2 * n * n), nil
}

// CalibrationBoundInverse returns θ_T⁻¹(r) = √2‖T⁻¹‖₁√r (Proposition
// `theorem: cali_lowerb`): the bound on the excess clean 0-1 risk implied by
// an excess noisy ℓ_T^log risk r ≥ 0.
func CalibrationBoundInverse(T mat.Matrix, r float64) (float64, error) {
	if !(r >= 0) || math.IsInf(r, 1) {
		return 0, fmt.Errorf("r: is %g, want a finite number ≥ 0", r)
	}
	n, err := fcInvNorm1(T)
	if err != nil {
		return 0, err
	}
	return math.Sqrt2 * n * math.Sqrt(r), nil
}

// SquareCalibrationLowerBound returns θ^sq_T(ε) = ε² / (2‖T⁻¹‖₂²), an explicit
// calibration function for the FC square loss, making Theorem
// `thm:inv.cali` concrete for ℓ = ℓ^sq (our derivation; the paper gives an
// explicit θ for the log loss only). ‖·‖₂ is the spectral norm. Derivation:
// for the square loss C_{ℓ,p}(r) − C*_{ℓ,p} = ‖p − r‖₂², so the FC excess is
// C_2(q,η) = ‖T(η−q)‖₂² ≥ ‖η−q‖₂²/‖T⁻¹‖₂² (Lemma
// `lemma: operator norm inverse infimum`); with i = min argmax η and
// j = min argmax q, q_j ≥ q_i gives ε = η_i − η_j ≤ |η_i−q_i| + |q_j−η_j|
// ≤ √2‖η−q‖₂. Hence θ^sq_T(ε) ≤ C_2. It is attained in the limit for T = I,
// C = 2, q → (½,½).
func SquareCalibrationLowerBound(T mat.Matrix, eps float64) (float64, error) {
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return 0, fmt.Errorf("eps: is %g, want a finite number ≥ 0", eps)
	}
	n, err := fcInvNorm2(T)
	if err != nil {
		return 0, err
	}
	return eps * eps / (2 * n * n), nil
}

// SquareCalibrationBoundInverse returns (θ^sq_T)⁻¹(r) = √2‖T⁻¹‖₂√r, the
// bound on the excess clean 0-1 risk implied by an excess noisy ℓ_T^sq risk
// r ≥ 0 (see SquareCalibrationLowerBound).
func SquareCalibrationBoundInverse(T mat.Matrix, r float64) (float64, error) {
	if !(r >= 0) || math.IsInf(r, 1) {
		return 0, fmt.Errorf("r: is %g, want a finite number ≥ 0", r)
	}
	n, err := fcInvNorm2(T)
	if err != nil {
		return 0, err
	}
	return math.Sqrt2 * n * math.Sqrt(r), nil
}

// InvNorm2 returns the spectral norm ‖M⁻¹‖₂ = 1/σ_min(M) of the inverse of a
// square matrix M, or an error naming T when M is not square or is singular to
// working precision (σ_max/σ_min > SingularCond; a *SingularError). Note
// that gonum's mat.Norm(·, 2) is the Frobenius norm, not this one.
func InvNorm2(M mat.Matrix) (float64, error) {
	if _, err := CheckSquare("T", M); err != nil {
		return 0, err
	}
	if err := finiteMatrix(M); err != nil {
		return 0, err
	}
	var svd mat.SVD
	if !svd.Factorize(M, mat.SVDNone) {
		return 0, fmt.Errorf("T: singular value decomposition failed")
	}
	s := svd.Values(nil)
	smin, smax := s[len(s)-1], s[0]
	if !(smin*SingularCond > smax) {
		return math.Inf(1), &SingularError{Name: "T", Quantity: "‖T⁻¹‖₂", Cond: smax / smin}
	}
	return 1 / smin, nil
}

// UniformNoiseT returns T = (1−α)I + αN, N the C×C matrix of all 1/C
// (Section 3, the example after Proposition `theorem: cali_lowerb`): the
// noisy label is the clean one with probability 1−α and uniform otherwise.
// It needs α ∈ [0,1] and C ≥ 1.
func UniformNoiseT(alpha float64, C int) (*mat.Dense, error) {
	if !(alpha >= 0 && alpha <= 1) {
		return nil, fmt.Errorf("alpha: is %g, want in [0,1]", alpha)
	}
	if C < 1 {
		return nil, fmt.Errorf("C: is %d, want ≥ 1", C)
	}
	T := mat.NewDense(C, C, nil)
	for i := 0; i < C; i++ {
		for j := 0; j < C; j++ {
			v := alpha / float64(C)
			if i == j {
				v += 1 - alpha
			}
			T.Set(i, j, v)
		}
	}
	return T, nil
}

// UniformNoiseInvNorm1 returns the closed form
//
//	‖T⁻¹‖₁ = (1−α)⁻¹(1 + (1 − 2/C)α)
//
// for T = (1−α)I + αN (Section 3, after Proposition `theorem: cali_lowerb`;
// T⁻¹ = (1−α)⁻¹(I − αN)). It needs α ∈ [0,1) (T is singular at α = 1) and
// C ≥ 1.
func UniformNoiseInvNorm1(alpha float64, C int) (float64, error) {
	if !(alpha >= 0 && alpha < 1) {
		return 0, fmt.Errorf("alpha: is %g, want in [0,1) (T is singular at α = 1)", alpha)
	}
	if C < 1 {
		return 0, fmt.Errorf("C: is %d, want ≥ 1", C)
	}
	return (1 + (1-2/float64(C))*alpha) / (1 - alpha), nil
}

// fcInvNorm1 checks that T is square and column-stochastic and returns ‖T⁻¹‖₁.
func fcInvNorm1(T mat.Matrix) (float64, error) {
	if T == nil {
		return 0, fmt.Errorf("T: nil matrix")
	}
	r, _ := T.Dims()
	if err := checkT(T, r); err != nil {
		return 0, err
	}
	return InvNorm1(T)
}

// fcInvNorm2 checks that T is square and column-stochastic and returns ‖T⁻¹‖₂.
func fcInvNorm2(T mat.Matrix) (float64, error) {
	if T == nil {
		return 0, fmt.Errorf("T: nil matrix")
	}
	r, _ := T.Dims()
	if err := checkT(T, r); err != nil {
		return 0, err
	}
	return InvNorm2(T)
}

func checkFCArgs(l ProperLoss, T mat.Matrix, eta, q []float64) error {
	if l == nil {
		return fmt.Errorf("l: nil loss")
	}
	if err := CheckSimplex("eta", eta, SimplexTol); err != nil {
		return err
	}
	if err := CheckSimplex("q", q, SimplexTol); err != nil {
		return err
	}
	if len(eta) != len(q) {
		return fmt.Errorf("q: has %d entries, want %d (= len(eta))", len(q), len(eta))
	}
	return checkT(T, len(eta))
}

// clampSimplex maps the rounding residue of a product Tη (entries −0 or a
// sum 1±1e-16) back to a valid argument of the simplex checks.
func clampSimplex(p []float64) []float64 {
	for i, v := range p {
		if v < 0 {
			p[i] = 0
		}
	}
	return p
}
