package algclaims

// Hypotheses of the claims of Algorithms 1–3: each as the algorithm or the
// text of Section 5 gives it — and those of the definitions it uses (the
// bags' proportions γ̂_k) — split into its parts, probed by re-running the
// claim with one part violated (every point judged, every counterexample
// re-evaluated by code apart from the probe's), or evaluated at the ends of
// its range.

import (
	"fmt"
	"math"
	"math/rand"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

const probeLimit = 500

func probing(label, hyp, tried string) verify.Probing {
	return verify.Probing{Label: label, Hyp: hyp, Tried: tried}
}

func endAt(at, where, value string, v verify.EndVerdict, x ...float64) verify.EndCheck {
	return verify.EndCheck{At: at, Where: where, Value: value, Verdict: v, X: x}
}

func holdsIf(ok bool, bad verify.EndVerdict) verify.EndVerdict {
	if ok {
		return verify.EndHolds
	}
	return bad
}

// roundedSet is the bag set of a seed with each bag's proportions rounded
// to two decimals (renormalized), and the labels' class counts.
func roundedSet(seed int64) (*estimators.BagSet, []int) {
	set, counts := labelledSet(rand.New(rand.NewSource(seed)))
	for b := range set.Bags {
		p := set.Bags[b].Proportions
		s := 0.0
		for c := range p {
			p[c] = math.Round(p[c]*100) / 100
			s += p[c]
		}
		if s == 0 {
			p[0], s = 1, 1
		}
		for c := range p {
			p[c] /= s
		}
	}
	return set, counts
}

// probeSigmaRounded re-runs `alg3: sigma-hat` with the bags' proportions
// rounded to two decimals (renormalized): γ̂_k no longer the exact label
// proportions of b_k.
func probeSigmaRounded(cfg verify.Config) verify.ProbeResult {
	const label = "alg3: sigma-hat"
	return verify.Violate(cfg, probing(label, "γ̂_k the bags' label proportions",
		"each bag's proportions rounded to two decimals and renormalized (no longer its labels' proportions), bags from the claim's generator, some of them changed by the rounding"),
		probeLimit, func(r *rand.Rand, _ int) int64 {
			for {
				seed := r.Int63()
				if !sigmaParts(seed)["γ̂_k the bags' label proportions"] {
					return seed
				}
			}
		}, sigmaRoundedCase, verify.Judge[int64]{
			Parts:      func(seed int64) (map[string]bool, string) { return sigmaParts(seed), "" },
			Conclusion: sigmaRoundedJudged,
		})
}

// sigmaRoundedCase is the probe's verdict: estimators.SigmaHat of the
// rounded bags against the labels' proportion.
func sigmaRoundedCase(seed int64) verify.Case {
	set, counts := roundedSet(seed)
	return sigmaVerdict(set, counts, estimators.SigmaHat(set))
}

// sigmaVerdict compares σ̂ with the labels' proportion (to 1e-12: a sum of
// ≤ 20 bags' proportions weighted by sizes ≤ 3000, relative rounding
// ≈ 20·2⁻⁵²).
func sigmaVerdict(set *estimators.BagSet, counts []int, got []float64) verify.Case {
	total := 0
	for _, k := range counts {
		total += k
	}
	worst := 0.0
	for c, k := range counts {
		worst = math.Max(worst, math.Abs(got[c]-float64(k)/float64(total)))
	}
	return verify.Case{LHS: 1 + worst, RHS: 1, OK: worst <= 1e-12, Detail: fmt.Sprintf("C=%d, %d bags: σ̂ = %.6g, label proportion %v/%d", set.NumClasses, len(set.Bags), got, counts, total)}
}

// sigmaRoundedJudged recomputes σ̂ = Σ_k|b_k|γ̂_k/Σ_k|b_k| by its formula.
func sigmaRoundedJudged(seed int64) (bool, string) {
	set, counts := roundedSet(seed)
	num := make([]float64, set.NumClasses)
	den := 0.0
	for _, b := range set.Bags {
		for c, p := range b.Proportions {
			num[c] += float64(b.Size) * p
		}
		den += float64(b.Size)
	}
	total, worst := 0, 0.0
	for _, k := range counts {
		total += k
	}
	for c, k := range counts {
		worst = math.Max(worst, math.Abs(num[c]/den-float64(k)/float64(total)))
	}
	return worst <= 1e-12, fmt.Sprintf("Σ_k|b_k|γ̂_k/Σ_k|b_k| differs from the labels' proportion by %.3g", worst)
}

// sigmaParts judges a seed of the rounded family: whether every bag's
// proportions are still its labels' (some rounding moved one), and the bag
// sizes.
func sigmaParts(seed int64) map[string]bool {
	set, _ := roundedSet(seed)
	exact, _ := labelledSet(rand.New(rand.NewSource(seed)))
	same, sizes := true, true
	for b := range set.Bags {
		sizes = sizes && set.Bags[b].Size >= 1
		for c := range set.Bags[b].Proportions {
			same = same && math.Abs(set.Bags[b].Proportions[c]-exact.Bags[b].Proportions[c]) <= 1e-15
		}
	}
	return map[string]bool{"γ̂_k the bags' label proportions": same, "|b_k| ≥ 1": sizes}
}

// sigmaEmptyEnds evaluates σ̂ at |b_k| = 0: an empty bag weighs nothing; if
// every bag is empty σ̂ = 0/0.
func sigmaEmptyEnds(verify.Config) []verify.EndCheck {
	one := &estimators.BagSet{NumClasses: 2, Bags: []estimators.Bag{{ID: 0, Size: 3, Proportions: []float64{1.0 / 3, 2.0 / 3}}, {ID: 1, Size: 0, Proportions: []float64{1, 0}}}}
	got := estimators.SigmaHat(one)
	return []verify.EndCheck{
		endAt("|b_1| = 1", verify.AtClosedEnd, "one instance, its label's one-hot proportions", verify.EndHolds, 1),
		endAt("|b_1| = 3 with γ̂ = (⅓, ⅔), |b_2| = 0", verify.AtOutside, fmt.Sprintf("σ̂ = %.6g: the empty bag weighs 0", got), holdsIf(math.Abs(got[0]-1.0/3) < 1e-12, verify.EndFalse), 0),
		endAt("every |b_k| = 0", verify.AtOutside, "σ̂ = 0/0", verify.EndUndefined, 0),
	}
}

// alphaPoint is a least-squares problem of `alg2: alpha-hat`: Γ̂ and σ̂.
type alphaPoint struct {
	G     *mat.Dense
	sigma []float64
}

// genAlphaOff draws Γ̂ with rows off Δ^C (rowsOff: entries in [−1, 2]) or σ̂
// off Δ^C (entries in [−1, 2]), the other in Δ^C.
func genAlphaOff(rowsOff bool) func(r *rand.Rand, _ int) alphaPoint {
	return func(r *rand.Rand, _ int) alphaPoint {
		C := 2 + r.Intn(5)
		G := mat.NewDense(C, C, nil)
		sigma := randSimplex(r, C, false)
		for i := 0; i < C; i++ {
			G.SetRow(i, randSimplex(r, C, false))
		}
		if rowsOff {
			for i := 0; i < C; i++ {
				for j := 0; j < C; j++ {
					G.Set(i, j, -1+3*r.Float64())
				}
			}
		} else {
			for i := range sigma {
				sigma[i] = -1 + 3*r.Float64()
			}
		}
		return alphaPoint{G: G, sigma: sigma}
	}
}

// alphaCase is the probe's verdict: estimators.SimplexLS's α̂ against random
// and perturbed feasible competitors.
func alphaCase(p alphaPoint) verify.Case {
	A := p.G.T()
	alpha, err := estimators.SimplexLS(A, p.sigma)
	if err != nil {
		return verify.Case{Detail: err.Error()}
	}
	f := resid2(A, alpha, p.sigma)
	r := rand.New(rand.NewSource(int64(len(p.sigma))))
	C := len(p.sigma)
	best := math.Inf(1)
	for k := 0; k < 40; k++ {
		best = math.Min(best, resid2(A, randSimplex(r, C, k%2 == 0), p.sigma))
	}
	for k := 0; k < C; k++ {
		b := make([]float64, C)
		for j := range b {
			b[j] = 0.99 * alpha[j]
		}
		b[k] += 0.01
		best = math.Min(best, resid2(A, b, p.sigma))
	}
	return verify.Case{LHS: f, RHS: best, OK: f <= best+1e-12, Detail: fmt.Sprintf("Γ̂=%v σ̂=%.6g: ‖Γ̂ᵀα̂−σ̂‖² = %.6g > a competitor's %.6g", mat.Formatted(p.G, mat.FormatPython()), p.sigma, f, best)}
}

// alphaJudged: the minimum over Δ^C by projected gradient descent (its own
// solver) against the residual at α̂.
func alphaJudged(p alphaPoint) (bool, string) {
	A := p.G.T()
	alpha, err := estimators.SimplexLS(A, p.sigma)
	if err != nil {
		return true, err.Error()
	}
	C := len(p.sigma)
	x := make([]float64, C)
	for i := range x {
		x[i] = 1 / float64(C)
	}
	L := 2 * mat.Norm(A, 2) * mat.Norm(A, 2)
	for it := 0; it < 20000; it++ {
		g := make([]float64, C)
		res := make([]float64, C)
		for i := 0; i < C; i++ {
			for j := 0; j < C; j++ {
				res[i] += A.At(i, j) * x[j]
			}
			res[i] -= p.sigma[i]
		}
		for j := 0; j < C; j++ {
			for i := 0; i < C; i++ {
				g[j] += 2 * A.At(i, j) * res[i]
			}
			x[j] -= g[j] / L
		}
		x = projectSimplex(x)
	}
	a, b := resid2(A, alpha, p.sigma), resid2(A, x, p.sigma)
	return a <= b+1e-9, fmt.Sprintf("residual at α̂ %.9g, at projected gradient descent's minimum %.9g", a, b)
}

// projectSimplex is the Euclidean projection onto Δ^C (sort and threshold).
func projectSimplex(v []float64) []float64 {
	u := append([]float64(nil), v...)
	for i := 1; i < len(u); i++ {
		for j := i; j > 0 && u[j] > u[j-1]; j-- {
			u[j], u[j-1] = u[j-1], u[j]
		}
	}
	cum, theta := 0.0, 0.0
	for i, x := range u {
		cum += x
		if t := (cum - 1) / float64(i+1); x-t > 0 {
			theta = t
		}
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Max(x-theta, 0)
	}
	return out
}

func alphaParts(p alphaPoint) (map[string]bool, string) {
	C := len(p.sigma)
	rows := true
	for i := 0; i < C; i++ {
		rows = rows && inSimplex(mat.Row(nil, i, p.G))
	}
	return map[string]bool{"Γ̂_i's rows ∈ Δ^C": rows, "σ̂ ∈ Δ^C": inSimplex(p.sigma)}, ""
}

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

// tFrom builds T̂(c₁,c₂) = γ̂_{c₁}(c₂)α(c₁)/σ(c₂), σ = Γ̂ᵀα, for any α.
func tFrom(G mat.Matrix, alpha []float64) (*mat.Dense, []float64) {
	C, _ := G.Dims()
	sigma := make([]float64, C)
	for c2 := 0; c2 < C; c2++ {
		for c1 := 0; c1 < C; c1++ {
			sigma[c2] += G.At(c1, c2) * alpha[c1]
		}
	}
	T := mat.NewDense(C, C, nil)
	for c1 := 0; c1 < C; c1++ {
		for c2 := 0; c2 < C; c2++ {
			T.Set(c1, c2, G.At(c1, c2)*alpha[c1]/sigma[c2])
		}
	}
	return T, sigma
}

// colStochastic reports whether T is column-stochastic to 1e-12.
func colStochastic(T mat.Matrix) bool {
	C, _ := T.Dims()
	for j := 0; j < C; j++ {
		s := 0.0
		for i := 0; i < C; i++ {
			v := T.At(i, j)
			if v < -1e-12 || math.IsNaN(v) {
				return false
			}
			s += v
		}
		if math.Abs(s-1) > 1e-12 {
			return false
		}
	}
	return true
}

// tHatPoint is a group of `alg2: T-hat`: Γ̂ (its rows the bags'
// proportions, or not) and α̂.
type tHatPoint struct {
	G     *mat.Dense
	alpha []float64
}

// genTHat draws Γ̂ with rows in Δ^C (or, by rows, altered) and α̂ (by alpha),
// keeping the divisors σ̂(c) away from 0.
func genTHat(rows func(r *rand.Rand, row []float64) []float64, alphaOf func(r *rand.Rand, C int) []float64) func(r *rand.Rand, _ int) tHatPoint {
	return func(r *rand.Rand, _ int) tHatPoint {
		for {
			C := 2 + r.Intn(5)
			G := mat.NewDense(C, C, nil)
			for c := 0; c < C; c++ {
				row := randSimplex(r, C, false)
				if rows != nil {
					row = rows(r, row)
				}
				G.SetRow(c, row)
			}
			alpha := randSimplex(r, C, false)
			if alphaOf != nil {
				alpha = alphaOf(r, C)
			}
			_, sigma := tFrom(G, alpha)
			ok := true
			for _, s := range sigma {
				ok = ok && s > 1e-3
			}
			if ok {
				return tHatPoint{G: G, alpha: alpha}
			}
		}
	}
}

// tHatCase is the probe's verdict: T̂ by line 9 (tFrom), column-stochastic
// to 1e-12.
func tHatCase(p tHatPoint) verify.Case {
	T, _ := tFrom(p.G, p.alpha)
	return verify.Case{LHS: 1, RHS: 1, OK: colStochastic(T), Detail: fmt.Sprintf("Γ̂=%v α̂=%.6g: T̂=%v is not column-stochastic", mat.Formatted(p.G, mat.FormatPython()), p.alpha, mat.Formatted(T, mat.FormatPython()))}
}

// tHatJudged: T̂ through theory.TransitionMatrix's formula written out
// again — entry by entry γ̂_{c₁}(c₂)α̂(c₁) over Σ_k γ̂_k(c₂)α̂(k) — its
// smallest entry and its column sums.
func tHatJudged(p tHatPoint) (bool, string) {
	C, _ := p.G.Dims()
	minEntry, worstSum := math.Inf(1), 0.0
	for c2 := 0; c2 < C; c2++ {
		den, s := 0.0, 0.0
		for k := 0; k < C; k++ {
			den += p.G.At(k, c2) * p.alpha[k]
		}
		for c1 := 0; c1 < C; c1++ {
			v := p.G.At(c1, c2) * p.alpha[c1] / den
			minEntry = math.Min(minEntry, v)
			s += v
		}
		worstSum = math.Max(worstSum, math.Abs(s-1))
	}
	return minEntry >= -1e-12 && worstSum <= 1e-12, fmt.Sprintf("smallest entry of T̂ %.3g, largest |column sum − 1| %.3g", minEntry, worstSum)
}

func tHatParts(p tHatPoint) (map[string]bool, string) {
	C, _ := p.G.Dims()
	nn, sums := true, true
	for i := 0; i < C; i++ {
		row := mat.Row(nil, i, p.G)
		s := 0.0
		for _, v := range row {
			nn = nn && v >= 0
			s += v
		}
		sums = sums && math.Abs(s-1) <= 1e-12
	}
	an, as := true, 0.0
	for _, v := range p.alpha {
		an = an && v >= 0
		as += v
	}
	return map[string]bool{"α̂_i sums to 1": math.Abs(as-1) <= 1e-12, "α̂_i ≥ 0": an, "γ̂_k ≥ 0": nn, "γ̂_k sums to 1": sums, "σ̂_i(c) > 0": keptByFamily}, ""
}

const keptByFamily = true

// withNegative sets one entry of a point of Δ^C to −d and scales the
// others to sum 1 + d: the sum stays 1, one entry is negative.
func withNegative(r *rand.Rand, a []float64, d float64) []float64 {
	k := r.Intn(len(a))
	rest := 1 - a[k]
	for i := range a {
		if rest > 0 {
			a[i] *= (1 + d) / rest
		} else {
			a[i] = (1 + d) / float64(len(a)-1)
		}
	}
	a[k] = -d
	return a
}

func tHatProbe(hyp, tried string, gen func(*rand.Rand, int) tHatPoint) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Violate(cfg, probing("alg2: T-hat", hyp, tried), probeLimit, gen, tHatCase,
			verify.Judge[tHatPoint]{Parts: tHatParts, Conclusion: tHatJudged})
	}
}

