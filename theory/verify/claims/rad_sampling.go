package claims

// The probabilistic generalization bounds of Section 4.3 and Appendix C —
// Lemma `rad.lips.lemma`, Lemma `lemma: gen` and Theorem `thm: geb` — checked
// by simulation on a finite feature space X with known class conditionals.
//
// One case is one LMNTM problem generated from the LLP model of Section 5
// (clean class conditionals P_j on X; per group i a bag-proportion matrix
// Γ_i, noisy prior α_i, T_i = TransitionMatrix(Γ_i, α_i, Γ_iᵀα_i) and noisy
// class conditionals P_{T_i}(·|c) = Σ_j Γ_i(c,j)P_j), a confidence level δ and
// a function class. Inside a case, radDraws samples S are drawn; for each the
// exact deviation sup_g |R̂_{w,S}(g) − R̃(g)| is computed (R̃ in closed form
// from the known distributions). The bound must be exceeded in at most
// k*−1 of the draws, where k* is the smallest k with P(Bin(radDraws, δ) ≥ k)
// ≤ 1e-6 (an exact one-sided binomial test at level 1e-6 per case, so a true
// bound fails a 500-case run with probability ≤ 5e-4). The reported ratio is
// the largest deviation seen divided by the bound: how tight the bound came.
//
// The Lipschitz constants |λ_i| are √2 (Proposition `lip.upper.bd.cel`) in
// half of the cases and a numerical lower estimate of the smallest constant
// in the other half (see radDrawProblem).
//
// Rademacher terms E_{S,ε}[…] are Monte Carlo estimates over radDraws joint
// draws of (S, ε); the bound is evaluated with the estimate minus 4 standard
// errors (floored at 0), i.e. made smaller, so a pass is not an artefact of
// Monte Carlo noise. Sums of Rademacher signs over the sample points that
// fall on the same x ∈ X are drawn exactly as 2·Bin(k, ½) − k.

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand"
	"sort"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

// radDraws is the number of samples S (and of joint (S, ε) draws for the
// Rademacher terms) per case.
const radDraws = 150

// radLevel is the per-case false-alarm level of the binomial test.
const radLevel = 1e-6

// radCritical returns k*: the smallest k with P(Bin(n, δ) ≥ k) ≤ radLevel.
func radCritical(n int, delta float64) int {
	b := distuv.Binomial{N: float64(n), P: delta}
	for k := 1; k <= n; k++ {
		if b.Survival(float64(k-1)) <= radLevel { // P(X ≥ k) = P(X > k−1)
			return k
		}
	}
	return n + 1
}

// radProblem is one simulated LMNTM problem on a finite X.
type radProblem struct {
	set   theory.LMNTMSetting
	T     []*mat.Dense
	P     [][][]float64 // P[i][c][x] = P_{T_i}(x | c)
	K     int           // |X|
	delta float64
}

