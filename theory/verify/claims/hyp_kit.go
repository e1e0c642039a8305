package claims

// The hypotheses of the claims: shared helpers, the losses the probes try,
// and the families of points that violate one hypothesis part of a
// calibration statement while keeping the others. Every probe draws its
// inputs from its own stream ("probe/LABEL/HYPOTHESIS"), so that a
// counterexample replays from the stream seed the probe reports, and no
// claim's inputs move.
//
// The probes compute the statement's two sides directly (hypInner), not
// through the theory package's checked functions: those refuse a singular
// or a non-stochastic T, which is the point of a probe. Their judges
// (calJudge) compute again, apart from the probe's check: the hypothesis
// parts at the point from the point itself (the loss's declared properties,
// held by TestProbeLossProperties; T's singular values and entries), and a
// counterexample's excess surrogate risk against the loss's generalized
// entropy, the infimum of its inner risk over all of Δ^C (a lower bound on
// the infimum over TΔ^C): an excess computed that way is an upper bound on
// the true one, so a counterexample it confirms is one.

import (
	"fmt"
	"math"
	"math/rand"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

// probeStream is the name of the random stream of the probe of hypothesis
// hyp of the claim labelled label.
func probeStream(label, hyp string) string { return "probe/" + label + "/" + hyp }

// probing names the probe of hyp of label.
func probing(label, hyp, tried string) verify.Probing {
	return verify.Probing{Label: label, Hyp: hyp, Tried: tried}
}

// probeLimit caps the cases of a cheap (pointwise) probe; the probes of the
// sampled claims set their own, lower caps.
const probeLimit = 500

// endAt is one EndCheck at the point x.
func endAt(at, where, value string, v verify.EndVerdict, x ...float64) verify.EndCheck {
	return verify.EndCheck{At: at, Where: where, Value: value, Verdict: v, X: x}
}

// holdsIf is EndHolds when ok, else the verdict bad.
func holdsIf(ok bool, bad verify.EndVerdict) verify.EndVerdict {
	if ok {
		return verify.EndHolds
	}
	return bad
}

// The names of the hypothesis parts the calibration statements share.
const (
	partProper  = "ℓ proper"
	partUnique  = "ℓ's minimizer unique"
	partCont    = "ℓ continuous"
	partLog     = "ℓ the log loss"
	partInv     = "T invertible"
	partNonNeg  = "T ≥ 0"
	partColSum  = "T's columns sum to 1"
	partRegular = "P(·|x) regular"
	partBayes   = "R*_{ℓ_T,P_T} < ∞"
)

// Tolerances of the judges and of the flip families. A flip point's
// surrogate excess is 0 in exact arithmetic (Tq = Tη, or q the minimizer by
// construction); computed, it is a difference of two sums of at most 6
// terms of size at most ~30, so its rounding stays below 6·30·2⁻⁵² ≈ 4e-14:
// flipZeroTol = 1e-12 covers it with a factor ~25 and is far below the
// excess 0-1 risks of the families (≥ 1e-9, flipC1Min). invertibleTol is
// the smallest σ_min/σ_max of a T the judges call invertible: the singular
// family's T has exactly equal columns (σ_min ≈ 1e-17·σ_max), the
// invertible ones' condition numbers stay below 1e8.
const (
	flipZeroTol   = 1e-12
	flipC1Min     = 1e-9
	invertibleTol = 1e-10
)

// probeLoss is a loss the probes put in ℓ's place, with the properties the
// statements ask of ℓ (held by TestProbeLossProperties: properness and
// uniqueness by minimizing the inner risk numerically, continuity by
// looking for jumps).
type probeLoss struct {
	name string
	loss func(q []float64, c int) float64
	// entropy is the loss's generalized entropy inf_{p∈Δ^C} Σ_c π_c ℓ(p, c),
	// in closed form.
	entropy func(pi []float64) float64
	proper  bool
	// unique reports whether the minimizer of the inner risk is unique for
	// every π ∈ Δ^C with C classes.
	unique     func(C int) bool
	continuous bool
}

func always(bool) func(int) bool { return func(int) bool { return true } }

var (
	// plLog is the log loss: strictly proper, continuous as an
	// extended-real function (Findings, Sections 2–3, item 4).
	plLog = probeLoss{name: "log", loss: func(q []float64, c int) float64 { return -math.Log(q[c]) },
		entropy: theory.Entropy, proper: true, unique: always(true), continuous: true}
	// plSquare is the square loss Σ_c' (1{c=c'} − q_c')²: strictly proper.
	plSquare = probeLoss{name: "square", loss: squareLoss, entropy: brierEntropy, proper: true, unique: always(true), continuous: true}
	// plBrier1 is the square loss of class 1 alone, (1{c=1} − q₁)²: proper
	// (q₁ = π₁ minimizes), its minimizer unique only for C = 2 (for C ≥ 3 the
	// other entries of q are free), continuous.
	plBrier1 = probeLoss{name: "square loss of class 1 alone", loss: func(q []float64, c int) float64 {
		d := q[0]
		if c == 0 {
			d = 1 - q[0]
		}
		return d * d
	}, entropy: func(pi []float64) float64 { return pi[0] * (1 - pi[0]) }, proper: true,
		unique: func(C int) bool { return C == 2 }, continuous: true}
	// plZeroOne is the 0-1 loss: proper, not strictly, not continuous.
	plZeroOne = probeLoss{name: "zero-one", loss: func(q []float64, c int) float64 {
		if theory.ArgMax(q) == c {
			return 0
		}
		return 1
	}, entropy: func(pi []float64) float64 { return 1 - pi[theory.ArgMax(pi)] }, proper: true,
		unique: func(int) bool { return false }, continuous: false}
)

// plSwapped is the square loss of q with classes i and j swapped,
// ‖e_c − P_{ij}q‖²: its inner risk at π is minimized uniquely at q = P_{ij}π
// (strictly convex in q), so it is continuous with a unique minimizer but
// not proper.
func plSwapped(i, j int) probeLoss {
	return probeLoss{name: fmt.Sprintf("square loss of q with classes %d and %d swapped", i+1, j+1),
		loss: func(q []float64, c int) float64 {
			p := append([]float64(nil), q...)
			p[i], p[j] = p[j], p[i]
			return squareLoss(p, c)
		}, entropy: brierEntropy, proper: false, unique: always(true), continuous: true}
}

func squareLoss(q []float64, c int) float64 {
	s := 0.0
	for k, v := range q {
		d := v
		if k == c {
			d = 1 - v
		}
		s += d * d
	}
	return s
}

// brierEntropy is inf_{u∈Δ^C} Σ_c π_c‖e_c − u‖² = 1 − ‖π‖² (at u = π: the
// sum is 1 − ‖π‖² + ‖π − u‖²).
func brierEntropy(pi []float64) float64 {
	s := 0.0
	for _, v := range pi {
		s += v * v
	}
	return 1 - s
}

// probePoint is a point x of a calibration statement: a loss, a matrix T, the
// clean posterior η and a prediction q (on a one-point 𝒳 the risks are
// these inner risks). Kind names the family.
type probePoint struct {
	Kind   string
	Loss   probeLoss
	T      *mat.Dense
	Eta, Q []float64
}

func (p probePoint) String() string {
	return fmt.Sprintf("%s, ℓ = %s: T=%v η=%v q=%v", p.Kind, p.Loss.name, mat.Formatted(p.T, mat.FormatMATLAB()), p.Eta, p.Q)
}

// inner is the inner risk Σ_c (Tη)_c ℓ(Tq, c) of the forward-corrected
// loss for any square T, summed directly.
func (p probePoint) inner(q []float64) float64 {
	te, tq := mulVec(p.T, p.Eta), mulVec(p.T, q)
	s := 0.0
	for c, w := range te {
		if w != 0 {
			s += w * p.Loss.loss(tq, c)
		}
	}
	return s
}

// c1 is the excess inner 0-1 risk of q at η by its definition: the
// expected 0-1 loss of min argmax q minus that of min argmax η.
func (p probePoint) c1() float64 {
	risk := func(q []float64) float64 {
		k := theory.ArgMax(q)
		s := 0.0
		for c, v := range p.Eta {
			if c != k {
				s += v
			}
		}
		return s
	}
	return risk(p.Q) - risk(p.Eta)
}

// c2Upper is an upper bound on the excess inner surrogate risk at q: the
// inner risk at q minus the loss's entropy at Tη, a lower bound on the
// infimum of the inner risk over Δ^C (Tq ranges over TΔ^C ⊂ Δ^C).
func (p probePoint) c2Upper() float64 {
	return p.inner(p.Q) - p.Loss.entropy(clampSimplex(mulVec(p.T, p.Eta)))
}

// colStochastic reports whether every column of T lies in Δ^C.
func colStochastic(T mat.Matrix) bool { return nonNegative(T) && columnsSumToOne(T) }

func nonNegative(T mat.Matrix) bool {
	r, c := T.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if !(T.At(i, j) >= 0) {
				return false
			}
		}
	}
	return true
}

