package theory

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ProportionTol is how far a bag's proportions (Γ's rows) and the noisy
// prior α may stray from Δ^C when TransitionMatrix is given them: they
// arrive from files and from estimators' least squares (α̂ to the simplex
// solver's 1e-9), as sums of up to 10 decimals read from text; 1e-6 refuses
// a proportion that is off by a rounding of its printed digits, not by a
// real error.
const ProportionTol = 1e-6

// TransitionMatrix returns the noise transition matrix of a group of C bags
// (Section 5.2; Algorithm 1 line 7, Algorithm 2 line 9, Algorithm 3 line 9):
//
//	T(i,j) = Γ(i,j)·α(i)/σ(j),
//
// where row i of gamma is the label proportion γ_i of the i-th bag of the
// group, alpha is the noisy prior of the group and sigma the clean prior.
// Gamma must be C×C with rows in Δ^C, alpha must be in Δ^C and sigma must have
// C entries. T is column-stochastic exactly when σ = Γᵀα, which the caller
// must ensure (Assumption `grouping assumption: ch`); a zero σ(j) is an error
// (a class absent from the group: see package estimators for the policy).
func TransitionMatrix(gamma mat.Matrix, alpha, sigma []float64) (*mat.Dense, error) {
	C, c2 := gamma.Dims()
	if C != c2 || C == 0 {
		return nil, fmt.Errorf("gamma: is %d×%d, want C×C", C, c2)
	}
	if len(alpha) != C {
		return nil, fmt.Errorf("alpha: has %d entries, want C=%d", len(alpha), C)
	}
	if len(sigma) != C {
		return nil, fmt.Errorf("sigma: has %d entries, want C=%d", len(sigma), C)
	}
	for i := 0; i < C; i++ {
		row := mat.Row(nil, i, gamma)
		if err := CheckSimplex(fmt.Sprintf("gamma row %d", i), row, ProportionTol); err != nil {
			return nil, err
		}
	}
	if err := CheckSimplex("alpha", alpha, ProportionTol); err != nil {
		return nil, err
	}
	for j, s := range sigma {
		if !(s > 0) || math.IsInf(s, 0) {
			return nil, fmt.Errorf("sigma: entry %d is %g, want > 0 and finite", j, s)
		}
	}
	T := mat.NewDense(C, C, nil)
	for i := 0; i < C; i++ {
		for j := 0; j < C; j++ {
			T.Set(i, j, gamma.At(i, j)*alpha[i]/sigma[j])
		}
	}
	return T, nil
}

// NoisyToCleanPrior returns σ = Γᵀα, the clean prior implied by a group's
// proportions Γ (row i = γ_i) and noisy prior α (Section 5.2; Algorithm 2
// line 7 and Algorithm 3 line 7 compute σ̂_i this way).
func NoisyToCleanPrior(gamma mat.Matrix, alpha []float64) ([]float64, error) {
	C, c2 := gamma.Dims()
	if C != c2 || C == 0 {
		return nil, fmt.Errorf("gamma: is %d×%d, want C×C", C, c2)
	}
	if len(alpha) != C {
		return nil, fmt.Errorf("alpha: has %d entries, want C=%d", len(alpha), C)
	}
	var s mat.VecDense
	s.MulVec(gamma.T(), mat.NewVecDense(C, append([]float64(nil), alpha...)))
	return mat.Col(nil, 0, &s), nil
}
