package theory

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Norm1 returns the matrix 1-norm ‖M‖₁ = max_j Σ_i |M(i,j)|, the norm
// subordinate to the vector 1-norm (Section 3, before Proposition
// `theorem: cali_lowerb`).
func Norm1(M mat.Matrix) float64 {
	return mat.Norm(M, 1)
}

// InvNorm1 returns ‖T⁻¹‖₁, the noise constant of Proposition
// `theorem: cali_lowerb`. It returns an error naming T when T is not square
// or is singular to working precision (reciprocal condition number below
// 1e-15), where ‖T⁻¹‖₁ is infinite or meaningless.
func InvNorm1(T mat.Matrix) (float64, error) {
	if _, err := CheckSquare("T", T); err != nil {
		return 0, err
	}
	if err := finiteMatrix(T); err != nil {
		return 0, err
	}
	var lu mat.LU
	lu.Factorize(T)
	if cond := lu.Cond(); math.IsInf(cond, 1) || cond > SingularCond {
		return math.Inf(1), &SingularError{Name: "T", Quantity: "‖T⁻¹‖₁", Cond: cond}
	}
	var inv mat.Dense
	if err := inv.Inverse(T); err != nil {
		return math.Inf(1), fmt.Errorf("T: %w", err)
	}
	return mat.Norm(&inv, 1), nil
}

// Lambda0 returns |λ_{ℓ_T}|₀ = max_c |λ_{ℓ_T}(0,c)| = max_c −log((1/C)Σ_j t_{c,j})
// for the log loss with the softmax link (Section 4.3, after Proposition
// `lip.upper.bd.cel`). A row of T summing to 0 gives +Inf and an error.
func Lambda0(T mat.Matrix) (float64, error) {
	r, err := CheckSquare("T", T)
	if err != nil {
		return 0, err
	}
	c := r
	worst := math.Inf(-1)
	for i := 0; i < r; i++ {
		s := 0.0
		for j := 0; j < c; j++ {
			s += T.At(i, j)
		}
		if !(s > 0) {
			return math.Inf(1), fmt.Errorf("T: row %d sums to %g, want > 0 (|λ|₀ is infinite)", i, s)
		}
		v := math.Abs(-math.Log(s / float64(c)))
		if v > worst {
			worst = v
		}
	}
	return worst, nil
}

// finiteMatrix reports an error naming T if an entry of T is NaN or infinite.
func finiteMatrix(T mat.Matrix) error {
	r, c := T.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if v := T.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("T: entry (%d,%d) is %v, want a finite number", i, j, v)
			}
		}
	}
	return nil
}
