package opencl_test

import (
	"bufio"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/internal/opencl/ocltest"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/device/cpu"
	"github.com/llpfc/llpfc/training/device/opcheck"
	devopencl "github.com/llpfc/llpfc/training/device/opencl"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// runTwice compiles outs of g on be and runs the program twice (the first
// run uploads), returning the program and the second run's costs; the
// caller closes the program, before its back end.
func runTwice(t *testing.T, be *devopencl.Backend, g *gorgonia.ExprGraph, outs gorgonia.Nodes, opts device.Options) (device.Program, device.Costs) {
	t.Helper()
	p, err := be.Compile(g, outs, opts)
	require.NoError(t, err)
	require.NoError(t, p.Run())
	before := be.Costs()
	require.NoError(t, p.Run())
	return p, be.Costs().Sub(before)
}

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

// The graph helpers of the op checks (training/device/opcheck), under the
// names these tests use.
var (
	tensorOf    = opcheck.Tensor
	must        = opcheck.Must
	grads       = opcheck.Grads
	closeEnough = func(a, b []float64) (float64, int) { return opcheck.Worst(a, b, 0) }
	randomize   = opcheck.Randomize
)

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

// TestEveryOpKindMatchesTheCPU runs the op checks of `llpfc devices
// --check` (opcheck.Cases: one small graph per operation kind, odd sizes,
// scalars beside tensors, every axis and transpose the graphs use) on the
// CPU and on the device and compares the outputs within opcheck.Tol;
// together the graphs run every kind of training/testdata/ops.golden.
// It runs them on each convolution path (ConvEnv unset: im2col;
// implicit; and the per-pass mixes the kit sweeps, implicit:dw and its
// complement implicit:fwd+dx), each a back end of its own.
func TestEveryOpKindMatchesTheCPU(t *testing.T) {
	for _, conv := range []string{"", "implicit", "implicit:dw", "implicit:fwd+dx"} {
		t.Run("conv="+conv, func(t *testing.T) {
			t.Setenv(devopencl.ConvEnv, conv)
			everyOpKindMatchesTheCPU(t)
		})
	}
}

func everyOpKindMatchesTheCPU(t *testing.T) {
	be := openBackend(t)
	var results []opcheck.Result
	for _, c := range opcheck.Cases() {
		r := opcheck.Run(be, c)
		results = append(results, r)
		assert.True(t, r.OK(), "%v", r)
	}
	kinds, ok := opcheck.Kinds(results)
	ran := map[string]bool{}
	for _, k := range kinds {
		ran[k] = true
	}
	var missing []string
	for _, k := range goldenKinds(t) {
		if !ran[k] {
			missing = append(missing, k)
		}
		assert.True(t, devopencl.Runs(k), "the back end does not run %s", k)
		assert.True(t, !ran[k] || ok[k], "kind %s: a case running it failed", k)
	}
	sort.Strings(missing)
	assert.Empty(t, missing, "operation kinds of ops.golden no graph of this test runs")
}

// TestOpCheckCatchesAWrongOp: the op check fails a back end whose result
// is off by 1e-4 in one entry (a CPU back end whose program perturbs one
// output), and reports a graph that cannot be built as the case's error;
// an Exact case fails on a difference within Tol.
func TestOpCheckCatchesAWrongOp(t *testing.T) {
	c := opcheck.Cases()[0]
	r := opcheck.Run(perturbed{cpu.New()}, c)
	assert.False(t, r.OK(), "a perturbed entry passed: %v", r)
	assert.InDelta(t, 1e-4, r.Worst, 5e-5, "%v", r)
	bad := opcheck.Case{Name: "bad", Build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options, opcheck.After) {
		a := tensorOf(g, r, "a", 0, 1, 2, 3)
		return gorgonia.Nodes{must(gorgonia.Mul(a, a))}, device.Options{}, nil // 2×3 × 2×3: no product
	}}
	r = opcheck.Run(cpu.New(), bad)
	assert.False(t, r.OK())
	assert.ErrorContains(t, r.Err, "building the graph")
	// An exact case (the augmentation's copy) fails on any difference,
	// one within Tol included; equal outputs pass.
	assert.True(t, opcheck.Result{Worst: 1e-7}.OK())
	assert.False(t, opcheck.Result{Worst: 1e-7, Exact: true}.OK(), "an exact case passed with a difference")
	assert.True(t, opcheck.Result{Exact: true}.OK())
}

// perturbed is a back end whose programs return their first output with
// its largest entry scaled by 1 + 1e-4.
type perturbed struct{ device.Backend }

func (p perturbed) Compile(g *gorgonia.ExprGraph, outs gorgonia.Nodes, opts device.Options) (device.Program, error) {
	pr, err := p.Backend.Compile(g, outs, opts)
	return perturbedProgram{pr, outs[0]}, err
}

type perturbedProgram struct {
	device.Program
	first *gorgonia.Node
}

func (p perturbedProgram) Value(n *gorgonia.Node) (gorgonia.Value, error) {
	v, err := p.Program.Value(n)
	if err != nil || n != p.first {
		return v, err
	}
	c := v.(tensor.Tensor).Clone().(tensor.Tensor)
	d := c.Data().([]float32)
	big := 0
	for i, x := range d {
		if math.Abs(float64(x)) > math.Abs(float64(d[big])) {
			big = i
		}
	}
	d[big] *= 1 + 1e-4
	return c, nil
}

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

// TestDenseBiasReLUIsOneLaunch: a dense layer's forward pass (x·W, the
// repeated bias added, gorgonia's Rectify) runs as one CLBlast call and
// one kernel (the repeat folded into the addition and the addition into
// the ReLU, fuse.go), and the second layer's bias alone as one kernel;
// the values are the CPU's (the op check's dense case holds the
// gradients too).
func TestDenseBiasReLUIsOneLaunch(t *testing.T) {
	be := openBackend(t)
	g := gorgonia.NewGraph()
	r := rand.New(rand.NewPCG(3, 4))
	x := tensorOf(g, r, "x", -1, 1, 8, 5)
	w1, b1 := tensorOf(g, r, "w1", -1, 1, 5, 7), tensorOf(g, r, "b1", -1, 1, 1, 7)
	w2, b2 := tensorOf(g, r, "w2", -1, 1, 7, 3), tensorOf(g, r, "b2", -1, 1, 1, 3)
	h := must(gorgonia.Rectify(must(gorgonia.BroadcastAdd(must(gorgonia.Mul(x, w1)), b1, nil, []byte{0}))))
	z := must(gorgonia.BroadcastAdd(must(gorgonia.Mul(h, w2)), b2, nil, []byte{0}))
	p, c := runTwice(t, be, g, gorgonia.Nodes{z}, device.Options{Name: "dense", Params: gorgonia.Nodes{w1, b1, w2, b2}, Inputs: gorgonia.Nodes{x}})
	defer p.Close()
	assert.Equal(t, int64(2), c.BLASCalls)
	assert.Equal(t, int64(2), c.Kernels, "the two layers' bias, ReLU and bias: two kernels")
	got, err := p.Value(z)
	require.NoError(t, err)
	cp, err := cpu.New().Compile(g, gorgonia.Nodes{z}, device.Options{Name: "dense"})
	require.NoError(t, err)
	require.NoError(t, cp.Run())
	want, err := cp.Value(z)
	require.NoError(t, err)
	w, at := closeEnough(nn.ValueData(got), nn.ValueData(want))
	assert.LessOrEqual(t, w, opcheck.Tol, "entry %d", at)
}