// tHatSigmaEnds: σ̂_i(c) = 0 (a class absent from the group, allowed by
// σ̂_i ∈ Δ^C) makes line 9 divide 0 by 0.
func tHatSigmaEnds(verify.Config) []verify.EndCheck {
	set := &estimators.BagSet{NumClasses: 2, Bags: []estimators.Bag{{ID: 0, Size: 2, Proportions: []float64{1, 0}}, {ID: 1, Size: 2, Proportions: []float64{1, 0}}}}
	red, err := estimators.BuildPartition(set, estimators.Options{Mode: estimators.ModeUniform}, [][]int{{0, 1}})
	v := fmt.Sprintf("σ̂_i = (1, 0): T̂_i(·, 2) = 0/0 (the paper's line 9); ours completes the column with e₂ (err %v)", err)
	if err == nil {
		v = fmt.Sprintf("σ̂_i = %v: T̂_i(·, 2) = 0/0 (the paper's line 9); ours completes the column with e₂: %v", red.Groups[0].Sigma, mat.Formatted(red.Groups[0].T, mat.FormatPython()))
	}
	return []verify.EndCheck{endAt("a group of two bags with γ̂ = (1, 0)", verify.AtClosedEnd, v, verify.EndUndefined, 0)}
}

// alg1Point is a seed of `alg1: empirical risk unbiased` whose groups meet
// the grouping assumption (theory.AssumptionCH for each group's Γ̂_i and
// σ̂_i), bags drawn from P_{γ_b} with γ_b = ¾γ̂_b + ¼u (u drawn per bag).
type alg1Point struct{ seed int64 }

