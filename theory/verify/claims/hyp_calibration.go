package claims

// Hypotheses of the claims of Sections 2–3 and Appendix B (calibration of
// the forward-correction loss), issue 52. Line numbers are those of the
// paper's LaTeX (../shared/paper/llpfc-neurips2022.tex).

import (
	"fmt"
	"math"
	"math/rand"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

// hypPoint draws the inputs of the pointwise checkers (as genPointCase: C,
// T biased towards the tight near-identity matrices, η, and q across the
// boundary, near η, random or extreme).
func hypPoint(r *rand.Rand, _ int) pointCase {
	C := genC(r)
	T, desc := genTBiased(r, C, 1e8)
	eta := GenSimplex(r, C, true)
	var q []float64
	switch k := r.Intn(10); {
	case k < 5:
		q = GenAcrossBoundary(r, eta)
	case k < 7:
		q = GenNear(r, eta)
	case k < 9:
		q = GenSimplex(r, C, true)
	default:
		q = GenExtremeSimplex(r, C)
	}
	return pointCase{T: T, Tdesc: desc, Eta: eta, Q: q, C: C}
}

// hypRisk draws the inputs of the risk-level checkers (as genRiskCase).
func hypRisk(r *rand.Rand, _ int) riskCase {
	C := genC(r)
	T, desc := genTBiased(r, C, 1e8)
	P := GenFiniteP(r, 1+r.Intn(6), C, true)
	return riskCase{P: P, F: GenAdversarialF(r, P), T: T, Tdesc: desc}
}

// scaled returns s·T (column sums s: invertible, not column-stochastic).
func scaled(T mat.Matrix, s float64) *mat.Dense {
	var out mat.Dense
	out.Scale(s, T)
	return &out
}

// hypScale draws the scale s ∈ [1.5, 3] of the family "T = s·T₀".
func hypScale(r *rand.Rand) float64 { return unif(r, 1.5, 3) }

// logExcessScaled is the excess inner FC log risk at q for T = s·T₀: the
// inner risk Σ_c s(T₀η)_c(−log s − log(T₀q)_c) is minimized at q = η (the
// −log s term does not depend on q; Gibbs' inequality).
func logExcessScaled(T mat.Matrix, eta, q []float64) float64 {
	return hypInner(theory.LogLoss, T, eta, q) - hypInner(theory.LogLoss, T, eta, eta)
}

// scaledPoint is a pointCase with T = s·T₀.
type scaledPoint struct {
	pointCase
	s float64
}

func genScaledPoint(r *rand.Rand, size int) scaledPoint {
	return scaledPoint{pointCase: hypPoint(r, size), s: hypScale(r)}
}

// probeConvexLBColStoch re-runs Proposition `theorem: convex LB - calib func
// - FC log loss` with T = s·T₀: θ_T(C1) = C1²/(2‖T⁻¹‖₁²) against the
// excess inner risk of ℓ(Tq, c), both computed for that T.
func probeConvexLBColStoch(label string) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Violate(cfg, probeStream(label, "T column-stochastic"),
			"T = s·T₀, s ∈ [1.5, 3] (invertible, columns summing to s), T₀ from the claim's generator, log loss",
			probeLimit, genScaledPoint, func(p scaledPoint) verify.Case {
				T := scaled(p.T, p.s)
				c1, err := theory.ExcessZeroOneInnerRisk(p.Eta, p.Q)
				n, err2 := theory.InvNorm1(T)
				if err := firstErr(err, err2); err != nil {
					return verify.Case{OK: true, Detail: err.Error()} // near-singular T₀: no verdict
				}
				c2 := logExcessScaled(T, p.Eta, p.Q)
				lhs := c1 * c1 / (2 * n * n)
				return mkCase(lhs, c2, leq(lhs, c2), fmt.Sprintf("%v, s=%.4g: θ_T(C1=%.6g)=%.6g > C2=%.6g", p.pointCase, p.s, c1, lhs, c2))
			})
	}
}

// probeConvexLBSquare re-runs the same proposition with the square loss in
// place of the log loss (θ_T unchanged).
func probeConvexLBSquare(label string) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Violate(cfg, probeStream(label, "ℓ the log loss"),
			"ℓ the square loss (continuous, strictly proper) in place of the log loss, θ_T unchanged, inputs from the claim's generator",
			probeLimit, hypPoint, func(p pointCase) verify.Case {
				c1, err1 := theory.ExcessZeroOneInnerRisk(p.Eta, p.Q)
				c2, err2 := theory.ExcessInnerRiskFC(theory.SquareLoss, p.T, p.Eta, p.Q)
				lhs, err3 := theory.CalibrationLowerBound(p.T, c1)
				if err := firstErr(err1, err2, err3); err != nil {
					return verify.Case{OK: true, Detail: err.Error()}
				}
				return mkCase(lhs, c2, leq(lhs, c2), fmt.Sprintf("%v: θ_T(C1=%.6g)=%.6g > square-loss C2=%.6g", p, c1, lhs, c2))
			})
	}
}

