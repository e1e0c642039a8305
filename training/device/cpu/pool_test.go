package cpu

import (
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/llpfc/llpfc/training/device"
)

// TestMaxPoolIsGorgonias: the plan's max pool and its gradient on every
// core give, value for value, the bits of gorgonia's own maxPoolOp and
// maxPoolDiffOp (the oracle, run through their Do) on inputs with ties
// (values drawn from a few integers, so a window's first maximum matters
// and overlapping windows add into one position), NaN, ±Inf and −0, for
// ResNet18's stem pool and other geometries, at 1 and 4 threads.
func TestMaxPoolIsGorgonias(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	r := rand.New(rand.NewSource(58))
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1))}
	draw := func(n int, ties bool) []float32 {
		v := make([]float32, n)
		for i := range v {
			switch {
			case r.Intn(50) == 0:
				v[i] = special[r.Intn(len(special))]
			case ties:
				v[i] = float32(r.Intn(3))
			default:
				v[i] = float32(r.NormFloat64())
			}
		}
		return v
	}
	for _, tc := range []struct {
		name           string
		shape          tensor.Shape
		kernel         tensor.Shape
		pad, stride    []int
		ties, specials bool
	}{
		{"resnet18 stem", tensor.Shape{4, 8, 16, 16}, tensor.Shape{3, 3}, []int{1, 1}, []int{2, 2}, false, true},
		{"resnet18 stem, ties", tensor.Shape{3, 5, 9, 9}, tensor.Shape{3, 3}, []int{1, 1}, []int{2, 2}, true, false},
		{"2×2 stride 2", tensor.Shape{2, 3, 8, 6}, tensor.Shape{2, 2}, []int{0, 0}, []int{2, 2}, true, true},
		{"3×3 stride 1 (overlapping most)", tensor.Shape{2, 4, 7, 5}, tensor.Shape{3, 3}, []int{1, 1}, []int{1, 1}, true, false},
		{"3×2 stride (2, 1)", tensor.Shape{1, 6, 11, 10}, tensor.Shape{3, 2}, []int{0, 1}, []int{2, 1}, false, false},
	} {
		g := gorgonia.NewGraph()
		x := gorgonia.NewTensor(g, tensor.Float32, 4, gorgonia.WithShape(tc.shape...), gorgonia.WithName("x"))
		y, err := gorgonia.MaxPool2D(x, tc.kernel, tc.pad, tc.stride)
		require.NoError(t, err, tc.name)
		cost := gorgonia.Must(gorgonia.Sum(y))
		_, err = gorgonia.Grad(cost, x)
		require.NoError(t, err, tc.name)
		var diff gorgonia.Op
		for _, n := range g.AllNodes() {
			if device.OpKind(n.Op()) == "gorgonia.maxPoolDiffOp" {
				diff = n.Op()
			}
		}
		require.NotNil(t, diff, tc.name)
		require.Equal(t, "gorgonia.maxPoolOp", device.OpKind(y.Op()))

		xv := tensor.New(tensor.WithShape(tc.shape...), tensor.WithBacking(draw(tc.shape.TotalSize(), tc.ties)))
		if !tc.specials {
			for i, v := range xv.Float32s() {
				if v != v || math.IsInf(float64(v), 0) {
					xv.Float32s()[i] = 1
				}
			}
		}
		want, err := y.Op().Do(xv) // gorgonia's forward, which keeps its positions for its gradient
		require.NoError(t, err, tc.name)
		wantY := want.(*tensor.Dense)
		dy := tensor.New(tensor.WithShape(wantY.Shape().Clone()...), tensor.WithBacking(draw(wantY.Shape().TotalSize(), true)))
		wantDx, err := diff.Do(xv, wantY, dy)
		require.NoError(t, err, tc.name)
		for _, threads := range []int{1, 4} {
			runtime.GOMAXPROCS(threads)
			// The gradient from the forward's positions, from none (found
			// again from x), and from positions a forward on other values
			// left under the same output (refused, found again).
			other := tensor.New(tensor.WithShape(tc.shape.Clone()...), tensor.WithBacking(draw(tc.shape.TotalSize(), true)))
			for _, positions := range []string{"kept", "none", "stale"} {
				pp := poolPositions{}
				if positions == "none" {
					pp = nil
				}
				gotY := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(wantY.Shape().Clone()...))
				if positions == "stale" {
					_, ok := pp.parallelMaxPool("gorgonia.maxPoolOp", y.Op(), gotY, []gorgonia.Value{other})
					require.True(t, ok, tc.name)
				}
				what := fmt.Sprintf("%s, positions %s", tc.name, positions)
				v, ok := pp.parallelMaxPool("gorgonia.maxPoolOp", y.Op(), gotY, []gorgonia.Value{xv})
				require.True(t, ok, what)
				requireSameBits(t, wantY.Float32s(), v.(*tensor.Dense).Float32s(), what+": forward", threads)
				yv := gotY
				if positions == "stale" { // the output rewritten by the other forward: its positions stay
					_, ok := pp.parallelMaxPool("gorgonia.maxPoolOp", y.Op(), gotY, []gorgonia.Value{other})
					require.True(t, ok, what)
					yv = tensor.New(tensor.WithShape(wantY.Shape().Clone()...), tensor.WithBacking(gotY.Float32s()))
					copy(yv.Float32s(), wantY.Float32s())
				}
				gotDx := tensor.New(tensor.WithShape(tc.shape.Clone()...), tensor.WithBacking(draw(tc.shape.TotalSize(), false))) // stale values: the op must overwrite them
				v, ok = pp.parallelMaxPool("gorgonia.maxPoolDiffOp", diff, gotDx, []gorgonia.Value{xv, yv, dy})
				require.True(t, ok, what)
				requireSameBits(t, wantDx.(*tensor.Dense).Float32s(), v.(*tensor.Dense).Float32s(), what+": gradient", threads)
			}
		}
	}
}