// alg1Governed moves γ̂ a quarter of the way to a random point of Δ^C.
func alg1Governed(r *rand.Rand, g []float64) []float64 {
	u := randSimplex(r, len(g), false)
	out := make([]float64, len(g))
	for i := range g {
		out[i] = 0.75*g[i] + 0.25*u[i]
	}
	return out
}

// alg1Assumption reports whether every group of the seed's reduction meets
// the grouping assumption for its own σ̂_i.
func alg1Assumption(seed int64) bool {
	_, _, _, _, red, err := unbiasedSetup(seed)
	if err != nil {
		return false
	}
	for _, g := range red.Groups {
		ok, err := theory.AssumptionCH(g.Gamma, g.Sigma)
		if err != nil || !ok {
			return false
		}
	}
	return true
}

// alg1Judged re-evaluates the seed's case: each bag's instances drawn from
// P_{γ_b}(x) = Σ_y γ_b(y)P_y(x), the loss −log(T̂f(x))_c, the risk
// Σ_x Σ_ỹ P_{σ̂_i,T̂_i}(x, ỹ)(−log(T̂f(x))_ỹ), all from their definitions.
func alg1Judged(p alg1Point) (bool, string) {
	r, m, f, set, red, err := unbiasedSetup(p.seed)
	if err != nil {
		return true, err.Error()
	}
	C, M := set.NumClasses, m.NumPoints()
	loss := func(T mat.Matrix, q []float64, c int) float64 {
		s := 0.0
		for k := 0; k < C; k++ {
			s += T.At(c, k) * q[k]
		}
		return -math.Log(s)
	}
	lhs, rhs := 0.0, 0.0
	for i, g := range red.Groups {
		for c, pos := range g.Bags {
			wt := red.InstanceWeight(i, c)
			if wt == 0 && g.Alpha[c] == 0 {
				continue
			}
			gov := alg1Governed(r, set.Bags[pos].Proportions)
			e := 0.0
			for x := 0; x < M; x++ {
				px := 0.0
				for y := 0; y < C; y++ {
					px += gov[y] * m.Cond[y][x]
				}
				e += px * loss(g.T, f[x], c)
			}
			lhs += float64(g.Sizes[c]) * wt * e
		}
		for x := 0; x < M; x++ {
			for yt := 0; yt < C; yt++ {
				pxy := 0.0
				for y := 0; y < C; y++ {
					pxy += g.Sigma[y] * m.Cond[y][x] * g.T.At(yt, y)
				}
				if pxy > 0 {
					rhs += g.Weight * pxy * loss(g.T, f[x], yt)
				}
			}
		}
	}
	return math.Abs(lhs-rhs) <= unbiasedTol*math.Max(1, math.Abs(rhs)), fmt.Sprintf("expected empirical risk %.12g, LMNTM risk %.12g (from the definitions)", lhs, rhs)
}

