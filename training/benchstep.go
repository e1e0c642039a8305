package training

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/metrics"
	"time"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/internal/par"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/internal/stepprof"
	"github.com/llpfc/llpfc/training/device"
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
	// Dropout is the model's dropout probability (nn.ModelSpec.Dropout; 0:
	// the model's default) and Augment switches on the appendix's crop and
	// flip (PaperCropFlip): a paper preset's settings, so the step timed
	// is the one its cells train (bench/gpu/README.md: WRN-16-4's Table 1
	// step ran at an eighth of the dropout-free bench's speed).
	Dropout float64
	Augment bool
	// Profile adds one step after the timed ones profiled operation by
	// operation (device.Profiler) when the back end can.
	Profile bool
	// CPUTime, if set, returns the process's CPU time so far (user +
	// system); the result then reports CPU seconds per step as well, which
	// is less sensitive to other processes on a shared machine than wall
	// time.
	CPUTime func() time.Duration
	// EachStep, if set, is called before each timed step with its index:
	// a measurement can switch a setting between the steps there (as
	// BenchmarkWinogradSteps alternates F(2×2, 3×3) and F(4×4, 3×3)).
	EachStep func(i int)
	// ProfileCPU records the timed steps' step profile (internal/stepprof:
	// each operation's serial and parallel time on the CPU) into the
	// result's CPUProfile.
	ProfileCPU bool
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
	// GEMM names the matrix product's micro-kernel and panel sizes
	// (nn.GEMMKernels).
	GEMM string `json:"gemm"`
	// Schedule is how the CPU's parallel loops share their chunks out
	// (par.ActiveSchedule: dynamic or static; the same bits either way).
	Schedule string `json:"schedule"`
	// ParStart is how those loops get their goroutines (par.ActiveStart:
	// spawned for each loop, or pooled workers that spin between loops;
	// the same bits either way).
	ParStart string `json:"par_start"`
	// Device is the compute back end that ran the steps, and Numerics the
	// variant it computed with (Result.Numerics: on the OpenCL device the
	// products' CLBlast parameters and the convolutions' path, the
	// variants the GPU kit's sweep compares).
	Device   string `json:"device"`
	Numerics string `json:"numerics,omitempty"`
	// StepCosts are the device's work per timed step (the step costs that
	// decide a GPU's speed; zeros on the CPU, which has no device).
	StepCosts *StepCosts `json:"step_costs"`
	// DevicePeakBytes is the most device memory the run's buffers held at
	// once (0 on the CPU).
	DevicePeakBytes int64 `json:"device_peak_bytes"`
	// Dropout and Augment are the settings the steps ran with (the
	// model's dropout probability; the appendix's crop and flip).
	Dropout float64 `json:"dropout"`
	Augment bool    `json:"augment"`
	// Profile is the per-op profile of one more step (StepBenchConfig.Profile),
	// nil when not asked for or the back end keeps none.
	Profile *device.Profile `json:"profile,omitempty"`
	// CPUProfile is the timed steps' step profile (StepBenchConfig.ProfileCPU;
	// nil otherwise, or when another profile was being recorded).
	CPUProfile *stepprof.Profile `json:"cpu_profile,omitempty"`
	// GCCPUSecondsPerStep is the garbage collector's CPU time per timed step
	// (runtime/metrics' estimate; measured with ProfileCPU).
	GCCPUSecondsPerStep float64 `json:"gc_cpu_seconds_per_step,omitempty"`
}

// StepCosts are a back end's counts (device.Costs) over the timed steps,
// divided by their number: what one steady-state step launches, moves,
// waits for and allocates on its device. The timed steps end with one
// blocking read (the loss of the last step, as a training step that logs
// reads it), so BlockingWaits is 1/Steps where nothing else waits.
type StepCosts struct {
	Launches     float64 `json:"launches"`
	Kernels      float64 `json:"kernels"`
	BLASCalls    float64 `json:"blas_calls"`
	Copies       float64 `json:"copies"`
	Fills        float64 `json:"fills"`
	BytesHtoD    float64 `json:"bytes_host_to_device"`
	BytesDtoH    float64 `json:"bytes_device_to_host"`
	Reads        float64 `json:"reads"`
	Waits        float64 `json:"blocking_waits"`
	DeviceAllocs float64 `json:"device_allocations"`
	DeviceBytes  float64 `json:"device_bytes_allocated"`
	// Transfers are the bytes per step moved each way per kind of buffer.
	Transfers map[string]device.Transfer `json:"transfers,omitempty"`
	// Note says what the counts cover on this back end.
	Note string `json:"note"`
}

// perStep divides a back end's counts over steps steps.
func perStep(c device.Costs, steps int, note string) *StepCosts {
	n := float64(steps)
	sc := &StepCosts{Launches: float64(c.Launches) / n, Kernels: float64(c.Kernels) / n, BLASCalls: float64(c.BLASCalls) / n,
		Copies: float64(c.Copies) / n, Fills: float64(c.Fills) / n, BytesHtoD: float64(c.BytesHtoD) / n, BytesDtoH: float64(c.BytesDtoH) / n,
		Reads: float64(c.Reads) / n, Waits: float64(c.Waits) / n, DeviceAllocs: float64(c.Allocs) / n, DeviceBytes: float64(c.AllocBytes) / n, Note: note}
	for k, t := range c.Transfers {
		if sc.Transfers == nil {
			sc.Transfers = map[string]device.Transfer{}
		}
		sc.Transfers[k] = device.Transfer{HtoD: t.HtoD / int64(steps), DtoH: t.DtoH / int64(steps)}
	}
	return sc
}

