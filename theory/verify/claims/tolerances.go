package claims

// The tolerances of the claims' verdicts, each with its reason. Every one is
// held by TestTolerancesRejectJustBeyond (a point at twice the tolerance is
// refused, one at half of it accepted) and by a mutation that loosens it
// tenfold (MUTATIONS.md, tol-*). The tolerances documented beside their
// checks: tolAbs and tolRel (calibration.go), radTol (rad_helpers.go),
// secondRouteTol (second_route.go), gapTol and epsShift (calib_noise.go),
// flipZeroTol, flipC1Min and invertibleTol (hyp_kit.go).

const (
	// lmCaliTol: R̃ − R̃* and its KL form are sums of ≤ 4 groups × 6 points ×
	// 5 classes of terms ≤ 30: relative rounding below 120·30·2⁻⁵² ≈ 8e-13
	// of 1 + |R̃|, and 1e-13·(1 + |R̃|) of R̃ itself; the Bayes risk at η and
	// its closed form agree to the same order.
	lmCaliTol = 1e-13
	// lmLambda0Tol: |λ_{ℓ_T}|₀ is the log of a sum of ≤ 8 entries, evaluated
	// two ways (log-sum-exp at s = 0, the closed form): relative 1e-13.
	lmLambda0Tol = 1e-13
	// lmCfmTol: the identities of App. D are sums of ≤ 25 products of
	// numbers in [0, 1]: absolute rounding 25·2⁻⁵³ ≈ 3e-15; 1e-12 leaves a
	// factor ~300 for the division by α(i) and σ(j) ≥ 1e-4.
	lmCfmTol = 1e-12
	// lmHMTol: the HM weights' term and its closed form √(C/ΣHM_i) are sums of
	// ≤ 30 reciprocals: relative 30·2⁻⁵² ≈ 7e-15; 1e-13 leaves a factor ~15.
	lmHMTol = 1e-13
	// lmEmpTol: the exact expectation of R̂ over ≤ 729 samples of ≤ 12
	// terms: relative 729·12·2⁻⁵² ≈ 2e-12 in the worst order; 1e-12 relative
	// to 1 + |a| + |b| (relEq), with the terms' sizes ≤ 10, covers it.
	lmEmpTol = 1e-12
	// chainTol: the two sides of a proof chain's step are the same formula
	// evaluated at equal arguments up to one rounding: relative 1e-12.
	chainTol = 1e-12
	// fisherDistTol: the optimizer's minimizer of a strictly convex inner
	// risk is within ~√(1e-12·κ₁²) ≈ 2e-5 of η for condition numbers κ₁ ≤
	// 1e2 of the checked T (calib_fisher.go), so a distance above 1e-4 is a
	// second minimizer, not the optimizer's stopping error.
	fisherDistTol = 1e-4
)