// probeConvexLBSingular: with T singular, ‖T⁻¹‖₁ = ∞ makes θ_T ≡ 0.
func probeConvexLBSingular(label string) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Violate(cfg, probeStream(label, "T invertible"),
			"T singular (two equal columns), q with Tq = Tη or random; ‖T⁻¹‖₁ read as ∞, so θ_T ≡ 0 and the bound reads 0 ≤ C2 (vacuous)",
			probeLimit, genSingularFlip, func(p flipPoint) verify.Case {
				c2 := hypInner(theory.LogLoss, p.T, p.Eta, p.Q) - hypInner(theory.LogLoss, p.T, p.Eta, p.Eta)
				return verify.Case{OK: c2 >= -tolAbs, Detail: fmt.Sprintf("%v: C2=%.3g < 0", p, c2)}
			})
	}
}

// riskScaled is a riskCase with T = s·T₀.
type riskScaled struct {
	riskCase
	s float64
}

func genRiskScaled(r *rand.Rand, size int) riskScaled {
	return riskScaled{riskCase: hypRisk(r, size), s: hypScale(r)}
}

// excessLogRiskScaled is R_{ℓ_T,P_T}(f) − R*_{ℓ_T,P_T} for T = s·T₀ and the
// log loss, computed from the noisy measure P_T(x,ỹ) = Σ_y P(x,y)t_{ỹ,y}
// (of mass s) with the Bayes risk attained at f = η (logExcessScaled).
func excessLogRiskScaled(rc riskCase, T mat.Matrix) float64 {
	total := 0.0
	for x, px := range rc.P.PX {
		if px == 0 {
			continue
		}
		total += px * logExcessScaled(T, rc.P.Eta[x], rc.F[x])
	}
	return total
}

// probeCaliLowerbColStoch re-runs Proposition `theorem: cali_lowerb` at
// risk level with T = s·T₀.
func probeCaliLowerbColStoch(label string) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Violate(cfg, probeStream(label, "T column-stochastic"),
			"T = s·T₀, s ∈ [1.5, 3] (invertible, columns summing to s), P, f and T₀ from the claim's generator, log loss",
			probeLimit, genRiskScaled, func(rc riskScaled) verify.Case {
				T := scaled(rc.T, rc.s)
				n, err := theory.InvNorm1(T)
				if err != nil {
					return verify.Case{OK: true, Detail: err.Error()}
				}
				e01 := excessZeroOneRisk(rc.riskCase)
				r := math.Max(excessLogRiskScaled(rc.riskCase, T), 0)
				rhs := math.Sqrt2 * n * math.Sqrt(r)
				rhsTol := math.Sqrt2 * n * math.Sqrt(r+tolAbs)
				if r < ratioFloor {
					return verify.Case{OK: leq(e01, rhsTol)}
				}
				return mkCase(e01, rhs, leq(e01, rhsTol), fmt.Sprintf("%v, s=%.4g: excess 0-1 risk %.6g > √2‖T⁻¹‖₁√r = %.6g", rc.riskCase, rc.s, e01, rhs))
			})
	}
}

// probeRiskSquare re-runs a risk-level bound (θ⁻¹ of the log loss) with the
// square loss as ℓ.
func probeRiskSquare(label, hyp string) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		c := verify.Config{Cases: verify.ProbeCases(cfg, probeLimit), Seed: cfg.Seed}
		return verify.ProbeOutcome(checkRiskBound(c, probeStream(label, hyp), theory.SquareLoss, theory.ForwardCorrected, refBoundInv),
			"the claim's own checker with the square loss (continuous, strictly proper) in place of the log loss, θ_T⁻¹ = √2‖T⁻¹‖₁√r unchanged")
	}
}

// probeFisher re-runs `fc.fisher.consistency` on a flip family: η must be
// the unique minimizer of q ↦ C_{ℓ_T,P_T,x}(q); the family gives q ≠ η with
// C(q) ≤ C(η).
func probeFisher(label, hyp, tried string, gen func(*rand.Rand, int) flipPoint, inner func(flipPoint, []float64) float64) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Violate(cfg, probeStream(label, hyp), tried, probeLimit, gen, func(p flipPoint) verify.Case {
			atQ, atEta := inner(p, p.Q), inner(p, p.Eta)
			d, _ := theory.L1Distance(p.Eta, p.Q)
			bad := atQ <= atEta+1e-12*(1+math.Abs(atEta)) && d > 1e-6
			return verify.Case{LHS: atEta, RHS: atQ, OK: !bad,
				Detail: fmt.Sprintf("%v: C(q)=%.12g ≤ C(η)=%.12g with ‖q−η‖₁=%.3g: η is not the unique minimizer", p, atQ, atEta, d)}
		})
	}
}

// uniformNoiseEnds evaluates `eq: uniform noise inverse norm` at the ends of
// α ∈ [0,1] and just outside, against ‖T⁻¹‖₁ computed from T (theory.InvNorm1).
func uniformNoiseEnds(verify.Config) []verify.EndCheck {
	const C = 3
	at := func(alpha float64, where string) verify.EndCheck {
		T := mat.NewDense(C, C, nil)
		for i := 0; i < C; i++ {
			for j := 0; j < C; j++ {
				v := alpha / C
				if i == j {
					v += 1 - alpha
				}
				T.Set(i, j, v)
			}
		}
		formula := (1 + (1-2.0/C)*alpha) / (1 - alpha)
		n, err := theory.InvNorm1(T)
		name := fmt.Sprintf("α = %g (C = %d)", alpha, C)
		if err != nil {
			return endAt(name, where, fmt.Sprintf("T singular (%v); the formula gives %s", err, verify.FormatValue(formula)), verify.EndUndefined)
		}
		ok := math.Abs(n-formula) <= 1e-9*n
		return endAt(name, where, fmt.Sprintf("‖T⁻¹‖₁ = %.10g, formula %.10g", n, formula), holdsIf(ok, verify.EndFalse))
	}
	return []verify.EndCheck{at(-0.1, verify.AtOutside), at(0, verify.AtClosedEnd), at(1e-9, verify.AtJustInside),
		at(1-1e-6, verify.AtJustInside), at(1, verify.AtClosedEnd), at(1.5, verify.AtOutside)}
}

