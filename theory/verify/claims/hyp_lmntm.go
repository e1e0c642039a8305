package claims

// Hypotheses of the claims of Section 4 (LMNTM risk, composite loss,
// weights), Sections 5.2–5.3 and Appendix D (the probabilistic model of
// LLP), issue 52.

import (
	"fmt"
	"math"
	"math/rand"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

// lmSingularColStoch returns a column-stochastic C×C matrix with two equal
// columns (singular) and no zero row.
func lmSingularColStoch(r *rand.Rand, C int) *mat.Dense {
	T := GenColumnStochastic(r, C)
	i := r.Intn(C)
	j := (i + 1 + r.Intn(C-1)) % C
	for k := 0; k < C; k++ {
		T.Set(k, j, T.At(k, i))
	}
	return T
}

// probeLLPCaliOneSingular re-runs Theorem `llp.cali` with T_1 singular and
// the other groups invertible with positive weight: θ = Σ_i w_i θ̲_{T_i},
// θ̲_{T_1} read as 0 (‖T_1⁻¹‖₁ = ∞).
func probeLLPCaliOneSingular(cfg verify.Config) verify.ProbeResult {
	const label = "llp.cali"
	return verify.Violate(cfg, probeStream(label, "each T_i invertible"),
		"T₁ singular (two equal columns), the other groups' T_i invertible with weights w ∈ Δ^N, N ∈ 2..4, models and f from the claim's generator; θ(ε) = (ε²/2)Σ_{i: T_i invertible} w_i/‖T_i⁻¹‖₁² (with every T_i singular no θ exists: the probe of thm:inv.cali, N = 1)",
		probeLimit, func(r *rand.Rand, size int) lmCaliInput {
			in := lmCaliGen(r, size)
			C := in.model.NumClasses()
			if len(in.Ts) == 1 {
				in.Ts = append(in.Ts, lmInvertibleColStoch(r, C))
				in.w = []float64{0.5, 0.5}
			}
			in.Ts[0] = lmSingularColStoch(r, C)
			if in.w[0] == 1 { // a vertex on the singular group: move half of it
				in.w[0], in.w[1] = 0.5, 0.5
			}
			return in
		}, func(in lmCaliInput) verify.Case {
			md := in.model
			r01, e1 := theory.Risk(theory.ZeroOneLoss, md, in.f)
			b01, e2 := theory.BayesRisk(theory.ZeroOneLoss, md)
			rt, e3 := theory.LMNTMRisk(theory.LogLoss, in.Ts, in.w, md, in.f)
			bt, e4 := theory.LMNTMBayesRisk(theory.LogLoss, in.Ts, in.w, md)
			if err := firstErr(e1, e2, e3, e4); err != nil {
				return verify.Case{OK: true, Detail: err.Error()}
			}
			k := 0.0
			for i, T := range in.Ts[1:] {
				n, err := theory.InvNorm1(T)
				if err != nil {
					continue
				}
				k += in.w[i+1] / (n * n)
			}
			eps := math.Max(0, r01-b01)
			lhs, rhs := k*eps*eps/2, rt-bt
			tol := 1e-13 * (1 + math.Abs(rt))
			detail := fmt.Sprintf("%s: Ts=%v w=%v f=%v: θ(%.6g)=%.6g > R̃−R̃*=%.6g", in.note, lmMats(in.Ts), in.w, in.f, eps, lhs, rhs)
			if rhs < 1e3*tol {
				return verify.Case{OK: lhs <= rhs+tol, Detail: detail}
			}
			return verify.Case{LHS: lhs, RHS: rhs, OK: lhs <= rhs+tol, Detail: detail}
		})
}

// probeLLPCaliNegativeWeight re-runs `llp.cali` with w summing to 1 but
// w₁ < 0: N = 2, T₁ = I, T₂ heavy uniform noise, one point, f = η with its
// two largest entries swapped. R̃ − R̃* = −a·KL(η‖f) + (1+a)·KL(T₂η‖T₂f) can
// be negative while the excess 0-1 risk is positive: no θ ≥ 0 fits.
func probeLLPCaliNegativeWeight(cfg verify.Config) verify.ProbeResult {
	type in struct {
		md *theory.FiniteModel
		Ts []mat.Matrix
		w  []float64
		f  [][]float64
	}
	return verify.Violate(cfg, probeStream("llp.cali", "w ∈ Δ^N"),
		"w = (−a, 1+a), a ∈ [0.2, 1] (Σw = 1, one weight negative), T₁ = I, T₂ = (1−b)I + bN with b ∈ [0.5, 0.95], one point, f = η with its top two entries swapped",
		probeLimit, func(r *rand.Rand, _ int) in {
			C := 2 + r.Intn(3)
			eta := GenSymDirichlet(r, C, 1)
			md := &theory.FiniteModel{Prior: eta, Cond: make([][]float64, C)}
			for c := range md.Cond {
				md.Cond[c] = []float64{1}
			}
			q := append([]float64(nil), eta...)
			a, b := lmTopTwo(q)
			q[a], q[b] = q[b], q[a]
			s := unif(r, 0.2, 1)
			return in{md: md, Ts: []mat.Matrix{GenUniformNoiseT(C, 0), GenUniformNoiseT(C, unif(r, 0.5, 0.95))}, w: []float64{-s, 1 + s}, f: [][]float64{q}}
		}, func(v in) verify.Case {
			r01, _ := theory.Risk(theory.ZeroOneLoss, v.md, v.f)
			b01, _ := theory.BayesRisk(theory.ZeroOneLoss, v.md)
			rhs := lmKLExcess(v.md, v.Ts, v.w, v.f)
			eps := r01 - b01
			bad := eps > 1e-9 && rhs < -1e-12
			return verify.Case{LHS: eps, RHS: rhs, OK: !bad,
				Detail: fmt.Sprintf("η=%v f=%v Ts=%v w=%v: excess 0-1 risk %.6g > 0 but R̃ − R̃* = %.6g < 0", v.md.Prior, v.f, lmMats(v.Ts), v.w, eps, rhs)}
		})
}

// llpCaliThetaEnds evaluates θ of `llp.cali` at the ends of [0, 1] (the
// excess 0-1 risk lies there).
func llpCaliThetaEnds(verify.Config) []verify.EndCheck {
	Ts := []mat.Matrix{GenUniformNoiseT(2, 0.5), GenUniformNoiseT(2, 0)}
	w := []float64{0.5, 0.5}
	t0, _ := theory.LMNTMTheta(Ts, w, 0)
	t1, _ := theory.LMNTMTheta(Ts, w, 1)
	return []verify.EndCheck{
		endAt("ε = 0", verify.AtClosedEnd, fmt.Sprintf("θ(0) = %g", t0), holdsIf(t0 == 0, verify.EndFalse)),
		endAt("ε = 1", verify.AtClosedEnd, fmt.Sprintf("θ(1) = %.4g (T₁ = 0.5I + 0.5N, T₂ = I, w = (½, ½))", t1), holdsIf(t1 > 0 && !math.IsInf(t1, 0), verify.EndUndefined)),
	}
}

// nonNegRowsT returns a random non-negative C×C matrix, every row non-zero,
// columns not summing to 1 (entries uniform in [0, 2], one row in two
// scaled by 10).
func nonNegRowsT(r *rand.Rand, C int) *mat.Dense {
	T := mat.NewDense(C, C, nil)
	for i := 0; i < C; i++ {
		s := 1.0
		if r.Intn(2) == 0 {
			s = 10
		}
		for j := 0; j < C; j++ {
			T.Set(i, j, s*unif(r, 0, 2))
		}
		T.Set(i, r.Intn(C), s*unif(r, 0.1, 2))
	}
	return T
}

// probeLipNonStochastic re-runs Proposition `lip.upper.bd.cel` (‖∇λ‖₂ ≤ √2)
// with T non-negative, rows non-zero, columns not summing to 1.
func probeLipNonStochastic(cfg verify.Config) verify.ProbeResult {
	type in struct {
		T *mat.Dense
		s []float64
		c int
	}
	return verify.Violate(cfg, probeStream("lip.upper.bd.cel", "T column-stochastic"),
		"T non-negative with every row non-zero and columns not summing to 1 (entries in [0, 2], rows scaled by 1 or 10), scores at scales 1e-3 to 1e3",
		probeLimit, func(r *rand.Rand, _ int) in {
			C := 2 + r.Intn(7)
			s := make([]float64, C)
			scale := logUnif(r, 1e-3, 1e3)
			for i := range s {
				s[i] = scale * r.NormFloat64()
			}
			return in{T: nonNegRowsT(r, C), s: s, c: r.Intn(C)}
		}, func(v in) verify.Case {
			g, err := theory.CompositeFCGrad(v.T, v.s, v.c)
			if err != nil {
				return verify.Case{OK: true, Detail: err.Error()}
			}
			n := 0.0
			for _, x := range g {
				n += x * x
			}
			n = math.Sqrt(n)
			return mkCase(n, math.Sqrt2, n <= math.Sqrt2*(1+1e-12), fmt.Sprintf("T=%v s=%v c=%d: ‖∇λ‖₂ = %.6g > √2", lmMatString(v.T), v.s, v.c, n))
		})
}

// probeLipSquare re-runs `lip.upper.bd.cel` with the square loss:
// λ(s,c) = ‖e_c − T softmax(s)‖², its gradient by central differences.
func probeLipSquare(cfg verify.Config) verify.ProbeResult {
	type in struct {
		T *mat.Dense
		s []float64
		c int
	}
	lam := func(T mat.Matrix, s []float64, c int) float64 {
		p, _ := theory.Softmax(s)
		q := mulVec(T, p)
		v := 0.0
		for k, x := range q {
			d := x
			if k == c {
				d = 1 - x
			}
			v += d * d
		}
		return v
	}
	return verify.Violate(cfg, probeStream("lip.upper.bd.cel", "ℓ the log loss"),
		"ℓ the square loss, λ(s,c) = ‖e_c − T softmax(s)‖², column-stochastic T from the claim's generator, the gradient by central differences (step 1e-6)",
		probeLimit, func(r *rand.Rand, size int) in {
			li := lmLipGen(r, size)
			for i := range li.s {
				li.s[i] = math.Max(-30, math.Min(30, li.s[i]))
			}
			return in{T: li.T, s: li.s, c: li.c}
		}, func(v in) verify.Case {
			n := 0.0
			for i := range v.s {
				sp := append([]float64(nil), v.s...)
				sm := append([]float64(nil), v.s...)
				sp[i] += 1e-6
				sm[i] -= 1e-6
				d := (lam(v.T, sp, v.c) - lam(v.T, sm, v.c)) / 2e-6
				n += d * d
			}
			n = math.Sqrt(n)
			return mkCase(n, math.Sqrt2, n <= math.Sqrt2*(1+1e-6), fmt.Sprintf("T=%v s=%v c=%d: ‖∇λ_sq‖₂ ≈ %.6g > √2", lmMatString(v.T), v.s, v.c, n))
		})
}

// lipZeroRowEnds: a column-stochastic T may have a zero row c (allowed by
// the proposition); λ(·, c) = −log 0 = +∞ everywhere, and no real number is
// its Lipschitz constant.
func lipZeroRowEnds(verify.Config) []verify.EndCheck {
	T := mat.NewDense(2, 2, []float64{1, 1, 0, 0})
	v, _ := theory.CompositeFC(T, []float64{0.3, -0.2}, 1)
	return []verify.EndCheck{endAt("T = [1 1; 0 0] (column-stochastic, zero row 2), c = 2", verify.AtClosedEnd,
		fmt.Sprintf("λ(s, 2) = %s for every s: the Lipschitz constant |λ| is undefined", verify.FormatValue(v)), verify.EndUndefined)}
}

// probeLambda0Singular re-runs `lambda0.formula` with a singular T without
// zero rows: the text says invertibility guarantees Σ_j t_{c,j} > 0, but a
// non-zero row suffices.
func probeLambda0Singular(cfg verify.Config) verify.ProbeResult {
	return verify.Violate(cfg, probeStream("lambda0.formula", "T invertible"),
		"T singular column-stochastic (two equal columns, no zero row): max_c |λ(0,c)| by theory.CompositeFC against the closed form, both finite",
		probeLimit, func(r *rand.Rand, _ int) *mat.Dense { return lmSingularColStoch(r, 2+r.Intn(5)) },
		func(T *mat.Dense) verify.Case {
			C, _ := T.Dims()
			closed, err := theory.Lambda0(T)
			if err != nil {
				return verify.Case{Detail: fmt.Sprintf("T=%v: %v", lmMatString(T), err)}
			}
			at := 0.0
			for c := 0; c < C; c++ {
				v, err := theory.CompositeFC(T, make([]float64, C), c)
				if err != nil {
					return verify.Case{Detail: err.Error()}
				}
				at = math.Max(at, math.Abs(v))
			}
			ok := !math.IsInf(closed, 0) && relEq(at, closed, 1e-13)
			return mkCase(at, closed, ok, fmt.Sprintf("T=%v: max_c|λ(0,c)| = %.17g, formula %.17g", lmMatString(T), at, closed))
		})
}

// lambda0ZeroRowEnds: a column-stochastic T with a zero row (outside the
// text's invertible T) gives |λ|₀ = +∞.
func lambda0ZeroRowEnds(verify.Config) []verify.EndCheck {
	T := mat.NewDense(2, 2, []float64{1, 1, 0, 0})
	v, err := theory.Lambda0(T)
	return []verify.EndCheck{endAt("T = [1 1; 0 0] (singular, zero row)", verify.AtOutside,
		fmt.Sprintf("|λ|₀ = %s (%v)", verify.FormatValue(v), err), verify.EndInfinite)}
}

// probeCfmSigma re-runs `sec:cfm prob model` with σ ≠ Γᵀα (the premise of
// the construction dropped): T(i,j) = γ_i(j)α(i)/σ(j) is then not
// column-stochastic.
func probeCfmSigma(cfg verify.Config) verify.ProbeResult {
	type in struct {
		G            *mat.Dense
		alpha, sigma []float64
	}
	return verify.Violate(cfg, probeStream("sec:cfm prob model", "σ = Γᵀα"),
		"σ = Γᵀα moved by a random direction of size 0.05 (renormalized, positive), Γ and α from the claim's generator",
		probeLimit, func(r *rand.Rand, size int) in {
			c := lmCfmGen(r, size)
			C := len(c.alpha)
			s := lmMulVec(c.gamma.T(), c.alpha)
			for j := range s {
				s[j] = math.Max(1e-3, s[j]+0.05*r.NormFloat64())
			}
			_ = C
			return in{G: c.gamma, alpha: c.alpha, sigma: normalize(s)}
		}, func(v in) verify.Case {
			T, err := theory.TransitionMatrix(v.G, v.alpha, v.sigma)
			if err != nil {
				return verify.Case{OK: true, Detail: err.Error()}
			}
			err = theory.CheckColumnStochastic("T", T, 1e-9)
			return verify.Case{OK: err == nil, Detail: fmt.Sprintf("Γ=%v α=%v σ=%v: %v", lmMatString(v.G), v.alpha, v.sigma, err)}
		})
}

// cfmEnds: α(i) = 0 and σ(j) = 0, the ends the construction excludes.
func cfmEnds(verify.Config) []verify.EndCheck {
	G := mat.NewDense(2, 2, []float64{0.8, 0.2, 0.3, 0.7})
	_, err := theory.TransitionMatrix(G, []float64{1, 0}, []float64{0.8, 0})
	return []verify.EndCheck{
		endAt("α = (1, 0)", verify.AtOpenEnd, "P̄_T(·|Ỹ = 2) = P̄_T(·, Ỹ = 2)/α(2) = 0/0: undefined", verify.EndUndefined),
		endAt("σ = (0.8, 0) (σ(2) = 0, excluded by σ(c) ≠ 0, line 275)", verify.AtOpenEnd, fmt.Sprintf("T(i, 2) = γ_i(2)α(i)/0: %v", err), verify.EndUndefined),
	}
}

// dupGroup is a group whose first and last bags have equal proportions and
// σ a positive combination of the distinct ones (Findings, Section 4,
// item 2): some α in the open simplex solves Γᵀα = σ, not uniquely.
type dupGroup struct {
	G     *mat.Dense
	sigma []float64
	alpha []float64
}

func genDupGroup(r *rand.Rand, _ int) dupGroup {
	C := 3 + r.Intn(3)
	G := mat.NewDense(C, C, nil)
	for i := 0; i < C-1; i++ {
		G.SetRow(i, GenSymDirichlet(r, C, 1))
	}
	G.SetRow(C-1, mat.Row(nil, 0, G))
	lam := GenSymDirichlet(r, C-1, 2)
	floorSimplex(lam, 1e-2)
	alpha := make([]float64, C)
	copy(alpha, lam)
	alpha[0], alpha[C-1] = lam[0]/2, lam[0]/2
	return dupGroup{G: G, sigma: lmMulVec(G.T(), alpha), alpha: alpha}
}

// probeCHUnique re-runs the equivalence of `grouping assumption: ch` with
// "unique" dropped from the assumption: ∃α ∈ Δ̊^C with Γᵀα = σ holds on the
// duplicated-bag family while the stated equivalent (linear independence
// and σ in the hull's relative interior) fails.
func probeCHUnique(label string) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Violate(cfg, probeStream(label, "α unique"),
			"two bags of a group with equal proportions, σ a positive combination of the distinct ones: α in the open simplex exists, not uniquely (the assumption without \"unique\" holds)",
			probeLimit, genDupGroup, func(g dupGroup) verify.Case {
				eq, err := theory.AssumptionCH(g.G, g.sigma)
				if err != nil {
					return verify.Case{OK: true, Detail: err.Error()}
				}
				exists := inSimplexOpen(g.alpha) && lmResidual(g.G, g.alpha, g.sigma) < 1e-12
				return verify.Case{OK: exists == eq,
					Detail: fmt.Sprintf("Γ=%v σ=%v: α=%v ∈ Δ̊ solves Γᵀα = σ (the assumption without uniqueness holds) but the stated equivalent says %v", lmMatString(g.G), g.sigma, g.alpha, eq)}
			})
	}
}

