package training

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/internal/opencl/ocltest"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/device/cpu"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/tensor"
)

// parityTol is the parity tests' tolerance: every tensor of the device's
// results — the loss, each gradient, each batch-norm running statistic,
// each parameter after the steps — is within parityTol of the CPU's,
// ‖device − CPU‖ ≤ parityTol·max(‖CPU‖, floor·√n) (relative, scaled by the
// tensor's norm, since an entry whose value cancels carries the rounding
// of the terms it sums), and every entry within entryTol of the larger of
// its magnitude, its tensor's RMS and the floor. The floor is gradFloor
// times the whole gradient's RMS for a gradient, the RMS of all the
// parameters for a parameter (a bias initialized to zero holds the
// rounding noise of zeroGrad gradients), 0 otherwise.
const parityTol, entryTol = 1e-4, 1e-3

// zeroGrad: a gradient tensor whose RMS on the CPU is below zeroGrad times
// the whole gradient's is zero in exact arithmetic (a conv bias before
// batch norm) and what both devices hold is float32 rounding noise; the
// device's must be as small.
const zeroGrad = 1e-3

// gradFloor: gradients are compared relative to at least gradFloor times
// the whole gradient's RMS (LLP-VAT's consistency term contributes small
// gradients that are differences of nearly equal values).
const gradFloor = 1

// paritySteps is the number of optimizer steps (SGD, momentum 0.9) after
// which the parameters are compared.
const paritySteps = 2

func rms32(x []float32) float64 {
	var ss float64
	for _, v := range x {
		ss += float64(v) * float64(v)
	}
	return math.Sqrt(ss / float64(max(len(x), 1)))
}

