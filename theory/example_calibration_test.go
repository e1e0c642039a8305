package theory_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
)

// The calibration bound of Proposition `theorem: cali_lowerb` for uniform
// label noise with α = 0.5 and C = 2: ‖T⁻¹‖₁ = 2, so an excess noisy FC
// log-loss risk r bounds the excess clean 0-1 risk by √2·2·√r.
func ExampleCalibrationBoundInverse() {
	T, _ := theory.UniformNoiseT(0.5, 2)
	n, _ := theory.UniformNoiseInvNorm1(0.5, 2)
	eta := []float64{0.7, 0.3} // clean posterior at x
	q := []float64{0.4, 0.6}   // a wrong prediction: excess 0-1 inner risk 0.4
	c1, _ := theory.ExcessZeroOneInnerRisk(eta, q)
	c2, _ := theory.ExcessInnerRiskFC(theory.LogLoss, T, eta, q)
	te, _ := theory.NoisyPosterior(T, eta)
	tq, _ := theory.NoisyPosterior(T, q)
	kl, _ := theory.KL(te, tq) // Lemma `YW_lemma:KL`: equals c2
	bound, _ := theory.CalibrationBoundInverse(T, c2)
	fmt.Printf("T = %.2f\n", mat.Formatted(T, mat.FormatMATLAB()))
	fmt.Printf("‖T⁻¹‖₁ = %.4g\n", n)
	fmt.Printf("excess 0-1: %.4f, excess FC log: %.4f (KL %.4f)\n", c1, c2, kl)
	fmt.Printf("bound √2‖T⁻¹‖₁√r = %.4f ≥ %.4f\n", bound, c1)
	// By hand: Tη = (0.6, 0.4), Tq = (0.45, 0.55),
	// KL = 0.6·log(0.6/0.45) + 0.4·log(0.4/0.55) = 0.17261 − 0.12738 = 0.04523,
	// bound = √2·2·√0.04523 = 0.6015.

	// Output:
	// T = [0.75 0.25; 0.25 0.75]
	// ‖T⁻¹‖₁ = 2
	// excess 0-1: 0.4000, excess FC log: 0.0452 (KL 0.0452)
	// bound √2‖T⁻¹‖₁√r = 0.6015 ≥ 0.4000
}

// KL stays accurate when p ≈ q, where the textbook Σ p log(p/q) cancels:
// for p = (½+d, ½−d), q = (½,½), KL = 2d² + (4/3)d⁴ + … .
func ExampleKL() {
	h := 0.5
	d := (h + 1e-9) - h // so that ½ ± d are exact
	p := []float64{h + d, h - d}
	q := []float64{0.5, 0.5}
	kl, _ := theory.KL(p, q)
	fmt.Printf("KL = %.6e, 2d² = %.6e\n", kl, 2*d*d)
	bad, _ := theory.KL([]float64{0.5, 0.5}, []float64{1, 0})
	fmt.Println("KL with q_i = 0 < p_i:", bad)
	// Output:
	// KL = 2.000000e-18, 2d² = 2.000000e-18
	// KL with q_i = 0 < p_i: +Inf
}
