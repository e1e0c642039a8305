package training

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

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
// for the models of the speed levers of issue 7 (bench/NOTES.md), with
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
// images at batch 32 (issue 12's deep-network memory and speed); run it
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
