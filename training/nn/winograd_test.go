package nn

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/internal/sgemm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// winoCases are 3×3, stride-1, padding-1 geometries the Winograd path
// takes (∂/∂x only from 8×8: the smaller maps check its forward and ∂/∂W),
// with the group size (winoOwnValues: ∂/∂W's groups, as the comments
// count them; the forward's and ∂/∂x's take half of it) each runs under:
// even and odd
// maps (tiles cut by the border), 2×2 and 2×3 maps (one tile an image),
// channel counts off the micro-kernels' MR and NR, and batches cut into
// several groups with a shorter last one.
var winoCases = []struct {
	convCase
	group int
}{
	{convCase{3, 16, 8, 8, 16, 3, 1, 1}, 1 << 17},      // one group of 3
	{convCase{5, 17, 7, 5, 19, 3, 1, 1}, 1 << 17},      // odd map: last tile row and column cut
	{convCase{7, 16, 8, 10, 20, 3, 1, 1}, 20 * 20 * 3}, // groups of 3, 3, 1
	{convCase{9, 24, 2, 2, 16, 3, 1, 1}, 24 * 4},       // 2×2 map, groups of 4, 4, 1
	{convCase{4, 16, 3, 2, 16, 3, 1, 1}, 16 * 2},       // 3×2 map, one image a group
	{convCase{20, 16, 4, 4, 16, 3, 1, 1}, 16 * 4},      // 20 groups of one image: ∂/∂W's 8 chunks sum 2 or 3 each
	{convCase{2, 40, 9, 11, 33, 3, 1, 1}, 1 << 17},     // 40 × 9 × 11: several k-blocks of ∂/∂W
	// The small maps' transforms across the planes (wino's *Planes): the
	// forward's groups of 6, 6 and 1 images (24 and 4 tiles), ∂/∂W's of 12
	// and 1; a 4×6 map's groups of 3, 2 and 5.
	{convCase{13, 16, 4, 4, 16, 3, 1, 1}, 16 * 4 * 12},
	{convCase{5, 16, 4, 6, 18, 3, 1, 1}, 18 * 6 * 6},
}

// convDirect64 computes the convolution, ∂/∂x and ∂/∂W by their definitions
// in float64 from float32 inputs, with each output's sum of absolute terms
// (the scale of its rounding error).
func convDirect64(c convCase, x, w, b, dy []float32) (out, scale [3][]float64) {
	g := newConvGeom(c.c, c.h, c.w, c.o, c.k, c.pad, c.stride)
	ho, wo := g.outH(), g.outW()
	for k, n := range []int{c.n * c.o * ho * wo, len(x), len(w)} {
		out[k], scale[k] = make([]float64, n), make([]float64, n)
	}
	for i := 0; i < c.n; i++ {
		for o := 0; o < c.o; o++ {
			for r := 0; r < ho; r++ {
				for s := 0; s < wo; s++ {
					yi := ((i*c.o+o)*ho+r)*wo + s
					out[0][yi], scale[0][yi] = float64(b[o]), math.Abs(float64(b[o]))
					for ch := 0; ch < c.c; ch++ {
						for a := 0; a < c.k; a++ {
							for bb := 0; bb < c.k; bb++ {
								rr, ss := r*c.stride+a-c.pad, s*c.stride+bb-c.pad
								if rr < 0 || rr >= c.h || ss < 0 || ss >= c.w {
									continue
								}
								xi := ((i*c.c+ch)*c.h+rr)*c.w + ss
								wi := ((o*c.c+ch)*c.k+a)*c.k + bb
								xv, wv, dv := float64(x[xi]), float64(w[wi]), float64(dy[yi])
								out[0][yi] += wv * xv
								scale[0][yi] += math.Abs(wv * xv)
								out[1][xi] += wv * dv
								scale[1][xi] += math.Abs(wv * dv)
								out[2][wi] += dv * xv
								scale[2][wi] += math.Abs(dv * xv)
							}
						}
					}
				}
			}
		}
	}
	return out, scale
}

