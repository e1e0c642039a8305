package claims

// Second routes for the norms that the calibration bounds are made of
// (issue 11): the right-hand sides θ_T, θ_T⁻¹, θ^sq_T and the LMNTM θ are
// cross-checked, case by case, against the paper's formula evaluated with
// ‖T⁻¹‖₁ and ‖T⁻¹‖₂ computed here from an explicit Gauss–Jordan inverse
// (column sums; the largest eigenvalue of (T⁻¹)ᵀT⁻¹), not from
// theory.InvNorm1/InvNorm2 (LU, SVD). A mismatch fails the case: an
// implementation whose norm is wrong (the ∞-norm, ‖T‖ for ‖T⁻¹‖, σ_max for
// σ_min) can then not pass by being wrong on both sides.

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
)

// secondRouteTol is the relative agreement required: both routes are
// backward stable, so they agree to about C·u·κ(T) ≤ 1e-7 at κ = 1e8.
const secondRouteTol = 1e-6

// gjInverse returns T⁻¹ by Gauss–Jordan elimination with partial pivoting.
func gjInverse(T mat.Matrix) ([][]float64, error) {
	n, _ := T.Dims()
	a := make([][]float64, n)
	for i := range a {
		a[i] = make([]float64, 2*n)
		for j := 0; j < n; j++ {
			a[i][j] = T.At(i, j)
		}
		a[i][n+i] = 1
	}
	for col := 0; col < n; col++ {
		p := col
		for i := col + 1; i < n; i++ {
			if math.Abs(a[i][col]) > math.Abs(a[p][col]) {
				p = i
			}
		}
		if a[p][col] == 0 {
			return nil, fmt.Errorf("T is singular")
		}
		a[col], a[p] = a[p], a[col]
		piv := a[col][col]
		for j := range a[col] {
			a[col][j] /= piv
		}
		for i := 0; i < n; i++ {
			if i == col || a[i][col] == 0 {
				continue
			}
			f := a[i][col]
			for j := range a[i] {
				a[i][j] -= f * a[col][j]
			}
		}
	}
	inv := make([][]float64, n)
	for i := range inv {
		inv[i] = a[i][n:]
	}
	return inv, nil
}

// invNorm1GJ is ‖T⁻¹‖₁, the largest absolute column sum of the Gauss–Jordan inverse.
func invNorm1GJ(T mat.Matrix) (float64, error) {
	inv, err := gjInverse(T)
	if err != nil {
		return 0, err
	}
	best := 0.0
	for j := range inv {
		s := 0.0
		for i := range inv {
			s += math.Abs(inv[i][j])
		}
		best = math.Max(best, s)
	}
	return best, nil
}

// invNorm2GJ is ‖T⁻¹‖₂ = √λ_max((T⁻¹)ᵀT⁻¹) with the Gauss–Jordan inverse.
func invNorm2GJ(T mat.Matrix) (float64, error) {
	inv, err := gjInverse(T)
	if err != nil {
		return 0, err
	}
	n := len(inv)
	G := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s := 0.0
			for k := 0; k < n; k++ {
				s += inv[k][i] * inv[k][j]
			}
			G.SetSym(i, j, s)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(G, false) {
		return 0, fmt.Errorf("eigendecomposition failed")
	}
	vals := eig.Values(nil)
	return math.Sqrt(vals[len(vals)-1]), nil
}

// agreeT compares the two routes for the matrix T: tolerance secondRouteTol
// plus 1e-14·C·κ₁(T), the forward error of two backward-stable inverses
// (κ₁ = ‖T‖₁‖T⁻¹‖₁ from the explicit inverse; T near singular widens it).
func agreeT(T mat.Matrix, impl, ref float64) bool {
	tol := secondRouteTol
	if n, err := invNorm1GJ(T); err == nil {
		C, _ := T.Dims()
		tol += 1e-14 * float64(C) * mat.Norm(T, 1) * n
	}
	return math.Abs(impl-ref) <= tol*math.Abs(ref)+1e-300
}

// crossBoundInv wraps θ⁻¹(T, r) = √2‖T⁻¹‖√r: the implementation's value must
// agree with the formula at the second-route norm.
func crossBoundInv(impl boundInvFunc, norm func(mat.Matrix) (float64, error), what string) boundInvFunc {
	return func(T mat.Matrix, r float64) (float64, error) {
		v, err := impl(T, r)
		if err != nil {
			return v, err
		}
		n, err := norm(T)
		if err != nil {
			return v, nil // singular for Gauss–Jordan too: nothing to compare
		}
		if ref := math.Sqrt2 * n * math.Sqrt(r); !agreeT(T, v, ref) {
			return v, fmt.Errorf("second route: θ⁻¹(r=%.6g) = %.10g, but √2·%s·√r = %.10g with %s = %.10g from an explicit inverse", r, v, what, ref, what, n)
		}
		return v, nil
	}
}

// crossTheta wraps θ(T, ε) = ε²/(2‖T⁻¹‖²) likewise.
func crossTheta(impl thetaFunc, norm func(mat.Matrix) (float64, error), what string) thetaFunc {
	return func(T mat.Matrix, eps float64) (float64, error) {
		v, err := impl(T, eps)
		if err != nil {
			return v, err
		}
		n, err := norm(T)
		if err != nil {
			return v, nil
		}
		if ref := eps * eps / (2 * n * n); !agreeT(T, v, ref) {
			return v, fmt.Errorf("second route: θ(ε=%.6g) = %.10g, but ε²/(2·%s²) = %.10g with %s = %.10g from an explicit inverse", eps, v, what, ref, what, n)
		}
		return v, nil
	}
}

// agreeLM compares with the widest tolerance of the group matrices.
func agreeLM(impl, ref float64, Ts []mat.Matrix) bool {
	for _, T := range Ts {
		if agreeT(T, impl, ref) {
			return true
		}
	}
	return false
}

// crossLMTheta wraps the LMNTM θ(ε) = (ε²/2)Σ_i w_i/‖T_i⁻¹‖₁².
func crossLMTheta(impl lmThetaFunc) lmThetaFunc {
	return func(Ts []mat.Matrix, w []float64, eps float64) (float64, error) {
		v, err := impl(Ts, w, eps)
		if err != nil {
			return v, err
		}
		k := 0.0
		for i, T := range Ts {
			n, err := invNorm1GJ(T)
			if err != nil {
				return v, nil
			}
			k += w[i] / (n * n)
		}
		if ref := k * eps * eps / 2; !agreeLM(v, ref, Ts) {
			return v, fmt.Errorf("second route: θ(ε=%.6g) = %.10g, but (ε²/2)Σ_i w_i/‖T_i⁻¹‖₁² = %.10g from explicit inverses", eps, v, ref)
		}
		return v, nil
	}
}

// The references the Check functions use.
var (
	refBoundInv   = crossBoundInv(theory.CalibrationBoundInverse, invNorm1GJ, "‖T⁻¹‖₁")
	refSqBoundInv = crossBoundInv(theory.SquareCalibrationBoundInverse, invNorm2GJ, "‖T⁻¹‖₂")
	refTheta      = crossTheta(theory.CalibrationLowerBound, invNorm1GJ, "‖T⁻¹‖₁")
	refSqTheta    = crossTheta(theory.SquareCalibrationLowerBound, invNorm2GJ, "‖T⁻¹‖₂")
	refLMTheta    = crossLMTheta(theory.LMNTMTheta)
)
