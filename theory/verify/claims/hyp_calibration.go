package claims

// Hypotheses of the claims of Sections 2–3 and Appendix B (calibration of
// the forward-correction loss). Line numbers are those of the paper's LaTeX
// (../shared/paper/llpfc-neurips2022.tex).

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
// boundary, near η, random or extreme) as a probePoint with the loss l.
func hypPoint(l probeLoss) func(r *rand.Rand, _ int) probePoint {
	return func(r *rand.Rand, _ int) probePoint {
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
		return probePoint{Kind: "T " + desc, Loss: l, T: T, Eta: eta, Q: q}
	}
}

// convexLBSquareCase is the probe's verdict on Proposition `theorem:
// convex LB - calib func - FC log loss` with the square loss in ℓ's place:
// θ_T(C1) against the square loss's excess inner FC risk (theory's).
func convexLBSquareCase(p probePoint) verify.Case {
	c1, err1 := theory.ExcessZeroOneInnerRisk(p.Eta, p.Q)
	c2, err2 := theory.ExcessInnerRiskFC(theory.SquareLoss, p.T, p.Eta, p.Q)
	lhs, err3 := theory.CalibrationLowerBound(p.T, c1)
	if err := firstErr(err1, err2, err3); err != nil {
		return verify.Case{Detail: err.Error()}
	}
	return mkCase(lhs, c2, leq(lhs, c2), fmt.Sprintf("%v: θ_T(C1=%.6g)=%.6g > square-loss C2=%.6g", p, c1, lhs, c2))
}

// convexLBSquareJudged re-evaluates that inequality from the definitions:
// C1 by min argmax, the square loss's C2 = ‖T(η − q)‖₂² (its inner risk is
// 1 − ‖Tη‖² + ‖Tη − Tq‖², least at q = η), ‖T⁻¹‖₁ from an explicit inverse.
func convexLBSquareJudged(p probePoint) (bool, string) {
	lhs, c2 := convexLBSquareSides(p)
	if math.IsNaN(lhs) {
		return true, "T not invertible"
	}
	return leq(lhs, c2), fmt.Sprintf("θ_T(C1 = %.6g) = %.6g against ‖T(η−q)‖² = %.6g", p.c1(), lhs, c2)
}

// convexLBSquareSides are θ_T(C1) and ‖T(η − q)‖₂² (NaN for a singular T).
func convexLBSquareSides(p probePoint) (lhs, c2 float64) {
	var inv mat.Dense
	if err := inv.Inverse(p.T); err != nil {
		return math.NaN(), math.NaN()
	}
	n := colSumMax(&inv)
	te, tq := mulVec(p.T, p.Eta), mulVec(p.T, p.Q)
	for i := range te {
		c2 += (te[i] - tq[i]) * (te[i] - tq[i])
	}
	c1 := p.c1()
	return c1 * c1 / (2 * n * n), c2
}

// riskSquareJudge judges the risk-level probes with the square loss in the
// log loss's place (the claim's own checker on riskCases): T's parts from
// T, and a counterexample re-evaluated from the joint measures.
func riskSquareJudge() verify.Judge[riskCase] {
	return verify.Judge[riskCase]{
		Parts: func(rc riskCase) (map[string]bool, string) {
			return map[string]bool{partLog: false, partInv: invertible(rc.T), partNonNeg: nonNegative(rc.T), partColSum: columnsSumToOne(rc.T), partRegular: keptByFamily}, ""
		},
		Conclusion: func(rc riskCase) (bool, string) {
			var inv mat.Dense
			if err := inv.Inverse(rc.T); err != nil {
				return true, err.Error()
			}
			e01, r := 0.0, 0.0
			for x, px := range rc.P.PX {
				pt := probePoint{Loss: plSquare, T: rc.T, Eta: rc.P.Eta[x], Q: rc.F[x]}
				e01 += px * pt.c1()
				r += px * math.Max(pt.c2Upper(), 0)
			}
			b := math.Sqrt2 * colSumMax(&inv) * math.Sqrt(r+tolAbs)
			return leq(e01, b), fmt.Sprintf("excess 0-1 risk %.6g against √2‖T⁻¹‖₁√(excess square risk %.6g) = %.6g", e01, r, b)
		},
	}
}

// probeRiskSquare re-runs a risk-level bound (θ⁻¹ of the log loss) with the
// square loss as ℓ: the claim's own checker.
func probeRiskSquare(label string) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		c := verify.Config{Cases: verify.ProbeCases(cfg, probeLimit), Seed: cfg.Seed}
		o := checkRiskBound(c, probeStream(label, partLog), theory.SquareLoss, theory.ForwardCorrected, refBoundInv)
		return verify.JudgeOutcome(o, probing(label, partLog,
			"the claim's own checker with the square loss (continuous, strictly proper) in place of the log loss, θ_T⁻¹ = √2‖T⁻¹‖₁√r unchanged"), riskSquareJudge())
	}
}

