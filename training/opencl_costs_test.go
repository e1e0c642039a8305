package training

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/internal/opencl/ocltest"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/llpfc/llpfc/training/optim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// modelState are the buffer roles (opencl.Role) of a model's state: none of
// them may cross the bus in a training step.
var modelState = []string{"parameter", "gradient", "optimizer state", "running statistics"}

// deviceStepper builds model's llpfc-uniform stepper on the OpenCL test
// device as RunStepBenchmark does, with its optimizer.
func deviceStepper(t *testing.T, model string, side, batch int, opt optim.Config) (*stepper, device.Optimizer) {
	st, o, _ := deviceStepperData(t, model, side, batch, opt)
	return st, o
}

// deviceStepperData is deviceStepper, with the training data.
func deviceStepperData(t *testing.T, model string, side, batch int, opt optim.Config) (*stepper, device.Optimizer, *TrainData) {
	t.Helper()
	ocltest.Require(t)
	data := benchBagData(1, max(20, (8*batch+7)/8), 8, 3, side, side, 10)
	cfg, err := withDefaults(Config{Method: MethodLLPFCUniform, Model: nn.ModelSpec{Name: model}, Optimizer: opt, BatchSize: batch, Epochs: 1, Seed: 1,
		Device: ocltest.Device()})
	require.NoError(t, err)
	spec := cfg.Model
	spec.Channels, spec.Height, spec.Width, spec.NumClasses = 3, side, side, 10
	st, err := newStepper(&cfg, data, spec)
	require.NoError(t, err)
	t.Cleanup(st.Close)
	o, err := st.backend.NewOptimizer(cfg.Optimizer, st.learn, st.grads)
	require.NoError(t, err)
	return st, o, data
}

// steadySteps runs steps training steps of st (beginning epoch 0) and
// returns the device's costs over them, with no loss read.
func steadySteps(t *testing.T, st *stepper, opt device.Optimizer, steps int) device.Costs {
	t.Helper()
	n, err := st.method.BeginEpoch(0)
	require.NoError(t, err)
	require.NoError(t, st.beginEpoch(0))
	before := st.backend.(device.CostCounter).Costs()
	for s := 0; s < steps; s++ {
		_, err := st.step(s%n, opt, 1e-3)
		require.NoError(t, err)
	}
	return st.backend.(device.CostCounter).Costs().Sub(before)
}

// TestStepCostsOnTheDevice: on the OpenCL device, steady-state training
// steps (after a first one that allocates) move no parameter, gradient,
// optimizer state or running statistic across the bus in either
// direction, read nothing back, never make the host wait and allocate no
// device memory; the one blocking read is the loss sum of a step that
// logs (stepper.lossSum), which reads the step flag and nothing else. For
// the mlp, cnn, cnn-bn and WRN-16-4 (batch norm with running averages on
// the device) with Adam, and cnn-bn with Nesterov momentum.
func TestStepCostsOnTheDevice(t *testing.T) {
	ocltest.Require(t)
	for _, c := range []struct {
		model string
		side  int
		opt   optim.Config
	}{
		{ModelMLP, 8, optim.Config{Name: "adam", LR: 1e-3}},
		{ModelCNN, 8, optim.Config{Name: "adam", LR: 1e-3}},
		{ModelCNNBN, 8, optim.Config{Name: "adam", LR: 1e-3}},
		{ModelCNNBN, 8, optim.Config{Name: "nesterov", LR: 1e-2, Momentum: 0.9, WeightDecay: 5e-4}},
		{ModelWRN164, 8, optim.Config{Name: "adam", LR: 1e-3}},
	} {
		t.Run(c.model+"/"+c.opt.Name, func(t *testing.T) {
			st, opt := deviceStepper(t, c.model, c.side, 8, c.opt)
			steadySteps(t, st, opt, 1) // allocates the activations and workspaces
			_, err := st.lossSum()
			require.NoError(t, err)
			costs := steadySteps(t, st, opt, 3)
			for _, role := range modelState {
				assert.Zero(t, costs.Transfers[role], "%s: %s crossed the bus in 3 steps", c.model, role)
			}
			assert.Zero(t, costs.Reads, "%s: reads in 3 steps that log nothing", c.model)
			assert.Zero(t, costs.Waits, "%s: blocking waits in 3 steps that log nothing", c.model)
			assert.Zero(t, costs.Allocs, "%s: device allocations after the first step", c.model)
			assert.Positive(t, costs.Launches, "%s: the steps launched nothing", c.model)
			before := st.backend.(device.CostCounter).Costs()
			sum, err := st.lossSum()
			require.NoError(t, err)
			assert.True(t, sum > 0 && !math.IsInf(sum, 0), "%s: loss sum %v", c.model, sum)
			read := st.backend.(device.CostCounter).Costs().Sub(before)
			assert.Equal(t, int64(1), read.Reads, "%s: the logging step's reads", c.model)
			assert.Equal(t, int64(1), read.Waits, "%s: the logging step's waits", c.model)
			assert.Equal(t, map[string]device.Transfer{"step flag": {DtoH: 32}}, read.Transfers, "%s: what the logging step read", c.model)
		})
	}
}

