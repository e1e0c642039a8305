package claims

import (
	"math"
	"math/rand"
	"testing"

	"github.com/llpfc/llpfc/theory"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGeneratorsProduceValidInputs checks the shared generators' contracts:
// points in the simplex, exact ties, extreme entries, boundary crossing,
// column-stochastic and invertible matrices with the advertised condition.
func TestGeneratorsProduceValidInputs(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for it := 0; it < 2000; it++ {
		C := 2 + r.Intn(9)
		p := GenSimplex(r, C, it%2 == 0)
		require.NoError(t, theory.CheckSimplex("GenSimplex", p, theory.SimplexTol))
		if it%2 == 1 {
			for i, v := range p {
				require.Greaterf(t, v, 0.0, "GenSimplex(allowZeros=false) entry %d = %v", i, v)
			}
		}
		tied := GenTiedSimplex(r, C)
		require.NoError(t, theory.CheckSimplex("GenTiedSimplex", tied, theory.SimplexTol))
		k := theory.ArgMax(tied)
		n := 0
		for _, v := range tied {
			if v == tied[k] {
				n++
			}
		}
		require.GreaterOrEqualf(t, n, 2, "GenTiedSimplex gave no tie: %v", tied)
		ext := GenExtremeSimplex(r, C)
		small := 0
		for _, v := range ext {
			if v == ExtremeEntry {
				small++
			}
		}
		require.NoErrorf(t, theory.CheckSimplex("GenExtremeSimplex", ext, theory.SimplexTol), "GenExtremeSimplex = %v", ext)
		require.GreaterOrEqualf(t, small, C-2, "GenExtremeSimplex = %v", ext)
		// Across the boundary: the prediction leaves the mode of η, or the
		// change is an exact tie resolved to the mode.
		eta := GenSimplex(r, C, false)
		q := GenAcrossBoundary(r, eta)
		require.NoError(t, theory.CheckSimplex("GenAcrossBoundary", q, theory.SimplexTol))
		i := theory.ArgMax(eta)
		if j := theory.ArgMax(q); j == i {
			// Only allowed for the exact tie q_i = q_j with j > i, or when η
			// itself is tied so that the runner-up equals the mode.
			ties := 0
			for jj, v := range q {
				if jj != i && v == q[i] {
					ties++
				}
			}
			require.NotZerof(t, ties, "GenAcrossBoundary(%v) = %v still predicts %d", eta, q, i)
		}
		require.NoError(t, theory.CheckSimplex("GenNear", GenNear(r, eta), theory.SimplexTol))
	}
	for it := 0; it < 500; it++ {
		C := 2 + r.Intn(9)
		T, desc := GenT(r, C, 1e8)
		require.NoError(t, theory.CheckColumnStochastic("GenT "+desc, T, theory.SimplexTol))
		_, err := theory.InvNorm1(T)
		require.NoErrorf(t, err, "GenT %s not invertible: %v", desc, err)
		cond := math.Pow(10, 1+7*r.Float64())
		S := GenNearSingularT(r, C, cond)
		require.NoError(t, theory.CheckColumnStochastic("GenNearSingularT", S, theory.SimplexTol))
		n, err := theory.InvNorm1(S)
		require.NoErrorf(t, err, "GenNearSingularT(cond=%g): %v", cond, err)
		// κ₁ within two orders of magnitude of the request (random columns
		// add their own conditioning).
		k := n * theory.Norm1(S)
		assert.Truef(t, k >= cond/100 && k <= cond*1e4, "GenNearSingularT(cond=%.3g) has κ₁ = %.3g", cond, k)
	}
	P := GenFiniteP(r, 5, 4, true)
	require.NoError(t, theory.CheckSimplex("PX", P.PX, theory.SimplexTol))
	sum := 0.0
	for _, row := range P.Joint() {
		for _, v := range row {
			sum += v
		}
	}
	assert.InDeltaf(t, 1, sum, 1e-12, "joint sums to %v", sum)
	for x, f := range GenAdversarialF(r, P) {
		require.NoErrorf(t, theory.CheckSimplex("f", f, theory.SimplexTol), "f(%d)", x)
	}
}

// TestBiconjugate checks the convex minorant on a hand example: pairs
// (gap, D) = (0.2, 1), (0.5, 0.1), (1, 2). δ(ε) = min{D : gap ≥ ε} is 0 at 0,
// 0.1 on (0, 0.5] and 2 on (0.5, 1]. Its largest convex minorant is the lower
// hull of (0,0), the right limits (0,0.1), (0.5,2) and the points (0.5,0.1),
// (1,2): the segment (0,0)–(0.5,0.1) (slope 0.2), then (0.5,0.1)–(1,2)
// (slope 3.8).
func TestBiconjugate(t *testing.T) {
	pts := []calPoint{{0.2, 1}, {0.5, 0.1}, {1, 2}}
	step := stepDelta(pts)
	bi := biconjugate(pts)
	tests := []struct{ eps, step, bi float64 }{
		{0, 0, 0},
		{0.1, 0.1, 0.02},
		{0.5, 0.1, 0.1},
		{0.75, 2, 0.1 + 3.8*0.25},
		{1, 2, 2},
		{1.5, math.Inf(1), math.Inf(1)},
	}
	for _, tt := range tests {
		// InDelta passes equal infinities, like the got == want of the original check.
		assert.InDeltaf(t, tt.step, step(tt.eps), 1e-15, "δ(%v)", tt.eps)
		assert.InDeltaf(t, tt.bi, bi(tt.eps), 1e-15, "δ**(%v)", tt.eps)
	}
}

// TestFrankWolfeCertificate checks the Frank–Wolfe lower bound of
// thm:cali.noise on C = 2, T = I, square loss, where D_x(k) is known in
// closed form: η = (0.7, 0.3), region {q_1 ≥ q_0} is minimized at (½,½) with
// ‖η − q‖² = 2·0.2² = 0.08.
func TestFrankWolfeCertificate(t *testing.T) {
	T := GenUniformNoiseT(2, 0)
	eta := []float64{0.7, 0.3}
	o := c2Oracle{square: true, T: T, eta: eta, w: mulVec(T, eta)}
	lo, best := o.minOverRegion(1)
	assert.InDeltaf(t, 0.08, lo, 1e-12, "D̲ = %v at %v, want 0.08 at (½,½)", lo, best)
	assert.InDeltaf(t, 0.5, best[0], 1e-9, "D̲ = %v at %v, want 0.08 at (½,½)", lo, best)
	// Log loss: D = KL((0.7,0.3)‖(½,½)) = 0.7 log 1.4 + 0.3 log 0.6.
	o.square = false
	lo, _ = o.minOverRegion(1)
	want := 0.7*math.Log(1.4) + 0.3*math.Log(0.6)
	assert.LessOrEqualf(t, lo, want+1e-12, "D̲(log) = %v, want %v (a lower bound within 1e-9)", lo, want)
	assert.GreaterOrEqualf(t, lo, want-1e-9, "D̲(log) = %v, want %v (a lower bound within 1e-9)", lo, want)
}
