package claims

// Claims of Section 3 and App. B (calibration of the forward-correction loss),
// checked pointwise: on one point x with clean posterior η, prediction q and
// noise transition matrix T.
//
// Conventions used by every checker in the calib_*.go files:
//   - C1 = C_{L,P,x}(q) − C*_{L,P,x}, the excess inner 0-1 risk (target);
//   - C2 = C_{ℓ_T,P_T,x}(q) − C*_{ℓ_T,P_T,x}, the excess inner FC risk
//     (surrogate), as in the proof of Lemma `cali.inner.lemma`.
//
// Tolerances. A bound LHS ≤ RHS passes when LHS ≤ RHS + tolRel·|RHS| + tolAbs.
// The sides are sums of at most 10 terms of size at most ~60 (−log of an
// entry 1e-13 of Tq, times a probability), so each carries a rounding error
// below 10·60·2⁻⁵² ≈ 1.3e-13; tolAbs = 1e-12 covers it with a factor ~8.
// tolRel = 1e-9 covers the relative error of the closed forms (norms of
// inverses of matrices with condition number up to 1e8 are checked with their
// own, condition-dependent tolerance, documented where used).

import (
	"fmt"
	"math"
	"math/rand"

	"github.com/leanovate/gopter"
	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

const (
	tolAbs = 1e-12
	tolRel = 1e-9
)

// leq reports lhs ≤ rhs within the documented tolerance; +Inf ≤ +Inf holds.
func leq(lhs, rhs float64) bool {
	if math.IsNaN(lhs) || math.IsNaN(rhs) {
		return false
	}
	if math.IsInf(rhs, 1) {
		return true
	}
	return lhs <= rhs+tolRel*math.Abs(rhs)+tolAbs
}

// near reports a = b within the documented tolerance; +Inf = +Inf.
func near(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return false
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= tolRel*math.Max(math.Abs(a), math.Abs(b))+tolAbs
}

// ratioFloor is the size below which both sides of a relation are rounding
// noise relative to tolAbs: such a case is still checked (OK is computed
// from the true sides) but reported with LHS = RHS = 0, so that its
// meaningless ratio does not enter the worst ratio of the run.
const ratioFloor = 1e3 * tolAbs

// mkCase builds a verify.Case from the two sides and the verdict.
func mkCase(lhs, rhs float64, ok bool, detail string) verify.Case {
	if math.Abs(lhs) < ratioFloor && math.Abs(rhs) < ratioFloor {
		return verify.Case{OK: ok, Detail: detail}
	}
	return verify.Case{LHS: lhs, RHS: rhs, OK: ok, Detail: detail}
}

// Implementations under test, as parameters of the checkers.
type (
	// fcExcessFunc computes C2(q, η) for loss l and matrix T.
	fcExcessFunc func(l theory.ProperLoss, T mat.Matrix, eta, q []float64) (float64, error)
	// zoExcessFunc computes C1 = max η − η_{min argmax q}.
	zoExcessFunc func(eta, q []float64) (float64, error)
	// thetaFunc is a calibration lower bound ε ↦ θ_T(ε).
	thetaFunc func(T mat.Matrix, eps float64) (float64, error)
	// klFunc computes KL(p‖q).
	klFunc func(p, q []float64) (float64, error)
	// distFunc computes a distance between two points of the simplex.
	distFunc func(p, q []float64) (float64, error)
	// invNormFunc computes ‖M⁻¹‖ for some norm.
	invNormFunc func(M mat.Matrix) (float64, error)
)

// pointCase is one generated input of a pointwise checker.
type pointCase struct {
	T        *mat.Dense
	Tdesc    string
	Eta, Q   []float64
	qKind    string
	C        int
	Epsilons []float64 // extra ε values for implication checks
}

func (pc pointCase) String() string {
	return fmt.Sprintf("C=%d T(%s)=%v η=%v q(%s)=%v", pc.C, pc.Tdesc, mat.Formatted(pc.T, mat.FormatMATLAB()), pc.Eta, pc.qKind, pc.Q)
}

// genPointCase draws C ∈ [2,10], T from GenT (condition numbers up to
// maxCond), η from GenSimplex and q from a mixture weighted towards the
// near-tight cases: across the decision boundary (40%), near η (20%), random
// (20%), η itself (10%), extreme (10%).
func genPointCase(maxCond float64, allowZeros bool) gopter.Gen {
	return verify.Gen(func(r *rand.Rand, _ int) any {
		C := genC(r)
		T, desc := genTBiased(r, C, maxCond)
		eta := GenSimplex(r, C, allowZeros)
		var q []float64
		var kind string
		switch k := r.Intn(10); {
		case k < 4:
			q, kind = GenAcrossBoundary(r, eta), "across boundary"
		case k < 6:
			q, kind = GenNear(r, eta), "near η"
		case k < 8:
			q, kind = GenSimplex(r, C, allowZeros), "random"
		case k < 9:
			q, kind = append([]float64(nil), eta...), "η"
		default:
			q, kind = GenExtremeSimplex(r, C), "extreme"
		}
		return pointCase{T: T, Tdesc: desc, Eta: eta, Q: q, qKind: kind, C: C,
			Epsilons: []float64{r.Float64(), r.Float64() * 1e-3}}
	})
}

// genC draws C ∈ [2,10], and C = 2 a quarter of the time: the smallest C
// is where the bounds are tight.
func genC(r *rand.Rand) int {
	if C := 2 + r.Intn(9); r.Intn(4) != 0 {
		return C
	}
	return 2
}

// genTBiased is GenT with a bias towards the identity-like matrices, where
// the calibration bounds are tightest.
func genTBiased(r *rand.Rand, C int, maxCond float64) (*mat.Dense, string) {
	if r.Intn(5) == 0 {
		a := 1e-3 * r.Float64()
		return GenUniformNoiseT(C, a), fmt.Sprintf("near identity α=%.3g", a)
	}
	return GenT(r, C, maxCond)
}

// checkConvexLB checks θ(C1) ≤ C2 for the FC log loss at every generated
// point (Proposition `theorem: convex LB - calib func - FC log loss`).
func checkConvexLB(cfg verify.Config, name string, theta thetaFunc) verify.Outcome {
	return verify.ForAll(cfg, name, verify.Bound, genPointCase(1e8, true), func(pc pointCase) verify.Case {
		c1, err1 := theory.ExcessZeroOneInnerRisk(pc.Eta, pc.Q)
		c2, err2 := theory.ExcessInnerRiskFC(theory.LogLoss, pc.T, pc.Eta, pc.Q)
		if err := firstErr(err1, err2); err != nil {
			return verify.Case{Detail: pc.String() + ": " + err.Error()}
		}
		lhs, err := theta(pc.T, c1)
		if err != nil {
			return verify.Case{Detail: pc.String() + ": " + err.Error()}
		}
		return mkCase(lhs, c2, leq(lhs, c2),
			fmt.Sprintf("%v: θ(C1=%.6g)=%.6g > C2=%.6g", pc, c1, lhs, c2))
	})
}

// checkCaliInner checks Lemma `cali.inner.lemma` with the explicit δ(ε) of
// the given loss: for ε ∈ {C1, C1(1+1e-6), random}, C2 < δ(ε) ⇒ C1 < ε; and
// the first step of its proof, C1 ≤ ‖η−q‖_∞ + ‖η−q‖₁.
func checkCaliInner(cfg verify.Config, name string, l theory.ProperLoss, delta thetaFunc) verify.Outcome {
	return verify.ForAll(cfg, name, verify.Bound, genPointCase(1e8, true), func(pc pointCase) verify.Case {
		c1, err1 := theory.ExcessZeroOneInnerRisk(pc.Eta, pc.Q)
		c2, err2 := theory.ExcessInnerRiskFC(l, pc.T, pc.Eta, pc.Q)
		if err := firstErr(err1, err2); err != nil {
			return verify.Case{Detail: pc.String() + ": " + err.Error()}
		}
		// Proof step: C1 ≤ ‖η−q‖∞ + ‖η−q‖₁ (the constant C_‖·‖ = 2 for ‖·‖₁).
		inf, one := 0.0, 0.0
		for i := range pc.Eta {
			d := math.Abs(pc.Eta[i] - pc.Q[i])
			inf = math.Max(inf, d)
			one += d
		}
		if !leq(c1, inf+one) {
			return verify.Case{LHS: c1, RHS: inf + one, Detail: fmt.Sprintf("%v: C1=%.6g > ‖η−q‖∞+‖η−q‖₁=%.6g", pc, c1, inf+one)}
		}
		// The implication for several ε. The ratio recorded is δ(C1)/C2 at ε = C1
		// (> 1 would mean the implication fails there).
		var lhs0 float64
		for k, eps := range append([]float64{c1, c1 * (1 + 1e-6)}, pc.Epsilons...) {
			if eps <= 0 {
				continue
			}
			d, err := delta(pc.T, eps)
			if err != nil {
				return verify.Case{Detail: pc.String() + ": " + err.Error()}
			}
			if k == 0 {
				lhs0 = d
			}
			// C2 < δ must force C1 < ε. Rounding: C2 is accurate to tolAbs,
			// so "C2 < δ" is tested as C2 + tolAbs + tolRel·C2 < δ.
			if c2+tolAbs+tolRel*math.Abs(c2) < d && !(c1 < eps) {
				return verify.Case{LHS: d, RHS: c2, Detail: fmt.Sprintf("%v: ε=%.6g δ(ε)=%.6g, C2=%.6g < δ but C1=%.6g ≥ ε", pc, eps, d, c2, c1)}
			}
		}
		return mkCase(lhs0, c2, true, "")
	})
}

// checkYWKL checks Lemma `YW_lemma:KL`: C2 for the log loss equals KL(Tη‖Tq).
func checkYWKL(cfg verify.Config, name string, kl klFunc) verify.Outcome {
	return verify.ForAll(cfg, name, verify.Identity, genPointCase(1e8, true), func(pc pointCase) verify.Case {
		c2, err := theory.ExcessInnerRiskFC(theory.LogLoss, pc.T, pc.Eta, pc.Q)
		if err != nil {
			return verify.Case{Detail: pc.String() + ": " + err.Error()}
		}
		te, tq := mulVec(pc.T, pc.Eta), mulVec(pc.T, pc.Q)
		d, err := kl(te, tq)
		if err != nil {
			return verify.Case{Detail: pc.String() + ": " + err.Error()}
		}
		return mkCase(c2, d, near(c2, d),
			fmt.Sprintf("%v: C2=%.17g, KL(Tη‖Tq)=%.17g", pc, c2, d))
	})
}

// genPair draws two points of the simplex of dimension 2…10 from the
// adversarial mixture, with q near, across the boundary from, or independent
// of p (zeros allowed).
func genPair() gopter.Gen {
	return verify.Gen(func(r *rand.Rand, _ int) any {
		C := genC(r)
		p := GenSimplex(r, C, true)
		var q []float64
		switch r.Intn(4) {
		case 0:
			q = GenNear(r, p)
		case 1:
			q = GenAcrossBoundary(r, p)
		default:
			q = GenSimplex(r, C, true)
		}
		if r.Intn(2) == 0 {
			p, q = q, p
		}
		return [2][]float64{p, q}
	})
}

// checkPinsker checks KL(p‖q) ≥ ½‖p−q‖₁² (Theorem `theorem: Pinsker inequality`).
func checkPinsker(cfg verify.Config, name string, kl klFunc) verify.Outcome {
	return verify.ForAll(cfg, name, verify.Bound, genPair(), func(pq [2][]float64) verify.Case {
		p, q := pq[0], pq[1]
		d, err1 := kl(p, q)
		n, err2 := theory.L1Distance(p, q)
		if err := firstErr(err1, err2); err != nil {
			return verify.Case{Detail: fmt.Sprintf("p=%v q=%v: %v", p, q, err)}
		}
		lhs := 0.5 * n * n
		return mkCase(lhs, d, leq(lhs, d),
			fmt.Sprintf("p=%v q=%v: ½‖p−q‖₁²=%.6g > KL=%.6g", p, q, lhs, d))
	})
}

// checkL1ZO checks ℓ̲^{01}(q,p) − ℓ̲^{01}(p,p) ≤ ‖p−q‖₁ (Lemma
// `lemma: L1 norm upper bounds ZO divergence`).
func checkL1ZO(cfg verify.Config, name string, zo zoExcessFunc, l1 distFunc) verify.Outcome {
	return verify.ForAll(cfg, name, verify.Bound, genPair(), func(pq [2][]float64) verify.Case {
		p, q := pq[0], pq[1]
		e, err1 := zo(p, q)
		n, err2 := l1(p, q)
		if err := firstErr(err1, err2); err != nil {
			return verify.Case{Detail: fmt.Sprintf("p=%v q=%v: %v", p, q, err)}
		}
		return mkCase(e, n, leq(e, n),
			fmt.Sprintf("p=%v q=%v: L(q,p)−L(p,p)=%.6g > ‖p−q‖₁=%.6g", p, q, e, n))
	})
}

// checkL1ZOWith is checkL1ZO with the excess 0-1 risk zo fixed: a checker
// of the distance under test.
func checkL1ZOWith(zo zoExcessFunc) checker[distFunc] {
	return func(cfg verify.Config, name string, l1 distFunc) verify.Outcome { return checkL1ZO(cfg, name, zo, l1) }
}

// zoExcessFromRisks computes C1 from the generic inner risk and the closed
// form of the minimal inner risk of the 0-1 loss l (an implementation of
// `equation: calibration function - lower` independent of
// theory.ExcessZeroOneInnerRisk).
func zoExcessFromRisks(l theory.ProperLoss) zoExcessFunc {
	return func(eta, q []float64) (float64, error) {
		r, err := theory.InnerRisk(l, eta, q)
		if err != nil {
			return 0, err
		}
		m, err := theory.MinInnerRisk(theory.ZeroOneLoss, eta)
		if err != nil {
			return 0, err
		}
		return r - m, nil
	}
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func mulVec(T mat.Matrix, v []float64) []float64 {
	r, c := T.Dims()
	out := make([]float64, r)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			out[i] += T.At(i, j) * v[j]
		}
	}
	return out
}

