package training

import (
	"fmt"
	"math"
	"strings"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/device/cpu"
	"github.com/llpfc/llpfc/training/device/opcheck"
	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/methods"
	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/tensor"
)

// The parity checks of a compute back end against the CPU's (library code,
// so that `llpfc devices --check` on a GPU machine and TestOpenCLParity
// share them): for a model × method with tiny inputs, the
// first training step's loss, gradients and batch-norm running statistics
// and the parameters after paritySteps SGD steps, on the device and on the
// CPU back end, compared tensor by tensor and entry by entry.

// ParityTol is the parity tests' tolerance: every tensor of the device's
// results — the loss, each gradient, each batch-norm running statistic,
// each parameter after the steps — is within ParityTol of the CPU's,
// ‖device − CPU‖ ≤ ParityTol·max(‖CPU‖, floor·√n) (relative, scaled by the
// tensor's norm, since an entry whose value cancels carries the rounding
// of the terms it sums), and every entry within EntryTol of the larger of
// its magnitude, its tensor's RMS and the floor. The floor is gradFloor
// times the whole gradient's RMS for a gradient, the RMS of all the
// parameters for a parameter (a bias initialized to zero holds the
// rounding noise of zeroGrad gradients), 0 otherwise.
const ParityTol, EntryTol = 1e-4, 1e-3

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

// ParityCase is a model × method of the op list with its tiny inputs.
type ParityCase struct {
	Model, Method string
	Batch, Chunk  int // minibatch (instances or bags) and KL/VAT chunk
	BagSize       int
	Side          int     // image height and width
	Seed          int64   // Config.Seed (0: 3)
	ShiftBN       float32 // if not 0, every batch-norm shift β starts at it
	// Dropout is the model's dropout probability (nn.ModelSpec.Dropout;
	// 0: the model's default). The masks are drawn where each back end
	// runs, the same on both (nn.Dropout), so parity stays exact.
	Dropout float64
	// Augment turns on the appendix's crop and flip (Config.Augment =
	// PaperCropFlip.Op()): drawn and applied where each back end runs,
	// the same pixels on both (nn.CropFlip).
	Augment bool
}

func (c ParityCase) String() string { return c.Model + " × " + c.Method }

// ParityCases are the model × method cases of ops.golden with their
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
// inputs). WRN-16-4 trains with Table 1's dropout (0.3), VGG16 with its
// default (0.5), LLP-GAN's discriminator with its own: their masks are
// drawn on each device from the same keys. WRN-16-4, LLP-GAN and the bag
// objectives' two-chunk cnn-bn cases train with the appendix's crop and
// flip, drawn on each device from the same keys and minibatch rows. VGG16 runs only llpfc-uniform unless full is set (its
// classifier's 134 million parameters take ~5 GB on the two back ends);
// LLP-GAN runs on 16×16 images.
//
// The cases come from the registered methods (training/methods): LLP-GAN's
// family on llpgan-d; a bag objective (methods.RegisterBag) on the mlp and
// on cnn-bn with two chunks a minibatch (the exact batch-norm sweep under
// its head); every other method on each classifier model. One LLPFC
// algorithm (uniform) stands for the three: they share one graph and differ
// only in what the host estimates.
func ParityCases(full bool) []ParityCase {
	var cs []ParityCase
	for _, d := range methods.All() {
		switch {
		case !d.RunsOn("opencl"):
		case d.Family == methods.FamilyAdversarial:
			cs = append(cs, ParityCase{Model: ModelLLPGAND, Method: d.Name, Batch: 2, Chunk: 4, BagSize: 2, Side: 16, Augment: true})
		case d.Bag != nil:
			cs = append(cs, ParityCase{Model: ModelMLP, Method: d.Name, Batch: 2, Chunk: 4, BagSize: 2, Side: 32},
				ParityCase{Model: ModelCNNBN, Method: d.Name, Batch: 2, Chunk: 3, BagSize: 2, Side: 32, Augment: true})
		case d.Family == methods.FamilyLLPFC && d.Mode != estimators.ModeUniform:
		default:
			cs = append(cs, modelParityCases(d, full)...)
		}
	}
	return cs
}

