package estimators

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// SimplexLS solves the simplex-constrained least-squares problem of
// Algorithm 3 (LLPFC-approx), line 6,
//
//	α̂ ∈ argmin_{α ∈ Δ^C} ‖b − Aα‖²₂   with A = Γ̂_iᵀ, b = σ̂,
//
// exactly (to rounding), by a primal active-set method for convex quadratic
// programs (Nocedal & Wright, Numerical Optimization, Algorithm 16.3): the
// working set holds the indices fixed at α(j) = 0; each step solves the
// equality-constrained subproblem on the free indices (Σ_free p = 0) by a
// minimum-norm least-squares solve of its KKT system, so a rank-deficient A
// (e.g. two identical bags in a group) is handled: where the subproblem has
// a direction of zero curvature along which the objective decreases, the step
// follows it to the nearest bound. The returned α̂ lies in Δ^C (entries ≥ 0,
// summing to 1 within 1e-12) and satisfies the KKT conditions checked by
// CheckSimplexLSKKT.
//
// When A is rank deficient the minimizer need not be unique; the fitted
// vector Aα̂ (= σ̂_i in Algorithm 3, line 7) always is, because the objective
// is strictly convex in Aα. SimplexLS is deterministic: it starts from the
// barycentre and returns the minimizer its path reaches.
func SimplexLS(A mat.Matrix, b []float64) ([]float64, error) {
	m, n := A.Dims()
	if m != len(b) {
		return nil, fmt.Errorf("simplex least squares: A is %d×%d but b has %d entries", m, n, len(b))
	}
	if n == 0 {
		return nil, errors.New("simplex least squares: A has no columns")
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			if v := A.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("simplex least squares: A(%d,%d) is %v, want finite", i, j, v)
			}
		}
		if math.IsNaN(b[i]) || math.IsInf(b[i], 0) {
			return nil, fmt.Errorf("simplex least squares: b(%d) is %v, want finite", i, b[i])
		}
	}
	var H mat.SymDense // H = AᵀA
	H.SymOuterK(1, mat.DenseCopyOf(A).T())
	atb := make([]float64, n) // Aᵀb
	for j := 0; j < n; j++ {
		for i := 0; i < m; i++ {
			atb[j] += A.At(i, j) * b[i]
		}
	}
	scale := 1.0 // magnitude of gradients, for relative tolerances
	for j := 0; j < n; j++ {
		scale = math.Max(scale, math.Abs(H.At(j, j)))
		scale = math.Max(scale, math.Abs(atb[j]))
	}
	tol := 1e-13 * scale
	grad := func(x []float64) []float64 { // g = Hx − Aᵀb, the gradient of ½‖Ax−b‖²
		g := make([]float64, n)
		for j := 0; j < n; j++ {
			s := -atb[j]
			for k := 0; k < n; k++ {
				s += H.At(j, k) * x[k]
			}
			g[j] = s
		}
		return g
	}

	x := make([]float64, n)
	for j := range x {
		x[j] = 1 / float64(n)
	}
	atZero := make([]bool, n) // the working set W: constraints x_j ≥ 0 held active
	maxIter := 100 * (n + 1)
	for iter := 0; iter < maxIter; iter++ {
		g := grad(x)
		var free []int
		for j := 0; j < n; j++ {
			if !atZero[j] {
				free = append(free, j)
			}
		}
		// Reduced gradient on the face: g_j − ν, ν the mean over the free set.
		nu := 0.0
		for _, j := range free {
			nu += g[j]
		}
		nu /= float64(len(free))
		reduced := 0.0
		for _, j := range free {
			reduced = math.Max(reduced, math.Abs(g[j]-nu))
		}
		var p []float64
		unbounded := false
		norm := 0.0
		if reduced > tol {
			p, unbounded = eqpStep(&H, g, free, tol)
			for _, v := range p {
				norm = math.Max(norm, math.Abs(v))
			}
		}
		if norm <= 1e-14 {
			// x minimizes over the current face. KKT multipliers of the active
			// bounds: λ_j = g_j − ν with ν the common gradient on the face.
			worst, leave := -tol, -1
			for j := 0; j < n; j++ {
				if atZero[j] && g[j]-nu < worst {
					worst, leave = g[j]-nu, j
				}
			}
			if leave < 0 {
				return cleanSimplex(x), nil
			}
			atZero[leave] = false
			continue
		}
		// Step length: the largest a ≤ 1 (no cap along a direction of zero
		// curvature) keeping every free x_j ≥ 0.
		a, block := math.Inf(1), -1
		if !unbounded {
			a = 1
		}
		for k, j := range free {
			if p[k] < 0 {
				if s := -x[j] / p[k]; s < a {
					a, block = s, j
				}
			}
		}
		if math.IsInf(a, 1) {
			return nil, errors.New("simplex least squares: internal error: unbounded step on the simplex")
		}
		for k, j := range free {
			x[j] += a * p[k]
		}
		if block >= 0 {
			x[block] = 0
			atZero[block] = true
		}
	}
	return nil, fmt.Errorf("simplex least squares: no convergence in %d active-set iterations", maxIter)
}