// TestWinogradMatchesDirect: the Winograd forward, ∂/∂x and ∂/∂W agree with
// the convolution's definition computed in float64, to float32 rounding of
// each output's own terms, on every kernel the machine runs; give the same
// bits on 1, 2 and 3 threads; and a second run on the same scratch gives the
// first's (convPackedAll).
func TestWinogradMatchesDirect(t *testing.T) {
	defer func(v int) { winoOwnValues = v }(winoOwnValues)
	defer func(v bool) { denseConv = v }(denseConv)
	defer SetWinogradF4(SetWinogradF4(false)) // F(2×2, 3×3) here; F(4×4, 3×3) below
	useWinoDx4 = true                         // ∂/∂x of the 4×4 maps by Winograd's too
	denseConv = false                         // the 2×2 and 3×2 maps would take the dense path
	eachKernel(t, func(kern sgemm.Kernel) {
		for i, tc := range winoCases {
			c := tc.convCase
			t.Run(fmt.Sprintf("%s/%+v/group%d", kern.Name, c, tc.group), func(t *testing.T) {
				winoOwnValues = tc.group
				g := newConvGeom(c.c, c.h, c.w, c.o, c.k, c.pad, c.stride)
				require.True(t, winogradOK(g), "case does not take the Winograd path")
				requireMatchesDirect(t, c, int64(100+i), "Winograd")
			})
		}
	})
}

// requireMatchesDirect runs case c's packed forward, ∂/∂x and ∂/∂W on the
// inputs of seed (convPackedAll: a second run on the same scratch gives the
// first's) and requires them to agree with the convolution's definition in
// float64 to float32 rounding of each output's own terms, and to give the
// same bits on 1, 2 and 3 threads; path names the path in the failures.
func requireMatchesDirect(t *testing.T, c convCase, seed int64, path string) {
	t.Helper()
	requireMatchesDirectTol(t, c, seed, path, func(_ [3][]float32, scale [3][]float64, k, j int) float64 {
		return 1e-6*scale[k][j] + 1e-7
	})
}

// requireMatchesDirectTol is requireMatchesDirect with the tolerance of
// output j of result k (0: y, 1: ∂x, 2: ∂W) given by tol, from the inputs
// and the definition's sums of absolute terms.
func requireMatchesDirectTol(t *testing.T, c convCase, seed int64, path string, tol func(in [3][]float32, scale [3][]float64, k, j int) float64) {
	t.Helper()
	got := convPackedAll(t, c, seed, 2)
	x, w, b, dy, _ := convInputs(c, seed) // convPackedAll's inputs
	want, scale := convDirect64(c, x, w, b, dy)
	in := [3][]float32{x, w, dy}
	for k, name := range []string{"y", "∂x", "∂W"} {
		require.Len(t, got[k], len(want[k]), name)
		for j := range want[k] {
			tol := tol(in, scale, k, j)
			if d := math.Abs(float64(got[k][j]) - want[k][j]); d > tol {
				require.Failf(t, path+" differs from the definition", "%s[%d] = %v, want %v (tolerance %.2g)", name, j, got[k][j], want[k][j], tol)
			}
		}
	}
	for _, procs := range []int{1, 3} {
		other := convPackedAll(t, c, seed, procs)
		for k := range other {
			for j := range other[k] {
				if math.Float32bits(other[k][j]) != math.Float32bits(got[k][j]) {
					require.Failf(t, "result depends on the threads", "output %d entry %d: %v on %d threads, %v on 2", k, j, other[k][j], procs, got[k][j])
				}
			}
		}
	}
}

// LLPFC_CONV3X3 chooses the 3×3 convolutions' algorithm at start-up: im2col
// turns Winograd off, winograd2 leaves F(2×2, 3×3) alone, winograd or
// nothing turns F(4×4, 3×3) on for the larger maps, and a misspelling
// keeps the default (with a word on standard error) rather than silently
// switching algorithms.
func TestConv3x3Env(t *testing.T) {
	for _, tc := range []struct {
		value        string
		winograd, f4 bool
	}{{"", true, true}, {"winograd", true, true}, {"winograd2", true, false}, {"im2col", false, false},
		{"Im2col", true, true}, {"direct", true, true}, {"winograd4", true, true}} {
		on, f4 := winogradFromEnv(tc.value)
		assert.Equal(t, tc.winograd, on, "%s=%q", Conv3x3Env, tc.value)
		assert.Equal(t, tc.f4, f4, "%s=%q: F(4×4, 3×3)", Conv3x3Env, tc.value)
	}
}

