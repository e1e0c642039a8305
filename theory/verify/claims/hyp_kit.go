package claims

// The hypotheses of the claims (issue 52): shared helpers and the families of
// inputs that violate one hypothesis of a calibration statement while meeting
// the others. Every probe draws its inputs from its own stream
// ("probe/LABEL/HYPOTHESIS"), so that a counterexample replays from the
// stream seed the probe reports, and no claim's inputs move.
//
// The probes compute the statement's two sides directly (hypInner, the
// closed forms of the minimal inner risks written beside each family), not
// through the theory package's checked functions: those refuse a singular or
// a non-stochastic T, which is the point of the probe.

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

// probeLimit caps the cases of a cheap (pointwise) probe; the probes of the
// sampled claims set their own, lower caps.
const probeLimit = 500

// endAt is one EndCheck.
func endAt(at, where, value string, v verify.EndVerdict) verify.EndCheck {
	return verify.EndCheck{At: at, Where: where, Value: value, Verdict: v}
}

// holdsIf is EndHolds when ok, else the verdict bad.
func holdsIf(ok bool, bad verify.EndVerdict) verify.EndVerdict {
	if ok {
		return verify.EndHolds
	}
	return bad
}

// hypInner is the inner risk Σ_c (Tη)_c ℓ(Tq, c) of the forward-corrected
// loss ℓ_T for any square T (no check that T is column-stochastic or
// invertible, nor that Tq lies in the simplex).
func hypInner(l theory.ProperLoss, T mat.Matrix, eta, q []float64) float64 {
	te, tq := mulVec(T, eta), mulVec(T, q)
	s := 0.0
	for c, w := range te {
		if w == 0 {
			continue
		}
		s += w * l.Loss(tq, c)
	}
	return s
}

// zeroOneC2 is the excess inner risk of the forward-corrected 0-1 loss,
// max(Tη) − (Tη)_{min argmax Tq}: the 0-1 loss is proper but not strictly.
func zeroOneC2(T mat.Matrix, eta, q []float64) float64 {
	te, tq := mulVec(T, eta), mulVec(T, q)
	best := te[theory.ArgMax(te)]
	return best - te[theory.ArgMax(tq)]
}

// flipPoint is a point x of a pointwise calibration statement: its clean
// posterior η, a prediction q and a matrix T that together violate one
// hypothesis (Kind says which family).
type flipPoint struct {
	Kind   string
	T      *mat.Dense
	Eta, Q []float64
}

func (p flipPoint) String() string {
	return fmt.Sprintf("%s: T=%v η=%v q=%v", p.Kind, mat.Formatted(p.T, mat.FormatMATLAB()), p.Eta, p.Q)
}

// c1 is the excess inner 0-1 risk of q at η (max η − η_{min argmax q}).
func (p flipPoint) c1() float64 { return p.Eta[theory.ArgMax(p.Eta)] - p.Eta[theory.ArgMax(p.Q)] }

// genSingularFlip draws the family "T singular": C ∈ 2..5, a random
// column-stochastic T whose column j is replaced by its column i (so T is
// column-stochastic and singular), η with its largest entry at i and
// η_i > η_j, and q = η with all of class i's mass moved to class j: then
// Tq = Tη, so every forward-corrected loss has the same inner risk at q as at
// η (the surrogate excess is 0), while q predicts j and η predicts i (the
// excess 0-1 risk is η_i − η_j > 0).
func genSingularFlip(r *rand.Rand, _ int) flipPoint {
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
	return flipPoint{Kind: fmt.Sprintf("T singular (column %d = column %d)", j, i), T: T, Eta: eta, Q: q}
}

