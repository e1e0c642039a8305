package algclaims

// Hypotheses of the claims of Algorithms 1–3 (issue 52): each as the
// algorithm or the text of Section 5 gives it, probed by re-running the
// claim with it violated, or evaluated at the ends of its range.

import (
	"fmt"
	"math"
	"math/rand"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/theory/verify"
)

const probeLimit = 500

func probeStream(label, hyp string) string { return "probe/" + label + "/" + hyp }

// probeSigmaRounded re-runs `alg3: sigma-hat` with the bags' proportions
// rounded to two decimals (renormalized): γ̂_k no longer the exact label
// proportions of b_k.
func probeSigmaRounded(cfg verify.Config) verify.ProbeResult {
	const label = "alg3: sigma-hat"
	return verify.Violate(cfg, probeStream(label, "γ̂_k the bags' label proportions"),
		"each bag's proportions rounded to two decimals and renormalized (no longer its labels' proportions), bags from the claim's generator",
		probeLimit, func(r *rand.Rand, _ int) int64 { return r.Int63() }, func(seed int64) verify.Case {
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
			got := estimators.SigmaHat(set)
			total := 0
			for _, k := range counts {
				total += k
			}
			worst := 0.0
			for c, k := range counts {
				worst = math.Max(worst, math.Abs(got[c]-float64(k)/float64(total)))
			}
			return verify.Case{LHS: 1 + worst, RHS: 1, OK: worst <= 1e-12, Detail: fmt.Sprintf("C=%d, %d bags: σ̂ = %.6g, label proportion %v/%d", set.NumClasses, len(set.Bags), got, counts, total)}
		})
}

// sigmaEmptyEnds evaluates σ̂ at |b_k| = 0: an empty bag weighs nothing; if
// every bag is empty σ̂ = 0/0.
func sigmaEmptyEnds(verify.Config) []verify.EndCheck {
	one := &estimators.BagSet{NumClasses: 2, Bags: []estimators.Bag{{ID: 0, Size: 3, Proportions: []float64{1.0 / 3, 2.0 / 3}}, {ID: 1, Size: 0, Proportions: []float64{1, 0}}}}
	got := estimators.SigmaHat(one)
	return []verify.EndCheck{
		endAt("|b_1| = 3 with γ̂ = (⅓, ⅔), |b_2| = 0", verify.AtOutside, fmt.Sprintf("σ̂ = %.6g: the empty bag weighs 0", got), holdsIf(math.Abs(got[0]-1.0/3) < 1e-12, verify.EndFalse)),
		endAt("every |b_k| = 0", verify.AtOutside, "σ̂ = 0/0", verify.EndUndefined),
	}
}

func endAt(at, where, value string, v verify.EndVerdict) verify.EndCheck {
	return verify.EndCheck{At: at, Where: where, Value: value, Verdict: v}
}

func holdsIf(ok bool, bad verify.EndVerdict) verify.EndVerdict {
	if ok {
		return verify.EndHolds
	}
	return bad
}