// radDrawProblem draws a problem with C classes, N ∈ {1,2} groups, |X| = K
// and n_{i,c} log-uniform in [nLo, nHi].
func radDrawProblem(r *rand.Rand, C, K int, nLo, nHi float64) radProblem {
	N := 1 + r.Intn(2)
	pr := radProblem{K: K}
	deltas := []float64{0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 1}
	pr.delta = deltas[r.Intn(len(deltas))]
	clean := make([][]float64, C)
	for j := range clean {
		clean[j] = radSimplex(r, K, true)
	}
	var Ts []mat.Matrix
	var alphas [][]float64
	var ns [][]int
	for i := 0; i < N; i++ {
		// Γ_i: rows are bag label proportions, diagonally dominant so that Γ_i
		// (hence T_i) is invertible.
		gamma := mat.NewDense(C, C, nil)
		for c := 0; c < C; c++ {
			row := radSimplex(r, C, r.Intn(2) == 0)
			d := 0.3 + 0.6*r.Float64()
			gamma.SetRow(c, towardVertex(row, 1-d, d, c))
		}
		alpha := radSimplex(r, C, false)
		T := must(theory.TransitionMatrix(gamma, alpha, mulVec(gamma.T(), alpha))) // σ = Γᵀα
		Ts = append(Ts, T)
		pr.T = append(pr.T, T)
		alphas = append(alphas, alpha)
		var n []int
		Pi := make([][]float64, C)
		for c := 0; c < C; c++ {
			n = append(n, int(math.Round(logUnif(r, nLo, nHi))))
			Pi[c] = make([]float64, K)
			for j := 0; j < C; j++ {
				for x := 0; x < K; x++ {
					Pi[c][x] += gamma.At(c, j) * clean[j][x]
				}
			}
		}
		ns = append(ns, n)
		pr.P = append(pr.P, Pi)
	}
	set := must(theory.NewLogLossSetting(Ts, radSimplex(r, N, false), alphas, ns))
	if r.Intn(2) == 0 {
		// The theorem's |λ_i| is the smallest Lipschitz constant; √2 (Proposition
		// `lip.upper.bd.cel`) only bounds it. In half of the cases use instead a
		// numerical lower estimate of the smallest constant
		// (theory.EstimateLipschitzCompositeFC): the bounds increase with |λ_i|,
		// so this makes the checked right side no larger than the stated one.
		for i, T := range Ts {
			set.Lip[i] = must(theory.EstimateLipschitzCompositeFC(T, radV2(r), 40, 30))
		}
	}
	pr.set = set
	return pr
}

// radSampler draws sample counts and Rademacher sums for a radProblem.
type radSampler struct {
	r *rand.Rand
}

// counts draws cnt[x] ~ Multinomial(n, p) by sequential binomials.
func (s radSampler) counts(n int, p []float64, cnt []int) {
	left, mass := n, 1.0
	for x := range p {
		if x == len(p)-1 || left == 0 {
			cnt[x] = left
			for y := x + 1; y < len(p); y++ {
				cnt[y] = 0
			}
			return
		}
		q := p[x] / mass
		if q > 1 {
			q = 1
		}
		k := 0
		if q > 0 {
			k = int(distuv.Binomial{N: float64(left), P: q, Src: s.r}.Rand())
		}
		cnt[x] = k
		left -= k
		mass -= p[x]
	}
}

// radSignSum draws Σ_{j=1}^k ε_j = 2·Bin(k, ½) − k exactly: for k ≤ 512 as
// the number of ones among k fair random bits, counted 64 at a time; for
// larger k from gonum's binomial sampler.
func (s radSampler) radSignSum(k int) float64 {
	if k > 512 {
		return 2*distuv.Binomial{N: float64(k), P: 0.5, Src: s.r}.Rand() - float64(k)
	}
	ones, n := 0, k
	for n >= 64 {
		ones += bits.OnesCount64(s.r.Uint64())
		n -= 64
	}
	if n > 0 {
		ones += bits.OnesCount64(s.r.Uint64() & (1<<uint(n) - 1))
	}
	return float64(2*ones - k)
}

// radFinClass is a finite class of ℝ^C-valued functions on X and the table
// of its losses.
type radFinClass struct {
	vals [][][]float64   // vals[g][x] ∈ ℝ^C
	loss [][][][]float64 // loss[g][i][c][x] = λ_{ℓ_{T_i}}(g(x), c)
	A    float64         // max_{g,x} ‖g(x)‖₂
}

func radBuildLosses(pr radProblem, vals [][][]float64) [][][][]float64 {
	C := pr.set.NumClasses()
	out := make([][][][]float64, len(vals))
	for g := range vals {
		out[g] = make([][][]float64, len(pr.T))
		for i, T := range pr.T {
			out[g][i] = make([][]float64, C)
			for c := 0; c < C; c++ {
				out[g][i][c] = make([]float64, pr.K)
				for x := 0; x < pr.K; x++ {
					out[g][i][c][x] = must(theory.CompositeFC(T, vals[g][x], c))
				}
			}
		}
	}
	return out
}

