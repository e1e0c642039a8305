package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"syscall"
	"time"

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
param_count and gomaxprocs. bench/run.sh (make bench) compares it with the same step in PyTorch.`

func runBench(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("bench --model mlp|cnn [--batch-size 128] [--steps N] [--json]", benchSynopsis, stderr)
	model := fs.String("model", "mlp", "architecture: "+strings.Join(training.ModelNames(), ", "))
	method := fs.String("method", "llpfc-uniform", "training method whose step is timed: "+strings.Join(training.MethodNames(), ", "))
	batch := fs.Int("batch-size", 128, "minibatch size (instances for LLPFC, bags for kl/llpvat/llpgan)")
	steps := fs.Int("steps", 20, "number of timed steps")
	warmup := fs.Int("warmup", 3, "number of untimed steps before timing (buffers are allocated on the first)")
	channels := fs.Int("channels", 1, "channels of the random images")
	height := fs.Int("height", 28, "height of the random images")
	width := fs.Int("width", 28, "width of the random images")
	classes := fs.Int("classes", 10, "number of classes")
	bagSize := fs.Int("bag-size", 128, "size of the random bags")
	threads := fs.Int("threads", 0, "GOMAXPROCS for the run (0: leave it as it is, normally the number of CPUs)")
	seed := fs.Int64("seed", 1, "seed of the random data and the initialisation")
	asJSON := fs.Bool("json", false, "print the result as one JSON object on the last line of standard output")
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "llpfc bench: "+format+"\n", a...)
		return exitBadUsage
	}
	if !contains(training.ModelNames(), *model) {
		return fail("--model %q: unknown (want one of %s)", *model, strings.Join(training.ModelNames(), ", "))
	}
	if !contains(training.MethodNames(), *method) {
		return fail("--method %q: unknown (want one of %s)", *method, strings.Join(training.MethodNames(), ", "))
	}
	for _, f := range []struct {
		name string
		v    int
		min  int
	}{{"--batch-size", *batch, 1}, {"--steps", *steps, 1}, {"--warmup", *warmup, 0}, {"--channels", *channels, 1},
		{"--height", *height, 1}, {"--width", *width, 1}, {"--classes", *classes, 2}, {"--bag-size", *bagSize, 1}, {"--threads", *threads, 0}} {
		if f.v < f.min {
			return fail("%s %d: want ≥ %d", f.name, f.v, f.min)
		}
	}
	if *threads > 0 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(*threads))
	}
	cfg := training.StepBenchConfig{
		Model: *model, Method: *method, BatchSize: *batch, Steps: *steps, Warmup: *warmup,
		Channels: *channels, Height: *height, Width: *width, Classes: *classes, BagSize: *bagSize,
		Seed: *seed, CPUTime: processCPUTime,
	}
	res, err := training.RunStepBenchmark(context.Background(), cfg)
	if err != nil {
		fmt.Fprintf(stderr, "llpfc bench: %v\n", err)
		return exitFailed
	}
	res.PeakRSSBytes = peakRSS()
	if *asJSON {
		b, err := json.Marshal(res)
		if err != nil {
			fmt.Fprintf(stderr, "llpfc bench: %v\n", err)
			return exitFailed
		}
		fmt.Fprintln(stdout, string(b))
		return exitOK
	}
	fmt.Fprintf(stdout, "%s %s batch %d: %.1f images/s (%d steps in %.2f s), %.4f CPU s/step (%.1f images per CPU second), %.0f bytes allocated per step, peak RSS %.0f MiB, loss %.4f, %d parameters, GOMAXPROCS %d\n",
		res.Model, res.Method, res.BatchSize, res.ImagesPerSecond, res.Steps, res.Seconds, res.CPUSecondsPerStep, res.ImagesPerCPUSecond,
		res.AllocBytesPerStep, float64(res.PeakRSSBytes)/(1<<20), res.FinalLoss, res.ParamCount, res.GOMAXPROCS)
	return exitOK
}

// processCPUTime returns the user + system CPU time of this process.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
