package proofs_tests

import "testing"

// Section 3 and App. B: calibration of the forward-correction loss.

func TestCaliInnerLemma(t *testing.T) { checkClaim(t, "cali.inner.lemma", true) }

func TestTheoremConvexLBCalibFuncFCLogLoss(t *testing.T) {
	checkClaim(t, "theorem: convex LB - calib func - FC log loss", true)
}

func TestYWLemmaKL(t *testing.T) { checkClaim(t, "YW_lemma:KL", true) }

func TestTheoremPinskerInequality(t *testing.T) { checkClaim(t, "theorem: Pinsker inequality", true) }

func TestLemmaL1NormUpperBoundsZODivergence(t *testing.T) {
	checkClaim(t, "lemma: L1 norm upper bounds ZO divergence", true)
}

func TestEquationDefinitionKLDivergence(t *testing.T) {
	checkClaim(t, "equation-definition: KL divergence", true)
}

func TestTheoremCaliLowerb(t *testing.T) { checkClaim(t, "theorem: cali_lowerb", true) }

func TestThmInvCali(t *testing.T) { checkClaim(t, "thm:inv.cali", true) }

func TestLemmaOperatorNormInverseInfimum(t *testing.T) {
	checkClaim(t, "lemma: operator norm inverse infimum", true)
}

func TestEqUniformNoiseInverseNorm(t *testing.T) {
	checkClaim(t, "eq: uniform noise inverse norm", true)
}

func TestEquationDefinitionBayesRiskZOLoss(t *testing.T) {
	checkClaim(t, "equation-definition: Bayes risk - zo loss", true)
}

func TestFCFisherConsistency(t *testing.T) { checkClaim(t, "fc.fisher.consistency", true) }

func TestThmCaliNoise(t *testing.T) { checkClaim(t, "thm:cali.noise", true) }

func TestEquationDefinitionBayesMinimumRiskZOLoss(t *testing.T) {
	checkClaim(t, "equation-definition: Bayes minimum risk - zo loss", true)
}

func TestEquationCalibrationFunctionLower(t *testing.T) {
	checkClaim(t, "equation: calibration function - lower", true)
}