func inSimplexOpen(a []float64) bool {
	for _, v := range a {
		if !(v > 0) {
			return false
		}
	}
	return math.Abs(sum(a)-1) < 1e-12
}

// lmResidual is ‖Γᵀα − σ‖∞.
func lmResidual(G mat.Matrix, alpha, sigma []float64) float64 {
	v := lmMulVec(G.T(), alpha)
	m := 0.0
	for i := range v {
		m = math.Max(m, math.Abs(v[i]-sigma[i]))
	}
	return m
}

// chAlphaEnds evaluates the equivalence at the open end of α ∈ Δ̊^C: σ on a
// face of the hull (α with a zero entry). With the open simplex the
// assumption fails there, and so does the equivalent; read with the closed
// simplex (the end included), the assumption would hold while σ lies on the
// hull's relative boundary: the equivalence would be false.
func chAlphaEnds(verify.Config) []verify.EndCheck {
	G := mat.NewDense(3, 3, []float64{0.7, 0.2, 0.1, 0.1, 0.7, 0.2, 0.2, 0.1, 0.7})
	decide := func(alpha []float64) (ok, in bool, err error) {
		sigma := lmMulVec(G.T(), alpha)
		ok, err = theory.AssumptionCH(G, sigma)
		in, _, err2 := theory.HullInterior(G, sigma)
		return ok, in, firstErr(err, err2)
	}
	face := []float64{0.5, 0.5, 0}
	ok, in, err := decide(face)
	closedFalse := !ok && !in && err == nil // α solves Γᵀα = σ, so the closed-simplex assumption holds; the equivalent does not
	inside := []float64{0.5 - 5e-7, 0.5 - 5e-7, 1e-6}
	ok2, in2, err2 := decide(inside)
	return []verify.EndCheck{
		endAt("α = (½, ½, 0) (a face)", verify.AtOpenEnd, fmt.Sprintf("the assumption (open simplex) %v, σ in the hull's relative interior %v%s; with the end included the assumption holds and the equivalence fails", ok, in, errNote(err)),
			holdsIf(!closedFalse, verify.EndFalse)),
		endAt("α = (½−5e-7, ½−5e-7, 1e-6)", verify.AtJustInside, fmt.Sprintf("the assumption %v, σ in the relative interior %v%s", ok2, in2, errNote(err2)), holdsIf(ok2 && in2 && err2 == nil, verify.EndFalse)),
	}
}

