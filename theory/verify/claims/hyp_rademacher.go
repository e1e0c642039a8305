package claims

// Hypotheses of the claims of Section 4.3 and Appendix C (weighted
// Rademacher complexity, contraction, the class bounds and the
// generalization bounds), issue 52.

import (
	"fmt"
	"math"
	"math/rand"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

// Probes of the sampled bounds cost ≈ 150 simulated samples a case, and
// those of the depth-2 MLP a gradient search a sign vector: their cases are
// capped lower than the pointwise probes'.
const (
	probeLimitSampled = 60
	probeLimitMLP2    = 40
)

// radSigned is Rad_{S,a}(𝒢) for weights a of any sign: the values scaled
// by a_i, enumerated with unit weights (theory's oracles take a ≥ 0).
func radSigned(values *mat.Dense, a []float64) float64 {
	G, M := values.Dims()
	V := mat.NewDense(G, M, nil)
	for g := 0; g < G; g++ {
		for i := 0; i < M; i++ {
			V.Set(g, i, a[i]*values.At(g, i))
		}
	}
	ones := make([]float64, M)
	for i := range ones {
		ones[i] = 1
	}
	return radFinite(V, ones)
}

// radNegA is Rad with every other weight negated: a ≥ 0 violated.
func radNegA(values *mat.Dense, a []float64) float64 {
	b := append([]float64(nil), a...)
	for i := range b {
		if i%2 == 1 {
			b[i] = -b[i]
		}
	}
	return radSigned(values, b)
}

// probeRadNegA re-runs an item of `supp.prop.weighted_rad_properties` with
// Rad computed for weights of both signs.
func probeRadNegA(label string, check func(verify.Config, string, func(*mat.Dense, []float64) float64) verify.Outcome) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		c := verify.Config{Cases: verify.ProbeCases(cfg, probeLimit), Seed: cfg.Seed}
		return verify.ProbeOutcome(check(c, probeStream(label, "a_i ≥ 0"), radNegA),
			"the claim's checker with every other weight a_i negated (a_i < 0), Rad by exact enumeration")
	}
}

// radMultCheck is item 3 (c₀𝒢) with Rad of signed weights.
func radMultCheck(cfg verify.Config, name string, rad func(*mat.Dense, []float64) float64) verify.Outcome {
	return verify.Property(cfg, name, verify.Identity, radPropGen, func(cs radPropCase) verify.Case {
		var S mat.Dense
		S.Scale(cs.c0, cs.G1)
		lhs, rhs := rad(&S, cs.a), math.Abs(cs.c0)*rad(cs.G1, cs.a)
		return radCase(lhs, rhs, relEq(lhs, rhs, radTol), fmt.Sprintf("c0=%g a=%v G=%v", cs.c0, cs.a, mat.Formatted(cs.G1, mat.Squeeze())))
	})
}

// radConvCheck is item 4 with Rad of signed weights: 𝒢 and 𝒢 with convex
// combinations of its members added.
func radConvCheck(cfg verify.Config, name string, rad func(*mat.Dense, []float64) float64) verify.Outcome {
	return verify.Property(cfg, name, verify.Identity, radPropGen, func(cs radPropCase) verify.Case {
		r := rand.New(rand.NewSource(cs.seed))
		G, M := cs.G1.Dims()
		extra := 1 + r.Intn(8)
		H := mat.NewDense(G+extra, M, nil)
		H.Slice(0, G, 0, M).(*mat.Dense).Copy(cs.G1)
		for e := 0; e < extra; e++ {
			lam := radSimplex(r, G, r.Intn(2) == 0)
			for i := 0; i < M; i++ {
				s := 0.0
				for j := 0; j < G; j++ {
					s += lam[j] * cs.G1.At(j, i)
				}
				H.Set(G+e, i, s)
			}
		}
		lhs, rhs := rad(H, cs.a), rad(cs.G1, cs.a)
		return radCase(lhs, rhs, relEq(lhs, rhs, radTol), fmt.Sprintf("a=%v G=%v", cs.a, mat.Formatted(cs.G1, mat.Squeeze())))
	})
}

// radSubsetNotContained is item 1 with ℋ = 𝒢₂, which need not contain 𝒢₁.
func radSubsetNotContained(cfg verify.Config) verify.ProbeResult {
	const label = "supp.prop.rad: subset"
	return verify.Violate(cfg, probeStream(label, "𝒢 ⊂ ℋ"), "ℋ = 𝒢₂ drawn independently of 𝒢 = 𝒢₁ (𝒢 ⊄ ℋ), the claim's generator",
		probeLimit, radPropGen, func(cs radPropCase) verify.Case {
			lhs, rhs := radFinite(cs.G1, cs.a), radFinite(cs.G2, cs.a)
			return radCase(lhs, rhs, radLE(lhs, rhs), fmt.Sprintf("a=%v G=%v H=%v", cs.a, mat.Formatted(cs.G1, mat.Squeeze()), mat.Formatted(cs.G2, mat.Squeeze())))
		})
}

