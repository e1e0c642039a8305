package cpu

import (
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/llpfc/llpfc/internal/stepprof"
	"github.com/llpfc/llpfc/training/device"
)

// TestBiasOpsAreGorgonias: the bias gradient's sum over rows and the bias's
// broadcast, as the plan runs them on every core, give gorgonia's own
// operations' shapes and bits (the oracle: the node's op run by gorgonia
// on the same values, NaN, ±Inf, ±0 and subnormals among them), on sizes
// below and above the parallel threshold, odd widths, three axes, at 1
// and 4 threads; and what they do not handle (another axis, a column
// vector, a count that is not the output's rows) is left to gorgonia.
func TestBiasOpsAreGorgonias(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	r := rand.New(rand.NewSource(59))
	draw := func(n int) []float32 {
		v := withSpecials(r, n)
		for i := range v { // magnitudes from 1e-3 to 1e3, so that the order of the additions shows in the bits
			v[i] *= float32(math.Pow(10, float64(r.Intn(7)-3)))
		}
		return v
	}
	same := func(what string, want, got gorgonia.Value) {
		t.Helper()
		require.Equal(t, want.Shape(), got.Shape(), what)
		w, o := want.Data().([]float32), got.Data().([]float32)
		for i := range w {
			if math.Float32bits(w[i]) != math.Float32bits(o[i]) {
				require.Failf(t, "differs from gorgonia", "%s: [%d] = %v, gorgonia %v", what, i, o[i], w[i])
			}
		}
	}
	for _, shape := range []tensor.Shape{{3, 5}, {128, 1000}, {300, 517}, {2, 1 << 16}, {64, 32, 48}, {1, 40000}} {
		g := gorgonia.NewGraph()
		x := gorgonia.NewTensor(g, tensor.Float32, len(shape), gorgonia.WithShape(shape...), gorgonia.WithName("x"))
		s, err := gorgonia.Sum(x, 0)
		require.NoError(t, err)
		kind := device.OpKind(s.Op())
		require.Equal(t, "gorgonia.sumOp(Σ[0])", kind)
		xv := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(draw(shape.TotalSize())))
		want, err := s.Op().Do(xv)
		require.NoError(t, err)
		for _, procs := range []int{1, 4} {
			runtime.GOMAXPROCS(procs)
			got, ok := parallelSum0(kind, s.Shape(), []gorgonia.Value{xv})
			require.True(t, ok, "sum %v", shape)
			same(fmt.Sprintf("sum %v", shape), want, got)
		}
		// along another axis: gorgonia's
		s1, err := gorgonia.Sum(x, 1)
		require.NoError(t, err)
		_, ok := parallelSum0(device.OpKind(s1.Op()), s1.Shape(), []gorgonia.Value{xv})
		require.False(t, ok, "sum along 1 taken")
	}
	for _, c := range []struct{ rows, cols int }{{3, 5}, {128, 1000}, {257, 333}, {1, 7}, {4096, 64}} {
		g := gorgonia.NewGraph()
		x := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(c.rows, c.cols), gorgonia.WithName("x"))
		b := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(1, c.cols), gorgonia.WithName("b"))
		y, err := gorgonia.BroadcastAdd(x, b, nil, []byte{0})
		require.NoError(t, err)
		var rep *gorgonia.Node
		for _, n := range g.AllNodes() {
			if device.OpKind(n.Op()) == "gorgonia.repeatOp(Repeat0)" {
				rep = n
			}
		}
		require.NotNil(t, rep, "BroadcastAdd made no repeatOp along 0 (%v)", y)
		xv := tensor.New(tensor.WithShape(c.rows, c.cols), tensor.WithBacking(draw(c.rows*c.cols)))
		bv := tensor.New(tensor.WithShape(1, c.cols), tensor.WithBacking(draw(c.cols)))
		size := device.Children(rep)[1]
		count, err := size.Op().Do(xv) // the count as the graph makes it (a sizeOp of x)
		require.NoError(t, err)
		want, err := rep.Op().Do(bv, count)
		require.NoError(t, err)
		for _, procs := range []int{1, 4} {
			runtime.GOMAXPROCS(procs)
			out := tensor.New(tensor.WithShape(c.rows, c.cols), tensor.WithBacking(draw(c.rows*c.cols)))
			got, ok := parallelRepeat0("gorgonia.repeatOp(Repeat0)", out, []gorgonia.Value{bv, count})
			require.True(t, ok, "repeat %v (count %v)", c, count)
			same("repeat", want, got)
		}
		// a count that is not the output's rows, a column vector: gorgonia's
		out := tensor.New(tensor.WithShape(c.rows, c.cols), tensor.Of(tensor.Float32))
		_, ok := parallelRepeat0("gorgonia.repeatOp(Repeat0)", out, []gorgonia.Value{bv, gorgonia.NewF32(float32(c.rows + 1))})
		require.False(t, ok, "a count of %d rows taken for %d", c.rows+1, c.rows)
		col := tensor.New(tensor.WithShape(c.cols, 1), tensor.WithBacking(draw(c.cols)))
		_, ok = parallelRepeat0("gorgonia.repeatOp(Repeat0)", out, []gorgonia.Value{col, count})
		require.False(t, ok, "a column vector taken")
	}
}

