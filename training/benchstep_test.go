package training

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llpfc/llpfc/internal/opencl/ocltest"
	"github.com/llpfc/llpfc/training/device"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunStepBenchmark checks that the step benchmark runs the real step:
// the same seed gives the same loss after the same steps, the loss is the
// FC loss of near-uniform predictions at the start (about log C), and the
// throughput is consistent with the steps and seconds it reports.
func TestRunStepBenchmark(t *testing.T) {
	cfg := StepBenchConfig{Model: "mlp", BatchSize: 16, Steps: 3, Warmup: 1, Height: 8, Width: 8, Channels: 1, BagSize: 8, Seed: 4}
	a, err := RunStepBenchmark(context.Background(), cfg)
	require.NoError(t, err)
	b, err := RunStepBenchmark(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, b.FinalLoss, a.FinalLoss, "same seed: final losses %v and %v differ", a.FinalLoss, b.FinalLoss)
	if !(a.FinalLoss > 0.5 && a.FinalLoss < 5) {
		t.Errorf("final loss %v after 4 Adam steps, want near log 10 ≈ 2.3", a.FinalLoss)
	}
	if want := float64(3*16) / a.Seconds; a.ImagesPerSecond < want*0.999 || a.ImagesPerSecond > want*1.001 {
		t.Errorf("images per second %v, want 48/%v", a.ImagesPerSecond, a.Seconds)
	}
	assert.Equal(t, 64*512+512+512*256+256+256*10+10, a.ParamCount, "param count %d", a.ParamCount)
}

// TestRunStepBenchmarkBadConfig checks that bad configurations are errors
// naming the field.
func TestRunStepBenchmarkBadConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  StepBenchConfig
		want string
	}{
		{StepBenchConfig{Model: "mlp", BatchSize: -1}, "batch size"},
		{StepBenchConfig{Model: "mlp", Warmup: -1}, "warm-up"},
		{StepBenchConfig{Model: "mlp", Classes: 1}, "classes"},
		{StepBenchConfig{Model: "nope"}, "nope"},
		{StepBenchConfig{Model: "mlp", Method: "nope"}, "nope"},
	} {
		if _, err := RunStepBenchmark(context.Background(), c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one naming %q", c.cfg, err, c.want)
		}
	}
}

// BenchmarkStepLevers times RunStepBenchmark's step (batch 128, 1×28×28)
// for the models of the speed levers (bench/NOTES.md), with
// images per second of wall and of process CPU time.
func BenchmarkStepLevers(b *testing.B) {
	for _, model := range []string{"mlp", "cnn", "test-cnn-gorgonia"} {
		b.Run(model, func(b *testing.B) {
			res, err := RunStepBenchmark(context.Background(), StepBenchConfig{Model: model, Steps: b.N, Warmup: 2, CPUTime: cpuTime})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(res.ImagesPerSecond, "img/s")
			b.ReportMetric(res.ImagesPerCPUSecond, "img/CPU-s")
			b.ReportMetric(res.AllocBytesPerStep, "alloc-B/step")
		})
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkStepWRN times RunStepBenchmark's step for wrn-16-4 on 3×32×32
// images at batch 32 (a deep network's memory and speed); run it
// with -memprofile to see which operations hold the step's memory.
func BenchmarkStepWRN(b *testing.B) {
	res, err := RunStepBenchmark(context.Background(), StepBenchConfig{Model: "wrn-16-4", BatchSize: 32, Channels: 3, Height: 32, Width: 32,
		Steps: b.N, Warmup: 1, CPUTime: cpuTime})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(res.ImagesPerSecond, "img/s")
	b.ReportMetric(res.ImagesPerCPUSecond, "img/CPU-s")
	b.ReportMetric(res.AllocBytesPerStep, "alloc-B/step")
}

// TestStepBenchmarkPresetSettings: the benchmark times the step a preset
// trains — with dropout and the appendix's augmentation the step is
// another (the same seed, another loss than without them; the same loss
// on a rerun), the result records both settings — and with Profile on the
// OpenCL device one more step is profiled operation by operation: the
// WRN-16-4's convolutions (forward, backward-data, backward-filter),
// batch norm, dropout, the augmentation (one launch), the optimizer, each row with time and launches,
// the convolutions with their work; on the CPU, which keeps no profile,
// none.
func TestStepBenchmarkPresetSettings(t *testing.T) {
	cfg := StepBenchConfig{Model: ModelWRN164, BatchSize: 2, Steps: 1, Warmup: 1, Height: 8, Width: 8, Channels: 3, BagSize: 4, Seed: 4}
	plain, err := RunStepBenchmark(context.Background(), cfg)
	require.NoError(t, err)
	cfg.Dropout, cfg.Augment, cfg.Profile = 0.3, true, true
	a, err := RunStepBenchmark(context.Background(), cfg)
	require.NoError(t, err)
	b, err := RunStepBenchmark(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, a.FinalLoss, b.FinalLoss, "the same seed with dropout and augmentation")
	assert.NotEqual(t, plain.FinalLoss, a.FinalLoss, "dropout and augmentation left the step as it was")
	assert.Equal(t, 0.3, a.Dropout)
	assert.True(t, a.Augment)
	assert.Nil(t, a.Profile, "the CPU keeps no per-op profile")

	ocltest.Require(t)
	cfg.Device = ocltest.Device()
	d, err := RunStepBenchmark(context.Background(), cfg)
	require.NoError(t, err)
	require.NotNil(t, d.Profile)
	cats := map[string]int{}
	for _, o := range d.Profile.Ops {
		cats[o.Category] += o.Calls
		assert.Positive(t, o.Seconds, "%s %s", o.Category, o.Kind)
		if strings.HasPrefix(o.Category, "conv") && o.Category != device.CatConvBias {
			assert.Positive(t, o.FLOPs, "%s %v: work", o.Kind, o.Geometry)
		}
	}
	for cat, n := range map[string]int{device.CatConvForward: 16, device.CatConvData: 15, device.CatConvFilter: 16, device.CatDropout: 12, device.CatAugment: 1, device.CatOptimizer: 1} {
		assert.Equal(t, n, cats[cat], "%s calls in one WRN-16-4 step (16 convolutions, 6 dropout layers forward and back, the batch's crop and flip once)", cat)
	}
	assert.Positive(t, cats[device.CatBatchNorm])
}
