package kernel_test

import (
	"fmt"

	"github.com/llpfc/llpfc/training/kernel"
)

// AUC counts a tie between a positive and a negative score as one half.
func ExampleAUC() {
	scores := []float64{0.9, 0.4, 0.4, 0.1}
	positive := []bool{true, true, false, false}
	auc, _ := kernel.AUC(scores, positive)
	fmt.Println(auc) // pairs: (0.9>0.4) (0.9>0.1) (0.4=0.4: ½) (0.4>0.1) → 3.5/4
	// Output: 0.875
}

// The LMMCM loss coefficients of a pair of bags with 80% and 20% positives.
func ExampleEta() {
	ep, em := kernel.Eta(0.8, 0.2, true)
	fmt.Printf("noisy +1: η⁺=%.3f η⁻=%.3f\n", ep, em)
	ep, em = kernel.Eta(0.8, 0.2, false)
	fmt.Printf("noisy −1: η⁺=%.3f η⁻=%.3f\n", ep, em)
	// Output:
	// noisy +1: η⁺=1.333 η⁻=-0.333
	// noisy −1: η⁺=-0.333 η⁻=1.333
}
