package opencl_test

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/internal/opencl/ocltest"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/device/cpu"
	devopencl "github.com/llpfc/llpfc/training/device/opencl"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// opTol is the tolerance of the per-kind checks: an output entry may
// differ from the CPU's by opTol times the larger of its magnitude and its
// tensor's RMS (float32 kernels that sum in another order, transcendental
// functions within a few ulps).
const opTol = 1e-5

// openBackend opens the test device (skipping locally, failing in CI when
// there is none).
func openBackend(t *testing.T) *devopencl.Backend {
	t.Helper()
	ocltest.Require(t)
	be, err := devopencl.Open(ocltest.Device())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, be.Close()) })
	return be
}

// graphCase builds a small graph: the nodes to compare (outputs) and the
// program's options. It is called once per back end, with the same
// random numbers.
type graphCase struct {
	name  string
	build func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options)
	// after, if set, runs after each back end's program (host-side
	// updates such as the batch-norm running averages) and returns more
	// values to compare.
	after func() [][]float64
}

// tensorOf returns a float32 node of shape with entries U(lo, hi).
func tensorOf(g *gorgonia.ExprGraph, r *rand.Rand, name string, lo, hi float64, shape ...int) *gorgonia.Node {
	n := 1
	for _, s := range shape {
		n *= s
	}
	d := make([]float32, n)
	for i := range d {
		d[i] = float32(lo + (hi-lo)*r.Float64())
	}
	t := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(d))
	return gorgonia.NewTensor(g, tensor.Float32, len(shape), gorgonia.WithShape(shape...), gorgonia.WithName(name), gorgonia.WithValue(t))
}

func must(n *gorgonia.Node, err error) *gorgonia.Node {
	if err != nil {
		panic(err)
	}
	return n
}

func grads(cost *gorgonia.Node, wrt ...*gorgonia.Node) gorgonia.Nodes {
	gs, err := gorgonia.Grad(cost, wrt...)
	if err != nil {
		panic(err)
	}
	return gs
}

// weightedSum returns Σ x ⊙ w for a fixed random w: a scalar cost whose
// gradient with respect to x is w.
func weightedSum(g *gorgonia.ExprGraph, r *rand.Rand, x *gorgonia.Node) *gorgonia.Node {
	w := tensorOf(g, r, "w-"+x.Name(), -1, 1, x.Shape()...)
	return must(gorgonia.Sum(must(gorgonia.HadamardProd(x, w))))
}

// runCase runs c on be and returns every output's values, then after's.
// On the CPU each output is computed by a program of its own: the tape
// machine may overwrite a value a later operation consumes, so only a
// program's final values are the CPU's reference.
func runCase(t *testing.T, be device.Backend, c graphCase) ([][]float64, []string) {
	t.Helper()
	g := gorgonia.NewGraph()
	outs, opts := c.build(g, rand.New(rand.NewPCG(17, uint64(len(c.name)))))
	opts.Name = c.name
	var reads, vals gorgonia.Nodes
	for _, n := range outs {
		if device.OpKind(n.Op()) == "gorgonia.readOp(print)" {
			reads = append(reads, n) // a statement: its value goes to the host (after)
		} else {
			vals = append(vals, n)
		}
	}
	progs := [][]*gorgonia.Node{outs}
	if _, isCPU := be.(*cpu.Backend); isCPU {
		progs = nil
		for _, n := range vals {
			progs = append(progs, append(gorgonia.Nodes{n}, reads...))
		}
	}
	var out [][]float64
	var ops []string
	for _, pn := range progs {
		p, err := be.Compile(g, pn, opts)
		require.NoError(t, err, c.name)
		require.NoError(t, p.Run(), c.name)
		for _, n := range pn {
			if device.OpKind(n.Op()) == "gorgonia.readOp(print)" || (len(progs) > 1 && n != pn[0]) {
				continue
			}
			v, err := p.Value(n)
			require.NoError(t, err, "%s: %s", c.name, n.Name())
			out = append(out, nn.ValueData(v))
		}
		ops = append(ops, p.Ops()...)
		require.NoError(t, p.Close())
	}
	if c.after != nil {
		out = append(out, c.after()...)
	}
	return out, ops
}

