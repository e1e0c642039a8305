package claims

// Hypotheses of the propositions on LMNTM samples (`prop: kernel_bound`,
// `prop: MLP_bound`) and of the probabilistic bounds (`rad.lips.lemma`,
// `lemma: gen`, `thm: geb`): the statements' own, those of the sample S and
// the empirical risk of §4.1 (its weights, sizes and noisy priors), of the
// composite loss (its link's range 𝒱, the norm of its Lipschitz constant),
// of the classes 𝒢₁ and 𝒢₂ of §4.3, and of the lemmas and propositions the
// proofs apply.

import (
	"fmt"
	"math"
	"math/rand"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

// Names of the parts of the sampled statements.
const (
	partClassInV  = "𝒢 ⊂ ψ∘ℱ"
	partA         = "sup ‖g(x)‖₂ ≤ A"
	partXFrom     = "X_{i,c,j} ~ P_{T_i}(·|c)"
	partXIndep    = "X_{i,c,j} independent"
	partN         = "n_{i,c} ∈ ℕ"
	partAlphaOpen = "α_i ∈ Δ̊^C"
	partAlphaDef  = "α_i(c) = P_{T_i}(Ỹ = c)"
	partProperLam = "ℓ proper, λ_{ℓ_{T_i}}(·, c) Lipschitz"
	partNorm2     = "w.r.t. ‖·‖₂"
	partZeroInV   = "0 ∈ 𝒱"
	partDelta     = "δ range"
	partPosW      = "weights w_i|λ_i|α_i(c)/n_{i,c} > 0"
)

// Reasons of the sampled statements' parts no probe can violate here.
const (
	whySampler    = "the simulation draws every X_{i,c,j} independently from P_{T_i}(·|c) (radSimulate); a dependent sampler is not implemented, and McDiarmid's inequality, the proof's first step, needs independence"
	whySamplerP   = "the simulation draws from P_{T_i}(·|c), in closed form from the clean class-conditionals and Γ_i; drawn from another distribution E R̂ is no longer R̃ (the probe of llpfc-ideal: empirical risk finds that needed), and the deviation would not concentrate at R̃"
	whyInvertible = "the sampled problems build T_i from diagonally dominant Γ_i (radDrawProblem), always invertible; the bound uses T_i only through |λ_{ℓ_{T_i}}| (√2 for every column-stochastic T, lip.upper.bd.cel) and |λ_{ℓ_{T_i}}|₀, finite for any T_i without a zero row (the probe of lambda0.formula)"
	whyWeights    = "the sampled check (150 simulated samples a case) keeps its probes to the class bound A and to 𝒢 ⊂ ψ∘ℱ; w's parts are probed pointwise at multi.rad.lemma (w_i of any sign: not needed), llpfc-ideal: empirical risk and hm.weights.optimal"
	whyAlphaDef   = "R̃(g) := E[R̂_{w,S}(g)] (line 1516) is the weighted risk only with these α_i; the simulation computes R̃ in closed form from them, and the identity that needs them is probed at llpfc-ideal: empirical risk (needed there)"
	whyProperLam  = "the checker fixes the log loss with the softmax link (|λ| = √2, lip.upper.bd.cel; half the cases a numerical lower estimate of the smallest constant); no other proper composite loss is implemented"
	whyZeroInV    = "|λ|₀ = max_c |λ(0, c)| needs 0 in the link's range 𝒱; the softmax link's 𝒱 = {s : Σ_c s_c = 0} contains it, and no other link is implemented"
	whyPosW       = "a zero weight (w_i = 0, allowed by w ∈ Δ^N) drops its terms from both sides (TestFindingZeroWeights); weights of any sign are probed at multi.rad.lemma (not needed there)"
	whyNormGen    = "the lemma prints no norm for its Lipschitz condition; the proof applies multi.rad.lemma and lemma: multi.rad.1 (line 1557: w.r.t. ‖·‖₂), whose probes with λ = ‖·‖₁ find the 2-norm needed; here λ is the log loss's composite, Lipschitz w.r.t. ‖·‖₂ with √2"
)

// radProjectClass moves every function of the class into 𝒱 = {Σ_c s_c = 0}
// (s ↦ s − mean(s)𝟙, which leaves the composite log loss unchanged), and
// rebuilds the losses and A.
func radProjectClass(cs radLipsCase) radLipsCase {
	fc := radFinClass{}
	for _, f := range cs.fc.vals {
		var g [][]float64
		for _, v := range f {
			m := sum(v) / float64(len(v))
			u := make([]float64, len(v))
			for c := range v {
				u[c] = v[c] - m
			}
			g = append(g, u)
			fc.A = math.Max(fc.A, math.Sqrt(radDot(u, u)))
		}
		fc.vals = append(fc.vals, g)
	}
	fc.loss = radBuildLosses(cs.pr, fc.vals)
	cs.fc = fc
	return cs
}

// radOffV puts the class's first function at A·e₁ on every point (Σ_c = A
// ≠ 0: outside 𝒱), and rebuilds the losses.
func radOffV(cs radLipsCase) radLipsCase {
	C := cs.pr.set.NumClasses()
	A := math.Max(cs.fc.A, 0.5)
	f := make([][]float64, cs.pr.K)
	for x := range f {
		f[x] = make([]float64, C)
		f[x][0] = A
	}
	cs.fc.vals[0] = f
	cs.fc.A = A
	for _, g := range cs.fc.vals {
		for _, v := range g {
			cs.fc.A = math.Max(cs.fc.A, math.Sqrt(radDot(v, v)))
		}
	}
	cs.fc.loss = radBuildLosses(cs.pr, cs.fc.vals)
	return cs
}

// inV reports whether every function of the class lies in 𝒱.
func inV(vals [][][]float64) bool {
	for _, f := range vals {
		for _, v := range f {
			if math.Abs(sum(v)) > 1e-12*(1+math.Sqrt(radDot(v, v))) {
				return false
			}
		}
	}
	return true
}

// problemParts are the parts of a sampled problem decided from it: its
// T_i, w, n_{i,c}, α_i and δ.
func problemParts(pr radProblem, closedZero bool) map[string]bool {
	inv, nn, cs := true, true, true
	for _, T := range pr.T {
		inv = inv && invertible(T)
		nn = nn && nonNegative(T)
		cs = cs && columnsSumToOne(T)
	}
	wn, ws := true, 0.0
	for _, w := range pr.set.W {
		wn = wn && w >= 0
		ws += w
	}
	alphaOpen, nOK := true, true
	for i := range pr.set.Alpha {
		alphaOpen = alphaOpen && openSimplexMember(pr.set.Alpha[i])
		for _, n := range pr.set.N[i] {
			nOK = nOK && n >= 1
		}
	}
	d := pr.delta > 0 && pr.delta <= 1
	if closedZero {
		d = pr.delta >= 0 && pr.delta <= 1
	}
	pos := true
	for i, w := range pr.set.W {
		pos = pos && w > 0 && pr.set.Lip[i] > 0
	}
	return map[string]bool{
		partEachInv: inv, partEachNonNeg: nn, partEachColSum: cs, partWNonNeg: wn, partWSum: math.Abs(ws-1) <= 1e-12,
		partN: nOK, partAlphaOpen: alphaOpen, partAlphaDef: keptByFamily, partXFrom: keptByFamily, partXIndep: keptByFamily,
		partProperLam: keptByFamily, partNorm2: keptByFamily, partZeroInV: keptByFamily, partDelta: d, partPosW: pos,
	}
}

// radReplicate re-draws the samples of a sampled case on a fresh stream
// and counts the draws whose deviation exceeds rhs: a counterexample of a
// probability statement replicates on independent draws.
func radReplicate(pr radProblem, losses [][][][]float64, seed int64, rhs float64) (bool, string) {
	c := radSimulate(pr, losses, radSampler{r: rand.New(rand.NewSource(seed ^ 0x5eed))}, rhs, "replicated on a fresh stream")
	return c.OK, c.Detail
}

// lipsJudge judges the probes of the two lemmas run on radLipsCases: the
// counterexample replicated on fresh samples against the right side with
// the Rademacher term's upper estimate (mean + 4 standard errors, upper).
func lipsJudge(estimate func(radProblem, radFinClass, radSampler) float64, bound func(s theory.LMNTMSetting, delta, A, classTerm float64) (float64, error), useA bool) verify.Judge[radLipsCase] {
	return verify.Judge[radLipsCase]{
		Parts: func(cs radLipsCase) (map[string]bool, string) {
			m := problemParts(cs.pr, false)
			m[partClassInV] = inV(cs.fc.vals)
			m[partA] = useA || cs.fc.A == 0
			return m, ""
		},
		Conclusion: func(cs radLipsCase) (bool, string) {
			A := 0.0
			if useA {
				A = cs.fc.A
			}
			s := radSampler{r: rand.New(rand.NewSource(cs.seed ^ 0x5eed))}
			rhs := must(bound(cs.pr.set, cs.pr.delta, A, estimate(cs.pr, cs.fc, s)))
			return radReplicate(cs.pr, cs.fc.loss, cs.seed, rhs)
		},
	}
}

// gebJudge judges the A-probe of `thm: geb` on radGEBCases.
func gebJudge() verify.Judge[radGEBCase] {
	return verify.Judge[radGEBCase]{
		Parts: func(cs radGEBCase) (map[string]bool, string) {
			m := problemParts(cs.pr, true)
			m[partClassInV] = keptByFamily // the grid's g = (d/2, −d/2) lie in 𝒱
			m[partA] = false
			for _, n := range []string{"k SPD", "k bounded by K", "R > 0", "β ∈ ℝ₊", "μ 1-Lipschitz", "0 ∈ μ∘𝒩_m", "m range", "‖x‖₂ ≤ α"} {
				m[n] = keptByFamily
			}
			return m, ""
		},
		Conclusion: func(cs radGEBCase) (bool, string) {
			losses, _, B := radGEBGrid(cs)
			rhs := must(theory.GEBBound(cs.pr.set, cs.pr.delta, 0, B))
			return radReplicate(cs.pr, losses, cs.seed, rhs)
		},
	}
}

// probeSampledA re-runs a sampled bound with A set to 0 in the bound
// (every g(x) ≠ 0 exceeds it) and reports how far that moved the right
// side against the bound's own slack (1/its ratio floor, the measured worst
// ratio's honest lower estimate): a variation within the slack could not
// have found a counterexample, and its holding says nothing (NotProbeable).
// The lemmas' Rademacher terms are Monte Carlo estimates: run first with
// the estimate minus 4 standard errors (a pass is then a pass), and, on a
// failure, again with the estimate plus 4 (a failure is then one, which the
// judge replicates on fresh samples); failing the first and passing the
// second is within the Monte Carlo error: not needed there.
func probeSampledA[T any](label string, floor float64, runLow, runHigh func(cfg verify.Config, name string, bound radBoundFn) verify.Outcome,
	bound func(s theory.LMNTMSetting, delta, A, classTerm float64) (float64, error), judge verify.Judge[T]) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		c := verify.Config{Cases: verify.ProbeCases(cfg, probeLimitSampled), Seed: cfg.Seed}
		var shrink []float64
		zeroA := func(s theory.LMNTMSetting, delta, A, ct float64) float64 {
			full, zero := must(bound(s, delta, A, ct)), must(bound(s, delta, 0, ct))
			shrink = append(shrink, full/zero)
			return zero
		}
		tried := "the claim's checker (150 samples a case, binomial test at level 1e-6) with A = 0 in the bound (the class's g(x) reach ‖·‖₂ = A > 0)"
		o := runLow(c, probeStream(label, partA), zeroA)
		sort.Float64s(shrink)
		worst, median := shrink[len(shrink)-1], shrink[len(shrink)/2]
		slack := fmt.Sprintf("A → 0 shrank the right side by up to %.3g× (median %.3g×); the bound's slack is at most %.3g× (1/its ratio floor %.3g); with A = 0 the largest deviation reached %.3g of the right side",
			worst, median, 1/floor, floor, o.WorstRatio)
		if o.Failed {
			shrink = nil
			if high := runHigh(c, probeStream(label, partA), zeroA); !high.Failed {
				res := verify.JudgeOutcome(high, probing(label, partA, tried+"; a case failed with the Rademacher term's estimate minus 4 standard errors and none with it plus 4: within the Monte Carlo error"), judge)
				res.Slack = slack
				return res
			} else {
				o = high
			}
		}
		res := verify.JudgeOutcome(o, probing(label, partA, tried), judge)
		res.Slack = slack
		if res.Status == verify.NotNeeded && worst <= 1/floor {
			res.Status = verify.NotProbeable
			res.Tried = tried + ": the variation stays within the bound's slack, so its holding says nothing about A (" + slack + ")"
		}
		return res
	}
}