// eqpStep solves the equality-constrained subproblem of the active-set
// method on the free indices F: min_p ½pᵀH_FF p + g_Fᵀp s.t. Σ p = 0, i.e.
// the symmetric KKT system
//
//	K [p; μ] = [−g_F; 0],   K = [H_FF 1; 1ᵀ 0].
//
// Because H_FF is positive semidefinite, the null space of K is
// {(d, 0): H_FF d = 0, Σd = 0}, so one symmetric eigendecomposition of K
// decides both cases: if −g_F has a component d in that null space the
// subproblem is unbounded below along d (a descent direction of zero
// curvature), returned with unbounded = true; otherwise the system is
// consistent and its minimum-norm solution is the step.
func eqpStep(H *mat.SymDense, g []float64, free []int, tol float64) (p []float64, unbounded bool) {
	k := len(free)
	K := mat.NewSymDense(k+1, nil)
	for a, i := range free {
		for c := a; c < k; c++ {
			K.SetSym(a, c, H.At(i, free[c]))
		}
		K.SetSym(a, k, 1)
	}
	var eig mat.EigenSym
	if !eig.Factorize(K, true) {
		return make([]float64, k), false
	}
	vals := eig.Values(nil)
	var V mat.Dense
	eig.VectorsTo(&V)
	big := 0.0
	for _, v := range vals {
		big = math.Max(big, math.Abs(v))
	}
	zero := float64(k+1) * 1e-15 * math.Max(big, 1)
	r := make([]float64, k+1) // right-hand side (−g_F, 0)
	for a, i := range free {
		r[a] = -g[i]
	}
	d := make([]float64, k) // component of −g_F in the null space
	sol := make([]float64, k+1)
	for c, lam := range vals {
		dot := 0.0
		for a := 0; a <= k; a++ {
			dot += V.At(a, c) * r[a]
		}
		if math.Abs(lam) <= zero {
			for a := 0; a < k; a++ {
				d[a] += dot * V.At(a, c)
			}
			continue
		}
		for a := 0; a <= k; a++ {
			sol[a] += dot / lam * V.At(a, c)
		}
	}
	dn := 0.0
	for _, v := range d {
		dn = math.Max(dn, math.Abs(v))
	}
	if dn > tol {
		return d, true
	}
	p = sol[:k]
	// Keep the step exactly on the hyperplane Σ p = 0.
	mean := 0.0
	for _, v := range p {
		mean += v
	}
	mean /= float64(k)
	for a := range p {
		p[a] -= mean
	}
	return p, false
}

// cleanSimplex maps rounding-level negatives to 0 and renormalizes.
func cleanSimplex(x []float64) []float64 {
	s := 0.0
	for j, v := range x {
		if v < 0 {
			x[j] = 0
		}
		s += x[j]
	}
	for j := range x {
		x[j] /= s
	}
	return x
}

// CheckSimplexLSKKT reports an error unless α is a minimizer of ‖b − Aα‖²
// over Δ^C (Algorithm 3, line 6), by the KKT conditions of that convex
// problem: α ∈ Δ^C, and with g = Aᵀ(Aα − b) the gradient (halved), every
// coordinate in the support of α has the minimal gradient, g_j ≤ min_k g_k +
// tol whenever α(j) > tol. These conditions are necessary and sufficient, so
// the check is an oracle independent of the solver.
func CheckSimplexLSKKT(A mat.Matrix, b, alpha []float64, tol float64) error {
	m, n := A.Dims()
	if len(alpha) != n || len(b) != m {
		return fmt.Errorf("KKT: A is %d×%d, b has %d entries, α has %d", m, n, len(b), len(alpha))
	}
	sum := 0.0
	for j, v := range alpha {
		if !(v >= -tol) {
			return fmt.Errorf("KKT: α(%d) = %g < 0 (primal feasibility)", j, v)
		}
		sum += v
	}
	if math.Abs(sum-1) > tol {
		return fmt.Errorf("KKT: α sums to %.15g, want 1 (primal feasibility)", sum)
	}
	r := make([]float64, m)
	for i := 0; i < m; i++ {
		r[i] = -b[i]
		for j := 0; j < n; j++ {
			r[i] += A.At(i, j) * alpha[j]
		}
	}
	g := make([]float64, n)
	gmin := math.Inf(1)
	for j := 0; j < n; j++ {
		for i := 0; i < m; i++ {
			g[j] += A.At(i, j) * r[i]
		}
		gmin = math.Min(gmin, g[j])
	}
	for j, v := range alpha {
		if v > tol && g[j] > gmin+tol {
			return fmt.Errorf("KKT: α(%d) = %g > 0 but its gradient %g exceeds the minimal gradient %g by %g (complementary slackness)", j, v, g[j], gmin, g[j]-gmin)
		}
	}
	return nil
}
