package nn

import (
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/internal/sgemm"
	"github.com/stretchr/testify/require"
)

// stackedCases are small-map geometries: every stacked mode is reached
// (groups at least as many as threads, and fewer so that the threads share
// rows), with a last group shorter than the others, strides 1 and 2, 1×1
// and 3×3 kernels, and channel counts whose k·k-row blocks do not fall on
// the micro-kernels' MR.
var stackedCases = []convCase{
	{20, 8, 2, 2, 10, 3, 1, 1},    // 2×2 map: one group of 20 (threads share rows)
	{300, 5, 1, 1, 7, 1, 0, 1},    // 1×1 map, 1×1 kernel: groups of 256 and 44
	{40, 6, 4, 4, 13, 3, 1, 1},    // 4×4: groups of 16, 16, 8
	{70, 16, 8, 8, 9, 3, 1, 2},    // 8×8 → 4×4, stride 2: 5 groups, 8 ∂/∂W chunks
	{9, 7, 3, 3, 11, 3, 0, 1},     // 3×3 → 1×1 without padding
	{33, 12, 16, 16, 8, 3, 1, 2},  // 8×8 output: groups of 4
	{5, 40, 2, 2, 30, 3, 1, 1},    // c·k·k = 360: ∂/∂x rows in several blocks and pieces
	{1, 3, 2, 2, 4, 3, 1, 1},      // one image
	{130, 4, 4, 4, 6, 3, 1, 2},    // 2×2 output: groups of 64, 64, 2
	{17, 64, 1, 1, 50, 1, 0, 1},   // 1×1: ∂/∂x rows cut at MR only
	{12, 10, 5, 5, 7, 5, 2, 1},    // 5×5 kernel (k·k = 25)
	{64, 32, 10, 10, 16, 3, 1, 1}, // 100 values: two images a product
	{40, 24, 1, 1, 30, 3, 1, 1},   // 1×1 map, 3×3 kernel: 8 rows of 9 padding (ResNet18's last stage)
	{12, 20, 2, 2, 16, 3, 1, 2},   // 2×2 → 1×1, stride 2: 5 rows of 9 padding
	{7, 3, 3, 3, 4, 5, 2, 3},      // 3×3 → 1×1, 5×5 kernel, stride 3: padding rows mixed with live ones
	{3, 2, 1, 1, 3, 1, 1, 2},      // 1×1 image, padding 1, stride 2: every output reads padding only
}

// convInputs draws case c's input, weights, bias and output gradient from
// the stream of seed, and returns the stream's draw for more.
func convInputs(c convCase, seed int64) (x, w, b, dy []float32, rand func(int) []float32) {
	g := newConvGeom(c.c, c.h, c.w, c.o, c.k, c.pad, c.stride)
	r := rng.New(seed, "conv-stacked")
	rand = func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(2*r.Float64() - 1)
		}
		return v
	}
	return rand(c.n * c.c * c.h * c.w), rand(c.o * g.ckk()), rand(c.o), rand(c.n * c.o * g.hw()), rand
}

// convPackedAll runs the packed forward, ∂/∂x and ∂/∂W of case c on the
// inputs of seed with GOMAXPROCS procs.
func convPackedAll(t *testing.T, c convCase, seed int64, procs int) [3][]float32 {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	g := newConvGeom(c.c, c.h, c.w, c.o, c.k, c.pad, c.stride)
	x, w, b, dy, rand := convInputs(c, seed)
	// Each op runs twice on one scratch, as in training: stale partial
	// sums in the scratch and stale values in ∂/∂x and ∂/∂W must be
	// overwritten, not added to.
	var out [3][]float32
	var sc scratch[float32]
	for run := 0; run < 2; run++ {
		var o [3][]float32
		o[0] = rand(c.n * c.o * g.hw())
		convForwardPacked(g, c.n, x, w, b, o[0], &sc)
		o[1] = rand(len(x))
		require.NoError(t, convBackwardPacked(g, 0, c.n, w, dy, o[1], &sc))
		o[2] = rand(len(w))
		require.NoError(t, convBackwardPacked(g, 1, c.n, x, dy, o[2], &sc))
		if run == 1 {
			for k := range o {
				require.Equal(t, out[k], o[k], "output %d of a second run on the same scratch", k)
			}
		}
		out = o
	}
	return out
}