// probeSampledOffV re-runs a lemma with a class that leaves 𝒱 (its first
// function A·e₁ at every point), λ_{ℓ_{T_i}} extended to ℝ^C as
// ℓ(T_i softmax(s), c) (invariant under s ↦ s + t𝟙).
func probeSampledOffV(label string, estimate, upper func(radProblem, radFinClass, radSampler) float64, bound func(s theory.LMNTMSetting, delta, A, classTerm float64) (float64, error)) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		c := verify.Config{Cases: verify.ProbeCases(cfg, probeLimitSampled), Seed: cfg.Seed}
		o := radCheckSampledWith(c, probeStream(label, partClassInV), estimate, radBound(bound), radOffV)
		return verify.JudgeOutcome(o, probing(label, partClassInV,
			"the claim's checker with a function of the class at A·e₁ (Σ_c g_c(x) = A ≠ 0: outside the softmax link's 𝒱 = {Σ_c s_c = 0}), λ_{ℓ_{T_i}}(s, c) = −log(T_i softmax(s))_c, which extends to ℝ^C unchanged along 𝟙"),
			lipsJudge(upper, bound, true))
	}
}

// tDomainProbe is the probe of a part of "T_i column-stochastic" in a
// sampled statement: λ_{ℓ_{T_i}} is undefined for the family's T₁; kept
// names the claim's other parts.
func tDomainProbe(label, hyp, tried string, gen func(*rand.Rand, int) probePoint, kept ...string) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Undefine(cfg, probing(label, hyp, "T₁ = "+tried), probeLimit, gen, func(p probePoint) string { return lmMatString(p.T) },
			verify.Judge[probePoint]{Parts: func(p probePoint) (map[string]bool, string) {
				m := map[string]bool{partEachInv: invertible(p.T), partEachNonNeg: nonNegative(p.T), partEachColSum: columnsSumToOne(p.T)}
				for _, k := range kept {
					if _, ok := m[k]; !ok {
						m[k] = keptByFamily
					}
				}
				out := ""
				if !colStochastic(p.T) {
					out = "λ_{ℓ_{T_i}} (ℓ(T_i softmax(s), c) needs T_i softmax(s) ∈ Δ^C, line 154)"
				}
				return m, out
			}})
	}
}