// radLipUnder is item 5 with the Lipschitz constant understated by half:
// |μ|/2 is not a Lipschitz constant of μ.
func radLipUnder(cfg verify.Config) verify.ProbeResult {
	const label = "supp.prop.rad: lip"
	return verify.Violate(cfg, probeStream(label, "μ Lipschitz with constant |μ|"),
		"|μ| understated by half (μ from the claim's generator, |μ|/2 in the bound: not a Lipschitz constant of μ)",
		probeLimit, radPropGen, func(cs radPropCase) verify.Case {
			G, M := cs.G1.Dims()
			U := mat.NewDense(G, M, nil)
			for g := 0; g < G; g++ {
				for i := 0; i < M; i++ {
					U.Set(g, i, cs.mu.f([]float64{cs.G1.At(g, i)}))
				}
			}
			lhs, rhs := radFinite(U, cs.a), cs.mu.L/2*radFinite(cs.G1, cs.a)
			return radCase(lhs, rhs, radLE(lhs, rhs), fmt.Sprintf("μ=%s a=%v G=%v", cs.mu.name, cs.a, mat.Formatted(cs.G1, mat.Squeeze())))
		})
}

// radMulti1Signed re-runs `lemma: multi.rad.1` with a < 0 (the weight's
// sign dropped): both sides by exact enumeration.
func radMulti1Signed(cfg verify.Config) verify.ProbeResult {
	return verify.Violate(cfg, probeStream("lemma: multi.rad.1", "a > 0"),
		"a ∈ [−10, −0.1] (negative), λ and finite ℋ, φ as in the claim's generator",
		probeLimit, func(r *rand.Rand, _ int) radMulti1Case {
			C, H := 1+r.Intn(4), 1+r.Intn(6)
			cs := radMulti1Case{a: -logUnif(r, 0.1, 10), lam: radRandLip(r, C)}
			scale := logUnif(r, 0.1, 20)
			for h := 0; h < H; h++ {
				cs.fx = append(cs.fx, radBallPoint(r, C, scale, r.Intn(2) == 0))
				cs.phi = append(cs.phi, r.NormFloat64()*scale)
			}
			return cs
		}, func(cs radMulti1Case) verify.Case {
			H, C := len(cs.fx), len(cs.fx[0])
			hi, lo := math.Inf(-1), math.Inf(-1)
			for h := 0; h < H; h++ {
				l := cs.a * cs.lam.f(cs.fx[h])
				hi = math.Max(hi, l+cs.phi[h])
				lo = math.Max(lo, -l+cs.phi[h])
			}
			lhs := (hi + lo) / 2
			rhs := 0.0
			for code := 0; code < 1<<C; code++ { // E over the 2^C signs, a negative
				eps := make([]float64, C)
				for c := range eps {
					eps[c] = float64(1 - 2*(code>>c&1))
				}
				best := math.Inf(-1)
				for h := 0; h < H; h++ {
					best = math.Max(best, math.Sqrt2*cs.a*cs.lam.L*radDot(eps, cs.fx[h])+cs.phi[h])
				}
				rhs += best / float64(int(1)<<C)
			}
			return radCase(lhs, rhs, radLE(lhs, rhs), fmt.Sprintf("a=%g λ=%s f(x)=%v φ=%v", cs.a, cs.lam.name, cs.fx, cs.phi))
		})
}

// radMultiLemmaSigned re-runs `multi.rad.lemma` with weights w_i of both
// signs and zeros: Rad of signed weights on both sides.
func radMultiLemmaSigned(cfg verify.Config) verify.ProbeResult {
	return verify.Violate(cfg, probeStream("multi.rad.lemma", "w_i > 0"),
		"w_i ∈ [−5, 5] (negative and zero weights), λ_i and ℋ as in the claim's generator",
		probeLimit, func(r *rand.Rand, _ int) radMultiCase {
			C := 1 + r.Intn(3)
			N := min(1+r.Intn(12/C), 4)
			cs := radMultiCase{}
			scale := logUnif(r, 0.1, 20)
			for i := 0; i < N; i++ {
				w := unif(r, -5, 5)
				if r.Intn(5) == 0 {
					w = 0
				}
				cs.w = append(cs.w, w)
				cs.lam = append(cs.lam, radRandLip(r, C))
			}
			for h := 0; h < 1+r.Intn(5); h++ {
				var f [][]float64
				for i := 0; i < N; i++ {
					f = append(f, radBallPoint(r, C, scale, r.Intn(2) == 0))
				}
				cs.fx = append(cs.fx, f)
			}
			return cs
		}, func(cs radMultiCase) verify.Case {
			N, H, C := len(cs.w), len(cs.fx), len(cs.fx[0][0])
			vals := mat.NewDense(H, N, nil)
			vecs := make([]mat.Matrix, H)
			for h := 0; h < H; h++ {
				V := mat.NewDense(N, C, nil)
				for i := 0; i < N; i++ {
					vals.Set(h, i, cs.w[i]*cs.lam[i].f(cs.fx[h][i]))
					row := make([]float64, C)
					for c := range row {
						row[c] = cs.w[i] * cs.lam[i].L * cs.fx[h][i][c]
					}
					V.SetRow(i, row)
				}
				vecs[h] = V
			}
			ones := make([]float64, N)
			for i := range ones {
				ones[i] = 1
			}
			lhs := radFinite(vals, ones)
			rhs := math.Sqrt2 * radFiniteVec(vecs, ones)
			return radCase(lhs, rhs, radLE(lhs, rhs), fmt.Sprintf("w=%v f(x_i)=%v", cs.w, cs.fx))
		})
}