func columnsSumToOne(T mat.Matrix) bool {
	r, c := T.Dims()
	for j := 0; j < c; j++ {
		s := 0.0
		for i := 0; i < r; i++ {
			s += T.At(i, j)
		}
		if math.Abs(s-1) > 1e-12 {
			return false
		}
	}
	return true
}

// invertible reports σ_min(T) > invertibleTol·σ_max(T).
func invertible(T mat.Matrix) bool {
	var svd mat.SVD
	if !svd.Factorize(T, mat.SVDNone) {
		return false
	}
	v := svd.Values(nil)
	return v[len(v)-1] > invertibleTol*v[0]
}

// inSimplex reports p ∈ Δ^C (entries ≥ 0, sum 1 to 1e-12).
func inSimplex(p []float64) bool {
	s := 0.0
	for _, v := range p {
		if !(v >= 0) {
			return false
		}
		s += v
	}
	return math.Abs(s-1) <= 1e-12
}

// The domains the probes' points may leave.
const (
	outsideLT    = "ℓ_T (line 154: ℓ_T(q, c) = ℓ(Tq, c) needs Tq ∈ Δ^C for every q ∈ Δ^C, and a column Te_j of T leaves Δ^C)"
	outsideLoss  = "ℓ (its domain is Δ^C × 𝒴, line 135: q ∉ Δ^C)"
	outsideTInv  = "T⁻¹ (‖T⁻¹‖₁ needs T invertible)"
	keptByFamily = true
)

