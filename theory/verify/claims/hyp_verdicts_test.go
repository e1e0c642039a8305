package claims

// The verdict logic of every probe, on hand-built points on both sides: a
// point the probe must count as a counterexample, and one it must not; and
// each judge's re-evaluation on the same points. A probe that calls any
// point a counterexample (or none) fails here, whatever its family draws.

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// singularPoint is the flip of the singular family on C = 2: T = [0.7 0.7;
// 0.3 0.3] (column 2 = column 1), η = (0.8, 0.2), q = (0, 1): Tq = Tη.
func singularPoint() probePoint {
	return probePoint{Kind: "hand", Loss: plLog, T: mat.NewDense(2, 2, []float64{0.7, 0.7, 0.3, 0.3}), Eta: []float64{0.8, 0.2}, Q: []float64{0, 1}}
}

// identityPoint is T = I, η = (0.8, 0.2), q = (0.3, 0.7), the log loss:
// the surrogate excess is KL(η‖q) > 0.
func identityPoint() probePoint {
	return probePoint{Kind: "hand", Loss: plLog, T: mat.NewDense(2, 2, []float64{1, 0, 0, 1}), Eta: []float64{0.8, 0.2}, Q: []float64{0.3, 0.7}}
}

func TestFlipVerdicts(t *testing.T) {
	bad := singularPoint()
	c := flipCase(bad, surrogateAt(bad, flipStar(bad)))
	assert.False(t, c.OK, "surrogate excess 0, excess 0-1 risk 0.6: a counterexample")
	holds, _ := flipConclusion(bad)
	assert.False(t, holds, "the judge agrees")

	good := identityPoint()
	assert.True(t, flipCase(good, surrogateAt(good, flipStar(good))).OK, "surrogate excess KL(η‖q) > 0")
	holds, _ = flipConclusion(good)
	assert.True(t, holds)

	same := identityPoint()
	same.Q = same.Eta
	assert.True(t, flipCase(same, 0).OK, "q = η: no 0-1 excess")
	holds, _ = flipConclusion(same)
	assert.True(t, holds)

	// The swapped square loss at its minimizer (a not-proper loss), T = I.
	sw := probePoint{Kind: "hand", Loss: plSwapped(0, 1), T: mat.NewDense(2, 2, []float64{1, 0, 0, 1}), Eta: []float64{0.8, 0.2}, Q: []float64{0.2, 0.8}}
	assert.False(t, flipCase(sw, surrogateAt(sw, flipStar(sw))).OK)
	holds, _ = flipConclusion(sw)
	assert.False(t, holds, "C2 ≤ inner − entropy = 0 at q = Pη")
}

func TestFisherVerdicts(t *testing.T) {
	bad := singularPoint()
	assert.False(t, fisherProbeCase(bad).OK, "C(q) = C(η) with q ≠ η")
	holds, _ := fisherJudged(bad)
	assert.False(t, holds)
	good := identityPoint()
	assert.True(t, fisherProbeCase(good).OK, "T = I, log loss: η is the unique minimizer")
	holds, _ = fisherJudged(good)
	assert.True(t, holds)
}

func TestCaliNoiseVerdicts(t *testing.T) {
	assert.True(t, caliNoiseCase(singularPoint()).OK, "C2 = 0: δ**(C1) ≤ C2 reads 0 ≤ 0")
	holds, _ := caliNoiseJudged(singularPoint())
	assert.True(t, holds)
	// A loss declared proper that is not (the swapped square loss): the
	// probe reads C* at η and finds C2 < 0, which no infimum allows.
	liar := probePoint{Kind: "hand", Loss: plSwapped(0, 1), T: mat.NewDense(2, 2, []float64{1, 0, 0, 1}), Eta: []float64{0.8, 0.2}, Q: []float64{0.2, 0.8}}
	liar.Loss.proper = true
	assert.False(t, caliNoiseCase(liar).OK, "C(q) − C(η) < 0")
	holds, _ = caliNoiseJudged(liar)
	assert.True(t, holds, "against the loss's entropy C2 ≥ 0: the judge refuses the counterexample")
}