// fisherProbeCase is the probe's verdict on `fc.fisher.consistency` at a point:
// η must be the unique minimizer of the inner risk; the families give q ≠ η
// with C(q) ≤ C(η).
func fisherProbeCase(p probePoint) verify.Case {
	atQ, atEta := p.inner(p.Q), p.inner(p.Eta)
	d, _ := theory.L1Distance(p.Eta, p.Q)
	bad := atQ <= atEta+flipZeroTol*(1+math.Abs(atEta)) && d > 1e-6
	return verify.Case{LHS: atEta, RHS: atQ, OK: !bad,
		Detail: fmt.Sprintf("%v: C(q)=%.12g ≤ C(η)=%.12g with ‖q−η‖₁=%.3g: η is not the unique minimizer", p, atQ, atEta, d)}
}

// fisherJudged re-evaluates it: the inner risks as sums over the classes,
// q's distance from η entry by entry.
func fisherJudged(p probePoint) (bool, string) {
	te, tq := mulVec(p.T, p.Eta), mulVec(p.T, p.Q)
	at := func(u []float64) float64 {
		s := 0.0
		for c := range te {
			if te[c] != 0 {
				s += te[c] * p.Loss.loss(u, c)
			}
		}
		return s
	}
	d := 0.0
	for i := range p.Eta {
		d = math.Max(d, math.Abs(p.Eta[i]-p.Q[i]))
	}
	cq, ce := at(tq), at(te)
	fails := d > 1e-7 && cq <= ce+flipZeroTol*(1+math.Abs(ce))
	return !fails, fmt.Sprintf("C(q) = %.12g, C(η) = %.12g, max_c |q_c − η_c| = %.3g", cq, ce, d)
}

func probeFisher(hyp, tried string, gen func(*rand.Rand, int) probePoint) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Violate(cfg, probing("fc.fisher.consistency", hyp, tried), probeLimit, gen, fisherProbeCase, calJudge(fisherJudged))
	}
}

// caliNoiseCase is the probe's verdict on Theorem `thm:cali.noise` at a
// flip point: there C2 = 0 while C1 > 0, so δ vanishes on [0, C1] and
// δ** ≤ δ is 0 there; δ**(C1) ≤ C2 reads 0 ≤ 0 — it holds, vacuously. A case
// fails only if C2 < 0, which no infimum allows.
func caliNoiseCase(p probePoint) verify.Case {
	v := surrogateAt(p, flipStar(p))
	return verify.Case{OK: v >= -flipZeroTol, Detail: fmt.Sprintf("%v: C2 = %.3g < 0", p, v)}
}

// caliNoiseJudged: C2 bounded above from the loss's entropy is never below
// −flipZeroTol at a point of Δ^C (the entropy is the infimum over Δ^C).
func caliNoiseJudged(p probePoint) (bool, string) {
	v := p.c2Upper()
	return v >= -flipZeroTol, fmt.Sprintf("inner risk at q − entropy at Tη = %.3g", v)
}

func probeCaliNoise(hyp, tried string, gen func(*rand.Rand, int) probePoint) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Violate(cfg, probing("thm:cali.noise", hyp,
			tried+"; δ = 0 on [0, C1] and δ** = 0 there, so δ**(C1) ≤ C2 reads 0 ≤ 0: main.first (Jensen, δ** convex) and main.second (δ** ≤ δ ≤ C2) use neither ℓ's properness nor T's invertibility — they make δ** positive, which thm:inv.cali needs"),
			probeLimit, gen, caliNoiseCase, calJudge(caliNoiseJudged, partRegular, partBayes))
	}
}

// ywCase is the probe's verdict on Lemma `YW_lemma:KL` at a point: the
// excess inner FC risk (the loss's, infimum read at η) against KL(Tη‖Tq)
// (theory.KL).
func ywCase(p probePoint) verify.Case {
	c2 := p.inner(p.Q) - p.inner(p.Eta)
	d, err := theory.KL(clampSimplex(mulVec(p.T, p.Eta)), clampSimplex(mulVec(p.T, p.Q)))
	if err != nil {
		return verify.Case{Detail: err.Error()}
	}
	return mkCase(c2, d, near(c2, d), fmt.Sprintf("%v: C2=%.12g, KL(Tη‖Tq)=%.12g", p, c2, d))
}

// ywJudged re-evaluates it: C2 as the inner risk at q minus the loss's
// entropy at Tη (exact: Tη ∈ TΔ^C attains it for a proper loss), KL as
// Σ π_c log(π_c/(Tq)_c).
func ywJudged(p probePoint) (bool, string) {
	te, tq := clampSimplex(mulVec(p.T, p.Eta)), mulVec(p.T, p.Q)
	c2 := p.c2Upper()
	kl := 0.0
	for c, v := range te {
		if v > 0 {
			kl += v * math.Log(v/tq[c])
		}
	}
	return near(c2, kl), fmt.Sprintf("C2 = %.12g, KL(Tη‖Tq) = %.12g", c2, kl)
}