// radDrawClass draws |G| ∈ [1,5] functions with ‖g(x)‖₂ ≤ A: random points
// of the ball, and (adversarially) ±A along (1,−1,0…)/√2, the direction in
// which the composite loss is steepest.
func radDrawClass(r *rand.Rand, pr radProblem) radFinClass {
	C := pr.set.NumClasses()
	A := logUnif(r, 0.3, 8)
	G := 1 + r.Intn(5)
	fc := radFinClass{}
	for g := 0; g < G; g++ {
		f := make([][]float64, pr.K)
		steep := r.Intn(2) == 0
		for x := range f {
			if steep {
				v := make([]float64, C)
				s := A / math.Sqrt2
				if r.Intn(2) == 0 {
					s = -s
				}
				v[0], v[1] = s, -s
				f[x] = v
			} else {
				f[x] = radBallPoint(r, C, A, r.Intn(2) == 0)
			}
		}
		fc.vals = append(fc.vals, f)
	}
	for _, f := range fc.vals {
		for _, v := range f {
			fc.A = math.Max(fc.A, math.Sqrt(radDot(v, v)))
		}
	}
	fc.loss = radBuildLosses(pr, fc.vals)
	return fc
}

// radDeviation returns max_g |R̂_{w,S}(g) − R̃(g)| for one sample given by
// its counts cnt[i][c][x], with losses[g][i][c][x].
func radDeviation(pr radProblem, losses [][][][]float64, cnt [][][]int) float64 {
	worst := 0.0
	for g := range losses {
		d := 0.0
		for i := range pr.T {
			for c, n := range pr.set.N[i] {
				wa := pr.set.W[i] * pr.set.Alpha[i][c]
				for x := 0; x < pr.K; x++ {
					d += wa * (float64(cnt[i][c][x])/float64(n) - pr.P[i][c][x]) * losses[g][i][c][x]
				}
			}
		}
		worst = math.Max(worst, math.Abs(d))
	}
	return worst
}

func radNewCounts(pr radProblem) [][][]int {
	cnt := make([][][]int, len(pr.T))
	for i := range cnt {
		cnt[i] = make([][]int, pr.set.NumClasses())
		for c := range cnt[i] {
			cnt[i][c] = make([]int, pr.K)
		}
	}
	return cnt
}

func (s radSampler) drawCounts(pr radProblem, cnt [][][]int) {
	for i := range cnt {
		for c := range cnt[i] {
			s.counts(pr.set.N[i][c], pr.P[i][c], cnt[i][c])
		}
	}
}

// radMeanSE returns the mean of xs and its standard error.
func radMeanSE(xs []float64) (float64, float64) {
	m := sum(xs) / float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, math.Sqrt(v / float64(len(xs)-1) / float64(len(xs)))
}

// radRadLoss estimates E_{S,ε} max_g Σ_i w_i Σ_c α_i(c)/n_{i,c} Σ_j ε_{i,c,j}
// λ_{ℓ_{T_i}}(g(X_{i,c,j}), c) (Lemma `rad.lips.lemma`) and returns the
// estimate minus 4 standard errors, floored at 0.
func radRadLoss(pr radProblem, fc radFinClass, s radSampler) float64 {
	return radRadEstimate(pr, s, len(fc.loss), 1, func(i, c int) float64 {
		return pr.set.W[i] * pr.set.Alpha[i][c] / float64(pr.set.N[i][c])
	}, func(g, i, c, x, _ int) float64 { return fc.loss[g][i][c][x] })
}

// radRadVec estimates E_{S,ε} max_g Σ_i w_i|λ_i| Σ_c α_i(c)/n_{i,c} Σ_j Σ_{c'}
// ε_{i,c,j,c'} g_{c'}(X_{i,c,j}) (Lemma `lemma: gen`), minus 4 standard
// errors, floored at 0.
func radRadVec(pr radProblem, fc radFinClass, s radSampler) float64 {
	return radRadEstimate(pr, s, len(fc.vals), pr.set.NumClasses(), func(i, c int) float64 {
		return pr.set.W[i] * pr.set.Lip[i] * pr.set.Alpha[i][c] / float64(pr.set.N[i][c])
	}, func(g, _, _, x, cp int) float64 { return fc.vals[g][x][cp] })
}

