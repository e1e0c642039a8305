package claims

// Matrix-norm claims of Section 3 and App. B.2 and the 0-1 inner-risk
// identity of App. B.2.

import (
	"fmt"
	"math"
	"math/rand"
	"sort"

	"github.com/leanovate/gopter"
	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

// normCase is a nonsingular matrix M (column-stochastic or general) and
// random directions x.
type normCase struct {
	M    *mat.Dense
	Desc string
	X    [][]float64
}

// genNormCase draws C ∈ [1,10], M from the adversarial column-stochastic
// mixture (condition up to 1e8) or a general Gaussian matrix, and 8 random
// directions (Gaussian, sparse, and ±e_j).
func genNormCase(r *rand.Rand, _ int) normCase {
	C := 1 + r.Intn(10)
	var M *mat.Dense
	var desc string
	if r.Intn(3) == 0 {
		M = mat.NewDense(C, C, nil)
		for i := 0; i < C; i++ {
			for j := 0; j < C; j++ {
				M.Set(i, j, r.NormFloat64())
			}
		}
		desc = "gaussian"
	} else {
		M, desc = GenT(r, C, 1e8)
	}
	xs := make([][]float64, 8)
	for k := range xs {
		x := make([]float64, C)
		switch k % 3 {
		case 0:
			for i := range x {
				x[i] = r.NormFloat64()
			}
		case 1:
			x[r.Intn(C)] = 1 - 2*float64(r.Intn(2))
		default:
			x[r.Intn(C)] = r.NormFloat64()
			x[r.Intn(C)] += r.NormFloat64()
		}
		xs[k] = x
	}
	return normCase{M: M, Desc: desc, X: xs}
}

func vecNorm(x []float64, p float64) float64 {
	return mat.Norm(mat.NewVecDense(len(x), append([]float64(nil), x...)), p)
}

// condTol is the relative tolerance for quantities computed through a solve
// with M: 1e-14·κ₁(M)·C (backward-stable LU: relative error of order
// C·u·κ with u = 1.1e-16, times ~10 for safety).
func condTol(M mat.Matrix, invNorm float64) float64 {
	C, _ := M.Dims()
	return 1e-14*theory.Norm1(M)*invNorm*float64(C) + tolRel
}

// checkOpNormInf checks Lemma `lemma: operator norm inverse infimum` for the
// vector norm p (1, 2 or Inf) with invNorm computing ‖M⁻¹‖_p:
// (a) ‖Mx‖ ≥ ‖x‖/‖M⁻¹‖ for random x; (b) the infimum is attained: at
// x* = M⁻¹y*, y* a maximizer of ‖M⁻¹y‖/‖y‖ found by an independent route
// (p=1: the columns e_j; p=Inf: the sign vectors of the rows of M⁻¹; p=2: the
// right singular vector of M for σ_min), ‖Mx*‖/‖x*‖ = 1/‖M⁻¹‖.
func checkOpNormInf(cfg verify.Config, name string, p float64, invNorm invNormFunc) verify.Outcome {
	return verify.Property(cfg, name, verify.Identity, genNormCase, func(nc normCase) verify.Case {
		C, _ := nc.M.Dims()
		n, err := invNorm(nc.M)
		if err != nil {
			return verify.Case{Detail: fmt.Sprintf("M(%s)=%v: %v", nc.Desc, mat.Formatted(nc.M, mat.FormatMATLAB()), err)}
		}
		tol := condTol(nc.M, n)
		detail := func(s string) string {
			return fmt.Sprintf("p=%v M(%s)=%v ‖M⁻¹‖=%.6g: %s", p, nc.Desc, mat.Formatted(nc.M, mat.FormatMATLAB()), n, s)
		}
		for _, x := range nc.X {
			nx := vecNorm(x, p)
			if nx == 0 {
				continue
			}
			mx := vecNorm(mulVec(nc.M, x), p)
			if mx < nx/n*(1-tol) {
				return verify.Case{LHS: nx / n, RHS: mx, Detail: detail(fmt.Sprintf("x=%v: ‖Mx‖=%.6g < ‖x‖/‖M⁻¹‖=%.6g", x, mx, nx/n))}
			}
		}
		// Attainment.
		var cands [][]float64
		switch p {
		case 1:
			for j := 0; j < C; j++ {
				e := make([]float64, C)
				e[j] = 1
				cands = append(cands, e)
			}
		case math.Inf(1):
			var inv mat.Dense
			if err := inv.Inverse(nc.M); err != nil {
				return verify.Case{Detail: detail(err.Error())}
			}
			for i := 0; i < C; i++ {
				s := make([]float64, C)
				for j := range s {
					s[j] = 1
					if inv.At(i, j) < 0 {
						s[j] = -1
					}
				}
				cands = append(cands, s)
			}
		case 2:
			var svd mat.SVD
			if !svd.Factorize(nc.M, mat.SVDThin) {
				return verify.Case{Detail: detail("SVD failed")}
			}
			var u mat.Dense
			svd.UTo(&u)
			cands = append(cands, mat.Col(nil, C-1, &u)) // M v = σ u ⇒ M⁻¹u = v/σ
		}
		best := math.Inf(1)
		for _, y := range cands {
			var x mat.VecDense
			if err := x.SolveVec(nc.M, mat.NewVecDense(C, y)); err != nil {
				return verify.Case{Detail: detail(err.Error())}
			}
			xs := mat.Col(nil, 0, &x)
			ratio := vecNorm(mulVec(nc.M, xs), p) / vecNorm(xs, p)
			best = math.Min(best, ratio)
		}
		want := 1 / n
		ok := math.Abs(best-want) <= tol*want
		return verify.Case{LHS: best, RHS: want, OK: ok, Detail: detail(fmt.Sprintf("inf_x ‖Mx‖/‖x‖ attained %.17g, 1/‖M⁻¹‖ = %.17g", best, want))}
	})
}

// invNormInf is ‖M⁻¹‖_∞ via gonum (max absolute row sum of the inverse).
func invNormInf(M mat.Matrix) (float64, error) {
	var inv mat.Dense
	if err := inv.Inverse(M); err != nil {
		return 0, err
	}
	return mat.Norm(&inv, math.Inf(1)), nil
}

// uniformCase is one input of the uniform-noise closed form.
type uniformCase struct {
	Alpha float64
	C     int
}

// checkUniformNoise checks ‖T⁻¹‖₁ = (1−α)⁻¹(1+(1−2/C)α) for T = (1−α)I+αN
// against the 1-norm of the numerically inverted T (theory.InvNorm1, LU),
// and T⁻¹ = (1−α)⁻¹(I − αN) entrywise, for α ∈ [0, 1−1e-8] (log-uniform
// close to 1 half the time) and C ∈ [1,10]. Tolerance: condTol (the
// condition number is about 2/(1−α) ≤ 2e8).
func checkUniformNoise(cfg verify.Config, name string, closed func(alpha float64, C int) (float64, error)) verify.Outcome {
	gen := verify.Gen(func(r *rand.Rand, _ int) any {
		a := r.Float64()
		switch r.Intn(4) {
		case 0:
			a = 1 - math.Pow(10, -1-7*r.Float64())
		case 1:
			a = 0
		}
		return uniformCase{Alpha: a, C: 1 + r.Intn(10)}
	})
	return verify.ForAll(cfg, name, verify.Identity, gen, func(uc uniformCase) verify.Case {
		T, err := theory.UniformNoiseT(uc.Alpha, uc.C)
		if err != nil {
			return verify.Case{Detail: err.Error()}
		}
		num, err1 := theory.InvNorm1(T)
		got, err2 := closed(uc.Alpha, uc.C)
		if err := firstErr(err1, err2); err != nil {
			return verify.Case{Detail: fmt.Sprintf("α=%g C=%d: %v", uc.Alpha, uc.C, err)}
		}
		tol := condTol(T, num)
		var inv mat.Dense
		if err := inv.Inverse(T); err != nil {
			return verify.Case{Detail: err.Error()}
		}
		for i := 0; i < uc.C; i++ {
			for j := 0; j < uc.C; j++ {
				w := -uc.Alpha / float64(uc.C)
				if i == j {
					w += 1
				}
				w /= 1 - uc.Alpha
				if math.Abs(inv.At(i, j)-w) > tol*num {
					return verify.Case{LHS: inv.At(i, j), RHS: w, Detail: fmt.Sprintf("α=%.17g C=%d: T⁻¹(%d,%d)=%.17g, (1−α)⁻¹(I−αN) gives %.17g", uc.Alpha, uc.C, i, j, inv.At(i, j), w)}
				}
			}
		}
		return verify.Case{LHS: got, RHS: num, OK: math.Abs(got-num) <= tol*num,
			Detail: fmt.Sprintf("α=%.17g C=%d: closed form %.17g, numerical ‖T⁻¹‖₁ %.17g", uc.Alpha, uc.C, got, num)}
	})
}

// uniformNoiseWrong is (1−α)⁻¹(1+(1−1/C)α): the off-diagonal mass of a
// column of I − αN miscounted as C off-diagonal entries.
func uniformNoiseWrong(alpha float64, C int) (float64, error) {
	return (1 + (1-1/float64(C))*alpha) / (1 - alpha), nil
}

// checkZOInnerRisk checks `equation-definition: Bayes risk - zo loss`:
// ℓ̲^{01}(q,p) = Σ_c p_c 1{c ≠ min argmax q} = 1 − p_{min argmax q}, with the
// inner risk from theory.InnerRisk(zo, p, q) and the right side from an
// independent argmax (a stable sort of the indices by decreasing q). Half the
// q have exact ties in argmax.
func checkZOInnerRisk(cfg verify.Config, name string, zo theory.ProperLoss) verify.Outcome {
	other := func(r *rand.Rand, p []float64) []float64 { return GenSimplex(r, len(p), true) }
	return verify.ForAll(cfg, name, verify.Identity, genTiedPair(other), func(pq [2][]float64) verify.Case {
		p, q := pq[0], pq[1]
		got, err := theory.InnerRisk(zo, p, q)
		if err != nil {
			return verify.Case{Detail: err.Error()}
		}
		idx := make([]int, len(q))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return q[idx[a]] > q[idx[b]] })
		want := 1 - p[idx[0]]
		return mkCase(got, want, near(got, want),
			fmt.Sprintf("p=%v q=%v: inner 0-1 risk %.17g, 1 − p_{min argmax q} = %.17g", p, q, got, want))
	})
}