// caliInnerEpsEnds evaluates Lemma `cali.inner.lemma` at the ends of ε ∈ ℝ₊:
// at ε = 0 no δ > 0 exists (q = η has C2 = 0 < δ and C1 = 0 ≮ 0); just
// above 0 the log loss's δ = θ_T(ε) is positive; for ε > 1 every δ works
// (C1 ≤ 1 always): the lemma is vacuous there.
func caliInnerEpsEnds(verify.Config) []verify.EndCheck {
	T := GenUniformNoiseT(2, 0.3)
	eta := []float64{0.7, 0.3}
	c1, _ := theory.ExcessZeroOneInnerRisk(eta, eta)
	c2, _ := theory.ExcessInnerRiskFC(theory.LogLoss, T, eta, eta)
	d, _ := theory.CalibrationLowerBound(T, 1e-12)
	return []verify.EndCheck{
		endAt("ε = 0", verify.AtOpenEnd, fmt.Sprintf("at q = η: C2 = %g < every δ > 0 but C1 = %g ≮ 0", c2, c1), verify.EndFalse),
		endAt("ε = 1e-12", verify.AtJustInside, fmt.Sprintf("δ = θ_T(ε) = %.3g > 0 (log loss, T = 0.7I + 0.3N, C = 2)", d), holdsIf(d > 0, verify.EndFalse)),
		endAt("ε = 1e6 (towards ∞)", verify.AtJustInside, "C1 ≤ 1 < ε for every x and q: every δ works", verify.EndVacuous),
	}
}

// qSimplexEnds evaluates a pointwise log-loss statement at a vertex q of
// Δ^C (a closed end of q ∈ Δ^C): with T = I the FC log loss is +∞ there.
func qSimplexEnds(verify.Config) []verify.EndCheck {
	T := GenUniformNoiseT(2, 0)
	c2, _ := theory.ExcessInnerRiskFC(theory.LogLoss, T, []float64{0.6, 0.4}, []float64{0, 1})
	return []verify.EndCheck{endAt("q = e₂, η = (0.6, 0.4), T = I", verify.AtClosedEnd,
		fmt.Sprintf("C2 = %s (the log loss of a zero probability)", verify.FormatValue(c2)), holdsIf(!math.IsInf(c2, 1), verify.EndInfinite))}
}

// invCaliThetaEnds evaluates Theorem `thm:inv.cali` at the end of θ's
// domain [0, 1]: θ⁻¹ is defined on [0, θ(1)] only, and the excess ℓ_T risk
// can exceed θ(1) (Findings: θ's domain).
func invCaliThetaEnds(verify.Config) []verify.EndCheck {
	T := GenUniformNoiseT(2, 0)
	th1, _ := theory.CalibrationLowerBound(T, 1)
	r, _ := theory.ExcessInnerRiskFC(theory.LogLoss, T, []float64{1, 0}, []float64{0.1, 0.9})
	b, _ := theory.CalibrationBoundInverse(T, r)
	return []verify.EndCheck{
		endAt("ε = 0", verify.AtClosedEnd, "θ(0) = 0: zero excess ℓ_T risk bounds the excess 0-1 risk by 0", verify.EndHolds),
		endAt("ε = 1", verify.AtClosedEnd, fmt.Sprintf("θ_T(1) = %.4g (log loss, T = I, C = 2), while f = (0.1, 0.9) at η = (1, 0) has excess ℓ_T risk %.4g > θ(1): θ⁻¹ of it is undefined on [0, 1]", th1, r), verify.EndUndefined),
		endAt("ε > 1 (θ_T on [0, ∞], as Proposition theorem: cali_lowerb defines it)", verify.AtOutside,
			fmt.Sprintf("θ_T⁻¹(%.4g) = %.4g ≥ 1 ≥ the excess 0-1 risk: defined and true", r, b), holdsIf(b >= 1, verify.EndFalse)),
	}
}

// pinskerEnds evaluates Pinsker's inequality at the ends of p, q ∈ Δ^C.
func pinskerEnds(verify.Config) []verify.EndCheck {
	p := []float64{0.5, 0.5}
	kl0, _ := theory.KL(p, []float64{1, 0})
	// Outside Δ^C: q = 2p (not normalized): Σ p log(p/q) = −log 2 < 0.
	out := 0.0
	for _, v := range p {
		out += v * math.Log(v/(2*v))
	}
	return []verify.EndCheck{
		endAt("q = (1, 0), p = (½, ½)", verify.AtClosedEnd, fmt.Sprintf("KL(p‖q) = %s ≥ ½‖p−q‖₁² = 0.5", verify.FormatValue(kl0)), holdsIf(!math.IsInf(kl0, 1), verify.EndInfinite)),
		endAt("q = 2p (outside Δ^C), p = (½, ½)", verify.AtOutside, fmt.Sprintf("Σ p_i log(p_i/q_i) = %.4g < ½‖p−q‖₁² = 0.5", out), verify.EndFalse),
	}
}

