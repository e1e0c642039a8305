package claims

// Fisher consistency of the FC loss (Section 2, after the definition of the
// FC loss: "if T is invertible, then the inner ℓ_T-risk under the distribution
// P_T has a unique minimizer η(x)"; Theorem 2 of Patrini et al. 2017), found
// by an independent numerical minimizer.

import (
	"fmt"
	"math"
	"math/rand"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

// maxFisherStarts is the number of random restarts of the Fisher check's
// optimizer.
const maxFisherStarts = 4

// maxFisherCond bounds the condition number of the T of the Fisher check.
const maxFisherCond = 20

// fisherCase is a moderately conditioned T (so that the minimizer is
// numerically identifiable) and an interior η.
type fisherCase struct {
	T     *mat.Dense
	Tdesc string
	Eta   []float64
	Seed  int64 // seed of the optimizer's random restarts
}

// softmax maps z ∈ R^C to the interior of Δ^C.
func softmax(z []float64) []float64 {
	m := math.Inf(-1)
	for _, v := range z {
		m = math.Max(m, v)
	}
	q := make([]float64, len(z))
	for i, v := range z {
		q[i] = math.Exp(v - m)
	}
	return normalize(q)
}

// checkFisher minimizes z ↦ Σ_c (Tη)_c ℓ_T(softmax(z), c), with ℓ_T the
// implementation under test, by L-BFGS and BFGS from z = 0 (the lower result
// is kept) with central-difference
// gradients (gonum/diff/fd), and requires (a) the minimizer q* to be within
// ‖q*−η‖₁ ≤ 1e-4 of η, and (b) the value at η to be no larger than the value
// the optimizer found (up to tolAbs): η is a global minimizer.
//
// Inputs: C ∈ [2,6], η with entries ≥ 1e-2 (a softmax with bounded z reaches
// it), T from the mixture restricted to 1-norm condition numbers
// κ₁ = ‖T‖₁‖T⁻¹‖₁ ≤ maxFisherCond. Tolerance (a): the excess objective near
// η is ≈ ½(q−η)ᵀH(q−η) with the smallest curvature of order 1/κ₁², and a
// finite-difference BFGS resolves objective differences down to ~1e-12, so
// its minimizer is within ~√(1e-12·κ₁²) = 2e-5 of η (in ‖·‖₁, up to a factor
// C); 1e-4 allows for that. Worse-conditioned T are left to the exact
// pointwise checks (Lemma `YW_lemma:KL` and the calibration bounds), which
// imply the same minimizer.
func checkFisher(cfg verify.Config, name string, l theory.ProperLoss, fc fcLossFunc) verify.Outcome {
	gen := verify.Gen(func(r *rand.Rand, _ int) any {
		C := 2 + r.Intn(5)
		var T *mat.Dense
		var desc string
		for {
			T, desc = GenT(r, C, 100)
			if n, ok := invNorm1Direct(T); ok && n*colSumMax(T) <= maxFisherCond {
				break
			}
		}
		eta := floorSimplex(GenSimplex(r, C, false), 1e-2)
		return fisherCase{T: T, Tdesc: desc, Eta: eta, Seed: r.Int63()}
	})
	return verify.ForAll(cfg, name, verify.Bound, gen, func(fc0 fisherCase) verify.Case {
		C := len(fc0.Eta)
		te := mulVec(fc0.T, fc0.Eta)
		var evalErr error
		risk := func(q []float64) float64 {
			s := 0.0
			for c, w := range te {
				if w == 0 {
					continue
				}
				val, err := fc(l, fc0.T, q, c)
				if err != nil && evalErr == nil {
					evalErr = err
				}
				s += w * val
			}
			return s
		}
		obj := func(z []float64) float64 {
			// A line search may probe absurd steps; there the objective is
			// +Inf (the optimizer backs off) rather than a NaN q handed to
			// the implementation under test.
			for _, v := range z {
				if !(math.Abs(v) < 1e300) {
					return math.Inf(1)
				}
			}
			return risk(softmax(z))
		}
		p := optimize.Problem{
			Func: obj,
			Grad: func(g, z []float64) { fd.Gradient(g, obj, z, &fd.Settings{Formula: fd.Central}) },
		}
		// The softmax parametrization is flat where an entry of q saturates
		// to 0, where a quasi-Newton method can stop early (small gradient,
		// far from the minimum). Run L-BFGS and BFGS from z = 0 and keep the
		// lower value; while that value is worse than the known feasible
		// point η (the optimizer has plainly not converged), restart from
		// up to maxFisherStarts random z ~ N(0, I). The restarts only ever
		// lower the value found, so they cannot hide a point better than η,
		// nor a second minimizer.
		settings := &optimize.Settings{GradientThreshold: 1e-10, MajorIterations: 2000}
		fEta := risk(fc0.Eta)
		var res *optimize.Result
		var err error
		starts := rand.New(rand.NewSource(fc0.Seed))
		for k := 0; k <= maxFisherStarts; k++ {
			z0 := make([]float64, C)
			if k > 0 {
				if res.F <= fEta+1e-9*(1+math.Abs(fEta)) {
					break
				}
				for i := range z0 {
					z0[i] = starts.NormFloat64()
				}
			}
			for _, m := range []optimize.Method{&optimize.LBFGS{}, &optimize.BFGS{}} {
				r, e := optimize.Minimize(p, z0, settings, m)
				if r != nil && (res == nil || r.F < res.F) {
					res, err = r, e
				}
			}
			if res == nil {
				break
			}
		}
		detail := func(s string) string {
			return fmt.Sprintf("%s C=%d T(%s)=%v η=%v: %s", l.Name(), C, fc0.Tdesc, mat.Formatted(fc0.T, mat.FormatMATLAB()), fc0.Eta, s)
		}
		if evalErr != nil {
			return verify.Case{Detail: detail(evalErr.Error())}
		}
		if err != nil && res == nil {
			return verify.Case{Detail: detail("optimizer: " + err.Error())}
		}
		qs := softmax(res.X)
		atEta := fEta
		dist := 0.0
		for i := range qs {
			dist += math.Abs(qs[i] - fc0.Eta[i])
		}
		if atEta > res.F+tolAbs+tolRel*math.Abs(res.F) {
			return verify.Case{LHS: atEta, RHS: res.F, Detail: detail(fmt.Sprintf("risk at η %.17g > risk %.17g at the optimizer's q*=%v", atEta, res.F, qs))}
		}
		return verify.Case{LHS: dist, RHS: fisherDistTol, OK: dist <= fisherDistTol,
			Detail: detail(fmt.Sprintf("optimizer's minimizer q*=%v is at ‖q*−η‖₁=%.3g from η (status %v)", qs, dist, res.Status))}
	})
}

// fcTransposed is ℓ(Tᵀq, c): the FC loss with T transposed (computed
// without validation, since Tᵀ is not column-stochastic; Tᵀq has positive
// entries for the q and T of these checks).
func fcTransposed(l theory.ProperLoss, T mat.Matrix, q []float64, c int) (float64, error) {
	return l.Loss(mulVec(T.T(), q), c), nil
}

func init() {
	register(logAndSquare(verify.Claim{
		Label:      "fc.fisher.consistency",
		Kind:       verify.Theorem,
		RatioFloor: 0.0005,
		Section:    "§2",
		Statement: "for strictly proper ℓ and invertible column-stochastic T, q ↦ C_{ℓ_T,P_T,x}(q) = Σ_c (Tη)_c ℓ(Tq,c) " +
			"has the unique minimizer η (log and square loss; numerical minimizer)",
		NegativeName: "FC loss with T transposed: ℓ(Tᵀq, c)",
	}, checkFisher, "fisher", theory.ForwardCorrected, theory.ForwardCorrected, fcTransposed))
}
