package opencl_test

import (
	"errors"
	"fmt"
	"hash"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/chewxy/hm"
	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/internal/opencl/ocltest"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/device/cpu"
	devopencl "github.com/llpfc/llpfc/training/device/opencl"
	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/llpfc/llpfc/training/optim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// gradGraph is a program whose outputs are c·θ (3 values) and c·φ (2
// values) for an input scalar c: the "gradients" of two parameters.
type gradGraph struct {
	prog         device.Program
	params, outs gorgonia.Nodes
	c            *gorgonia.Node
	theta0, phi0 []float32
	backend      device.Backend
}

func newGradGraph(t *testing.T, be device.Backend) *gradGraph {
	g := gorgonia.NewGraph()
	mk := func(name string, v []float32) *gorgonia.Node {
		tt := tensor.New(tensor.WithShape(len(v)), tensor.WithBacking(append([]float32(nil), v...)))
		return gorgonia.NewTensor(g, tensor.Float32, 1, gorgonia.WithShape(len(v)), gorgonia.WithName(name), gorgonia.WithValue(tt))
	}
	gg := &gradGraph{theta0: []float32{0.1, -2, 3.5}, phi0: []float32{7, 1e-3}, backend: be}
	theta, phi := mk("θ", gg.theta0), mk("φ", gg.phi0)
	gg.c = mk("c", []float32{1})
	cs := must(gorgonia.Sum(gg.c))
	g1 := must(gorgonia.Mul(theta, cs))
	g2 := must(gorgonia.Mul(phi, cs))
	var err error
	gg.prog, err = be.Compile(g, gorgonia.Nodes{g1, g2}, device.Options{Name: "grads", Params: gorgonia.Nodes{theta, phi}, Inputs: gorgonia.Nodes{gg.c}})
	require.NoError(t, err)
	gg.params, gg.outs = gorgonia.Nodes{theta, phi}, gorgonia.Nodes{g1, g2}
	return gg
}

func (gg *gradGraph) run(t *testing.T, c float32) {
	gg.c.Value().Data().([]float32)[0] = c
	require.NoError(t, gg.prog.Run())
}

// TestGradsAddReadNonFinite: Add copies, scales and accumulates a
// program's outputs on the device; Reset zeroes; Read returns them;
// NonFinite finds the first NaN or ±Inf (and nothing in finite ones).
func TestGradsAddReadNonFinite(t *testing.T) {
	be := openBackend(t)
	gg := newGradGraph(t, be)
	gr, err := be.NewGrads(gg.params)
	require.NoError(t, err)
	read := func() [][]float64 {
		dst := [][]float64{make([]float64, 3), make([]float64, 2)}
		require.NoError(t, gr.Read(dst))
		return dst
	}
	f := func(x float32) float64 { return float64(x) }
	assert.Equal(t, [][]float64{{0, 0, 0}, {0, 0}}, read(), "new gradients are zero")
	gg.run(t, 2)
	require.NoError(t, gr.Add(gg.prog, gg.outs, 1))
	assert.Equal(t, [][]float64{{f(0.2), -4, 7}, {14, f(2e-3)}}, read(), "one Add copies")
	gg.run(t, -1)
	require.NoError(t, gr.Add(gg.prog, gg.outs, 0.5))
	want := [][]float64{{f(0.2 + 0.5*-0.1), f(-4 + 0.5*2), f(7 + 0.5*-3.5)}, {f(14 + 0.5*-7), f(2e-3 + 0.5*-1e-3)}}
	got := read()
	for i := range want {
		for j := range want[i] {
			assert.InDelta(t, want[i][j], got[i][j], 1e-6*math.Abs(want[i][j]), "accumulated [%d][%d]", i, j)
		}
	}
	_, _, _, bad, err := gr.NonFinite()
	require.NoError(t, err)
	assert.False(t, bad)
	require.NoError(t, gr.Reset())
	assert.Equal(t, [][]float64{{0, 0, 0}, {0, 0}}, read(), "after Reset")
	require.NoError(t, gr.Add(gg.prog, gg.outs, 3))
	assert.Equal(t, [][]float64{{f(3 * float32(-0.1)), 6, f(3 * float32(-3.5))}, {-21, f(3 * float32(-1e-3))}}, read(), "a first Add with scale 3")
	gg.run(t, float32(math.Inf(1)))
	require.NoError(t, gr.Add(gg.prog, gg.outs, 1))
	i, j, v, bad, err := gr.NonFinite()
	require.NoError(t, err)
	require.True(t, bad)
	assert.Equal(t, 0, i)
	assert.Equal(t, 0, j)
	assert.True(t, math.IsInf(v, 1), "got %v", v)
	require.Error(t, gr.Add(gg.prog, gg.outs[:1], 1), "one node for two parameters")
	cpuP := newGradGraph(t, cpu.New())
	cpuP.run(t, 1)
	assert.Error(t, gr.Add(cpuP.prog, cpuP.outs, 1), "a program of another back end")
}

// TestOptimizerMatchesOptim: every optimizer (SGD with and without
// momentum, Nesterov, Adam, AdamW, with weight decay) steps the device's
// parameters as optim.Optimizer steps Go slices, up to float32 rounding of
// the kernels; State and SetState carry the step count and the moments
// between the device and the host, so a CPU checkpoint resumes on the
// device and back.
func TestOptimizerMatchesOptim(t *testing.T) {
	be := openBackend(t)
	for _, cfg := range []optim.Config{
		{Name: "sgd", LR: 0.1},
		{Name: "sgd", LR: 0.1, Momentum: 0.9, WeightDecay: 5e-4},
		{Name: "sgd", LR: 0.1, Momentum: 0.9, Dampening: 0.3},
		{Name: "nesterov", LR: 0.1, Momentum: 0.9, WeightDecay: 1e-3},
		{Name: "adam", LR: 0.01, WeightDecay: 1e-2},
		{Name: "adamw", LR: 0.01, WeightDecay: 1e-2, Beta1: 0.5},
	} {
		gg := newGradGraph(t, be)
		gr, err := be.NewGrads(gg.params)
		require.NoError(t, err)
		opt, err := be.NewOptimizer(cfg, gg.params, gr)
		require.NoError(t, err)
		ref, err := optim.New(cfg, []int{3, 2})
		require.NoError(t, err)
		refP := [][]float32{append([]float32(nil), gg.theta0...), append([]float32(nil), gg.phi0...)}
		for step, c := range []float32{1, -0.5, 2, 0.25} {
			gg.run(t, c)
			require.NoError(t, gr.Reset())
			require.NoError(t, gr.Add(gg.prog, gg.outs, 1))
			g := [][]float32{make([]float32, 3), make([]float32, 2)}
			for i, p := range refP {
				for j, v := range p {
					g[i][j] = v * c
				}
			}
			require.NoError(t, opt.Step(0.05))
			require.NoError(t, ref.Step(refP, g, 0.05))
			require.NoError(t, be.Pull(gg.params...))
			for i, n := range gg.params {
				got := n.Value().Data().([]float32)
				for j := range got {
					assert.InDelta(t, refP[i][j], got[j], 2e-6*math.Max(1, math.Abs(float64(refP[i][j]))), "%s step %d parameter %d[%d]", cfg.Name, step, i, j)
				}
			}
		}
		st, err := opt.State()
		require.NoError(t, err)
		want := *ref.State()
		assert.Equal(t, want.Step, st.Step, cfg.Name)
		for _, p := range [][2][][]float32{{want.Buf, st.Buf}, {want.M, st.M}, {want.V, st.V}} {
			require.Equal(t, len(p[0]), len(p[1]), cfg.Name)
			for i := range p[0] {
				for j := range p[0][i] {
					assert.InDelta(t, p[0][i][j], p[1][i][j], 2e-6*math.Max(1, math.Abs(float64(p[0][i][j]))), cfg.Name)
				}
			}
		}
		// A CPU checkpoint's state (optim's) set on the device, and read back.
		require.NoError(t, opt.SetState(want))
		back, err := opt.State()
		require.NoError(t, err)
		assert.Equal(t, want, back, "%s: SetState then State", cfg.Name)
		bad := want
		bad.Step = -1
		assert.Error(t, opt.SetState(bad), cfg.Name)
		if len(want.M) > 0 {
			bad = want
			bad.M = [][]float32{{1}}
			assert.Error(t, opt.SetState(bad), cfg.Name)
		}
	}
	_, err := be.NewOptimizer(optim.Config{Name: "sgd", LR: 0.1}, nil, otherGrads{})
	assert.Error(t, err, "gradients of another back end")
}

type otherGrads struct{ device.Grads }

// TestPushPullAndValues: parameters live on the device (Push uploads,
// Pull downloads); Value returns outputs and inputs only; Release drops
// the activations and the next Run gives the same values.
func TestPushPullAndValues(t *testing.T) {
	be := openBackend(t)
	gg := newGradGraph(t, be)
	gg.run(t, 2)
	v, err := gg.prog.Value(gg.outs[0])
	require.NoError(t, err)
	assert.Equal(t, []float32{0.2, -4, 7}, v.Data())
	theta := gg.params[0]
	copy(theta.Value().Data().([]float32), []float32{1, 2, 3})
	gg.run(t, 2)
	v, _ = gg.prog.Value(gg.outs[0])
	assert.Equal(t, []float32{0.2, -4, 7}, v.Data(), "the device's copy until Push")
	require.NoError(t, be.Push(theta))
	gg.run(t, 2)
	v, _ = gg.prog.Value(gg.outs[0])
	assert.Equal(t, []float32{2, 4, 6}, v.Data(), "after Push")
	copy(theta.Value().Data().([]float32), []float32{0, 0, 0})
	require.NoError(t, be.Pull(theta))
	assert.Equal(t, []float32{1, 2, 3}, theta.Value().Data(), "Pull")
	in, err := gg.prog.Value(gg.c)
	require.NoError(t, err)
	assert.Equal(t, []float32{2}, in.Data(), "an input's value")
	g := gg.c.Graph()
	_, err = gg.prog.Value(g.AllNodes()[len(g.AllNodes())-1])
	if err == nil {
		_, err = gg.prog.Value(must(gorgonia.Sum(gg.c)))
	}
	assert.Error(t, err, "a node that is no output")
	gg.prog.Release()
	_, err = gg.prog.Value(gg.outs[0])
	assert.Error(t, err, "no value after Release")
	gg.run(t, 2)
	v, _ = gg.prog.Value(gg.outs[1])
	assert.Equal(t, []float32{14, 2e-3}, v.Data(), "a run after Release")
	assert.Error(t, be.Pull(gg.c), "an input is not a parameter")
}

// kindOp is an operation with a Kind no back end knows.
type kindOp struct{}

func (kindOp) Arity() int    { return 1 }
func (kindOp) Type() hm.Type { a := hm.TypeVariable('a'); return hm.NewFnType(a, a) }
func (kindOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	return in[0].(tensor.Shape).Clone(), nil
}
func (kindOp) Do(v ...gorgonia.Value) (gorgonia.Value, error) { return v[0], nil }
func (kindOp) ReturnsPtr() bool                               { return false }
func (kindOp) CallsExtern() bool                              { return false }
func (kindOp) OverwritesInput() int                           { return -1 }
func (kindOp) WriteHash(h hash.Hash)                          { h.Write([]byte("kindOp")) }
func (kindOp) Hashcode() uint32                               { return 7 }
func (kindOp) String() string                                 { return "kindOp" }
func (kindOp) Kind() string                                   { return "test.Unknown" }

// TestMissingOpAtCompile: an operation kind the back end does not run is a
// *device.MissingOpError at Compile (back end, program, kind, node), with
// nothing allocated on the device.
func TestMissingOpAtCompile(t *testing.T) {
	be := openBackend(t)
	g := gorgonia.NewGraph()
	x := tensorOf(g, rand.New(rand.NewPCG(1, 1)), "x", -1, 1, 4, 3)
	y := must(gorgonia.ApplyOp(kindOp{}, must(gorgonia.Square(x))))
	before := be.Context().BytesAllocated()
	objects := opencl.LiveObjects()
	_, err := be.Compile(g, gorgonia.Nodes{must(gorgonia.Sum(y))}, device.Options{Name: "test program", Inputs: gorgonia.Nodes{x}})
	var missing *device.MissingOpError
	require.True(t, errors.As(err, &missing), "got %v", err)
	assert.Equal(t, "opencl", missing.Backend)
	assert.Equal(t, "test program", missing.Program)
	assert.Equal(t, "test.Unknown", missing.Op)
	assert.Equal(t, y.Name(), missing.Node)
	assert.Equal(t, before, be.Context().BytesAllocated(), "nothing allocated")
	assert.Equal(t, objects, opencl.LiveObjects(), "no OpenCL object created")
	// gorgonia's log-softmax is not among the kinds the graphs use: refused by name
	_, err = be.Compile(g, gorgonia.Nodes{must(gorgonia.LogSoftMax(x))}, device.Options{Name: "lsm", Inputs: gorgonia.Nodes{x}})
	require.True(t, errors.As(err, &missing), "got %v", err)
	assert.True(t, strings.HasPrefix(missing.Op, "gorgonia.softmaxOp"), missing.Op)
}

// TestNoLeaks: compiling, running and closing the programs of a real
// model many times, and opening and closing back ends, leaves no OpenCL
// object and no device memory behind (internal/opencl.LiveObjects, the
// context's allocated bytes).
func TestNoLeaks(t *testing.T) {
	ocltest.Require(t)
	start := opencl.LiveObjects()
	for cycle := 0; cycle < 3; cycle++ {
		be := openBackend2(t)
		base := be.Context().BytesAllocated()
		spec := nn.ModelSpec{Name: "cnn-bn", Channels: 1, Height: 8, Width: 8, NumClasses: 4, Dtype: tensor.Float32}
		for i := 0; i < 4; i++ {
			g := gorgonia.NewGraph()
			m, err := models.NewModel(g, spec, rng.New(1, "init"))
			require.NoError(t, err)
			x, _ := nn.NewInputNode(g, tensor.Float32, "x", spec.InputShape(3))
			r, rt := nn.NewInputNode(g, tensor.Float32, "r", tensor.Shape{3, 4})
			w, wt := nn.NewInputNode(g, tensor.Float32, "w", tensor.Shape{3})
			copy(rt.Data().([]float32), []float32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0})
			copy(wt.Data().([]float32), []float32{1, 1, 1})
			z, err := m.Forward(x, true)
			require.NoError(t, err)
			l, err := loss.FCLoss(z, r, w)
			require.NoError(t, err)
			gs, err := gorgonia.Grad(l, m.Learnables()...)
			require.NoError(t, err)
			p, err := be.Compile(g, append(gorgonia.Nodes{l}, gs...), device.Options{Name: "step", Params: m.Learnables(), Inputs: gorgonia.Nodes{x, r, w}})
			require.NoError(t, err)
			require.NoError(t, p.Run())
			p.Release()
			require.NoError(t, p.Run())
			require.NoError(t, p.Close())
			require.NoError(t, p.Close(), "closing twice")
			assert.Error(t, p.Run(), "a closed program")
		}
		params := be.Context().BytesAllocated() - base
		assert.Less(t, params, int64(1<<20), "only the parameters stay (%d bytes)", params)
		require.NoError(t, be.Close())
		require.NoError(t, be.Close(), "closing twice")
		_, err := be.Compile(gorgonia.NewGraph(), nil, device.Options{})
		assert.Error(t, err, "a closed back end")
	}
	assert.Equal(t, start, opencl.LiveObjects(), "OpenCL objects left after closing every back end")
}