func TestYWVerdicts(t *testing.T) {
	good := identityPoint()
	assert.True(t, ywCase(good).OK, "log loss: C2 = KL(Tη‖Tq)")
	holds, _ := ywJudged(good)
	assert.True(t, holds)
	sq := identityPoint()
	sq.Loss = plSquare
	assert.False(t, ywCase(sq).OK, "square loss: C2 = ‖η − q‖² ≠ KL")
	holds, _ = ywJudged(sq)
	assert.False(t, holds)
}

func TestConvexLBSquareVerdicts(t *testing.T) {
	good := identityPoint()
	good.Loss = plSquare
	assert.True(t, convexLBSquareCase(good).OK)
	holds, _ := convexLBSquareJudged(good)
	assert.True(t, holds)
	// T = 3I, η = (1, 0), q = (0.49, 0.51): θ_T(1) = 1/(2·(1/3)²) = 4.5 and
	// ‖T(η − q)‖² = 9·2·0.51² = 4.6818, by hand. The square loss's version
	// of the proposition held on every point tried (a conjecture), so the
	// other side of the verdict is its comparison, leq, at the hand values.
	p := probePoint{Kind: "hand", Loss: plSquare, T: mat.NewDense(2, 2, []float64{3, 0, 0, 3}), Eta: []float64{1, 0}, Q: []float64{0.49, 0.51}}
	lhs, c2 := convexLBSquareSides(p)
	assert.InDelta(t, 4.5, lhs, 1e-12)
	assert.InDelta(t, 4.6818, c2, 1e-12)
	assert.True(t, leq(lhs, c2))
	assert.False(t, leq(c2, lhs), "the comparison the verdict makes, the other way round")
	c := convexLBSquareCase(identityPoint())
	assert.InDelta(t, 0.6*0.6/2, c.LHS, 1e-12, "θ_I(C1 = 0.6) = C1²/2")
	assert.InDelta(t, 2*0.5*0.5, c.RHS, 1e-12, "‖η − q‖² for η = (0.8, 0.2), q = (0.3, 0.7)")
}

func TestLLPCaliVerdicts(t *testing.T) {
	T := mat.NewDense(2, 2, []float64{0.7, 0.7, 0.3, 0.3})
	bad := lmPoint{Kind: "hand", Loss: plLog, Ts: []*mat.Dense{T}, W: []float64{1}, Eta: []float64{0.8, 0.2}, F: []float64{0, 1}, Star: []float64{0.8, 0.2}}
	assert.False(t, llpCaliCase(bad).OK, "R̃(f) = R̃*, excess 0-1 risk 0.6")
	holds, _ := llpCaliJudged(bad)
	assert.False(t, holds)
	good := bad
	good.Ts = []*mat.Dense{mat.NewDense(2, 2, []float64{1, 0, 0, 1})}
	good.F = []float64{0.3, 0.7}
	assert.True(t, llpCaliCase(good).OK)
	holds, _ = llpCaliJudged(good)
	assert.True(t, holds)
	zero := good
	zero.W = []float64{0}
	assert.False(t, llpCaliCase(zero).OK, "w = 0: R̃ ≡ 0")
	holds, _ = llpCaliJudged(zero)
	assert.False(t, holds)
	// A negative weight on the less noisy group: the grid's minimizer lies
	// across the boundary (w = (−1, 2), T₁ = 0.9I + 0.1N, T₂ = 0.2I + 0.8N,
	// η = (0.7, 0.3)) — or not: the judge decides by the grid either way,
	// and agrees with a point at the minimizer it finds.
	neg := lmPoint{Kind: "hand", Loss: plLog, Ts: []*mat.Dense{GenUniformNoiseT(2, 0.1), GenUniformNoiseT(2, 0.8)}, W: []float64{-1, 2}, Eta: []float64{0.7, 0.3}, RegionGrid: true}
	neg.F, neg.Star = []float64{0.7, 0.3}, []float64{0.7, 0.3}
	holds, _ = llpCaliJudged(neg)
	assert.True(t, holds, "f = η predicts as η: no 0-1 excess")
}