func probeYW(hyp, tried string, gen func(*rand.Rand, int) probePoint) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Violate(cfg, probing("YW_lemma:KL", hyp, tried), probeLimit, gen, ywCase, calJudge(ywJudged, partRegular))
	}
}

// withRandomQ replaces a family's q by a random point of the open simplex.
func withRandomQ(gen func(*rand.Rand, int) probePoint) func(*rand.Rand, int) probePoint {
	return func(r *rand.Rand, size int) probePoint {
		p := gen(r, size)
		p.Q = GenSimplex(r, len(p.Eta), false)
		return p
	}
}

// thetaDomainJudge judges the probes of Proposition `theorem: convex LB`
// and `theorem: cali_lowerb` with T singular: θ_T is built from ‖T⁻¹‖₁,
// which a singular T does not have.
func thetaDomainJudge(kept ...string) verify.Judge[probePoint] {
	return verify.Judge[probePoint]{Parts: func(p probePoint) (map[string]bool, string) {
		m, out := calParts(p, kept...)
		if out == "" && !invertible(p.T) {
			out = outsideTInv
		}
		return m, out
	}}
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
			return endAt(name, where, fmt.Sprintf("T singular (%v); the formula gives %s", err, verify.FormatValue(formula)), verify.EndUndefined, alpha)
		}
		ok := math.Abs(n-formula) <= 1e-9*n
		e := endAt(name, where, fmt.Sprintf("‖T⁻¹‖₁ = %.10g, formula %.10g", n, formula), holdsIf(ok, verify.EndFalse), alpha)
		e.Judge = func() (bool, string) { // T⁻¹ by Gauss–Jordan, its largest column sum
			inv, err := invGaussJordan(T)
			if err != nil {
				return true, err.Error()
			}
			m := colSumMax(inv)
			return math.Abs(m-formula) <= 1e-9*m, fmt.Sprintf("‖T⁻¹‖₁ = %.10g by Gauss–Jordan, the formula %.10g", m, formula)
		}
		return e
	}
	return []verify.EndCheck{at(-0.1, verify.AtOutside), at(0, verify.AtClosedEnd), at(1e-9, verify.AtJustInside),
		at(1-1e-6, verify.AtJustInside), at(1, verify.AtClosedEnd), at(1.5, verify.AtOutside)}
}

// invGaussJordan inverts a square matrix by Gauss–Jordan elimination with
// partial pivoting (apart from gonum's LU, for the judges).
func invGaussJordan(T mat.Matrix) (*mat.Dense, error) {
	n, _ := T.Dims()
	a := mat.NewDense(n, 2*n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a.Set(i, j, T.At(i, j))
		}
		a.Set(i, n+i, 1)
	}
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a.At(r, c)) > math.Abs(a.At(p, c)) {
				p = r
			}
		}
		if a.At(p, c) == 0 {
			return nil, fmt.Errorf("singular")
		}
		for j := 0; j < 2*n; j++ {
			x, y := a.At(c, j), a.At(p, j)
			a.Set(c, j, y)
			a.Set(p, j, x)
		}
		d := a.At(c, c)
		for j := 0; j < 2*n; j++ {
			a.Set(c, j, a.At(c, j)/d)
		}
		for r := 0; r < n; r++ {
			if r == c {
				continue
			}
			f := a.At(r, c)
			for j := 0; j < 2*n; j++ {
				a.Set(r, j, a.At(r, j)-f*a.At(c, j))
			}
		}
	}
	return mat.DenseCopyOf(a.Slice(0, n, n, 2*n)), nil
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
	zero := endAt("ε = 0", verify.AtOpenEnd, fmt.Sprintf("at q = η: C2 = %g < every δ > 0 but C1 = %g ≮ 0", c2, c1), verify.EndFalse, 0)
	zero.Judge = func() (bool, string) { // at q = η by the definitions: C1 = 0 is not < 0, and C2 ≤ 0 < δ
		p := probePoint{Loss: plLog, T: T, Eta: eta, Q: eta}
		return !(p.c2Upper() <= 1e-15 && p.c1() >= 0), fmt.Sprintf("C2 ≤ %.3g < δ, C1 = %g ≮ ε = 0", p.c2Upper(), p.c1())
	}
	return []verify.EndCheck{
		zero,
		endAt("ε = 1e-12", verify.AtJustInside, fmt.Sprintf("δ = θ_T(ε) = %.3g > 0 (log loss, T = 0.7I + 0.3N, C = 2)", d), holdsIf(d > 0, verify.EndFalse), 1e-12),
		endAt("ε = 1e6 (towards ∞)", verify.AtJustInside, "C1 ≤ 1 < ε for every x and q: every δ works", verify.EndVacuous, 1e6),
	}
}