// hmInput is a case of `hm.weights.optimal`: sizes and a competitor.
type hmInput struct {
	n    [][]float64
	comp []float64
}

// hmCase checks the HM weights' value against the competitor's.
func hmCase(v hmInput) verify.Case {
	w, val, err := theory.HMWeights(v.n)
	if err != nil {
		return verify.Case{Detail: err.Error()}
	}
	b, err := theory.WeightTerm(v.comp, v.n)
	if err != nil { // a competitor outside Δ^N: the term by its formula
		s := 0.0
		for i, row := range v.n {
			for _, k := range row {
				s += v.comp[i] * v.comp[i] / k
			}
		}
		b = math.Sqrt(s)
	}
	return mkCase(val, b, val <= b*(1+1e-12), fmt.Sprintf("n=%v: HM weights %v give %.12g > competitor %v %.12g", v.n, w, val, v.comp, b))
}

// genHM draws N ∈ 2..6 groups of C ∈ 2..5 sizes (integers in 1..1000, or,
// with real, positive reals in [0.05, 1000]) and a competitor with Σw = 1,
// entries in [−2, 3] (outside Δ^N) or, without affine, in Δ^N.
func genHM(r *rand.Rand, real, affine bool) hmInput {
	N, C := 2+r.Intn(5), 2+r.Intn(4)
	v := hmInput{n: make([][]float64, N), comp: make([]float64, N)}
	for i := range v.n {
		v.n[i] = make([]float64, C)
		for c := range v.n[i] {
			if real {
				v.n[i][c] = logUnif(r, 0.05, 1000)
			} else {
				v.n[i][c] = float64(1 + r.Intn(1000))
			}
		}
	}
	if affine {
		for i := range v.comp {
			v.comp[i] = unif(r, -2, 3)
		}
		v.comp[0] += 1 - sum(v.comp)
	} else {
		v.comp = GenSymDirichlet(r, N, 1)
	}
	return v
}

