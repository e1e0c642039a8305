package estimators

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/llpfc/llpfc/internal/rng"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lsObjective returns ‖Aα − b‖²₂ and the fitted vector Aα.
func lsObjective(A mat.Matrix, b, alpha []float64) (float64, []float64) {
	m, n := A.Dims()
	fit := make([]float64, m)
	f := 0.0
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			fit[i] += A.At(i, j) * alpha[j]
		}
		f += (fit[i] - b[i]) * (fit[i] - b[i])
	}
	return f, fit
}

// enumerateFaces is the slow obvious oracle for min_{α∈Δ} ‖Aα − b‖²: the
// minimizer lies in the relative interior of some face {α_j = 0, j ∉ S}; for
// every non-empty support S it solves the equality-constrained least squares
// min ‖A_S x − b‖² s.t. Σx = 1 (minimum-norm solution of the KKT system, by
// SVD) and keeps the best feasible (x ≥ 0) candidate. Exponential in n, for
// small n only.
func enumerateFaces(A mat.Matrix, b []float64) (best float64, alpha []float64) {
	m, n := A.Dims()
	best = math.Inf(1)
	for mask := 1; mask < 1<<n; mask++ {
		var S []int
		for j := 0; j < n; j++ {
			if mask&(1<<j) != 0 {
				S = append(S, j)
			}
		}
		k := len(S)
		K := mat.NewDense(k+1, k+1, nil)
		rhs := mat.NewVecDense(k+1, nil)
		for a, i := range S {
			for c, j := range S {
				s := 0.0
				for r := 0; r < m; r++ {
					s += A.At(r, i) * A.At(r, j)
				}
				K.Set(a, c, s)
			}
			s := 0.0
			for r := 0; r < m; r++ {
				s += A.At(r, i) * b[r]
			}
			rhs.SetVec(a, s)
			K.Set(a, k, 1)
			K.Set(k, a, 1)
		}
		rhs.SetVec(k, 1)
		var svd mat.SVD
		svd.Factorize(K, mat.SVDFull)
		sv := svd.Values(nil)
		rank := 0
		for _, s := range sv {
			if s > 1e-12*sv[0] {
				rank++
			}
		}
		var sol mat.Dense
		svd.SolveTo(&sol, rhs, rank)
		x := make([]float64, n)
		ok := true
		for a, j := range S {
			x[j] = sol.At(a, 0)
			if x[j] < -1e-12 {
				ok = false
			}
		}
		if !ok {
			continue
		}
		sum := 0.0
		for _, v := range x {
			sum += v
		}
		if math.Abs(sum-1) > 1e-9 {
			continue // inconsistent KKT system on this face
		}
		if f, _ := lsObjective(A, b, x); f < best {
			best, alpha = f, x
		}
	}
	return best, alpha
}

// randomLSProblem draws A = Γᵀ for C random proportion rows, optionally
// rank deficient (a repeated row, or a row that is a convex combination of
// two others), and b = a random point of the simplex.
func randomLSProblem(r *rand.Rand, C int, deficient int) (*mat.Dense, []float64) {
	G := mat.NewDense(C, C, nil)
	for i := 0; i < C; i++ {
		row := make([]float64, C)
		s := 0.0
		for j := range row {
			if r.Float64() < 0.2 {
				continue
			}
			row[j] = r.ExpFloat64()
			s += row[j]
		}
		if s == 0 {
			row[r.IntN(C)], s = 1, 1
		}
		for j := range row {
			row[j] /= s
		}
		G.SetRow(i, row)
	}
	switch {
	case deficient == 1 && C >= 2:
		G.SetRow(C-1, mat.Row(nil, 0, G))
	case deficient == 2 && C >= 3:
		t := r.Float64()
		r0, r1 := mat.Row(nil, 0, G), mat.Row(nil, 1, G)
		for j := range r0 {
			r0[j] = t*r0[j] + (1-t)*r1[j]
		}
		G.SetRow(C-1, r0)
	}
	b := make([]float64, C)
	s := 0.0
	for j := range b {
		b[j] = r.ExpFloat64()
		s += b[j]
	}
	for j := range b {
		b[j] /= s
	}
	return mat.DenseCopyOf(G.T()), b
}