func probeUnbiasedGoverned(cfg verify.Config) verify.ProbeResult {
	return verify.Violate(cfg, probing("alg1: empirical risk unbiased", "bags governed by γ̂_b",
		"the claim's cases whose groups meet the grouping assumption, bag b's instances drawn from P_{γ_b}, γ_b = ¾γ̂_b + ¼u (u random in Δ^C), not P_{γ̂_b}"),
		probeLimit, func(r *rand.Rand, _ int) alg1Point {
			for {
				if s := r.Int63(); alg1Assumption(s) {
					return alg1Point{seed: s}
				}
			}
		}, func(p alg1Point) verify.Case { return unbiasedCase(p.seed, refWeight, alg1Governed) },
		verify.Judge[alg1Point]{
			Parts: func(p alg1Point) (map[string]bool, string) {
				// γ_b = ¾γ̂_b + ¼u differs from γ̂_b unless γ̂_b = u: a
				// probability-0 event the parts read off the drawn u.
				r, _, _, set, red, err := unbiasedSetup(p.seed)
				moved := false
				if err == nil {
					for _, g := range red.Groups {
						for _, pos := range g.Bags {
							gov := alg1Governed(r, set.Bags[pos].Proportions)
							for c := range gov {
								moved = moved || math.Abs(gov[c]-set.Bags[pos].Proportions[c]) > 1e-12
							}
						}
					}
				}
				return map[string]bool{"bags governed by γ̂_b": !moved, "grouping assumption": alg1Assumption(p.seed), "instances independent": keptByFamily}, ""
			},
			Conclusion: alg1Judged,
		})
}

