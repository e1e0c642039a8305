package training

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/llpfc/llpfc/training/optim"
	"gorgonia.org/tensor"
)

// StepBenchConfig configures RunStepBenchmark: the speed of one training
// step of a registered method (forward pass, loss, backward pass and
// optimizer update) on random data, as Train runs it.
type StepBenchConfig struct {
	// Model is a registered architecture (mlp, cnn, …).
	Model string
	// Method is a registered training method; "" means llpfc-uniform (the
	// FC loss of Algorithm `algo:LLPFC-uniform`).
	Method string
	// BatchSize is the minibatch size (instances for LLPFC); 0 means 128.
	BatchSize int
	// Steps timed (0 means 20) after Warmup untimed steps (buffers are
	// allocated on the first step, so use at least 1).
	Steps, Warmup int
	// Channels×Height×Width of the random images (0 means 1×28×28, the
	// Fashion-MNIST shape) and the number of classes (0 means 10).
	Channels, Height, Width, Classes int
	// BagSize of the random bags (0 means 128).
	BagSize int
	// Seed of the random data and initialisation.
	Seed int64
	// Optimizer (zero value: Adam with learning rate 1e-3).
	Optimizer optim.Config
	// Device is the compute back end, as Config.Device ("" means cpu).
	Device string
	// CPUTime, if set, returns the process's CPU time so far (user +
	// system); the result then reports CPU seconds per step as well, which
	// is less sensitive to other processes on a shared machine than wall
	// time.
	CPUTime func() time.Duration
}

// StepBenchResult is the outcome of RunStepBenchmark.
type StepBenchResult struct {
	Model     string `json:"model"`
	Method    string `json:"method"`
	BatchSize int    `json:"batch_size"`
	Steps     int    `json:"steps"`
	// Seconds is the wall time of the timed steps.
	Seconds float64 `json:"seconds"`
	// ImagesPerSecond is Steps·BatchSize/Seconds (wall time).
	ImagesPerSecond float64 `json:"images_per_second"`
	// CPUSecondsPerStep is the process CPU time per timed step (0 if
	// StepBenchConfig.CPUTime was nil); ImagesPerCPUSecond is its
	// throughput counterpart.
	CPUSecondsPerStep  float64 `json:"cpu_seconds_per_step"`
	ImagesPerCPUSecond float64 `json:"images_per_cpu_second"`
	// AllocBytesPerStep is the heap allocated per timed step
	// (runtime.MemStats.TotalAlloc difference / Steps).
	AllocBytesPerStep float64 `json:"alloc_bytes_per_step"`
	// FinalLoss is the loss of the last step; ParamCount the number of
	// scalar parameters.
	FinalLoss  float64 `json:"final_loss"`
	ParamCount int     `json:"param_count"`
	// PeakRSSBytes is the process's peak resident set size after the run
	// (set by the caller, e.g. `llpfc bench`; 0 if not measured).
	PeakRSSBytes int64 `json:"peak_rss_bytes,omitempty"`
	// GOMAXPROCS at the time of the run and BLASName of the build.
	GOMAXPROCS int    `json:"gomaxprocs"`
	BLAS       string `json:"blas"`
	// Device is the compute back end that ran the steps.
	Device string `json:"device"`
}

func (c StepBenchConfig) withDefaults() (StepBenchConfig, error) {
	if c.Method == "" {
		c.Method = MethodLLPFCUniform
	}
	if c.BatchSize == 0 {
		c.BatchSize = 128
	}
	if c.Steps == 0 {
		c.Steps = 20
	}
	if c.Channels == 0 && c.Height == 0 && c.Width == 0 {
		c.Channels, c.Height, c.Width = 1, 28, 28
	}
	if c.Classes == 0 {
		c.Classes = 10
	}
	if c.BagSize == 0 {
		c.BagSize = 128
	}
	if c.Optimizer.Name == "" {
		c.Optimizer = optim.Config{Name: "adam", LR: 1e-3}
	}
	switch {
	case c.BatchSize < 1:
		return c, fmt.Errorf("step benchmark: batch size %d, want ≥ 1", c.BatchSize)
	case c.Steps < 1:
		return c, fmt.Errorf("step benchmark: steps %d, want ≥ 1", c.Steps)
	case c.Warmup < 0:
		return c, fmt.Errorf("step benchmark: warm-up steps %d, want ≥ 0", c.Warmup)
	case c.Channels < 1 || c.Height < 1 || c.Width < 1:
		return c, fmt.Errorf("step benchmark: image %d×%d×%d, want positive sizes", c.Channels, c.Height, c.Width)
	case c.Classes < 2:
		return c, fmt.Errorf("step benchmark: %d classes, want ≥ 2", c.Classes)
	case c.BagSize < 1:
		return c, fmt.Errorf("step benchmark: bag size %d, want ≥ 1", c.BagSize)
	}
	return c, nil
}