// costsOf returns the back end's counts (zeros if it keeps none).
func costsOf(be device.Backend) (device.Costs, string) {
	if cc, ok := be.(device.CostCounter); ok {
		return cc.Costs(), cc.CostsNote()
	}
	return device.Costs{}, "this back end keeps no counts"
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
// bench` (the training step beside PyTorch's).
func RunStepBenchmark(ctx context.Context, cfg StepBenchConfig) (*StepBenchResult, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	// Enough bags for 2·C groups of bags and at least 8 minibatches.
	numBags := max(2*cfg.Classes, (8*cfg.BatchSize+cfg.BagSize-1)/cfg.BagSize)
	data := benchBagData(cfg.Seed, numBags, cfg.BagSize, cfg.Channels, cfg.Height, cfg.Width, cfg.Classes)
	tc := Config{Method: cfg.Method, Model: nn.ModelSpec{Name: cfg.Model, Dropout: cfg.Dropout}, Optimizer: cfg.Optimizer, BatchSize: cfg.BatchSize, Epochs: 1, Seed: cfg.Seed, Device: cfg.Device}
	if cfg.Augment {
		tc.Augment = PaperCropFlip.Op()
	}
	tc, err = withDefaults(tc)
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
	if err := checkDeviceMemory(st.backend); err != nil {
		return nil, err
	}
	epoch, step, steps := 0, 0, 0
	one := func() error {
		if step == steps {
			if steps, err = method.BeginEpoch(epoch); err != nil {
				return err
			}
			if steps < 1 {
				return errors.New("step benchmark: epoch without a minibatch")
			}
			if err := st.beginEpoch(epoch); err != nil {
				return err
			}
			epoch++
			step = 0
		}
		if _, err := st.step(step, opt, tc.Optimizer.LR); err != nil {
			return fmt.Errorf("step benchmark: step %d: %w", step, err)
		}
		step++
		return nil
	}
	for i := 0; i < cfg.Warmup; i++ {
		if err := one(); err != nil {
			return nil, err
		}
	}
	// The warm-up's work ends before the clock starts (and its loss is
	// read, as a step that logs reads it).
	if _, err := st.lossSum(); err != nil {
		return nil, fmt.Errorf("step benchmark: %w", err)
	}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	var cpu0 time.Duration
	if cfg.CPUTime != nil {
		cpu0 = cfg.CPUTime()
	}
	costs0, note := costsOf(st.backend)
	var rec *stepprof.Recorder
	var gc0 float64
	if cfg.ProfileCPU {
		gc0 = gcCPUSeconds()
		rec = stepprof.Start()
	}
	t0 := time.Now()
	var loss float64
	for i := 0; i < cfg.Steps; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if i == cfg.Steps-1 {
			// The last step's loss alone: its tally starts afresh.
			if err := st.beginEpoch(st.epoch); err != nil {
				return nil, err
			}
		}
		if cfg.EachStep != nil {
			cfg.EachStep(i)
		}
		if err := one(); err != nil {
			return nil, err
		}
		if i == cfg.Steps-1 {
			// One read: the last loss, and the end of the timed work.
			if loss, err = st.lossSum(); err != nil {
				return nil, fmt.Errorf("step benchmark: %w", err)
			}
		}
	}
	dt := time.Since(t0)
	var prof *stepprof.Profile
	if rec != nil {
		p := rec.Stop()
		prof = &p
	}
	costs1, _ := costsOf(st.backend)
	res := &StepBenchResult{
		Model: cfg.Model, Method: tc.Method, BatchSize: cfg.BatchSize, Steps: cfg.Steps,
		Seconds: dt.Seconds(), FinalLoss: loss, ParamCount: nn.ParamCount(model), GOMAXPROCS: runtime.GOMAXPROCS(0), BLAS: nn.BLASName, GEMM: nn.GEMMKernels(), Schedule: string(par.ActiveSchedule()), ParStart: string(par.ActiveStart()), Device: st.backend.Name(), Numerics: numerics(st.backend),
		StepCosts: perStep(costs1.Sub(costs0), cfg.Steps, note), DevicePeakBytes: costs1.PeakBytes, CPUProfile: prof,
	}
	if cfg.ProfileCPU {
		res.GCCPUSecondsPerStep = (gcCPUSeconds() - gc0) / float64(cfg.Steps)
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
	res.Dropout, res.Augment = tc.Model.Dropout, cfg.Augment
	if p, ok := st.backend.(device.Profiler); ok && cfg.Profile {
		p.StartProfile()
		err := one()
		if err == nil {
			_, err = st.lossSum()
		}
		prof := p.StopProfile()
		if err != nil {
			return nil, fmt.Errorf("step benchmark: the profiled step: %w", err)
		}
		res.Profile = &prof
	}
	return res, nil
}

// gcCPUSeconds returns the garbage collector's CPU time so far
// (runtime/metrics' estimate, refreshed at each collection).
func gcCPUSeconds() float64 {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64 {
		return 0
	}
	return s[0].Value.Float64()
}