// radRadEstimate is the Monte Carlo estimate of both: over radDraws joint
// draws of (S, ε), max over the G functions g of Σ_{i,c} coef(i,c) Σ_x Σ_{k<width}
// (sum of the signs of the points of S at x) · val(g,i,c,x,k), minus 4
// standard errors, floored at 0.
func radRadEstimate(pr radProblem, s radSampler, G, width int, coef func(i, c int) float64, val func(g, i, c, x, k int) float64) float64 {
	return radRadEstimateSide(pr, s, G, width, coef, val, -4)
}

// radRadEstimateSide is the estimate plus side standard errors (floored at
// 0): −4 for the claims' checks (a right side made smaller), +4 for a
// probe's judge confirming a counterexample (a right side made larger).
func radRadEstimateSide(pr radProblem, s radSampler, G, width int, coef func(i, c int) float64, val func(g, i, c, x, k int) float64, side float64) float64 {
	cnt := radNewCounts(pr)
	C := pr.set.NumClasses()
	sums := make([]float64, len(pr.T)*C*pr.K*width)
	vals := make([]float64, radDraws)
	for d := range vals {
		s.drawCounts(pr, cnt)
		k := 0
		for i := range pr.T {
			for c := 0; c < C; c++ {
				for x := 0; x < pr.K; x++ {
					for cp := 0; cp < width; cp++ {
						sums[k] = s.radSignSum(cnt[i][c][x])
						k++
					}
				}
			}
		}
		best := math.Inf(-1)
		for g := 0; g < G; g++ {
			v, k := 0.0, 0
			for i := range pr.T {
				for c := 0; c < C; c++ {
					a := coef(i, c)
					for x := 0; x < pr.K; x++ {
						for cp := 0; cp < width; cp++ {
							v += a * sums[k] * val(g, i, c, x, cp)
							k++
						}
					}
				}
			}
			best = math.Max(best, v)
		}
		vals[d] = best
	}
	m, se := radMeanSE(vals)
	return math.Max(0, m+side*se)
}

// radRadLossUpper and radRadVecUpper are radRadLoss and radRadVec plus 4
// standard errors: the Rademacher terms a judge confirms a counterexample
// against.
func radRadLossUpper(pr radProblem, fc radFinClass, s radSampler) float64 {
	return radRadEstimateSide(pr, s, len(fc.loss), 1, func(i, c int) float64 {
		return pr.set.W[i] * pr.set.Alpha[i][c] / float64(pr.set.N[i][c])
	}, func(g, i, c, x, _ int) float64 { return fc.loss[g][i][c][x] }, 4)
}

func radRadVecUpper(pr radProblem, fc radFinClass, s radSampler) float64 {
	return radRadEstimateSide(pr, s, len(fc.vals), pr.set.NumClasses(), func(i, c int) float64 {
		return pr.set.W[i] * pr.set.Lip[i] * pr.set.Alpha[i][c] / float64(pr.set.N[i][c])
	}, func(g, _, _, x, cp int) float64 { return fc.vals[g][x][cp] }, 4)
}

// radSimulate draws radDraws samples and returns the case verdict against
// the bound rhs: the number of violations must stay below k*.
func radSimulate(pr radProblem, losses [][][][]float64, s radSampler, rhs float64, detail string) verify.Case {
	cnt := radNewCounts(pr)
	viol, worst := 0, 0.0
	for d := 0; d < radDraws; d++ {
		s.drawCounts(pr, cnt)
		dev := radDeviation(pr, losses, cnt)
		worst = math.Max(worst, dev)
		if dev > rhs {
			viol++
		}
	}
	k := radCritical(radDraws, pr.delta)
	return verify.Case{LHS: worst, RHS: rhs, OK: viol < k,
		Detail: fmt.Sprintf("δ=%g: %d of %d draws exceed the bound %.6g (allowed < %d); %s", pr.delta, viol, radDraws, rhs, k, detail)}
}

func radProblemDetail(pr radProblem) string {
	return fmt.Sprintf("w=%v α=%v n=%v |λ|₀=%v P=%v", pr.set.W, pr.set.Alpha, pr.set.N, pr.set.Lip0, pr.P)
}