// qSimplexEnds evaluates a pointwise log-loss statement at a vertex q of
// Δ^C (a closed end of q ∈ Δ^C: with T = I the FC log loss is +∞ there) and
// at a point outside, where ℓ(Tq, c) is not defined.
func qSimplexEnds(verify.Config) []verify.EndCheck {
	T := GenUniformNoiseT(2, 0)
	c2, _ := theory.ExcessInnerRiskFC(theory.LogLoss, T, []float64{0.6, 0.4}, []float64{0, 1})
	return []verify.EndCheck{
		endAt("q = e₂, η = (0.6, 0.4), T = I", verify.AtClosedEnd,
			fmt.Sprintf("C2 = %s (the log loss of a zero probability)", verify.FormatValue(c2)), holdsIf(!math.IsInf(c2, 1), verify.EndInfinite), 0, 1),
		endAt("q = (1.2, −0.2), T = I", verify.AtOutside, "ℓ(Tq, 2) = −log(−0.2): q is outside the loss's domain Δ^C × 𝒴 (line 135)", verify.EndUndefined, 1.2, -0.2),
	}
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
		endAt("ε = 0", verify.AtClosedEnd, "θ(0) = 0: zero excess ℓ_T risk bounds the excess 0-1 risk by 0", verify.EndHolds, 0),
		endAt("ε = 1", verify.AtClosedEnd, fmt.Sprintf("θ_T(1) = %.4g (log loss, T = I, C = 2), while f = (0.1, 0.9) at η = (1, 0) has excess ℓ_T risk %.4g > θ(1): θ⁻¹ of it is undefined on [0, 1]", th1, r), verify.EndUndefined, 1),
		endAt(fmt.Sprintf("ε = %.4g > 1 (θ_T on [0, ∞], as Proposition theorem: cali_lowerb defines it)", b), verify.AtOutside,
			fmt.Sprintf("θ_T⁻¹(%.4g) = %.4g ≥ 1 ≥ the excess 0-1 risk: defined and true", r, b), holdsIf(b >= 1, verify.EndFalse), b),
	}
}

