package theory

import (
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTolerancesRejectJustBeyond holds the library's tolerances to their
// documented sizes through the functions that use them: a point at (about)
// twice a tolerance refused, one at half of it accepted, so that a
// tolerance loosened tenfold fails here.
func TestTolerancesRejectJustBeyond(t *testing.T) {
	half := []float64{0.5, 0.5}
	// SimplexTol = 1e-9: KL's arguments.
	_, err := KL([]float64{0.5, 0.5 + 0.5e-9}, half)
	assert.NoError(t, err, "a sum off by 0.5e-9")
	_, err = KL([]float64{0.5, 0.5 + 2e-9}, half)
	assert.Error(t, err, "a sum off by 2e-9 (SimplexTol = 1e-9)")

	// AssumptionTol = 1e-9: α = σ for Γ = I, interior when min α > 1e-9.
	I := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	ok, err := AssumptionCH(I, []float64{1 - 2e-9, 2e-9})
	require.NoError(t, err)
	assert.True(t, ok, "min α = 2e-9")
	ok, err = AssumptionCH(I, []float64{1 - 0.5e-9, 0.5e-9})
	require.NoError(t, err)
	assert.False(t, ok, "min α = 0.5e-9 (AssumptionTol = 1e-9)")

	// AssumptionCondTol = 1e-12: Γ with rows (1, 0) and (1 − ε, ε) has a
	// condition number ≈ 2/ε.
	illCond := func(eps float64) bool {
		_, err := IdealAlpha(mat.NewDense(2, 2, []float64{1, 0, 1 - eps, eps}), half)
		return err != nil && strings.Contains(err.Error(), "too ill-conditioned")
	}
	assert.False(t, illCond(6e-11), "condition ≈ 3e10")
	assert.True(t, illCond(6e-13), "condition ≈ 3e12 > 1/AssumptionCondTol")

	// SingularCond = 1e15: ‖T⁻¹‖₁ of diag(1, d).
	_, err = InvNorm1(mat.NewDense(2, 2, []float64{1, 0, 0, 3e-15}))
	assert.NoError(t, err, "condition ≈ 3.3e14")
	_, err = InvNorm1(mat.NewDense(2, 2, []float64{1, 0, 0, 0.3e-15}))
	assert.Error(t, err, "condition ≈ 3.3e15 > SingularCond")

	// psdTol = 1e-9: a Gram matrix's smallest eigenvalue relative to its
	// largest diagonal entry.
	gram := func(neg float64) *mat.SymDense { return mat.NewSymDense(2, []float64{1, 0, 0, -neg}) }
	_, err = RKHSBallSup(gram(0.5e-9), []float64{1, 1}, 1)
	assert.NoError(t, err, "smallest eigenvalue −0.5e-9")
	_, err = RKHSBallSup(gram(2e-9), []float64{1, 1}, 1)
	assert.Error(t, err, "smallest eigenvalue −2e-9 (psdTol = 1e-9)")

	// ProportionTol = 1e-6: a bag's proportions summing to 1 + d.
	trans := func(d float64) error {
		_, err := TransitionMatrix(mat.NewDense(2, 2, []float64{0.5, 0.5 + d, 0.2, 0.8}), []float64{0.5, 0.5}, []float64{0.35, 0.65 + d/2})
		return err
	}
	assert.NoError(t, trans(0.5e-6), "a row summing to 1 + 0.5e-6")
	assert.Error(t, trans(2e-6), "a row summing to 1 + 2e-6 (ProportionTol = 1e-6)")
}