// radBoundFn is an implementation under test of one of the three bounds:
// given the setting, δ, A, and the class-dependent term (the Rademacher
// estimate for the two lemmas, the class constant B for the theorem).
type radBoundFn func(s theory.LMNTMSetting, delta, A, classTerm float64) float64

// radSquaredN returns s with every n_{i,c} replaced by n_{i,c}²: evaluated
// on it, a bound's √(Σ …/n_{i,c}) becomes √(Σ …/n_{i,c}²) — a 1/n rate
// instead of 1/√n, the negative control of the three bounds.
func radSquaredN(s theory.LMNTMSetting) theory.LMNTMSetting {
	t := s
	t.N = make([][]int, len(s.N))
	for i, row := range s.N {
		for _, n := range row {
			t.N[i] = append(t.N[i], n*n)
		}
	}
	return t
}

// radRateConc is the negative control of the lemmas: the McDiarmid term with
// n_{i,c}² in place of n_{i,c}, plus the Rademacher term with the given
// factor.
func radRateConc(factor float64) radBoundFn {
	return func(s theory.LMNTMSetting, delta, A, rad float64) float64 {
		return must(radSquaredN(s).ConcentrationTerm(delta, A)) + factor*rad
	}
}

func init() {
	register(
		tested(verify.Claim{
			Label:      "rad.lips.lemma",
			Kind:       verify.Theorem,
			RatioFloor: 0.5,
			Section:    "App. C",
			Statement: "w.p. ≥ 1−δ: sup_g |R̂_{w,S}(g) − R̃(g)| ≤ √(2log(2/δ)Σ_iΣ_c w_i²α_i(c)²/n_{i,c}(|λ_i|A+|λ_i|₀)²) " +
				"+ 2E_{S,ε} sup_g Σ_i w_iΣ_c α_i(c)/n_{i,c} Σ_j ε λ_{ℓ_{T_i}}(g(X_{i,c,j}),c)",
			NegativeName: "McDiarmid term with n_{i,c}² in place of n_{i,c} (a 1/n rate instead of 1/√n)",
		}, radSampledWith(radRadLoss), "rad.lips.lemma", radBound(theory.RadLipsBound), radRateConc(2)),
		also(tested(verify.Claim{
			Label:      "lemma: gen",
			Kind:       verify.Theorem,
			RatioFloor: 0.35,
			Section:    "App. C",
			Statement: "w.p. ≥ 1−δ: sup_g |R̂_{w,S}(g) − R̃(g)| ≤ √(2log(2/δ)Σ_iΣ_c w_i²α_i(c)²/n_{i,c}(|λ_i|A+|λ_i|₀)²) " +
				"+ 2√2·E_{S,ε} sup_g Σ_i w_i|λ_i|Σ_c α_i(c)/n_{i,c} Σ_jΣ_{c'} ε g_{c'}(X_{i,c,j}) (corrected: the paper has 2)",
			PartFloors:   map[string]float64{"lemma: gen/from rad.lips": 0.99},
			NegativeName: "McDiarmid term with n_{i,c}² in place of n_{i,c} (a 1/n rate instead of 1/√n)",
		}, radSampledWith(radRadVec), "lemma: gen", radBound(theory.LemmaGenBound), radRateConc(2*math.Sqrt2)), checkRadLipsChain),
		also(tested(verify.Claim{
			Label:      "thm: geb",
			Kind:       verify.Theorem,
			RatioFloor: 0.1,
			Section:    "§4.3",
			Statement: "w.p. ≥ 1−δ: sup_{g∈𝒢_q} |R̂_{w,S}(g) − R̃(g)| ≤ (max_i(|λ_i|A_q+|λ_i|₀)√(2log(2/δ)) + C·B_q·max_i|λ_i|)·√(Σ_iΣ_c w_i²/n_{i,c}), " +
				"B_1 = 2√2RK (RKHS), B_2 = 2√2α2^{m−1}β^m (MLP, m ∈ {1,2}); log loss, softmax link",
			PartFloors:   map[string]float64{"thm: geb": 0.08, "thm: geb/chain-rkhs": 0.99, "thm: geb/chain-mlp1": 0.99, "thm: geb/chain-conc": 0.99},
			NegativeName: "√(Σ_iΣ_c w_i²/n_{i,c}²) in place of √(Σ_iΣ_c w_i²/n_{i,c}) (a 1/n rate)",
		}, radCheckGEB, "thm: geb", radBound(theory.GEBBound), radGEBSquaredN),
			checkGEBChain("rkhs"), checkGEBChain("mlp1"), checkGEBChain("conc")),
	)
}

