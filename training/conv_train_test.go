package training

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestIm2colCNNTrainsLikeCNN trains the cnn with gorgonia.Conv2d (model
// test-cnn-gorgonia, same parameters and initialisation) and with
// Conv2dIm2col (model cnn, through Conv.Forward)
// on the same small LLP problem with the same seed, and checks that the
// final parameters agree to float32 rounding of a different summation order
// and the test accuracies agree: the speed levers change no result beyond
// rounding (with Winograd's 3×3 convolutions, beyond rounding turned into
// Adam steps; see below).
func TestIm2colCNNTrainsLikeCNN(t *testing.T) {
	const n, side, classes, bag = 512, 8, 4, 16
	r := rng.New(5, "im2col-train")
	d := &TrainData{Channels: 1, Height: side, Width: side, Bags: &estimators.BagSet{NumClasses: classes}}
	draw := func(count int) ([]float32, []int) {
		x := make([]float32, count*side*side)
		y := make([]int, count)
		for i := range y {
			y[i] = r.IntN(classes)
			for p := 0; p < side*side; p++ {
				v := 0.3 * r.Float32()
				if p/(side*side/classes) == y[i] { // class k lights band k
					v += 0.15
				}
				x[i*side*side+p] = v
			}
		}
		return x, y
	}
	var y []int
	d.X, y = draw(n)
	d.TestX, d.TestY = draw(256)
	for b := 0; b < n/bag; b++ {
		bg := estimators.Bag{ID: b, Size: bag, Proportions: make([]float64, classes)}
		for i := b * bag; i < (b+1)*bag; i++ {
			bg.Indices = append(bg.Indices, i)
			bg.Proportions[y[i]] += 1.0 / bag
		}
		d.Bags.Bags = append(d.Bags.Bags, bg)
	}
	// train runs the cnn with gorgonia.Conv2d and with Conv2dIm2col, its
	// 3×3 layers by Winograd's F(2×2, 3×3) or not.
	train := func(winograd bool) [2]*Result {
		defer nn.SetWinograd(nn.SetWinograd(winograd))
		var res [2]*Result
		for k, model := range []string{"test-cnn-gorgonia", "cnn"} {
			cfg := Config{Method: "llpfc-uniform", Model: ModelSpec{Name: model}, Optimizer: OptimizerConfig{Name: "adam", LR: 1e-3}, BatchSize: 32, Epochs: 3, Seed: 1}
			var err error
			if res[k], err = Train(context.Background(), cfg, d, nil); err != nil {
				t.Fatalf("%s: %v", model, err)
			}
		}
		return res
	}
	// Without Winograd the products only reorder the sums: the parameters
	// agree to float32 rounding. With it the transforms add roundings, and
	// Adam, whose steps are ±lr for any gradient that keeps its sign, turns
	// a near-zero gradient's rounding into up to a step: the parameters
	// agree to one step of lr = 1e-3 (measured: 3.2e-4 at most, against
	// 1.6e-7 without), and a wrong transform moves them by far more
	// (TestWinogradMatchesDirect checks the transforms themselves).
	for _, tc := range []struct {
		winograd bool
		abs      float64
	}{{false, 1e-4}, {true, 1e-3}} {
		res := train(tc.winograd)
		// Each result records the algorithm that trained it (Result.Numerics).
		algo := map[bool]string{false: "conv3x3 im2col", true: "conv3x3 winograd"}[tc.winograd]
		if nn.BLASName != "gonum+sgemm" {
			algo = "conv3x3 im2col" // the OpenBLAS build keeps im2col
		}
		assert.Contains(t, res[1].Numerics, algo, "Winograd %v", tc.winograd)
		var worst float64
		for i := range res[0].Params {
			a, b := res[0].Params[i], res[1].Params[i]
			for j := range a {
				diff := math.Abs(float64(a[j] - b[j]))
				worst = math.Max(worst, diff)
				require.LessOrEqual(t, diff, tc.abs+1e-3*math.Abs(float64(a[j])), "Winograd %v: parameter %d[%d]: %v with gorgonia.Conv2d, %v with Conv2dIm2col", tc.winograd, i, j, a[j], b[j])
			}
		}
		assert.Equal(t, res[1].TestAccuracy, res[0].TestAccuracy, "Winograd %v: test accuracy %v with gorgonia.Conv2d, %v with Conv2dIm2col", tc.winograd, res[0].TestAccuracy, res[1].TestAccuracy)
		if res[0].TestAccuracy < 0.4 || res[0].TestAccuracy > 0.99 {
			t.Errorf("test accuracy %v: want a problem neither trivial nor hopeless (0.4…0.99) for the comparison to mean something", res[0].TestAccuracy)
		}
		t.Logf("Winograd %v: test accuracy %v (gorgonia.Conv2d) and %v (Conv2dIm2col); largest parameter difference %.2g", tc.winograd, res[0].TestAccuracy, res[1].TestAccuracy, worst)
	}
}

func init() { models.RegisterModel("test-cnn-gorgonia", newTestCNNGorgonia) }

// testCNNGorgonia is models' cnn with gorgonia's Conv2d, Rectify and
// MaxPool2D in place of the fused ops: its layers are built in cnn's order
// and with cnn's names, so the same seed gives the same initial parameters
// (the test fails if cnn's construction changes and this one does not).
type testCNNGorgonia struct {
	spec         nn.ModelSpec
	conv1, conv2 *nn.Conv
	fc1, fc2     *nn.Dense
}

func newTestCNNGorgonia(g *gorgonia.ExprGraph, spec nn.ModelSpec, rng *rand.Rand) (nn.Model, error) {
	h, w, dt := spec.Height/4, spec.Width/4, spec.DType()
	return testCNNGorgonia{
		spec:  spec,
		conv1: nn.NewConv(g, dt, "cnn.conv1", spec.Channels, 32, 3, 1, 1, true, rng),
		conv2: nn.NewConv(g, dt, "cnn.conv2", 32, 64, 3, 1, 1, true, rng),
		fc1:   nn.NewDense(g, dt, "cnn.fc1", 64*h*w, 128, rng),
		fc2:   nn.NewDense(g, dt, "cnn.fc2", 128, spec.NumClasses, rng),
	}, nil
}

func (m testCNNGorgonia) Learnables() gorgonia.Nodes {
	return append(append(m.conv1.Learnables(), m.conv2.Learnables()...), append(m.fc1.Learnables(), m.fc2.Learnables()...)...)
}

func (m testCNNGorgonia) Name() string { return "test-cnn-gorgonia" }

func (m testCNNGorgonia) Forward(x *gorgonia.Node, train bool) (*gorgonia.Node, error) {
	h, err := nn.AsImage(x, m.spec)
	if err != nil {
		return nil, err
	}
	for _, c := range []*nn.Conv{m.conv1, m.conv2} {
		if h, err = gorgonia.Conv2d(h, c.W, tensor.Shape{c.Kernel, c.Kernel}, []int{c.Pad, c.Pad}, []int{c.Stride, c.Stride}, []int{1, 1}); err != nil {
			return nil, err
		}
		if h, err = gorgonia.BroadcastAdd(h, c.B, nil, []byte{0, 2, 3}); err != nil {
			return nil, err
		}
		if h, err = gorgonia.Rectify(h); err != nil {
			return nil, err
		}
		if h, err = gorgonia.MaxPool2D(h, tensor.Shape{2, 2}, []int{0, 0}, []int{2, 2}); err != nil {
			return nil, err
		}
	}
	if h, err = nn.Flatten(h); err != nil {
		return nil, err
	}
	if h, err = m.fc1.Forward(h); err != nil {
		return nil, err
	}
	if h, err = gorgonia.Rectify(h); err != nil {
		return nil, err
	}
	return m.fc2.Forward(h)
}