// modelParityCases are d's cases on each classifier model.
func modelParityCases(d *methods.Descriptor, full bool) []ParityCase {
	var cs []ParityCase
	for _, model := range []string{ModelMLP, ModelCNN, ModelCNNBN, ModelWRN164, ModelResNet18, ModelVGG16} {
		c := ParityCase{Model: model, Method: d.Name, Batch: 2, Chunk: 4, BagSize: 2, Side: 32}
		switch model {
		case ModelCNNBN:
			if d.Batch == methods.Bags {
				c.Chunk = 3 // two chunks, the second padded: the exact batch-norm sweep
			}
		case ModelWRN164:
			// Table 1's CIFAR10 dropout, its masks drawn on the device;
			// with them some ReLU input of the KL step lies within
			// rounding of 0 at β = 0 (the CPU's own gradient moved by 1 %)
			// and its augmentation (the preset's)
			c.Side, c.Dropout, c.ShiftBN, c.Augment = 16, 0.3, 3, true
		case ModelResNet18, ModelVGG16:
			// four images a minibatch: four instances, or two bags of two
			c.Side, c.ShiftBN = 64, 3
			if model == ModelVGG16 {
				c.Side = 32
			}
			if d.Batch == methods.Instances {
				c.Batch = 4
			}
			if model == ModelVGG16 && !full && d.Family != methods.FamilyLLPFC {
				continue
			}
		}
		cs = append(cs, c)
	}
	return cs
}

// runSteps builds c's graphs on be as Train does and runs paritySteps
// training steps, recording the first one's loss (tallied on the device
// where the back end defers it, read from its tally), gradients and
// running statistics and the parameters after the last.
func runSteps(be device.Backend, c ParityCase) (*stepState, error) {
	data := parityData(c.BagSize, c.Side)
	cfg := Config{Method: c.Method, Model: nn.ModelSpec{Name: c.Model, Dropout: c.Dropout}, Optimizer: OptimizerConfig{Name: "sgd", LR: 1e-3, Momentum: 0.9},
		BatchSize: c.Batch, Epochs: 1, ChunkSize: c.Chunk, Seed: max(c.Seed, 3),
		VAT: loss.VATConfig{Xi: 1, Eps: 1, PowerIters: 1}}
	if c.Augment {
		cfg.Augment = PaperCropFlip.Op()
	}
	cfg, err := withDefaults(cfg)
	if err != nil {
		return nil, err
	}
	spec := cfg.Model
	spec.Channels, spec.Height, spec.Width, spec.NumClasses, spec.Dtype = 3, c.Side, c.Side, 10, tensor.Float32
	d, ok := methods.Lookup(c.Method)
	if !ok {
		return nil, methods.UnknownError(c.Method)
	}
	st, err := buildStepper(be, d.New, &cfg, data, spec)
	if err != nil {
		return nil, err
	}
	defer st.method.Close()
	if err := shiftBatchNorm(st, c.ShiftBN); err != nil {
		return nil, err
	}
	opt, err := be.NewOptimizer(cfg.Optimizer, st.learn, st.grads)
	if err != nil {
		return nil, err
	}
	n, err := st.method.BeginEpoch(0)
	if err != nil {
		return nil, err
	}
	if n < paritySteps {
		return nil, fmt.Errorf("%d steps in the epoch, want ≥ %d", n, paritySteps)
	}
	if err := st.beginEpoch(0); err != nil {
		return nil, err
	}
	out := &stepState{}
	for _, p := range st.learn {
		out.names = append(out.names, p.Name())
	}
	for s := 0; s < paritySteps; s++ {
		if err := st.grads.Reset(); err != nil {
			return nil, err
		}
		d, deferred := st.grads.(device.Deferred)
		if deferred {
			d.BeginStep(s)
		}
		loss, _, err := st.method.Step(s, st.grads)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", s, err)
		}
		if s == 0 {
			if deferred && d.LossAdded() {
				t, err := d.Sync()
				if err != nil {
					return nil, err
				}
				loss += t.LossSum // what the method tallied on the device, beside what it returned
			}
			if err := recordFirstStep(st, out, loss); err != nil {
				return nil, err
			}
		}
		if err := opt.Step(cfg.Optimizer.LR); err != nil {
			return nil, err
		}
	}
	if err := st.pull(); err != nil {
		return nil, err
	}
	for _, p := range st.params {
		out.params = append(out.params, append([]float32(nil), p...))
	}
	return out, nil
}

// shiftBatchNorm starts every batch-norm shift β at shift (if not 0).
func shiftBatchNorm(st *stepper, shift float32) error {
	if shift == 0 {
		return nil
	}
	for i, p := range st.learn {
		if strings.HasSuffix(p.Name(), ".beta") {
			for j := range st.params[i] {
				st.params[i][j] = shift
			}
		}
	}
	return st.backend.Push(st.learn...)
}

