package nn

import (
	"fmt"
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/internal/sgemm"
	"github.com/llpfc/llpfc/training/internal/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// convValuesDT runs y = conv(x, W) + b and the gradients of Σ y⊙R with
// respect to x, W and b in element type dt, on the inputs of seed, and
// returns the four as float64.
func convValuesDT(t *testing.T, c convCase, dt tensor.Dtype, seed int64) [][]float64 {
	t.Helper()
	r := rng.New(seed, "conv-packed")
	g := gorgonia.NewGraph()
	mk := func(name string, s tensor.Shape, v []float64) *gorgonia.Node {
		return testutil.InputDT(g, dt, name, s, v)
	}
	ho, wo := (c.h+2*c.pad-c.k)/c.stride+1, (c.w+2*c.pad-c.k)/c.stride+1
	x := mk("x", tensor.Shape{c.n, c.c, c.h, c.w}, testutil.RandSlice(r, c.n*c.c*c.h*c.w, -1, 1))
	w := mk("W", tensor.Shape{c.o, c.c, c.k, c.k}, testutil.RandSlice(r, c.o*c.c*c.k*c.k, -1, 1))
	b := mk("b", tensor.Shape{1, c.o, 1, 1}, testutil.RandSlice(r, c.o, -1, 1))
	rr := mk("R", tensor.Shape{c.n, c.o, ho, wo}, testutil.RandSlice(r, c.n*c.o*ho*wo, -1, 1))
	y, err := Conv2dIm2col(x, w, b, c.pad, c.stride)
	require.NoError(t, err)
	prod, err := gorgonia.HadamardProd(y, rr)
	require.NoError(t, err)
	loss, err := gorgonia.Sum(prod)
	require.NoError(t, err)
	grads, err := gorgonia.Grad(loss, x, w, b)
	require.NoError(t, err)
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	require.NoError(t, vm.RunAll())
	var out [][]float64
	for _, n := range append(gorgonia.Nodes{y}, grads...) {
		switch d := n.Value().Data().(type) {
		case []float32:
			v := make([]float64, len(d))
			for i, e := range d {
				v[i] = float64(e)
			}
			out = append(out, v)
		case []float64:
			out = append(out, append([]float64(nil), d...))
		}
	}
	return out
}

// TestConv2dIm2colPackedMatchesFloat64: the float32 convolution through
// internal/sgemm's packed products (W packed once, im2col written straight
// into the packed operand, ∂/∂x made and folded a block of rows at a time)
// gives the output and the gradients with respect to x, W and b of the
// float64 path (im2col, gonum's Dgemm, col2im: another route), for every
// micro-kernel, on geometries with edges against both tiles, strides 1 and
// 2, and unfoldings of several row blocks (c·k·k = 72 and 144 rows of 1,024
// and 256 columns).
func TestConv2dIm2colPackedMatchesFloat64(t *testing.T) {
	// The default build sends float32 convolutions this way; the openblas
	// build does not, but the path is checked there too.
	defer func(v bool) { usePackedConv = v }(usePackedConv)
	usePackedConv = true
	cases := append([]convCase{{2, 8, 32, 32, 10, 3, 1, 1}, {3, 16, 16, 16, 6, 3, 1, 2}, {2, 16, 16, 16, 9, 3, 1, 1}}, convCases...)
	names := []string{"y", "∂x", "∂W", "∂b"}
	eachKernel(t, func(kern sgemm.Kernel) {
		for i, c := range cases {
			t.Run(fmt.Sprintf("%s/%+v", kern.Name, c), func(t *testing.T) {
				want := convValuesDT(t, c, tensor.Float64, int64(i))
				got := convValuesDT(t, c, tensor.Float32, int64(i))
				// float32 rounding grows with the terms summed per entry: c·k·k for
				// y, o·k·k for ∂x, n·ho·wo for ∂W and ∂b (inputs in [−1, 1]).
				ho, wo := (c.h+2*c.pad-c.k)/c.stride+1, (c.w+2*c.pad-c.k)/c.stride+1
				terms := []int{c.c * c.k * c.k, c.o * c.k * c.k, c.n * ho * wo, c.n * ho * wo}
				for k := range want {
					require.Len(t, got[k], len(want[k]), names[k])
					tol := 1e-6 * float64(terms[k]+8)
					for j := range want[k] {
						if d := math.Abs(got[k][j] - want[k][j]); d > tol {
							require.Failf(t, "float32 packed path differs", "%s[%d] = %v, float64 %v (tolerance %.2g)", names[k], j, got[k][j], want[k][j], tol)
						}
					}
				}
			})
		}
	})
}

// TestDefaultBuildPacksConvolutions: the default build (no openblas tag)
// sends float32 convolutions through the packed products.
func TestDefaultBuildPacksConvolutions(t *testing.T) {
	assert.Equal(t, BLASName == "gonum+sgemm", usePackedConv, "BLAS %s", BLASName)
}

// eachKernel runs f with each SGEMM micro-kernel this processor runs made
// the active one (logging those it cannot run), then restores the kernel
// that was active before.
func eachKernel(t *testing.T, f func(kern sgemm.Kernel)) {
	t.Helper()
	defer sgemm.SetKernel(sgemm.Active())
	for _, kern := range []sgemm.Kernel{sgemm.KernelAVX512, sgemm.KernelAVX2, sgemm.KernelGo} {
		if !sgemm.Supported(kern) {
			t.Logf("kernel %s not supported here", kern.Name)
			continue
		}
		sgemm.SetKernel(kern)
		f(kern)
	}
}