// Numerics names the micro-kernel in use and the algorithm the 3×3
// convolutions take, following SetWinograd and SetWinogradF4.
func TestNumericsFollowsTheSettings(t *testing.T) {
	defer SetWinograd(SetWinograd(true))
	defer SetWinogradF4(SetWinogradF4(true))
	g4 := newConvGeom(16, 4, 4, 16, 3, 1, 1) // a 4×4 map: ∂/∂x as the numerics say
	on, dx4 := Numerics(), winogradGradXOK(g4)
	SetWinogradF4(false)
	f2, dx4f2 := Numerics(), winogradGradXOK(g4)
	assert.True(t, dx4, "∂/∂x of a 4×4 map not by Winograd's with F(4×4, 3×3) on")
	assert.False(t, dx4f2, "∂/∂x of a 4×4 map by Winograd's with F(4×4, 3×3) off (winograd2's numbers)")
	SetWinograd(false)
	off := Numerics()
	for _, s := range []string{on, f2, off} {
		if BLASName == "gonum+sgemm" {
			assert.True(t, strings.HasPrefix(s, "sgemm "+sgemm.Active().Name+"; "), "numerics %q without the kernel %s", s, sgemm.Active().Name)
		}
	}
	assert.Contains(t, off, "conv3x3 im2col")
	if BLASName == "gonum+sgemm" {
		assert.Contains(t, on, fmt.Sprintf("conv3x3 winograd F(4x4,3x3) on maps >= %dx%d, F(2x2,3x3) below, dx also on 4x4 maps;", winoF4MinMap, winoF4MinMap))
		assert.Contains(t, f2, "conv3x3 winograd F(2x2,3x3);")
		assert.NotContains(t, f2, "F(4x4")
	}
}

// winoF4Cases are geometries for F(4×4, 3×3) (winoF4MinMap lowered to 1):
// maps a multiple of 4 and not, odd, narrower than a tile, wide enough for
// the eight- and four-tile kernels and with tiles beyond them; channel
// counts off the micro-kernels' MR and NR; batches cut into several groups
// with a shorter last one, and ∂/∂W's chunks summing several groups.
var winoF4Cases = []struct {
	convCase
	group int
}{
	{convCase{3, 16, 8, 8, 16, 3, 1, 1}, 1 << 17},       // one group of 3, two tiles a row
	{convCase{5, 17, 7, 5, 19, 3, 1, 1}, 1 << 17},       // odd map: last tile row and column cut
	{convCase{7, 16, 8, 10, 20, 3, 1, 1}, 20 * 6 * 3},   // groups of 3, 3, 1
	{convCase{4, 16, 3, 2, 16, 3, 1, 1}, 16 * 1},        // 3×2 map, one tile an image, one image a group
	{convCase{20, 16, 4, 4, 16, 3, 1, 1}, 16 * 1},       // 20 groups of one image: ∂/∂W's 8 chunks sum 2 or 3 each
	{convCase{2, 40, 9, 11, 33, 3, 1, 1}, 1 << 17},      // 40 × 9 × 11: several k-blocks of ∂/∂W
	{convCase{2, 16, 32, 32, 17, 3, 1, 1}, 1 << 17},     // the eight-tile kernels (WRN-16-4's first stage)
	{convCase{3, 17, 16, 16, 18, 3, 1, 1}, 18 * 16 * 2}, // the four-tile kernels, groups of 2, 1
	{convCase{2, 19, 13, 34, 21, 3, 1, 1}, 1 << 17},     // eight tiles and one more a row, both borders cut
	{convCase{5, 16, 16, 20, 16, 3, 1, 1}, 16 * 20 * 2}, // four tiles and one more, groups of 2, 2, 1
	{convCase{2, 24, 31, 33, 16, 3, 1, 1}, 24 * 8 * 9},  // odd, one image a group
}