// TestConvStackedMatchesPerImage: with the images of a small map stacked
// into one product, the forward and ∂/∂x are bit for bit those of the
// per-image products (each entry is the same sum in the same order; the
// forward agrees to rounding where rows of padding leave the product), and
// ∂/∂W (whose sums are regrouped) agrees to float32 rounding; all three are
// bit for bit the same on 1, 2 and 3 threads (the cut depends on the batch
// and the map only). On every micro-kernel this machine runs.
func TestConvStackedMatchesPerImage(t *testing.T) {
	defer func(v bool) { stackConv = v }(stackConv)
	defer func(v bool) { useWinograd = v }(useWinograd)
	defer func(v bool) { denseConv = v }(denseConv)
	useWinograd, denseConv = false, false // the stacked and per-image paths are compared here
	eachKernel(t, func(kern sgemm.Kernel) {
		for i, c := range stackedCases {
			t.Run(fmt.Sprintf("%s/%+v", kern.Name, c), func(t *testing.T) {
				g := newConvGeom(c.c, c.h, c.w, c.o, c.k, c.pad, c.stride)
				require.Greater(t, convStackGroup(c.n, g.hw()), min(c.n, 2)-1, "case does not stack")
				stackConv = false
				want := convPackedAll(t, c, int64(i), 2)
				stackConv = true
				got := convPackedAll(t, c, int64(i), 2)
				// Rows of the unfolding that are padding everywhere leave the
				// stacked products; the forward's sums then fall into other
				// k-blocks and may round differently (c·k·k terms).
				var sc scratch[float32]
				sc.unfold.build(g)
				dead := len(sc.unfold.live) < g.ckk()
				for k, name := range []string{"y", "∂x"} {
					for j := range want[k] {
						if k == 0 && dead {
							if d := math.Abs(float64(got[k][j] - want[k][j])); d > 1e-6*float64(g.ckk()+8) {
								require.Failf(t, "stacked product differs", "%s[%d] = %v, per image %v", name, j, got[k][j], want[k][j])
							}
							continue
						}
						if math.Float32bits(got[k][j]) != math.Float32bits(want[k][j]) {
							require.Failf(t, "stacked product differs", "%s[%d] = %v, per image %v", name, j, got[k][j], want[k][j])
						}
					}
				}
				// ∂/∂W sums n·h·w products of values in [−1, 1]; the columns of
				// padding rows are exact zeros on both paths.
				tol := 1e-6 * float64(c.n*g.hw()+8)
				for j := range want[2] {
					if d := math.Abs(float64(got[2][j] - want[2][j])); d > tol {
						require.Failf(t, "stacked ∂W differs", "∂W[%d] = %v, per image %v (tolerance %.2g)", j, got[2][j], want[2][j], tol)
					}
				}
				for _, procs := range []int{1, 3} {
					other := convPackedAll(t, c, int64(i), procs)
					for k := range other {
						for j := range other[k] {
							if math.Float32bits(other[k][j]) != math.Float32bits(got[k][j]) {
								require.Failf(t, "result depends on the threads", "output %d entry %d: %v on %d threads, %v on 2", k, j, other[k][j], procs, got[k][j])
							}
						}
					}
				}
			})
		}
	})
}

// TestConvStackGroup: maps of convStackCols values or more keep one image a
// product; smaller maps stack up to convStackCols columns, never more
// images than the batch, and ∂/∂W's chunks stay within convChunks.
func TestConvStackGroup(t *testing.T) {
	for _, tc := range []struct{ n, hw, gs, chunks int }{
		{128, 1024, 1, 8}, {128, 256, 1, 8}, {128, 255, 1, 8}, {128, 64, 4, 8},
		{128, 16, 16, 8}, {128, 4, 64, 2}, {128, 1, 128, 1}, {3, 1, 3, 1}, {300, 1, 256, 2},
	} {
		gs := convStackGroup(tc.n, tc.hw)
		require.Equal(t, tc.gs, gs, "n %d hw %d", tc.n, tc.hw)
		require.Equal(t, tc.chunks, convStackChunks(tc.n, gs), "n %d hw %d", tc.n, tc.hw)
	}
}