func TestLipVerdicts(t *testing.T) {
	I := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	far := lipPoint{T: I, s: []float64{-6, 0}, c: 0, loss: plLog}
	assert.False(t, lipInfCase(far).OK, "‖∇λ‖₁ = 2(1 − p₁) ≈ 2 > √2")
	holds, _ := lipInfJudged(far)
	assert.False(t, holds)
	near := lipPoint{T: I, s: []float64{0, 0}, c: 0, loss: plLog}
	assert.True(t, lipInfCase(near).OK, "p = (½, ½): ‖∇λ‖₁ = 1")
	holds, _ = lipInfJudged(near)
	assert.True(t, holds)
	sq := lipPoint{T: I, s: []float64{0.3, -0.2}, c: 1, loss: plSquare}
	assert.True(t, lipSquareCase(sq).OK)
	holds, _ = lipSquareJudged(sq)
	assert.True(t, holds)
	steep := lipPoint{T: mat.NewDense(2, 2, []float64{3, 0, 0, 3}), s: []float64{0, 0}, c: 0, loss: plSquare} // 3I: gradient 9/2 > √2
	assert.False(t, lipSquareCase(steep).OK)
	holds, _ = lipSquareJudged(steep)
	assert.False(t, holds)
}

func TestLambda0Verdicts(t *testing.T) {
	sing := mat.NewDense(2, 2, []float64{0.6, 0.6, 0.4, 0.4})
	assert.True(t, lambda0Case(sing).OK, "a singular T without a zero row: the printed form holds")
	holds, _ := lambda0Judged(sing)
	assert.True(t, holds)
	big := mat.NewDense(2, 2, []float64{3, 0, 0, 3}) // rows sum to 3 > C: the printed form is −|λ|₀
	assert.False(t, lambda0Case(big).OK)
	holds, _ = lambda0Judged(big)
	assert.False(t, holds)
}

func TestCfmVerdicts(t *testing.T) {
	G := mat.NewDense(2, 2, []float64{0.8, 0.2, 0.3, 0.7})
	alpha := []float64{0.4, 0.6}
	ok := cfmPoint{G: G, alpha: alpha, sigma: mulVec(G.T(), alpha)}
	assert.True(t, cfmCase(ok).OK)
	holds, _ := cfmConclusion(ok)
	assert.True(t, holds)
	off := cfmPoint{G: G, alpha: alpha, sigma: []float64{0.6, 0.4}} // Γᵀα = (0.5, 0.5)
	assert.False(t, cfmCase(off).OK, "σ ≠ Γᵀα: T is not column-stochastic")
	holds, _ = cfmConclusion(off)
	assert.False(t, holds)
	G2 := mat.NewDense(2, 2, []float64{1.6, 0.4, 0.3, 0.7}) // row 1 sums to 2
	rows := cfmPoint{G: G2, alpha: alpha, sigma: mulVec(G2.T(), alpha)}
	assert.False(t, cfmCase(rows).OK, "P̄_T(Ỹ = 1) = 2α(1)")
	holds, _ = cfmConclusion(rows)
	assert.False(t, holds)
}

func TestCHVerdicts(t *testing.T) {
	// Off the simplex: γ₃ = γ₁ + γ₂, the assumption holds (unique α), the
	// equivalent's linear independence fails.
	a, b := []float64{0.2, 0.3, 0.5}, []float64{0.6, 0.3, 0.1}
	G := mat.NewDense(3, 3, nil)
	for j := 0; j < 3; j++ {
		G.Set(0, j, a[j]/2)
		G.Set(1, j, b[j])
		G.Set(2, j, a[j]/2+b[j])
	}
	off := chPoint{G: G, sigma: mulVec(G.T(), []float64{0.2, 0.6, 0.2}), kind: "hand"}
	require.True(t, chAssumption(off), "∃! α ∈ Δ̊³")
	assert.False(t, chCase(off).OK)
	holds, _ := chJudged(off)
	assert.False(t, holds)
	// In the simplex, σ inside the hull: both hold.
	Gs := mat.NewDense(3, 3, []float64{0.7, 0.2, 0.1, 0.1, 0.7, 0.2, 0.2, 0.1, 0.7})
	in := chPoint{G: Gs, sigma: mulVec(Gs.T(), []float64{0.3, 0.3, 0.4}), kind: "hand"}
	assert.True(t, chCase(in).OK)
	holds, _ = chJudged(in)
	assert.True(t, holds)
	// Duplicated bags: the assumption without "unique" holds, the
	// equivalent does not.
	dup := mat.NewDense(3, 3, []float64{0.7, 0.2, 0.1, 0.1, 0.7, 0.2, 0.7, 0.2, 0.1})
	d := chPoint{G: dup, sigma: mulVec(dup.T(), []float64{0.25, 0.5, 0.25}), kind: kindDup}
	assert.False(t, dupCase(d).OK)
	holds, _ = dupJudged(d)
	assert.False(t, holds)
	assert.True(t, dupCase(in).OK, "distinct bags, σ inside: the equivalent holds")
}