// probeAlphaRealGamma re-runs `alg2: alpha-hat` with Γ̂'s rows arbitrary
// real vectors (not proportions) and σ̂ arbitrary: the KKT conditions and
// the competitors' test still hold for the exact solver.
func probeAlphaRealGamma(cfg verify.Config) verify.ProbeResult {
	const label = "alg2: alpha-hat"
	return verify.Violate(cfg, probeStream(label, "γ̂_k, σ̂ ∈ Δ^C"),
		"Γ̂ with entries in [−1, 2] and σ̂ ∈ [−1, 2]^C (not proportions), C ∈ 2..6: KKT and competitors as in the claim",
		probeLimit, func(r *rand.Rand, _ int) int64 { return r.Int63() }, func(seed int64) verify.Case {
			r := rand.New(rand.NewSource(seed))
			C := 2 + r.Intn(5)
			G := mat.NewDense(C, C, nil)
			sigma := make([]float64, C)
			for i := 0; i < C; i++ {
				sigma[i] = -1 + 3*r.Float64()
				for j := 0; j < C; j++ {
					G.Set(i, j, -1+3*r.Float64())
				}
			}
			A := G.T()
			alpha, err := estimators.SimplexLS(A, sigma)
			if err != nil {
				return verify.Case{Detail: err.Error()}
			}
			f := resid2(A, alpha, sigma)
			best := math.Inf(1)
			for k := 0; k < 40; k++ {
				best = math.Min(best, resid2(A, randSimplex(r, C, k%2 == 0), sigma))
			}
			for k := 0; k < C; k++ {
				b := make([]float64, C)
				for j := range b {
					b[j] = 0.99 * alpha[j]
				}
				b[k] += 0.01
				best = math.Min(best, resid2(A, b, sigma))
			}
			return verify.Case{LHS: f, RHS: best, OK: f <= best+1e-12, Detail: fmt.Sprintf("Γ̂=%v σ̂=%.6g: ‖Γ̂ᵀα̂−σ̂‖² = %.6g > a competitor's %.6g", mat.Formatted(G, mat.FormatPython()), sigma, f, best)}
		})
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

// probeTHatAlpha re-runs `alg2: T-hat` with α̂ scaled (non-negative, not
// summing to 1) or with a negative entry.
func probeTHatAlpha(hyp, tried string, alphaOf func(r *rand.Rand, C int) []float64) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Violate(cfg, probeStream("alg2: T-hat", hyp), tried, probeLimit,
			func(r *rand.Rand, _ int) int64 { return r.Int63() }, func(seed int64) verify.Case {
				r := rand.New(rand.NewSource(seed))
				C := 2 + r.Intn(5)
				G := mat.NewDense(C, C, nil)
				for c := 0; c < C; c++ {
					G.SetRow(c, randSimplex(r, C, false))
				}
				alpha := alphaOf(r, C)
				T, sigma := tFrom(G, alpha)
				for _, s := range sigma {
					if s <= 1e-9 { // a vanishing divisor: the ends' case, not this probe's
						return verify.Case{OK: true}
					}
				}
				return verify.Case{LHS: 1, RHS: 1, OK: colStochastic(T), Detail: fmt.Sprintf("Γ̂=%v α̂=%.6g: T̂=%v is not column-stochastic", mat.Formatted(G, mat.FormatPython()), alpha, mat.Formatted(T, mat.FormatPython()))}
			})
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
	return []verify.EndCheck{endAt("a group of two bags with γ̂ = (1, 0)", verify.AtClosedEnd, v, verify.EndUndefined)}
}

// probeUnbiasedGoverned re-runs `alg1: empirical risk unbiased` with bag
// b's instances drawn from P_{γ_b}, γ_b = γ̂_b moved by ¼ toward a random
// point: the bags are not governed by their proportions.
func probeUnbiasedGoverned(cfg verify.Config) verify.ProbeResult {
	c := verify.Config{Cases: verify.ProbeCases(cfg, probeLimit), Seed: cfg.Seed}
	return verify.ProbeOutcome(checkUnbiasedGoverned(c, probeStream("alg1: empirical risk unbiased", "bags governed by γ̂_b"), refWeight,
		func(r *rand.Rand, g []float64) []float64 {
			u := randSimplex(r, len(g), false)
			out := make([]float64, len(g))
			for i := range g {
				out[i] = 0.75*g[i] + 0.25*u[i]
			}
			return out
		}), "the claim's checker with bag b's instances drawn from P_{γ_b}, γ_b = ¾γ̂_b + ¼u (u random in Δ^C), not P_{γ̂_b}")
}