// Deliberately wrong implementations for the negative controls.

// thetaWithNormT is θ with ‖T‖₁ in place of ‖T⁻¹‖₁.
func thetaWithNormT(T mat.Matrix, eps float64) (float64, error) {
	n := theory.Norm1(T)
	return eps * eps / (2 * n * n), nil
}

// deltaLinear is δ(ε) = ε: a "calibration function" ignoring T and the
// quadratic rate.
func deltaLinear(_ mat.Matrix, eps float64) (float64, error) { return eps, nil }

// klSwapped is KL(q‖p) in place of KL(p‖q).
func klSwapped(p, q []float64) (float64, error) { return theory.KL(q, p) }

// klPaperLiteral is the literal reading of App. B,
// `equation-definition: KL divergence`: ℓ̲(p,q) − ℓ̲(p,p) with
// ℓ̲(q,p) = Σ −p_i log q_i, i.e. Σ −q_i log p_i + Σ p_i log p_i.
func klPaperLiteral(p, q []float64) (float64, error) { return crossMinusSelf(p, q, p) }

// klCorrected is ℓ̲(q,p) − ℓ̲(p,p), the consistent reading of the definition.
func klCorrected(p, q []float64) (float64, error) { return crossMinusSelf(q, p, p) }

// crossMinusSelf is theory.CrossEntropy(a, b) − theory.CrossEntropy(p, p).
func crossMinusSelf(a, b, p []float64) (float64, error) {
	x, err1 := theory.CrossEntropy(a, b)
	y, err2 := theory.CrossEntropy(p, p)
	return x - y, firstErr(err1, err2)
}