// recordFirstStep keeps the first step's loss, gradients and running
// statistics (pulled from the device where it keeps them).
func recordFirstStep(st *stepper, out *stepState, loss float64) error {
	out.loss = loss
	g := make([][]float64, len(st.learn))
	for i, p := range st.params {
		g[i] = make([]float64, len(p))
	}
	if err := st.grads.Read(g); err != nil {
		return err
	}
	for i := range g {
		out.grads = append(out.grads, f32s(g[i]))
		g[i] = nil
	}
	if bn, ok := st.model.(nn.BatchNormModel); ok {
		if err := st.backend.Pull(device.Held(st.backend, bn.RunningStats())...); err != nil {
			return err
		}
	}
	bufs, err := runningStats(st.model)
	if err != nil {
		return err
	}
	for _, b := range bufs {
		out.running = append(out.running, append([]float32(nil), b...))
	}
	return nil
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

// Parity is what compareStates finds: the worst entry (opcheck.Worst) and the
// worst tensor, ‖a − b‖/‖b‖ (norm).
type Parity struct {
	Worst     float64
	Where     string
	Norm      float64
	NormWhere string
}

// OK reports whether the device's results are within the tolerances.
func (p Parity) OK() bool { return p.Norm <= ParityTol && p.Worst <= EntryTol }

func (p Parity) String() string {
	return fmt.Sprintf("worst entry %.3g (%s), worst tensor %.3g (%s)", p.Worst, p.Where, p.Norm, p.NormWhere)
}

// compareStates compares b with the reference a entry by entry (opcheck.Worst)
// and tensor by tensor: the loss, each gradient, each running statistic
// and each parameter after the steps.
func compareStates(a, b *stepState) Parity {
	var p Parity
	note := func(what string, x, ref []float32, floor float64) {
		if len(x) != len(ref) {
			p.Worst, p.Where = math.Inf(1), what+": lengths differ"
			return
		}
		if r, i := opcheck.Worst(x, ref, floor); r > p.Worst || math.IsNaN(r) {
			p.Worst, p.Where = r, fmt.Sprintf("%s[%d] = %g, CPU %g", what, i, x[i], ref[i])
		}
		if n := normDiff(x, ref, floor); n > p.Norm || math.IsNaN(n) {
			p.Norm, p.NormWhere = n, what
		}
	}
	global := func(ts [][]float32) float64 {
		var ss float64
		n := 0
		for _, x := range ts {
			r := opcheck.RMS(x)
			ss += r * r * float64(len(x))
			n += len(x)
		}
		return math.Sqrt(ss / float64(max(n, 1)))
	}
	note("loss", []float32{float32(b.loss)}, []float32{float32(a.loss)}, 0)
	gradRMS := global(a.grads)
	for i := range a.grads {
		if r := opcheck.RMS(a.grads[i]); r < zeroGrad*gradRMS {
			if rb := opcheck.RMS(b.grads[i]); !(rb < zeroGrad*gradRMS) && !math.IsInf(p.Worst, 1) {
				p.Worst, p.Where = math.Inf(1), fmt.Sprintf("gradient of %s: RMS %g, the CPU's %g (rounding noise), the whole gradient's %g", a.names[i], rb, r, gradRMS)
			}
			continue
		}
		note("gradient of "+a.names[i], b.grads[i], a.grads[i], gradFloor*gradRMS)
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

// CheckParity runs c on the CPU back end and on the back end device names
// ("opencl:0:0") and compares the results (Parity.OK: within ParityTol
// and EntryTol). LLP-VAT runs with ξ = 1 (at the paper's ξ = 1e-6 the
// power iteration's direction is float32 rounding noise on any device,
// vat.go, normalizeRows, so two devices draw different adversarial
// directions).
func CheckParity(dev string, c ParityCase) (Parity, error) {
	ref, err := runSteps(cpu.New(), c)
	if err != nil {
		return Parity{}, fmt.Errorf("%v on the CPU: %w", c, err)
	}
	be, err := device.Open(dev)
	if err != nil {
		return Parity{}, err
	}
	defer be.Close()
	got, err := runSteps(be, c)
	if err != nil {
		return Parity{}, fmt.Errorf("%v on %s: %w", c, be.Name(), err)
	}
	return compareStates(ref, got), nil
}