// probeKernelK re-runs a kernel bound with K halved: the kernel is then
// not bounded by the K the bound uses.
func probeKernelK(label string, check func(verify.Config, string, radKernelBoundFn) verify.Outcome) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		c := verify.Config{Cases: verify.ProbeCases(cfg, probeLimit), Seed: cfg.Seed}
		return verify.ProbeOutcome(check(c, probeStream(label, "k bounded by K"), func(C int, R, K float64, a []float64) float64 {
			return radKernelRef(C, R, K/2, a)
		}), "the claim's checker with K halved in the bound (‖k(·,x)‖ up to 2K, the bound's K)")
	}
}

// probeMLPAlpha re-runs an MLP bound (depth 1, exact) with α halved: the
// points' norms exceed the bound's α.
func probeMLPAlpha(label string, check func(verify.Config, string, radMLPBoundFn, int) verify.Outcome) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		c := verify.Config{Cases: verify.ProbeCases(cfg, probeLimit), Seed: cfg.Seed}
		return verify.ProbeOutcome(check(c, probeStream(label, "‖x‖ ≤ α"), func(C, m int, alpha, beta float64, a []float64) float64 {
			return radMLPRef(C, m, alpha/2, beta, a)
		}, 1), "the claim's checker, depth m = 1 (exact), with α halved in the bound (points of norm up to 2α)")
	}
}

// probeMLPActivation re-runs Proposition `supp.prop: MLP_bound` at depth 2
// with an activation μ violating one hypothesis: 3·ReLU (3-Lipschitz) or
// ReLU + 1 (1-Lipschitz, 0 ∉ μ∘𝒩₁).
func probeMLPActivation(hyp, tried string, mu theory.Activation) func(verify.Config) verify.ProbeResult {
	const label = "supp.prop: MLP_bound"
	opts := theory.MLPSupOptions{Restarts: 4, Steps: 25}
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Violate(cfg, probeStream(label, hyp), tried, probeLimitMLP2, func(r *rand.Rand, _ int) radMLPCase {
			cs := radMLPCase{m: 2, alpha: logUnif(r, 0.1, 5), beta: logUnif(r, 0.3, 3), mu: mu, seed: r.Int63(), C: 1}
			M := 1 + r.Intn(4)
			p := 1 + r.Intn(3)
			cs.X = mat.NewDense(M, p, nil)
			for i := 0; i < M; i++ {
				cs.X.SetRow(i, radBallPoint(r, p, cs.alpha, r.Intn(2) == 0))
			}
			cs.a = radWeights(r, M)
			return cs
		}, func(cs radMLPCase) verify.Case {
			v, err := radMLPRad(2, cs.X, cs.a, cs.beta, cs.mu, cs.seed, opts)
			if err != nil {
				return verify.Case{OK: true, Detail: err.Error()}
			}
			rhs := radMLPRef(1, 2, cs.alpha, cs.beta, cs.a)
			return radCase(v, rhs, radLE(v, rhs), fmt.Sprintf("m=2 μ=%s α=%g β=%g a=%v X=%v", cs.mu.Name, cs.alpha, cs.beta, cs.a, mat.Formatted(cs.X, mat.Squeeze())))
		})
	}
}

var (
	relu3 = theory.Activation{Name: "3·relu", F: func(t float64) float64 { return 3 * math.Max(t, 0) },
		D: func(t float64) float64 {
			if t > 0 {
				return 3
			}
			return 0
		}}
	reluPlus1 = theory.Activation{Name: "relu+1", F: func(t float64) float64 { return math.Max(t, 0) + 1 },
		D: func(t float64) float64 {
			if t > 0 {
				return 1
			}
			return 0
		}}
)

