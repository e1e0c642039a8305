package nn

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/device/cpu"
	"github.com/llpfc/llpfc/training/internal/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// convCase is one convolution geometry of the Conv2dIm2col tests.
type convCase struct{ n, c, h, w, o, k, pad, stride int }

var convCases = []convCase{
	{1, 1, 5, 5, 2, 3, 1, 1},
	{3, 2, 6, 5, 3, 3, 0, 1},
	{2, 3, 7, 7, 2, 3, 1, 2},
	{10, 2, 4, 4, 3, 1, 0, 1}, // more images than chunks
	{2, 1, 6, 6, 2, 5, 2, 1},
	{9, 3, 5, 4, 4, 3, 1, 1},
	{37, 2, 6, 5, 3, 3, 1, 2}, // chunks of 4–5 images, stride 2
	{4, 3, 8, 8, 5, 1, 0, 2},  // 1×1 with stride 2 (WRN's shortcuts)
	{2, 2, 9, 7, 3, 5, 2, 2},  // 5×5, padding 2, stride 2: runs cut on both sides
	{2, 2, 6, 6, 3, 3, 2, 3},  // padding wider than the kernel's reach, stride 3
}

// convGraph builds y = conv(x, W) + b with both implementations in one
// float64 graph and a loss Σ y⊙R for a random R, so that the gradient
// reaching the op is a random tensor.
func convGraph(t *testing.T, c convCase, ours bool, seed int64) (*gorgonia.ExprGraph, *gorgonia.Node, *gorgonia.Node, gorgonia.Nodes) {
	t.Helper()
	r := rng.New(seed, "conv-test")
	g := gorgonia.NewGraph()
	x := testutil.ConstInput(g, "x", tensor.Shape{c.n, c.c, c.h, c.w}, testutil.RandSlice(r, c.n*c.c*c.h*c.w, -1, 1))
	w := testutil.ConstInput(g, "W", tensor.Shape{c.o, c.c, c.k, c.k}, testutil.RandSlice(r, c.o*c.c*c.k*c.k, -1, 1))
	b := testutil.ConstInput(g, "b", tensor.Shape{1, c.o, 1, 1}, testutil.RandSlice(r, c.o, -1, 1))
	var y *gorgonia.Node
	var err error
	if ours {
		y, err = Conv2dIm2col(x, w, b, c.pad, c.stride)
	} else {
		if y, err = gorgonia.Conv2d(x, w, tensor.Shape{c.k, c.k}, []int{c.pad, c.pad}, []int{c.stride, c.stride}, []int{1, 1}); err == nil {
			y, err = gorgonia.BroadcastAdd(y, b, nil, []byte{0, 2, 3})
		}
	}
	require.NoError(t, err)
	ho, wo := (c.h+2*c.pad-c.k)/c.stride+1, (c.w+2*c.pad-c.k)/c.stride+1
	rr := testutil.ConstInput(g, "R", tensor.Shape{c.n, c.o, ho, wo}, testutil.RandSlice(r, c.n*c.o*ho*wo, -1, 1))
	prod, err := gorgonia.HadamardProd(y, rr)
	require.NoError(t, err)
	loss, err := gorgonia.Sum(prod)
	require.NoError(t, err)
	return g, y, loss, gorgonia.Nodes{x, w, b}
}

// TestConv2dIm2colMatchesGorgonia checks the output and the three gradients
// of Conv2dIm2col against gorgonia.Conv2d + BroadcastAdd (an independent
// implementation) on random float64 inputs, for paddings, strides, kernel
// sizes and batch sizes below and above the chunk count.
func TestConv2dIm2colMatchesGorgonia(t *testing.T) {
	for i, c := range convCases {
		t.Run(fmt.Sprintf("%+v", c), func(t *testing.T) {
			var outs [2][]float64
			var grads [2][][]float64
			for k, ours := range []bool{true, false} {
				g, y, loss, params := convGraph(t, c, ours, int64(i))
				gs, err := gorgonia.Grad(loss, params...)
				require.NoError(t, err)
				vm := gorgonia.NewTapeMachine(g)
				require.NoError(t, vm.RunAll())
				outs[k] = append([]float64(nil), y.Value().Data().([]float64)...)
				for _, gn := range gs {
					grads[k] = append(grads[k], append([]float64(nil), gn.Value().Data().([]float64)...))
				}
				vm.Close()
			}
			d := testutil.MaxAbsDiff(outs[0], outs[1])
			assert.LessOrEqual(t, d, 1e-12, "output differs from gorgonia.Conv2d by %g", d)
			for p, name := range []string{"x", "W", "b"} {
				d := testutil.MaxAbsDiff(grads[0][p], grads[1][p])
				assert.LessOrEqual(t, d, 1e-12, "∂/∂%s differs from gorgonia's by %g", name, d)
			}
		})
	}
}