// radBound is the implementation's bound f as a radBoundFn.
func radBound(f func(s theory.LMNTMSetting, delta, A, classTerm float64) (float64, error)) radBoundFn {
	return func(s theory.LMNTMSetting, delta, A, classTerm float64) float64 {
		return must(f(s, delta, A, classTerm))
	}
}

// radGEBSquaredN is the negative control of `thm: geb`: GEBBound with
// n_{i,c}² in place of n_{i,c} (a 1/n rate).
func radGEBSquaredN(s theory.LMNTMSetting, delta, A, B float64) float64 {
	return must(theory.GEBBound(radSquaredN(s), delta, A, B))
}

// radSampledWith is radCheckSampled with the Rademacher estimate fixed: a
// checker of the bound under test.
func radSampledWith(estimate func(radProblem, radFinClass, radSampler) float64) checker[radBoundFn] {
	return func(cfg verify.Config, name string, bound radBoundFn) verify.Outcome {
		return radCheckSampled(cfg, name, estimate, bound)
	}
}

// radCheckSampled checks Lemma `rad.lips.lemma` (estimate radRadLoss, stream
// "rad.lips.lemma") or the corrected Lemma `lemma: gen` (estimate radRadVec,
// stream "lemma: gen") on finite classes (C ∈ {2,3}, |X| ∈ {2,3}, n_{i,c} ∈
// [5, 10⁵] log-uniform): the deviation's supremum over the finite class is
// exact; estimate gives the lemma's Rademacher term.
func radCheckSampled(cfg verify.Config, name string, estimate func(radProblem, radFinClass, radSampler) float64, bound radBoundFn) verify.Outcome {
	return radCheckSampledWith(cfg, name, estimate, bound, nil)
}

// radCheckSampledWith is radCheckSampled with each drawn case passed
// through vary (nil: none), for the probes of the lemmas' hypotheses.
func radCheckSampledWith(cfg verify.Config, name string, estimate func(radProblem, radFinClass, radSampler) float64, bound radBoundFn, vary func(radLipsCase) radLipsCase) verify.Outcome {
	gen := func(r *rand.Rand, size int) radLipsCase {
		pr := radDrawProblem(r, 2+r.Intn(2), 2+r.Intn(2), 5, 1e5)
		cs := radLipsCase{pr: pr, fc: radDrawClass(r, pr), seed: r.Int63()}
		if vary != nil {
			cs = vary(cs)
		}
		return cs
	}
	return verify.Property(cfg, name, verify.Bound, gen, func(cs radLipsCase) verify.Case {
		s := radSampler{r: rand.New(rand.NewSource(cs.seed))}
		rad := estimate(cs.pr, cs.fc, s)
		rhs := bound(cs.pr.set, cs.pr.delta, cs.fc.A, rad)
		return radSimulate(cs.pr, cs.fc.loss, s, rhs, fmt.Sprintf("A=%g Rad≥%g %s", cs.fc.A, rad, radProblemDetail(cs.pr)))
	})
}

type radLipsCase struct {
	pr   radProblem
	fc   radFinClass
	seed int64
}

// radGEBCase is one Theorem `thm: geb` case: C = 2 classes, |X| = 2 points
// x₁, x₂ ∈ ℝ², and either q = 1 (Gaussian RKHS ball of radius R, K = 1) or
// q = 2 (𝒩_m, m ∈ {1, 2}, with parameter β and activation μ, ‖x‖ ≤ α).
type radGEBCase struct {
	pr   radProblem
	q, m int
	X    *mat.Dense // 2×2, rows x₁, x₂
	R    float64    // q = 1
	bw   float64    // q = 1
	beta float64    // q = 2
	mu   theory.Activation
	seed int64
}