// nEnds: a sample size of 0 leaves α_i(c)/n_{i,c} undefined.
func nEnds(verify.Config) []verify.EndCheck {
	return []verify.EndCheck{
		endAt("n_{i,c} = 1", verify.AtClosedEnd, "one point X_{i,c,1} with weight w_iα_i(c)", verify.EndHolds, 1),
		endAt("n_{i,c} = 0", verify.AtOutside, "w_iα_i(c)/0 · (an empty sum), and McDiarmid's differences w_iα_i(c)/n_{i,c}: undefined", verify.EndUndefined, 0),
	}
}

// sampledHyps are the parts shared by `rad.lips.lemma`, `lemma: gen` and
// `thm: geb`: line is the statement's, deltaLine its δ's; sampleLine where
// S and α_i are given.
func sampledHyps(label string, line int, from string, deltaPrinted string, deltaLine int, closedZero bool, deltaBound func(float64) (float64, error)) []verify.Hypothesis {
	names := sampledNames(label)
	ofTs := "𝒯 = {T_i}, a sequence of invertible column-stochastic matrices"
	return []verify.Hypothesis{
		{Name: partXFrom, Kind: verify.HypSampling, Line: line, From: from, Of: "each X_{i,c,j} drawn from P_{T_i}(·|c) and all X_{i,c,j}'s independent", Text: "each X_{i,c,j} drawn from P_{T_i}(·|c)", Why: whySamplerP},
		{Name: partXIndep, Kind: verify.HypSampling, Line: line, From: from, Of: "each X_{i,c,j} drawn from P_{T_i}(·|c) and all X_{i,c,j}'s independent", Text: "all X_{i,c,j}'s independent", Why: whySampler},
		{Name: partEachInv, Kind: verify.HypMatrix, Line: line, From: from, Of: ofTs, Text: "each T_i invertible", Why: whyInvertible},
		{Name: partEachNonNeg, Kind: verify.HypMatrix, Line: line, From: from, Of: ofTs, Text: "each T_i's entries non-negative",
			Probe: tDomainProbe(label, partEachNonNeg, triedNegT, genNegativeT, names...), Expect: verify.NeededToDefine},
		{Name: partEachColSum, Kind: verify.HypMatrix, Line: line, From: from, Of: ofTs, Text: "each T_i's columns sum to 1",
			Probe: tDomainProbe(label, partEachColSum, triedScaledT, genScaledT, names...), Expect: verify.NeededToDefine},
		{Name: partWNonNeg, Kind: verify.HypGrouping, Line: line, From: from, Of: "(w_1, …, w_N) ∈ Δ^N", Text: "w_i ≥ 0", Why: whyWeights},
		{Name: partWSum, Kind: verify.HypGrouping, Line: line, From: from, Of: "(w_1, …, w_N) ∈ Δ^N", Text: "Σ_i w_i = 1", Why: whyWeights},
		{Name: partN, Kind: verify.HypRange, Line: line, From: from, Text: "n_{i,c} ∈ ℕ for each i ∈ ℕ_N and c ∈ 𝒴",
			Range: &verify.Range{Param: "n_{i,c}", Printed: "n_{i,c} ∈ ℕ", Lo: "1", Hi: "∞", HiOpen: true, Integer: true, Ends: nEnds}, Expect: verify.NeededToDefine},
		{Name: partAlphaOpen, Kind: verify.HypRange, Line: line, From: from, Of: "α_i ∈ Δ̊^C s.t. α_i(c) = P_{T_i}(Ỹ = c)", Text: "α_i ∈ Δ̊^C",
			Range: &verify.Range{Param: "α_i", Printed: "α_i ∈ Δ̊^C", Member: openSimplexMember, Ends: alphaOpenEnds}, Expect: verify.NeededToDefine},
		{Name: partAlphaDef, Kind: verify.HypDistribution, Line: line, From: from, Of: "α_i ∈ Δ̊^C s.t. α_i(c) = P_{T_i}(Ỹ = c)", Text: "α_i(c) = P_{T_i}(Ỹ = c)", Why: whyAlphaDef},
		{Name: partProperLam, Kind: verify.HypLoss, Line: line, From: from, Text: "ℓ a proper loss s.t. ∀i, c the function λ_{ℓ_{T_i}}(·, c) is Lipschitz", Why: whyProperLam},
		{Name: partZeroInV, Kind: verify.HypClass, Line: 1523, From: "definition: |λ_{ℓ_{T_i}}|₀ = max_c |λ_{ℓ_{T_i}}(0, c)| (lines 254, 1523)", Text: "0 lies in the link's range 𝒱 (λ(0, c) is read)", Why: whyZeroInV},
		{Name: partDelta, Kind: verify.HypRange, Line: deltaLine, From: verify.FromStatement, Text: deltaPrinted,
			Range: &verify.Range{Param: "δ", Printed: deltaPrinted, Lo: "0", Hi: "1", LoOpen: !closedZero, Ends: deltaEnds(closedZero, deltaBound)}, Expect: verify.NotNeeded},
	}
}