// probeHMAffine re-runs `hm.weights.optimal` over weights with Σw = 1 and
// negative entries allowed (the affine hull of Δ^N).
func probeHMAffine(cfg verify.Config) verify.ProbeResult {
	return verify.Violate(cfg, probeStream("hm.weights.optimal", "w ∈ Δ^N"),
		"competitors w with Σw = 1 and entries in [−2, 3] (outside Δ^N), sizes n_{i,c} ∈ 1..1000, N ∈ 2..6, C ∈ 2..5",
		probeLimit, func(r *rand.Rand, _ int) hmInput { return genHM(r, false, true) }, hmCase)
}

// probeHMReal re-runs it with real, non-integer sizes n_{i,c} > 0.
func probeHMReal(cfg verify.Config) verify.ProbeResult {
	return verify.Violate(cfg, probeStream("hm.weights.optimal", "n_{i,c} ∈ ℕ"),
		"sizes n_{i,c} positive reals in [0.05, 1000] (not integers), competitors in Δ^N",
		probeLimit, func(r *rand.Rand, _ int) hmInput { return genHM(r, true, false) }, hmCase)
}

// hmEnds: one group's sizes growing without bound (the text: the term
// vanishes when ∃i ∀c n_{i,c} → ∞).
func hmEnds(verify.Config) []verify.EndCheck {
	n := [][]float64{{1, 1}, {1 << 40, 1 << 40}}
	_, v, _ := theory.HMWeights(n)
	return []verify.EndCheck{endAt("n_{2,c} = 2⁴⁰, n_{1,c} = 1", verify.AtJustInside, fmt.Sprintf("√(C/ΣHM_i) = %.3g → 0", v), holdsIf(v < 1e-5, verify.EndFalse))}
}