// pinskerEnds evaluates Pinsker's inequality at the ends of p, q ∈ Δ^C.
func pinskerEnds(verify.Config) []verify.EndCheck {
	p := []float64{0.5, 0.5}
	kl0, _ := theory.KL(p, []float64{1, 0})
	// Outside Δ^C: q = 2p (not normalized): KL(p‖q) is defined between
	// points of Δ^C only; its formula Σ p log(p/q) would give −log 2 < ½.
	out := 0.0
	for _, v := range p {
		out += v * math.Log(v/(2*v))
	}
	return []verify.EndCheck{
		endAt("q = (1, 0), p = (½, ½)", verify.AtClosedEnd, fmt.Sprintf("KL(p‖q) = %s ≥ ½‖p−q‖₁² = 0.5", verify.FormatValue(kl0)), holdsIf(!math.IsInf(kl0, 1), verify.EndInfinite), 0.5, 0.5, 1, 0),
		endAt("q = 2p (outside Δ^C), p = (½, ½)", verify.AtOutside,
			fmt.Sprintf("KL(p‖q) is defined for p, q ∈ Δ^C (line 1245); its formula Σ p_i log(p_i/q_i) = %.4g would be < ½‖p−q‖₁² = 0.5", out), verify.EndUndefined, 0.5, 0.5, 1, 1),
	}
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

// defEnds are the end checks of a definition of App. B.2 in p ∈ Δ^C: a
// vertex (a closed end, where it holds) and a point outside Δ^C, where
// E_{y∼p} is undefined and the printed closed forms disagree (value).
func defEnds(holdsAt string, inside []float64, outsideAt, value string, outside []float64) func(verify.Config) []verify.EndCheck {
	return func(verify.Config) []verify.EndCheck {
		return []verify.EndCheck{
			endAt(holdsAt, verify.AtClosedEnd, "holds (a vertex of Δ^C)", verify.EndHolds, inside...),
			endAt(outsideAt, verify.AtOutside, value, verify.EndUndefined, outside...),
		}
	}
}

// opNormPoint is a square matrix M of `lemma: operator norm inverse infimum`.
type opNormPoint struct{ M *mat.Dense }

// genSingularM draws M singular: a random matrix with its last column a
// combination of two others (of the first when C = 2).
func genSingularM(r *rand.Rand, _ int) opNormPoint {
	C := 2 + r.Intn(4)
	M := mat.NewDense(C, C, nil)
	for i := 0; i < C; i++ {
		for j := 0; j < C; j++ {
			M.Set(i, j, unif(r, -1, 1))
		}
	}
	a, b := unif(r, -1, 1), unif(r, -1, 1)
	for i := 0; i < C; i++ {
		M.Set(i, C-1, a*M.At(i, 0)+b*M.At(i, min(1, C-2)))
	}
	return opNormPoint{M: M}
}

func init() {
	const (
		invCali  = "thm:inv.cali"
		inner    = "cali.inner.lemma"
		noise    = "thm:cali.noise"
		convexLB = "theorem: convex LB - calib func - FC log loss"
		lowerb   = "theorem: cali_lowerb"
		fisher   = "fc.fisher.consistency"
		yw       = "YW_lemma:KL"
	)
	epsRange := verify.Hypothesis{Name: "ε ∈ ℝ₊", Kind: verify.HypRange, Line: 1142, From: verify.FromStatement, Text: "∀ε ∈ ℝ₊ ∃δ ∈ ℝ₊ (ℝ₊ the positive reals, line 133)",
		Range: &verify.Range{Param: "ε", Printed: "ε ∈ ℝ₊ = (0, ∞)", Lo: "0", Hi: "∞", LoOpen: true, HiOpen: true, Ends: caliInnerEpsEnds}, Expect: verify.Needed}
	qRange := func(line int, text string) verify.Hypothesis {
		return verify.Hypothesis{Name: "q ∈ Δ^C", Kind: verify.HypRange, Line: line, From: verify.FromStatement, Text: text,
			Range: &verify.Range{Param: "q", Printed: "q ∈ Δ^C (closed)", Member: simplexMember(1), Ends: qSimplexEnds}, Expect: verify.NeededToDefine}
	}
	keptInner := []string{"ε ∈ ℝ₊", partRegular}
	verify.RegisterHypotheses(inner, append(append(
		calLossParts(inner, 1142, verify.FromStatement, keptInner...),
		calTParts(inner, 1142, verify.FromStatement, keptInner...)...),
		epsRange, qRange(1142, "∀x ∈ 𝒳, ∀q ∈ Δ^C"), calRegular(1142))...)

	verify.RegisterHypotheses(noise,
		verify.Hypothesis{Name: partProper, Kind: verify.HypLoss, Line: 1180, From: verify.FromStatement, Of: ofLoss, Text: "ℓ proper (line 144)",
			Probe: probeCaliNoise(partProper, triedNotProp, genNotProper), Expect: verify.NotNeeded},
		verify.Hypothesis{Name: partUnique, Kind: verify.HypLoss, Line: 1180, From: verify.FromStatement, Of: ofLoss, Text: "ℓ strictly proper: its minimizer unique (line 144)",
			Probe: probeCaliNoise(partUnique, triedNotUniq, genNotUnique), Expect: verify.NotNeeded},
		verify.Hypothesis{Name: partCont, Kind: verify.HypLoss, Line: 1180, From: verify.FromStatement, Of: ofLoss, Text: "ℓ continuous", Why: whyContinuity},
		verify.Hypothesis{Name: partInv, Kind: verify.HypMatrix, Line: 1180, From: verify.FromStatement, Of: ofT, Text: "T invertible",
			Probe: probeCaliNoise(partInv, triedSingular, genSingularFlip), Expect: verify.NotNeeded},
		calNonNegPart(noise, 1180, verify.FromStatement, partRegular, partBayes),
		calColSumPart(noise, 1180, verify.FromStatement, partRegular, partBayes),
		calBayes(1180), calRegular(1180),
	)

	verify.RegisterHypotheses(convexLB,
		verify.Hypothesis{Name: partInv, Kind: verify.HypMatrix, Line: 1201, From: verify.FromStatement, Of: "T ∈ ℝ^{C×C} an invertible, column-stochastic matrix",
			Text: "T invertible: θ_T is built from ‖T⁻¹‖₁ (and the proof applies Lemma operator norm inverse infimum, for non-singular M)",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Undefine(cfg, probing(convexLB, partInv, triedSingular), probeLimit, genSingularFlip,
					func(p probePoint) string { return p.String() }, thetaDomainJudge(partLog, "q ∈ Δ^C", partRegular))
			}, Expect: verify.NeededToDefine},
		calNonNegPart(convexLB, 1201, verify.FromStatement, partLog, "q ∈ Δ^C", partRegular),
		calColSumPart(convexLB, 1201, verify.FromStatement, partLog, "q ∈ Δ^C", partRegular),
		verify.Hypothesis{Name: partLog, Kind: verify.HypLoss, Line: 1220, From: "definition: ℓ, the log loss, for App. B.2 (line 1220)", Text: "let ℓ denote the log loss ℓ^log(q, c) = −log q_c",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probing(convexLB, partLog,
					"ℓ the square loss (continuous, strictly proper) in place of the log loss, θ_T unchanged, inputs from the claim's generator"),
					probeLimit, hypPoint(plSquare), convexLBSquareCase, calJudge(convexLBSquareJudged, "q ∈ Δ^C", partRegular))
			}, Expect: verify.NotNeeded},
		qRange(1212, "for all x ∈ X and q ∈ Δ^C"), calRegular(1212),
	)

	verify.RegisterHypotheses(yw,
		verify.Hypothesis{Name: partLog, Kind: verify.HypLoss, Line: 1220, From: "definition: ℓ, the log loss, for App. B.2 (line 1220)", Text: "let ℓ denote the log loss (in force for the lemma)",
			Probe: probeYW(partLog, "ℓ the square loss, inputs from the claim's generator", hypPoint(plSquare)), Expect: verify.Needed},
		verify.Hypothesis{Name: partInv, Kind: verify.HypMatrix, Line: 1201, From: "definition: T, Proposition theorem: convex LB (line 1201)", Of: "T ∈ ℝ^{C×C} an invertible, column-stochastic matrix",
			Text:  "T invertible (the proposition's, in force for the lemma)",
			Probe: probeYW(partInv, "T singular (two equal columns), q random in Δ^C; C* attained at q = η (Tη ∈ TΔ^C, the log loss proper)", withRandomQ(genSingularFlip)), Expect: verify.NotNeeded},
		calNonNegPart(yw, 1201, "definition: T, Proposition theorem: convex LB (line 1201)", "p ∈ Δ^C", partRegular),
		calColSumPart(yw, 1201, "definition: T, Proposition theorem: convex LB (line 1201)", "p ∈ Δ^C", partRegular),
		verify.Hypothesis{Name: "p ∈ Δ^C", Kind: verify.HypRange, Line: 1261, From: verify.FromStatement, Text: "Let p := P(·|x) ∈ Δ^C",
			Range: &verify.Range{Param: "p", Printed: "p ∈ Δ^C", Member: simplexMember(1),
				Ends: defEnds("p = e₁", []float64{1, 0}, "p = (0.9, 0.6) (Σp = 1.5)", "P(·|x) is a distribution: Tp ∉ Δ^C and C_{ℓ_T,P_T,x} is undefined", []float64{0.9, 0.6})},
			Expect: verify.NeededToDefine},
		calRegular(1261),
	)

	verify.RegisterHypotheses("theorem: Pinsker inequality",
		verify.Hypothesis{Name: "p, q ∈ Δ^C", Kind: verify.HypRange, Line: 1368, From: verify.FromStatement, Text: "for all p, q ∈ Δ^C",
			Range: &verify.Range{Param: "p, q", Printed: "p, q ∈ Δ^C (closed)", Member: simplexMember(2), Ends: pinskerEnds}, Expect: verify.NeededToDefine},
	)
	l1 := "lemma: L1 norm upper bounds ZO divergence"
	verify.RegisterHypotheses(l1,
		verify.Hypothesis{Name: "p, q ∈ Δ^C", Kind: verify.HypRange, Line: 1377, From: verify.FromStatement, Text: "Let p, q ∈ Δ^C be arbitrary",
			Range: &verify.Range{Param: "p, q", Printed: "p, q ∈ Δ^C", Member: simplexMember(2), Ends: func(verify.Config) []verify.EndCheck {
				e, _ := theory.ExcessZeroOneInnerRisk([]float64{1, 0}, []float64{0, 1})
				p, q := []float64{-1, 2}, []float64{0.5, -0.3}
				lhs := p[theory.ArgMax(p)] - p[theory.ArgMax(q)]
				return []verify.EndCheck{
					endAt("p = e₁, q = e₂", verify.AtClosedEnd, fmt.Sprintf("L̲(q,p) − L̲(p,p) = %g ≤ ‖p−q‖₁ = 2", e), holdsIf(e <= 2, verify.EndFalse), 1, 0, 0, 1),
					endAt("p = (−1, 2), q = (0.5, −0.3)", verify.AtOutside,
						fmt.Sprintf("L̲(q,p) = E_{y∼p} L(q, y) needs p a distribution and q ∈ Δ^C (the 0-1 loss's domain, line 1223); the closed form p_i − p_j = %g would still be ≤ ‖p−q‖₁ = 3.8", lhs),
						verify.EndUndefined, -1, 2, 0.5, -0.3),
				}
			}}, Expect: verify.NeededToDefine},
	)
	verify.RegisterHypotheses("lemma: operator norm inverse infimum",
		verify.Hypothesis{Name: "M non-singular", Kind: verify.HypMatrix, Line: 1420, From: verify.FromStatement, Text: "Suppose that M is non-singular",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Undefine(cfg, probing("lemma: operator norm inverse infimum", "M non-singular",
					"M singular (a random matrix with one column a combination of two others)"), probeLimit, genSingularM,
					func(p opNormPoint) string { return fmt.Sprintf("M=%v", mat.Formatted(p.M, mat.FormatMATLAB())) },
					verify.Judge[opNormPoint]{Parts: func(p opNormPoint) (map[string]bool, string) {
						out := ""
						if !invertible(p.M) {
							out = "M⁻¹ (the right side 1/‖M⁻¹‖ needs M invertible; the left side's infimum is 0, on M's kernel)"
						}
						return map[string]bool{"M non-singular": invertible(p.M), "‖·‖ a norm": keptByFamily}, out
					}})
			}, Expect: verify.NeededToDefine},
		verify.Hypothesis{Name: "‖·‖ a norm", Kind: verify.HypClass, Line: 1419, From: verify.FromStatement, Text: "let ‖·‖ be a norm on ℝ^C",
			Why: "the proof is the change of variables x = M⁻¹y, which uses of the norm only ‖x‖ > 0 for x ≠ 0 (so that the ratios are defined): any positive function satisfies the identity, and a function that vanishes at some x ≠ 0 leaves the ratio undefined; the checker tries the 1-, 2- and ∞-norms"},
	)
	pRange := func(label string, line int, text, value string, outside []float64) verify.Hypothesis {
		return verify.Hypothesis{Name: "p ∈ Δ^C", Kind: verify.HypRange, Line: line, From: verify.FromStatement, Text: text,
			Range: &verify.Range{Param: "p", Printed: "p ∈ Δ^C", Member: simplexMember(1),
				Ends: defEnds("p = e₁", []float64{1, 0}, fmt.Sprintf("p = %v (Σp = %g, outside Δ^C)", outside, sum(outside)), value, outside)},
			Expect: verify.NeededToDefine}
	}
	{
		a, b := zoRisk([]float64{1, 1}, []float64{0.4, 0.6})
		verify.RegisterHypotheses("equation-definition: Bayes risk - zo loss",
			pRange("equation-definition: Bayes risk - zo loss", 1226, "For p, q ∈ Δ^C, define L̲(q,p) := E_{y∼p} L(q, y) (p's)",
				fmt.Sprintf("E_{y∼p} needs p a distribution; the two printed forms disagree there: 1 − p_{argmax q} = %g, Σ_c p_c 1{c ≠ argmax q} = %g (q = (0.4, 0.6))", a, b), []float64{1, 1}),
			verify.Hypothesis{Name: "q ∈ Δ^C", Kind: verify.HypRange, Line: 1226, From: verify.FromStatement, Text: "For p, q ∈ Δ^C, define (q's; L: Δ^C × Y → {0, 1}, line 1223)",
				Range: &verify.Range{Param: "q", Printed: "q ∈ Δ^C", Member: simplexMember(1), Ends: func(verify.Config) []verify.EndCheck {
					a, b := zoRisk([]float64{0.3, 0.7}, []float64{-2, 5})
					return []verify.EndCheck{
						endAt("q = e₂", verify.AtClosedEnd, "holds (a vertex of Δ^C)", verify.EndHolds, 0, 1),
						endAt("q = (−2, 5)", verify.AtOutside, fmt.Sprintf("L(q, y) is defined on Δ^C × Y (line 1223); the formulas would agree there: 1 − p_{argmax q} = %g, Σ_c p_c 1{c ≠ argmax q} = %g (p = (0.3, 0.7))", a, b),
							verify.EndUndefined, -2, 5),
					}
				}}, Expect: verify.NeededToDefine},
		)
	}
	{
		p := []float64{0.9, 0.6}
		inf := math.Inf(1)
		for k := range p {
			_, s := zoRisk(p, []float64{float64(1 - k), float64(k)})
			inf = math.Min(inf, s)
		}
		verify.RegisterHypotheses("equation-definition: Bayes minimum risk - zo loss",
			pRange("equation-definition: Bayes minimum risk - zo loss", 1226, "For p, q ∈ Δ^C (p's): inf_q L̲(q,p) = L̲(p,p) = 1 − max_c p_c",
				fmt.Sprintf("E_{y∼p} needs p a distribution; read as Σ_c p_c 1{c ≠ argmax q}, inf_q L̲(q,p) = L̲(p,p) = %g while 1 − max p = %g; read as 1 − p_{argmax q}, all three are %g", inf, 1-0.9, 1-0.9), p),
		)
	}
	verify.RegisterHypotheses("equation: calibration function - lower",
		pRange("equation: calibration function - lower", 1261, "p := P(·|x) ∈ Δ^C",
			"P(·|x) is a distribution; the closed form max p − p_{argmax q} would still equal Σ_c p_c 1{c ≠ argmax q} − Σ_c p_c 1{c ≠ argmax p}", []float64{1.2, 0.6}),
	)
	verify.RegisterHypotheses("equation-definition: KL divergence",
		verify.Hypothesis{Name: "p, q ∈ Δ^C", Kind: verify.HypRange, Line: 1245, From: verify.FromStatement, Text: "between p, q ∈ Δ^c (printed with a lower-case c)",
			Range: &verify.Range{Param: "p, q", Printed: "p, q ∈ Δ^c", Member: simplexMember(2), Ends: func(verify.Config) []verify.EndCheck {
				return []verify.EndCheck{
					endAt("p = (½, ½), q = (1, 0)", verify.AtClosedEnd, "KL(p‖q) = +Inf = ℓ̲(q,p) − ℓ̲(p,p) = +Inf", verify.EndInfinite, 0.5, 0.5, 1, 0),
					endAt("p = (1, 1), q = (½, ½)", verify.AtOutside, "ℓ̲(q,p) = E_{y∼p} ℓ(q, y) needs p a distribution; the two formulas Σ p_i log(p_i/q_i) and Σ −p_i log q_i + Σ p_i log p_i would still agree",
						verify.EndUndefined, 1, 1, 0.5, 0.5),
				}
			}}, Expect: verify.NeededToDefine},
	)

	verify.RegisterHypotheses(lowerb,
		verify.Hypothesis{Name: partInv, Kind: verify.HypMatrix, Line: 187, From: verify.FromStatement, Of: "T ∈ ℝ^{C×C} an invertible, column-stochastic matrix",
			Text: "T invertible: θ_T and the right side √2‖T⁻¹‖₁√(…) are built from T⁻¹",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Undefine(cfg, probing(lowerb, partInv, triedSingular), probeLimit, genSingularFlip,
					func(p probePoint) string { return p.String() }, thetaDomainJudge(partLog, partRegular))
			}, Expect: verify.NeededToDefine},
		calNonNegPart(lowerb, 187, verify.FromStatement, partLog, partRegular),
		calColSumPart(lowerb, 187, verify.FromStatement, partLog, partRegular),
		verify.Hypothesis{Name: partLog, Kind: verify.HypLoss, Line: 188, From: verify.FromStatement, Text: "L is the 0/1 loss, ℓ is the log loss",
			Probe: probeRiskSquare(lowerb), Expect: verify.NotNeeded},
		calRegular(188),
	)

	verify.RegisterHypotheses(invCali, append(append(
		calLossParts(invCali, 174, verify.FromStatement, partBayes, "θ: [0,1] → [0,∞]", partRegular),
		calTParts(invCali, 174, verify.FromStatement, partBayes, "θ: [0,1] → [0,∞]", partRegular)...),
		calBayes(174),
		verify.Hypothesis{Name: "θ: [0,1] → [0,∞]", Kind: verify.HypRange, Line: 174, From: verify.FromStatement, Text: "∃θ: [0, 1] → [0, ∞] strictly increasing and continuous, θ(0) = 0, with R_L − R*_L ≤ θ⁻¹(R_{ℓ_T} − R*)",
			Range: &verify.Range{Param: "ε (θ's argument)", Printed: "θ: [0, 1] → [0, ∞]", Lo: "0", Hi: "1", Ends: invCaliThetaEnds}, Expect: verify.NotNeeded},
		calRegular(174))...)

	verify.RegisterHypotheses(fisher,
		verify.Hypothesis{Name: partInv, Kind: verify.HypMatrix, Line: 157, From: verify.FromStatement, Text: "if T is invertible",
			Probe: probeFisher(partInv, triedSingular, genSingularFlip), Expect: verify.Needed},
		verify.Hypothesis{Name: partProper, Kind: verify.HypLoss, Line: 154, From: "definition: the forward correction loss ℓ_T (line 154)", Of: "ℓ a strictly proper loss",
			Text: "ℓ proper (line 144)", Probe: probeFisher(partProper, triedNotProp, genNotProper), Expect: verify.Needed},
		verify.Hypothesis{Name: partUnique, Kind: verify.HypLoss, Line: 154, From: "definition: the forward correction loss ℓ_T (line 154)", Of: "ℓ a strictly proper loss",
			Text: "ℓ strictly proper: its minimizer unique (line 144)", Probe: probeFisher(partUnique, triedNotUniq, genNotUnique), Expect: verify.Needed},
		verify.Hypothesis{Name: partNonNeg, Kind: verify.HypMatrix, Line: 127, From: "definition: a noise transition matrix, C × C column-stochastic (line 127)", Of: "T a column-stochastic matrix",
			Text: "T's entries non-negative", Probe: calDomainProbe(fisher, partNonNeg, triedNegT, genNegativeT), Expect: verify.NeededToDefine},
		verify.Hypothesis{Name: partColSum, Kind: verify.HypMatrix, Line: 127, From: "definition: a noise transition matrix, C × C column-stochastic (line 127)", Of: "T a column-stochastic matrix",
			Text: "T's columns sum to 1", Probe: calDomainProbe(fisher, partColSum, triedScaledT, genScaledT), Expect: verify.NeededToDefine},
	)
	verify.RegisterHypotheses("eq: uniform noise inverse norm",
		verify.Hypothesis{Name: "α ∈ [0,1]", Kind: verify.HypRange, Line: 196, From: verify.FromStatement, Text: "Let α ∈ [0,1] and T = (1−α)I + αN",
			Range: &verify.Range{Param: "α", Printed: "α ∈ [0, 1]", Lo: "0", Hi: "1", Ends: uniformNoiseEnds}, Expect: verify.Needed},
	)
}