// realPair draws p, q ∈ ℝ^C (entries in [−1, 2], no normalization).
type realPair struct{ P, Q []float64 }

func genRealPair(r *rand.Rand, _ int) realPair {
	C := 2 + r.Intn(5)
	p, q := make([]float64, C), make([]float64, C)
	for c := range p {
		p[c], q[c] = unif(r, -1, 2), unif(r, -1, 2)
	}
	return realPair{P: p, Q: q}
}

// genNonNegPair draws p ≥ 0 with Σp ∈ [0.3, 3] (not 1) and q ∈ Δ^C.
func genNonNegPair(r *rand.Rand, _ int) realPair {
	C := 2 + r.Intn(5)
	p := GenSymDirichlet(r, C, 1)
	s := unif(r, 0.3, 3)
	if math.Abs(s-1) < 0.05 {
		s = 2
	}
	for c := range p {
		p[c] *= s
	}
	return realPair{P: p, Q: GenSimplex(r, C, true)}
}

// zoRisk is the printed right side 1 − p_{min argmax q} and the sum
// Σ_c p_c 1{c ≠ min argmax q} of `equation-definition: Bayes risk - zo loss`
// for any p, q.
func zoRisk(p, q []float64) (printed, sum float64) {
	j := theory.ArgMax(q)
	for c, v := range p {
		if c != j {
			sum += v
		}
	}
	return 1 - p[j], sum
}

