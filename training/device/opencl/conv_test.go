package opencl_test

import (
	"math/rand/v2"
	"testing"

	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/internal/opencl/ocltest"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/device/opcheck"
	devopencl "github.com/llpfc/llpfc/training/device/opencl"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
)

// convStepCosts runs a convolution's forward pass and its three gradients
// on be (twice: the first run uploads) and returns the second run's
// costs and the CPU-checked worst error.
func convStepCosts(t *testing.T, be *devopencl.Backend) device.Costs {
	t.Helper()
	g := gorgonia.NewGraph()
	r := rand.New(rand.NewPCG(5, 6))
	x := tensorOf(g, r, "x", -1, 1, 2, 3, 9, 8)
	w := tensorOf(g, r, "w", -1, 1, 5, 3, 3, 3)
	b := tensorOf(g, r, "b", -1, 1, 1, 5, 1, 1)
	y := must(nn.Conv2dIm2col(x, w, b, 1, 2))
	outs := append(gorgonia.Nodes{y}, grads(opcheck.WeightedSum(g, r, y), x, w, b)...)
	p, costs := runTwice(t, be, g, outs, device.Options{Name: "conv", Params: gorgonia.Nodes{x, w, b}})
	p.Close()
	return costs
}

// TestConvVariant: LLPFC_OPENCL_CONV=implicit opens a back end that runs
// a convolution and its gradients without a CLBlast call (the implicit
// kernels) and names "conv implicit" in its numerics; unset or im2col
// runs them on CLBlast and leaves the numerics as they were; cudnn on an
// OpenCL device and any other value stop Open with an error naming the
// variable and the value.
func TestConvVariant(t *testing.T) {
	ocltest.Require(t)
	for env, implicit := range map[string]bool{"": false, "im2col": false, "implicit": true} {
		t.Setenv(devopencl.ConvEnv, env)
		be, err := devopencl.Open(ocltest.Device())
		require.NoError(t, err, env)
		c := convStepCosts(t, be)
		if implicit {
			assert.Contains(t, be.Numerics(), "; conv implicit (GEMM tile 64×64×16", env)
			assert.Zero(t, c.BLASCalls, "%s: the implicit path calls CLBlast for a convolution", env)
		} else {
			assert.NotContains(t, be.Numerics(), "conv", env)
			assert.Positive(t, c.BLASCalls, "%s: the im2col path runs its products on CLBlast", env)
		}
		require.NoError(t, be.Close())
	}
	// Per pass: each mix calls CLBlast exactly for its im2col passes, so
	// the calls of a mix and of its complement add up to the im2col
	// path's, and each pass taken implicit removes its calls (a pass
	// dispatched on the wrong bit breaks the sums).
	calls := map[string]int64{}
	for _, env := range []string{"im2col", "implicit:fwd", "implicit:dx+dw", "implicit:dx", "implicit:fwd+dw", "implicit:dw", "implicit:fwd+dx"} {
		t.Setenv(devopencl.ConvEnv, env)
		be, err := devopencl.Open(ocltest.Device())
		require.NoError(t, err, env)
		calls[env] = convStepCosts(t, be).BLASCalls
		if env != "im2col" {
			assert.Contains(t, be.Numerics(), "; conv "+env+" (GEMM tile", env)
		}
		require.NoError(t, be.Close())
	}
	for _, pair := range [][2]string{{"implicit:fwd", "implicit:dx+dw"}, {"implicit:dx", "implicit:fwd+dw"}, {"implicit:dw", "implicit:fwd+dx"}} {
		assert.Positive(t, calls[pair[0]], pair[0])
		assert.Positive(t, calls[pair[1]], pair[1])
		assert.Less(t, calls[pair[0]], calls["im2col"], pair[0])
		assert.Equal(t, calls["im2col"], calls[pair[0]]+calls[pair[1]], "%v: a pass on both paths or on neither", pair)
	}
	for _, bad := range []string{"Implicit", "direct", " implicit", "implicit:", "implicit:dw+dw", "implicit:bwd", "implicit:dw,dx"} {
		t.Setenv(devopencl.ConvEnv, bad)
		be, err := devopencl.Open(ocltest.Device())
		if !assert.Error(t, err, bad) {
			be.Close()
			continue
		}
		assert.Contains(t, err.Error(), devopencl.ConvEnv+"="+bad+": ", bad)
		assert.Contains(t, err.Error(), "im2col, implicit, implicit:", bad)
	}
	// cuDNN's path on an OpenCL device: refused at Open, naming the device it needs.
	t.Setenv(devopencl.ConvEnv, "cudnn")
	be, err := devopencl.Open(ocltest.Device())
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), devopencl.ConvEnv+"=cudnn: cuDNN's convolutions run on the CUDA driver only (--device cuda)")
	} else {
		be.Close()
	}
}

// TestCuDNNAlgoVariant: LLPFC_CUDNN_ALGO unset or deterministic opens a
// back end as before; heuristic outside the cudnn path, and any other
// value, stop Open with an error naming the variable (a sweep variant
// whose knob did not take would time the default under its name). The
// rule reaching cuDNN's choice is internal/opencl's TestCuDNNOnAFake.
func TestCuDNNAlgoVariant(t *testing.T) {
	ocltest.Require(t)
	for _, env := range []string{"", "deterministic"} {
		t.Setenv(devopencl.CuDNNAlgoEnv, env)
		be, err := devopencl.Open(ocltest.Device())
		require.NoError(t, err, env)
		assert.NotContains(t, be.Numerics(), "cudnn", env)
		require.NoError(t, be.Close())
	}
	for env, want := range map[string]string{
		"heuristic":      devopencl.CuDNNAlgoEnv + "=heuristic: cuDNN's algorithms are chosen only on the path " + devopencl.ConvEnv + "=cudnn",
		"Heuristic":      devopencl.CuDNNAlgoEnv + "=Heuristic: want deterministic (the default) or heuristic",
		"fastest":        devopencl.CuDNNAlgoEnv + "=fastest: want deterministic (the default) or heuristic",
		" deterministic": devopencl.CuDNNAlgoEnv + "= deterministic: want deterministic (the default) or heuristic",
	} {
		t.Setenv(devopencl.CuDNNAlgoEnv, env)
		be, err := devopencl.Open(ocltest.Device())
		if !assert.Error(t, err, env) {
			be.Close()
			continue
		}
		assert.Contains(t, err.Error(), want, env)
	}
	// what the GPU kit's sweep looks for in a result (kit.py's expected_numerics)
	det, own := devopencl.CuDNNNumerics("9.13.0", opencl.CuDNNDeterministic), devopencl.CuDNNNumerics("9.13.0", opencl.CuDNNHeuristic)
	for _, n := range []string{det, own} {
		assert.Contains(t, n, "conv cudnn (cuDNN 9.13.0; ")
		assert.Contains(t, n, "no TF32")
	}
	assert.Contains(t, own, "the heuristic's first algorithm")
	assert.NotContains(t, det, "the heuristic's first algorithm")
}