// closeEnough reports the worst |a−b|/max(|b|, rms(b)) over the entries.
func closeEnough(a, b []float64) (float64, int) {
	var ss float64
	for _, v := range b {
		ss += v * v
	}
	scale := math.Sqrt(ss / float64(max(len(b), 1)))
	worst, at := 0.0, 0
	for i := range b {
		d := math.Abs(a[i] - b[i])
		if d == 0 {
			continue
		}
		s := math.Max(math.Abs(b[i]), scale)
		r := d / s
		if s == 0 || math.IsNaN(d) {
			r = math.Inf(1)
		}
		if r > worst {
			worst, at = r, i
		}
	}
	return worst, at
}

// checkCases runs every case on the CPU and the device, compares the
// outputs and returns the operation kinds they ran.
func checkCases(t *testing.T, be device.Backend, cases []graphCase) map[string]bool {
	kinds := map[string]bool{}
	for _, c := range cases {
		want, _ := runCase(t, cpu.New(), c)
		got, ops := runCase(t, be, c)
		for _, k := range ops {
			kinds[k] = true
		}
		require.Len(t, got, len(want), c.name)
		for i := range want {
			if !assert.Len(t, got[i], len(want[i]), "%s: output %d", c.name, i) {
				continue
			}
			w, at := closeEnough(got[i], want[i])
			assert.LessOrEqual(t, w, opTol, "%s: output %d entry %d: %g, CPU %g (relative %.3g)", c.name, i, at, got[i][at], want[i][at], w)
		}
	}
	return kinds
}

// goldenKinds reads the kinds of training/testdata/ops.golden's "all"
// block.
func goldenKinds(t *testing.T) []string {
	f, err := os.Open("../../testdata/ops.golden")
	require.NoError(t, err)
	defer f.Close()
	var kinds []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "all ("):
			in = true
		case in && strings.HasPrefix(line, "  "):
			kinds = append(kinds, strings.TrimSpace(line))
		case in:
			return kinds
		}
	}
	return kinds
}