// sampledNames lists every part name of a sampled claim, for the judges
// that keep the parts they do not touch.
func sampledNames(label string) []string {
	n := []string{partClassInV, partA, partXFrom, partXIndep, partEachInv, partEachNonNeg, partEachColSum, partWNonNeg, partWSum, partN,
		partAlphaOpen, partAlphaDef, partProperLam, partZeroInV, partDelta, partNorm2, partPosW}
	if label == "thm: geb" {
		n = append(n, "k SPD", "k bounded by K", "R > 0", "β ∈ ℝ₊", "μ 1-Lipschitz", "0 ∈ μ∘𝒩_m", "m range", "‖x‖₂ ≤ α")
	}
	return n
}

// kernelLMNTMJudge judges the probe of "k bounded by K" of `prop:
// kernel_bound` (K halved): the Gaussian kernel has ‖k(·,x)‖ = 1 > ½; the
// worst sample's C·Rad by enumeration of the ball's supremum.
func kernelLMNTMJudge() verify.Judge[radKernelLMNTMCase] {
	return verify.Judge[radKernelLMNTMCase]{
		Parts: func(cs radKernelLMNTMCase) (map[string]bool, string) {
			s := cs.pts[0].set
			pos := true
			for i, w := range s.W {
				pos = pos && w > 0 && s.Lip[i] > 0
			}
			ws := sum(s.W)
			return map[string]bool{"k bounded by K": false, "k SPD": keptByFamily, "R > 0": cs.R > 0, partPosW: pos, partDelta: keptByFamily,
				partWNonNeg: nonNegVec(s.W), partWSum: math.Abs(ws-1) <= 1e-12, partN: keptByFamily, partAlphaOpen: keptByFamily}, ""
		},
		Conclusion: func(cs radKernelLMNTMCase) (bool, string) {
			s := cs.pts[0].set
			C := s.NumClasses()
			norm, a := radLMNTMNorm(s)
			worst := 0.0
			for _, pt := range cs.pts {
				g := must(theory.GaussianGram(pt.X, cs.bw))
				kp := kernelPoint{radKernelCase: radKernelCase{X: pt.X, a: a, C: C, R: cs.R, gram: g}, Kb: 0.5}
				lhs, _ := kernelSides(kp)
				worst = math.Max(worst, lhs)
			}
			rhs := float64(C) * cs.R * 0.5 * norm
			return radLE(worst, rhs), fmt.Sprintf("C·E sup over the ball, worst sample = %.9g (enumerated) against C·R·(K/2)·norm = %.9g", worst, rhs)
		},
	}
}

