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
// with the group size (winoOwnValues) each runs under: even and odd
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
	denseConv = false // the 2×2 and 3×2 maps would take the dense path
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
	got := convPackedAll(t, c, seed, 2)
	x, w, b, dy, _ := convInputs(c, seed) // convPackedAll's inputs
	want, scale := convDirect64(c, x, w, b, dy)
	for k, name := range []string{"y", "∂x", "∂W"} {
		require.Len(t, got[k], len(want[k]), name)
		for j := range want[k] {
			tol := 1e-6*scale[k][j] + 1e-7
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
// turns Winograd off, winograd or nothing leaves it on, and a misspelling
// keeps the default (with a word on standard error) rather than silently
// switching algorithms.
func TestConv3x3Env(t *testing.T) {
	for _, tc := range []struct {
		value    string
		winograd bool
	}{{"", true}, {"winograd", true}, {"im2col", false}, {"Im2col", true}, {"direct", true}} {
		assert.Equal(t, tc.winograd, winogradFromEnv(tc.value), "%s=%q", Conv3x3Env, tc.value)
	}
}

// Numerics names the micro-kernel in use and the algorithm the 3×3
// convolutions take, following SetWinograd.
func TestNumericsFollowsTheSettings(t *testing.T) {
	defer SetWinograd(SetWinograd(true))
	on := Numerics()
	SetWinograd(false)
	off := Numerics()
	for _, s := range []string{on, off} {
		if BLASName == "gonum+sgemm" {
			assert.True(t, strings.HasPrefix(s, "sgemm "+sgemm.Active().Name+"; "), "numerics %q without the kernel %s", s, sgemm.Active().Name)
		}
	}
	assert.Contains(t, off, "conv3x3 im2col")
	if BLASName == "gonum+sgemm" {
		assert.Contains(t, on, "conv3x3 winograd")
	}
}
