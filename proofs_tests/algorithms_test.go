package proofs_tests

import "testing"

// The claims of Algorithms 1–3 (Section 5.4; estimators/algclaims):
// each must hold on ≥ 500 cases and catch its negative control.

func TestAlg3SigmaHat(t *testing.T)             { checkClaim(t, "alg3: sigma-hat", true) }
func TestAlg2AlphaHatKKT(t *testing.T)          { checkClaim(t, "alg2: alpha-hat", true) }
func TestAlg2THatColumnStochastic(t *testing.T) { checkClaim(t, "alg2: T-hat", true) }
func TestAlg1EmpiricalRiskUnbiased(t *testing.T) {
	checkClaim(t, "alg1: empirical risk unbiased", true)
}