// relDiff returns the largest |a_i − b_i| / max(|b_i|, rms(b), floor)
// over the entries (b the reference) and its index.
func relDiff(a, b []float32, floor float64) (float64, int) {
	scale := math.Max(rms32(b), floor)
	worst, at := 0.0, 0
	for i := range b {
		d := math.Abs(float64(a[i]) - float64(b[i]))
		if d == 0 {
			continue
		}
		s := math.Max(math.Abs(float64(b[i])), scale)
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

// normDiff returns ‖a − b‖/max(‖b‖, floor·√n).
func normDiff(a, b []float32, floor float64) float64 {
	var d, n float64
	for i := range b {
		x := float64(a[i]) - float64(b[i])
		d += x * x
		n += float64(b[i]) * float64(b[i])
	}
	den := math.Max(math.Sqrt(n), floor*math.Sqrt(float64(len(b))))
	switch {
	case d == 0:
		return 0
	case den == 0:
		return math.Inf(1)
	}
	return math.Sqrt(d) / den
}

// stepState is what the steps leave: the first step's loss, every
// gradient (before the update) and the running statistics after it, and
// the parameters after all the steps. Values are kept in float32 (the
// training type): VGG16's 134 million parameters.
type stepState struct {
	loss    float64
	grads   [][]float32
	running [][]float32
	params  [][]float32
	names   []string
}

// parityCase is a model × method of the op list with its tiny inputs.
type parityCase struct {
	model, method string
	batch, chunk  int // minibatch (instances or bags) and KL/VAT chunk
	bagSize       int
	side          int     // image height and width
	seed          int64   // Config.Seed (0: 3)
	shiftBN       float32 // if not 0, every batch-norm shift β starts at it
}

func (c parityCase) String() string { return c.model + " × " + c.method }

// parityCases are the model × method cases of ops.golden with their
// inputs: 3×side×side images, bags of 2, two bags or two instances per
// minibatch, one chunk per minibatch except where a case checks the
// chunked batch-norm sweep. WRN-16-4 runs on 16×16 images (PoCL's
// convolutions are slow on two cores). ResNet18 (64×64) and VGG16 (32×32)
// take four images a minibatch: with two, their last stages normalize two
// to eight values per channel and the gradient is float32 noise amplified
// by 1/σ on the CPU and the device alike. Both start with every
// batch-norm shift β at 3 (shiftBN), which keeps the ReLU inputs away from
// zero: a ReLU or max pool whose input lies within rounding of zero decides
// differently on two devices and moves a whole gradient term, and at β = 0
// a few of their millions of activations do (the CPU's own gradients then
// change by up to O(1) in some entries under a one-ulp change of its
// inputs). VGG16 runs only llpfc-uniform unless full is set (its
// classifier's 134 million parameters take ~5 GB on the two back ends);
// LLP-GAN runs on 16×16 images.
func parityCases(full bool) []parityCase {
	var cs []parityCase
	for _, model := range []string{ModelMLP, ModelCNN, ModelCNNBN, ModelWRN164, ModelResNet18, ModelVGG16} {
		for _, method := range []string{MethodLLPFCUniform, MethodKL, MethodLLPVAT, Supervised} {
			c := parityCase{model: model, method: method, batch: 2, chunk: 4, bagSize: 2, side: 32}
			switch model {
			case ModelCNNBN:
				if method == MethodKL || method == MethodLLPVAT {
					c.chunk = 3 // two chunks, the second padded: the exact batch-norm sweep
				}
			case ModelWRN164:
				c.side = 16
			case ModelResNet18, ModelVGG16:
				// four images a minibatch: four instances, or two bags of two
				c.side, c.shiftBN = 64, 3
				if model == ModelVGG16 {
					c.side = 32
				}
				if method == MethodLLPFCUniform || method == Supervised {
					c.batch = 4
				}
				if model == ModelVGG16 && !full && method != MethodLLPFCUniform {
					continue
				}
			}
			cs = append(cs, c)
		}
	}
	// the newer methods (issue 39): the mlp, and cnn-bn with two chunks a
	// minibatch (the exact batch-norm sweep under their heads)
	for _, method := range []string{MethodEasyLLP, MethodMixBag, MethodLLPPVC} {
		cs = append(cs, parityCase{model: ModelMLP, method: method, batch: 2, chunk: 4, bagSize: 2, side: 32},
			parityCase{model: ModelCNNBN, method: method, batch: 2, chunk: 3, bagSize: 2, side: 32})
	}
	return append(cs, parityCase{model: ModelLLPGAND, method: MethodLLPGAN, batch: 2, chunk: 4, bagSize: 2, side: 16})
}

// runSteps builds c's graphs on be as Train does and runs paritySteps
// training steps, recording the first one's loss, gradients and running
// statistics and the parameters after the last.
func runSteps(t *testing.T, be device.Backend, c parityCase) *stepState {
	t.Helper()
	data := parityData(c.bagSize, c.side)
	cfg, err := Config{Method: c.method, Model: nn.ModelSpec{Name: c.model}, Optimizer: OptimizerConfig{Name: "sgd", LR: 1e-3, Momentum: 0.9},
		BatchSize: c.batch, Epochs: 1, ChunkSize: c.chunk, Seed: max(c.seed, 3)}.withDefaults()
	require.NoError(t, err)
	spec := cfg.Model
	spec.Channels, spec.Height, spec.Width, spec.NumClasses, spec.Dtype = 3, c.side, c.side, 10, tensor.Float32
	st, err := buildStepper(be, methods[c.method], &cfg, data, spec)
	require.NoError(t, err, "%v", c)
	defer st.method.Close()
	if c.shiftBN != 0 {
		for i, p := range st.learn {
			if strings.HasSuffix(p.Name(), ".beta") {
				for j := range st.params[i] {
					st.params[i][j] = c.shiftBN
				}
			}
		}
		require.NoError(t, be.Push(st.learn...))
	}
	opt, err := be.NewOptimizer(cfg.Optimizer, st.learn, st.grads)
	require.NoError(t, err)
	n, err := st.method.BeginEpoch(0)
	require.NoError(t, err)
	require.GreaterOrEqual(t, n, paritySteps)
	out := &stepState{}
	for _, p := range st.learn {
		out.names = append(out.names, p.Name())
	}
	for s := 0; s < paritySteps; s++ {
		require.NoError(t, st.grads.Reset())
		loss, _, err := st.method.Step(s, st.grads)
		require.NoError(t, err, "%v step %d", c, s)
		if s == 0 {
			out.loss = loss
			g := make([][]float64, len(st.learn))
			for i, p := range st.params {
				g[i] = make([]float64, len(p))
			}
			require.NoError(t, st.grads.Read(g))
			for i := range g {
				out.grads = append(out.grads, f32s(g[i]))
				g[i] = nil
			}
			bufs, err := runningStats(st.model)
			require.NoError(t, err)
			for _, b := range bufs {
				out.running = append(out.running, append([]float32(nil), b...))
			}
		}
		require.NoError(t, opt.Step(cfg.Optimizer.LR))
	}
	require.NoError(t, be.Pull(st.learn...))
	for _, p := range st.params {
		out.params = append(out.params, append([]float32(nil), p...))
	}
	return out
}

func f32s(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

// parityData is a tiny 3×side×side training set of 20 bags of m over 10
// classes (opListData's layout), with labels and a test split of 8 images.
func parityData(m, side int) *TrainData {
	const bags, c = 20, 10
	r := rng.New(1, "opencl-parity")
	d := &TrainData{X: make([]float32, bags*m*3*side*side), Channels: 3, Height: side, Width: side, Bags: &estimators.BagSet{NumClasses: c}}
	for i := range d.X {
		d.X[i] = r.Float32()
	}
	for b := 0; b < bags; b++ {
		bag := estimators.Bag{ID: b, Size: m, Proportions: make([]float64, c)}
		for i := 0; i < m; i++ {
			bag.Indices = append(bag.Indices, b*m+i)
			bag.Proportions[(b+i)%c] += 1 / float64(m)
			d.Labels = append(d.Labels, (b+i)%c)
		}
		d.Bags.Bags = append(d.Bags.Bags, bag)
	}
	d.TestX = d.X[:8*3*side*side]
	d.TestY = d.Labels[:8]
	return d
}

// parity is what compareStates finds: the worst entry (relDiff) and the
// worst tensor, ‖a − b‖/‖b‖ (norm).
type parity struct {
	worst     float64
	where     string
	norm      float64
	normWhere string
}

// ok reports whether the device's results are within the tolerances.
func (p parity) ok() bool { return p.norm <= parityTol && p.worst <= entryTol }

func (p parity) String() string {
	return fmt.Sprintf("worst entry %.3g (%s), worst tensor %.3g (%s)", p.worst, p.where, p.norm, p.normWhere)
}

// compareStates compares b with the reference a entry by entry (relDiff)
// and tensor by tensor: the loss, each gradient, each running statistic
// and each parameter after the steps.
func compareStates(a, b *stepState) parity {
	var p parity
	note := func(what string, x, ref []float32, floor float64) {
		if len(x) != len(ref) {
			p.worst, p.where = math.Inf(1), what+": lengths differ"
			return
		}
		if r, i := relDiff(x, ref, floor); r > p.worst || math.IsNaN(r) {
			p.worst, p.where = r, fmt.Sprintf("%s[%d] = %g, CPU %g", what, i, x[i], ref[i])
		}
		if n := normDiff(x, ref, floor); n > p.norm || math.IsNaN(n) {
			p.norm, p.normWhere = n, what
		}
	}
	global := func(ts [][]float32) float64 {
		var ss float64
		n := 0
		for _, x := range ts {
			r := rms32(x)
			ss += r * r * float64(len(x))
			n += len(x)
		}
		return math.Sqrt(ss / float64(max(n, 1)))
	}
	note("loss", []float32{float32(b.loss)}, []float32{float32(a.loss)}, 0)
	gradRMS := global(a.grads)
	for i := range a.grads {
		if r := rms32(a.grads[i]); r < zeroGrad*gradRMS {
			if rb := rms32(b.grads[i]); !(rb < zeroGrad*gradRMS) && !math.IsInf(p.worst, 1) {
				p.worst, p.where = math.Inf(1), fmt.Sprintf("gradient of %s: RMS %g, the CPU's %g (rounding noise), the whole gradient's %g", a.names[i], rb, r, gradRMS)
			}
			continue
		}
		note("gradient of "+a.names[i], b.grads[i], a.grads[i], gradFloor*gradRMS)
		if os.Getenv("LLPFC_OPENCL_PARITY_DEBUG") != "" {
			r, j := relDiff(b.grads[i], a.grads[i], gradFloor*gradRMS)
			fmt.Printf("  %-36s rms %.3g  worst %.3g at %d (%g, CPU %g) norm %.3g\n", a.names[i], rms32(a.grads[i]), r, j, b.grads[i][j], a.grads[i][j], normDiff(b.grads[i], a.grads[i], gradFloor*gradRMS))
		}
	}
	for i := range a.running {
		note(fmt.Sprintf("running statistic %d", i), b.running[i], a.running[i], 0)
	}
	paramRMS := global(a.params)
	for i := range a.params {
		note("parameter "+a.names[i], b.params[i], a.params[i], paramRMS)
	}
	return p
}

func openCLBackend(t *testing.T) device.Backend {
	t.Helper()
	ocltest.Require(t)
	be, err := device.Open(ocltest.Device())
	require.NoError(t, err)
	return be
}

// withParityVAT sets LLP-VAT's ξ to 1 for the parity tests: at the paper's
// ξ = 1e-6 the power iteration's gradient is O(ξ²) and, in float32, its
// direction is rounding noise on any device (vat.go, normalizeRows), so
// the CPU and the device draw different adversarial directions.
func withParityVAT(t *testing.T) {
	xi := LLPVATConfig.Xi
	LLPVATConfig.Xi = 1
	t.Cleanup(func() { LLPVATConfig.Xi = xi })
}

// TestOpenCLParity: for every model × method of the op list
// (training/testdata/ops.golden), the first step's loss, every gradient
// and the batch-norm running statistics after it, and the parameters
// after paritySteps SGD steps, on the OpenCL device equal the CPU back
// end's within parityTol (compareStates: tensor by tensor, and entry by
// entry within entryTol). LLPFC_OPENCL_PARITY=full adds VGG16's other
// methods,
// LLPFC_OPENCL_PARITY=model×method,… runs those only;
// LLPFC_OPENCL_PARITY_CASES=model/method/batch/side[/seed[/shiftBN]],…
// runs other configurations; LLPFC_OPENCL_PARITY_DEBUG prints every
// gradient's differences.
func TestOpenCLParity(t *testing.T) {
	ocltest.Require(t)
	if testing.Short() {
		t.Skip("trains every paper model on the OpenCL device (-short)")
	}
	withParityVAT(t)
	sel := os.Getenv("LLPFC_OPENCL_PARITY")
	cases := parityCases(sel == "full")
	if x := os.Getenv("LLPFC_OPENCL_PARITY_CASES"); x != "" { // model/method/batch/side,…
		cases = nil
		for _, f := range strings.Split(x, ",") {
			p := strings.Split(f, "/")
			c := parityCase{model: p[0], method: p[1], chunk: 4, bagSize: 2}
			fmt.Sscan(p[2], &c.batch)
			fmt.Sscan(p[3], &c.side)
			c.chunk = 2 * c.batch
			if len(p) > 4 {
				fmt.Sscan(p[4], &c.seed)
			}
			if len(p) > 5 {
				fmt.Sscan(p[5], &c.shiftBN)
			}
			cases = append(cases, c)
		}
		sel = ""
	}
	for _, c := range cases {
		if sel != "" && sel != "full" && !strings.Contains(","+sel+",", ","+c.model+"×"+c.method+",") {
			continue
		}
		t.Run(c.model+"×"+c.method, func(t *testing.T) {
			ref := runSteps(t, cpu.New(), c)
			be := openCLBackend(t)
			defer be.Close()
			got := runSteps(t, be, c)
			p := compareStates(ref, got)
			t.Logf("%v: %v", c, p)
			assert.True(t, p.ok(), "%v: %v", c, p)
		})
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
	assert.True(t, compareStates(ref, same).ok(), "rounding-sized differences pass")
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
		assert.False(t, p.ok(), "a perturbed %s should fail (%v)", name, p)
	}
}