// empProbeInput is a case of `llpfc-ideal: empirical risk` with the exact
// expectation of R̂ under a sampling scheme.
type empProbeInput struct{ lmEmpInput }

// empExpect returns E_S R̂ exactly when the points of class c in group i are
// drawn from cond(i, c) (and, for copies, all n_{i,c} of them are one draw:
// by linearity the expectation is the same).
func empExpect(in lmEmpInput, cond func(i, c int, noisy *theory.FiniteModel) []float64) (got, want float64, err error) {
	md := in.model
	want, err = theory.LMNTMRisk(theory.LogLoss, in.Ts, in.w, md, in.f)
	if err != nil {
		return 0, 0, err
	}
	for i, T := range in.Ts {
		noisy, err := md.Noisy(T)
		if err != nil {
			return 0, 0, err
		}
		for c, a := range noisy.Prior {
			q := cond(i, c, noisy)
			e := 0.0
			for x, px := range q {
				if px == 0 {
					continue
				}
				l, err := theory.ForwardCorrected(theory.LogLoss, T, in.f[x], c)
				if err != nil {
					return 0, 0, err
				}
				e += px * l
			}
			got += in.w[i] * a * e // (α/n)·Σ_j E ℓ = α·E ℓ for every n ≥ 1
		}
	}
	return got, want, nil
}

