package lossclaims

import (
	"math"

	"github.com/llpfc/llpfc/theory/verify"
	"github.com/llpfc/llpfc/training/loss"
)

// The claims' labels: not LaTeX labels (these methods are not in the
// paper), named by method.
const (
	labelEasy     = "easyllp: unbiased"
	labelPVC      = "llppvc: count likelihood"
	labelMixture  = "mixbag: mixture"
	labelCoverage = "mixbag: interval coverage"
)

const probeLimit = 500

func probeStream(label, hyp string) string { return "probe/" + label + "/" + hyp }

func holdsIf(ok bool, bad verify.EndVerdict) verify.EndVerdict {
	if ok {
		return verify.EndHolds
	}
	return bad
}

func init() {
	verify.Register(verify.Claim{
		Label: labelEasy, Section: "EasyLLP", Kind: verify.IdentityKind,
		Statement: "for bags of k instances drawn i.i.d. from the population with class prior p, the expected EasyLLP bag loss " +
			"(1/k)Σ_i Σ_c −ỹ_c log softmax(z_i)_c with ỹ = kα − (k−1)p equals the supervised risk E[−log softmax(z(x))_y] " +
			"(loss.EasyLLP, exact by enumeration of the K^k bags)",
		Check:        func(cfg verify.Config) verify.Outcome { return checkEasyUnbiased(cfg, labelEasy, easyLossRef) },
		Negative:     func(cfg verify.Config) verify.Outcome { return checkEasyUnbiased(cfg, labelEasy, easyLossBagPrior) },
		NegativeName: "the prior taken from the bag itself (the authors' minibatch mean, one bag a minibatch)",
	})
	verify.Register(verify.Claim{
		Label: labelPVC, Section: "LLP-PVC", Kind: verify.IdentityKind,
		Statement: "LLP-PVC's bag loss is −Σ_c log P(K_c = k_c), K_c the number of the bag's instances labelled c when each instance's label " +
			"of class c is an independent Bernoulli(σ(z_ic)) and k = PVCCounts(α, s) (loss.PVC against the brute-force sum over all 2^s labellings)",
		Check:        func(cfg verify.Config) verify.Outcome { return checkPVCLikelihood(cfg, labelPVC, pvcLossRef) },
		Negative:     func(cfg verify.Config) verify.Outcome { return checkPVCLikelihood(cfg, labelPVC, pvcLossBinomial) },
		NegativeName: "each count read as Binomial(s, p̄_c), the bag's mean probability (the instances' differences ignored)",
	})
	verify.Register(verify.Claim{
		Label: labelMixture, Section: "MixBag", Kind: verify.IdentityKind,
		Statement: "a mixed bag of ni instances of bag i and nj of bag j has proportions (ni·p_i + nj·p_j)/(ni+nj), and its true proportions " +
			"average to them over the draws (loss.MixBagPair, loss.MixBagInterval; 2000 draws, 5 standard errors)",
		Check:        func(cfg verify.Config) verify.Outcome { return checkMixture(cfg, labelMixture, mixRef) },
		Negative:     func(cfg verify.Config) verify.Outcome { return checkMixture(cfg, labelMixture, mixUnweighted) },
		NegativeName: "the plain mean (p_i + p_j)/2 of the two bags' proportions",
	})
	verify.Register(verify.Claim{
		Label: labelCoverage, Section: "MixBag", Kind: verify.Theorem, RatioFloor: 0.95,
		Statement: "over random pairs of bags, MixBag's interval mix ± (a·t√(p_i(1−p_i)/ni) + b·t√(p_j(1−p_j)/nj)), t = Φ⁻¹(1−q), " +
			"covers the mixed bag's true proportions with frequency ≥ 1 − 2q (q = 0.005; 400 mixed bags a case, 5 standard errors)",
		Check:        func(cfg verify.Config) verify.Outcome { return checkCoverage(cfg, labelCoverage, intervalRef) },
		Negative:     func(cfg verify.Config) verify.Outcome { return checkCoverage(cfg, labelCoverage, intervalFirstOnly) },
		NegativeName: "the half-width of the first bag's sub-bag only",
	})

	verify.RegisterHypotheses(labelEasy,
		verify.Hypothesis{Name: "bags i.i.d. from the population", Kind: verify.HypSampling, From: "method: EasyLLP (Busa-Fekete et al., NeurIPS 2023)",
			Text:  "bags of k instances drawn i.i.d. from the distribution whose class prior is p (Busa-Fekete et al., NeurIPS 2023; loss.EasyLLPSoftLabels)",
			Probe: probeEasyGoverned, Expect: verify.Needed},
		verify.Hypothesis{Name: "p the population's prior", Kind: verify.HypDistribution, From: "method: EasyLLP's soft labels (loss.EasyLLPSoftLabels)",
			Text:  "ỹ = kα − (k−1)p with p the class prior of the population",
			Probe: probeEasyPrior, Expect: verify.Needed},
		verify.Hypothesis{Name: "k ∈ ℕ", Kind: verify.HypRange, From: "method: EasyLLP", Text: "bags of k instances",
			Range: &verify.Range{Param: "k", Printed: "k ∈ ℕ", Lo: "1", Hi: "∞", HiOpen: true, Integer: true, Ends: easyKEnds}, Expect: verify.NeededToDefine},
	)
	verify.RegisterHypotheses(labelPVC,
		verify.Hypothesis{Name: "per-class labels independent", Kind: verify.HypSampling, From: "method: LLP-PVC (LLP-PVC.py@fe11a00:667)",
			Text:  "each class's labels independent Bernoulli(σ(z_ic)) (sigmoid per class, LLP-PVC.py@fe11a00:667; the classes' counts need not sum to s)",
			Probe: probePVCCategorical, Expect: verify.Needed},
		verify.Hypothesis{Name: "instances independent", Kind: verify.HypSampling, From: "method: LLP-PVC (LLP-PVC.py@fe11a00:365-406)",
			Text:  "the instances' labels independent given their features: K_c a Poisson-binomial variable (LLP-PVC.py@fe11a00:365-406)",
			Probe: probePVCShared, Expect: verify.Needed},
		verify.Hypothesis{Name: "s·α_c integers", Kind: verify.HypRange, From: "method: LLP-PVC's count likelihood", Text: "the bag's proportions are counts: k_c = s·α_c (PVCCounts rounds otherwise)",
			Range: &verify.Range{Param: "s·α_c", Printed: "s·α_c ∈ {0, …, s}", Lo: "0", Hi: "s", Integer: true, Member: countsMember, Ends: pvcCountEnds}, Expect: verify.NeededToDefine},
	)
	verify.RegisterHypotheses(labelMixture,
		verify.Hypothesis{Name: "sub-bags uniform without replacement", Kind: verify.HypSampling, From: "method: MixBag (utils/dataset.py@ac6ceb9:136-156)",
			Text:  "ni instances of bag i and nj of bag j drawn uniformly without replacement (utils/dataset.py@ac6ceb9:136-156)",
			Probe: probeMixSorted, Expect: verify.Needed},
	)
	verify.RegisterHypotheses(labelCoverage,
		verify.Hypothesis{Name: "counts approximately normal", Kind: verify.HypSampling, From: "method: MixBag's interval (utils/utils.py@ac6ceb9:45-61)",
			Text:  "the sub-bags' class counts approximately normal (the binomial normal approximation of ci_loss_interval, utils/utils.py@ac6ceb9:45-61)",
			Probe: probeCoverSmall, Expect: verify.Needed},
		verify.Hypothesis{Name: "q ∈ (0, ½)", Kind: verify.HypRange, From: "method: MixBag (arguments.py@ac6ceb9:58-65)", Text: "the one-sided level q (--confidence_interval 0.005, \"99% confidential interval\", arguments.py@ac6ceb9:58-65)",
			Range: &verify.Range{Param: "q", Printed: "q ∈ (0, ½)", Lo: "0", Hi: "½", LoOpen: true, HiOpen: true, Ends: coverQEnds}, Expect: verify.NotNeeded},
	)
}

// countsMember decides a point (s, s·α_1, …, s·α_C) of the range of counts:
// every s·α_c an integer in {0, …, s}.
func countsMember(x []float64) bool {
	s := x[0]
	for _, v := range x[1:] {
		if v != math.Trunc(v) || v < 0 || v > s {
			return false
		}
	}
	return true
}

// intervalRef is loss.MixBagInterval.
func intervalRef(mix, lo, hi, pi, pj []float64, ni, nj int, q float64) {
	loss.MixBagInterval(mix, lo, hi, pi, pj, ni, nj, q)
}