// totalVariation is ½‖p−q‖₁ in place of ‖p−q‖₁.
func totalVariation(p, q []float64) (float64, error) {
	d, err := theory.L1Distance(p, q)
	return d / 2, err
}

func init() {
	register(also(tested(verify.Claim{
		Label:      "theorem: convex LB - calib func - FC log loss",
		Kind:       verify.Theorem,
		RatioFloor: 0.99,
		Section:    "App. B.2",
		Statement: "for invertible column-stochastic T, log loss ℓ and 0-1 loss L: " +
			"θ_T(C_{L,P,x}(q) − C*_{L,P,x}) ≤ C_{ℓ_T,P_T,x}(q) − C*_{ℓ_T,P_T,x} with θ_T(ε) = ε²/(2‖T⁻¹‖₁²), for all x, q",
		NegativeName: "θ with ‖T‖₁ in place of ‖T⁻¹‖₁",
	}, checkConvexLB, "convexLB", refTheta, thetaWithNormT), func(cfg verify.Config) verify.Outcome {
		return checkConvexLBAccurate(cfg, "convexLB/accurate", refTheta, theory.ExcessZeroOneInnerRisk)
	}))
	register(logAndSquare(verify.Claim{
		Label:      "cali.inner.lemma",
		Kind:       verify.Theorem,
		RatioFloor: 0.99,
		Section:    "App. B.1",
		Statement: "for continuous strictly proper ℓ and invertible column-stochastic T: ∀ε>0 ∃δ>0 ∀x,q: " +
			"C_{ℓ_T,P_T,x}(q) < C* + δ ⇒ C_{L,P,x}(q) < C*_L + ε (checked with δ = θ_T for the log and θ^sq_T for the square loss, and the proof step C1 ≤ ‖η−q‖∞+‖η−q‖₁)",
		NegativeName: "δ(ε) = ε (independent of T, linear rate)",
	}, checkCaliInner, "caliInner", refTheta, refSqTheta, deltaLinear))
	register(tested(verify.Claim{
		Label:        "YW_lemma:KL",
		Kind:         verify.IdentityKind,
		Section:      "App. B.2",
		Statement:    "C_{ℓ_T,P_T,x}(q) − C*_{ℓ_T,P_T,x} = KL(Tp‖Tq) for the log loss, p = P(·|x)",
		NegativeName: "KL arguments swapped: KL(Tq‖Tp)",
	}, checkYWKL, "ywKL", theory.KL, klSwapped))
	register(tested(verify.Claim{
		Label:        "theorem: Pinsker inequality",
		Kind:         verify.Theorem,
		RatioFloor:   0.99,
		Section:      "App. B.2",
		Statement:    "KL(p‖q) ≥ ½‖p−q‖₁² for all p, q ∈ Δ^C",
		NegativeName: "KL by the literal App. B definition ℓ̲(p,q) − ℓ̲(p,p) (an erratum)",
	}, checkPinsker, "pinsker", theory.KL, klPaperLiteral))
	register(also(tested(verify.Claim{
		Label:        "lemma: L1 norm upper bounds ZO divergence",
		Kind:         verify.Theorem,
		RatioFloor:   0.99,
		Section:      "App. B.2",
		Statement:    "‖p−q‖₁ ≥ ℓ̲^{01}(q,p) − ℓ̲^{01}(p,p) for all p, q ∈ Δ^C",
		NegativeName: "total variation ½‖p−q‖₁ in place of ‖p−q‖₁",
	}, checkL1ZOWith(theory.ExcessZeroOneInnerRisk), "l1zo", theory.L1Distance, totalVariation), func(cfg verify.Config) verify.Outcome {
		return checkL1ZO(cfg, "l1zo/risks", zoExcessFromRisks(theory.ZeroOneLoss), theory.L1Distance)
	}))
	register(tested(verify.Claim{
		Label:        "equation-definition: KL divergence",
		Kind:         verify.Definitional,
		Section:      "App. B.2",
		Statement:    "KL(p‖q) = Σ p_i log(p_i/q_i) = ℓ̲(q,p) − ℓ̲(p,p) (corrected; the paper prints ℓ̲(p,q) − ℓ̲(p,p))",
		NegativeName: "the definition as printed, ℓ̲(p,q) − ℓ̲(p,p)",
	}, checkKLDefinition, "klDef", klCorrected, klPaperLiteral))
}

// checkKLDefinition checks that kl agrees with the cross-entropy form def on
// pairs with q in the interior (def is a difference of two finite sums there).
func checkKLDefinition(cfg verify.Config, name string, def klFunc) verify.Outcome {
	return verify.ForAll(cfg, name, verify.Identity, genPair(), func(pq [2][]float64) verify.Case {
		p, q := pq[0], floorSimplex(append([]float64(nil), pq[1]...), ExtremeEntry)
		a, err1 := theory.KL(p, q)
		b, err2 := def(p, q)
		if err := firstErr(err1, err2); err != nil {
			return verify.Case{Detail: fmt.Sprintf("p=%v q=%v: %v", p, q, err)}
		}
		return mkCase(a, b, near(a, b),
			fmt.Sprintf("p=%v q=%v: KL=%.17g, definition gives %.17g", p, q, a, b))
	})
}