// genMLPAlphaLMNTM draws an LMNTM sample (radDrawLMNTM) at depth 1 with the
// bound's α half the largest ‖x‖₂, the weights a_{i,c,j} = w_i|λ_i|α_i(c)/n_{i,c}.
func genMLPAlphaLMNTM(infNorm bool) func(r *rand.Rand, _ int) mlpPoint {
	return func(r *rand.Rand, _ int) mlpPoint {
		alpha := logUnif(r, 0.1, 3)
		pts := radDrawLMNTM(r, 8, 2, alpha)
		_, a := radLMNTMNorm(pts.set)
		M, d := pts.X.Dims()
		p := mlpPoint{X: pts.X, a: a, C: pts.set.NumClasses(), beta: logUnif(r, 0.3, 3), norm: 2}
		if infNorm {
			for i := 0; i < M; i++ {
				for k := 0; k < d; k++ {
					s := alpha
					if pts.X.At(i, k) < 0 {
						s = -alpha
					}
					p.X.Set(i, k, s)
				}
			}
			p.alphaB, p.norm = alpha, math.Inf(1)
			return p
		}
		big := 0.0
		for i := 0; i < M; i++ {
			big = math.Max(big, mat.Norm(pts.X.RowView(i), 2))
		}
		p.alphaB = big / 2
		return p
	}
}

// mlpLMNTMJudge is mlpJudge for `prop: MLP_bound` (its parts' names).
func mlpLMNTMJudge() verify.Judge[mlpPoint] {
	j := mlpJudge("prop: MLP_bound")
	return verify.Judge[mlpPoint]{
		Parts: func(p mlpPoint) (map[string]bool, string) {
			m, out := j.Parts(p)
			m[partPosW] = positiveVec(p.a)
			m[partDelta] = keptByFamily
			m["0 ∈ μ∘𝒩_m"] = keptByFamily
			return m, out
		},
		Conclusion: j.Conclusion,
	}
}