// TestEveryOpKindMatchesTheCPU runs one small graph per operation kind of
// the op list (odd sizes, scalars beside tensors, every axis and transpose
// the graphs use) on the CPU and on the device and compares the outputs;
// together the graphs run every kind of training/testdata/ops.golden.
func TestEveryOpKindMatchesTheCPU(t *testing.T) {
	be := openBackend(t)
	kinds := checkCases(t, be, opCases())
	var missing []string
	for _, k := range goldenKinds(t) {
		if !kinds[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	assert.Empty(t, missing, "operation kinds of ops.golden no graph of this test runs")
	for _, k := range goldenKinds(t) {
		assert.True(t, devopencl.Runs(k), "the back end does not run %s", k)
	}
}

func opCases() []graphCase {
	var cs []graphCase
	// Element-wise binary ops: equal shapes, a scalar on either side,
	// comparisons with retSame.
	bin := map[string]func(a, b *gorgonia.Node) (*gorgonia.Node, error){
		"add": gorgonia.Add, "sub": gorgonia.Sub, "mul": gorgonia.HadamardProd, "div": gorgonia.HadamardDiv,
		"lt":  func(a, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Lt(a, b, true) },
		"gt":  func(a, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Gt(a, b, true) },
		"lte": func(a, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Lte(a, b, true) },
		"gte": func(a, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Gte(a, b, true) },
		"eq":  func(a, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Eq(a, b, true) },
		"ne":  func(a, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Ne(a, b, true) },
	}
	for name, f := range bin {
		cs = append(cs, graphCase{name: "binary " + name, build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options) {
			a := tensorOf(g, r, "a", -2, 2, 3, 7)
			b := tensorOf(g, r, "b", 0.5, 2, 3, 7)
			d := a.Value().Data().([]float32)
			copy(d[:3], b.Value().Data().([]float32)[:3]) // some ties for the comparisons
			s := gorgonia.NewScalar(g, tensor.Float32, gorgonia.WithName("s"), gorgonia.WithValue(float32(0.75)))
			return gorgonia.Nodes{must(f(a, b)), must(f(a, s)), must(f(s, b)), must(f(s, gorgonia.NewConstant(float32(1.5)))), must(f(a, gorgonia.NewConstant(float32(1))))},
				device.Options{Inputs: gorgonia.Nodes{a, b}}
		}})
	}
	un := map[string]struct {
		f      func(*gorgonia.Node) (*gorgonia.Node, error)
		lo, hi float64
	}{
		"abs": {gorgonia.Abs, -3, 3}, "sign": {gorgonia.Sign, -3, 3}, "exp": {gorgonia.Exp, -5, 5},
		"ln": {gorgonia.Log, 0.01, 9}, "inv": {gorgonia.Inverse, 0.1, 3}, "neg": {gorgonia.Neg, -3, 3},
		"sigmoid": {gorgonia.Sigmoid, -20, 20}, "softplus": {gorgonia.Softplus, -20, 20}, "sqrt": {gorgonia.Sqrt, 0, 9},
		"square": {gorgonia.Square, -3, 3}, "tanh": {gorgonia.Tanh, -4, 4}, "log1p": {gorgonia.Log1p, -0.5, 9},
	}
	for name, u := range un {
		cs = append(cs, graphCase{name: "unary " + name, build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options) {
			x := tensorOf(g, r, "x", u.lo, u.hi, 5, 9)
			if name == "sign" {
				x.Value().Data().([]float32)[4] = 0
			}
			s := gorgonia.NewScalar(g, tensor.Float32, gorgonia.WithName("s"), gorgonia.WithValue(float32(u.lo+0.37*(u.hi-u.lo))))
			return gorgonia.Nodes{must(u.f(x)), must(u.f(s))}, device.Options{Inputs: gorgonia.Nodes{x}}
		}})
	}
	cs = append(cs,
		graphCase{name: "matmul and its gradients", build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options) {
			a := tensorOf(g, r, "a", -1, 1, 5, 7)
			b := tensorOf(g, r, "b", -1, 1, 7, 3)
			v := tensorOf(g, r, "v", -1, 1, 7)
			ab := must(gorgonia.Mul(a, b))
			av := must(gorgonia.Mul(a, v))
			cost := must(gorgonia.Add(weightedSum(g, r, ab), weightedSum(g, r, av)))
			return append(gorgonia.Nodes{ab, av}, grads(cost, a, b)...), device.Options{Params: gorgonia.Nodes{a, b}, Inputs: gorgonia.Nodes{v}}
		}},
		graphCase{name: "sum and max along axes", build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options) {
			// (gorgonia v0.9.18's own Σ[2] of a 4-D tensor whose last axis is
			// longer than 1 is wrong: TestSumAlongAMiddleAxis)
			x := tensorOf(g, r, "x", -1, 1, 3, 5, 7, 2)
			x3 := tensorOf(g, r, "x3", -1, 1, 3, 5, 7)
			m := tensorOf(g, r, "m", -1, 1, 9, 13)
			outs := gorgonia.Nodes{must(gorgonia.Max(m, 1)), must(gorgonia.Sum(m, 0, 1)), must(gorgonia.Sum(m, 1)), must(gorgonia.Sum(x3, 2))}
			for _, a := range []int{0, 1, 3} {
				outs = append(outs, must(gorgonia.Sum(x, a)))
			}
			return outs, device.Options{Inputs: gorgonia.Nodes{x, x3, m}}
		}},
		graphCase{name: "repeat (broadcasts) and their gradients", build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options) {
			x := tensorOf(g, r, "x", -1, 1, 2, 3, 5, 7)
			c := tensorOf(g, r, "c", -1, 1, 1, 3, 1, 1)
			m := tensorOf(g, r, "m", -1, 1, 4, 5)
			row := tensorOf(g, r, "row", -1, 1, 1, 5)
			col := tensorOf(g, r, "col", -1, 1, 4, 1)
			y1 := must(gorgonia.BroadcastAdd(x, c, nil, []byte{0, 2, 3}))
			y2 := must(gorgonia.BroadcastHadamardProd(m, row, nil, []byte{0}))
			y3 := must(gorgonia.BroadcastSub(m, col, nil, []byte{1}))
			cost := must(gorgonia.Add(weightedSum(g, r, y1), must(gorgonia.Add(weightedSum(g, r, y2), weightedSum(g, r, y3)))))
			return append(gorgonia.Nodes{y1, y2, y3}, grads(cost, c, row, col)...), device.Options{Params: gorgonia.Nodes{c, row, col}, Inputs: gorgonia.Nodes{x, m}}
		}},
		graphCase{name: "transpose", build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options) {
			x := tensorOf(g, r, "x", -1, 1, 2, 3, 5, 7)
			m := tensorOf(g, r, "m", -1, 1, 4, 5)
			return gorgonia.Nodes{must(gorgonia.Transpose(m)), must(gorgonia.Transpose(x, 0, 2, 3, 1)), must(gorgonia.Transpose(x, 0, 3, 1, 2))},
				device.Options{Inputs: gorgonia.Nodes{x, m}}
		}},
		graphCase{name: "softmax and its gradient", build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options) {
			z := tensorOf(g, r, "z", -4, 4, 6, 11)
			p := must(gorgonia.SoftMax(z))
			return append(gorgonia.Nodes{p}, grads(weightedSum(g, r, p), z)...), device.Options{Params: gorgonia.Nodes{z}}
		}},
		graphCase{name: "reshape, size, constants, mean", build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options) {
			x := tensorOf(g, r, "x", -1, 1, 3, 4)
			k := gorgonia.NewConstant(tensor.New(tensor.WithShape(4, 3), tensor.WithBacking([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})))
			// (the CPU's tape may overwrite a reshaped input in place: reshape a value)
			y := must(gorgonia.Reshape(must(gorgonia.Square(x)), tensor.Shape{4, 3}))
			z := must(gorgonia.HadamardProd(y, k))
			return gorgonia.Nodes{z, must(gorgonia.Mean(x, 1)), must(gorgonia.SizeOf(1, x))}, device.Options{Inputs: gorgonia.Nodes{x}}
		}},
		graphCase{name: "gorgonia conv (im2col, col2im) and its gradients", build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options) {
			x := tensorOf(g, r, "x", -1, 1, 2, 3, 7, 5)
			w := tensorOf(g, r, "w", -1, 1, 4, 3, 3, 3)
			y := must(gorgonia.Conv2d(x, w, tensor.Shape{3, 3}, []int{1, 1}, []int{2, 1}, []int{1, 1}))
			return append(gorgonia.Nodes{y}, grads(weightedSum(g, r, y), x, w)...), device.Options{Params: gorgonia.Nodes{x, w}}
		}},
		graphCase{name: "gorgonia max pool and its gradient", build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options) {
			x := tensorOf(g, r, "x", -1, 1, 2, 3, 9, 7)
			y := must(gorgonia.MaxPool2D(x, tensor.Shape{3, 3}, []int{1, 1}, []int{2, 2}))
			return append(gorgonia.Nodes{y}, grads(weightedSum(g, r, y), x)...), device.Options{Params: gorgonia.Nodes{x}}
		}},
	)
	for _, clamp := range []bool{false, true} {
		cs = append(cs, graphCase{name: fmt.Sprintf("FC loss (clamp %t) and its gradient", clamp), build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options) {
			z := tensorOf(g, r, "z", -3, 3, 7, 5)
			rows := tensorOf(g, r, "R", 0, 1, 7, 5)
			w := tensorOf(g, r, "wts", 0, 1, 7)
			w.Value().Data().([]float32)[6] = 0 // a padding row
			if clamp {
				rows.Value().Data().([]float32)[0] = 0
			}
			l := must(gorgonia.ApplyOp(nn.FCLossOp{Clamp: clamp}, z, rows, w))
			return append(gorgonia.Nodes{l}, grads(l, z)...), device.Options{Params: gorgonia.Nodes{z}, Inputs: gorgonia.Nodes{rows, w}}
		}})
	}
	for _, bias := range []bool{false, true} {
		cs = append(cs, graphCase{name: fmt.Sprintf("Conv2dIm2col (bias %t) and its gradients", bias), build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options) {
			x := tensorOf(g, r, "x", -1, 1, 3, 2, 7, 5)
			w := tensorOf(g, r, "w", -1, 1, 3, 2, 3, 3)
			params := gorgonia.Nodes{x, w}
			var b *gorgonia.Node
			if bias {
				b = tensorOf(g, r, "b", -1, 1, 1, 3, 1, 1)
				params = append(params, b)
			}
			y := must(nn.Conv2dIm2col(x, w, b, 1, 2))
			return append(gorgonia.Nodes{y}, grads(weightedSum(g, r, y), params...)...), device.Options{Params: params}
		}})
	}
	for _, relu := range []bool{false, true} {
		cs = append(cs, graphCase{name: fmt.Sprintf("MaxPool2 (relu %t) and its gradient", relu), build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options) {
			x := tensorOf(g, r, "x", -1, 1, 2, 3, 7, 5)
			y := must(nn.MaxPool2(x, relu))
			return append(gorgonia.Nodes{y}, grads(weightedSum(g, r, y), x)...), device.Options{Params: gorgonia.Nodes{x}}
		}})
	}
	cs = append(cs, bnCases()...)
	cs = append(cs, graphCase{name: "read", build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options) {
		x := tensorOf(g, r, "x", -1, 1, 3, 4)
		y := must(gorgonia.Square(x))
		var v gorgonia.Value
		rd := gorgonia.Read(y, &v)
		readBack = &v
		return gorgonia.Nodes{y, rd}, device.Options{Inputs: gorgonia.Nodes{x}}
	}, after: func() [][]float64 { return [][]float64{nn.ValueData(*readBack)} }})
	return cs
}

