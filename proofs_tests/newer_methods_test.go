package proofs_tests

import "testing"

// The newer methods' identities (training/loss/lossclaims):
// each must hold on ≥ 500 cases and catch its negative control.

func TestEasyLLPUnbiasedClaim(t *testing.T)       { checkClaim(t, "easyllp: unbiased", true) }
func TestLLPPVCCountLikelihoodClaim(t *testing.T) { checkClaim(t, "llppvc: count likelihood", true) }
func TestMixBagMixtureClaim(t *testing.T)         { checkClaim(t, "mixbag: mixture", true) }
func TestMixBagIntervalCoverageClaim(t *testing.T) {
	checkClaim(t, "mixbag: interval coverage", true)
}
