package theory_test

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
)

// The forward-corrected cross-entropy of Section 4.3 and its gradient. With
// T = I it is the ordinary cross-entropy: at s = 0 and C = 2 the loss is
// log 2 and the gradient p − e_c = (−1/2, 1/2).
func ExampleCompositeFC() {
	I := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	v, _ := theory.CompositeFC(I, []float64{0, 0}, 0)
	g, _ := theory.CompositeFCGrad(I, []float64{0, 0}, 0)
	fmt.Printf("λ = %.6f (log 2 = %.6f), ∇λ = %v\n", v, math.Log(2), g)
	// Extreme scores do not overflow: −log softmax(1000, −1000)_1 = 2000.
	v, _ = theory.CompositeFC(I, []float64{1000, -1000}, 1)
	fmt.Println("λ at extreme scores:", v)
	// Output:
	// λ = 0.693147 (log 2 = 0.693147), ∇λ = [-0.5 0.5]
	// λ at extreme scores: 2000
}

// Harmonic-mean weights (Section 4.3): groups with bag sizes (1,1) and (2,2)
// have HM = 1 and 2, so w = (1/3, 2/3) and the weight term is √(2/3).
func ExampleHMWeights() {
	w, value, _ := theory.HMWeights([][]float64{{1, 1}, {2, 2}})
	fmt.Printf("w = (%.4f, %.4f), value = %.6f, √(2/3) = %.6f\n", w[0], w[1], value, math.Sqrt(2./3))
	// Output:
	// w = (0.3333, 0.6667), value = 0.816497, √(2/3) = 0.816497
}

// The noisy prior of a group of two bags (Section 5.2): with γ_1 = (0.8, 0.2),
// γ_2 = (0.3, 0.7) and σ = Γᵀ(1/2, 1/2) = (0.55, 0.45), α = (1/2, 1/2), and
// T(i,j) = γ_i(j)α(i)/σ(j) is column-stochastic. Moving σ outside the hull of
// the γ's breaks Assumption `grouping assumption: ch`.
func ExampleIdealAlpha() {
	G := mat.NewDense(2, 2, []float64{.8, .2, .3, .7})
	alpha, _ := theory.IdealAlpha(G, []float64{.55, .45})
	T, _ := theory.TransitionMatrix(G, alpha, []float64{.55, .45})
	fmt.Printf("α = (%.2f, %.2f)\n", alpha[0], alpha[1])
	fmt.Printf("T = [%.4f %.4f; %.4f %.4f]\n", T.At(0, 0), T.At(0, 1), T.At(1, 0), T.At(1, 1))
	ok, _ := theory.AssumptionCH(G, []float64{.9, .1})
	inHull, _, _ := theory.HullInterior(G, []float64{.9, .1})
	fmt.Println("σ = (0.9, 0.1):", ok, inHull)
	// Output:
	// α = (0.50, 0.50)
	// T = [0.7273 0.2222; 0.2727 0.7778]
	// σ = (0.9, 0.1): false false
}