// TestUnfoldPlanLiveRows: the rows left out of the stacked products are
// exactly those whose every entry is padding (counted on im2colRow's own
// output, with the image all ones).
func TestUnfoldPlanLiveRows(t *testing.T) {
	// One plan for every case, as a shared workspace holds one: each build
	// for a new geometry replaces the last.
	var p unfoldPlan
	for _, c := range append(stackedCases, convCases...) {
		g := newConvGeom(c.c, c.h, c.w, c.o, c.k, c.pad, c.stride)
		p.build(g)
		ones := make([]float32, c.c*c.h*c.w)
		for i := range ones {
			ones[i] = 1
		}
		row := make([]float32, g.hw())
		var want []int32
		for r := 0; r < g.ckk(); r++ {
			im2colRow(g, ones, r, row)
			for _, v := range row {
				if v != 0 {
					want = append(want, int32(r))
					break
				}
			}
		}
		if len(want) == 0 {
			want = []int32{0} // no live row: row 0 (all zeros) stands for them
		}
		require.Equal(t, want, append([]int32(nil), p.live...), "%+v", c)
	}
	// A 1×1 map with a 3×3 kernel keeps the centre tap of each channel.
	p.build(newConvGeom(3, 1, 1, 2, 3, 1, 1))
	require.Equal(t, []int32{4, 13, 22}, p.live)
}

// TestUnfoldPlanRunsAreIm2col: for every stacked geometry (strides 1, 2
// and 3, where runs step through the image), the plan's unfold of each
// row writes bit for bit what im2colRow writes, over stale values, and its
// fold adds bit for bit what col2imRowAdd adds — by the gathers and
// scatters and by the runs alike; a stride-2 layer from 16×16 to 8×8
// (WRN-16-4's third stage) has one run an output row, not one a value; and
// the rows of long contiguous runs keep their copies (a 1×1 kernel on an
// 8×8 map) while strided rows gather.
func TestUnfoldPlanRunsAreIm2col(t *testing.T) {
	defer func(v bool) { unfoldGather = v }(unfoldGather)
	for _, gather := range []bool{false, true} {
		unfoldGather = gather
		t.Run(fmt.Sprintf("gather=%v", gather), testUnfoldPlanRuns)
	}
	var p unfoldPlan
	p.build(newConvGeom(8, 8, 8, 4, 1, 0, 1))
	require.NotContains(t, p.gather, true, "1×1 on 8×8: one copy a row")
	p.build(newConvGeom(8, 8, 8, 4, 3, 1, 2))
	require.NotContains(t, p.gather, false, "3×3 stride 2 on 8×8: runs of 3 or 4 values two apart")
}

func testUnfoldPlanRuns(t *testing.T) {
	var p unfoldPlan
	cases := append(append([]convCase(nil), stackedCases...), convCase{3, 4, 16, 16, 5, 3, 1, 2}, convCase{2, 3, 16, 16, 4, 1, 0, 2})
	for i, c := range cases {
		g := newConvGeom(c.c, c.h, c.w, c.o, c.k, c.pad, c.stride)
		p.build(g)
		x, _, _, _, rand := convInputs(c, int64(300+i))
		n := min(c.n, 3)
		for r := 0; r < g.ckk(); r++ {
			got := rand(n * g.hw()) // stale values: unfold must overwrite every entry
			p.unfold(x, 0, n, r, got)
			src := rand(n * g.hw())
			dxGot, dxWant := rand(n*c.c*c.h*c.w), []float32(nil)
			dxWant = append(dxWant, dxGot...)
			p.fold(src, 0, n, r, dxGot)
			for img := 0; img < n; img++ {
				want := make([]float32, g.hw())
				im2colRow(g, x[img*c.c*c.h*c.w:(img+1)*c.c*c.h*c.w], r, want)
				for j, v := range want {
					if math.Float32bits(got[img*g.hw()+j]) != math.Float32bits(v) {
						require.Failf(t, "unfold is not im2col", "%+v row %d image %d entry %d: %v, want %v", c, r, img, j, got[img*g.hw()+j], v)
					}
				}
				col2imRowAdd(g, r, src[img*g.hw():(img+1)*g.hw()], dxWant[img*c.c*c.h*c.w:(img+1)*c.c*c.h*c.w])
			}
			for j := range dxWant {
				if math.Float32bits(dxGot[j]) != math.Float32bits(dxWant[j]) {
					require.Failf(t, "fold is not col2im", "%+v row %d entry %d: %v, want %v", c, r, j, dxGot[j], dxWant[j])
				}
			}
		}
	}
	p.build(newConvGeom(128, 16, 16, 256, 3, 1, 2))
	for r := 0; r < 9; r++ {
		require.LessOrEqual(t, p.first[r+1]-p.first[r], int32(8), "row %d: runs of single values", r)
	}
}
