package models

import (
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/internal/testutil"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// modelShapeCase is one architecture × input shape whose logits must be
// batch×NumClasses in both training and evaluation mode.
type modelShapeCase struct {
	name          string
	c, h, w       int
	classes       int
	dropout       float64
	wantParams    int // the layer-by-layer count in the test's comment
	skipTrainMode bool
}

// checkModelShapes builds the model in a fresh float32 graph, runs one
// training-mode and one evaluation-mode forward pass on a batch of 2, and
// checks the logits' shape, finiteness and the parameter count.
func checkModelShapes(t *testing.T, tc modelShapeCase) nn.Model {
	t.Helper()
	g := gorgonia.NewGraph()
	spec := nn.ModelSpec{Name: tc.name, Channels: tc.c, Height: tc.h, Width: tc.w, NumClasses: tc.classes, Dropout: tc.dropout}
	m, err := NewModel(g, spec, rng.New(1, "init"))
	require.NoError(t, err)
	if got := nn.ParamCount(m); tc.wantParams > 0 && got != tc.wantParams {
		t.Errorf("%s %d×%d×%d, %d classes: %d parameters, want %d", tc.name, tc.c, tc.h, tc.w, tc.classes, got, tc.wantParams)
	}
	const batch = 2
	x := testutil.RandInput(g, tensor.Float32, "x", tensor.Shape{batch, tc.c, tc.h, tc.w}, rng.New(2, "x"))
	var outs []*gorgonia.Node
	for _, train := range []bool{true, false} {
		if train && tc.skipTrainMode {
			continue
		}
		y, err := m.Forward(x, train)
		require.NoError(t, err, "forward (train=%v): %v", train, err)
		if !y.Shape().Eq(tensor.Shape{batch, tc.classes}) {
			t.Errorf("train=%v: logits shape %v, want %v", train, y.Shape(), tensor.Shape{batch, tc.classes})
		}
		outs = append(outs, y)
	}
	if sm, ok := m.(nn.StochasticModel); ok {
		sm.Resample(rng.New(3, "dropout"))
	}
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	require.NoError(t, vm.RunAll())
	for _, y := range outs {
		for _, v := range testutil.Values(t, y) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("non-finite logit %v", v)
			}
		}
	}
	return m
}

// TestResNet18ShapesAndParams. Parameter count of torchvision's
// resnet18(num_classes=C, in_channels=c) (the authors' models/ResNet.py),
// layer by layer (convolutions have no bias; every BN has γ and β):
//
//	stem conv 7×7 c→64: 49·64·c = 3136c;  bn1: 128
//	layer1: 2 blocks × (2 conv 3×3 64→64 = 2·36864, 2 bn = 256)  = 147968
//	layer2: conv 64→128 = 73728, conv 128→128 = 147456, 2 bn = 512,
//	        downsample 1×1 64→128 = 8192 + bn 256;
//	        block 2: 2·147456 + 512                              = 525568
//	layer3: 128→256 = 294912, 256→256 = 589824, 2 bn = 1024,
//	        downsample 32768 + 512; block 2: 2·589824 + 1024     = 2099712
//	layer4: 256→512 = 1179648, 512→512 = 2359296, 2 bn = 2048,
//	        downsample 131072 + 1024; block 2: 2·2359296 + 2048  = 8393728
//	fc: 512·C + C
//
// Total = 11166976 + 128 + 3136c + 513C: c=3, C=10 → 11181642 (PyTorch's
// count for torchvision resnet18(num_classes=10), 11689512 − 513·990);
// c=1, C=26 → 11183578.
func TestResNet18ShapesAndParams(t *testing.T) {
	for _, tc := range []modelShapeCase{
		{name: "resnet18", c: 3, h: 32, w: 32, classes: 10, wantParams: 11181642},
		{name: "resnet18", c: 1, h: 28, w: 28, classes: 26, wantParams: 11183578},
	} {
		checkModelShapes(t, tc)
	}
}