// TestConv2dIm2colGradFD checks the gradients with respect to the input,
// the filter and the bias against central finite differences of the loss.
func TestConv2dIm2colGradFD(t *testing.T) {
	for i, c := range convCases[:3] {
		t.Run(fmt.Sprintf("%+v", c), func(t *testing.T) {
			g, _, loss, params := convGraph(t, c, true, int64(100+i))
			testutil.CheckGradFD(t, g, loss, params, 1e-6, 1e-7)
		})
	}
}

// TestConv2dIm2colDeterministic checks that the result does not depend on
// the number of goroutines (the chunk partition is fixed) and that a kept
// program (a CPU program rewinds its tape between runs, buffers reused)
// repeats the first run exactly.
func TestConv2dIm2colDeterministic(t *testing.T) {
	c := convCase{13, 3, 8, 8, 4, 3, 1, 1}
	run := func(procs, times int) [][]float64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		g, y, loss, params := convGraph(t, c, true, 7)
		gs, err := gorgonia.Grad(loss, params...)
		require.NoError(t, err)
		vm, err := cpu.New().Compile(g, append(gorgonia.Nodes{y}, gs...), device.Options{Name: "conv test"})
		require.NoError(t, err)
		defer vm.Close()
		var out [][]float64
		for k := 0; k < times; k++ {
			require.NoError(t, vm.Run()) // rewinds the previous run: buffers reused
			out = [][]float64{append([]float64(nil), y.Value().Data().([]float64)...)}
			for _, gn := range gs {
				out = append(out, append([]float64(nil), gn.Value().Data().([]float64)...))
			}
		}
		return out
	}
	one, many := run(1, 1), run(4, 3)
	for k := range one {
		for i := range one[k] {
			require.Equal(t, many[k][i], one[k][i], "value %d of output %d: %v with 1 goroutine, %v with 4 after 3 rewound runs", i, k, one[k][i], many[k][i])
		}
	}
}

// TestConv2dIm2colFloat32 checks the float32 path against the float64 one.
func TestConv2dIm2colFloat32(t *testing.T) {
	c := convCase{3, 2, 6, 6, 3, 3, 1, 1}
	r := rng.New(3, "conv-f32")
	x := testutil.RandSlice(r, c.n*c.c*c.h*c.w, -1, 1)
	w := testutil.RandSlice(r, c.o*c.c*c.k*c.k, -1, 1)
	b := testutil.RandSlice(r, c.o, -1, 1)
	run := func(dt tensor.Dtype) []float64 {
		g := gorgonia.NewGraph()
		mk := func(name string, s tensor.Shape, v []float64) *gorgonia.Node {
			return testutil.InputDT(g, dt, name, s, v)
		}
		y, err := Conv2dIm2col(mk("x", tensor.Shape{c.n, c.c, c.h, c.w}, x), mk("W", tensor.Shape{c.o, c.c, c.k, c.k}, w), mk("b", tensor.Shape{1, c.o, 1, 1}, b), c.pad, c.stride)
		require.NoError(t, err)
		vm := gorgonia.NewTapeMachine(g)
		defer vm.Close()
		require.NoError(t, vm.RunAll())
		switch d := y.Value().Data().(type) {
		case []float32:
			out := make([]float64, len(d))
			for i, v := range d {
				out[i] = float64(v)
			}
			return out
		default:
			return append([]float64(nil), d.([]float64)...)
		}
	}
	d := testutil.MaxAbsDiff(run(tensor.Float32), run(tensor.Float64))
	assert.LessOrEqual(t, d, 1e-5, "float32 output differs from float64 by %g", d)
}