// benchBagData returns numBags bags of size m of random images (entries
// U(0,1)); bag b's labels cycle through the classes from class b, so its
// proportions are near uniform and the groups' T̂ are invertible.
func benchBagData(seed int64, numBags, m, ch, h, w, classes int) *TrainData {
	r := rng.New(seed, "bench-data")
	D := ch * h * w
	d := &TrainData{X: make([]float32, numBags*m*D), Channels: ch, Height: h, Width: w, Bags: &estimators.BagSet{NumClasses: classes}}
	for i := range d.X {
		d.X[i] = r.Float32()
	}
	for b := 0; b < numBags; b++ {
		bag := estimators.Bag{ID: b, Size: m, Proportions: make([]float64, classes)}
		for i := 0; i < m; i++ {
			bag.Indices = append(bag.Indices, b*m+i)
			bag.Proportions[(b+i)%classes] += 1 / float64(m)
		}
		d.Bags.Bags = append(d.Bags.Bags, bag)
	}
	return d
}

// RunStepBenchmark times cfg.Steps training steps of cfg.Method with
// cfg.Model on random data exactly as Train runs them: the method's graph
// (built once), its Step (minibatch assembly, forward, loss, backward) and
// the optimizer update. Epochs are begun (reshuffled) as the steps run
// through the data. It is the project side of `llpfc bench` and `make
// bench` (issue 7).
func RunStepBenchmark(ctx context.Context, cfg StepBenchConfig) (*StepBenchResult, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	// Enough bags for 2·C groups of bags and at least 8 minibatches.
	numBags := max(2*cfg.Classes, (8*cfg.BatchSize+cfg.BagSize-1)/cfg.BagSize)
	data := benchBagData(cfg.Seed, numBags, cfg.BagSize, cfg.Channels, cfg.Height, cfg.Width, cfg.Classes)
	tc := Config{Method: cfg.Method, Model: nn.ModelSpec{Name: cfg.Model}, Optimizer: cfg.Optimizer, BatchSize: cfg.BatchSize, Epochs: 1, Seed: cfg.Seed, Device: cfg.Device}
	tc, err = tc.withDefaults()
	if err != nil {
		return nil, err
	}
	spec := tc.Model
	spec.Channels, spec.Height, spec.Width = cfg.Channels, cfg.Height, cfg.Width
	spec.NumClasses = cfg.Classes
	spec.Dtype = tensor.Float32
	st, err := newStepper(&tc, data, spec)
	if err != nil {
		return nil, fmt.Errorf("step benchmark: %w", err)
	}
	defer st.Close()
	model, method := st.model, st.method
	opt, err := st.backend.NewOptimizer(tc.Optimizer, st.learn, st.grads)
	if err != nil {
		return nil, err
	}
	epoch, step, steps := 0, 0, 0
	var loss float64
	one := func() error {
		if step == steps {
			if steps, err = method.BeginEpoch(epoch); err != nil {
				return err
			}
			if steps < 1 {
				return errors.New("step benchmark: epoch without a minibatch")
			}
			epoch++
			step = 0
		}
		l, _, err := st.step(step, opt, tc.Optimizer.LR)
		if err != nil {
			return fmt.Errorf("step benchmark: step %d: %w", step, err)
		}
		loss = l
		step++
		return nil
	}
	for i := 0; i < cfg.Warmup; i++ {
		if err := one(); err != nil {
			return nil, err
		}
	}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	var cpu0 time.Duration
	if cfg.CPUTime != nil {
		cpu0 = cfg.CPUTime()
	}
	t0 := time.Now()
	for i := 0; i < cfg.Steps; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := one(); err != nil {
			return nil, err
		}
	}
	dt := time.Since(t0)
	res := &StepBenchResult{
		Model: cfg.Model, Method: tc.Method, BatchSize: cfg.BatchSize, Steps: cfg.Steps,
		Seconds: dt.Seconds(), FinalLoss: loss, ParamCount: nn.ParamCount(model), GOMAXPROCS: runtime.GOMAXPROCS(0), BLAS: nn.BLASName, Device: st.backend.Name(),
	}
	if cfg.CPUTime != nil {
		cpu := (cfg.CPUTime() - cpu0).Seconds()
		res.CPUSecondsPerStep = cpu / float64(cfg.Steps)
		if cpu > 0 {
			res.ImagesPerCPUSecond = float64(cfg.Steps*cfg.BatchSize) / cpu
		}
	}
	runtime.ReadMemStats(&ms1)
	res.AllocBytesPerStep = float64(ms1.TotalAlloc-ms0.TotalAlloc) / float64(cfg.Steps)
	if dt > 0 {
		res.ImagesPerSecond = float64(cfg.Steps*cfg.BatchSize) / dt.Seconds()
	}
	return res, nil
}