// radGEBGrid returns the losses of the functions g = (d/2, −d/2) for d|_X
// on a polar grid of the set D = {g₁ − g₂ : g ∈ 𝒢_q} restricted to X, plus
// A_q and B_q. For C = 2 the composite loss depends on s only through
// s₁ − s₂, so sup_{g∈𝒢_q} |R̂ − R̃| = sup_{d∈D} |…| with g = (d/2, −d/2) ∈ 𝒢_q
// (d/2 ∈ D/2 = 𝒢_q's components restricted to X, since those are symmetric
// convex sets). For q = 1, D = {2R·Lz : ‖z‖₂ ≤ 1} with LLᵀ the Gram matrix
// (the RKHS ball restricted to X is {u : uᵀK⁻¹u ≤ R²}); for q = 2, m = 1,
// D = {2β·Xz : ‖z‖₂ ≤ 1}; for m = 2, 𝒩₂ restricted to X is
// β·absconv{μ(Xu) : ‖u‖₂ ≤ β} (width ≥ 3 suffices in ℝ², Carathéodory), so
// D = 2β·absconv{…}, which radAbsconvRadial approximates from inside by the
// hull of ±μ(Xu) over a grid of u. The grid (8 radii × 40 angles and the
// centre) gives a lower bound on the supremum: the safe side for
// falsification.
func radGEBGrid(cs radGEBCase) (losses [][][][]float64, A, B float64) {
	alpha := 0.0
	for i := 0; i < 2; i++ {
		alpha = math.Max(alpha, math.Sqrt(radDot(cs.X.RawRowView(i), cs.X.RawRowView(i))))
	}
	// point(ρ, θ) maps polar coordinates of the unit disk into D.
	var point func(rho, th float64) (float64, float64)
	switch {
	case cs.q == 1:
		gram := must(theory.GaussianGram(cs.X, cs.bw))
		var ch mat.Cholesky
		if !ch.Factorize(gram) {
			panic("gram not positive definite")
		}
		var L mat.TriDense
		ch.LTo(&L)
		point = radLinearPoint(&L, 2*cs.R)
		A, B = theory.A1(2, cs.R, 1), theory.B1(cs.R, 1)
	case cs.m == 1:
		point = radLinearPoint(cs.X, 2*cs.beta)
		A, B = theory.A2(2, 1, alpha, cs.beta), theory.B2(1, alpha, cs.beta)
	default:
		radial := radAbsconvRadial(cs.X, cs.beta, cs.mu)
		point = func(rho, th float64) (float64, float64) {
			r := 2 * cs.beta * rho * radial(th)
			return r * math.Cos(th), r * math.Sin(th)
		}
		A, B = theory.A2(2, 2, alpha, cs.beta), theory.B2(2, alpha, cs.beta)
	}
	var vals [][][]float64
	add := func(d0, d1 float64) {
		vals = append(vals, [][]float64{{d0 / 2, -d0 / 2}, {d1 / 2, -d1 / 2}})
	}
	add(0, 0)
	for ri := 1; ri <= 8; ri++ {
		rho := float64(ri) / 8
		for ai := 0; ai < 40; ai++ {
			add(point(rho, 2*math.Pi*float64(ai)/40))
		}
	}
	return radBuildLosses(cs.pr, vals), A, B
}

// radLinearPoint maps the polar point (ρ, θ) of the unit disk to s·M(ρcosθ, ρsinθ).
func radLinearPoint(M mat.Matrix, s float64) func(rho, th float64) (float64, float64) {
	return func(rho, th float64) (float64, float64) {
		z0, z1 := rho*math.Cos(th), rho*math.Sin(th)
		return s * (M.At(0, 0)*z0 + M.At(0, 1)*z1), s * (M.At(1, 0)*z0 + M.At(1, 1)*z1)
	}
}

