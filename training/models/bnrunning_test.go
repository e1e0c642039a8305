package models

import (
	"fmt"
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/internal/testutil"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestBatchNormRunningStatsFollowPyTorch runs three training-mode batches
// through a batch-norm layer (momentum 0.1) and folds each into the running
// averages, then compares them with PyTorch's documented rule computed in
// float64 from the inputs: r_μ ← (1−m)·r_μ + m·μ_B and r_σ² ← (1−m)·r_σ² +
// m·σ²_B·n/(n−1) with μ_B, σ²_B the batch mean and biased variance over the
// n = N·H·W values of a channel (starting from r_μ = 0, r_σ² = 1) — for
// float32 and float64 layers, the fused op and the composite graph, 4-D and
// 2-D inputs. The fused-versus-composite test cannot see a bug in
// BatchNorm.Update, which both paths share; this one can (the biased
// variance, the momentum the wrong way round, a count of N in place of
// N·H·W).
func TestBatchNormRunningStatsFollowPyTorch(t *testing.T) {
	const mom = 0.1
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		for _, fused := range []bool{true, false} {
			for _, shape := range []tensor.Shape{{5, 3, 4, 3}, {6, 4}, {1, 2, 3, 3}} {
				t.Run(fmt.Sprintf("%v_fused=%t_%v", dt, fused, shape), func(t *testing.T) {
					old := nn.FusedBatchNorm
					nn.FusedBatchNorm = fused
					defer func() { nn.FusedBatchNorm = old }()
					g := gorgonia.NewGraph()
					C := shape[1]
					b := nn.NewBatchNorm(g, dt, "bn", C, shape.Dims(), mom, true)
					r := rng.New(11, "bn-running")
					x := testutil.RandInput(g, dt, "x", shape, r)
					_, err := b.Forward(x, true, true)
					require.NoError(t, err)
					vm := gorgonia.NewTapeMachine(g)
					defer vm.Close()

					hw := shape.TotalSize() / (shape[0] * C)
					n := float64(shape[0] * hw)
					wantMean, wantVar := make([]float64, C), make([]float64, C)
					for c := range wantVar {
						wantVar[c] = 1
					}
					for step := 0; step < 3; step++ {
						// A fresh batch, shifted per step so the means differ.
						switch d := x.Value().Data().(type) {
						case []float32:
							for i := range d {
								d[i] = float32(r.NormFloat64()*float64(1+step) + float64(step))
							}
						case []float64:
							for i := range d {
								d[i] = r.NormFloat64()*float64(1+step) + float64(step)
							}
						}
						xv := testutil.Values(t, x)
						require.NoError(t, vm.RunAll())
						vm.Reset()
						require.NoError(t, b.Update())
						for c := 0; c < C; c++ {
							var s float64
							for i := 0; i < shape[0]; i++ {
								for k := 0; k < hw; k++ {
									s += xv[(i*C+c)*hw+k]
								}
							}
							mu := s / n
							var ss float64
							for i := 0; i < shape[0]; i++ {
								for k := 0; k < hw; k++ {
									d := xv[(i*C+c)*hw+k] - mu
									ss += d * d
								}
							}
							unbiased := ss / (n - 1)
							wantMean[c] = (1-mom)*wantMean[c] + mom*mu
							wantVar[c] = (1-mom)*wantVar[c] + mom*unbiased
						}
						tol := 1e-10
						if dt == tensor.Float32 {
							tol = 2e-5
						}
						rm, rv := testutil.Values(t, b.RunMean), testutil.Values(t, b.RunVar)
						for c := 0; c < C; c++ {
							require.InDelta(t, wantMean[c], rm[c], tol*(1+math.Abs(wantMean[c])), "step %d: running mean[%d] = %v, want %v", step, c, rm[c], wantMean[c])
							require.InDelta(t, wantVar[c], rv[c], tol*(1+wantVar[c]), "step %d: running var[%d] = %v, want %v", step, c, rv[c], wantVar[c])
						}
					}
				})
			}
		}
	}
}