// Lavin and Gray's F(4×4, 3×3) matrices (the bound's oracle; the code
// never reads them).
var (
	f4BT = [][]float64{{4, 0, -5, 0, 1, 0}, {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0}, {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}}
	f4G  = [][]float64{{1.0 / 4, 0, 0}, {-1.0 / 6, -1.0 / 6, -1.0 / 6}, {-1.0 / 6, 1.0 / 6, -1.0 / 6}, {1.0 / 24, 1.0 / 12, 1.0 / 6}, {1.0 / 24, -1.0 / 12, 1.0 / 6}, {0, 0, 1}}
	f4AT = [][]float64{{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}}
)

// absSandwich returns |L| X |R|ᵀ for X ≥ 0 (L: r×m, X: m×m as rows, R:
// r×m), or with tr, |L|ᵀ X |R| (X: r×r).
func absSandwich(L [][]float64, X []float64, tr bool) []float64 {
	r, m := len(L), len(L[0])
	at := func(i, j int) float64 { return math.Abs(L[i][j]) }
	if tr {
		r, m = m, r
		at = func(i, j int) float64 { return math.Abs(L[j][i]) }
	}
	out := make([]float64, r*r)
	for a := 0; a < r; a++ {
		for b := 0; b < r; b++ {
			var s float64
			for i := 0; i < m; i++ {
				for j := 0; j < m; j++ {
					s += at(a, i) * X[i*m+j] * at(b, j)
				}
			}
			out[a*r+b] = s
		}
	}
	return out
}

// winoF4Bounds evaluates F(4×4, 3×3)'s forward, ∂/∂x and ∂/∂W on the
// absolute values of the matrices and the data: |Aᵀ| (Σ_c |U| ⊙ |V|) |A|
// with |U| = |G||g||G|ᵀ, |V| = |Bᵀ||d||B|, and likewise for the gradients.
// A computation made of sums of products is off by at most γ_n times the
// same computation on absolute values, γ_n ≈ n·2⁻²⁴ for a longest chain of
// n roundings (Higham, "Accuracy and Stability of Numerical Algorithms",
// §3.5): this is the scale of each output's rounding error, where the
// direct convolution's Σ|w·x| does not include the transforms' growth.
func winoF4Bounds(c convCase, x, w, b, dy []float32) (out [3][]float64) {
	th, tw := (c.h+3)/4, (c.w+3)/4
	T, hw := th*tw, c.h*c.w
	out[0], out[1], out[2] = make([]float64, c.n*c.o*hw), make([]float64, len(x)), make([]float64, len(w))
	U := make([][]float64, c.o*c.c)
	for kc := range U {
		g := make([]float64, 9)
		for i := range g {
			g[i] = math.Abs(float64(w[kc*9+i]))
		}
		U[kc] = absSandwich(f4G, g, false)
	}
	V := make([][]float64, c.n*c.c*T)
	D := make([][]float64, c.n*c.o*T)
	for i := 0; i < c.n; i++ {
		for t := 0; t < T; t++ {
			ty, tx := t/tw, t%tw
			for ch := 0; ch < c.c; ch++ {
				d := make([]float64, 36)
				for a := 0; a < 6; a++ {
					for bb := 0; bb < 6; bb++ {
						if r, s := 4*ty-1+a, 4*tx-1+bb; r >= 0 && r < c.h && s >= 0 && s < c.w {
							d[a*6+bb] = math.Abs(float64(x[(i*c.c+ch)*hw+r*c.w+s]))
						}
					}
				}
				V[(i*c.c+ch)*T+t] = absSandwich(f4BT, d, false)
			}
			for k := 0; k < c.o; k++ {
				e := make([]float64, 16)
				for a := 0; a < 4; a++ {
					for bb := 0; bb < 4; bb++ {
						if r, s := 4*ty+a, 4*tx+bb; r < c.h && s < c.w {
							e[a*4+bb] = math.Abs(float64(dy[(i*c.o+k)*hw+r*c.w+s]))
						}
					}
				}
				D[(i*c.o+k)*T+t] = absSandwich(f4AT, e, true)
			}
		}
	}
	for i := 0; i < c.n; i++ {
		for t := 0; t < T; t++ {
			ty, tx := t/tw, t%tw
			for k := 0; k < c.o; k++ { // forward
				M := make([]float64, 36)
				for ch := 0; ch < c.c; ch++ {
					for xi := range M {
						M[xi] += U[k*c.c+ch][xi] * V[(i*c.c+ch)*T+t][xi]
					}
				}
				Y := absSandwich(f4AT, M, false)
				for a := 0; a < 4; a++ {
					for bb := 0; bb < 4; bb++ {
						if r, s := 4*ty+a, 4*tx+bb; r < c.h && s < c.w {
							out[0][(i*c.o+k)*hw+r*c.w+s] = Y[a*4+bb] + math.Abs(float64(b[k]))
						}
					}
				}
			}
			for ch := 0; ch < c.c; ch++ { // ∂/∂x
				Z := make([]float64, 36)
				for k := 0; k < c.o; k++ {
					for xi := range Z {
						Z[xi] += U[k*c.c+ch][xi] * D[(i*c.o+k)*T+t][xi]
					}
				}
				P := absSandwich(f4BT, Z, true)
				for a := 0; a < 6; a++ {
					for bb := 0; bb < 6; bb++ {
						if r, s := 4*ty-1+a, 4*tx-1+bb; r >= 0 && r < c.h && s >= 0 && s < c.w {
							out[1][(i*c.c+ch)*hw+r*c.w+s] += P[a*6+bb]
						}
					}
				}
			}
		}
	}
	for k := 0; k < c.o; k++ { // ∂/∂W
		for ch := 0; ch < c.c; ch++ {
			P := make([]float64, 36)
			for i := 0; i < c.n; i++ {
				for t := 0; t < T; t++ {
					for xi := range P {
						P[xi] += D[(i*c.o+k)*T+t][xi] * V[(i*c.c+ch)*T+t][xi]
					}
				}
			}
			copy(out[2][(k*c.c+ch)*9:], absSandwich(f4G, P, true))
		}
	}
	return out
}

