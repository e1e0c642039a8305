package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/learn"
	"github.com/llpfc/llpfc/training"
)

func init() {
	register(command{name: "bench", summary: "time the project's training step (forward, FC loss, backward, Adam) on random data", run: runBench})
}

const benchSynopsis = `Times one training step of the project as Train runs it: the method's graph built once, a
minibatch of random images (1×28×28 unless --height/--width/--channels say otherwise) in random
bags, forward pass, FC loss (llpfc-uniform, Algorithm 2), backward pass and an Adam update.
--warmup untimed steps come first. Prints images per second (wall time) and, since the CPU may
be shared, CPU seconds per step and images per CPU second. With --json the last line of
standard output is one JSON object with images_per_second, model, method, batch_size, steps,
seconds, cpu_seconds_per_step, images_per_cpu_second, alloc_bytes_per_step, final_loss,
param_count, gomaxprocs and step_costs: per timed step, the device's launches (kernels,
blas_calls, copies, fills), bytes_host_to_device and bytes_device_to_host (and per kind of
buffer: transfers), blocking_waits (the one read of the last step's loss, divided over the
steps) and device_bytes_allocated — zeros on the CPU back end, which has no device (its note
says so). --dropout and --augment time a paper preset's step (its dropout, the appendix's crop
and flip); --profile adds one step timed operation by operation on the device (--json's
profile: per operation kind and shape, the time, launches, FLOPs and bytes). A model,
optimizer and activations that do not fit the device's memory are refused before the first
step. bench/run.sh (make bench) compares it with the same step in PyTorch.

With --scaling 1,2,4,8,16 it profiles the step on the CPU at each of those thread counts
instead: every operation's serial and parallel CPU time and the width of its parallel
sections, the memory bandwidth the threads reach, and the many-core model's two predictions of
each count's step (from the first two counts, and from the count's own CPU times) beside the
measured one, as a Markdown report (with --json, one JSON object whose markdown field holds it).`

// benchFlags are `llpfc bench`'s flags.
type benchFlags struct {
	model, method, device                                                    *string
	batch, steps, warmup, channels, height, width, classes, bagSize, threads *int
	seed                                                                     *int64
	dropout                                                                  *float64
	asJSON, augment, profile                                                 *bool
	scaling                                                                  *string
	streamMiB                                                                *int
}

func defineBenchFlags(fs *flag.FlagSet) *benchFlags {
	f := &benchFlags{}
	f.model = defineModel(fs)
	f.method = fs.String("method", training.MethodLLPFCUniform, methodHelp("training method whose step is timed"))
	f.batch = fs.Int("batch-size", 128, "minibatch size, in what the method's minibatch counts (instances or bags: llpfc methods lists them)")
	f.steps = fs.Int("steps", 20, "number of timed steps")
	f.warmup = fs.Int("warmup", 3, "number of untimed steps before timing (buffers are allocated on the first)")
	f.channels = fs.Int("channels", 1, "channels of the random images")
	f.height = fs.Int("height", 28, "height of the random images")
	f.width = fs.Int("width", 28, "width of the random images")
	f.classes = fs.Int("classes", 10, "number of classes")
	f.bagSize = fs.Int("bag-size", 128, "size of the random bags")
	f.threads = fs.Int("threads", 0, "GOMAXPROCS for the run (0: leave it as it is, normally the number of CPUs)")
	f.seed = fs.Int64("seed", 1, "seed of the random data and the initialisation")
	f.dropout = fs.Float64("dropout", 0, "the model's dropout probability, as a preset's (wrn-16-4 0.3 in Table 1's CIFAR10 cells; 0: the model's default, VGG16's 0.5)")
	f.augment = fs.Bool("augment", false, "the appendix's augmentation (zero-pad 4, random crop, horizontal flip), as the colour presets train")
	f.profile = fs.Bool("profile", false, "after the timed steps, one step profiled operation by operation on the device (time, launches, FLOPs and bytes per operation; --json's profile)")
	f.device = defineDevice(fs)
	f.asJSON = defineResultJSON(fs)
	f.scaling = fs.String("scaling", "", "thread counts, increasing and comma-separated (1,2,4,8,16): profile the CPU step at each and predict it (see above)")
	f.streamMiB = fs.Int("stream-mib", 256, "with --scaling: MiB of each of the two buffers the memory-bandwidth probe streams through (0: no probe)")
	return f
}

// check validates the flags; each error names its flag. Everything that
// would make the benchmark fail for its input is checked here, before
// anything is allocated (an image too small for the model, LLPGAN's
// generator as the model, llpgan without its discriminator, and sizes
// beyond the memory once exited 1 or ran out of memory).
func (f *benchFlags) check() error {
	if !contains(learn.ClassifierModels(), *f.model) {
		return fmt.Errorf("--model %q: unknown (want one of %s)", *f.model, strings.Join(learn.ClassifierModels(), ", "))
	}
	if !contains(training.MethodNames(), *f.method) {
		return fmt.Errorf("--method %q: unknown (want one of %s)", *f.method, strings.Join(training.MethodNames(), ", "))
	}
	if d := training.MustLookupMethod(*f.method); d.Model != "" && *f.model != d.Model {
		return fmt.Errorf("--model %q: --method %s trains its %s %s", *f.model, *f.method, d.ModelRole, d.Model)
	}
	if err := training.CheckDevice(*f.device); err != nil {
		return fmt.Errorf("--device: %w", err)
	}
	if err := checkFlags(atLeast("batch-size", *f.batch, 1), atLeast("steps", *f.steps, 1), atLeast("warmup", *f.warmup, 0),
		atLeast("channels", *f.channels, 1), atLeast("height", *f.height, 1), atLeast("width", *f.width, 1),
		atLeast("classes", *f.classes, 2), atLeast("bag-size", *f.bagSize, 1), atLeast("threads", *f.threads, 0), atLeast("stream-mib", *f.streamMiB, 0)); err != nil {
		return err
	}
	if err := f.checkScaling(); err != nil {
		return err
	}
	if d := *f.dropout; !(d >= 0 && d < 1) {
		return fmt.Errorf("--dropout %v: want a probability in [0, 1)", d)
	}
	if m := learn.MinInputSide(*f.model); *f.height < m || *f.width < m {
		return fmt.Errorf("--height %d --width %d: model %s takes images of at least %d×%d", *f.height, *f.width, *f.model, m, m)
	}
	return f.checkSizes()
}

