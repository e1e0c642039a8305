package opencl_test

import (
	"math/rand/v2"
	"testing"

	"github.com/llpfc/llpfc/internal/opencl/ocltest"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/device/opcheck"
	devopencl "github.com/llpfc/llpfc/training/device/opencl"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// bnStep runs a batch norm with ReLU over few channels of many values (64
// images of 2 channels, 16×16: 16,384 values a channel) and its gradients
// on be (twice: the first run uploads) and returns the second run's
// costs and the output and gradients' values.
func bnStep(t *testing.T, be *devopencl.Backend) (device.Costs, [][]float64) {
	t.Helper()
	g := gorgonia.NewGraph()
	r := rand.New(rand.NewPCG(3, 8))
	x := tensorOf(g, r, "x", -1, 1, 64, 2, 16, 16)
	bn := nn.NewBatchNorm(g, tensor.Float32, "bn", 2, 4, 0.1, true)
	randomize(r, bn.Gamma, 0.5, 1.5)
	randomize(r, bn.Beta, -0.5, 0.5)
	y := must(bn.ForwardReLU(x, true, false))
	outs := append(gorgonia.Nodes{y}, grads(opcheck.WeightedSum(g, r, y), x, bn.Gamma, bn.Beta)...)
	p, costs := runTwice(t, be, g, outs, device.Options{Name: "bn", Params: gorgonia.Nodes{x, bn.Gamma, bn.Beta}})
	defer p.Close()
	var vals [][]float64
	for _, n := range outs {
		v, err := p.Value(n)
		require.NoError(t, err)
		var f []float64
		for _, e := range v.Data().([]float32) {
			f = append(f, float64(e))
		}
		vals = append(vals, f)
	}
	return costs, vals
}

// TestReduceVariant: unset or LLPFC_OPENCL_REDUCE=sliced reduces a batch
// norm's channels of many values in slices (the statistics' and the
// gradient sums' merges: two launches more than one work-group a channel)
// and leaves the numerics as they were; channel runs one work-group a
// channel and says so in the numerics; both give the same values to
// float rounding; any other value stops Open with an error naming the
// variable and the value.
func TestReduceVariant(t *testing.T) {
	ocltest.Require(t)
	kernels := map[string]int64{}
	values := map[string][][]float64{}
	for _, env := range []string{"", "sliced", "channel"} {
		t.Setenv(devopencl.ReduceEnv, env)
		be, err := devopencl.Open(ocltest.Device())
		require.NoError(t, err, env)
		c, v := bnStep(t, be)
		kernels[env], values[env] = c.Kernels, v
		if env == "channel" {
			assert.Contains(t, be.Numerics(), "; reduce channel (one work-group a channel)")
		} else {
			assert.NotContains(t, be.Numerics(), "reduce", env)
		}
		require.NoError(t, be.Close())
	}
	assert.Equal(t, kernels[""], kernels["sliced"])
	assert.Equal(t, kernels["channel"]+2, kernels["sliced"], "the sliced statistics and gradient sums each add one merge")
	for i := range values[""] {
		worst, at := closeEnough(values["channel"][i], values[""][i])
		assert.Less(t, worst, 1e-5, "output %d, element %d: one work-group a channel and the slices disagree", i, at)
	}
	for _, bad := range []string{"Sliced", "one-group", " channel", "channel,sliced"} {
		t.Setenv(devopencl.ReduceEnv, bad)
		be, err := devopencl.Open(ocltest.Device())
		if !assert.Error(t, err, bad) {
			be.Close()
			continue
		}
		assert.Contains(t, err.Error(), devopencl.ReduceEnv+"="+bad+": want sliced (the default) or channel", bad)
	}
}
