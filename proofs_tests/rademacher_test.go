package proofs_tests

import "testing"

// Appendix C: vector contraction and the weighted Rademacher complexity.

func TestVecRadIneq(t *testing.T)        { checkClaim(t, "vec.rad.ineq", true) }
func TestLemmaMultiRad1(t *testing.T)    { checkClaim(t, "lemma: multi.rad.1", true) }
func TestMultiRadLemma(t *testing.T)     { checkClaim(t, "multi.rad.lemma", true) }
func TestSuppPropRadSubset(t *testing.T) { checkClaim(t, "supp.prop.rad: subset", true) }
func TestSuppPropRadSum(t *testing.T)    { checkClaim(t, "supp.prop.rad: sum", true) }
func TestSuppPropRadMult(t *testing.T)   { checkClaim(t, "supp.prop.rad: mult", true) }
func TestSuppPropRadConv(t *testing.T)   { checkClaim(t, "supp.prop.rad: conv", true) }
func TestSuppPropRadLip(t *testing.T)    { checkClaim(t, "supp.prop.rad: lip", true) }
func TestSuppPropWeightedRadProperties(t *testing.T) {
	checkClaim(t, "supp.prop.weighted_rad_properties", true)
}

// Appendix C: the RKHS and MLP classes of Section 4.3.

func TestSuppPropKernelBound(t *testing.T) { checkClaim(t, "supp.prop: kernel_bound", true) }
func TestPropKernelBound(t *testing.T)     { checkClaim(t, "prop: kernel_bound", true) }
func TestSuppPropMLPBound(t *testing.T)    { checkClaim(t, "supp.prop: MLP_bound", true) }
func TestPropMLPBound(t *testing.T)        { checkClaim(t, "prop: MLP_bound", true) }

// Appendix C and Section 4.3: the probabilistic generalization bounds,
// checked by simulation on a finite X (see theory/verify/claims/rad_sampling.go).

func TestRadLipsLemma(t *testing.T) { checkClaim(t, "rad.lips.lemma", true) }
func TestLemmaGen(t *testing.T)     { checkClaim(t, "lemma: gen", true) }
func TestThmGeb(t *testing.T)       { checkClaim(t, "thm: geb", true) }