func probeEmpClean(cfg verify.Config) verify.ProbeResult {
	return verify.Violate(cfg, probeStream("llpfc-ideal: empirical risk", "X_{i,c,j} ~ P_{T_i}(·|c)"),
		"X_{i,c,j} drawn from the clean class-conditional P_c in place of P_{T_i}(·|c), the rest from the claim's generator; E_S R̂ exact",
		probeLimit, lmEmpGen, func(in lmEmpInput) verify.Case {
			got, want, err := empExpect(in, func(_, c int, _ *theory.FiniteModel) []float64 { return in.model.Cond[c] })
			if err != nil {
				return verify.Case{OK: true, Detail: err.Error()}
			}
			return mkCase(got, want, relEq(got, want, 1e-10), fmt.Sprintf("σ=%v Ts=%v w=%v: E R̂ = %.12g ≠ R̃ = %.12g", in.model.Prior, lmMats(in.Ts), in.w, got, want))
		})
}

func probeEmpCopies(cfg verify.Config) verify.ProbeResult {
	return verify.Violate(cfg, probeStream("llpfc-ideal: empirical risk", "X_{i,c,j} mutually independent"),
		"the n_{i,c} points of class c in group i all one draw from P_{T_i}(·|c) (perfectly dependent copies), the rest from the claim's generator; E_S R̂ exact",
		probeLimit, lmEmpGen, func(in lmEmpInput) verify.Case {
			got, want, err := empExpect(in, func(_, c int, noisy *theory.FiniteModel) []float64 { return noisy.Cond[c] })
			if err != nil {
				return verify.Case{OK: true, Detail: err.Error()}
			}
			return mkCase(got, want, relEq(got, want, 1e-10), fmt.Sprintf("σ=%v Ts=%v w=%v: E R̂ = %.12g ≠ R̃ = %.12g", in.model.Prior, lmMats(in.Ts), in.w, got, want))
		})
}