// TestDeviceLossSumIsTheCPUs: the epoch loss tallied on the device is the
// host's sum of the same steps' losses (the eager path of the same back
// end), to the last bit where the device sums in double.
func TestDeviceLossSumIsTheCPUs(t *testing.T) {
	ocltest.Require(t)
	sums := make([]float64, 2)
	for i, deferred := range []bool{true, false} {
		st, opt := deviceStepper(t, ModelMLP, 8, 8, optim.Config{Name: "adam", LR: 1e-3})
		if !deferred {
			st.grads = eagerGrads{st.grads} // hides device.Deferred: the loss is read every step
		}
		steadySteps(t, st, opt, 5)
		var err error
		sums[i], err = st.lossSum()
		require.NoError(t, err)
	}
	assert.InDelta(t, sums[1], sums[0], 1e-12*math.Abs(sums[1]), "device tally %v, host sum %v", sums[0], sums[1])
}

// TestDeviceLossSumOfHostLosses: KL's loss (computed on the host from the
// first pass's outputs) and LLP-VAT's (KL's on the host, the consistency
// term tallied on the device through device.Glue) sum on a deferred
// device to what the eager path of the same back end sums (the host's
// checks and loss, LLP-VAT's passes handing their values through the
// host): exactly for KL, to 1e-6 for LLP-VAT, whose directions the
// device normalizes in its own arithmetic.
func TestDeviceLossSumOfHostLosses(t *testing.T) {
	ocltest.Require(t)
	for _, method := range []string{MethodKL, MethodLLPVAT} {
		sums := make([]float64, 2)
		for i, deferred := range []bool{true, false} {
			data := benchBagData(1, 12, 4, 3, 8, 8, 10)
			cfg, err := withDefaults(Config{Method: method, Model: nn.ModelSpec{Name: ModelCNN}, Optimizer: optim.Config{Name: "adam", LR: 1e-3},
				BatchSize: 2, Epochs: 1, Seed: 1, Device: ocltest.Device()})
			require.NoError(t, err)
			spec := cfg.Model
			spec.Channels, spec.Height, spec.Width, spec.NumClasses = 3, 8, 8, 10
			st, err := newStepper(&cfg, data, spec)
			require.NoError(t, err)
			opt, err := st.backend.NewOptimizer(cfg.Optimizer, st.learn, st.grads)
			require.NoError(t, err)
			if !deferred {
				st.grads = eagerGrads{st.grads}
			}
			steadySteps(t, st, opt, 4)
			sums[i], err = st.lossSum()
			require.NoError(t, err)
			st.Close()
		}
		require.Positive(t, sums[1], method)
		tol := 0.0
		if method == MethodLLPVAT {
			tol = 1e-6
		}
		assert.InDelta(t, sums[1], sums[0], tol*sums[1], "%s: deferred %v, eager %v", method, sums[0], sums[1])
	}
}