// TestBatchNormMatchesDefinition checks BatchNorm against a direct
// computation: training mode y = (x − μ_B)/√(σ²_B + ε)·γ + β with the batch
// mean and biased variance per channel; UpdateRunningStats gives
// r_μ = 0.9·0 + 0.1·μ_B and r_σ² = 0.9·1 + 0.1·σ²_B·n/(n−1) (PyTorch's
// momentum 0.1, unbiased variance, n = N·H·W) — once per run of the tape,
// however often it is called; evaluation mode uses the running averages.
func TestBatchNormMatchesDefinition(t *testing.T) {
	g := gorgonia.NewGraph()
	dt := tensor.Float64
	const N, C, H, W = 3, 2, 2, 2
	b := nn.NewBatchNorm(g, dt, "bn", C, 4, 0.1, true)
	copy(b.Gamma.Value().Data().([]float64), []float64{1.5, -0.5})
	copy(b.Beta.Value().Data().([]float64), []float64{0.25, 2})
	x := testutil.RandInput(g, dt, "x", tensor.Shape{N, C, H, W}, rng.New(4, "x"))
	yTrain, err := b.Forward(x, true, true)
	require.NoError(t, err)
	yEval, err := b.Forward(x, false, false)
	require.NoError(t, err)
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	require.NoError(t, vm.RunAll())
	xv := testutil.Values(t, x)
	gamma, beta := []float64{1.5, -0.5}, []float64{0.25, 2}
	at := func(n, c, i int) int { return (n*C+c)*H*W + i }
	mu, v := make([]float64, C), make([]float64, C)
	for c := 0; c < C; c++ {
		for n := 0; n < N; n++ {
			for i := 0; i < H*W; i++ {
				mu[c] += xv[at(n, c, i)] / (N * H * W)
			}
		}
		for n := 0; n < N; n++ {
			for i := 0; i < H*W; i++ {
				d := xv[at(n, c, i)] - mu[c]
				v[c] += d * d / (N * H * W)
			}
		}
	}
	yt := testutil.Values(t, yTrain)
	for n := 0; n < N; n++ {
		for c := 0; c < C; c++ {
			for i := 0; i < H*W; i++ {
				want := (xv[at(n, c, i)]-mu[c])/math.Sqrt(v[c]+1e-5)*gamma[c] + beta[c]
				got := yt[at(n, c, i)]
				require.InDelta(t, want, got, 1e-12, "train y[%d,%d,%d] = %v, want %v", n, c, i, got, want)
			}
		}
	}
	// Evaluation before any update uses r_μ = 0, r_σ² = 1.
	ye := testutil.Values(t, yEval)
	for k, xk := range xv {
		c := (k / (H * W)) % C
		want := xk/math.Sqrt(1+1e-5)*gamma[c] + beta[c]
		require.InDelta(t, want, ye[k], 1e-12, "eval y[%d] = %v, want %v", k, ye[k], want)
	}
	require.NoError(t, b.Update())
	// A second update without a new run folds nothing.
	require.NoError(t, b.Update())
	rm, rv := testutil.Values(t, b.RunMean), testutil.Values(t, b.RunVar)
	n := float64(N * H * W)
	for c := 0; c < C; c++ {
		want := 0.1 * mu[c]
		assert.InDelta(t, want, rm[c], 1e-12, "running mean[%d] = %v, want %v", c, rm[c], want)
		want = 0.9 + 0.1*v[c]*n/(n-1)
		assert.InDelta(t, want, rv[c], 1e-12, "running var[%d] = %v, want %v", c, rv[c], want)
	}
}

// TestBatchNormGradient: gradients of Σ w⊙BN(x) with respect to x, γ and β
// (training mode, batch statistics differentiated through) against central
// differences, for 4-D and 2-D inputs.
func TestBatchNormGradient(t *testing.T) {
	for _, shape := range []tensor.Shape{{3, 2, 2, 2}, {4, 3}} {
		g := gorgonia.NewGraph()
		dt := tensor.Float64
		b := nn.NewBatchNorm(g, dt, "bn", shape[1], shape.Dims(), 0.1, true)
		r := rng.New(5, "bn")
		for i, v := range b.Gamma.Value().Data().([]float64) {
			b.Gamma.Value().Data().([]float64)[i] = v + 0.3*r.NormFloat64()
		}
		x := testutil.RandInput(g, dt, "x", shape, r)
		w := testutil.RandInput(g, dt, "w", shape, r)
		y, err := b.Forward(x, true, false)
		require.NoError(t, err)
		wy, err := gorgonia.HadamardProd(w, y)
		require.NoError(t, err)
		cost, err := gorgonia.Sum(wy)
		require.NoError(t, err)
		testutil.GradCheck(t, g, cost, gorgonia.Nodes{x, b.Gamma, b.Beta}, 24, 1e-6, 1e-6, nil)
	}
}

// TestGlobalAndAdaptivePoolMatchDefinition: global average pooling and
// AdaptiveAvgPool2d windows ⌊iH/o⌋…⌈(i+1)H/o⌉−1 against direct sums,
// including VGG16's 1×1 → 7×7 replication.
func TestGlobalAndAdaptivePoolMatchDefinition(t *testing.T) {
	for _, tc := range []struct{ h, w, oh, ow int }{{1, 1, 7, 7}, {5, 4, 3, 2}, {4, 4, 2, 2}, {3, 3, 1, 1}} {
		g := gorgonia.NewGraph()
		dt := tensor.Float64
		x := testutil.RandInput(g, dt, "x", tensor.Shape{2, 3, tc.h, tc.w}, rng.New(6, "x"))
		y, err := nn.AdaptiveAvgPool(x, dt, tc.oh, tc.ow)
		require.NoError(t, err)
		gp, err := nn.GlobalAvgPool(x, dt)
		require.NoError(t, err)
		vm := gorgonia.NewTapeMachine(g)
		require.NoError(t, vm.RunAll())
		vm.Close()
		xv, yv, gv := testutil.Values(t, x), testutil.Values(t, y), testutil.Values(t, gp)
		for nc := 0; nc < 6; nc++ {
			img := xv[nc*tc.h*tc.w : (nc+1)*tc.h*tc.w]
			all := 0.0
			for _, v := range img {
				all += v / float64(tc.h*tc.w)
			}
			assert.InDelta(t, all, gv[nc], 1e-12, "%v: global pool %v, want %v", tc, gv[nc], all)
			for i := 0; i < tc.oh; i++ {
				r0 := int(math.Floor(float64(i*tc.h) / float64(tc.oh)))
				r1 := int(math.Ceil(float64((i+1)*tc.h) / float64(tc.oh)))
				for j := 0; j < tc.ow; j++ {
					c0 := int(math.Floor(float64(j*tc.w) / float64(tc.ow)))
					c1 := int(math.Ceil(float64((j+1)*tc.w) / float64(tc.ow)))
					s, k := 0.0, 0
					for r := r0; r < r1; r++ {
						for c := c0; c < c1; c++ {
							s += img[r*tc.w+c]
							k++
						}
					}
					got := yv[(nc*tc.oh+i)*tc.ow+j]
					assert.InDelta(t, s/float64(k), got, 1e-12, "%v: cell (%d,%d) = %v, want %v", tc, i, j, got, s/float64(k))
				}
			}
		}
	}
}