// radAbsconvRadial returns the radial function θ ↦ max{r : r(cosθ, sinθ) ∈ H}
// of H = conv{±μ(Xu) : u on a grid of the disk ‖u‖₂ ≤ β} ⊂ absconv{μ(Xu)}.
func radAbsconvRadial(X *mat.Dense, beta float64, mu theory.Activation) func(th float64) float64 {
	var pts [][2]float64
	for ri := 1; ri <= 6; ri++ {
		for ai := 0; ai < 48; ai++ {
			th := 2 * math.Pi * float64(ai) / 48
			u := []float64{beta * float64(ri) / 6 * math.Cos(th), beta * float64(ri) / 6 * math.Sin(th)}
			p := [2]float64{mu.F(radDot(u, X.RawRowView(0))), mu.F(radDot(u, X.RawRowView(1)))}
			pts = append(pts, p, [2]float64{-p[0], -p[1]})
		}
	}
	hull := radConvexHull(pts)
	return func(th float64) float64 {
		dx, dy := math.Cos(th), math.Sin(th)
		best := math.Inf(1)
		for k := range hull {
			a, b := hull[k], hull[(k+1)%len(hull)]
			// Edge a→b (counter-clockwise), outward normal n = (ey, −ex), offset h = n·a ≥ 0.
			nx, ny := b[1]-a[1], -(b[0] - a[0])
			h := nx*a[0] + ny*a[1]
			if dn := nx*dx + ny*dy; dn > 0 {
				best = math.Min(best, h/dn)
			}
		}
		if math.IsInf(best, 1) || best < 0 {
			return 0
		}
		return best
	}
}

// radConvexHull returns the vertices of the convex hull of pts in
// counter-clockwise order (Andrew's monotone chain).
func radConvexHull(pts [][2]float64) [][2]float64 {
	sort.Slice(pts, func(i, j int) bool {
		if pts[i][0] != pts[j][0] {
			return pts[i][0] < pts[j][0]
		}
		return pts[i][1] < pts[j][1]
	})
	cross := func(o, a, b [2]float64) float64 {
		return (a[0]-o[0])*(b[1]-o[1]) - (a[1]-o[1])*(b[0]-o[0])
	}
	var h [][2]float64
	for pass := 0; pass < 2; pass++ {
		start := len(h)
		for k := range pts {
			p := pts[k]
			if pass == 1 {
				p = pts[len(pts)-1-k]
			}
			for len(h) >= start+2 && cross(h[len(h)-2], h[len(h)-1], p) <= 0 {
				h = h[:len(h)-1]
			}
			h = append(h, p)
		}
		h = h[:len(h)-1]
	}
	return h
}

// radCheckGEB checks Theorem `thm: geb` (with the class constants B1, B2):
// q = 1 and q = 2 (m = 1 or 2, ReLU or tanh) alternate; n_{i,c} ∈ [5, 10⁵] log-uniform; the supremum over 𝒢_q is
// taken over the grid of radGEBGrid.
func radCheckGEB(cfg verify.Config, name string, bound radBoundFn) verify.Outcome {
	gen := verify.Gen(func(r *rand.Rand, size int) any {
		cs := radGEBCase{pr: radDrawProblem(r, 2, 2, 5, 1e5), q: 1 + r.Intn(2), m: 1 + r.Intn(2), seed: r.Int63(),
			R: logUnif(r, 0.2, 5), bw: logUnif(r, 0.3, 3), beta: logUnif(r, 0.2, 5), mu: radMLPActivation(r)}
		cs.X = mat.NewDense(2, 2, nil)
		rad := logUnif(r, 0.2, 3)
		for i := 0; i < 2; i++ {
			cs.X.SetRow(i, radBallPoint(r, 2, rad, r.Intn(2) == 0))
		}
		return cs
	})
	return verify.ForAll(cfg, name, verify.Bound, gen, func(cs radGEBCase) verify.Case {
		losses, A, B := radGEBGrid(cs)
		rhs := bound(cs.pr.set, cs.pr.delta, A, B)
		s := radSampler{r: rand.New(rand.NewSource(cs.seed))}
		return radSimulate(cs.pr, losses, s, rhs, fmt.Sprintf("q=%d m=%d μ=%s A=%g B=%g R=%g bw=%g β=%g X=%v %s",
			cs.q, cs.m, cs.mu.Name, A, B, cs.R, cs.bw, cs.beta, mat.Formatted(cs.X, mat.Squeeze()), radProblemDetail(cs.pr)))
	})
}