// genTiedPair draws C ∈ [2,10], p ∈ Δ^C and q with exact ties in argmax,
// or, half the time, q = other(r, p).
func genTiedPair(other func(r *rand.Rand, p []float64) []float64) gopter.Gen {
	return verify.Gen(func(r *rand.Rand, _ int) any {
		C := 2 + r.Intn(9)
		p := GenSimplex(r, C, true)
		q := GenTiedSimplex(r, C)
		if r.Intn(2) == 0 {
			q = other(r, p)
		}
		return [2][]float64{p, q}
	})
}

// zeroOneMaxTie is the 0-1 loss with the largest index among the maximizers
// (the wrong tie rule).
type zeroOneMaxTie struct{}

func (zeroOneMaxTie) Name() string { return "zero-one (max-index ties)" }
func (zeroOneMaxTie) Loss(q []float64, c int) float64 {
	if argmaxLast(q) != c {
		return 1
	}
	return 0
}

// checkZOMinRisk checks `equation-definition: Bayes minimum risk - zo loss`:
// inf_{q∈Δ^C} ℓ̲^{01}(q,p) = ℓ̲^{01}(p,p) = 1 − max_c p_c. The infimum is
// computed independently: ℓ̲^{01}(q,p) depends on q only through
// k = min argmax q, and every k is the prediction of the vertex e_k, so the
// infimum is min_k ℓ̲^{01}(e_k, p) (evaluated with theory.InnerRisk).
// minRisk is the closed form under test.
func checkZOMinRisk(cfg verify.Config, name string, minRisk func(p []float64) (float64, error)) verify.Outcome {
	gen := func(r *rand.Rand, _ int) []float64 { return GenSimplex(r, 1+r.Intn(10), true) }
	return verify.Property(cfg, name, verify.Identity, gen, func(p []float64) verify.Case {
		C := len(p)
		inf := math.Inf(1)
		for k := 0; k < C; k++ {
			e := make([]float64, C)
			e[k] = 1
			r, err := theory.InnerRisk(theory.ZeroOneLoss, p, e)
			if err != nil {
				return verify.Case{Detail: err.Error()}
			}
			inf = math.Min(inf, r)
		}
		atP, err1 := theory.InnerRisk(theory.ZeroOneLoss, p, p)
		got, err2 := minRisk(p)
		if err := firstErr(err1, err2); err != nil {
			return verify.Case{Detail: fmt.Sprintf("p=%v: %v", p, err)}
		}
		ok := near(got, inf) && near(atP, inf)
		return mkCase(got, inf, ok, fmt.Sprintf("p=%v: closed form %.17g, ℓ̲(p,p) = %.17g, min over vertices %.17g", p, got, atP, inf))
	})
}