// calParts judges a calibration point: the loss's declared properties,
// T's invertibility, signs and column sums, q and η in Δ^C, and the
// domains it leaves; kept names the claim's other parts, which the family
// keeps by construction (a finite 𝒳, ranges the point does not touch).
func calParts(p probePoint, kept ...string) (map[string]bool, string) {
	C := len(p.Eta)
	m := map[string]bool{
		partProper: p.Loss.proper, partUnique: p.Loss.unique(C), partCont: p.Loss.continuous, partLog: p.Loss.name == plLog.name,
		partInv: invertible(p.T), partNonNeg: nonNegative(p.T), partColSum: columnsSumToOne(p.T),
		"q ∈ Δ^C": inSimplex(p.Q), "p ∈ Δ^C": inSimplex(p.Eta),
	}
	for _, k := range kept {
		if _, computed := m[k]; !computed {
			m[k] = keptByFamily
		}
	}
	switch {
	case !colStochastic(p.T):
		return m, outsideLT
	case !inSimplex(p.Q):
		return m, outsideLoss
	}
	return m, ""
}

// calJudge is the judge of a calibration probe over calPoints: calParts
// with the claim's kept names, and conclusion for a counterexample.
func calJudge(conclusion func(probePoint) (bool, string), kept ...string) verify.Judge[probePoint] {
	return verify.Judge[probePoint]{
		Parts:      func(p probePoint) (map[string]bool, string) { return calParts(p, kept...) },
		Conclusion: conclusion,
	}
}

