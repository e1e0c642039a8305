package nn

import (
	"fmt"
	"math"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/llpfc/llpfc/internal/sgemm"
	"github.com/stretchr/testify/require"
)

// TestPhasesRowsAreIm2col: for generated strided geometries (strides 2–4,
// odd kernels wider than the stride with padding (k−1)/2, maps of 1–21
// rows and columns, odd and even), each row of the unfolding read from the
// planes is bit for bit im2colRow's, written over stale values; and all
// rows' gradients folded onto the planes and merged are bit for bit
// col2imRowAdd's sums from +0. Geometries the planes cannot serve (a
// kernel no wider than the stride, an output map smaller than the planes)
// are refused.
func TestPhasesRowsAreIm2col(t *testing.T) {
	p := gopter.NewProperties(gopter.DefaultTestParametersWithSeed(3))
	p.Property("planes' rows = im2col, fold+merge = col2im", prop.ForAll(func(s, half, c, h, w int, seed int64) bool {
		k := 2*half + 1
		if k <= s {
			k = s + 1 + s%2 // odd and wider than the stride
		}
		g := newConvGeom(c, h, w, 2, k, (k-1)/2, s)
		ph, ok := phasesOf(g)
		if !ok {
			t.Logf("%v: refused", g)
			return false
		}
		x, _, _, _, rand := convInputs(convCase{1, c, h, w, 2, k, (k - 1) / 2, s}, seed)
		xp := rand(ph.size(c)) // stale values: split must overwrite every entry read
		ph.split(x, 0, c, xp)
		hw := g.hw()
		dxp, dx := rand(ph.size(c)), make([]float32, c*h*w)
		clear(dxp)
		for r := 0; r < g.ckk(); r++ {
			got, want := rand(hw), make([]float32, hw)
			ph.row(xp, r, got)
			im2colRow(g, x, r, want)
			for j := range want {
				if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
					t.Logf("%v row %d entry %d: %v, want %v", g, r, j, got[j], want[j])
					return false
				}
			}
			src := rand(hw)
			col2imRowAdd(g, r, append([]float32(nil), src...), dx)
			ph.foldRow(src, r, dxp)
		}
		got := rand(c * h * w)
		ph.merge(dxp, got)
		for j := range dx {
			if math.Float32bits(got[j]) != math.Float32bits(dx[j]) {
				t.Logf("%v ∂x entry %d: %v, want %v", g, j, got[j], dx[j])
				return false
			}
		}
		return true
	}, gen.IntRange(2, 4), gen.IntRange(0, 4), gen.IntRange(1, 3), gen.IntRange(1, 21), gen.IntRange(1, 21), gen.Int64()))
	p.TestingRun(t)

	for _, g := range []convGeom{
		newConvGeom(4, 8, 8, 4, 1, 0, 2),   // 1×1 stride 2: each value read once
		newConvGeom(4, 9, 9, 4, 2, 0, 2),   // kernel as wide as the stride
		newConvGeom(4, 9, 9, 4, 3, 0, 2),   // no padding: 4×4 output, 5×5 planes
		newConvGeom(4, 10, 10, 4, 3, 1, 1), // stride 1
	} {
		_, ok := phasesOf(g)
		require.False(t, ok, "%v takes the polyphase path", g)
	}
}

// phasedCases are strided geometries of the per-image path (output maps of
// at least convStackCols values): WRN-16-4's 3×3 stride-2 layer from 32×32
// at a few channels, ResNet18's 7×7 stem shape on an odd map, stride 3, odd
// sizes, and one image on more threads than chunks (∂/∂W's column pieces,
// each splitting only its own channels).
var phasedCases = []convCase{
	{3, 5, 32, 32, 7, 3, 1, 2},
	{2, 3, 38, 35, 4, 7, 3, 2},
	{2, 2, 50, 47, 3, 5, 2, 3},
	{4, 6, 33, 31, 5, 3, 1, 2},
	{1, 9, 32, 34, 6, 3, 1, 2},
	{11, 2, 32, 32, 3, 3, 1, 2},
}

// TestConvPhasedMatchesStrided: the forward, ∂/∂x and ∂/∂W of the
// per-image path are bit for bit the same through the planes as through
// the strided gathers (the same values in the same sums), on 1, 2 and 3
// threads, twice on one scratch; on every micro-kernel this machine runs.
func TestConvPhasedMatchesStrided(t *testing.T) {
	defer func(v bool) { usePhases = v }(usePhases)
	eachKernel(t, func(kern sgemm.Kernel) {
		for i, c := range phasedCases {
			t.Run(fmt.Sprintf("%s/%+v", kern.Name, c), func(t *testing.T) {
				g := newConvGeom(c.c, c.h, c.w, c.o, c.k, c.pad, c.stride)
				require.Equal(t, 1, convStackGroup(c.n, g.hw()), "case stacks")
				require.False(t, winogradOK(g) || denseConvOK(g), "case takes another path")
				usePhases = false
				want := convPackedAll(t, c, int64(i), 2)
				usePhases = true
				_, ok := phasesOf(g)
				require.True(t, ok, "case does not take the planes")
				for _, procs := range []int{1, 2, 3} {
					got := convPackedAll(t, c, int64(i), procs)
					for k, name := range []string{"y", "∂x", "∂W"} {
						for j := range want[k] {
							if math.Float32bits(got[k][j]) != math.Float32bits(want[k][j]) {
								require.Failf(t, "planes differ", "%s[%d] on %d threads = %v, strided %v", name, j, procs, got[k][j], want[k][j])
							}
						}
					}
				}
			})
		}
	})
}