// checkCalFnLower checks `equation: calibration function - lower`:
// C_{L,P,x}(q) − C*_{L,P,x} = ℓ̲^{01}(q,p) − ℓ̲^{01}(p,p), with the left side
// from zo (under test) and the right side from theory.InnerRisk at q and at p
// (the paper's route). q is tied in argmax half the time.
func checkCalFnLower(cfg verify.Config, name string, zo zoExcessFunc) verify.Outcome {
	return verify.ForAll(cfg, name, verify.Identity, genTiedPair(GenAcrossBoundary), func(pq [2][]float64) verify.Case {
		p, q := pq[0], pq[1]
		got, err1 := zo(p, q)
		a, err2 := theory.InnerRisk(theory.ZeroOneLoss, p, q)
		b, err3 := theory.InnerRisk(theory.ZeroOneLoss, p, p)
		if err := firstErr(err1, err2, err3); err != nil {
			return verify.Case{Detail: fmt.Sprintf("p=%v q=%v: %v", p, q, err)}
		}
		return mkCase(got, a-b, near(got, a-b), fmt.Sprintf("p=%v q=%v: C1 = %.17g, ℓ̲(q,p) − ℓ̲(p,p) = %.17g", p, q, got, a-b))
	})
}

// zoExcessMaxTie is max η − η_j with j the LARGEST index among the
// maximizers of q (the wrong tie rule).
func zoExcessMaxTie(eta, q []float64) (float64, error) {
	return eta[theory.ArgMax(eta)] - eta[argmaxLast(q)], nil
}