// flipConclusion re-evaluates a calibration statement ("a small excess ℓ_T
// risk forces a small excess 0-1 risk") at a flip point: it fails when the
// excess 0-1 risk is positive while the excess surrogate risk, bounded
// above from the loss's entropy, is 0 to rounding — no δ > 0 (no θ strictly
// increasing with θ(0) = 0) can then force the 0-1 excess below it.
func flipConclusion(p probePoint) (bool, string) {
	c1, c2 := p.c1(), p.c2Upper()
	fails := c1 > flipC1Min && c2 <= flipZeroTol
	return !fails, fmt.Sprintf("excess 0-1 risk %.6g (by min argmax), excess surrogate risk ≤ %.3g (inner risk at q − the loss's entropy at Tη)", c1, c2)
}

// flipCase is the probe's own verdict on a flip point: the surrogate
// excess against the excess 0-1 risk, both computed by the probe's
// surrogate function (the claim's formula).
func flipCase(p probePoint, surrogate float64) verify.Case {
	c1 := p.Eta[theory.ArgMax(p.Eta)] - p.Eta[theory.ArgMax(p.Q)]
	bad := math.Abs(surrogate) <= flipZeroTol && c1 > flipC1Min
	return verify.Case{LHS: c1, RHS: math.Max(surrogate, 0), OK: !bad,
		Detail: fmt.Sprintf("%v: surrogate excess %.3g, excess 0-1 risk %.6g > 0", p, surrogate, c1)}
}

// surrogateAtEta is the probe's surrogate excess C(q) − C(η), the infimum
// read at η (proper losses) or at the family's constructed minimizer star.
func surrogateAt(p probePoint, star []float64) float64 { return p.inner(p.Q) - p.inner(star) }

// genSingularFlip draws the family "T singular": C ∈ 2..5, a random
// column-stochastic T whose column j is replaced by its column i (so T is
// column-stochastic and singular), η with its largest entry at i and
// η_i > η_j, q = η with all of class i's mass moved to class j, and the log
// loss: then Tq = Tη, so the inner risk at q equals the minimum at η, while
// q predicts j and η predicts i (the excess 0-1 risk is η_i − η_j > 0).
func genSingularFlip(r *rand.Rand, _ int) probePoint {
	C := 2 + r.Intn(4)
	T := GenColumnStochastic(r, C)
	i := r.Intn(C)
	j := (i + 1 + r.Intn(C-1)) % C
	for k := 0; k < C; k++ {
		T.Set(k, j, T.At(k, i))
	}
	eta := GenSymDirichlet(r, C, 1)
	a := theory.ArgMax(eta)
	eta[a], eta[i] = eta[i], eta[a]
	if !(eta[i] > eta[j]) {
		eta[j] = eta[i] / 2
		normalize(eta)
	}
	q := append([]float64(nil), eta...)
	q[j] += q[i]
	q[i] = 0
	return probePoint{Kind: fmt.Sprintf("T singular (column %d = column %d)", j+1, i+1), Loss: plLog, T: T, Eta: eta, Q: q}
}

// genUniformNoiseT draws T = (1−a)I + aN, a ∈ [0, 0.8]: invertible,
// column-stochastic, and commuting with every permutation of the classes.
func genUniformNoiseT(r *rand.Rand, C int) (*mat.Dense, float64) {
	a := unif(r, 0, 0.8)
	return GenUniformNoiseT(C, a), a
}