// TestSimplexLSMatchesFaceEnumeration: Algorithm 3 line 6 solved by the
// active-set method equals the face-enumeration oracle (objective and fitted
// vector Γ̂ᵀα̂ = σ̂_i, both unique even when Γ̂ is rank deficient; α̂ itself when
// Γ̂ has full rank) and satisfies the KKT conditions, for C = 2..6 on full
// rank and rank-deficient problems.
func TestSimplexLSMatchesFaceEnumeration(t *testing.T) {
	forAllSeeds(t, "approx = face enumeration", func(seed int64) (bool, error) {
		r := rng.New(seed, "ls")
		C := 2 + r.IntN(5)
		def := r.IntN(3)
		A, b := randomLSProblem(r, C, def)
		alpha, err := SimplexLS(A, b)
		if err != nil {
			return false, err
		}
		if err := CheckSimplexLSKKT(A, b, alpha, 1e-10); err != nil {
			return false, err
		}
		f, fit := lsObjective(A, b, alpha)
		fo, ao := enumerateFaces(A, b)
		if ao == nil {
			return false, fmt.Errorf("oracle found no feasible face")
		}
		_, fito := lsObjective(A, b, ao)
		if math.Abs(f-fo) > 1e-11 {
			return false, fmt.Errorf("C=%d def=%d: objective %.15g, oracle %.15g", C, def, f, fo)
		}
		for i := range fit {
			if math.Abs(fit[i]-fito[i]) > 1e-6 {
				return false, fmt.Errorf("fitted σ̂_i differs at %d: %g vs %g", i, fit[i], fito[i])
			}
		}
		var svd mat.SVD
		svd.Factorize(A, mat.SVDNone)
		if sv := svd.Values(nil); def == 0 && sv[C-1] > 1e-3*sv[0] {
			for j := range alpha {
				if math.Abs(alpha[j]-ao[j]) > 1e-6 {
					return false, fmt.Errorf("full rank: α̂(%d) = %g, oracle %g", j, alpha[j], ao[j])
				}
			}
		}
		return true, nil
	})
}

// TestSimplexLSMatchesSoftmaxOptimizer compares the exact solver with an
// independent one: gonum/optimize BFGS on the softmax parametrisation
// α = softmax(z), which can only approach the boundary, so its objective is
// ≥ ours and must come within 1e-7.
func TestSimplexLSMatchesSoftmaxOptimizer(t *testing.T) {
	r := rng.New(7, "softmax-oracle")
	for trial := 0; trial < 40; trial++ {
		C := 2 + r.IntN(5)
		A, b := randomLSProblem(r, C, trial%3)
		alpha, err := SimplexLS(A, b)
		require.NoError(t, err)
		f, _ := lsObjective(A, b, alpha)
		soft := func(z []float64) []float64 {
			m := math.Inf(-1)
			for _, v := range z {
				m = math.Max(m, v)
			}
			p := make([]float64, len(z))
			s := 0.0
			for i, v := range z {
				p[i] = math.Exp(v - m)
				s += p[i]
			}
			for i := range p {
				p[i] /= s
			}
			return p
		}
		prob := optimize.Problem{
			Func: func(z []float64) float64 { v, _ := lsObjective(A, b, soft(z)); return v },
			Grad: func(grad, z []float64) {
				p := soft(z)
				_, fit := lsObjective(A, b, p)
				// d/dα = 2Aᵀ(Aα − b); chain through softmax: dα_j/dz_k = α_j(δ_jk − α_k).
				ga := make([]float64, C)
				for j := 0; j < C; j++ {
					for i := range fit {
						ga[j] += 2 * A.At(i, j) * (fit[i] - b[i])
					}
				}
				dot := 0.0
				for j := range p {
					dot += p[j] * ga[j]
				}
				for k := range grad {
					grad[k] = p[k] * (ga[k] - dot)
				}
			},
		}
		// BFGS's line search can stall as z runs to −∞ towards a face, and a
		// long first step can land near a vertex where the softmax gradient
		// vanishes; so: 8 random starts, each restarted from where it
		// stopped (at most 20 times), keeping the best.
		best := math.Inf(1)
		for start := 0; start < 8; start++ {
			z := make([]float64, C)
			for k := range z {
				z[k] = r.NormFloat64()
			}
			for restart := 0; restart < 20; restart++ {
				res, err := optimize.Minimize(prob, z, &optimize.Settings{GradientThreshold: 1e-12, MajorIterations: 5000}, &optimize.BFGS{})
				require.NotNilf(t, res, "trial %d: optimizer: %v", trial, err)
				best = math.Min(best, res.F)
				if err == nil {
					break
				}
				z = res.X
			}
		}
		fo, _ := enumerateFaces(A, b)
		assert.InDeltaf(t, f, fo, 1e-12, "trial %d: face enumeration %g, exact %g", trial, fo, f)
		assert.LessOrEqualf(t, f, best+1e-12, "trial %d (C=%d): exact objective %.15g above the softmax optimizer's %.15g", trial, C, f, best)
		assert.LessOrEqualf(t, best-f, 1e-7, "trial %d (C=%d): softmax optimizer %.12g far above exact %.12g", trial, C, best, f)
	}
}

