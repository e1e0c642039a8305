package theory

import (
	"fmt"
	"math"
)

// checkCounts validates the sample sizes n[i][c] = n_{i,c} of an LMNTM
// problem (Section 4.1): N ≥ 1 groups, each with the same C ≥ 1 finite
// entries > 0. Counts are float64 so that fractional effective sizes are
// accepted; the paper's n_{i,c} are positive integers.
func checkCounts(n [][]float64) (C int, err error) {
	if len(n) == 0 {
		return 0, fmt.Errorf("n: no groups")
	}
	C = len(n[0])
	if C == 0 {
		return 0, fmt.Errorf("n[0]: no classes")
	}
	for i, row := range n {
		if len(row) != C {
			return 0, fmt.Errorf("n[%d]: has %d entries, want C=%d (= len(n[0]))", i, len(row), C)
		}
		for c, v := range row {
			if !(v > 0) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("n[%d][%d]: is %g, want a finite count > 0", i, c, v)
			}
		}
	}
	return C, nil
}

// HarmonicMean returns HM = C / Σ_c 1/n_c, the harmonic mean of the C
// sample sizes of one group (Section 4.3, after Theorem `thm: geb`). Every
// entry must be finite and > 0.
func HarmonicMean(n []float64) (float64, error) {
	if _, err := checkCounts([][]float64{n}); err != nil {
		return 0, err
	}
	return harmonicMean(n), nil
}

func harmonicMean(n []float64) float64 {
	s := 0.0
	for _, v := range n {
		s += 1 / v
	}
	return float64(len(n)) / s
}

// HMWeights returns the group weights w_i = HM_i / Σ_m HM_m that minimize the
// generalization term √(Σ_i Σ_c w_i²/n_{i,c}) = √(C Σ_i w_i²/HM_i) of Theorem
// `thm: geb` over w ∈ Δ^N (Section 4.3, text after Theorem `thm: geb`;
// Appendix `suppsec:weights`), together with the minimal value
// √(C / Σ_i HM_i). n[i][c] = n_{i,c} > 0.
//
// Why it is optimal: minimizing Σ_i w_i²/HM_i subject to Σ_i w_i = 1 has the
// Lagrange condition 2w_i/HM_i = μ for all i, so w_i ∝ HM_i, all positive;
// the objective is strictly convex, so this KKT point is the unique minimum,
// and Σ_i (HM_i/ΣHM)²/HM_i = 1/ΣHM.
func HMWeights(n [][]float64) (w []float64, value float64, err error) {
	if _, err := checkCounts(n); err != nil {
		return nil, 0, err
	}
	C := float64(len(n[0]))
	w = make([]float64, len(n))
	total := 0.0
	for i, row := range n {
		w[i] = harmonicMean(row)
		total += w[i]
	}
	for i := range w {
		w[i] /= total
	}
	return w, math.Sqrt(C / total), nil
}

// WeightTerm returns √(Σ_i Σ_c w_i²/n_{i,c}), the factor of the
// generalization bound of Theorem `thm: geb` that depends on the weights and
// sample sizes (Section 4.3). w must be in Δ^N (within SimplexTol) and n as
// in HMWeights.
func WeightTerm(w []float64, n [][]float64) (float64, error) {
	if _, err := checkCounts(n); err != nil {
		return 0, err
	}
	if err := CheckSimplex("w", w, SimplexTol); err != nil {
		return 0, err
	}
	if len(w) != len(n) {
		return 0, fmt.Errorf("w: has %d entries, want N=%d (= len(n))", len(w), len(n))
	}
	s := 0.0
	for i, row := range n {
		for _, v := range row {
			s += w[i] * w[i] / v
		}
	}
	return math.Sqrt(s), nil
}

// checkAlphas validates the noisy priors α_i (rows of alpha) against the
// shape of n: one row per group, each in Δ^C.
func checkAlphas(alpha [][]float64, n [][]float64, C int) error {
	if len(alpha) != len(n) {
		return fmt.Errorf("alpha: has %d groups, want N=%d (= len(n))", len(alpha), len(n))
	}
	for i, a := range alpha {
		if len(a) != C {
			return fmt.Errorf("alpha[%d]: has %d entries, want C=%d", i, len(a), C)
		}
		if err := CheckSimplex(fmt.Sprintf("alpha[%d]", i), a, SimplexTol); err != nil {
			return err
		}
	}
	return nil
}

// AlphaWeightTerm returns √(Σ_i w_i² Σ_c α_i(c)²/n_{i,c}), the weight factor
// before the step "α_i(c) ≤ 1" of the proof of Theorem `thm: geb`: it is the
// 2-norm of the per-point coefficients w_i α_i(c)/n_{i,c} of the empirical
// risk (equation `llpfc-ideal: empirical risk`) that enter Lemma
// `rad.lips.lemma` and Lemma `lemma: gen`, and it never exceeds WeightTerm.
// The estimators report it as the generalization term of a grouping.
func AlphaWeightTerm(w []float64, alpha, n [][]float64) (float64, error) {
	C, err := checkCounts(n)
	if err != nil {
		return 0, err
	}
	if err := CheckSimplex("w", w, SimplexTol); err != nil {
		return 0, err
	}
	if len(w) != len(n) {
		return 0, fmt.Errorf("w: has %d entries, want N=%d (= len(n))", len(w), len(n))
	}
	if err := checkAlphas(alpha, n, C); err != nil {
		return 0, err
	}
	s := 0.0
	for i := range n {
		s += w[i] * w[i] * alphaLoad(alpha[i], n[i])
	}
	return math.Sqrt(s), nil
}

// alphaLoad returns b_i = Σ_c α_i(c)²/n_{i,c}.
func alphaLoad(a, n []float64) float64 {
	b := 0.0
	for c, v := range n {
		b += a[c] * a[c] / v
	}
	return b
}

// AlphaOptimalWeights returns the weights minimizing AlphaWeightTerm over
// w ∈ Δ^N, w_i = (1/b_i)/Σ_m (1/b_m) with b_i = Σ_c α_i(c)²/n_{i,c}, and the
// minimal value 1/√(Σ_i 1/b_i) (the same Lagrange argument as HMWeights, with
// C/HM_i replaced by b_i; with α_i(c) = 1 for every c it reduces to
// HMWeights). Since Σ_c α_i(c) = 1, Cauchy–Schwarz gives
// b_i ≥ 1/Σ_c n_{i,c} > 0, so the weights are always well defined.
func AlphaOptimalWeights(alpha, n [][]float64) (w []float64, value float64, err error) {
	C, err := checkCounts(n)
	if err != nil {
		return nil, 0, err
	}
	if err := checkAlphas(alpha, n, C); err != nil {
		return nil, 0, err
	}
	w = make([]float64, len(n))
	total := 0.0
	for i := range n {
		w[i] = 1 / alphaLoad(alpha[i], n[i])
		total += w[i]
	}
	for i := range w {
		w[i] /= total
	}
	return w, 1 / math.Sqrt(total), nil
}