// openBackend2 opens a back end the caller closes.
func openBackend2(t *testing.T) *devopencl.Backend {
	be, err := devopencl.Open(ocltest.Device())
	require.NoError(t, err)
	return be
}

// TestOpenErrors: a device that does not exist is an error listing what
// exists; the registry opens "opencl" and "opencl:P:D".
func TestOpenErrors(t *testing.T) {
	ocltest.Require(t)
	_, err := device.Open("opencl:9:0")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no platform 9")
	_, err = device.Open("opencl:x")
	assert.Error(t, err)
	be, err := device.Open("opencl:0:0")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(be.Name(), "opencl:0:0 ("), be.Name())
	require.NoError(t, be.Close())
}

// TestOpenWithoutTheLibraries runs this test binary again with the OpenCL
// loader, then CLBlast, pointed at files that do not exist: opening the
// back end fails naming the file and the Debian package (no OpenCL needed);
// and the CUDA driver for device cuda, naming the file, what installs it
// and the variable.
func TestOpenWithoutTheLibraries(t *testing.T) {
	if dev := os.Getenv("LLPFC_TEST_OPEN_MISSING"); dev != "" {
		_, err := device.Open(dev)
		fmt.Println("OPEN:", err)
		return
	}
	for _, c := range []struct {
		env, file, pkg string
	}{
		{"LLPFC_OPENCL_LIB", "/nonexistent/libOpenCL.so.1", "ocl-icd-libopencl1"},
		{"LLPFC_CLBLAST_LIB", "/nonexistent/libclblast.so.1", "libclblast1"},
		{"LLPFC_CUDA_LIB", "/nonexistent/libcuda.so.1", "NVIDIA driver"},
	} {
		if c.env == "LLPFC_CLBLAST_LIB" && ocltest.Unavailable() != nil {
			continue // the loader itself is missing: the first case covers it
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestOpenWithoutTheLibraries$", "-test.v")
		dev := "opencl"
		if c.env == "LLPFC_CUDA_LIB" {
			dev = "cuda"
		}
		cmd.Env = append(os.Environ(), "LLPFC_TEST_OPEN_MISSING="+dev, c.env+"="+c.file)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		s := string(out)
		for _, want := range []string{"OPEN: device " + dev + ": cannot load " + c.file, c.pkg, c.env} {
			assert.Contains(t, s, want)
		}
	}
}