func TestHMVerdicts(t *testing.T) {
	n := [][]float64{{1, 4}, {2, 2}}
	w, _, err := theory.HMWeights(n)
	require.NoError(t, err)
	same := hmInput{n: n, comp: w}
	assert.True(t, hmCase(same).OK)
	holds, _ := hmJudged(same)
	assert.True(t, holds)
	half := hmInput{n: n, comp: []float64{w[0] / 2, w[1] / 2}} // Σw = ½: a smaller term
	assert.False(t, hmCase(half).OK)
	holds, _ = hmJudged(half)
	assert.False(t, holds)
}

func TestEmpVerdicts(t *testing.T) {
	md := &theory.FiniteModel{Prior: []float64{0.6, 0.4}, Cond: [][]float64{{0.7, 0.3}, {0.2, 0.8}}}
	T := mat.NewDense(2, 2, []float64{0.9, 0.2, 0.1, 0.8})
	in := lmEmpInput{model: md, Ts: []mat.Matrix{T}, w: []float64{1}, n: [][]int{{1, 1}}, f: [][]float64{{0.6, 0.4}, {0.3, 0.7}}}
	ok := empPoint{in: in, loss: plLog}
	assert.True(t, empCase(ok).OK, "noisy class-conditionals, noisy priors: unbiased")
	holds, _ := empJudged(ok)
	assert.True(t, holds)
	clean := ok
	clean.clean = true
	assert.False(t, empCase(clean).OK, "clean class-conditionals")
	holds, _ = empJudged(clean)
	assert.False(t, holds)
	other := ok
	other.alpha = [][]float64{{0.5, 0.5}}
	assert.False(t, empCase(other).OK, "other weights than the noisy priors")
	holds, _ = empJudged(other)
	assert.False(t, holds)
}

func TestRadPropVerdicts(t *testing.T) {
	G1 := mat.NewDense(2, 2, []float64{1, -1, 0.5, 0.5})
	G2 := mat.NewDense(1, 2, []float64{-0.2, 0.1})
	cs := radPropCase{a: []float64{1, 2}, G1: G1, G2: G2, c0: -2, mu: radLipFn{"t", 1, func(v []float64) float64 { return v[0] }}, seed: 3}
	for k := 1; k <= 5; k++ {
		assert.Truef(t, radPropCheck(k)(cs).OK, "item %d holds with negated weights", k)
		holds, _ := radPropJudge(k).Conclusion(cs)
		assert.Truef(t, holds, "item %d", k)
	}
	// μ with its constant understated: μ(t) = 2t read with |μ| = 1.
	steep := cs
	steep.mu = radLipFn{"2t", 1, func(v []float64) float64 { return 2 * v[0] }}
	assert.False(t, radPropCheck(5)(steep).OK)
	holds, _ := radPropJudge(5).Conclusion(steep)
	assert.False(t, holds)
	// 𝒢 ⊄ ℋ: Rad(𝒢₁) > Rad(𝒢₂) for the small 𝒢₂.
	assert.Greater(t, radSignedExact(G1, cs.a), radSignedExact(G2, cs.a))
	assert.False(t, rowsContained(G1, G2))
	assert.True(t, rowsContained(G2, G2))
}