func init() {
	const cali = "llp.cali"
	verify.RegisterHypotheses(cali,
		hypStrictlyProper(cali, 213), hypContinuous(213),
		verify.Hypothesis{Name: "each T_i invertible", Kind: verify.HypMatrix, Line: 213, Text: "a sequence of invertible column-stochastic matrices 𝒯 = {T_i} (invertibility)",
			Probe: probeLLPCaliOneSingular, Expect: verify.NotNeeded},
		hypColStoch(cali, 213, "a sequence of invertible column-stochastic matrices 𝒯 = {T_i} (column sums 1; N = 1)"),
		verify.Hypothesis{Name: "w ∈ Δ^N", Kind: verify.HypRange, Line: 213, Text: "Let w = (w_i) ∈ Δ^N",
			Range: &verify.Range{Param: "w", Printed: "w ∈ Δ^N"}, Probe: probeLLPCaliNegativeWeight, Expect: verify.Needed},
		verify.Hypothesis{Name: "R*_{ℓ_{T_i},P_{T_i}} < ∞", Kind: verify.HypDistribution, Line: 215, Text: "Assume ∀i, R*_{ℓ_{T_i},P_{T_i}} < ∞",
			Why: "on a finite 𝒳 the Bayes risks of the log and square losses are at most log C and 1; no loss with an infinite Bayes risk is implemented"},
		verify.Hypothesis{Name: "θ: [0,1] → [0,∞]", Kind: verify.HypRange, Line: 215, Text: "a strictly increasing continuous function θ: [0,1] → [0,∞] with θ(0) = 0",
			Range: &verify.Range{Param: "ε (θ's argument)", Printed: "θ: [0, 1] → [0, ∞]", Lo: "0", Hi: "1", Ends: llpCaliThetaEnds}, Expect: verify.NotProbeable},
	)
	verify.RegisterHypotheses("lip.upper.bd.cel",
		verify.Hypothesis{Name: "ℓ the log loss", Kind: verify.HypLoss, Line: 262, Text: "Let ℓ be the log loss",
			Probe: probeLipSquare, Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "ψ⁻¹ the softmax", Kind: verify.HypLoss, Line: 262, Text: "ψ⁻¹ be the softmax function",
			Why: "the softmax is the only link implemented; the composite loss of another link is another statement"},
		verify.Hypothesis{Name: "T column-stochastic", Kind: verify.HypMatrix, Line: 262, Text: "T be a column-stochastic matrix",
			Range: &verify.Range{Param: "T", Printed: "T column-stochastic", Lo: "a zero row", Hi: "—", Ends: lipZeroRowEnds},
			Probe: probeLipNonStochastic, Expect: verify.NotNeeded},
	)
	verify.RegisterHypotheses("lambda0.formula",
		verify.Hypothesis{Name: "T invertible", Kind: verify.HypMatrix, Line: 265, Text: "The invertibility of T guarantees Σ_j t_{c,j} is positive and hence the finiteness of |λ_{ℓ_T}|₀",
			Range: &verify.Range{Param: "T", Printed: "T invertible column-stochastic", Lo: "a zero row", Hi: "—", Ends: lambda0ZeroRowEnds},
			Probe: probeLambda0Singular, Expect: verify.NotNeeded},
	)
	verify.RegisterHypotheses("sec:cfm prob model",
		verify.Hypothesis{Name: "σ = Γᵀα", Kind: verify.HypGrouping, Line: 293, Text: "∃ unique α ∈ Δ̊^C s.t. Γᵀα = σ (Assumption grouping assumption: ch; App. D: \"Let T be a stochastic matrix\", line 1801)",
			Probe: probeCfmSigma, Expect: verify.Needed},
		verify.Hypothesis{Name: "α(i) > 0, σ(c) ≠ 0", Kind: verify.HypRange, Line: 275, Text: "Assume ∀c ∈ 𝒴, σ(c) ≠ 0 (line 275); α ∈ Δ̊^C (line 293)",
			Range: &verify.Range{Param: "α, σ", Printed: "α ∈ Δ̊^C, σ(c) > 0", Lo: "0", Hi: "—", LoOpen: true, Ends: cfmEnds}, Expect: verify.Needed},
	)
	for _, l := range []struct {
		label string
		line  int
	}{{"grouping assumption: ch", 293}, {"grouping assumption all groups", 322}} {
		verify.RegisterHypotheses(l.label,
			verify.Hypothesis{Name: "α unique", Kind: verify.HypGrouping, Line: l.line, Text: "∃ unique α ∈ Δ̊^C s.t. Γᵀα = σ (uniqueness; the equivalent, line 306: {γ_i} linearly independent and σ in the interior of their hull)",
				Probe: probeCHUnique(l.label), Expect: verify.Needed},
			verify.Hypothesis{Name: "α ∈ Δ̊^C", Kind: verify.HypRange, Line: l.line, Text: "∃ unique α ∈ Δ̊^C (the open simplex)",
				Range: &verify.Range{Param: "α", Printed: "α ∈ Δ̊^C", Lo: "the boundary of Δ^C", Hi: "—", LoOpen: true, Ends: chAlphaEnds}, Expect: verify.Needed},
		)
	}
	verify.RegisterHypotheses("hm.weights.optimal",
		verify.Hypothesis{Name: "w ∈ Δ^N", Kind: verify.HypRange, Line: 213, Text: "w = (w_i) ∈ Δ^N (the weights the term is optimized over, line 259)",
			Range: &verify.Range{Param: "w", Printed: "w ∈ Δ^N", Ends: hmEnds}, Probe: probeHMAffine, Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "n_{i,c} ∈ ℕ", Kind: verify.HypRange, Line: 206, Text: "n_{i,c} ∈ ℕ is the number of data points drawn from P_{T_i}(·|c)",
			Range: &verify.Range{Param: "n_{i,c}", Printed: "n_{i,c} ∈ ℕ"}, Probe: probeHMReal, Expect: verify.NotNeeded},
	)
	verify.RegisterHypotheses("llpfc-ideal: empirical risk",
		verify.Hypothesis{Name: "X_{i,c,j} ~ P_{T_i}(·|c)", Kind: verify.HypSampling, Line: 206, Text: "X_{i,c,j} iid ~ P_{T_i}(·|c)",
			Probe: probeEmpClean, Expect: verify.Needed},
		verify.Hypothesis{Name: "X_{i,c,j} mutually independent", Kind: verify.HypSampling, Line: 206, Text: "Assume all X_{i,c,j}'s are mutually independent",
			Probe: probeEmpCopies, Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "n_{i,c} ∈ ℕ", Kind: verify.HypRange, Line: 206, Text: "n_{i,c} ∈ ℕ",
			Range: &verify.Range{Param: "n_{i,c}", Printed: "n_{i,c} ∈ ℕ = {1, 2, …}", Lo: "1", Hi: "∞", HiOpen: true, Ends: func(verify.Config) []verify.EndCheck {
				return []verify.EndCheck{
					endAt("n_{i,c} = 1", verify.AtClosedEnd, "R̂ has one term α_i(c)ℓ_{T_i}(f(X), c) per (i, c): unbiased", verify.EndHolds),
					endAt("n_{i,c} = 0", verify.AtOutside, "α_i(c)/0 · (an empty sum): undefined", verify.EndUndefined),
				}
			}}, Expect: verify.Needed},
	)
}