func init() {
	verify.RegisterHypotheses("alg3: sigma-hat",
		verify.Hypothesis{Name: "γ̂_k the bags' label proportions", Kind: verify.HypGrouping, Line: 283, Text: "we observe γ̂_k with γ̂_k(c) = (1/|b_k|)Σ_j 1{Y^k_j = c}",
			Probe: probeSigmaRounded, Expect: verify.Needed},
		verify.Hypothesis{Name: "|b_k| ≥ 1", Kind: verify.HypRange, Line: 373, Text: "σ̂ ← Σ_k |b_k|γ̂_k / Σ_k |b_k|",
			Range: &verify.Range{Param: "|b_k|", Printed: "|b_k| ∈ ℕ (the cardinality of a bag)", Lo: "1", Hi: "∞", HiOpen: true, Ends: sigmaEmptyEnds}, Expect: verify.Needed},
	)
	verify.RegisterHypotheses("alg2: alpha-hat",
		verify.Hypothesis{Name: "γ̂_k, σ̂ ∈ Δ^C", Kind: verify.HypRange, Line: 377, Text: "α̂_i ← argmin_{α∈Δ^C} ‖σ̂ − Γ̂_iᵀα‖²₂ (Γ̂_i's rows and σ̂ proportions)",
			Range: &verify.Range{Param: "Γ̂_i, σ̂", Printed: "rows of Γ̂_i and σ̂ in Δ^C"}, Probe: probeAlphaRealGamma, Expect: verify.NotNeeded},
	)
	verify.RegisterHypotheses("alg2: T-hat",
		verify.Hypothesis{Name: "α̂_i sums to 1", Kind: verify.HypGrouping, Line: 356, Text: "α̂_i ∈ Δ^C (line 6 of Algorithms 2 and 3): its normalization",
			Probe: probeTHatAlpha("α̂_i sums to 1", "α̂ = s·a with a ∈ Δ^C and s ∈ [0.1, 10] (non-negative, Σα̂ = s), Γ̂'s rows in Δ^C",
				func(r *rand.Rand, C int) []float64 {
					a := randSimplex(r, C, false)
					s := 0.1 + 9.9*r.Float64()
					for i := range a {
						a[i] *= s
					}
					return a
				}), Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "α̂_i ≥ 0", Kind: verify.HypGrouping, Line: 356, Text: "α̂_i ∈ Δ^C (line 6 of Algorithms 2 and 3): its non-negativity",
			Probe: probeTHatAlpha("α̂_i ≥ 0", "α̂ ∈ Δ^C with one entry made negative (−0.2, the others rescaled to keep Σ = 1), Γ̂'s rows in Δ^C",
				func(r *rand.Rand, C int) []float64 {
					a := randSimplex(r, C, false)
					k := r.Intn(C)
					for i := range a {
						a[i] *= 1.2
					}
					a[k] = -0.2
					return a
				}), Expect: verify.Needed},
		verify.Hypothesis{Name: "σ̂_i(c) > 0", Kind: verify.HypRange, Line: 359, Text: "T̂_i(c₁, c₂) ← γ̂_{k_{i,c₁}}(c₂)α̂_i(c₁)/σ̂_i(c₂) (the divisor σ̂_i(c₂) of line 9, σ̂_i ∈ Δ^C)",
			Range: &verify.Range{Param: "σ̂_i(c)", Printed: "σ̂_i = Γ̂_iᵀα̂_i ∈ Δ^C", Lo: "0", Hi: "1", Ends: tHatSigmaEnds}, Expect: verify.NotProbeable},
	)
	verify.RegisterHypotheses("alg1: empirical risk unbiased",
		verify.Hypothesis{Name: "bags governed by γ̂_b", Kind: verify.HypSampling, Line: 278, Text: "bag b governed by z: (X_j, Y_j) iid ~ P_z; here z = γ̂_b (the proportions the reduction uses)",
			Probe: probeUnbiasedGoverned, Expect: verify.Needed},
		verify.Hypothesis{Name: "grouping assumption", Kind: verify.HypGrouping, Line: 390, Text: "In Algorithm 1 we assume γ_k and σ are known and Assumption grouping assumption all groups holds",
			Why: "the claim is checked for the reduction of Algorithm 3 (approx) with σ̂_i = Γ̂_iᵀα̂_i, which holds on every group whether or not the assumption does: unbiasedness needs only that the T̂_i, α̂_i and weights are the ones the loss uses (the assumption makes T̂_i the true T_i, a different statement)"},
	)
}