func TestMultiVerdicts(t *testing.T) {
	norm := radLipFn{"‖v‖₂", 1, func(v []float64) float64 { return math.Sqrt(radDot(v, v)) }}
	tight := radMulti1Case{a: 1, lam: norm, fx: [][]float64{{0, 0}, {1, 1}}, phi: []float64{0, 0}}
	assert.True(t, multi1Case(1, math.Sqrt2)(tight).OK, "the tight case, with √2")
	assert.False(t, multi1Case(0.5, math.Sqrt2)(tight).OK, "|λ|/2")
	holds, _ := multi1Judge(0.5, true).Conclusion(tight)
	assert.False(t, holds)
	holds, _ = multi1Judge(1, true).Conclusion(tight)
	assert.True(t, holds)
	l1 := radMulti1Case{a: 1, lam: radLipFn{"‖v‖₁", 1, func(v []float64) float64 { return math.Abs(v[0]) + math.Abs(v[1]) }}, fx: [][]float64{{0, 0}, {1, 1}}, phi: []float64{0, 0}}
	assert.False(t, multi1Case(1, math.Sqrt2)(l1).OK, "λ = ‖·‖₁ with its 1-norm constant: LHS 1 > √2·½")
	holds, _ = multi1Judge(1, false).Conclusion(l1)
	assert.False(t, holds)

	ml := radMultiCase{w: []float64{1}, lam: []radLipFn{norm}, fx: [][][]float64{{{0, 0}}, {{1, 1}}}}
	assert.True(t, multiLemmaCase(1)(ml).OK)
	assert.False(t, multiLemmaCase(0.5)(ml).OK)
	holds, _ = multiLemmaJudge(0.5, true).Conclusion(ml)
	assert.False(t, holds)
	ml1 := ml
	ml1.lam = []radLipFn{l1.lam}
	assert.False(t, multiLemmaCase(1)(ml1).OK, "‖·‖₁ with constant 1")
	holds, _ = multiLemmaJudge(1, false).Conclusion(ml1)
	assert.False(t, holds)
}

func TestKernelAndMLPVerdicts(t *testing.T) {
	X := mat.NewDense(1, 1, []float64{0.5})
	g := mat.NewSymDense(1, []float64{4}) // k(x, x) = 4: K = 2
	ok := kernelPoint{radKernelCase: radKernelCase{X: X, a: []float64{1}, C: 1, R: 1, K: 2, gram: g}, Kb: 2}
	assert.True(t, kernelCase(ok).OK)
	holds, _ := kernelJudge.Conclusion(ok)
	assert.True(t, holds)
	half := ok
	half.Kb = 1
	assert.False(t, kernelCase(half).OK, "one point: LHS = R·√k(x,x) = 2 > R·K/2·1")
	holds, _ = kernelJudge.Conclusion(half)
	assert.False(t, holds)

	pt := mlpPoint{X: mat.NewDense(1, 2, []float64{1, 1}), a: []float64{1}, C: 1, beta: 1, alphaB: math.Sqrt2, norm: 2}
	assert.True(t, mlpCase(pt).OK, "‖x‖₂ = √2 = α")
	holds, _ = mlpJudge("").Conclusion(pt)
	assert.True(t, holds)
	inf := pt
	inf.alphaB, inf.norm = 1, math.Inf(1) // ‖x‖∞ = 1 read as α
	assert.False(t, mlpCase(inf).OK, "LHS β‖x‖₂ = √2 > α·β = 1")
	holds, _ = mlpJudge("").Conclusion(inf)
	assert.False(t, holds)
	parts, _ := mlpJudge("").Parts(inf)
	assert.False(t, parts["‖·‖ the 2-norm"])
	assert.True(t, parts["‖x‖ ≤ α"], "in the ∞-norm the point is inside α")
}

