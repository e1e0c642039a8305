package training

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/internal/opencl/ocltest"
	devopencl "github.com/llpfc/llpfc/training/device/opencl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpenCLParity: for every model × method of the op list
// (training/testdata/ops.golden), the first step's loss, every gradient
// and the batch-norm running statistics after it, and the parameters
// after paritySteps SGD steps, on the OpenCL device equal the CPU back
// end's within ParityTol (CheckParity, the check `llpfc devices --check`
// runs: tensor by tensor, and entry by entry within EntryTol).
// LLPFC_OPENCL_PARITY=full adds VGG16's other methods,
// LLPFC_OPENCL_PARITY=model×method,… runs those only;
// LLPFC_OPENCL_PARITY_CASES=model/method/batch/side[/seed[/shiftBN]],…
// runs other configurations.
func TestOpenCLParity(t *testing.T) {
	ocltest.Require(t)
	if testing.Short() {
		t.Skip("trains every paper model on the OpenCL device (-short)")
	}
	sel := os.Getenv("LLPFC_OPENCL_PARITY")
	cases := ParityCases(sel == "full")
	if x := os.Getenv("LLPFC_OPENCL_PARITY_CASES"); x != "" { // model/method/batch/side,…
		cases = nil
		for _, f := range strings.Split(x, ",") {
			p := strings.Split(f, "/")
			c := ParityCase{Model: p[0], Method: p[1], Chunk: 4, BagSize: 2}
			fmt.Sscan(p[2], &c.Batch)
			fmt.Sscan(p[3], &c.Side)
			c.Chunk = 2 * c.Batch
			if len(p) > 4 {
				fmt.Sscan(p[4], &c.Seed)
			}
			if len(p) > 5 {
				fmt.Sscan(p[5], &c.ShiftBN)
			}
			cases = append(cases, c)
		}
		sel = ""
	}
	for _, c := range cases {
		if sel != "" && sel != "full" && !strings.Contains(","+sel+",", ","+c.Model+"×"+c.Method+",") {
			continue
		}
		t.Run(c.Model+"×"+c.Method, func(t *testing.T) {
			p, err := CheckParity(ocltest.Device(), c)
			require.NoError(t, err)
			t.Logf("%v: %v", c, p)
			assert.True(t, p.OK(), "%v: %v", c, p)
		})
	}
}

// TestChunkedStepsMatchTheCPU: the steps whose minibatch spans several
// chunks on the device — KL's first pass read without waiting, chunk by
// chunk (mlp, two bags of 2 in chunks of 3), LLP-VAT's passes joined on
// the device chunk by chunk (cnn, chunks of 3), and both with the exact
// batch-norm sweep kept on the device (cnn-bn) — equal the CPU back end's
// (CheckParity; TestOpenCLParity runs every case, this the few that check
// the chunks, in seconds).
func TestChunkedStepsMatchTheCPU(t *testing.T) {
	ocltest.Require(t)
	for _, c := range []ParityCase{
		{Model: ModelMLP, Method: MethodKL, Batch: 2, Chunk: 3, BagSize: 2, Side: 8},
		{Model: ModelCNN, Method: MethodLLPVAT, Batch: 2, Chunk: 3, BagSize: 2, Side: 8},
		{Model: ModelCNNBN, Method: MethodKL, Batch: 2, Chunk: 3, BagSize: 2, Side: 8},
		{Model: ModelCNNBN, Method: MethodLLPVAT, Batch: 2, Chunk: 3, BagSize: 2, Side: 8},
	} {
		p, err := CheckParity(ocltest.Device(), c)
		require.NoError(t, err, "%v", c)
		assert.True(t, p.OK(), "%v: %v", c, p)
	}
}

// TestParityComparisonCatchesAnError: the parity comparison fails on a
// gradient entry perturbed by 1e-3 of its magnitude, on a running
// statistic, a parameter and the loss perturbed likewise, on one entry of
// a large tensor off by 2e-3 (the entry check), and on a value where the
// CPU's gradient is zero in exact arithmetic.
func TestParityComparisonCatchesAnError(t *testing.T) {
	big := make([]float32, 100000)
	for i := range big {
		big[i] = float32(math.Sin(float64(i))) * 0.3
	}
	ref := &stepState{loss: 2.3, names: []string{"W", "b", "c", "V"},
		grads:   [][]float32{{0.5, -0.25, 0.125}, {1e-3, 2e-3}, {1e-9, -1e-9}, big},
		running: [][]float32{{0.1, 0.2}},
		params:  [][]float32{{1, 2, 3}, {0.5, 0.25}, {0, 0}, big}}
	clone := func() *stepState {
		c := *ref
		for _, p := range []*[][]float32{&c.grads, &c.running, &c.params} {
			var out [][]float32
			for _, x := range *p {
				out = append(out, append([]float32(nil), x...))
			}
			*p = out
		}
		return &c
	}
	same := clone()
	same.grads[0][1] *= 1 + 5e-6
	same.grads[2][0] = 3e-9 // noise where the CPU's is noise too
	assert.True(t, compareStates(ref, same).OK(), "rounding-sized differences pass")
	for name, perturb := range map[string]func(s *stepState){
		"gradient":          func(s *stepState) { s.grads[0][0] *= 1 + 1e-3 },
		"running statistic": func(s *stepState) { s.running[0][0] *= 1 + 1e-3 },
		"parameter":         func(s *stepState) { s.params[0][2] *= 1 + 1e-3 },
		"loss":              func(s *stepState) { s.loss *= 1 + 1e-3 },
		"zero gradient":     func(s *stepState) { s.grads[2][1] = 1e-3 },
		"one entry":         func(s *stepState) { s.grads[3][17] *= 1 + 2e-3 },
	} {
		bad := clone()
		perturb(bad)
		p := compareStates(ref, bad)
		assert.False(t, p.OK(), "a perturbed %s should fail (%v)", name, p)
	}
}

// TestOpenCLParityImplicitConv: with the convolutions on the implicit-GEMM
// path (LLPFC_OPENCL_CONV=implicit) the OpenCL steps of the cnn and
// WRN-16-4 models (TestOpenCLParity's cases: stride-2 and 1×1 shortcut
// convolutions, dropout drawn on the device) match the CPU's as the
// default path's do.
func TestOpenCLParityImplicitConv(t *testing.T) {
	ocltest.Require(t)
	t.Setenv(devopencl.ConvEnv, "implicit")
	want := map[string]bool{ModelCNN + "×" + MethodKL: true, ModelWRN164 + "×" + MethodLLPFCUniform: true}
	ran := 0
	for _, c := range ParityCases(false) {
		if !want[c.Model+"×"+c.Method] {
			continue
		}
		ran++
		t.Run(c.Model+"×"+c.Method, func(t *testing.T) {
			p, err := CheckParity(ocltest.Device(), c)
			require.NoError(t, err)
			t.Logf("%v: %v", c, p)
			assert.True(t, p.OK(), "%v: %v", c, p)
		})
	}
	assert.Equal(t, len(want), ran, "parity cases found")
}