// argmaxLast is the largest index among the maximizers of q.
func argmaxLast(q []float64) int {
	j := 0
	for i, v := range q {
		if v >= q[j] {
			j = i
		}
	}
	return j
}

func init() {
	verify.Register(verify.Claim{
		Label:     "lemma: operator norm inverse infimum",
		Kind:      verify.IdentityKind,
		Section:   "App. B.2",
		Statement: "for nonsingular M and any norm: inf_{x≠0} ‖Mx‖/‖x‖ = 1/‖M⁻¹‖ (checked for the 1-, 2- and ∞-norms)",
		Check: func(cfg verify.Config) verify.Outcome {
			return verify.Merge(verify.Identity,
				checkOpNormInf(cfg, "opNorm/1", 1, theory.InvNorm1),
				checkOpNormInf(cfg, "opNorm/2", 2, theory.InvNorm2),
				checkOpNormInf(cfg, "opNorm/inf", math.Inf(1), invNormInf))
		},
		Negative: func(cfg verify.Config) verify.Outcome {
			return checkOpNormInf(cfg, "opNorm/1", 1, func(M mat.Matrix) (float64, error) { return theory.Norm1(M), nil })
		},
		NegativeName: "‖M‖₁ in place of ‖M⁻¹‖₁",
	})
	register(tested(verify.Claim{
		Label:        "eq: uniform noise inverse norm",
		Kind:         verify.IdentityKind,
		Section:      "§3",
		Statement:    "for T = (1−α)I + αN: T⁻¹ = (1−α)⁻¹(I − αN) and ‖T⁻¹‖₁ = (1−α)⁻¹(1 + (1−2/C)α)",
		NegativeName: "(1−α)⁻¹(1 + (1−1/C)α)",
	}, checkUniformNoise, "uniformNoise", theory.UniformNoiseInvNorm1, uniformNoiseWrong))
	register(tested(verify.Claim{
		Label:        "equation-definition: Bayes risk - zo loss",
		Kind:         verify.Definitional,
		Section:      "App. B.2",
		Statement:    "ℓ̲^{01}(q,p) = Σ_c p_c 1{c ≠ min argmax q} = 1 − p_{min argmax q} (ties to the smallest index)",
		NegativeName: "ties broken to the largest index",
	}, checkZOInnerRisk, "zoRisk", theory.ZeroOneLoss, theory.ProperLoss(zeroOneMaxTie{})))
	register(tested(verify.Claim{
		Label:        "equation-definition: Bayes minimum risk - zo loss",
		Kind:         verify.Definitional,
		Section:      "App. B.2",
		Statement:    "inf_q ℓ̲^{01}(q,p) = ℓ̲^{01}(p,p) = 1 − max_c p_c",
		NegativeName: "the square-loss Bayes risk 1 − ‖p‖² in place of 1 − max p",
	}, checkZOMinRisk, "zoMin", func(p []float64) (float64, error) { return theory.MinInnerRisk(theory.ZeroOneLoss, p) }, func(p []float64) (float64, error) { return theory.MinInnerRisk(theory.SquareLoss, p) }))
	register(tested(verify.Claim{
		Label:        "equation: calibration function - lower",
		Kind:         verify.Definitional,
		Section:      "App. B.2",
		Statement:    "C_{L,P,x}(q) − C*_{L,P,x} = ℓ̲^{01}(q,p) − ℓ̲^{01}(p,p) = max p − p_{min argmax q}",
		NegativeName: "ties in argmax q broken to the largest index",
	}, checkCalFnLower, "calFnLower", theory.ExcessZeroOneInnerRisk, zoExcessMaxTie))
}