func init() {
	const (
		invCali  = "thm:inv.cali"
		inner    = "cali.inner.lemma"
		noise    = "thm:cali.noise"
		convexLB = "theorem: convex LB - calib func - FC log loss"
		lowerb   = "theorem: cali_lowerb"
		fisher   = "fc.fisher.consistency"
	)
	verify.RegisterHypotheses(inner,
		hypStrictlyProper(inner, 1142), hypContinuous(1142),
		hypInvertible(inner, 1142, "T is an invertible column-stochastic matrix (invertibility)"),
		hypColStoch(inner, 1142, "T is an invertible column-stochastic matrix (column sums 1)"),
		verify.Hypothesis{Name: "ε ∈ ℝ₊", Kind: verify.HypRange, Line: 1142, Text: "∀ε ∈ ℝ₊ ∃δ ∈ ℝ₊ (ℝ₊ the positive reals, line 133)",
			Range: &verify.Range{Param: "ε", Printed: "ε ∈ ℝ₊ = (0, ∞)", Lo: "0", Hi: "∞", LoOpen: true, HiOpen: true, Ends: caliInnerEpsEnds}, Expect: verify.Needed},
		verify.Hypothesis{Name: "q ∈ Δ^C", Kind: verify.HypRange, Line: 1142, Text: "∀x ∈ 𝒳, ∀q ∈ Δ^C",
			Range: &verify.Range{Param: "q", Printed: "q ∈ Δ^C (closed)", Lo: "the boundary of Δ^C", Hi: "—", Ends: qSimplexEnds},
			Why:   "the closed simplex is the loss's domain; outside it ℓ(Tq, c) is not defined"},
	)
	verify.RegisterHypotheses(noise,
		verify.Hypothesis{Name: "ℓ strictly proper", Kind: verify.HypLoss, Line: 1180, Text: textStrictlyProper + " (strictness dropped: the 0-1 loss)",
			Probe: probeDeltaVanishes(noise, "ℓ strictly proper", genProperNotStrict, func(p flipPoint) float64 { return zeroOneC2(p.T, p.Eta, p.Q) }), Expect: verify.NotNeeded},
		hypContinuous(1180),
		verify.Hypothesis{Name: "T invertible", Kind: verify.HypMatrix, Line: 1180, Text: "T is an invertible column-stochastic matrix (invertibility)",
			Probe: probeDeltaVanishes(noise, "T invertible", genSingularFlip, logExcessSingular), Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "T column-stochastic", Kind: verify.HypMatrix, Line: 1180, Text: "T is an invertible column-stochastic matrix (column sums 1)",
			Probe: probeDeltaVanishes(noise, "T column-stochastic", genDiagFlip, logExcessDiag), Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "R*_{ℓ_T,P_T} < ∞", Kind: verify.HypDistribution, Line: 1180, Text: "Assume R*_{ℓ_T,P_T} < ∞",
			Why: "on a finite 𝒳 the Bayes risks of the log and square losses are at most log C and 1; no loss with an infinite Bayes risk is implemented"},
	)
	verify.RegisterHypotheses(convexLB,
		verify.Hypothesis{Name: "T invertible", Kind: verify.HypMatrix, Line: 1201, Text: "T ∈ ℝ^{C×C} an invertible, column-stochastic matrix (invertibility)",
			Probe: probeConvexLBSingular(convexLB), Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "T column-stochastic", Kind: verify.HypMatrix, Line: 1201, Text: "T ∈ ℝ^{C×C} an invertible, column-stochastic matrix (column sums 1)",
			Probe: probeConvexLBColStoch(convexLB), Expect: verify.Needed},
		verify.Hypothesis{Name: "ℓ the log loss", Kind: verify.HypLoss, Line: 1220, Text: "let ℓ denote the log loss ℓ^log(q, c) = −log q_c",
			Probe: probeConvexLBSquare(convexLB), Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "q ∈ Δ^C", Kind: verify.HypRange, Line: 1212, Text: "for all x ∈ X and q ∈ Δ^C",
			Range: &verify.Range{Param: "q", Printed: "q ∈ Δ^C (closed)", Lo: "the boundary of Δ^C", Hi: "—", Ends: qSimplexEnds},
			Why:   "the closed simplex is the loss's domain; outside it ℓ(Tq, c) is not defined"},
	)
	verify.RegisterHypotheses("YW_lemma:KL",
		verify.Hypothesis{Name: "ℓ the log loss", Kind: verify.HypLoss, Line: 1220, Text: "let ℓ denote the log loss (in force for the lemma)",
			Probe: probeYWKL("square"), Expect: verify.Needed},
		verify.Hypothesis{Name: "T column-stochastic", Kind: verify.HypMatrix, Line: 1201, Text: "T invertible, column-stochastic (the proposition's, in force for the lemma)",
			Probe: probeYWKL("diag"), Expect: verify.Needed},
		verify.Hypothesis{Name: "T invertible", Kind: verify.HypMatrix, Line: 1201, Text: "T invertible, column-stochastic (the proposition's, in force for the lemma)",
			Probe: probeYWKL("singular"), Expect: verify.NotNeeded},
	)
	verify.RegisterHypotheses("theorem: Pinsker inequality",
		verify.Hypothesis{Name: "p, q ∈ Δ^C", Kind: verify.HypRange, Line: 1368, Text: "for all p, q ∈ Δ^C",
			Range: &verify.Range{Param: "p, q", Printed: "p, q ∈ Δ^C (closed)", Lo: "the boundary of Δ^C", Hi: "—", Ends: pinskerEnds}, Expect: verify.Needed},
	)
	verify.RegisterHypotheses("lemma: L1 norm upper bounds ZO divergence",
		verify.Hypothesis{Name: "p, q ∈ Δ^C", Kind: verify.HypRange, Line: 1377, Text: "Let p, q ∈ Δ^C be arbitrary",
			Range: &verify.Range{Param: "p, q", Printed: "p, q ∈ Δ^C", Lo: "the boundary of Δ^C", Hi: "—", Ends: func(verify.Config) []verify.EndCheck {
				e, _ := theory.ExcessZeroOneInnerRisk([]float64{1, 0}, []float64{0, 1})
				return []verify.EndCheck{endAt("p = e₁, q = e₂", verify.AtClosedEnd, fmt.Sprintf("L(q,p) − L(p,p) = %g ≤ ‖p−q‖₁ = 2", e), holdsIf(e <= 2, verify.EndFalse))}
			}},
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probeStream("lemma: L1 norm upper bounds ZO divergence", "p, q ∈ Δ^C"),
					"p, q ∈ ℝ^C arbitrary (entries in [−1, 2], not normalized), L̲(q,p) = 1 − p_{min argmax q}", probeLimit, genRealPair,
					func(v realPair) verify.Case {
						lhs := v.P[theory.ArgMax(v.P)] - v.P[theory.ArgMax(v.Q)]
						d := 0.0
						for c := range v.P {
							d += math.Abs(v.P[c] - v.Q[c])
						}
						return mkCase(lhs, d, leq(lhs, d), fmt.Sprintf("p=%v q=%v: %.6g > ‖p−q‖₁=%.6g", v.P, v.Q, lhs, d))
					})
			}, Expect: verify.NotNeeded},
	)
	verify.RegisterHypotheses("lemma: operator norm inverse infimum",
		verify.Hypothesis{Name: "M non-singular", Kind: verify.HypMatrix, Line: 1420, Text: "Suppose that M is non-singular",
			Probe: probeOpNormSingular, Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "‖·‖ a norm", Kind: verify.HypClass, Line: 1419, Text: "let ‖·‖ be a norm on ℝ^C",
			Why: "the lemma is for every norm; the checker tries the 1-, 2- and ∞-norms, and a function that is not a norm does not induce the matrix norm ‖M⁻¹‖ the statement uses"},
	)
	verify.RegisterHypotheses("equation-definition: Bayes risk - zo loss",
		verify.Hypothesis{Name: "p ∈ Δ^C", Kind: verify.HypRange, Line: 1226, Text: "For p, q ∈ Δ^C, define (p's normalization)",
			Range: &verify.Range{Param: "p", Printed: "p ∈ Δ^C", Lo: "Σp = 1", Hi: "—", Ends: func(verify.Config) []verify.EndCheck {
				a, b := zoRisk([]float64{1, 1}, []float64{0.4, 0.6})
				return []verify.EndCheck{endAt("p = (1, 1) (Σp = 2, outside Δ^C), q = (0.4, 0.6)", verify.AtOutside, fmt.Sprintf("1 − p_{argmax q} = %g, Σ_c p_c 1{c ≠ argmax q} = %g", a, b), holdsIf(near(a, b), verify.EndFalse))}
			}}, Expect: verify.Needed},
		verify.Hypothesis{Name: "q ∈ Δ^C", Kind: verify.HypRange, Line: 1226, Text: "For p, q ∈ Δ^C, define (q's)",
			Range: &verify.Range{Param: "q", Printed: "q ∈ Δ^C", Lo: "the boundary of Δ^C", Hi: "—", Ends: func(verify.Config) []verify.EndCheck {
				a, b := zoRisk([]float64{0.3, 0.7}, []float64{-2, 5})
				return []verify.EndCheck{endAt("q = (−2, 5) (outside Δ^C), p = (0.3, 0.7)", verify.AtOutside, fmt.Sprintf("1 − p_{argmax q} = %g = Σ_c p_c 1{c ≠ argmax q} = %g", a, b), holdsIf(near(a, b), verify.EndFalse))}
			}}, Expect: verify.NotNeeded},
	)
	verify.RegisterHypotheses("equation-definition: Bayes minimum risk - zo loss",
		verify.Hypothesis{Name: "p ∈ Δ^C", Kind: verify.HypRange, Line: 1226, Text: "For p, q ∈ Δ^C (p's normalization)",
			Range: &verify.Range{Param: "p", Printed: "p ∈ Δ^C", Lo: "Σp = 1", Hi: "—", Ends: func(verify.Config) []verify.EndCheck {
				// inf_q Σ_c p_c 1{c ≠ argmax q} over the vertices = Σp − max p.
				p := []float64{0.9, 0.6}
				inf := math.Inf(1)
				for k := range p {
					_, s := zoRisk(p, []float64{float64(1 - k), float64(k)})
					inf = math.Min(inf, s)
				}
				return []verify.EndCheck{endAt("p = (0.9, 0.6) (Σp = 1.5, outside Δ^C)", verify.AtOutside, fmt.Sprintf("inf_q L̲(q,p) = %g, 1 − max p = %g", inf, 1-0.9), holdsIf(math.Abs(inf-0.1) < 1e-12, verify.EndFalse))}
			}}, Expect: verify.Needed},
	)
	verify.RegisterHypotheses("equation: calibration function - lower",
		verify.Hypothesis{Name: "p ∈ Δ^C", Kind: verify.HypRange, Line: 1261, Text: "p := P(·|x) ∈ Δ^C",
			Range: &verify.Range{Param: "p", Printed: "p ∈ Δ^C", Lo: "Σp = 1", Hi: "—"},
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probeStream("equation: calibration function - lower", "p ∈ Δ^C"),
					"p ≥ 0 with Σp ∈ [0.3, 3] (not 1), L̲(q,p) = Σ_c p_c 1{c ≠ min argmax q}", probeLimit, genNonNegPair,
					func(v realPair) verify.Case {
						_, a := zoRisk(v.P, v.Q)
						_, b := zoRisk(v.P, v.P)
						want := v.P[theory.ArgMax(v.P)] - v.P[theory.ArgMax(v.Q)]
						return mkCase(a-b, want, near(a-b, want), fmt.Sprintf("p=%v q=%v: L̲(q,p)−L̲(p,p)=%.17g, max p − p_j=%.17g", v.P, v.Q, a-b, want))
					})
			}, Expect: verify.NotNeeded},
	)
	verify.RegisterHypotheses("equation-definition: KL divergence",
		verify.Hypothesis{Name: "p, q ∈ Δ^C", Kind: verify.HypRange, Line: 1245, Text: "between p, q ∈ Δ^c (printed with a lower-case c)",
			Range: &verify.Range{Param: "p, q", Printed: "p, q ∈ Δ^c", Lo: "Σp = 1", Hi: "—"},
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probeStream("equation-definition: KL divergence", "p, q ∈ Δ^C"),
					"p > 0 with Σp ∈ [0.3, 3] (not 1), q in the open simplex: Σ p_i log(p_i/q_i) against ℓ̲(q,p) − ℓ̲(p,p) (the corrected form)", probeLimit,
					func(r *rand.Rand, size int) realPair {
						v := genNonNegPair(r, size)
						return realPair{P: floorSimplex(v.P, 1e-3), Q: floorSimplex(v.Q, 1e-3)}
					},
					func(v realPair) verify.Case {
						a, b := 0.0, 0.0
						for i := range v.P {
							a += v.P[i] * math.Log(v.P[i]/v.Q[i])
							b += -v.P[i]*math.Log(v.Q[i]) + v.P[i]*math.Log(v.P[i])
						}
						return mkCase(a, b, near(a, b), fmt.Sprintf("p=%v q=%v: %.17g vs %.17g", v.P, v.Q, a, b))
					})
			}, Expect: verify.NotNeeded},
	)
	verify.RegisterHypotheses(lowerb,
		verify.Hypothesis{Name: "T invertible", Kind: verify.HypMatrix, Line: 187, Text: "T ∈ ℝ^{C×C} an invertible, column-stochastic matrix (invertibility; with T singular the right side is √2·∞·√0)",
			Probe: probeSingular(lowerb), Expect: verify.Needed},
		verify.Hypothesis{Name: "T column-stochastic", Kind: verify.HypMatrix, Line: 187, Text: "T ∈ ℝ^{C×C} an invertible, column-stochastic matrix (column sums 1)",
			Probe: probeCaliLowerbColStoch(lowerb), Expect: verify.Needed},
		verify.Hypothesis{Name: "ℓ the log loss", Kind: verify.HypLoss, Line: 188, Text: "L is the 0/1 loss, ℓ is the log loss",
			Probe: probeRiskSquare(lowerb, "ℓ the log loss"), Expect: verify.NotNeeded},
	)
	verify.RegisterHypotheses(invCali,
		hypStrictlyProper(invCali, 174), hypContinuous(174),
		hypInvertible(invCali, 174, "T an invertible column-stochastic matrix (invertibility)"),
		hypColStoch(invCali, 174, "T an invertible column-stochastic matrix (column sums 1)"),
		verify.Hypothesis{Name: "R*_{ℓ_T,P_T} < ∞", Kind: verify.HypDistribution, Line: 174, Text: "Assume R*_{ℓ_T,P_T} < ∞",
			Why: "on a finite 𝒳 the Bayes risks of the log and square losses are at most log C and 1; no loss with an infinite Bayes risk is implemented"},
		verify.Hypothesis{Name: "θ: [0,1] → [0,∞]", Kind: verify.HypRange, Line: 174, Text: "∃θ: [0, 1] → [0, ∞] strictly increasing and continuous, θ(0) = 0, with R_L − R*_L ≤ θ⁻¹(R_{ℓ_T} − R*)",
			Range: &verify.Range{Param: "ε (θ's argument)", Printed: "θ: [0, 1] → [0, ∞]", Lo: "0", Hi: "1", Ends: invCaliThetaEnds}, Expect: verify.NotNeeded},
	)
	verify.RegisterHypotheses(fisher,
		verify.Hypothesis{Name: "T invertible", Kind: verify.HypMatrix, Line: 157, Text: "if T is invertible",
			Probe: probeFisher(fisher, "T invertible", "T singular (two equal columns), q = η with one class's mass moved to the other (Tq = Tη), log loss",
				genSingularFlip, func(p flipPoint, q []float64) float64 { return hypInner(theory.LogLoss, p.T, p.Eta, q) }), Expect: verify.Needed},
		verify.Hypothesis{Name: "ℓ strictly proper", Kind: verify.HypLoss, Line: 154, Text: "Let ℓ be a strictly proper loss (the definition of ℓ_T)",
			Probe: probeFisher(fisher, "ℓ strictly proper", "ℓ the 0-1 loss (proper, not strictly), T = (1−a)I + a·e_k1ᵀ, q across the boundary from η",
				genProperNotStrict, func(p flipPoint, q []float64) float64 { return hypInner(theory.ZeroOneLoss, p.T, p.Eta, q) }), Expect: verify.Needed},
		verify.Hypothesis{Name: "T column-stochastic", Kind: verify.HypMatrix, Line: 127, Text: "T a C × C column-stochastic matrix (a noise transition matrix)",
			Probe: probeFisher(fisher, "T column-stochastic", "T = diag(d) invertible, not column-stochastic, log loss, q = d⊙η/⟨d,η⟩",
				genDiagFlip, func(p flipPoint, q []float64) float64 { return hypInner(theory.LogLoss, p.T, p.Eta, q) }), Expect: verify.Needed},
	)
	verify.RegisterHypotheses("eq: uniform noise inverse norm",
		verify.Hypothesis{Name: "α ∈ [0,1]", Kind: verify.HypRange, Line: 196, Text: "Let α ∈ [0,1] and T = (1−α)I + αN",
			Range: &verify.Range{Param: "α", Printed: "α ∈ [0, 1]", Lo: "0", Hi: "1", Ends: uniformNoiseEnds}, Expect: verify.Needed},
	)
}