// TestProbeLossProperties holds the losses the probes try to the
// properties they are declared with: properness and uniqueness of the
// inner risk's minimizer (numerically, over a grid of Δ³ and Δ²),
// continuity (no jump along a segment), and the closed-form entropy (the
// least inner risk found).
func TestProbeLossProperties(t *testing.T) {
	grid := func(C int) [][]float64 {
		var out [][]float64
		const n = 40
		for i := 0; i <= n; i++ {
			for j := 0; j <= n-i; j++ {
				if C == 2 {
					if j > 0 {
						break
					}
					out = append(out, []float64{float64(i) / n, 1 - float64(i)/n})
					continue
				}
				out = append(out, []float64{float64(i) / n, float64(j) / n, 1 - float64(i+j)/n})
			}
		}
		return out
	}
	for _, l := range []probeLoss{plLog, plSquare, plBrier1, plSwapped(0, 1), plZeroOne} {
		for _, C := range []int{2, 3} {
			pi := []float64{0.5, 0.3, 0.2}[:C]
			normalize(pi)
			inner := func(q []float64) float64 {
				s := 0.0
				for c := range pi {
					s += pi[c] * l.loss(q, c)
				}
				return s
			}
			best, argmins := math.Inf(1), 0
			pts := grid(C)
			vals := make([]float64, len(pts))
			for k, q := range pts {
				vals[k] = inner(q)
				best = math.Min(best, vals[k])
			}
			for _, v := range vals {
				if v <= best+1e-12 {
					argmins++
				}
			}
			atPi := inner(pi)
			if l.proper {
				assert.InDeltaf(t, l.entropy(pi), atPi, 1e-12, "%s, C = %d: the entropy is the inner risk at π", l.name, C)
				assert.LessOrEqualf(t, atPi, best+1e-12, "%s, C = %d: declared proper, π is no minimizer", l.name, C)
			} else {
				assert.Greaterf(t, atPi, best+1e-6, "%s, C = %d: declared not proper, π minimizes", l.name, C)
			}
			assert.LessOrEqualf(t, l.entropy(pi), best+1e-12, "%s, C = %d: the entropy exceeds an inner risk (it must be the infimum)", l.name, C)
			if l.unique(C) {
				assert.Equalf(t, 1, argmins, "%s, C = %d: declared with a unique minimizer", l.name, C)
			} else {
				assert.Greaterf(t, argmins, 1, "%s, C = %d: declared with several minimizers", l.name, C)
			}
			jump := 0.0
			for k := 0; k < 2000; k++ {
				a, b := float64(k)/2000, float64(k+1)/2000
				qa := []float64{0.05 + 0.9*a, 0.95 - 0.9*a, 0}[:C]
				qb := []float64{0.05 + 0.9*b, 0.95 - 0.9*b, 0}[:C]
				if C == 3 {
					qa[2], qb[2] = 0.1, 0.1
					qa[0], qb[0] = qa[0]*0.9, qb[0]*0.9
					qa[1], qb[1] = qa[1]*0.9, qb[1]*0.9
				}
				jump = math.Max(jump, math.Abs(l.loss(qa, 0)-l.loss(qb, 0)))
			}
			assert.Equalf(t, l.continuous, jump < 0.05, "%s, C = %d: largest step %.3g along a fine segment", l.name, C, jump)
		}
	}
}

func TestMLPActivationAndSampledVerdicts(t *testing.T) {
	opts := theory.MLPSupOptions{Restarts: 4, Steps: 25}
	X := mat.NewDense(1, 1, []float64{1})
	ok := mlpActPoint{radMLPCase{m: 2, X: X, a: []float64{1}, alpha: 1, beta: 1, mu: theory.ReLU, seed: 1, C: 1}}
	assert.True(t, mlpActCase(ok, opts).OK, "ReLU: one point, Rad(𝒩₂) ≤ α·2·β²")
	steep := ok
	steep.mu = relu3
	assert.False(t, mlpActCase(steep, opts).OK, "3·ReLU: Rad(𝒩₂) = 3·β² > 2β²")

	// The sampled bounds' verdict: violations counted against k*.
	r := newRadTestRand()
	pr := radDrawProblem(r, 2, 2, 5, 50)
	pr.delta = 0.01
	fc := radDrawClass(r, pr)
	s := radSampler{r: newRadTestRand()}
	assert.True(t, radSimulate(pr, fc.loss, s, 1e6, "").OK, "a right side no deviation reaches")
	assert.False(t, radSimulate(pr, fc.loss, s, 0, "").OK, "a right side of 0: every draw's deviation exceeds it")
	holds, _ := radReplicate(pr, fc.loss, 3, 0)
	assert.False(t, holds, "the judge's replication agrees")
	holds, _ = radReplicate(pr, fc.loss, 3, 1e6)
	assert.True(t, holds)
}