// eagerGrads hides a back end's device.Deferred.
type eagerGrads struct{ device.Grads }

// TestDeviceFlagsANonFiniteStep: a NaN in the training data makes the
// deferred checks flag the step: lossSum returns the NonFiniteError of
// that epoch and step (a loss, as the eager check names it first), and the
// parameters are those before the step (the guarded optimizer skipped it
// and every step after).
func TestDeviceFlagsANonFiniteStep(t *testing.T) {
	st, opt, data := deviceStepperData(t, ModelMLP, 8, 8, optim.Config{Name: "adam", LR: 1e-3})
	n, err := st.method.BeginEpoch(0)
	require.NoError(t, err)
	require.GreaterOrEqual(t, n, 4)
	require.NoError(t, st.beginEpoch(0))
	for s := 0; s < 2; s++ {
		_, err := st.step(s, opt, 1e-3)
		require.NoError(t, err)
	}
	require.NoError(t, st.pull())
	before := cloneAll(st.params)
	for i := range data.X { // every instance: step 2's among them
		data.X[i] = float32(math.NaN())
	}
	for s := 2; s < 4; s++ {
		_, err := st.step(s, opt, 1e-3)
		require.NoError(t, err, "a deferred step does not wait to learn of its NaN")
	}
	_, err = st.lossSum()
	var nf *NonFiniteError
	require.True(t, errors.As(err, &nf), "lossSum: %v", err)
	assert.Contains(t, err.Error(), "epoch 1 step 3: ") // counted from 1, as the progress lines
	assert.Equal(t, "loss", nf.What)
	assert.True(t, math.IsNaN(nf.Value))
	require.NoError(t, st.pull())
	for i := range before {
		assert.Equal(t, before[i], st.params[i], "parameter %s changed after the flagged step", st.learn[i].Name())
	}
}

// TestDeviceMemoryRefusesBeforeStep1: with the device's memory set below
// what a model needs (LLPFC_OPENCL_GLOBAL_MEM), Train and the step
// benchmark refuse before the first step with an InputError naming the
// device, what the run needs and the parts (parameters, activations);
// with the device's own memory the same run trains.
func TestDeviceMemoryRefusesBeforeStep1(t *testing.T) {
	ocltest.Require(t)
	cfg := StepBenchConfig{Model: ModelCNN, BatchSize: 64, Steps: 1, Channels: 1, Height: 28, Width: 28, Device: ocltest.Device()}
	t.Setenv("LLPFC_OPENCL_GLOBAL_MEM", "4M")
	_, err := RunStepBenchmark(context.Background(), cfg)
	var ie *InputError
	require.True(t, errors.As(err, &ie), "want an InputError, got %v", err)
	var me *device.MemoryError
	require.True(t, errors.As(err, &me), "want a MemoryError, got %v", err)
	assert.Equal(t, int64(4<<20), me.Limit)
	assert.Greater(t, me.Need, me.Limit)
	for _, s := range []string{"needs at least", "parameters", "activations of the largest program", "4 MiB", "CL_DEVICE_GLOBAL_MEM_SIZE"} {
		assert.Contains(t, err.Error(), s)
	}
	// The need is an account of its parts, and at least the parameters,
	// their gradients and Adam's two moments (4 copies of the model).
	var sum int64
	for _, p := range me.Parts {
		sum += p.Bytes
	}
	assert.Equal(t, me.Need, sum, "the parts add up to the need")
	params := int64(nn.ParamCount(mustModel(t, ModelCNN))) * 4
	assert.GreaterOrEqual(t, me.Need, 4*params, "parameters, gradients and two moments")
	t.Setenv("LLPFC_OPENCL_GLOBAL_MEM", fmt.Sprint(me.Need))
	_, err = RunStepBenchmark(context.Background(), cfg)
	require.NoError(t, err, "with exactly the memory it needs the run is not refused")
	t.Setenv("LLPFC_OPENCL_GLOBAL_MEM", "")
	_, err = RunStepBenchmark(context.Background(), cfg)
	require.NoError(t, err)
	assert.False(t, strings.Contains(fmt.Sprint(err), "device memory"))
}