// TestWinogradF4MatchesDirect: F(4×4, 3×3)'s forward, ∂/∂x and ∂/∂W agree
// with the convolution's definition in float64 to within γ_n times the
// computation on absolute values (winoF4Bounds), n the longest chain of
// roundings: the sum over the channels (C, K, or the n·T tiles of ∂/∂W and
// the chunks' sum) and 24 for the transforms (at most three roundings a
// stage, two stages each for the weights, the data and the result, and the
// bias). The bound is a worst case: on these cases the errors measured
// 0.02–0.5 % of it, and it is, on average, 0.03–0.7 % of the outputs' own
// size for y and ∂x and 0.03–3 % for ∂W (a sum over many tiles, whose
// terms cancel): a wrong matrix entry, a tile in another's place or a
// product left out is off by a good part of the output itself
// (cmd/mutate's wino4-* mutations). The results give the same bits on 1,
// 2 and 3 threads, on every kernel the machine runs.
func TestWinogradF4MatchesDirect(t *testing.T) {
	defer func(v int) { winoOwnValues = v }(winoOwnValues)
	defer func(v bool) { denseConv = v }(denseConv)
	defer func(v int) { winoF4MinMap = v }(winoF4MinMap)
	defer SetWinogradF4(SetWinogradF4(true))
	denseConv, winoF4MinMap = false, 1
	eachKernel(t, func(kern sgemm.Kernel) {
		for i, tc := range winoF4Cases {
			c := tc.convCase
			t.Run(fmt.Sprintf("%s/%+v/group%d", kern.Name, c, tc.group), func(t *testing.T) {
				winoOwnValues = tc.group
				g := newConvGeom(c.c, c.h, c.w, c.o, c.k, c.pad, c.stride)
				require.True(t, winogradOK(g), "case does not take the Winograd path")
				require.Same(t, winoF4, winoAlgOf(g), "case does not take F(4×4, 3×3)")
				x, w, b, dy, _ := convInputs(c, int64(200+i))
				bound := winoF4Bounds(c, x, w, b, dy)
				th, tw := (c.h+3)/4, (c.w+3)/4
				chain := [3]int{c.c + 24, c.o + 24, c.n*th*tw + convChunks + 24}
				requireMatchesDirectTol(t, c, int64(200+i), "Winograd F(4×4, 3×3)", func(_ [3][]float32, _ [3][]float64, k, j int) float64 {
					return float64(chain[k])*0x1p-24*bound[k][j] + 1e-30
				})
			})
		}
	})
}
