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

// bnCase builds Σ w⊙f(BN(x)) (f = ReLU when relu is set) in training mode
// with tracking on, runs it with its gradients, folds the running
// statistics, and returns y, ∂x, ∂γ, ∂β, the running mean and variance.
func bnCase(t *testing.T, fused, relu bool, shape tensor.Shape, dt tensor.Dtype) [][]float64 {
	t.Helper()
	old := nn.FusedBatchNorm
	nn.FusedBatchNorm = fused
	defer func() { nn.FusedBatchNorm = old }()
	g := gorgonia.NewGraph()
	b := nn.NewBatchNorm(g, dt, "bn", shape[1], shape.Dims(), 0.1, true)
	r := rng.New(7, "bn-fused")
	for i := range b.Gamma.Value().Shape().TotalSize() {
		switch d := b.Gamma.Value().Data().(type) {
		case []float64:
			d[i] += 0.5 * r.NormFloat64()
			b.Beta.Value().Data().([]float64)[i] = 0.3 * r.NormFloat64()
		case []float32:
			d[i] += float32(0.5 * r.NormFloat64())
			b.Beta.Value().Data().([]float32)[i] = float32(0.3 * r.NormFloat64())
		}
	}
	x := testutil.RandInput(g, dt, "x", shape, r)
	w := testutil.RandInput(g, dt, "w", shape, r)
	var y *gorgonia.Node
	var err error
	if relu {
		y, err = b.ForwardReLU(x, true, true)
	} else {
		y, err = b.Forward(x, true, true)
	}
	require.NoError(t, err)
	wy, err := gorgonia.HadamardProd(w, y)
	require.NoError(t, err)
	cost, err := gorgonia.Sum(wy)
	require.NoError(t, err)
	grads, err := gorgonia.Grad(cost, x, b.Gamma, b.Beta)
	require.NoError(t, err)
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	require.NoError(t, vm.RunAll())
	require.NoError(t, b.Update())
	return [][]float64{testutil.Values(t, y), testutil.Values(t, grads[0]), testutil.Values(t, grads[1]), testutil.Values(t, grads[2]), testutil.Values(t, b.RunMean), testutil.Values(t, b.RunVar)}
}

// TestBatchNormFusedMatchesComposite: the fused op (and its ReLU variant)
// gives the composite graph's output, gradients with respect to x, γ and β,
// and running statistics — float64 to 1e-10, float32 to 1e-4 — for 4-D and
// 2-D inputs.
func TestBatchNormFusedMatchesComposite(t *testing.T) {
	names := []string{"y", "∂x", "∂γ", "∂β", "running mean", "running var"}
	for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		for _, shape := range []tensor.Shape{{5, 3, 4, 3}, {6, 4}, {1, 2, 3, 3}} {
			for _, relu := range []bool{false, true} {
				t.Run(fmt.Sprintf("%v_%v_relu=%t", dt, shape, relu), func(t *testing.T) {
					want := bnCase(t, false, relu, shape, dt)
					got := bnCase(t, true, relu, shape, dt)
					tol := 1e-10
					if dt == tensor.Float32 {
						tol = 1e-4
					}
					for i := range want {
						for k := range want[i] {
							d := math.Abs(got[i][k] - want[i][k])
							require.LessOrEqual(t, d, tol*(1+math.Abs(want[i][k])), "%s[%d] = %v, composite %v", names[i], k, got[i][k], want[i][k])
						}
					}
				})
			}
		}
	}
}

// TestBatchNormReLUGradient: gradients of Σ w⊙ReLU(BN(x)) through the fused
// op against central differences (float64).
func TestBatchNormReLUGradient(t *testing.T) {
	for _, shape := range []tensor.Shape{{3, 2, 2, 2}, {5, 3}} {
		g := gorgonia.NewGraph()
		dt := tensor.Float64
		b := nn.NewBatchNorm(g, dt, "bn", shape[1], shape.Dims(), 0.1, true)
		r := rng.New(9, "bn-relu")
		for i, v := range b.Gamma.Value().Data().([]float64) {
			b.Gamma.Value().Data().([]float64)[i] = v + 0.3*r.NormFloat64()
			b.Beta.Value().Data().([]float64)[i] = 0.2 * r.NormFloat64()
		}
		x := testutil.RandInput(g, dt, "x", shape, r)
		w := testutil.RandInput(g, dt, "w", shape, r)
		y, err := b.ForwardReLU(x, true, false)
		require.NoError(t, err)
		wy, err := gorgonia.HadamardProd(w, y)
		require.NoError(t, err)
		cost, err := gorgonia.Sum(wy)
		require.NoError(t, err)
		testutil.GradCheck(t, g, cost, gorgonia.Nodes{x, b.Gamma, b.Beta}, 24, 1e-6, 1e-6, nil)
	}
}

// TestBatchNormEvalFusedMatchesComposite: evaluation mode (running
// statistics) through the fused op equals the composite graph, with and
// without ReLU, float64 and float32, 4-D and 2-D.
func TestBatchNormEvalFusedMatchesComposite(t *testing.T) {
	run := func(fused, relu bool, shape tensor.Shape, dt tensor.Dtype) []float64 {
		old := nn.FusedBatchNorm
		nn.FusedBatchNorm = fused
		defer func() { nn.FusedBatchNorm = old }()
		g := gorgonia.NewGraph()
		b := nn.NewBatchNorm(g, dt, "bn", shape[1], shape.Dims(), 0.1, true)
		r := rng.New(11, "bn-eval")
		for _, p := range []*gorgonia.Node{b.Gamma, b.Beta, b.RunMean, b.RunVar} {
			for i := range shape[1] {
				v := 0.5 + r.Float64()
				switch d := p.Value().Data().(type) {
				case []float64:
					d[i] = v
				case []float32:
					d[i] = float32(v)
				}
			}
		}
		x := testutil.RandInput(g, dt, "x", shape, r)
		var y *gorgonia.Node
		var err error
		if relu {
			y, err = b.ForwardReLU(x, false, false)
		} else {
			y, err = b.Forward(x, false, false)
		}
		require.NoError(t, err)
		vm := gorgonia.NewTapeMachine(g)
		defer vm.Close()
		require.NoError(t, vm.RunAll())
		return testutil.Values(t, y)
	}
	for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		for _, shape := range []tensor.Shape{{4, 3, 2, 5}, {6, 4}} {
			for _, relu := range []bool{false, true} {
				want, got := run(false, relu, shape, dt), run(true, relu, shape, dt)
				tol := 1e-12
				if dt == tensor.Float32 {
					tol = 1e-5
				}
				for k := range want {
					require.LessOrEqual(t, math.Abs(got[k]-want[k]), tol*(1+math.Abs(want[k])), "%v %v relu=%t: y[%d] = %v, composite %v", dt, shape, relu, k, got[k], want[k])
				}
			}
		}
	}
}