func init() {
	verify.RegisterHypotheses("alg3: sigma-hat",
		verify.Hypothesis{Name: "γ̂_k the bags' label proportions", Kind: verify.HypGrouping, Line: 283, From: "definition: γ̂_k, the bags' label proportions (line 283)", Text: "we observe γ̂_k with γ̂_k(c) = (1/|b_k|)Σ_j 1{Y^k_j = c}",
			Probe: probeSigmaRounded, Expect: verify.Needed},
		verify.Hypothesis{Name: "|b_k| ≥ 1", Kind: verify.HypRange, Line: 373, From: verify.FromStatement, Text: "σ̂ ← Σ_k |b_k|γ̂_k / Σ_k |b_k|",
			Range: &verify.Range{Param: "|b_k|", Printed: "|b_k| ∈ ℕ (the cardinality of a bag)", Lo: "1", Hi: "∞", HiOpen: true, Integer: true, Ends: sigmaEmptyEnds}, Expect: verify.NeededToDefine},
	)
	verify.RegisterHypotheses("alg2: alpha-hat",
		verify.Hypothesis{Name: "Γ̂_i's rows ∈ Δ^C", Kind: verify.HypGrouping, Line: 376, From: "definition: Γ̂_i, the group's proportions γ̂ (line 376)", Of: "Γ̂_i's rows and σ̂ proportions",
			Text: "α̂_i ← argmin_{α∈Δ^C} ‖σ̂ − Γ̂_iᵀα‖²₂ with Γ̂_i's rows proportions",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probing("alg2: alpha-hat", "Γ̂_i's rows ∈ Δ^C", "Γ̂ with entries in [−1, 2] (not proportions), σ̂ ∈ Δ^C, C ∈ 2..6: the solver's α̂ against competitors"),
					probeLimit, genAlphaOff(true), alphaCase, verify.Judge[alphaPoint]{Parts: alphaParts, Conclusion: alphaJudged})
			}, Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "σ̂ ∈ Δ^C", Kind: verify.HypGrouping, Line: 373, From: "definition: σ̂ (Algorithm 3, line 2)", Of: "Γ̂_i's rows and σ̂ proportions",
			Text: "σ̂ the label proportion of all training points",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probing("alg2: alpha-hat", "σ̂ ∈ Δ^C", "σ̂ ∈ [−1, 2]^C (not proportions), Γ̂'s rows in Δ^C, C ∈ 2..6"),
					probeLimit, genAlphaOff(false), alphaCase, verify.Judge[alphaPoint]{Parts: alphaParts, Conclusion: alphaJudged})
			}, Expect: verify.NotNeeded},
	)
	verify.RegisterHypotheses("alg2: T-hat",
		verify.Hypothesis{Name: "α̂_i sums to 1", Kind: verify.HypGrouping, Line: 356, From: verify.FromStatement, Of: "α̂_i ∈ Δ^C (line 6 of Algorithms 2 and 3)", Text: "α̂_i's entries sum to 1",
			Probe: tHatProbe("α̂_i sums to 1", "α̂ = s·a with a ∈ Δ^C and s ∈ [0.1, 10] (non-negative, Σα̂ = s), Γ̂'s rows in Δ^C",
				genTHat(nil, func(r *rand.Rand, C int) []float64 {
					a := randSimplex(r, C, false)
					s := 0.1 + 9.9*r.Float64()
					if math.Abs(s-1) < 0.05 {
						s = 2
					}
					for i := range a {
						a[i] *= s
					}
					return a
				})), Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "α̂_i ≥ 0", Kind: verify.HypGrouping, Line: 356, From: verify.FromStatement, Of: "α̂_i ∈ Δ^C (line 6 of Algorithms 2 and 3)", Text: "α̂_i's entries non-negative",
			Probe: tHatProbe("α̂_i ≥ 0", "α̂ ∈ Δ^C with one entry made negative (−0.2, the others rescaled to keep Σ = 1), Γ̂'s rows in Δ^C",
				genTHat(nil, func(r *rand.Rand, C int) []float64 {
					return withNegative(r, randSimplex(r, C, false), 0.2)
				})), Expect: verify.Needed},
		verify.Hypothesis{Name: "γ̂_k ≥ 0", Kind: verify.HypGrouping, Line: 283, From: "definition: γ̂_k, the bags' label proportions (line 283)", Of: "γ̂_k ∈ Δ^C", Text: "the bags' proportions non-negative",
			Probe: tHatProbe("γ̂_k ≥ 0", "one row of Γ̂ with an entry made negative (−0.1, the row rescaled to sum 1), α̂ ∈ Δ̊^C",
				genTHat(func(r *rand.Rand, row []float64) []float64 {
					if r.Intn(2) == 0 {
						return row
					}
					return withNegative(r, row, 0.1)
				}, nil)), Expect: verify.Needed},
		verify.Hypothesis{Name: "γ̂_k sums to 1", Kind: verify.HypGrouping, Line: 283, From: "definition: γ̂_k, the bags' label proportions (line 283)", Of: "γ̂_k ∈ Δ^C", Text: "the bags' proportions sum to 1",
			Probe: tHatProbe("γ̂_k sums to 1", "Γ̂'s rows scaled by factors in [0.5, 2] (non-negative, not summing to 1), α̂ ∈ Δ̊^C",
				genTHat(func(r *rand.Rand, row []float64) []float64 {
					k := 0.5 + 1.5*r.Float64()
					if math.Abs(k-1) < 0.05 {
						k = 1.5
					}
					for i := range row {
						row[i] *= k
					}
					return row
				}, nil)), Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "σ̂_i(c) > 0", Kind: verify.HypRange, Line: 359, From: verify.FromStatement, Text: "T̂_i(c₁, c₂) ← γ̂_{k_{i,c₁}}(c₂)α̂_i(c₁)/σ̂_i(c₂) (the divisor σ̂_i(c₂) of line 9, σ̂_i ∈ Δ^C)",
			Range: &verify.Range{Param: "σ̂_i(c)", Printed: "σ̂_i(c) ∈ [0, 1]", Lo: "0", Hi: "1", Ends: tHatSigmaEnds}, Expect: verify.NotProbeable},
	)
	verify.RegisterHypotheses("alg1: empirical risk unbiased",
		verify.Hypothesis{Name: "bags governed by γ̂_b", Kind: verify.HypSampling, Line: 278, From: "definition: a bag governed by z (line 278)", Text: "bag b governed by z: (X_j, Y_j) iid ~ P_z; here z = γ̂_b (the proportions the reduction uses)",
			Probe: probeUnbiasedGoverned, Expect: verify.Needed},
		verify.Hypothesis{Name: "instances independent", Kind: verify.HypSampling, Line: 282, From: "definition: the LLP model, \"the X^k_j's are independent for all k and j\" (line 282)", Text: "the instances of all bags independent",
			Why: "unbiasedness is an expectation, linear in the instances' distributions: dependence between instances does not change it (the probe of llpfc-ideal: empirical risk with perfectly dependent copies: not needed)"},
		verify.Hypothesis{Name: "grouping assumption", Kind: verify.HypGrouping, Line: 390, From: verify.FromStatement, Text: "In Algorithm 1 we assume γ_k and σ are known and Assumption grouping assumption all groups holds",
			Why: "the claim is checked for the reduction of Algorithm 3 (approx) with σ̂_i = Γ̂_iᵀα̂_i, whose cases mostly violate it: unbiasedness needs only that the T̂_i, α̂_i and weights are the ones the loss uses (the assumption makes T̂_i the true T_i, a different statement); the probe of the bags' governing proportions keeps to cases that meet it"},
	)
}