func requireSameBits(t *testing.T, want, got []float32, what string, threads int) {
	t.Helper()
	require.Len(t, got, len(want), what)
	for i := range want {
		if math.Float32bits(want[i]) != math.Float32bits(got[i]) {
			t.Fatalf("%s at %d threads: value %d is %v (bits %08x), gorgonia's %v (%08x)", what, threads, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

// TestMaxPoolLeavesOthersToGorgonia: what the plan's pool does not take —
// another kind, a float64 tensor, the wrong number of inputs — it leaves
// to gorgonia (ok false), never a wrong answer.
func TestMaxPoolLeavesOthersToGorgonia(t *testing.T) {
	g := gorgonia.NewGraph()
	x := gorgonia.NewTensor(g, tensor.Float32, 4, gorgonia.WithShape(1, 1, 4, 4), gorgonia.WithName("x"))
	y, err := gorgonia.MaxPool2D(x, tensor.Shape{2, 2}, []int{0, 0}, []int{2, 2})
	require.NoError(t, err)
	out := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(1, 1, 2, 2))
	x32 := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(1, 1, 4, 4))
	x64 := tensor.New(tensor.Of(tensor.Float64), tensor.WithShape(1, 1, 4, 4))
	for _, c := range []struct {
		kind string
		args []gorgonia.Value
	}{
		{"gorgonia.elemBinOp(+)", []gorgonia.Value{x32}},
		{"gorgonia.maxPoolOp", []gorgonia.Value{x64}},
		{"gorgonia.maxPoolOp", []gorgonia.Value{x32, x32}},
		{"gorgonia.maxPoolDiffOp", []gorgonia.Value{x32}},
	} {
		_, ok := poolPositions{}.parallelMaxPool(c.kind, y.Op(), out, c.args)
		require.False(t, ok, "%s with %d inputs", c.kind, len(c.args))
	}
}

// poolValues are the values the forward's properties draw from: ties
// (small integers, ±0), every kind of NaN (quiet and signalling, either
// sign), ±Inf, ±MaxFloat32 and the subnormals, where a key of the bits
// that is not argmax's order would show.
var poolValues = []float32{
	0, float32(math.Copysign(0, -1)), 1, 1, 2, -1, -2,
	math.Float32frombits(0x7fc00000), math.Float32frombits(0xffc00000), // quiet NaNs
	math.Float32frombits(0x7f800001), math.Float32frombits(0xff800001), // signalling NaNs
	math.Float32frombits(0x7fffffff), math.Float32frombits(0xffffffff),
	float32(math.Inf(1)), float32(math.Inf(-1)),
	math.MaxFloat32, -math.MaxFloat32, math.Nextafter32(-math.MaxFloat32, 0),
	math.Float32frombits(1), math.Float32frombits(0x80000001), // ± the smallest subnormal
	math.Float32frombits(0x007fffff), math.Float32frombits(0x807fffff), // ± the largest
}

// poolGeoms are the geometries the forward's properties run: ResNet18's
// stem pool, the 2×2 stride-2 pool, the most overlapping 3×3, one without
// padding, and an uneven one with more padding than half the window.
var poolGeoms = []poolGeom{
	{kh: 3, kw: 3, padH: 1, padW: 1, strideH: 2, strideW: 2},
	{kh: 2, kw: 2, padH: 0, padW: 0, strideH: 2, strideW: 2},
	{kh: 3, kw: 3, padH: 1, padW: 1, strideH: 1, strideW: 1},
	{kh: 3, kw: 3, padH: 0, padW: 0, strideH: 2, strideW: 2},
	{kh: 2, kw: 4, padH: 1, padW: 3, strideH: 1, strideW: 3},
}

// TestMaxPoolForwardIsArgmax: for generated plane sizes (1×1, odd, smaller
// than the window), geometries, output sizes (gorgonia's, and one more row
// and column whose windows may lie wholly in the padding) and values drawn
// from poolValues or from random bits, the forward's y and positions are,
// bit for bit, argmax's — gorgonia's loop: the first strictly greater value
// from −MaxFloat32 in row-major order, NaN never winning, −MaxFloat32 and
// position −1 for a window with nothing above it.
func TestMaxPoolForwardIsArgmax(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 400
	p := gopter.NewProperties(params)
	p.Property("forward = argmax", prop.ForAll(func(gi, planes, inH, inW, extra int, special int, seed int64) string {
		g := poolGeoms[gi]
		r := rand.New(rand.NewSource(seed))
		outH := max((inH+2*g.padH-g.kh)/g.strideH+1, 1) + extra%2
		outW := max((inW+2*g.padW-g.kw)/g.strideW+1, 1) + extra/2
		x := make([]float32, planes*inH*inW)
		for i := range x {
			if r.Intn(10) < special {
				x[i] = poolValues[r.Intn(len(poolValues))]
			} else {
				x[i] = math.Float32frombits(r.Uint32())
			}
		}
		pl := poolPlanes{g: g, planes: planes, inH: inH, inW: inW, outH: outH, outW: outW, x: x}
		y := make([]float32, planes*outH*outW)
		at := make([]int32, len(y))
		pl.forward(y, at)
		yOnly := make([]float32, len(y))
		pl.forward(yOnly, nil)
		for o := range y {
			pp, ph, pw := o/(outH*outW), o/outW%outH, o%outW
			want, wantAt := g.argmax(x[pp*inH*inW:(pp+1)*inH*inW], ph, pw, inH, inW)
			if math.Float32bits(y[o]) != math.Float32bits(want) || int(at[o]) != wantAt || math.Float32bits(yOnly[o]) != math.Float32bits(want) {
				return fmt.Sprintf("%+v %d×%d → %d×%d, output %d: y %v (%08x) at %d, y without positions %08x; argmax %v (%08x) at %d",
					g, inH, inW, outH, outW, o, y[o], math.Float32bits(y[o]), at[o], math.Float32bits(yOnly[o]), want, math.Float32bits(want), wantAt)
			}
		}
		return ""
	}, gen.IntRange(0, len(poolGeoms)-1), gen.IntRange(1, 3), gen.IntRange(1, 19), gen.IntRange(1, 19), gen.IntRange(0, 3),
		gen.IntRange(0, 10), gen.Int64()))
	p.TestingRun(t)
}

// TestMaxPoolForwardCases: the forward's windows that decide the
// semantics, one 1×3 plane under a 1×3 window each, against the expected
// value and position written out.
func TestMaxPoolForwardCases(t *testing.T) {
	nan, negNaN := float32(math.NaN()), math.Float32frombits(0xffc00000)
	inf, negZero := float32(math.Inf(1)), float32(math.Copysign(0, -1))
	for _, c := range []struct {
		name string
		x    []float32
		y    float32
		at   int32
	}{
		{"first of a tie", []float32{1, 2, 2}, 2, 1},
		{"−0 before +0 stays", []float32{negZero, 0, -1}, negZero, 0},
		{"+0 before −0 stays", []float32{-1, 0, negZero}, 0, 1},
		{"NaN never wins", []float32{nan, -5, nan}, -5, 1},
		{"a negative NaN never wins", []float32{negNaN, -5, negNaN}, -5, 1},
		{"NaN before +Inf", []float32{nan, inf, 1}, inf, 1},
		{"all NaN", []float32{nan, negNaN, nan}, -math.MaxFloat32, -1},
		{"all −Inf", []float32{-inf, -inf, -inf}, -math.MaxFloat32, -1},
		{"−MaxFloat32 is not above itself", []float32{-math.MaxFloat32, -inf, nan}, -math.MaxFloat32, -1},
		{"just above −MaxFloat32", []float32{-math.MaxFloat32, math.Nextafter32(-math.MaxFloat32, 0), -inf}, math.Nextafter32(-math.MaxFloat32, 0), 1},
		{"subnormals", []float32{math.Float32frombits(0x80000001), math.Float32frombits(1), 0}, math.Float32frombits(1), 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			pl := poolPlanes{g: poolGeom{kh: 1, kw: 3, strideH: 1, strideW: 1}, planes: 1, inH: 1, inW: 3, outH: 1, outW: 1, x: c.x}
			y, at := make([]float32, 1), make([]int32, 1)
			pl.forward(y, at)
			require.Equal(t, math.Float32bits(c.y), math.Float32bits(y[0]), "y %v", y[0])
			require.Equal(t, c.at, at[0])
		})
	}
}
