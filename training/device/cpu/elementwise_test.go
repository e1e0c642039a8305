package cpu

import (
	"math"
	"math/rand"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/llpfc/llpfc/training/device"
)

// TestElementwiseIsGorgonias: each operation the plan runs on every core
// gives, value for value, the bits of gorgonia's own operation (the oracle)
// on values with NaN, ±Inf, ±0 and subnormals among them, with a tensor or
// a scalar (0, as gorgonia.Rectify's, and another) on the right, on sizes
// below and above the parallel loop's threshold, at 1 and 4 threads; and
// every kind of the table is one a graph makes.
func TestElementwiseIsGorgonias(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	r := rand.New(rand.NewSource(58))
	draw := func(n int) []float32 { return withSpecials(r, n) }
	ops := map[string]func(a, b *gorgonia.Node) (*gorgonia.Node, error){
		"+": gorgonia.Add, "-": gorgonia.Sub, "⊙": gorgonia.HadamardProd,
		">=": func(a, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Gte(a, b, true) },
	}
	kinds := map[string]bool{}
	for name, mk := range ops {
		for _, tc := range []struct {
			shape  tensor.Shape
			scalar float32 // NaN: a tensor on the right
		}{{tensor.Shape{3, 5}, float32(math.NaN())}, {tensor.Shape{2, 3, 1 << 14}, float32(math.NaN())},
			{tensor.Shape{4, 7}, 0}, {tensor.Shape{3, 1 << 15}, 0}, {tensor.Shape{3, 1 << 15}, -1.5}} {
			shape := tc.shape
			g := gorgonia.NewGraph()
			a := gorgonia.NewTensor(g, tensor.Float32, len(shape), gorgonia.WithShape(shape...), gorgonia.WithName("a"))
			var b *gorgonia.Node
			var bv gorgonia.Value
			if tc.scalar != tc.scalar {
				b = gorgonia.NewTensor(g, tensor.Float32, len(shape), gorgonia.WithShape(shape...), gorgonia.WithName("b"))
				bv = tensor.New(tensor.WithShape(shape...), tensor.WithBacking(draw(shape.TotalSize())))
			} else { // a scalar on the right, as gorgonia.Rectify's x ≥ 0
				b = gorgonia.NewConstant(tc.scalar)
				bv = gorgonia.NewF32(tc.scalar)
			}
			c, err := mk(a, b)
			require.NoError(t, err, name)
			kind := device.OpKind(c.Op())
			kinds[kind] = true
			_, known := elementwise[kind]
			require.True(t, known, "%s: kind %q is not in the table", name, kind)
			av := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(draw(shape.TotalSize())))
			want, err := c.Op().Do(av, bv)
			require.NoError(t, err, name)
			for _, procs := range []int{1, 4} {
				runtime.GOMAXPROCS(procs)
				out := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(draw(shape.TotalSize())))
				got, ok := parallelElementwise(kind, out, []gorgonia.Value{av, bv})
				require.True(t, ok, "%s %v", name, shape)
				w, o := want.Data().([]float32), got.Data().([]float32)
				for i := range w {
					if math.Float32bits(w[i]) != math.Float32bits(o[i]) {
						require.Failf(t, "differs from gorgonia", "%s %v (scalar %v) at %d threads: [%d] = %v (a %v), gorgonia %v", name, shape, tc.scalar, procs, i, o[i],
							av.Float32s()[i], w[i])
					}
				}
			}
		}
	}
	assert.Len(t, kinds, len(elementwise), "every kind of the table is checked")
}

// TestElementwiseDeclinesWhatItDoesNotRun: broadcasts, scalars, float64
// and kinds outside the table are left to gorgonia.
func TestElementwiseDeclinesWhatItDoesNotRun(t *testing.T) {
	f32 := func(s ...int) *tensor.Dense { return tensor.New(tensor.WithShape(s...), tensor.Of(tensor.Float32)) }
	f64 := tensor.New(tensor.WithShape(2, 3), tensor.Of(tensor.Float64))
	for name, c := range map[string]struct {
		kind string
		out  *tensor.Dense
		a, b gorgonia.Value
	}{
		"broadcast":      {"gorgonia.elemBinOp(+)", f32(2, 3), f32(2, 3), f32(1, 3)},
		"scalar left":    {"gorgonia.elemBinOp(⊙)", f32(2, 3), gorgonia.NewF32(2), f32(2, 3)},
		"float64 scalar": {"gorgonia.elemBinOp(⊙)", f32(2, 3), f32(2, 3), gorgonia.NewF64(2)},
		"float64":        {"gorgonia.elemBinOp(+)", f64, f64, f64},
		"other kind":     {"gorgonia.elemBinOp(> same)", f32(2, 3), f32(2, 3), f32(2, 3)},
		"out shape":      {"gorgonia.elemBinOp(+)", f32(3, 2), f32(2, 3), f32(2, 3)},
	} {
		_, ok := parallelElementwise(c.kind, c.out, []gorgonia.Value{c.a, c.b})
		assert.False(t, ok, name)
	}
}

// withSpecials draws n float32 values, normal ones and, one in eight,
// NaN, ±Inf, ±0, ±1 or a subnormal: the values on which an operation's
// bits differ from another's when it is not the same IEEE operations.
func withSpecials(r *rand.Rand, n int) []float32 {
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), 1e-40, -1e-40, 1, -1}
	v := make([]float32, n)
	for i := range v {
		if r.Intn(8) == 0 {
			v[i] = special[r.Intn(len(special))]
		} else {
			v[i] = float32(r.NormFloat64())
		}
	}
	return v
}