// TestSimplexLSBoundaryExact: when σ̂ lies outside the convex hull the
// optimum is on a face; the active-set method returns exact zeros there
// (the original code's interior-point trust-constr solver returns small
// positive values instead — see PAPER_MAP.md, "Paper vs original code").
func TestSimplexLSBoundaryExact(t *testing.T) {
	// Γ rows: e_0, e_1, (0.5,0.5,0)…; σ̂ = (0.2, 0.2, 0.6) is far from row 2's
	// direction, the projection onto the hull of rows {e0, e1, (.5,.5,0)}
	// is (0.5, 0.5, 0) reached by any α with α0 = α1 and α2 free: rank
	// deficient, non-unique α, unique fit.
	G := mat.NewDense(3, 3, []float64{1, 0, 0, 0, 1, 0, 0.5, 0.5, 0})
	sigma := []float64{0.2, 0.2, 0.6}
	A := mat.DenseCopyOf(G.T())
	alpha, err := SimplexLS(A, sigma)
	require.NoError(t, err)
	require.NoError(t, CheckSimplexLSKKT(A, sigma, alpha, 1e-12))
	_, fit := lsObjective(A, sigma, alpha)
	want := []float64{0.5, 0.5, 0}
	for i := range fit {
		assert.InDeltaf(t, want[i], fit[i], 1e-12, "fit %v, want %v", fit, want)
	}
	// A full-rank case with a zero at the optimum: σ̂ beyond the edge e0–e1.
	G2 := mat.NewDense(3, 3, []float64{0.9, 0.1, 0, 0.1, 0.9, 0, 0.3, 0.3, 0.4})
	s2 := []float64{0.5, 0.5, 0} // on the segment of rows 0 and 1: α = (.5,.5,0)
	a2, err := SimplexLS(mat.DenseCopyOf(G2.T()), s2)
	require.NoError(t, err)
	assert.Equalf(t, 0.0, a2[2], "α̂ = %v, want exactly (0.5, 0.5, 0)", a2)
	assert.InDeltaf(t, 0.5, a2[0], 1e-14, "α̂ = %v, want exactly (0.5, 0.5, 0)", a2)
	assert.InDeltaf(t, 0.5, a2[1], 1e-14, "α̂ = %v, want exactly (0.5, 0.5, 0)", a2)
}

// TestCheckSimplexLSKKTRejects is the negative control of the KKT oracle:
// non-optimal or infeasible points are rejected.
func TestCheckSimplexLSKKTRejects(t *testing.T) {
	A := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	b := []float64{0.3, 0.7}
	require.NoError(t, CheckSimplexLSKKT(A, b, []float64{0.3, 0.7}, 1e-12), "optimum rejected")
	for _, bad := range [][]float64{{0.5, 0.5}, {1, 0}, {-0.1, 1.1}, {0.3, 0.6}} {
		assert.Errorf(t, CheckSimplexLSKKT(A, b, bad, 1e-9), "α = %v accepted, want a KKT violation", bad)
	}
}

// TestSimplexLSErrors: malformed input is an error, not a panic.
func TestSimplexLSErrors(t *testing.T) {
	cases := []struct {
		name string
		A    mat.Matrix
		b    []float64
	}{
		{"length mismatch", mat.NewDense(2, 2, []float64{1, 0, 0, 1}), []float64{1}},
		{"NaN in A", mat.NewDense(2, 2, []float64{math.NaN(), 0, 0, 1}), []float64{0.5, 0.5}},
		{"Inf in b", mat.NewDense(2, 2, []float64{1, 0, 0, 1}), []float64{math.Inf(1), 0}},
	}
	for _, c := range cases {
		_, err := SimplexLS(c.A, c.b)
		assert.Errorf(t, err, "%s: no error", c.name)
	}
}