// TestConv2dIm2colBadInput checks that bad shapes are errors, not panics.
func TestConv2dIm2colBadInput(t *testing.T) {
	g := gorgonia.NewGraph()
	x := gorgonia.NewTensor(g, tensor.Float64, 4, gorgonia.WithShape(2, 3, 5, 5), gorgonia.WithName("x"))
	for _, c := range []struct {
		w           tensor.Shape
		pad, stride int
	}{
		{tensor.Shape{4, 2, 3, 3}, 1, 1}, // channel mismatch
		{tensor.Shape{4, 3, 3, 2}, 1, 1}, // non-square
		{tensor.Shape{4, 3, 3, 3}, -1, 1},
		{tensor.Shape{4, 3, 3, 3}, 0, 0},
		{tensor.Shape{4, 3, 7, 7}, 0, 1}, // too small
	} {
		w := gorgonia.NewTensor(g, tensor.Float64, 4, gorgonia.WithShape(c.w...))
		if _, err := Conv2dIm2col(x, w, nil, c.pad, c.stride); err == nil {
			t.Errorf("filter %v pad %d stride %d: no error", c.w, c.pad, c.stride)
		}
	}
}

// TestConv2dIm2colConcurrentMachines: convolutions share workspaces from a
// free list; two machines of different geometries running at
// the same time in their own goroutines must give, bit for bit, what each
// gives alone (run it with -race as well).
func TestConv2dIm2colConcurrentMachines(t *testing.T) {
	cases := []convCase{{13, 3, 8, 8, 4, 3, 1, 1}, {6, 5, 9, 7, 6, 3, 0, 2}}
	run := func(c convCase, times int) [][]float64 {
		g, y, loss, params := convGraph(t, c, true, 7)
		gs, err := gorgonia.Grad(loss, params...)
		if err != nil {
			t.Error(err)
			return nil
		}
		vm, err := cpu.New().Compile(g, append(gorgonia.Nodes{y}, gs...), device.Options{Name: "conv test"})
		if err != nil {
			t.Error(err)
			return nil
		}
		defer vm.Close()
		var out [][]float64
		for k := 0; k < times; k++ {
			if err := vm.Run(); err != nil {
				t.Error(err)
				return nil
			}
			out = [][]float64{append([]float64(nil), y.Value().Data().([]float64)...)}
			for _, gn := range gs {
				out = append(out, append([]float64(nil), gn.Value().Data().([]float64)...))
			}
		}
		return out
	}
	alone := [][][]float64{run(cases[0], 1), run(cases[1], 1)}
	together := make([][][]float64, len(cases))
	var wg sync.WaitGroup
	for i, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			together[i] = run(c, 5)
		}()
	}
	wg.Wait()
	for ci := range cases {
		require.Equal(t, len(alone[ci]), len(together[ci]), "case %d: %d outputs together, %d alone", ci, len(together[ci]), len(alone[ci]))
		for k := range alone[ci] {
			for i := range alone[ci][k] {
				require.Equal(t, together[ci][k][i], alone[ci][k][i], "case %d, value %d of output %d: %v alone, %v beside another machine", ci, i, k, alone[ci][k][i], together[ci][k][i])
			}
		}
	}
}

// TestValidRun: the run of output columns that read inside the image
// equals the brute-force set {ow : 0 ≤ ow·stride + off < w}.
func TestValidRun(t *testing.T) {
	for wo := 0; wo <= 9; wo++ {
		for w := 1; w <= 9; w++ {
			for stride := 1; stride <= 3; stride++ {
				for off := -5; off <= 5; off++ {
					lo, hi := validRun(wo, w, stride, off)
					for ow := 0; ow < wo; ow++ {
						in := ow*stride+off >= 0 && ow*stride+off < w
						assert.Equal(t, in, ow >= lo && ow < hi, "wo=%d w=%d stride=%d off=%d ow=%d: run [%d, %d)", wo, w, stride, off, ow, lo, hi)
					}
				}
			}
		}
	}
}