// checkSizes checks the benchmark's model and its random data against the
// memory (learn.MemoryBudget) before they are allocated.
func (f *benchFlags) checkSizes() error {
	shape := learn.DataShape{Classes: *f.classes, Channels: *f.channels, Height: *f.height, Width: *f.width}
	perPass := *f.batch
	if !experiments.CountsInstances(*f.method) {
		perPass = min(*f.batch**f.bagSize, training.DefaultChunkSize)
	}
	input := "--channels, --height and --width"
	if err := learn.CheckModelSize(*f.model, shape, max(perPass, training.DefaultEvalBatch), input); err != nil {
		return err
	}
	// RunStepBenchmark's data: enough bags for 2·C groups and 8 minibatches.
	bags := max(2**f.classes, (8**f.batch+*f.bagSize-1) / *f.bagSize)
	if need := 4 * float64(bags) * float64(*f.bagSize) * float64(shape.Dim()); need > float64(learn.MemoryBudget()) {
		return &learn.SizeError{What: fmt.Sprintf("the random data of --batch-size %d, --bag-size %d, --classes %d and %s: %d bags of %d images of %d values (float32)",
			*f.batch, *f.bagSize, *f.classes, input, bags, *f.bagSize, shape.Dim()), Need: need, Limit: float64(learn.MemoryBudget())}
	}
	return nil
}

// config is the library's benchmark configuration of the flags.
func (f *benchFlags) config() training.StepBenchConfig {
	return training.StepBenchConfig{
		Model: *f.model, Method: *f.method, BatchSize: *f.batch, Steps: *f.steps, Warmup: *f.warmup,
		Channels: *f.channels, Height: *f.height, Width: *f.width, Classes: *f.classes, BagSize: *f.bagSize,
		Seed: *f.seed, CPUTime: processCPUTime, Device: *f.device, Dropout: *f.dropout, Augment: *f.augment, Profile: *f.profile,
	}
}

func runBench(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("bench --model mlp|cnn [--batch-size 128] [--steps N] [--json]", benchSynopsis, stderr)
	f := defineBenchFlags(fs)
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	if err := f.check(); err != nil {
		return exitWith(stderr, "llpfc bench", usageError{err})
	}
	if *f.scaling != "" {
		return runScaling(f, stdout, stderr)
	}
	if *f.threads > 0 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(*f.threads))
	}
	res, err := training.RunStepBenchmark(context.Background(), f.config())
	if errors.As(err, new(*training.InputError)) {
		err = usageError{err} // the flags ask for more than the device holds (device.MemoryError)
	}
	if err != nil {
		return exitWith(stderr, "llpfc bench", err)
	}
	res.PeakRSSBytes = peakRSS()
	if err := printBench(stdout, res, *f.asJSON); err != nil {
		return exitWith(stderr, "llpfc bench", err)
	}
	return exitOK
}

// printBench prints the benchmark's result: one line of text, or one JSON
// object.
func printBench(w io.Writer, res *training.StepBenchResult, asJSON bool) error {
	if asJSON {
		b, err := json.Marshal(res)
		if err != nil {
			return err
		}
		fmt.Fprintln(w, string(b))
		return nil
	}
	fmt.Fprintf(w, "%s %s batch %d: %.1f images/s (%d steps in %.2f s), %.4f CPU s/step (%.1f images per CPU second), %.0f bytes allocated per step, peak RSS %.0f MiB, loss %.4f, %d parameters, GOMAXPROCS %d\n",
		res.Model, res.Method, res.BatchSize, res.ImagesPerSecond, res.Steps, res.Seconds, res.CPUSecondsPerStep, res.ImagesPerCPUSecond,
		res.AllocBytesPerStep, float64(res.PeakRSSBytes)/(1<<20), res.FinalLoss, res.ParamCount, res.GOMAXPROCS)
	if c := res.StepCosts; c != nil && c.Launches > 0 {
		fmt.Fprintf(w, "  per step on %s: %.1f launches (%.1f kernels, %.1f CLBlast calls, %.1f copies, %.1f fills), %.0f bytes to the device, %.0f from it, %.2f blocking waits, %.0f device bytes allocated\n",
			res.Device, c.Launches, c.Kernels, c.BLASCalls, c.Copies, c.Fills, c.BytesHtoD, c.BytesDtoH, c.Waits, c.DeviceBytes)
	}
	if res.Numerics != "" {
		fmt.Fprintf(w, "  numerics: %s\n", res.Numerics)
	}
	return nil
}

// processCPUTime returns the user + system CPU time of this process.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