// zeroWeightEnds evaluates a class bound at the open end a_i = 0 of a_i > 0.
func zeroWeightEnds(kernel bool) func(verify.Config) []verify.EndCheck {
	return func(verify.Config) []verify.EndCheck {
		X := mat.NewDense(3, 1, []float64{0.5, -1, 0.8})
		a := []float64{1, 0, 0.5}
		var lhs, rhs float64
		if kernel {
			g := must(theory.GaussianGram(X, 1))
			lhs = must(theory.WeightedRadExact(3, must(theory.RKHSBallSup(g, a, 1))))
			rhs = radKernelRef(1, 1, 1, a)
		} else {
			lhs = must(theory.WeightedRadExact(3, must(theory.LinearBallSup(X, a, 1))))
			rhs = radMLPRef(1, 1, 1, 1, a)
		}
		return []verify.EndCheck{endAt("a = (1, 0, ½)", verify.AtOpenEnd, fmt.Sprintf("left side %.6g ≤ right side %.6g", lhs, rhs), holdsIf(radLE(lhs, rhs), verify.EndFalse))}
	}
}

// zeroRadiusEnds evaluates a class bound at the open end 0 of its radius (R
// of the RKHS ball, β of 𝒩₁): the class is {0}, both sides are 0.
func zeroRadiusEnds(kernel bool) func(verify.Config) []verify.EndCheck {
	return func(verify.Config) []verify.EndCheck {
		X := mat.NewDense(2, 1, []float64{0.5, -1})
		a := []float64{1, 0.5}
		var lhs, rhs float64
		if kernel {
			lhs = must(theory.WeightedRadExact(2, must(theory.RKHSBallSup(must(theory.GaussianGram(X, 1)), a, 0))))
			rhs = radKernelRef(1, 0, 1, a)
		} else {
			lhs = must(theory.WeightedRadExact(2, must(theory.LinearBallSup(X, a, 0))))
			rhs = radMLPRef(1, 1, 1, 0, a)
		}
		return []verify.EndCheck{endAt("radius 0", verify.AtOpenEnd, fmt.Sprintf("the class is {0}: left side %g ≤ right side %g", lhs, rhs), holdsIf(radLE(lhs, rhs), verify.EndFalse))}
	}
}

// deltaEnds evaluates a generalization bound at the ends of δ's range: at
// δ = 0 the term √(2 log(2/δ)) is +∞ (theory refuses δ = 0: radCheckDelta);
// at δ = 1 the bound holds with probability ≥ 0, vacuously; just above 0 it
// is finite and large; above 1 "probability ≥ 1 − δ < 0" is vacuous.
func deltaEnds(closedAtZero bool, bound func(delta float64) (float64, error)) func(verify.Config) []verify.EndCheck {
	return func(verify.Config) []verify.EndCheck {
		zeroWhere := verify.AtOpenEnd
		if closedAtZero {
			zeroWhere = verify.AtClosedEnd
		}
		_, err0 := bound(0)
		tiny, _ := bound(1e-300)
		one, _ := bound(1)
		refused := "theory accepts it"
		if err0 != nil {
			refused = "theory refuses it: " + err0.Error()
		}
		return []verify.EndCheck{
			endAt("δ = 0", zeroWhere, fmt.Sprintf("√(2 log(2/δ)) = +Inf: the bound is +Inf (%s)", refused), verify.EndInfinite),
			endAt("δ = 1e-300", verify.AtJustInside, fmt.Sprintf("bound = %s, with probability ≥ 1 − 1e-300", verify.FormatValue(tiny)), holdsIf(!math.IsInf(tiny, 0) && tiny > 0, verify.EndInfinite)),
			endAt("δ = 1", verify.AtClosedEnd, fmt.Sprintf("bound = %s, with probability ≥ 0", verify.FormatValue(one)), verify.EndVacuous),
			endAt("δ = 1.5", verify.AtOutside, "with probability ≥ −0.5", verify.EndVacuous),
		}
	}
}

// deltaSetting is a small log-loss LMNTM setting for the δ end checks.
func deltaSetting() theory.LMNTMSetting {
	s, err := theory.NewLogLossSetting([]mat.Matrix{GenUniformNoiseT(2, 0.2)}, []float64{1}, [][]float64{{0.5, 0.5}}, [][]int{{100, 100}})
	if err != nil {
		panic(err)
	}
	return s
}

// mRangeEnds evaluates the MLP bound at depths m = 1 and m = 2: §4.3 defines
// 𝒩_m "for m > 2" (line 240), the appendix "for m > 1" (line 1745).
func mRangeEnds(verify.Config) []verify.EndCheck {
	X := mat.NewDense(2, 1, []float64{0.7, -0.4})
	a := []float64{1, 0.6}
	one := must(theory.WeightedRadExact(2, must(theory.LinearBallSup(X, a, 1))))
	rnd := radV2(rand.New(rand.NewSource(1)))
	two := must(theory.WeightedRadExact(2, func(eps []float64) float64 {
		v, _, err := theory.MLPSup(2, X, a, 1, theory.ReLU, eps, rnd, theory.MLPSupOptions{Restarts: 4, Steps: 25})
		if err != nil {
			panic(err)
		}
		return v
	}))
	return []verify.EndCheck{
		endAt("m = 1", verify.AtClosedEnd, fmt.Sprintf("Rad(𝒩₁) = %.4g ≤ α2⁰β√Σa² = %.4g", one, radMLPRef(1, 1, 1, 1, a)), holdsIf(radLE(one, radMLPRef(1, 1, 1, 1, a)), verify.EndFalse)),
		endAt("m = 2 (excluded by §4.3's \"m > 2\", line 240; included by the appendix's \"m > 1\", line 1745)", verify.AtOutside,
			fmt.Sprintf("Rad(𝒩₂) ≥ %.4g (search) ≤ α2¹β²√Σa² = %.4g", two, radMLPRef(1, 2, 1, 1, a)), holdsIf(radLE(two, radMLPRef(1, 2, 1, 1, a)), verify.EndFalse)),
	}
}

