package cpu

import (
	"errors"
	"math"
	"math/rand"
	"runtime"
	"testing"

	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/optim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// gradProgram is a program whose two outputs are c·θ (float32, 3 values)
// and c·φ (2 values) for scalar inputs set by the caller: the "gradients"
// of two parameters.
func gradProgram(t *testing.T, dt tensor.Dtype) (device.Program, gorgonia.Nodes, gorgonia.Nodes, func(c float64)) {
	g := gorgonia.NewGraph()
	mk := func(name string, v []float64) *gorgonia.Node {
		var back any = v
		if dt == tensor.Float32 {
			f := make([]float32, len(v))
			for i, x := range v {
				f[i] = float32(x)
			}
			back = f
		}
		t := tensor.New(tensor.WithShape(len(v)), tensor.WithBacking(back))
		return gorgonia.NewTensor(g, dt, 1, gorgonia.WithShape(len(v)), gorgonia.WithName(name), gorgonia.WithValue(t))
	}
	theta, phi := mk("θ", []float64{0.1, -2, 3.5}), mk("φ", []float64{7, 1e-3})
	c := mk("c", []float64{1})
	cs, err := gorgonia.Sum(c)
	require.NoError(t, err)
	g1, err := gorgonia.Mul(theta, cs)
	require.NoError(t, err)
	g2, err := gorgonia.Mul(phi, cs)
	require.NoError(t, err)
	p, err := New().Compile(g, gorgonia.Nodes{g1, g2}, device.Options{Name: "test", Inputs: gorgonia.Nodes{c}})
	require.NoError(t, err)
	set := func(v float64) {
		switch d := c.Value().Data().(type) {
		case []float32:
			d[0] = float32(v)
		case []float64:
			d[0] = v
		}
	}
	return p, gorgonia.Nodes{theta, phi}, gorgonia.Nodes{g1, g2}, set
}

// TestGradsAddAndRead: the first Add of a minibatch with scale 1 stores the
// values bit for bit; later Adds accumulate scale·value in float64 (KL's
// chunks, LLP-VAT's weighted consistency term); Reset zeroes; Read returns
// the sums. The oracle is the sum written out by hand.
func TestGradsAddAndRead(t *testing.T) {
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		p, params, outs, set := gradProgram(t, dt)
		gr, err := New().NewGrads(params)
		require.NoError(t, err)
		read := func() [][]float64 {
			dst := [][]float64{make([]float64, 3), make([]float64, 2)}
			require.NoError(t, gr.Read(dst))
			return dst
		}
		val := func(x float64) float64 { // the value as the graph's type holds it
			if dt == tensor.Float32 {
				return float64(float32(x))
			}
			return x
		}
		set(2)
		require.NoError(t, p.Run())
		require.NoError(t, gr.Reset())
		require.NoError(t, gr.Add(p, outs, 1))
		assert.Equal(t, [][]float64{{val(0.2), -4, 7}, {14, val(2e-3)}}, read(), "%v: one Add", dt)
		set(-1)
		require.NoError(t, p.Run())
		require.NoError(t, gr.Add(p, outs, 0.5))
		want := [][]float64{{val(0.2) + 0.5*val(-0.1), -4 + 0.5*2, 7 + 0.5*val(-3.5)}, {14 + 0.5*-7, val(2e-3) + 0.5*val(-1e-3)}}
		assert.Equal(t, want, read(), "%v: accumulated in float64", dt)
		require.NoError(t, gr.Reset())
		assert.Equal(t, [][]float64{{0, 0, 0}, {0, 0}}, read(), "%v: after Reset", dt)
		require.NoError(t, gr.Add(p, outs, 3))
		assert.Equal(t, [][]float64{{-3 * val(0.1), 6, -3 * 3.5}, {-21, -3 * val(1e-3)}}, read(), "%v: a first Add with scale 3", dt)
		require.Error(t, gr.Add(p, outs[:1], 1), "one node for two parameters")
	}
}