// topAndOther returns η's top class i (made unique) and another class j
// with η_j < η_i, drawn among those allowed.
func topAndOther(r *rand.Rand, eta []float64, allowed func(int) bool) (int, int) {
	i := theory.ArgMax(eta)
	var js []int
	for j := range eta {
		if j != i && allowed(j) && eta[j] < eta[i]-1e-6 {
			js = append(js, j)
		}
	}
	if len(js) == 0 {
		return i, -1
	}
	return i, js[r.Intn(len(js))]
}

// genNotProper draws the family "ℓ not proper": the square loss of q with
// η's top class i and another class j swapped (continuous, its minimizer
// unique, not proper), T = (1−a)I + aN, and q = P_{ij}η, the minimizer of
// the inner ℓ_T risk: P_{ij}Tq = TP_{ij}q = Tη (T commutes with P_{ij}), the
// square loss's unique minimizer. q predicts j, η predicts i.
func genNotProper(r *rand.Rand, _ int) probePoint {
	for {
		C := 2 + r.Intn(4)
		T, a := genUniformNoiseT(r, C)
		eta := GenSymDirichlet(r, C, 1)
		i, j := topAndOther(r, eta, func(int) bool { return true })
		if j < 0 {
			continue
		}
		q := append([]float64(nil), eta...)
		q[i], q[j] = q[j], q[i]
		return probePoint{Kind: fmt.Sprintf("ℓ not proper, T = %.3gI + %.3gN, q the inner risk's minimizer", 1-a, a), Loss: plSwapped(i, j), T: T, Eta: eta, Q: q}
	}
}

// genNotUnique draws the family "ℓ's minimizer not unique": the square loss
// of class 1 alone (proper, continuous), C ∈ 3..5, T = (1−a)I + aN, η whose
// top class i is not class 1, and q = η with classes i and j ≠ 1 swapped:
// (Tq)₁ = (1−a)q₁ + a/C = (Tη)₁, so the inner risk at q is the minimum, while
// q predicts j.
func genNotUnique(r *rand.Rand, _ int) probePoint {
	for {
		C := 3 + r.Intn(3)
		T, a := genUniformNoiseT(r, C)
		eta := GenSymDirichlet(r, C, 1)
		if theory.ArgMax(eta) == 0 {
			eta[0], eta[1] = eta[1], eta[0]
		}
		i, j := topAndOther(r, eta, func(j int) bool { return j != 0 })
		if j < 0 {
			continue
		}
		q := append([]float64(nil), eta...)
		q[i], q[j] = q[j], q[i]
		return probePoint{Kind: fmt.Sprintf("ℓ's minimizer not unique, T = %.3gI + %.3gN", 1-a, a), Loss: plBrier1, T: T, Eta: eta, Q: q}
	}
}

// genNegativeT draws the family "T ≥ 0 violated": T = (1−a)I + aN with
// a ∈ [−0.5, −0.05] (columns summing to 1, invertible, off-diagonal entries
// a/C < 0), the log loss, η and q in the open simplex: Te_j ∉ Δ^C, so ℓ_T is
// undefined.
func genNegativeT(r *rand.Rand, _ int) probePoint {
	C := 2 + r.Intn(4)
	a := unif(r, -0.5, -0.05)
	T := mat.NewDense(C, C, nil)
	for i := 0; i < C; i++ {
		for j := 0; j < C; j++ {
			v := a / float64(C)
			if i == j {
				v += 1 - a
			}
			T.Set(i, j, v)
		}
	}
	return probePoint{Kind: fmt.Sprintf("T = %.3gI + %.3gN (a negative entry)", 1-a, a), Loss: plLog, T: T, Eta: GenSimplex(r, C, false), Q: GenSimplex(r, C, false)}
}

// genScaledT draws the family "T's columns sum to 1 violated": T = s·T₀, T₀
// uniform noise, s ∈ [1.5, 3] (non-negative, invertible, columns summing to
// s): Te_j ∉ Δ^C, so ℓ_T is undefined.
func genScaledT(r *rand.Rand, _ int) probePoint {
	C := 2 + r.Intn(4)
	T0, _ := genUniformNoiseT(r, C)
	s := unif(r, 1.5, 3)
	var T mat.Dense
	T.Scale(s, T0)
	return probePoint{Kind: fmt.Sprintf("T = %.3g·T₀ (columns summing to %.3g)", s, s), Loss: plLog, T: &T, Eta: GenSimplex(r, C, false), Q: GenSimplex(r, C, false)}
}