func ExampleSimplexLS() {
	// Algorithm 3, line 6, for a group whose σ̂ is outside the hull of its
	// bags' proportions: the best α̂ puts no mass on the third bag.
	gamma := mat.NewDense(3, 3, []float64{
		0.8, 0.2, 0.0,
		0.2, 0.8, 0.0,
		0.3, 0.3, 0.4,
	})
	sigmaHat := []float64{0.5, 0.5, 0.0}
	alpha, _ := SimplexLS(gamma.T(), sigmaHat)
	fmt.Printf("α̂ = [%.3f %.3f %.3f]\n", alpha[0], alpha[1], alpha[2])
	// Output: α̂ = [0.500 0.500 0.000]
}

func BenchmarkSimplexLS(b *testing.B) {
	for _, C := range []int{3, 10, 26} {
		r := rng.New(1, "bench")
		probs := make([]*mat.Dense, 64)
		rhs := make([][]float64, 64)
		for i := range probs {
			probs[i], rhs[i] = randomLSProblem(r, C, 0)
		}
		b.Run(fmt.Sprintf("C=%d", C), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if _, err := SimplexLS(probs[i%64], rhs[i%64]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestFindingTransposeApprox (PAPER_MAP.md, Findings, "Section 5", Finding 1): §5.4's
// prose writes ‖σ̂ − Γ̂_iα‖², Algorithm 3 line 6 ‖σ̂ − Γ̂_iᵀα‖². On Γ̂ =
// [[1,0],[0.5,0.5]], σ̂ = (0.75, 0.25) the transposed problem is solved
// exactly by α = (0.5, 0.5) (σ̂ is in the hull of the rows), the
// untransposed one has a different minimizer with a positive residual.
func TestFindingTransposeApprox(t *testing.T) {
	G := mat.NewDense(2, 2, []float64{1, 0, 0.5, 0.5})
	sigma := []float64{0.75, 0.25}
	a, err := SimplexLS(G.T(), sigma)
	require.NoError(t, err)
	fT, _ := lsObjective(G.T(), sigma, a)
	assert.LessOrEqualf(t, fT, 1e-28, "Γ̂ᵀ: α̂ = %v, objective %g; want (0.5, 0.5), 0", a, fT)
	assert.InDeltaf(t, 0.5, a[0], 1e-14, "Γ̂ᵀ: α̂ = %v, objective %g; want (0.5, 0.5), 0", a, fT)
	b, err := SimplexLS(G, sigma)
	require.NoError(t, err)
	f, _ := lsObjective(G, sigma, b)
	assert.GreaterOrEqualf(t, f, 1e-3, "Γ̂: α̂ = %v, objective %g; want a different minimizer with a positive residual", b, f)
	assert.GreaterOrEqualf(t, math.Abs(b[0]-0.5), 1e-3, "Γ̂: α̂ = %v, objective %g; want a different minimizer with a positive residual", b, f)
}

// TestSimplexLSKKTLargeC: for C = 7..30 (beyond face enumeration), full rank
// and rank-deficient, with many zero proportions, the solution passes the
// KKT certificate (necessary and sufficient for this convex problem) and is
// no worse than every vertex and the barycentre.
func TestSimplexLSKKTLargeC(t *testing.T) {
	forAllSeeds(t, "approx KKT, large C", func(seed int64) (bool, error) {
		r := rng.New(seed, "ls-large")
		C := 7 + r.IntN(24)
		A, b := randomLSProblem(r, C, r.IntN(3))
		alpha, err := SimplexLS(A, b)
		if err != nil {
			return false, err
		}
		if err := CheckSimplexLSKKT(A, b, alpha, 1e-10); err != nil {
			return false, fmt.Errorf("C=%d: %v", C, err)
		}
		f, _ := lsObjective(A, b, alpha)
		e := make([]float64, C)
		for j := 0; j < C; j++ {
			for k := range e {
				e[k] = 0
			}
			e[j] = 1
			if fv, _ := lsObjective(A, b, e); fv < f-1e-12 {
				return false, fmt.Errorf("vertex %d beats the solution: %g < %g", j, fv, f)
			}
		}
		for k := range e {
			e[k] = 1 / float64(C)
		}
		if fv, _ := lsObjective(A, b, e); fv < f-1e-12 {
			return false, fmt.Errorf("barycentre beats the solution")
		}
		return true, nil
	})
}