// genProperNotStrict draws the family "ℓ proper, not strictly": the 0-1
// loss as ℓ, T = (1−a)I + a·e_k1ᵀ (invertible, column-stochastic: every
// column moved a ≥ 0.55 towards class k, so Tp predicts k for every p), η
// predicting some i ≠ k and q just across the decision boundary from η
// (GenAcrossBoundary): the forward-corrected 0-1 loss has excess 0 at q
// (both Tq and Tη predict k) while the excess 0-1 risk of q is positive.
func genProperNotStrict(r *rand.Rand, _ int) flipPoint {
	C := 2 + r.Intn(4)
	k := r.Intn(C)
	a := unif(r, 0.55, 0.95)
	T := mat.NewDense(C, C, nil)
	for j := 0; j < C; j++ {
		T.Set(j, j, 1-a)
		T.Set(k, j, T.At(k, j)+a)
	}
	eta := GenSymDirichlet(r, C, 1)
	q := GenAcrossBoundary(r, eta)
	return flipPoint{Kind: fmt.Sprintf("0-1 loss, T pulls every class towards %d (a=%.3g)", k, a), T: T, Eta: eta, Q: q}
}

// genDiagFlip draws the family "T not column-stochastic": T = diag(d),
// invertible, with d_i = 1/5 at the top class i of η and d_j = 5 at its
// runner-up j (η_j ≥ η_i/2, so d_jη_j > d_iη_i), the others in [1/5, 1]. For
// the log loss the inner risk Σ_c d_cη_c(−log d_c q_c) is minimized over Δ^C
// at q* = d⊙η/⟨d,η⟩ (the returned Q), which predicts j ≠ i.
func genDiagFlip(r *rand.Rand, _ int) flipPoint {
	C := 2 + r.Intn(4)
	eta := GenSymDirichlet(r, C, 1)
	i := theory.ArgMax(eta)
	j := runnerUp(eta, i)
	if eta[j] < eta[i]/2 {
		eta[j] = eta[i] / 2
		normalize(eta)
	}
	d := make([]float64, C)
	for c := range d {
		d[c] = unif(r, 0.2, 1)
	}
	d[i], d[j] = 0.2, 5
	T := mat.NewDense(C, C, nil)
	q := make([]float64, C)
	for c := range d {
		T.Set(c, c, d[c])
		q[c] = d[c] * eta[c]
	}
	normalize(q)
	return flipPoint{Kind: fmt.Sprintf("T = diag(%.3g) (not column-stochastic)", d), T: T, Eta: eta, Q: q}
}

// flipCase is the verdict of a calibration statement on a flip point: it
// fails when the surrogate excess is 0 (to rounding) while the excess 0-1
// risk is positive — no δ > 0 (no strictly increasing θ with θ(0) = 0) can
// then force the 0-1 excess below it.
func flipCase(p flipPoint, surrogate float64) verify.Case {
	c1 := p.c1()
	bad := math.Abs(surrogate) <= 1e-12 && c1 > 1e-9
	return verify.Case{LHS: c1, RHS: math.Max(surrogate, 0), OK: !bad,
		Detail: fmt.Sprintf("%v: surrogate excess %.3g, excess 0-1 risk %.6g > 0", p, surrogate, c1)}
}

// logExcessSingular is the log loss's excess inner FC risk at q for T of
// the singular family: C* is attained at q = η (Tη is a point of TΔ^C and
// the log loss is proper).
func logExcessSingular(p flipPoint) float64 {
	return hypInner(theory.LogLoss, p.T, p.Eta, p.Q) - hypInner(theory.LogLoss, p.T, p.Eta, p.Eta)
}