// readBack is the value the "read" case's gorgonia.Read fills.
var readBack *gorgonia.Value

// TestSumAlongAMiddleAxis: the device sums a 3×5×7×2 tensor along axis 2
// as a loop written out by hand does. (gorgonia v0.9.18's CPU sumOp gets
// this one wrong — entry [0,1,0] among others — which is why the op test
// above sums a 3-D tensor along axis 2; no training graph sums a middle
// axis of a 4-D tensor with a last axis longer than 1.)
func TestSumAlongAMiddleAxis(t *testing.T) {
	be := openBackend(t)
	g := gorgonia.NewGraph()
	x := tensorOf(g, rand.New(rand.NewPCG(1, 2)), "x", -1, 1, 3, 5, 7, 2)
	s := must(gorgonia.Sum(x, 2))
	p, err := be.Compile(g, gorgonia.Nodes{s}, device.Options{Name: "sum", Inputs: gorgonia.Nodes{x}})
	require.NoError(t, err)
	defer p.Close()
	require.NoError(t, p.Run())
	v, err := p.Value(s)
	require.NoError(t, err)
	got := nn.ValueData(v)
	d := x.Value().Data().([]float32)
	for a := 0; a < 3; a++ {
		for b := 0; b < 5; b++ {
			for c := 0; c < 2; c++ {
				var want float64
				for k := 0; k < 7; k++ {
					want += float64(d[((a*5+b)*7+k)*2+c])
				}
				assert.InDelta(t, want, got[(a*5+b)*2+c], 1e-5, "[%d,%d,%d]", a, b, c)
			}
		}
	}
}