// probeSampledA re-runs a sampled bound with A understated by a factor 4
// (sup ‖g(x)‖₂ up to 4A, the bound's A).
func probeSampledA(label string, run func(cfg verify.Config, name string, bound radBoundFn) verify.Outcome, bound func(s theory.LMNTMSetting, delta, A, classTerm float64) (float64, error)) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		c := verify.Config{Cases: verify.ProbeCases(cfg, probeLimitSampled), Seed: cfg.Seed}
		return verify.ProbeOutcome(run(c, probeStream(label, "sup ‖g(x)‖₂ ≤ A"), func(s theory.LMNTMSetting, delta, A, ct float64) float64 {
			return must(bound(s, delta, A/4, ct))
		}), "the claim's checker (150 samples a case, binomial test at level 1e-6) with A understated by 4 in the bound")
	}
}

const (
	whySampler    = "the simulation draws every X_{i,c,j} independently from P_{T_i}(·|c) (radSimulate); a dependent sampler is not implemented, and McDiarmid's inequality, the proof's first step, needs independence"
	whyInvertible = "the sampled problems build T_i from diagonally dominant Γ_i (radDrawProblem), always invertible; the bound uses T_i only through |λ_{ℓ_{T_i}}| (√2 for every column-stochastic T, lip.upper.bd.cel) and |λ_{ℓ_{T_i}}|₀, finite for any T_i without a zero row (the probe of lambda0.formula)"
)

// alphaOpenEnds: α_i(c) = 0 leaves class c of group i without a noisy
// class-conditional to draw the n_{i,c} ≥ 1 points from.
func alphaOpenEnds(verify.Config) []verify.EndCheck {
	return []verify.EndCheck{endAt("α_i = (1, 0)", verify.AtOpenEnd, "P_{T_i}(·|Ỹ = 2) = P_{T_i}(·, Ỹ = 2)/α_i(2) = 0/0: the n_{i,2} ≥ 1 points have no distribution", verify.EndUndefined)}
}