// TestPlanRunsBiasOpsOnEveryCore: a program's bias broadcast and its sum
// over rows run as the plan's parallel sections (the step profile records
// sections for both at 4 threads), and its outputs are gorgonia's own
// (the tape machine's, bit for bit).
func TestPlanRunsBiasOpsOnEveryCore(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	r := rand.New(rand.NewSource(60))
	draw := func(n int) []float32 { return withSpecials(r, n) }
	build := func() (*gorgonia.ExprGraph, *gorgonia.Node, *gorgonia.Node) {
		g := gorgonia.NewGraph()
		r = rand.New(rand.NewSource(60))
		x := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(256, 1000), gorgonia.WithName("x"),
			gorgonia.WithValue(tensor.New(tensor.WithShape(256, 1000), tensor.WithBacking(draw(256000)))))
		b := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(1, 1000), gorgonia.WithName("b"),
			gorgonia.WithValue(tensor.New(tensor.WithShape(1, 1000), tensor.WithBacking(draw(1000)))))
		y, err := gorgonia.BroadcastAdd(x, b, nil, []byte{0})
		require.NoError(t, err)
		s, err := gorgonia.Sum(y, 0)
		require.NoError(t, err)
		return g, y, s
	}
	g, y, s := build()
	p, err := New().Compile(g, gorgonia.Nodes{y, s}, device.Options{Name: "bias"})
	require.NoError(t, err)
	defer p.Close()
	rec := stepprof.Start()
	require.NotNil(t, rec)
	require.NoError(t, p.Run())
	prof := rec.Stop()
	sections := map[string]int64{}
	for _, reg := range prof.Regions {
		sections[reg.Name] += reg.Sections
	}
	for _, k := range []string{"gorgonia.sumOp(Σ[0])", "gorgonia.repeatOp(Repeat0)"} {
		require.Positive(t, sections[k], "%s ran without a parallel section: %v", k, sections)
	}
	gt, yt, st := build()
	m := gorgonia.NewTapeMachine(gt)
	defer m.Close()
	require.NoError(t, m.RunAll())
	for _, c := range []struct {
		name      string
		got, want *gorgonia.Node
	}{{"broadcast sum", y, yt}, {"sum over rows", s, st}} {
		gv, err := p.Value(c.got)
		require.NoError(t, err)
		w, o := c.want.Value().Data().([]float32), gv.Data().([]float32)
		require.Equal(t, len(w), len(o), c.name)
		for i := range w {
			if math.Float32bits(w[i]) != math.Float32bits(o[i]) {
				require.Failf(t, "differs from gorgonia's tape machine", "%s[%d] = %v, gorgonia %v", c.name, i, o[i], w[i])
			}
		}
	}
}