// mustModel builds model for 1×28×28 images in a graph of its own.
func mustModel(t *testing.T, model string) nn.Model {
	t.Helper()
	spec := nn.ModelSpec{Name: model, Channels: 1, Height: 28, Width: 28, NumClasses: 10, Dtype: tensor.Float32}
	m, err := models.NewModel(gorgonia.NewGraph(), spec, rng.New(1, "init"))
	require.NoError(t, err)
	return m
}

// TestPresetStepsUploadOnlyTheirBatch: a training step of each paper
// preset's network with its own dropout and the appendix's augmentation
// (crop and flip, on the host before the batch goes up) on the OpenCL
// device — WRN-16-4 (dropout 0.3, Nesterov momentum and weight decay),
// ResNet-18 (SGD with momentum) and VGG16 (dropout 0.5), small images and
// batches, llpfc-uniform — uploads no more than its input batch (the
// images, T̂'s rows and the weights: 4·B·(C·H·W + classes + 1) bytes,
// all of the "input" kind), reads nothing back and never waits; the step
// that logs waits once. Dropout's masks drawn on the host and uploaded as
// inputs (tens of millions of values a step for WRN-16-4 at batch 128)
// fail it.
//
// KL on WRN-16-4 (two bags of 8, one chunk) and on cnn-bn (two bags of 8
// in chunks of 6: the exact batch-norm sweep, 2·13 + 1 forward and 13 + 1
// backward sweeps of 3 chunks a step for WRN-16-4's 13 layers) waits once
// a step — its first pass's outputs, read as the chunks run — reads back
// only those (4·n·C bytes a step, one read a chunk) and uploads the
// minibatch's images for each pass that runs over them and the second
// pass's coefficients, no model state: the batch-norm statistics of every
// run and sweep, the running averages' updates and the gradients' checks
// stay on the device (28 blocking reads a step before, for WRN-16-4).
// LLP-VAT (KL and the consistency term; on WRN-16-4, and on the cnn in
// chunks of 6) waits only for KL's outputs and reads nothing more: its
// predictions, directions and losses stay on the device (device.Glue; 57
// blocking reads a step before, for WRN-16-4).
func TestPresetStepsUploadOnlyTheirBatch(t *testing.T) {
	ocltest.Require(t)
	nesterov := optim.Config{Name: "nesterov", LR: 0.01, Momentum: 0.9, WeightDecay: 5e-4}
	for _, c := range []struct {
		preset, model, method string
		dropout               float64
		side, batch, chunk    int
		opt                   optim.Config
	}{
		{"wrn16-4", ModelWRN164, MethodLLPFCUniform, 0.3, 8, 4, 0, nesterov},
		{"resnet18", ModelResNet18, MethodLLPFCUniform, 0, 32, 2, 0, optim.Config{Name: "sgd", LR: 0.1, Momentum: 0.9, WeightDecay: 1e-4}},
		{"vgg16", ModelVGG16, MethodLLPFCUniform, 0.5, 32, 2, 0, optim.Config{Name: "sgd", LR: 0.01, Momentum: 0.9, WeightDecay: 5e-4}},
		{"wrn16-4", ModelWRN164, MethodKL, 0.3, 8, 2, 0, nesterov},
		{"cnn-bn, exact sweep", ModelCNNBN, MethodKL, 0, 8, 2, 6, nesterov},
		{"wrn16-4", ModelWRN164, MethodLLPVAT, 0.3, 8, 2, 0, nesterov},
		{"cnn, chunks", ModelCNN, MethodLLPVAT, 0, 8, 2, 6, nesterov},
	} {
		t.Run(c.preset+"/"+c.method, func(t *testing.T) {
			const classes, steps, bag = 10, 3, 8
			data := benchBagData(1, 20, bag, 3, c.side, c.side, classes)
			cfg, err := withDefaults(Config{Method: c.method, Model: nn.ModelSpec{Name: c.model, Dropout: c.dropout}, Optimizer: c.opt,
				BatchSize: c.batch, Epochs: 1, Seed: 1, Device: ocltest.Device(), ChunkSize: c.chunk, Augment: PaperCropFlip.Op()})
			require.NoError(t, err)
			spec := cfg.Model
			spec.Channels, spec.Height, spec.Width, spec.NumClasses = 3, c.side, c.side, classes
			st, err := newStepper(&cfg, data, spec)
			require.NoError(t, err)
			defer st.Close()
			if c.dropout > 0 {
				_, ok := st.model.(nn.StochasticModel)
				require.True(t, ok, "%s with dropout %v is no StochasticModel", c.model, c.dropout)
			}
			opt, err := st.backend.NewOptimizer(cfg.Optimizer, st.learn, st.grads)
			require.NoError(t, err)
			steadySteps(t, st, opt, 1) // allocates the activations and workspaces
			_, err = st.lossSum()
			require.NoError(t, err)
			costs := steadySteps(t, st, opt, steps)
			for _, role := range modelState {
				tr := costs.Transfers[role]
				assert.True(t, tr.HtoD == 0 && tr.DtoH == 0, "%s: %v of %s crossed the bus", c.preset, tr, role)
			}
			if c.method == MethodKL || c.method == MethodLLPVAT {
				n := c.batch * bag // the minibatch's instances
				chunks := 1
				if c.chunk > 0 {
					chunks = (n + c.chunk - 1) / c.chunk
				}
				chunk := n / chunks
				if c.chunk > 0 {
					chunk = c.chunk
				}
				K := 0 // the batch-norm layers a sweep drives: K statistics sweeps (forward), K adjoint sweeps (backward)
				if c.chunk > 0 {
					K, err = models.BatchNormLayers(spec)
					require.NoError(t, err)
				}
				// every sweep uploads the chunks' images, every backward
				// sweep their coefficients (padded chunks)
				D := 3 * c.side * c.side
				up := int64(4 * chunks * chunk * ((2*K+2)*D + (K+1)*classes))
				if c.method == MethodKL {
					assert.Equal(t, steps*up, costs.BytesHtoD, "%s: bytes up", c.preset)
				} // LLP-VAT also uploads each chunk's images, weights and first direction to its passes
				assert.Equal(t, int64(steps*4*chunks*chunk*classes), costs.BytesDtoH, "%s: bytes read back (pass 1's outputs)", c.preset)
				assert.Equal(t, int64(steps*chunks), costs.Reads, "%s: reads (one a chunk)", c.preset)
				assert.Equal(t, int64(steps), costs.Waits, "%s: waits in %d steps", c.preset, steps)
				return
			}
			batch := int64(4 * c.batch * (3*c.side*c.side + classes + 1))
			assert.LessOrEqual(t, costs.BytesHtoD, steps*batch, "%s: %d bytes went up in %d steps, the input batches are %d bytes each", c.preset, costs.BytesHtoD, steps, batch)
			for role, tr := range costs.Transfers {
				assert.True(t, role == "input" || tr.HtoD == 0 && tr.DtoH == 0, "%s: %v of %s crossed the bus", c.preset, tr, role)
			}
			assert.Zero(t, costs.BytesDtoH, "%s: bytes read back in steps that log nothing", c.preset)
			assert.Zero(t, costs.Waits, "%s: blocking waits in steps that log nothing", c.preset)
			before := st.backend.(device.CostCounter).Costs()
			_, err = st.lossSum()
			require.NoError(t, err)
			assert.Equal(t, int64(1), st.backend.(device.CostCounter).Costs().Sub(before).Waits, "%s: the logging step's waits", c.preset)
		})
	}
}
