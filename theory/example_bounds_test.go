package theory_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
)

// The weighted Rademacher complexity of the class {0, g} with g = (1, 1) and
// a = (1, 1) is E max(0, ε₁+ε₂) = ½, computed by enumerating the four sign
// vectors.
func ExampleWeightedRad() {
	values := mat.NewDense(2, 2, []float64{0, 0, 1, 1})
	sup, err := theory.FiniteClassSup(values, []float64{1, 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	rad, err := theory.WeightedRad(2, sup, nil, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("Rad = %.3f (exact: %v, %d sign vectors)\n", rad.Value, rad.Exact, rad.Draws)
	// Output: Rad = 0.500 (exact: true, 4 sign vectors)
}

// The Gaussian-kernel ball of radius 2 on three points, C = 2 outputs: the
// exact vector-valued complexity against the bound C·R·K·√(Σa²) of
// Proposition `supp.prop: kernel_bound` (K = 1 for the Gaussian kernel).
func ExampleKernelRadBound() {
	X := mat.NewDense(3, 1, []float64{0, 0.5, 3})
	a := []float64{0.2, 0.3, 0.5}
	K, _ := theory.GaussianGram(X, 1)
	ball, _ := theory.RKHSBallSup(K, a, 2)
	prod, _ := theory.ProductSup(2, 3, ball)
	lhs, _ := theory.WeightedRadExact(6, prod)
	rhs, _ := theory.KernelRadBound(2, 2, 1, a)
	fmt.Printf("E sup = %.4f ≤ bound = %.4f\n", lhs, rhs)
	// Output: E sup = 2.4408 ≤ bound = 2.4658
}

// Theorem `thm: geb` for one group of two classes with 100 points each,
// log loss with softmax link, an RKHS ball of radius 1 with K = 1
// (A₁ = √2·R·K, B₁ = 2√2·R·K) and δ = 0.05.
func ExampleGEBBound() {
	T := mat.NewDense(2, 2, []float64{0.8, 0.3, 0.2, 0.7})
	s, err := theory.NewLogLossSetting([]mat.Matrix{T}, []float64{1}, [][]float64{{0.5, 0.5}}, [][]int{{100, 100}})
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := theory.GEBBound(s, 0.05, theory.A1(2, 1, 1), theory.B1(1, 1))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("sup_g |R̂ − R̃| ≤ %.4f with probability ≥ 0.95\n", b)
	// Output: sup_g |R̂ − R̃| ≤ 2.2064 with probability ≥ 0.95
}
