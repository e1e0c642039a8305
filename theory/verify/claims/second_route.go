package claims

// Second routes for the norms that the calibration bounds are made of
// (an independent side): the right-hand sides θ_T, θ_T⁻¹, θ^sq_T and the LMNTM θ are
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
func gjInverse(T mat.Matrix) (*mat.Dense, error) {
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
	inv := mat.NewDense(n, n, nil)
	for i := range a {
		inv.SetRow(i, a[i][n:])
	}
	return inv, nil
}

// invNorm1GJ is ‖T⁻¹‖₁, the largest absolute column sum of the Gauss–Jordan inverse.
func invNorm1GJ(T mat.Matrix) (float64, error) {
	inv, err := gjInverse(T)
	if err != nil {
		return 0, err
	}
	return colSumMax(inv), nil
}

// invNorm2GJ is ‖T⁻¹‖₂ = √λ_max((T⁻¹)ᵀT⁻¹) with the Gauss–Jordan inverse.
func invNorm2GJ(T mat.Matrix) (float64, error) {
	inv, err := gjInverse(T)
	if err != nil {
		return 0, err
	}
	n, _ := inv.Dims()
	G := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s := 0.0
			for k := 0; k < n; k++ {
				s += inv.At(k, i) * inv.At(k, j)
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

// crossed wraps a right-hand side of the calibration bounds, f(T, x) = θ⁻¹(T, r)
// = √2‖T⁻¹‖√r or θ(T, ε) = ε²/(2‖T⁻¹‖²): the implementation's value must
// agree with formula(‖T⁻¹‖, x) at the second-route norm. call and expr name
// the two sides in the error (as θ⁻¹(r=…) and √2·‖T⁻¹‖₁·√r).
func crossed(impl func(mat.Matrix, float64) (float64, error), norm func(mat.Matrix) (float64, error), what, call, expr string, formula func(n, x float64) float64) func(mat.Matrix, float64) (float64, error) {
	return func(T mat.Matrix, x float64) (float64, error) {
		v, err := impl(T, x)
		if err != nil {
			return v, err
		}
		n, err := norm(T)
		if err != nil {
			return v, nil // singular for Gauss–Jordan too: nothing to compare
		}
		if ref := formula(n, x); !agreeT(T, v, ref) {
			return v, fmt.Errorf("second route: %s=%.6g) = %.10g, but %s = %.10g with %s = %.10g from an explicit inverse", call, x, v, fmt.Sprintf(expr, what), ref, what, n)
		}
		return v, nil
	}
}

// crossBoundInv wraps θ⁻¹(T, r) = √2‖T⁻¹‖√r.
func crossBoundInv(impl boundInvFunc, norm func(mat.Matrix) (float64, error), what string) boundInvFunc {
	return crossed(impl, norm, what, "θ⁻¹(r", "√2·%s·√r", func(n, r float64) float64 { return math.Sqrt2 * n * math.Sqrt(r) })
}

// crossTheta wraps θ(T, ε) = ε²/(2‖T⁻¹‖²) likewise.
func crossTheta(impl thetaFunc, norm func(mat.Matrix) (float64, error), what string) thetaFunc {
	return crossed(impl, norm, what, "θ(ε", "ε²/(2·%s²)", func(n, eps float64) float64 { return eps * eps / (2 * n * n) })
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