// probeDeltaVanishes runs a flip family against Theorem `thm:cali.noise`:
// at each point the surrogate excess C2 is 0 while C1 > 0, so δ vanishes on
// [0, C1] and δ** ≤ δ is 0 there; the theorem's inequality δ**(C1) ≤ C2 then
// reads 0 ≤ 0 — it holds, vacuously. A case fails only if C2 < 0 (which no
// definition of C* allows) or C2 > 0, which would mean the family is not what
// it claims.
func probeDeltaVanishes(label, hyp string, gen func(*rand.Rand, int) flipPoint, c2 func(flipPoint) float64) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Violate(cfg, probeStream(label, hyp),
			"the flip family of cali.inner.lemma's probe of the same hypothesis: C2 = 0 with C1 > 0, so δ = 0 on [0, C1] and δ** = 0 there; the inequality's steps main.first (Jensen, δ** convex) and main.second (δ** ≤ δ ≤ C2) use neither ℓ's strictness nor T, so it holds, vacuously",
			probeLimit, gen, func(p flipPoint) verify.Case {
				v := c2(p)
				return verify.Case{OK: math.Abs(v) <= 1e-12, Detail: fmt.Sprintf("%v: C2 = %.3g, want 0", p, v)}
			})
	}
}

// probeYWKL re-runs Lemma `YW_lemma:KL` (C2 = KL(Tη‖Tq)) with one hypothesis
// violated: the square loss, T = diag(d), or T singular with q random.
func probeYWKL(kind string) func(verify.Config) verify.ProbeResult {
	const label = "YW_lemma:KL"
	switch kind {
	case "square":
		return func(cfg verify.Config) verify.ProbeResult {
			return verify.Violate(cfg, probeStream(label, "ℓ the log loss"), "ℓ the square loss, inputs from the claim's generator", probeLimit, hypPoint,
				func(p pointCase) verify.Case {
					c2, err1 := theory.ExcessInnerRiskFC(theory.SquareLoss, p.T, p.Eta, p.Q)
					d, err2 := theory.KL(clampSimplex(mulVec(p.T, p.Eta)), clampSimplex(mulVec(p.T, p.Q)))
					if err := firstErr(err1, err2); err != nil {
						return verify.Case{OK: true, Detail: err.Error()}
					}
					return mkCase(c2, d, near(c2, d), fmt.Sprintf("%v: square-loss C2=%.12g, KL(Tη‖Tq)=%.12g", p, c2, d))
				})
		}
	case "diag":
		return func(cfg verify.Config) verify.ProbeResult {
			return verify.Violate(cfg, probeStream(label, "T column-stochastic"),
				"T = diag(d) invertible, not column-stochastic, q random; C* = C(d⊙η/⟨d,η⟩) (Gibbs), KL(Tη‖Tq) = Σ (Tη)_c log((Tη)_c/(Tq)_c)", probeLimit,
				func(r *rand.Rand, size int) flipPoint {
					p := genDiagFlip(r, size)
					p.Q = GenSimplex(r, len(p.Eta), false)
					return p
				},
				func(p flipPoint) verify.Case {
					star := make([]float64, len(p.Eta))
					for c := range star {
						star[c] = p.T.At(c, c) * p.Eta[c]
					}
					normalize(star)
					c2 := hypInner(theory.LogLoss, p.T, p.Eta, p.Q) - hypInner(theory.LogLoss, p.T, p.Eta, star)
					te, tq := mulVec(p.T, p.Eta), mulVec(p.T, p.Q)
					d := 0.0
					for c := range te {
						if te[c] > 0 {
							d += te[c] * math.Log(te[c]/tq[c])
						}
					}
					return mkCase(c2, d, near(c2, d), fmt.Sprintf("%v: C2=%.12g, KL(Tη‖Tq)=%.12g", p, c2, d))
				})
		}
	default:
		return func(cfg verify.Config) verify.ProbeResult {
			return verify.Violate(cfg, probeStream(label, "T invertible"),
				"T singular (two equal columns), q random in Δ^C; C* attained at q = η (Tη ∈ TΔ^C, the log loss proper)", probeLimit,
				func(r *rand.Rand, size int) flipPoint {
					p := genSingularFlip(r, size)
					p.Q = GenSimplex(r, len(p.Eta), false)
					return p
				},
				func(p flipPoint) verify.Case {
					c2 := logExcessSingular(p)
					d, err := theory.KL(clampSimplex(mulVec(p.T, p.Eta)), clampSimplex(mulVec(p.T, p.Q)))
					if err != nil {
						return verify.Case{OK: true, Detail: err.Error()}
					}
					return mkCase(c2, d, near(c2, d), fmt.Sprintf("%v: C2=%.12g, KL(Tη‖Tq)=%.12g", p, c2, d))
				})
		}
	}
}

