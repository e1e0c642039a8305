package training

import (
	"context"
	"fmt"
	"testing"

	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/require"
)

// BenchmarkStepPool times RunStepBenchmark's cnn step (batch 128, 1×28×28)
// with the fused pool and with gorgonia's Rectify and MaxPool2D
// (bench/NOTES.md), interleaved by -count.
func BenchmarkStepPool(b *testing.B) {
	for _, fused := range []bool{true, false} {
		b.Run(fmt.Sprintf("fused=%t", fused), func(b *testing.B) {
			old := nn.FusedPool
			nn.FusedPool = fused
			defer func() { nn.FusedPool = old }()
			res, err := RunStepBenchmark(context.Background(), StepBenchConfig{Model: models.ModelCNN, Steps: b.N, Warmup: 2, CPUTime: cpuTime})
			require.NoError(b, err)
			b.ReportMetric(res.ImagesPerSecond, "img/s")
			b.ReportMetric(res.ImagesPerCPUSecond, "img/CPU-s")
			b.ReportMetric(res.AllocBytesPerStep, "alloc-B/step")
		})
	}
}
