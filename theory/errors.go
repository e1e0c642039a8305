package theory

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// SingularCond is the one cut-off of the project for a matrix singular to
// working precision: condition number above 1e15 (about 1/(4.5·ε) for
// float64's ε = 2.2e-16), where an inverse has no correct digit. InvNorm1,
// InvNorm2 and the estimators use it. (Assumption `grouping assumption: ch`
// decides invertibility with a wider margin, AssumptionCondTol, because α
// must be accurate there, not merely defined.)
const SingularCond = 1e15

// ErrSingular is wrapped by every error that reports a matrix singular to
// working precision (errors.Is(err, ErrSingular)).
var ErrSingular = errors.New("singular to working precision")

// SingularError reports that the matrix Name has condition number Cond >
// SingularCond, so Quantity (e.g. "‖T⁻¹‖₁") is not defined.
type SingularError struct {
	Name, Quantity string
	Cond           float64
}

func (e *SingularError) Error() string {
	return fmt.Sprintf("%s: %v (condition number %.3g > %.0e), %s is not defined", e.Name, ErrSingular, e.Cond, SingularCond, e.Quantity)
}

// Unwrap makes errors.Is(err, ErrSingular) hold.
func (e *SingularError) Unwrap() error { return ErrSingular }

// CheckSquare returns n for a non-nil, non-empty n×n matrix and an error
// naming name otherwise: the one shape check of the package.
func CheckSquare(name string, M mat.Matrix) (int, error) {
	if M == nil {
		return 0, fmt.Errorf("%s: nil matrix", name)
	}
	r, c := M.Dims()
	if r != c || r == 0 {
		return 0, fmt.Errorf("%s: is %d×%d, want a non-empty square matrix", name, r, c)
	}
	return r, nil
}