// probeOpNormSingular: for singular M the infimum is 0 (attained on the
// kernel) and, reading ‖M⁻¹‖ = ∞, 1/‖M⁻¹‖ = 0: the identity holds with that
// reading (the right side is otherwise undefined).
func probeOpNormSingular(cfg verify.Config) verify.ProbeResult {
	return verify.Violate(cfg, probeStream("lemma: operator norm inverse infimum", "M non-singular"),
		"M singular (a random matrix with one column a combination of two others), 1-norm; the infimum of ‖Mx‖₁/‖x‖₁ at x in the kernel against 1/‖M⁻¹‖₁ read as 1/∞ = 0",
		probeLimit, func(r *rand.Rand, _ int) *mat.Dense {
			C := 2 + r.Intn(4)
			M := mat.NewDense(C, C, nil)
			for i := 0; i < C; i++ {
				for j := 0; j < C; j++ {
					M.Set(i, j, unif(r, -1, 1))
				}
			}
			a, b := unif(r, -1, 1), unif(r, -1, 1)
			for i := 0; i < C; i++ { // last column = a·col0 + b·col1 (col1 = col0 when C = 2)
				M.Set(i, C-1, a*M.At(i, 0)+b*M.At(i, min(1, C-2)))
			}
			return M
		}, func(M *mat.Dense) verify.Case {
			C, _ := M.Dims()
			var svd mat.SVD
			if !svd.Factorize(M, mat.SVDFull) {
				return verify.Case{OK: true}
			}
			var V mat.Dense
			svd.VTo(&V)
			x := mat.Col(nil, C-1, &V) // right singular vector of the smallest singular value
			mx := mulVec(M, x)
			num, den := 0.0, 0.0
			for i := range x {
				num += math.Abs(mx[i])
				den += math.Abs(x[i])
			}
			inf := num / den
			return verify.Case{OK: inf <= 1e-9, Detail: fmt.Sprintf("M=%v: inf ‖Mx‖₁/‖x‖₁ ≤ %.3g, want 0 = 1/∞", mat.Formatted(M, mat.FormatMATLAB()), inf)}
		})
}
