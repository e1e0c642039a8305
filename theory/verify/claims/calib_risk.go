package claims

// Risk-level claims of Section 3 (Theorem `thm:inv.cali`, Proposition
// `theorem: cali_lowerb`) on finite distributions P over a finite X.
//
// The risks are computed from the measures, not from the pointwise
// shortcuts: P(x,y) = P_X(x)η_y(x); the noisy joint is the marginal of
// P̄_T(x, y, ỹ) = P(x, y)·t_{ỹ,y} (Section 2), P_T(x, ỹ) = Σ_y P(x,y) t_{ỹ,y};
// R_{L,P}(f) = Σ_{x,y} P(x,y) L(f(x), y); R*_{L,P} = Σ_x P_X(x)(1 − max_y η_y(x));
// R_{ℓ_T,P_T}(f) = Σ_{x,ỹ} P_T(x,ỹ) ℓ_T(f(x), ỹ) with ℓ_T the implementation
// under test; R*_{ℓ_T,P_T} = Σ_x P_T(x) C*_{ℓ,η_T(x)} with η_T(x) =
// P_T(x,·)/P_T(x) and the closed-form minimal inner risk of the proper loss ℓ
// (entropy for the log loss, 1 − ‖·‖² for the square loss): the infimum over
// all f, attained pointwise.