// logExcessDiag is the log loss's excess inner FC risk at q for T of the
// diagonal family: by Gibbs' inequality C(q) = Σ_c d_cη_c(−log d_cq_c) is
// minimized over Δ^C at q* = d⊙η/⟨d,η⟩ (genDiagFlip's Q). The minimum is
// taken over q* and, as a check on that closed form, over η, the uniform
// point and the vertices' neighbours: were one of them below C(q*), the
// excess would come out positive and the probe would report no
// counterexample rather than a wrong one.
func logExcessDiag(p flipPoint) float64 {
	at := hypInner(theory.LogLoss, p.T, p.Eta, p.Q)
	best := math.Min(at, hypInner(theory.LogLoss, p.T, p.Eta, p.Eta))
	C := len(p.Eta)
	for k := -1; k < C; k++ {
		u := make([]float64, C)
		for c := range u {
			u[c] = 1 / float64(C)
			if c == k {
				u[c] += 1
			}
		}
		best = math.Min(best, hypInner(theory.LogLoss, p.T, p.Eta, normalize(u)))
	}
	return at - best
}

// probeSingular, probeNotStrict and probeDiag are the probes shared by the
// statements of the form "for ℓ strictly proper and T invertible
// column-stochastic, a small excess ℓ_T risk forces a small excess 0-1 risk"
// (cali.inner.lemma, thm:inv.cali): each family makes the surrogate excess
// 0 at a point whose excess 0-1 risk is positive (on a one-point X the risks
// are these inner risks).
func probeSingular(label string) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Violate(cfg, probeStream(label, "T invertible"),
			"T singular: a column-stochastic T with two equal columns, q = η with one class's mass moved to the other (Tq = Tη), log loss",
			probeLimit, genSingularFlip, func(p flipPoint) verify.Case { return flipCase(p, logExcessSingular(p)) })
	}
}

func probeNotStrict(label string) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Violate(cfg, probeStream(label, "ℓ strictly proper"),
			"ℓ the 0-1 loss (proper, not strictly), T = (1−a)I + a·e_k1ᵀ invertible column-stochastic, q across the decision boundary from η",
			probeLimit, genProperNotStrict, func(p flipPoint) verify.Case { return flipCase(p, zeroOneC2(p.T, p.Eta, p.Q)) })
	}
}

func probeDiag(label string) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Violate(cfg, probeStream(label, "T column-stochastic"),
			"T = diag(d) invertible, not column-stochastic, log loss, q the minimizer d⊙η/⟨d,η⟩ of the inner ℓ_T risk",
			probeLimit, genDiagFlip, func(p flipPoint) verify.Case { return flipCase(p, logExcessDiag(p)) })
	}
}

// Hypothesis texts shared by several statements.
const (
	textStrictlyProper = "ℓ is a continuous strictly proper loss"
	textInvColStoch    = "T is an invertible column-stochastic matrix"
	whyContinuity      = "every strictly proper loss implemented here (log, square) is continuous on the interior of Δ^C and the log loss only as an extended-real function at its boundary (Findings, Sections 2–3, item 4); there is no discontinuous strictly proper loss to try"
	whyUniversal       = "a universal quantifier of the conclusion, not an assumption: there is nothing to drop"
)

// Standard hypotheses of the calibration statements of Sections 2–4.
func hypStrictlyProper(label string, line int) verify.Hypothesis {
	return verify.Hypothesis{Name: "ℓ strictly proper", Kind: verify.HypLoss, Line: line,
		Text: textStrictlyProper + " (strictness dropped: the 0-1 loss, proper but not strictly)", Probe: probeNotStrict(label), Expect: verify.Needed}
}

func hypContinuous(line int) verify.Hypothesis {
	return verify.Hypothesis{Name: "ℓ continuous", Kind: verify.HypLoss, Line: line, Text: textStrictlyProper + " (continuity)", Why: whyContinuity}
}

func hypInvertible(label string, line int, text string) verify.Hypothesis {
	return verify.Hypothesis{Name: "T invertible", Kind: verify.HypMatrix, Line: line, Text: text, Probe: probeSingular(label), Expect: verify.Needed}
}

func hypColStoch(label string, line int, text string) verify.Hypothesis {
	return verify.Hypothesis{Name: "T column-stochastic", Kind: verify.HypMatrix, Line: line, Text: text, Probe: probeDiag(label), Expect: verify.Needed}
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