func init() {
	// Parts of the classes of §4.3 and their constants, for thm: geb and the
	// propositions; probed where the proposition applying them is checked.
	classWhy := func(where string) string {
		return "the sampled check of thm: geb fixes the class (its cost keeps the probes to A); probed at " + where + ", which the proof applies"
	}
	kernel := []verify.Hypothesis{
		{Name: "k SPD", Kind: verify.HypClass, Line: 236, From: "definition: 𝒢₁, C copies of the ball of radius R of the RKHS of k (line 236)", Of: "k a SPD kernel bounded by K",
			Text: "k a symmetric positive definite (SPD) kernel", Why: "an indefinite k has no RKHS ℋ, so the ball 𝒢^k_{K,R} is not defined (theory.RKHSBallSup refuses a Gram matrix that is not PSD)"},
		{Name: "k bounded by K", Kind: verify.HypClass, Line: 236, From: "definition: 𝒢₁ (line 236)", Of: "k a SPD kernel bounded by K", Text: "‖k(·,x)‖_ℋ ≤ K for every x", Why: classWhy("prop: kernel_bound and supp.prop: kernel_bound (needed there)")},
		{Name: "R > 0", Kind: verify.HypClass, Line: 236, From: "definition: 𝒢₁ (line 236; R > 0 is said only at line 1653)", Text: "R the ball's radius (its range unstated in §4.3)", Why: classWhy("supp.prop: kernel_bound (R → 0: the class is {0}, not needed)")},
	}
	mlp := []verify.Hypothesis{
		{Name: "β ∈ ℝ₊", Kind: verify.HypClass, Line: 242, From: "definition: 𝒩_m (line 242)", Text: "β ∈ ℝ₊", Why: classWhy("supp.prop: MLP_bound (β → 0: not needed)")},
		{Name: "μ 1-Lipschitz", Kind: verify.HypClass, Line: 242, From: "definition: 𝒩_m (line 242)", Text: "μ a 1-Lipschitz activation function", Why: classWhy("supp.prop: MLP_bound (3·ReLU: needed there)")},
		{Name: "0 ∈ μ∘𝒩_m", Kind: verify.HypClass, Line: 243, From: "definition: 𝒢₂ (line 243)", Text: "∀m ∈ ℕ, 0 ∈ μ∘𝒩_m", Why: classWhy("supp.prop: MLP_bound (ReLU + 1: needed there)")},
	}

	for _, c := range []struct {
		label      string
		line       int
		estimate   func(radProblem, radFinClass, radSampler) float64
		upper      func(radProblem, radFinClass, radSampler) float64
		bound      func(s theory.LMNTMSetting, delta, A, classTerm float64) (float64, error)
		floor      float64
		normFrom   string
		normWhy    string
		normProbe  bool
		extraParts []verify.Hypothesis
	}{
		{label: "rad.lips.lemma", line: 1515, estimate: radRadLoss, upper: radRadLossUpper, bound: theory.RadLipsBound, floor: 0.5,
			normFrom: verify.FromStatement, normWhy: "stated (line 1515: Lipschitz w.r.t. the 2-norm); the lemma's own proof bounds |λ(g(x), c)| by |λ|·‖g(x)‖₂ with it; λ here is the log loss's composite, √2 w.r.t. ‖·‖₂"},
		{label: "lemma: gen", line: 1611, estimate: radRadVec, upper: radRadVecUpper, bound: theory.LemmaGenBound, floor: 0.35,
			normFrom: "lemma: multi.rad.lemma and lemma: multi.rad.1 (line 1557), applied by the proof; lemma: gen prints no norm (line 1611)", normWhy: whyNormGen,
			extraParts: []verify.Hypothesis{{Name: partPosW, Kind: verify.HypGrouping, Line: 1585, From: "lemma: multi.rad.lemma (line 1585: w_i > 0), applied with the weights w_i|λ_i|α_i(c)/n_{i,c}",
				Text: "the weights w_i|λ_i|α_i(c)/n_{i,c} the contraction is applied with are positive", Why: whyPosW}}},
	} {
		label, est, up, bound := c.label, c.estimate, c.upper, c.bound
		hs := []verify.Hypothesis{
			{Name: partClassInV, Kind: verify.HypClass, Line: c.line, From: verify.FromStatement, Text: "𝒢 ⊂ ψ∘ℱ (the composite loss λ_ℓ is defined on the link's range 𝒱, line 231)",
				Probe: probeSampledOffV(label, est, up, bound), Expect: verify.NotNeeded},
			{Name: partA, Kind: verify.HypClass, Line: c.line, From: verify.FromStatement, Text: "sup_{x∈X, g∈𝒢} ‖g(x)‖₂ ≤ A for some constant A",
				Probe: probeSampledA(label, c.floor, func(cfg verify.Config, name string, b radBoundFn) verify.Outcome {
					return radCheckSampledWith(cfg, name, est, b, radProjectClass)
				}, func(cfg verify.Config, name string, b radBoundFn) verify.Outcome {
					return radCheckSampledWith(cfg, name, up, b, radProjectClass)
				}, bound, lipsJudge(up, bound, false)), Expect: verify.NotNeeded},
			{Name: partNorm2, Kind: verify.HypClass, Line: c.line, From: c.normFrom, Of: "λ_{ℓ_{T_i}}(·, c) Lipschitz w.r.t. the 2-norm", Text: "the norm of the Lipschitz condition is the 2-norm", Why: c.normWhy},
		}
		hs = append(hs, sampledHyps(label, c.line, verify.FromStatement, "δ ∈ (0, 1]", c.line+2, false, func(d float64) (float64, error) {
			return bound(deltaSetting(), d, 1, 0.1)
		})...)
		if c.extraParts == nil { // rad.lips.lemma: its weights enter no contraction lemma
			hs = append(hs, verify.Hypothesis{Name: partPosW, Kind: verify.HypGrouping, Line: c.line, From: verify.FromStatement,
				Text: "the weights w_iα_i(c)/n_{i,c} are not required positive by rad.lips.lemma (its proof uses no contraction)", Why: whyPosW})
		}
		hs = append(hs, c.extraParts...)
		verify.RegisterHypotheses(label, hs...)
	}

	geb := []verify.Hypothesis{
		{Name: partClassInV, Kind: verify.HypClass, Line: 1611, From: "lemma: lemma: gen (line 1611: 𝒢 ⊂ ψ∘ℱ), applied by the proof (line 1774); §4.3, line 230",
			Text: "𝒢_q ⊂ ψ∘ℱ: the classes' values in the link's range 𝒱 = {Σ_c s_c = 0}",
			Why:  "the theorem's own 𝒢₁ (C copies of an RKHS ball) and 𝒢₂ (C copies of 𝒩_m) take values off 𝒱: the statement applies lemma: gen outside this hypothesis (Findings); read with λ extended to ℝ^C unchanged along 𝟙 it holds, as the probes of lemma: gen and rad.lips.lemma find (not needed); the check keeps the functions of 𝒢_q ∩ 𝒱 that the C = 2 composite loss sees"},
		{Name: partA, Kind: verify.HypClass, Line: 247, From: verify.FromStatement, Text: "sup_{x∈X, g∈𝒢_q} ‖g(x)‖₂ ≤ A_q for some constant A_q",
			Probe: probeSampledA("thm: geb", 0.08, radCheckGEB, radCheckGEB, theory.GEBBound, gebJudge()), Expect: verify.NotProbeable},
		{Name: partNorm2, Kind: verify.HypClass, Line: 247, From: verify.FromStatement, Of: "λ_{ℓ_{T_i}}(·, c) Lipschitz w.r.t. the 2-norm", Text: "the norm of the Lipschitz condition is the 2-norm (stated, line 247)",
			Why: "stated; λ here is the log loss's composite, √2 w.r.t. ‖·‖₂ (lip.upper.bd.cel), and the norm is probed at multi.rad.lemma and lemma: multi.rad.1 (needed there)"},
		{Name: partPosW, Kind: verify.HypGrouping, Line: 1585, From: "lemma: multi.rad.lemma (line 1585: w_i > 0), through lemma: gen", Text: "the weights w_i|λ_i|α_i(c)/n_{i,c} of the contraction are positive", Why: whyPosW},
		{Name: "m range", Kind: verify.HypRange, Line: 240, From: "definition: 𝒩_m, \"for m > 2\" (line 240)", Text: "𝒩_m is defined for m = 1 and, inductively, \"for m > 2\" (§4.3, line 240; App. C, line 1745: for m > 1)",
			Range:  &verify.Range{Param: "m", Printed: "m ∈ {1} ∪ {3, 4, …} (§4.3)", Lo: "1", Hi: "∞", HiOpen: true, Integer: true, Holes: []string{"2"}, Ends: mRangeEnds(false)},
			Expect: verify.NeededToDefine},
		{Name: "‖x‖₂ ≤ α", Kind: verify.HypClass, Line: 1722, From: "lemma: prop: MLP_bound (line 1722: ∀x, ‖x‖ ≤ α), whose constant B₂ = 2√2α2^{m−1}β^m the proof uses (line 1774); thm: geb and §4.3 bound no input",
			Text: "the inputs bounded, ‖x‖₂ ≤ α (unstated in the theorem)",
			Why:  "unstated: without a bound on the inputs no constant B₂ bounds the class term (the Rademacher complexity of 𝒩₂ grows like ‖a‖₁, not ‖a‖₂: TestFindingGEBNeedsAnInputBound); the sampled check draws bounded points"},
	}
	geb = append(geb, sampledHyps("thm: geb", 247, verify.FromStatement, "δ ∈ [0, 1]", 248, true, func(d float64) (float64, error) {
		return theory.GEBBound(deltaSetting(), d, 1, theory.B1(1, 1))
	})...)
	geb = append(geb, kernel...)
	geb = append(geb, mlp...)
	verify.RegisterHypotheses("thm: geb", geb...)

	const propK = "prop: kernel_bound"
	kernelNames := []string{"k SPD", "R > 0", partPosW, partDelta, partWNonNeg, partWSum, partN, partAlphaOpen}
	_ = kernelNames
	verify.RegisterHypotheses(propK,
		verify.Hypothesis{Name: "k bounded by K", Kind: verify.HypClass, Line: 1630, From: verify.FromStatement, Of: "k a SPD kernel bounded by K", Text: "Assume k bounded by K, meaning ∀x, ‖k(·,x)‖_ℋ ≤ K",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				c := verify.Config{Cases: verify.ProbeCases(cfg, probeLimit), Seed: cfg.Seed}
				o := radCheckKernelLMNTM(c, probeStream(propK, "k bounded by K"), func(C int, R, K float64, a []float64) float64 { return radKernelRef(C, R, K/2, a) })
				return verify.JudgeOutcome(o, probing(propK, "k bounded by K", "the claim's checker (Gaussian kernel, ‖k(·,x)‖ = 1) with K halved in the bound"), kernelLMNTMJudge())
			}, Expect: verify.Needed},
		verify.Hypothesis{Name: "k SPD", Kind: verify.HypClass, Line: 1630, From: verify.FromStatement, Of: "k a SPD kernel bounded by K", Text: "k a symmetric positive definite (SPD) kernel",
			Why: "an indefinite k has no RKHS ℋ, so the ball 𝒢^k_{K,R} is not defined (theory.RKHSBallSup refuses a Gram matrix that is not PSD)"},
		verify.Hypothesis{Name: "R > 0", Kind: verify.HypClass, Line: 1630, From: "statement: R > 0 is said only in the proof of supp.prop: kernel_bound (line 1653)", Text: "R the ball's radius (no range printed)",
			Why: "R → 0 makes the class {0} (supp.prop: kernel_bound's end check: both sides 0); a negative radius defines no ball"},
		verify.Hypothesis{Name: partPosW, Kind: verify.HypGrouping, Line: 1650, From: "lemma: supp.prop: kernel_bound (line 1650: a_i > 0), applied with a = w_i|λ_i|α_i(c)/n_{i,c}", Text: "the weights the proposition is applied with are positive", Why: whyPosW},
		verify.Hypothesis{Name: partWNonNeg, Kind: verify.HypGrouping, Line: 1611, From: "definition: R̂_{w,S} with w ∈ Δ^N (line 1611)", Of: "(w_1, …, w_N) ∈ Δ^N", Text: "w_i ≥ 0", Why: whyWeights},
		verify.Hypothesis{Name: partWSum, Kind: verify.HypGrouping, Line: 1611, From: "definition: R̂_{w,S} with w ∈ Δ^N (line 1611)", Of: "(w_1, …, w_N) ∈ Δ^N", Text: "Σ_i w_i = 1", Why: whyWeights},
		verify.Hypothesis{Name: partN, Kind: verify.HypRange, Line: 1611, From: "definition: the sample S, n_{i,c} ∈ ℕ (line 1611)", Text: "n_{i,c} ∈ ℕ",
			Range: &verify.Range{Param: "n_{i,c}", Printed: "n_{i,c} ∈ ℕ", Lo: "1", Hi: "∞", HiOpen: true, Integer: true, Ends: nEnds}, Expect: verify.NeededToDefine},
		verify.Hypothesis{Name: partAlphaOpen, Kind: verify.HypRange, Line: 1611, From: "definition: α_i ∈ Δ̊^C (line 1611)", Text: "α_i ∈ Δ̊^C",
			Range: &verify.Range{Param: "α_i", Printed: "α_i ∈ Δ̊^C", Member: openSimplexMember, Ends: alphaOpenEnds}, Expect: verify.NeededToDefine},
		verify.Hypothesis{Name: partDelta, Kind: verify.HypRange, Line: 1637, From: verify.FromStatement, Text: "∀δ ∈ [0, 1], with probability at least 1 − δ (the second display)",
			Range: &verify.Range{Param: "δ", Printed: "δ ∈ [0, 1]", Lo: "0", Hi: "1", Ends: deltaEnds(true, func(d float64) (float64, error) {
				return theory.ClassGEBBound(deltaSetting(), d, 1, theory.B1(1, 1))
			})}, Expect: verify.NotNeeded},
	)

	const propM = "prop: MLP_bound"
	verify.RegisterHypotheses(propM,
		verify.Hypothesis{Name: "‖x‖ ≤ α", Kind: verify.HypClass, Line: 1722, From: verify.FromStatement, Of: "∀x ∈ 𝒳, ‖x_i‖ ≤ α", Text: "the points are bounded by α",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probing(propM, "‖x‖ ≤ α", "an LMNTM sample at depth m = 1 (exact), weights w_i|λ_i|α_i(c)/n_{i,c}, the bound's α half the largest ‖x‖₂"),
					probeLimit, genMLPAlphaLMNTM(false), mlpCase, mlpLMNTMJudge())
			}, Expect: verify.Needed},
		verify.Hypothesis{Name: "‖·‖ the 2-norm", Kind: verify.HypClass, Line: 1769, From: "proof: 𝒩₁ read as the ball of the RKHS of the linear kernel, whose ‖k(·, x)‖ is ‖x‖₂ (line 1769); the statement prints no norm",
			Of: "∀x ∈ 𝒳, ‖x_i‖ ≤ α", Text: "the norm of ‖x_i‖ ≤ α is the 2-norm",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probing(propM, "‖·‖ the 2-norm", "an LMNTM sample at depth m = 1 with its points moved to α·{−1, 1}² (‖x‖∞ = α, the bound's α)"),
					probeLimit, genMLPAlphaLMNTM(true), mlpCase, mlpLMNTMJudge())
			}, Expect: verify.Needed},
		verify.Hypothesis{Name: "μ 1-Lipschitz", Kind: verify.HypClass, Line: 1719, From: "definition: 𝒩_m (line 1719)", Text: "μ a 1-Lipschitz activation function", Why: "probed at supp.prop: MLP_bound (3·ReLU: needed), which the proof applies; this check's depth-1 families have no activation"},
		verify.Hypothesis{Name: "0 ∈ μ∘𝒩_m", Kind: verify.HypClass, Line: 1722, From: verify.FromStatement, Text: "∀m ∈ ℕ, 0 ∈ μ∘𝒩_m", Why: "probed at supp.prop: MLP_bound (ReLU + 1: needed), which the proof applies"},
		verify.Hypothesis{Name: "β ∈ ℝ₊", Kind: verify.HypClass, Line: 1719, From: "definition: 𝒩_m (line 1719)", Text: "β ∈ ℝ₊", Why: "β → 0 makes the class {0} (supp.prop: MLP_bound's end check: both sides 0)"},
		verify.Hypothesis{Name: "m ∈ ℕ", Kind: verify.HypRange, Line: 1745, From: "definition: 𝒩_m, for m = 1 and m > 1 (lines 1744–1745)", Text: "𝒩_m defined for m = 1 and, inductively, for m > 1",
			Range: &verify.Range{Param: "m", Printed: "m ∈ ℕ", Lo: "1", Hi: "∞", HiOpen: true, Integer: true, Ends: mRangeEnds(true)}, Expect: verify.NeededToDefine},
		verify.Hypothesis{Name: "a_i > 0", Kind: verify.HypGrouping, Line: 1741, From: "lemma: supp.prop: MLP_bound (line 1741: a_i > 0), applied with a = w_i|λ_i|α_i(c)/n_{i,c}", Text: "the weights the proposition is applied with are positive", Why: whyPosW},
		verify.Hypothesis{Name: partDelta, Kind: verify.HypRange, Line: 1728, From: verify.FromStatement, Text: "∀δ ∈ [0, 1], with probability at least 1 − δ (the second display)",
			Range: &verify.Range{Param: "δ", Printed: "δ ∈ [0, 1]", Lo: "0", Hi: "1", Ends: deltaEnds(true, func(d float64) (float64, error) {
				return theory.ClassGEBBound(deltaSetting(), d, 1, theory.B2(1, 1, 1))
			})}, Expect: verify.NotNeeded},
	)
}