import (
	"fmt"
	"math"
	"math/rand"

	"github.com/leanovate/gopter"
	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

// fcLossFunc is ℓ_T(q, c) (theory.ForwardCorrected or a wrong variant).
type fcLossFunc func(l theory.ProperLoss, T mat.Matrix, q []float64, c int) (float64, error)

// boundInvFunc maps an excess surrogate risk r to the implied bound θ⁻¹(r)
// on the excess 0-1 risk.
type boundInvFunc func(T mat.Matrix, r float64) (float64, error)

// riskCase is one generated input of a risk-level checker.
type riskCase struct {
	P     FiniteP
	F     [][]float64 // f(x)
	T     *mat.Dense
	Tdesc string
	seedF int64 // seed of a deferred choice of f (thm:cali.noise)
}

func (rc riskCase) String() string {
	return fmt.Sprintf("T(%s)=%v P_X=%v η=%v f=%v", rc.Tdesc, mat.Formatted(rc.T, mat.FormatMATLAB()), rc.P.PX, rc.P.Eta, rc.F)
}

// genRiskCase draws n ∈ [1,6] points, C ∈ [2,10] (C = 2 a quarter of the
// time), T from the adversarial mixture (condition numbers up to 1e8) and an
// adversarial f (GenAdversarialF).
func genRiskCase() gopter.Gen {
	return verify.Gen(func(r *rand.Rand, _ int) any {
		C := genC(r)
		n := 1 + r.Intn(6)
		T, desc := genTBiased(r, C, 1e8)
		P := GenFiniteP(r, n, C, true)
		return riskCase{P: P, F: GenAdversarialF(r, P), T: T, Tdesc: desc}
	})
}

// excessZeroOneRisk returns R_{L,P}(f) − R*_{L,P} from the joint measure.
func excessZeroOneRisk(rc riskCase) float64 {
	joint := rc.P.Joint()
	risk, bayes := 0.0, 0.0
	for x, row := range joint {
		pred := theory.ArgMax(rc.F[x])
		best := 0.0
		for y, pxy := range row {
			if y != pred {
				risk += pxy
			}
			best = math.Max(best, rc.P.Eta[x][y])
		}
		bayes += rc.P.PX[x] * (1 - best)
	}
	return risk - bayes
}

// excessFCRisk returns R_{ℓ_T,P_T}(f) − R*_{ℓ_T,P_T} from the noisy joint.
func excessFCRisk(rc riskCase, l theory.ProperLoss, fc fcLossFunc) (float64, error) {
	joint := rc.P.Joint()
	C := len(rc.P.Eta[0])
	risk, bayes := 0.0, 0.0
	for x, row := range joint {
		noisy := mulVec(rc.T, row) // P_T(x, ·)
		px := sum(noisy)
		if px == 0 {
			continue
		}
		for yt, w := range noisy {
			if w == 0 {
				continue
			}
			v, err := fc(l, rc.T, rc.F[x], yt)
			if err != nil {
				return 0, fmt.Errorf("x=%d: %w", x, err)
			}
			risk += w * v
		}
		etaT := make([]float64, C)
		for yt, w := range noisy {
			etaT[yt] = w / px
		}
		m, err := theory.MinInnerRisk(l, normalize(etaT))
		if err != nil {
			return 0, fmt.Errorf("x=%d: η_T(x): %w", x, err)
		}
		bayes += px * m
	}
	return risk - bayes, nil
}

// checkRiskBound checks R_{L,P}(f) − R*_{L,P} ≤ boundInv(T, R_{ℓ_T,P_T}(f) − R*)
// on random finite distributions and adversarial f. A surrogate excess in
// [−tolAbs, 0) is rounding and is clamped to 0 before the bound is applied.
func checkRiskBound(cfg verify.Config, name string, l theory.ProperLoss, fc fcLossFunc, boundInv boundInvFunc) verify.Outcome {
	return verify.ForAll(cfg, name, verify.Bound, genRiskCase(), func(rc riskCase) verify.Case {
		e01 := excessZeroOneRisk(rc)
		esur, err := excessFCRisk(rc, l, fc)
		if err != nil {
			return verify.Case{Detail: rc.String() + ": " + err.Error()}
		}
		if esur < 0 && esur >= -tolAbs {
			esur = 0
		}
		if esur < 0 {
			return verify.Case{LHS: e01, RHS: esur, Detail: fmt.Sprintf("%v: excess surrogate risk %.6g < 0", rc, esur)}
		}
		if math.IsInf(esur, 1) {
			return verify.Case{OK: true}
		}
		// The bound is √r-type: a rounding error tolAbs in r moves the
		// right side by up to √tolAbs·(its constant); compare with the
		// right side evaluated at r + tolAbs.
		rhs, err1 := boundInv(rc.T, esur)
		rhsTol, err2 := boundInv(rc.T, esur+tolAbs)
		if err := firstErr(err1, err2); err != nil {
			return verify.Case{Detail: rc.String() + ": " + err.Error()}
		}
		detail := fmt.Sprintf("%v: excess 0-1 risk %.6g > θ⁻¹(excess %s_T risk %.6g) = %.6g", rc, e01, l.Name(), esur, rhs)
		if esur < ratioFloor {
			// The surrogate excess is within 1000 rounding units of 0: with a
			// near-singular T the true value (≈ e01²/(2‖T⁻¹‖²) ~ 1e-17) is not
			// resolvable in float64, so the case is checked within rounding
			// but its ratio is not reported.
			return verify.Case{OK: leq(e01, rhsTol), Detail: detail}
		}
		return mkCase(e01, rhs, leq(e01, rhsTol), detail)
	})
}

// checkLogRiskBound is checkRiskBound for the log loss and the FC loss of
// theory.ForwardCorrected: a checker of the bound under test.
func checkLogRiskBound(cfg verify.Config, name string, boundInv boundInvFunc) verify.Outcome {
	return checkRiskBound(cfg, name, theory.LogLoss, theory.ForwardCorrected, boundInv)
}

// boundInvNoSqrt2 is θ⁻¹ with the factor √2 dropped: ‖T⁻¹‖₁√r.
func boundInvNoSqrt2(T mat.Matrix, r float64) (float64, error) {
	b, err := theory.CalibrationBoundInverse(T, r)
	return b / math.Sqrt2, err
}

// squareBoundInvNormT is the square-loss θ⁻¹ with ‖T‖₂ = σ_max(T) in place of
// ‖T⁻¹‖₂: √2‖T‖₂√r.
func squareBoundInvNormT(T mat.Matrix, r float64) (float64, error) {
	var svd mat.SVD
	if !svd.Factorize(T, mat.SVDNone) {
		return 0, fmt.Errorf("T: SVD failed")
	}
	return math.Sqrt2 * svd.Values(nil)[0] * math.Sqrt(r), nil
}

func init() {
	register(also(tested(verify.Claim{
		Label:      "theorem: cali_lowerb",
		Kind:       verify.Theorem,
		RatioFloor: 0.97,
		Section:    "§3",
		Statement: "for invertible column-stochastic T, log loss ℓ, 0-1 loss L, all f and P: " +
			"R_{L,P}(f) − R*_{L,P} ≤ √2‖T⁻¹‖₁ √(R_{ℓ_T,P_T}(f) − R*_{ℓ_T,P_T})",
		NegativeName: "factor √2 dropped: ‖T⁻¹‖₁√r",
	}, checkLogRiskBound, "caliLowerb", refBoundInv, boundInvNoSqrt2), func(cfg verify.Config) verify.Outcome {
		return checkRiskBoundAccurate(cfg, "caliLowerb/accurate", false, refBoundInv)
	}))
	verify.Register(verify.Claim{
		Label:      "thm:inv.cali",
		Kind:       verify.Theorem,
		RatioFloor: 0.99,
		PartFloors: map[string]float64{"invCali/log/accurate": 0.9, "invCali/log": 0.9},
		Section:    "§3",
		Statement: "for continuous strictly proper ℓ and invertible column-stochastic T there is θ with " +
			"R_{L,P}(f) − R*_{L,P} ≤ θ⁻¹(R_{ℓ_T,P_T}(f) − R*); checked with θ_T(ε)=ε²/(2‖T⁻¹‖₁²) for the log loss " +
			"and θ^sq_T(ε)=ε²/(2‖T⁻¹‖₂²) (derived) for the square loss",
		Check: func(cfg verify.Config) verify.Outcome {
			return verify.Merge(verify.Bound,
				checkRiskBound(cfg, "invCali/log", theory.LogLoss, theory.ForwardCorrected, refBoundInv),
				checkRiskBound(cfg, "invCali/square", theory.SquareLoss, theory.ForwardCorrected, refSqBoundInv),
				checkRiskBoundAccurate(cfg, "invCali/log/accurate", false, refBoundInv),
				checkRiskBoundAccurate(cfg, "invCali/square/accurate", true, refSqBoundInv),
				checkSquareBregman(cfg, "invCali/squareBregman", theory.ExcessInnerRiskFC))
		},
		Negative: func(cfg verify.Config) verify.Outcome {
			return checkRiskBound(cfg, "invCali/square", theory.SquareLoss, theory.ForwardCorrected, squareBoundInvNormT)
		},
		NegativeName: "square-loss θ⁻¹ with ‖T‖₂ in place of ‖T⁻¹‖₂",
	})
}
