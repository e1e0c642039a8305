package models

import (
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/internal/testutil"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestLLPGANDiscriminatorShapesAndParams. Parameter count of the
// discriminator (models/LLPGAN_DIS.py; every convolution has a bias), layer
// by layer for c input channels and C classes:
//
//	conv 3×3 c→64: 576c + 64        conv 3×3 64→64: 36928 (×2)
//	conv 3×3 64→128: 73856          conv 3×3 128→128: 147584 (×2)
//	conv 3×3 128→256: 295168        conv 1×1 256→128: 32896
//	conv 1×1 128→64: 8256           linear 64→C: 65C
//
// Total = 779264 + 576c + 65C: c=3, C=10 → 781642; c=1, C=26 → 781530.
func TestLLPGANDiscriminatorShapesAndParams(t *testing.T) {
	for _, tc := range []modelShapeCase{
		{name: "llpgan-d", c: 3, h: 32, w: 32, classes: 10, wantParams: 781642},
		{name: "llpgan-d", c: 1, h: 28, w: 28, classes: 26, wantParams: 781530},
	} {
		m := checkModelShapes(t, tc)
		g := m.Learnables()[0].Graph()
		x := testutil.RandInput(g, tensor.Float32, "x2", tensor.Shape{2, tc.c, tc.h, tc.w}, rng.New(7, "x"))
		_, feat, err := m.(FeatureModel).ForwardFeatures(x, false)
		require.NoError(t, err)
		if !feat.Shape().Eq(tensor.Shape{2, 64}) {
			t.Errorf("features shape %v, want 2×64", feat.Shape())
		}
	}
}

// TestLLPGANGeneratorShapesAndParams. Parameter counts:
//
// 32×32×3 (LLP-GAN's DCGAN generator; shift-only batch norm):
//
//	linear 100→8192, no bias: 819200; bn β: 8192
//	deconv 5×5 512→256, no bias: 3276800; bn β: 256
//	deconv 5×5 256→128, no bias: 819200; bn β: 128
//	deconv 5×5 128→3 + bias: 9600 + 3
//	total 4933379
//
// 28×28×1 (LLPGAN_GEN_MNIST; batch norm with γ and β):
//
//	linear 100→500: 50500; bn: 1000; linear 500→500: 250500; bn: 1000;
//	linear 500→784: 392784; bn: 1568; total 697352
func TestLLPGANGeneratorShapesAndParams(t *testing.T) {
	for _, tc := range []struct {
		c, h, w, want int
	}{{3, 32, 32, 4933379}, {1, 28, 28, 697352}} {
		g := gorgonia.NewGraph()
		m, err := NewModel(g, nn.ModelSpec{Name: "llpgan-g", Channels: tc.c, Height: tc.h, Width: tc.w, NumClasses: 10}, rng.New(1, "init"))
		require.NoError(t, err)
		got := nn.ParamCount(m)
		assert.Equal(t, tc.want, got, "%d×%d×%d generator: %d parameters, want %d", tc.c, tc.h, tc.w, got, tc.want)
		z := testutil.RandInput(g, tensor.Float32, "z", tensor.Shape{2, LLPGANNoiseDim}, rng.New(8, "z"))
		for _, train := range []bool{true, false} {
			img, err := m.Forward(z, train)
			require.NoError(t, err)
			if want := (tensor.Shape{2, tc.c, tc.h, tc.w}); !img.Shape().Eq(want) {
				t.Errorf("train=%v: image shape %v, want %v", train, img.Shape(), want)
			}
		}
		vm := gorgonia.NewTapeMachine(g)
		require.NoError(t, vm.RunAll())
		vm.Close()
	}
}

// TestConvTransposeMatchesDefinition compares ConvTranspose with the
// definition of PyTorch's ConvTranspose2d(k=5, stride=2, padding=2,
// output_padding=1): out[o, y, x] = b[o] + Σ x[c, i, j]·Wp[c, o, a, b] over
// y = 2i − 2 + a, x = 2j − 2 + b, with Wp read through ConvTranspose.Tap,
// and checks that the 25 taps of every channel pair are distinct
// parameters (the sub-kernels partition the 5×5 kernel).
func TestConvTransposeMatchesDefinition(t *testing.T) {
	g := gorgonia.NewGraph()
	dt := tensor.Float64
	const n, in, out, h, w = 2, 3, 2, 3, 2
	ct := nn.NewConvTranspose(g, dt, "ct", in, out, true, rng.New(1, "init"))
	x := testutil.RandInput(g, dt, "x", tensor.Shape{n, in, h, w}, rng.New(2, "x"))
	y, err := ct.Forward(x)
	require.NoError(t, err)
	if !y.Shape().Eq(tensor.Shape{n, out, 2 * h, 2 * w}) {
		t.Fatalf("shape %v, want %v", y.Shape(), tensor.Shape{n, out, 2 * h, 2 * w})
	}
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	require.NoError(t, vm.RunAll())
	xv, yv, B := testutil.Values(t, x), testutil.Values(t, y), testutil.Values(t, ct.B)
	H, Wd := 2*h, 2*w
	want := make([]float64, n*out*H*Wd)
	for b := 0; b < n; b++ {
		for o := 0; o < out; o++ {
			for yy := 0; yy < H; yy++ {
				for xx := 0; xx < Wd; xx++ {
					want[((b*out+o)*H+yy)*Wd+xx] = B[o]
				}
			}
			for c := 0; c < in; c++ {
				for i := 0; i < h; i++ {
					for j := 0; j < w; j++ {
						for a := 0; a < 5; a++ {
							for bb := 0; bb < 5; bb++ {
								yy, xx := 2*i-2+a, 2*j-2+bb
								if yy < 0 || yy >= H || xx < 0 || xx >= Wd {
									continue
								}
								wp := ct.Tap(c, o, a, bb)
								want[((b*out+o)*H+yy)*Wd+xx] += xv[((b*in+c)*h+i)*w+j] * wp
							}
						}
					}
				}
			}
		}
	}
	for k := range want {
		require.InDelta(t, want[k], yv[k], 1e-12, "output %d = %v, want %v", k, yv[k], want[k])
	}
	// Partition: number every sub-kernel entry; the 5×5 taps of each
	// (c, o) must be 25 distinct numbers, all entries used once.
	next := 0.0
	for _, k := range ct.Learnables()[:4] {
		d := k.Value().Data().([]float64)
		for i := range d {
			next++
			d[i] = next
		}
	}
	seen := map[float64]bool{}
	for c := 0; c < in; c++ {
		for o := 0; o < out; o++ {
			for a := 0; a < 5; a++ {
				for bb := 0; bb < 5; bb++ {
					v := ct.Tap(c, o, a, bb)
					if seen[v] {
						t.Fatalf("tap (%d,%d,%d,%d) reuses entry %v", c, o, a, bb, v)
					}
					seen[v] = true
				}
			}
		}
	}
	if len(seen) != int(next) || int(next) != 25*in*out {
		t.Errorf("%d taps cover %d of %v sub-kernel entries, want all %d", len(seen), len(seen), next, 25*in*out)
	}
}

// TestConvTransposeGradient: gradients of Σ w⊙ConvTranspose(x) with respect
// to the four sub-kernels, the bias and the input against central
// differences.
func TestConvTransposeGradient(t *testing.T) {
	g := gorgonia.NewGraph()
	dt := tensor.Float64
	ct := nn.NewConvTranspose(g, dt, "ct", 2, 2, true, rng.New(1, "init"))
	x := testutil.RandInput(g, dt, "x", tensor.Shape{2, 2, 2, 3}, rng.New(2, "x"))
	w := testutil.RandInput(g, dt, "w", tensor.Shape{2, 2, 4, 6}, rng.New(3, "w"))
	y, err := ct.Forward(x)
	require.NoError(t, err)
	wy, err := gorgonia.HadamardProd(w, y)
	require.NoError(t, err)
	cost, err := gorgonia.Sum(wy)
	require.NoError(t, err)
	testutil.GradCheck(t, g, cost, append(ct.Learnables(), x), 8, 1e-6, 1e-6, nil)
}