// TestGradsTakeOverOutputs (cpu.BorrowGradients): gradients read
// in an activation plan's output memory stay the first run's values when
// the program releases its memory, when it runs again on other inputs, and
// when a second Grads borrowed the same outputs and reset; the plan writes
// its next outputs elsewhere. The oracle is the values written out by hand
// (c·θ, c·φ).
func TestGradsTakeOverOutputs(t *testing.T) {
	defer func(b bool) { BorrowGradients = b }(BorrowGradients)
	BorrowGradients = true
	p, params, outs, set := gradProgram(t, tensor.Float32)
	if _, ok := p.(*plan); !ok {
		t.Skip("the tape machine (ActivationPlan off) has no outputs to lend")
	}
	first := [][]float64{{float64(float32(0.1) * 2), -4, 7}, {14, float64(float32(1e-3) * 2)}}
	read := func(gr device.Grads) [][]float64 {
		dst := [][]float64{make([]float64, 3), make([]float64, 2)}
		require.NoError(t, gr.Read(dst))
		return dst
	}
	be := New()
	a, err := be.NewGrads(params)
	require.NoError(t, err)
	b, err := be.NewGrads(params)
	require.NoError(t, err)
	set(2)
	require.NoError(t, p.Run())
	require.NoError(t, a.Add(p, outs, 1))
	assert.Same(t, &outs[0].Value().Data().([]float32)[0], &a.(*grads).g32[0][0], "the gradient is read in the program's output memory")
	p.Release()
	assert.Equal(t, first, read(a), "after the program released its memory")
	set(-1)
	require.NoError(t, p.Run())
	assert.Equal(t, first, read(a), "after the program ran again")
	require.NoError(t, a.Reset())
	require.NoError(t, a.Add(p, outs, 1))
	require.NoError(t, b.Add(p, outs, 1))
	second := [][]float64{{float64(float32(0.1) * -1), 2, -3.5}, {-7, float64(float32(1e-3) * -1)}}
	require.NoError(t, b.Reset())
	set(3)
	require.NoError(t, p.Run())
	assert.Equal(t, second, read(a), "a Grads that lent its outputs to another one, which reset, and a run after")
}

// TestGradsNonFinite finds the first NaN or ±Inf, in the float32 gradients
// the optimizer reads, also when it arose in float64 accumulation.
func TestGradsNonFinite(t *testing.T) {
	p, params, outs, set := gradProgram(t, tensor.Float32)
	gr, err := New().NewGrads(params)
	require.NoError(t, err)
	set(1)
	require.NoError(t, p.Run())
	require.NoError(t, gr.Add(p, outs, 1))
	_, _, _, bad, err := gr.NonFinite()
	require.NoError(t, err)
	assert.False(t, bad)
	require.NoError(t, gr.Add(p, outs, -math.MaxFloat32)) // finite in float64, −Inf once rounded to float32
	i, j, v, bad, err := gr.NonFinite()
	require.NoError(t, err)
	require.True(t, bad)
	// θ − maxFloat32·θ: θ[0] = 0.1 gives −3.4e37 (finite), θ[1] = −2 gives
	// 6.8e38, which rounds to +Inf in float32.
	assert.Equal(t, 0, i)
	assert.Equal(t, 1, j)
	assert.True(t, math.IsInf(v, 1), "got %v", v)
}

// TestOptimizerIsOptimStep: the CPU optimizer applies optim.Optimizer's
// update to the parameters' own Go values with the gradients' float32
// rounding — the same numbers as calling optim directly.
func TestOptimizerIsOptimStep(t *testing.T) {
	p, params, outs, set := gradProgram(t, tensor.Float32)
	be := New()
	gr, err := be.NewGrads(params)
	require.NoError(t, err)
	cfg := optim.Config{Name: "adam", LR: 0.01}
	opt, err := be.NewOptimizer(cfg, params, gr)
	require.NoError(t, err)
	ref, err := optim.New(cfg, []int{3, 2})
	require.NoError(t, err)
	refP := [][]float32{{0.1, -2, 3.5}, {7, 1e-3}}
	for step, c := range []float64{1, -0.5, 2} {
		set(c)
		require.NoError(t, p.Run())
		require.NoError(t, gr.Reset())
		require.NoError(t, gr.Add(p, outs, 1))
		require.NoError(t, gr.Add(p, outs, 0.25)) // float64 accumulation, rounded once
		g := [][]float32{make([]float32, 3), make([]float32, 2)}
		for i, o := range outs {
			for j, v := range o.Value().Data().([]float32) {
				g[i][j] = float32(float64(v) + 0.25*float64(v))
			}
		}
		require.NoError(t, opt.Step(0.01))
		require.NoError(t, ref.Step(refP, g, 0.01))
		for i, n := range params {
			assert.Equal(t, refP[i], n.Value().Data().([]float32), "step %d, parameter %d", step, i)
		}
	}
	st, err := opt.State()
	require.NoError(t, err)
	assert.Equal(t, *ref.State(), st)
	_, err = be.NewOptimizer(cfg, params, otherGrads{})
	assert.Error(t, err, "gradients of another back end")
}

type otherGrads struct{ device.Grads }

// TestOpenNamesTheBackEnds: "" and "cpu" open the CPU; "cpu:0" is refused
// naming what follows; an unknown name lists the known ones.
func TestOpenNamesTheBackEnds(t *testing.T) {
	for _, s := range []string{"", "cpu"} {
		be, err := device.Open(s)
		require.NoError(t, err, "%q", s)
		assert.Equal(t, "cpu", be.Name())
	}
	_, err := device.Open("cpu:0")
	assert.ErrorContains(t, err, `"0"`)
	_, err = device.Open("tpu")
	assert.True(t, errors.Is(err, device.ErrUnknown), "got %v", err)
	assert.ErrorContains(t, err, "cpu")
	assert.NoError(t, device.ParseName("cpu"))
	assert.Error(t, device.ParseName("tpu:1"))
}

