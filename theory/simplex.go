package theory

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// SimplexTol is the default tolerance on the sum of a probability vector and
// on the column sums of a column-stochastic matrix.
const SimplexTol = 1e-9

// CheckSimplex reports an error naming name unless p is in the simplex Δ^C
// (Section 2): finite, non-negative entries summing to 1 within tol.
func CheckSimplex(name string, p []float64, tol float64) error {
	if len(p) == 0 {
		return fmt.Errorf("%s: empty probability vector", name)
	}
	sum := 0.0
	for i, v := range p {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: entry %d is %v, want a finite number", name, i, v)
		}
		if v < 0 {
			return fmt.Errorf("%s: entry %d is %g, want ≥ 0", name, i, v)
		}
		sum += v
	}
	if math.Abs(sum-1) > tol {
		return fmt.Errorf("%s: entries sum to %.12g, want 1±%g", name, sum, tol)
	}
	return nil
}

// CheckInteriorSimplex reports an error naming name unless p is in the open
// simplex (the interior of Δ^C, Section 2): in Δ^C with every entry > 0.
func CheckInteriorSimplex(name string, p []float64, tol float64) error {
	if err := CheckSimplex(name, p, tol); err != nil {
		return err
	}
	for i, v := range p {
		if v <= 0 {
			return fmt.Errorf("%s: entry %d is %g, want > 0 (interior of the simplex)", name, i, v)
		}
	}
	return nil
}

// CheckColumnStochastic reports an error naming name unless T is a square
// matrix with finite non-negative entries whose columns each sum to 1 within
// tol — a noise transition matrix (Section 2: t_{i,j} = P(Ỹ=i | Y=j)).
func CheckColumnStochastic(name string, T mat.Matrix, tol float64) error {
	r, err := CheckSquare(name, T)
	if err != nil {
		return err
	}
	c := r
	for j := 0; j < c; j++ {
		sum := 0.0
		for i := 0; i < r; i++ {
			v := T.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%s: entry (%d,%d) is %v, want a finite number", name, i, j, v)
			}
			if v < 0 {
				return fmt.Errorf("%s: entry (%d,%d) is %g, want ≥ 0", name, i, j, v)
			}
			sum += v
		}
		if math.Abs(sum-1) > tol {
			return fmt.Errorf("%s: column %d sums to %.12g, want 1±%g", name, j, sum, tol)
		}
	}
	return nil
}