// calFlipProbe is the probe of a calibration statement ("a small excess
// ℓ_T risk forces a small excess 0-1 risk") with the part hyp violated by
// the family gen, whose points carry q at the minimum of the inner risk;
// star returns where the probe reads that minimum.
func calFlipProbe(label, hyp, tried string, gen func(*rand.Rand, int) probePoint, kept ...string) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Violate(cfg, probing(label, hyp, tried), probeLimit, gen,
			func(p probePoint) verify.Case { return flipCase(p, surrogateAt(p, flipStar(p))) }, calJudge(flipConclusion, kept...))
	}
}

// flipStar is where the probe reads the minimum of the inner risk of a
// flip point: at η for a proper loss, at q itself (the constructed
// minimizer) for the swapped square loss.
func flipStar(p probePoint) []float64 {
	if p.Loss.proper {
		return p.Eta
	}
	return p.Q
}

// calDomainProbe is the probe of a part of "T column-stochastic": the
// family's T leaves it, so ℓ_T is undefined (no counterexample can be
// drawn: the statement is not defined there).
func calDomainProbe(label, hyp, tried string, gen func(*rand.Rand, int) probePoint, kept ...string) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Undefine(cfg, probing(label, hyp, tried), probeLimit, gen,
			func(p probePoint) string { return p.String() }, calJudge(nil, kept...))
	}
}

// Texts of the families.
const (
	triedSingular = "T singular (a column-stochastic T with two equal columns), q = η with one class's mass moved to the other (Tq = Tη), log loss"
	triedNotProp  = "ℓ the square loss of q with η's top class and another swapped (continuous, unique minimizer, not proper), T = (1−a)I + aN, q that minimizer"
	triedNotUniq  = "ℓ the square loss of class 1 alone (proper, continuous, minimizer not unique for C ≥ 3), T = (1−a)I + aN, q = η with two classes other than 1 swapped"
	triedNegT     = "T = (1−a)I + aN with a ∈ [−0.5, −0.05] (columns summing to 1, invertible, negative off-diagonal entries)"
	triedScaledT  = "T = s·T₀, s ∈ [1.5, 3], T₀ = (1−a)I + aN (non-negative, invertible, columns summing to s)"
)

// The parts of "ℓ a continuous strictly proper loss" and of "T an
// invertible column-stochastic matrix", the hypotheses of the calibration
// statements of Sections 2–4. Of names the compound as the statement
// prints it.
const (
	ofLoss = "ℓ a continuous strictly proper loss"
	ofT    = "T an invertible column-stochastic matrix"
)

// Reasons of the parts no probe can violate here.
const (
	whyContinuity = "every loss the probes try is continuous except the 0-1 loss, which is also not strictly proper; a strictly proper loss with a discontinuity (a kinked generalized entropy) is not implemented. The log loss is continuous only as an extended-real function at the boundary of Δ^C (Findings, Sections 2–3, item 4)"
	whyRegular    = "on a finite 𝒳 every P has its conditional distributions P(·|x); the probes' 𝒳 is finite (one point for the pointwise statements)"
	whyBayes      = "on a finite 𝒳 the Bayes risks of the log and square losses are at most log C and 1; no loss with an infinite Bayes risk is implemented"
)