// TestFirstNonFiniteOnEveryCore: over generated gradients of a model's
// sizes (some large enough to be split among the threads), firstNonFinite
// finds the first NaN or ±Inf in order, or none, as one loop over the
// values does, at 1 to 8 threads.
func TestFirstNonFiniteOnEveryCore(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	r := rand.New(rand.NewSource(58))
	bads := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7f800001), math.Float32frombits(0xffc00000)} // a signalling NaN, a NaN with the sign bit
	for c := range 60 {
		gs := make([][]float32, 1+r.Intn(5))
		for i := range gs {
			gs[i] = make([]float32, []int{r.Intn(10), 1 << 16, 100000 + r.Intn(1000)}[r.Intn(3)])
			for j := range gs[i] {
				gs[i][j] = float32(r.NormFloat64() * 1e30)
				if r.Intn(100) == 0 { // the largest finite magnitude, one below +Inf's bits
					gs[i][j] = float32(math.Copysign(math.MaxFloat32, r.NormFloat64()))
				}
			}
		}
		for range r.Intn(4) { // none to three bad values anywhere
			i := r.Intn(len(gs))
			if len(gs[i]) > 0 {
				gs[i][r.Intn(len(gs[i]))] = bads[r.Intn(len(bads))]
			}
		}
		wi, wj, wbad := 0, 0, false
	scan:
		for i, g := range gs {
			for j, v := range g {
				if v != v || math.IsInf(float64(v), 0) {
					wi, wj, wbad = i, j, true
					break scan
				}
			}
		}
		for _, procs := range []int{1, 3, 8} {
			runtime.GOMAXPROCS(procs)
			i, j, bad := firstNonFinite(gs)
			assert.Equal(t, []any{wi, wj, wbad}, []any{i, j, bad}, "case %d at %d threads", c, procs)
		}
	}
}

// firstNonFiniteRef is the plain loop firstNonFinite must agree with.
func firstNonFiniteRef(gs [][]float32) (int, int, bool) {
	for i, g := range gs {
		for j, v := range g {
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

// TestFirstNonFiniteEveryPosition: across several arrays of lengths around
// the vector check's block of 64 values (and an empty one), each kind of
// NaN and ±Inf put at every (array, index) among finite neighbours at the
// edges (±MaxFloat32, subnormals, ±0), with a second non-finite value after
// it or none, is found there, as the plain loop finds it; and none is found
// in the arrays without one.
func TestFirstNonFiniteEveryPosition(t *testing.T) {
	edges := []uint32{0x7f7fffff, 0xff7fffff, 0x00000001, 0x807fffff, 0, 0x80000000, 0x3f800000}
	kinds := []uint32{0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffc00000, 0xff800001, 0x7fffffff, 0x7fa5a5a5}
	lens := []int{3, 0, 63, 64, 65, 130, 1}
	gs := make([][]float32, len(lens))
	k := 0
	for i, n := range lens {
		gs[i] = make([]float32, n)
		for j := range gs[i] {
			gs[i][j] = math.Float32frombits(edges[k%len(edges)])
			k++
		}
	}
	i, j, bad := firstNonFinite(gs)
	require.Equal(t, []any{0, 0, false}, []any{i, j, bad}, "all finite")
	r := rand.New(rand.NewSource(59))
	for wi, g := range gs {
		for wj := range g {
			for _, kind := range kinds {
				old := g[wj]
				g[wj] = math.Float32frombits(kind)
				// A second one later, in the same array or another (or none).
				li, lj := -1, -1
				if r.Intn(3) > 0 {
					li = wi + r.Intn(len(gs)-wi)
					if li == wi && wj+1 < len(g) {
						lj = wj + 1 + r.Intn(len(g)-wj-1)
					} else if li > wi && len(gs[li]) > 0 {
						lj = r.Intn(len(gs[li]))
					}
				}
				var later float32
				if lj >= 0 {
					later, gs[li][lj] = gs[li][lj], math.Float32frombits(kinds[r.Intn(len(kinds))])
				}
				ri, rj, rbad := firstNonFiniteRef(gs)
				require.Equal(t, []any{wi, wj, true}, []any{ri, rj, rbad}, "the plain loop")
				i, j, bad := firstNonFinite(gs)
				require.Equal(t, []any{ri, rj, rbad}, []any{i, j, bad}, "%#08x at (%d, %d), another at (%d, %d)", kind, wi, wj, li, lj)
				if lj >= 0 {
					gs[li][lj] = later
				}
				g[wj] = old
			}
		}
	}
}