func init() {
	verify.RegisterHypotheses("vec.rad.ineq",
		verify.Hypothesis{Name: "v ∈ ℝ^M, M ∈ ℕ", Kind: verify.HypRange, Line: 1567, Text: "∀M ∈ ℕ, ∀v ∈ ℝ^M",
			Range: &verify.Range{Param: "M", Printed: "M ∈ ℕ, v ∈ ℝ^M", Lo: "1", Hi: "∞", HiOpen: true, Ends: func(verify.Config) []verify.EndCheck {
				e := must(theory.WeightedRadExact(1, func(eps []float64) float64 { return math.Abs(3 * eps[0]) }))
				return []verify.EndCheck{
					endAt("M = 1, v = (3)", verify.AtClosedEnd, fmt.Sprintf("‖v‖₂ = 3 ≤ √2·E|3ε| = %.6g", math.Sqrt2*e), holdsIf(3 <= math.Sqrt2*e, verify.EndFalse)),
					endAt("v = 0", verify.AtClosedEnd, "0 ≤ 0", verify.EndHolds),
				}
			}}, Expect: verify.NotProbeable},
	)
	verify.RegisterHypotheses("lemma: multi.rad.1",
		verify.Hypothesis{Name: "a > 0", Kind: verify.HypRange, Line: 1557, Text: "let a be a positive real number",
			Range: &verify.Range{Param: "a", Printed: "a ∈ (0, ∞)", Lo: "0", Hi: "∞", LoOpen: true, HiOpen: true}, Probe: radMulti1Signed, Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "λ Lipschitz with constant |λ|", Kind: verify.HypLoss, Line: 1557, Text: "λ: ℝ^C → ℝ a Lipschitz function w.r.t. ‖·‖₂, |λ| its Lipschitz constant (understated by half)",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				c := verify.Config{Cases: verify.ProbeCases(cfg, probeLimit), Seed: cfg.Seed}
				return verify.ProbeOutcome(radCheckMulti1(c, probeStream("lemma: multi.rad.1", "λ Lipschitz with constant |λ|"), math.Sqrt2/2),
					"the claim's checker with |λ|/2 in place of |λ| (not a Lipschitz constant of λ)")
			}, Expect: verify.Needed},
	)
	verify.RegisterHypotheses("multi.rad.lemma",
		verify.Hypothesis{Name: "w_i > 0", Kind: verify.HypRange, Line: 1585, Text: "∀i, let w_i be a positive real number",
			Range: &verify.Range{Param: "w_i", Printed: "w_i ∈ (0, ∞)", Lo: "0", Hi: "∞", LoOpen: true, HiOpen: true}, Probe: radMultiLemmaSigned, Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "λ_i Lipschitz with constant |λ_i|", Kind: verify.HypLoss, Line: 1585, Text: "λ_i: ℝ^C → ℝ a Lipschitz function, |λ_i| its Lipschitz constant (understated by half)",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				c := verify.Config{Cases: verify.ProbeCases(cfg, probeLimit), Seed: cfg.Seed}
				return verify.ProbeOutcome(radCheckMultiLemma(c, probeStream("multi.rad.lemma", "λ_i Lipschitz with constant |λ_i|"), math.Sqrt2/2),
					"the claim's checker with |λ_i|/2 in place of |λ_i|")
			}, Expect: verify.Needed},
	)
	aHyp := func(label string, probe func(verify.Config) verify.ProbeResult) verify.Hypothesis {
		return verify.Hypothesis{Name: "a_i ≥ 0", Kind: verify.HypRange, Line: 1672, Text: "weights a = (a_i) where a_i ≥ 0 (the definition of Rad_{S,a})",
			Range: &verify.Range{Param: "a_i", Printed: "a_i ∈ [0, ∞)", Lo: "0", Hi: "∞", HiOpen: true}, Probe: probe, Expect: verify.NotNeeded}
	}
	verify.RegisterHypotheses("supp.prop.rad: subset",
		verify.Hypothesis{Name: "𝒢 ⊂ ℋ", Kind: verify.HypClass, Line: 1678, Text: "𝒢 ⊂ ℋ ⇒ Rad(𝒢) ≤ Rad(ℋ)", Probe: radSubsetNotContained, Expect: verify.Needed},
		aHyp("supp.prop.rad: subset", probeRadNegA("supp.prop.rad: subset", radCheckSubset)))
	verify.RegisterHypotheses("supp.prop.rad: sum", aHyp("supp.prop.rad: sum", probeRadNegA("supp.prop.rad: sum", radCheckSum)))
	verify.RegisterHypotheses("supp.prop.rad: mult",
		aHyp("supp.prop.rad: mult", probeRadNegA("supp.prop.rad: mult", radMultCheck)),
		verify.Hypothesis{Name: "c₀ ∈ ℝ", Kind: verify.HypRange, Line: 1680, Text: "∀c₀ ∈ ℝ",
			Range: &verify.Range{Param: "c₀", Printed: "c₀ ∈ ℝ", Lo: "−∞", Hi: "∞", LoOpen: true, HiOpen: true, Ends: func(verify.Config) []verify.EndCheck {
				G := mat.NewDense(2, 2, []float64{1, -1, 0.5, 2})
				var Z mat.Dense
				Z.Scale(0, G)
				v := radFinite(&Z, []float64{1, 1})
				return []verify.EndCheck{endAt("c₀ = 0", verify.AtJustInside, fmt.Sprintf("Rad(0·𝒢) = %g = 0·Rad(𝒢)", v), holdsIf(v == 0, verify.EndFalse))}
			}}, Expect: verify.NotProbeable},
	)
	verify.RegisterHypotheses("supp.prop.rad: conv", aHyp("supp.prop.rad: conv", probeRadNegA("supp.prop.rad: conv", radConvCheck)))
	verify.RegisterHypotheses("supp.prop.rad: lip",
		verify.Hypothesis{Name: "μ Lipschitz with constant |μ|", Kind: verify.HypClass, Line: 1682, Text: "μ: ℝ → ℝ a Lipschitz function, |μ| its Lipschitz constant (understated by half)",
			Probe: radLipUnder, Expect: verify.Needed},
		aHyp("supp.prop.rad: lip", probeRadNegA("supp.prop.rad: lip", radCheckLip)))
	verify.RegisterHypotheses("supp.prop.weighted_rad_properties",
		aHyp("supp.prop.weighted_rad_properties", func(cfg verify.Config) verify.ProbeResult {
			c := verify.Config{Cases: verify.ProbeCases(cfg, probeLimit), Seed: cfg.Seed}
			name := probeStream("supp.prop.weighted_rad_properties", "a_i ≥ 0")
			return verify.ProbeOutcome(verify.Merge(verify.Bound, radCheckSubset(c, name+"/1", radNegA), radCheckSum(c, name+"/2", radNegA),
				radMultCheck(c, name+"/3", radNegA), radConvCheck(c, name+"/4", radNegA), radCheckLip(c, name+"/5", radNegA)),
				"items 1–5 with every other weight a_i negated, Rad by exact enumeration")
		}),
		verify.Hypothesis{Name: "μ Lipschitz with constant |μ|", Kind: verify.HypClass, Line: 1682, Text: "item 5: μ: ℝ → ℝ Lipschitz, |μ| its Lipschitz constant",
			Probe: radLipUnder, Expect: verify.Needed},
	)
	verify.RegisterHypotheses("supp.prop: kernel_bound",
		verify.Hypothesis{Name: "k bounded by K", Kind: verify.HypClass, Line: 1648, Text: "k a SPD kernel bounded by K, i.e. ‖k(·,x)‖_ℋ ≤ K",
			Probe: probeKernelK("supp.prop: kernel_bound", radCheckKernelSupp), Expect: verify.Needed},
		verify.Hypothesis{Name: "k SPD", Kind: verify.HypClass, Line: 1648, Text: "k a symmetric positive definite (SPD) kernel",
			Why: "an indefinite k has no RKHS ℋ, so the ball 𝒢^k_{K,R} is not defined (theory.RKHSBallSup refuses a Gram matrix that is not PSD)"},
		verify.Hypothesis{Name: "a_i > 0", Kind: verify.HypRange, Line: 1650, Text: "where a_i > 0",
			Range: &verify.Range{Param: "a_i", Printed: "a_i ∈ (0, ∞)", Lo: "0", Hi: "∞", LoOpen: true, HiOpen: true, Ends: zeroWeightEnds(true)}, Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "R > 0", Kind: verify.HypRange, Line: 1653, Text: "∀R > 0, g ∈ 𝒢^k_{K,R} (the ball of radius R, line 1648)",
			Range: &verify.Range{Param: "R", Printed: "R ∈ (0, ∞)", Lo: "0", Hi: "∞", LoOpen: true, HiOpen: true, Ends: zeroRadiusEnds(true)}, Expect: verify.NotNeeded},
	)
	verify.RegisterHypotheses("prop: kernel_bound",
		verify.Hypothesis{Name: "k bounded by K", Kind: verify.HypClass, Line: 1630, Text: "Assume k bounded by K, meaning ∀x, ‖k(·,x)‖_ℋ ≤ K",
			Probe: probeKernelK("prop: kernel_bound", radCheckKernelLMNTM), Expect: verify.Needed},
		verify.Hypothesis{Name: "δ ∈ [0,1]", Kind: verify.HypRange, Line: 1637, Text: "∀δ ∈ [0, 1], with probability at least 1 − δ (the second display)",
			Range: &verify.Range{Param: "δ", Printed: "δ ∈ [0, 1]", Lo: "0", Hi: "1", Ends: deltaEnds(true, func(d float64) (float64, error) {
				return theory.ClassGEBBound(deltaSetting(), d, 1, theory.B1(1, 1))
			})}, Expect: verify.NotNeeded},
	)
	verify.RegisterHypotheses("supp.prop: MLP_bound",
		verify.Hypothesis{Name: "‖x‖ ≤ α", Kind: verify.HypClass, Line: 1739, Text: "Assume ∀x ∈ 𝒳, ‖x_i‖ ≤ α",
			Probe: probeMLPAlpha("supp.prop: MLP_bound", radCheckMLPSuppDepth), Expect: verify.Needed},
		verify.Hypothesis{Name: "μ 1-Lipschitz", Kind: verify.HypClass, Line: 1746, Text: "μ is a 1-Lipschitz activation function",
			Probe: probeMLPActivation("μ 1-Lipschitz", "μ = 3·ReLU (3-Lipschitz, μ(0) = 0), depth m = 2, gradient search", relu3), Expect: verify.Needed},
		verify.Hypothesis{Name: "0 ∈ μ∘𝒩_k", Kind: verify.HypClass, Line: 1739, Text: "∀k ∈ ℕ, 0 ∈ μ∘𝒩_k",
			Probe: probeMLPActivation("0 ∈ μ∘𝒩_k", "μ = ReLU + 1 (1-Lipschitz, μ ≥ 1 so 0 ∉ μ∘𝒩₁), depth m = 2, gradient search", reluPlus1), Expect: verify.Needed},
		verify.Hypothesis{Name: "a_i > 0", Kind: verify.HypRange, Line: 1741, Text: "where a_i > 0",
			Range: &verify.Range{Param: "a_i", Printed: "a_i ∈ (0, ∞)", Lo: "0", Hi: "∞", LoOpen: true, HiOpen: true, Ends: zeroWeightEnds(false)}, Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "β ∈ ℝ₊", Kind: verify.HypRange, Line: 1746, Text: "β ∈ ℝ₊ (‖v‖₂ ≤ β, ‖v‖₁ ≤ β)",
			Range: &verify.Range{Param: "β", Printed: "β ∈ ℝ₊ = (0, ∞)", Lo: "0", Hi: "∞", LoOpen: true, HiOpen: true, Ends: zeroRadiusEnds(false)}, Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "m ∈ ℕ", Kind: verify.HypRange, Line: 1745, Text: "𝒩_m defined inductively for m > 1 (App. C; §4.3, line 240: for m > 2)",
			Range: &verify.Range{Param: "m", Printed: "m = 1, and m > 1 by induction (App. C) / m > 2 (§4.3)", Lo: "1", Hi: "∞", HiOpen: true, Ends: mRangeEnds}, Expect: verify.NotNeeded},
	)
	verify.RegisterHypotheses("prop: MLP_bound",
		verify.Hypothesis{Name: "‖x‖ ≤ α", Kind: verify.HypClass, Line: 1722, Text: "Assume ∀x ∈ 𝒳, ‖x_i‖ ≤ α",
			Probe: probeMLPAlpha("prop: MLP_bound", radCheckMLPLMNTMDepth), Expect: verify.Needed},
		verify.Hypothesis{Name: "δ ∈ [0,1]", Kind: verify.HypRange, Line: 1728, Text: "∀δ ∈ [0, 1], with probability at least 1 − δ (the second display)",
			Range: &verify.Range{Param: "δ", Printed: "δ ∈ [0, 1]", Lo: "0", Hi: "1", Ends: deltaEnds(true, func(d float64) (float64, error) {
				return theory.ClassGEBBound(deltaSetting(), d, 1, theory.B2(1, 1, 1))
			})}, Expect: verify.NotNeeded},
	)
	sampledHyps := func(label string, line, deltaLine int, run func(verify.Config, string, radBoundFn) verify.Outcome, bound func(theory.LMNTMSetting, float64, float64, float64) (float64, error), closedZero bool, printed string) []verify.Hypothesis {
		lo := printed
		return []verify.Hypothesis{
			{Name: "sup ‖g(x)‖₂ ≤ A", Kind: verify.HypClass, Line: line, Text: "sup_{x∈X, g∈𝒢} ‖g(x)‖₂ ≤ A for some constant A",
				Probe: probeSampledA(label, run, bound), Expect: verify.NotNeeded},
			{Name: "X_{i,c,j} independent", Kind: verify.HypSampling, Line: line, Text: "each X_{i,c,j} drawn from P_{T_i}(·|c) and all X_{i,c,j}'s independent", Why: whySampler},
			{Name: "T_i invertible", Kind: verify.HypMatrix, Line: line, Text: "𝒯 = {T_i} a sequence of invertible column-stochastic matrices", Why: whyInvertible},
			{Name: "α_i ∈ Δ̊^C", Kind: verify.HypRange, Line: line, Text: "α_i ∈ Δ̊^C s.t. α_i(c) = P_{T_i}(Ỹ = c)",
				Range: &verify.Range{Param: "α_i", Printed: "α_i ∈ Δ̊^C", Lo: "the boundary", Hi: "—", LoOpen: true, Ends: alphaOpenEnds}, Expect: verify.Needed},
			{Name: "δ range", Kind: verify.HypRange, Line: deltaLine, Text: lo,
				Range: &verify.Range{Param: "δ", Printed: lo, Lo: "0", Hi: "1", LoOpen: !closedZero, Ends: deltaEnds(closedZero, func(d float64) (float64, error) {
					return bound(deltaSetting(), d, 1, 0.1)
				})}, Expect: verify.NotNeeded},
		}
	}
	verify.RegisterHypotheses("rad.lips.lemma", sampledHyps("rad.lips.lemma", 1515, 1517, radSampledWith(radRadLoss), theory.RadLipsBound, false, "δ ∈ (0, 1]")...)
	verify.RegisterHypotheses("lemma: gen", sampledHyps("lemma: gen", 1611, 1613, radSampledWith(radRadVec), theory.LemmaGenBound, false, "δ ∈ (0, 1]")...)
	geb := sampledHyps("thm: geb", 247, 248, radCheckGEB, theory.GEBBound, true, "δ ∈ [0, 1]")
	geb = append(geb,
		verify.Hypothesis{Name: "ℓ proper", Kind: verify.HypLoss, Line: 247, Text: "ℓ a proper loss such that ∀i, c λ_{ℓ_{T_i}}(·, c) is Lipschitz w.r.t. the 2-norm",
			Why: "the checker fixes the log loss with the softmax link (|λ| = √2, lip.upper.bd.cel); no other proper composite loss is implemented"},
		verify.Hypothesis{Name: "m ∈ ℕ", Kind: verify.HypRange, Line: 240, Text: "𝒩_m defined \"for m > 2\" (§4.3, line 240; App. C, line 1745: for m > 1)",
			Range: &verify.Range{Param: "m", Printed: "m = 1, m > 2 (§4.3)", Lo: "1", Hi: "∞", HiOpen: true, Ends: mRangeEnds}, Expect: verify.NotNeeded},
	)
	verify.RegisterHypotheses("thm: geb", geb...)
}