// calLossParts are the three parts of ℓ's hypothesis, probed with the
// families above (line is the statement's; from where it comes).
func calLossParts(label string, line int, from string, kept ...string) []verify.Hypothesis {
	return []verify.Hypothesis{
		{Name: partProper, Kind: verify.HypLoss, Line: line, From: from, Of: ofLoss, Text: "ℓ proper: C*_{ℓ,P,x} = C_{ℓ,P,x}(η(x)) for every P and x (line 144)",
			Probe: calFlipProbe(label, partProper, triedNotProp, genNotProper, kept...), Expect: verify.Needed},
		{Name: partUnique, Kind: verify.HypLoss, Line: line, From: from, Of: ofLoss, Text: "ℓ strictly proper: the minimizer of C_{ℓ,P,x} unique for every x (line 144)",
			Probe: calFlipProbe(label, partUnique, triedNotUniq, genNotUnique, kept...), Expect: verify.Needed},
		{Name: partCont, Kind: verify.HypLoss, Line: line, From: from, Of: ofLoss, Text: "ℓ continuous", Why: whyContinuity},
	}
}

// calTParts are the three parts of T's hypothesis; the two parts of
// column-stochasticity define ℓ_T.
func calTParts(label string, line int, from string, kept ...string) []verify.Hypothesis {
	return []verify.Hypothesis{
		{Name: partInv, Kind: verify.HypMatrix, Line: line, From: from, Of: ofT, Text: "T invertible",
			Probe: calFlipProbe(label, partInv, triedSingular, genSingularFlip, kept...), Expect: verify.Needed},
		calNonNegPart(label, line, from, kept...),
		calColSumPart(label, line, from, kept...),
	}
}

func calNonNegPart(label string, line int, from string, kept ...string) verify.Hypothesis {
	return verify.Hypothesis{Name: partNonNeg, Kind: verify.HypMatrix, Line: line, From: from, Of: ofT, Text: "T column-stochastic: its entries non-negative",
		Probe: calDomainProbe(label, partNonNeg, triedNegT, genNegativeT, kept...), Expect: verify.NeededToDefine}
}

func calColSumPart(label string, line int, from string, kept ...string) verify.Hypothesis {
	return verify.Hypothesis{Name: partColSum, Kind: verify.HypMatrix, Line: line, From: from, Of: ofT, Text: "T column-stochastic: its columns sum to 1",
		Probe: calDomainProbe(label, partColSum, triedScaledT, genScaledT, kept...), Expect: verify.NeededToDefine}
}

func calRegular(line int) verify.Hypothesis {
	return verify.Hypothesis{Name: partRegular, Kind: verify.HypDistribution, Line: 130, From: "definition: η(x), the regular conditional distribution of Y given X (line 130)",
		Text: "regular conditional distributions P(·|x) of Y and Ỹ given X exist (assumed, line 130)", Why: whyRegular}
}

func calBayes(line int) verify.Hypothesis {
	return verify.Hypothesis{Name: partBayes, Kind: verify.HypDistribution, Line: line, From: verify.FromStatement, Text: "Assume R*_{ℓ_T,P_T} < ∞", Why: whyBayes}
}

// clampSimplex maps the rounding residue of a product Tη (entries −0, a sum
// 1 ± 1e-16) back into Δ^C, in place.
func clampSimplex(p []float64) []float64 {
	for i, v := range p {
		if v < 0 {
			p[i] = 0
		}
	}
	return normalize(p)
}

// errNote is " (err)" for a non-nil error, "" otherwise.
func errNote(err error) string {
	if err == nil {
		return ""
	}
	return " (" + err.Error() + ")"
}

// simplexMember decides membership of Δ^C (entries ≥ 0, sum 1 to 1e-12) for
// a range's end checks; k > 1 splits x into k equal parts (p, q ∈ Δ^C).
func simplexMember(k int) func(x []float64) bool {
	return func(x []float64) bool {
		n := len(x) / k
		for i := 0; i < k; i++ {
			if !inSimplex(x[i*n : (i+1)*n]) {
				return false
			}
		}
		return true
	}
}

// openSimplexMember decides membership of the open simplex Δ̊^C.
func openSimplexMember(x []float64) bool {
	for _, v := range x {
		if !(v > 0) {
			return false
		}
	}
	return inSimplex(x)
}
