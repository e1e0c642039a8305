package models

import (
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/internal/testutil"
	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestWideResNet164ShapesAndParams. Parameter count of the authors'
// WideResNet(depth 16, widen 4) (models/WideRes.py; conv biases on; every
// BN has γ and β), n = (16−4)/6 = 2 blocks per stage, widths 64, 128, 256:
//
//	conv1 3×3 c→16 + bias: 144c + 16
//	stage 1: block 16→64: bn 32 + conv 9·16·64+64 = 9280 + bn 128
//	         + conv 9·64·64+64 = 36928 + shortcut 16·64+64 = 1088  = 47456
//	         block 64→64: 128 + 36928 + 128 + 36928                = 74112
//	stage 2: block 64→128: 128 + 73856 + 256 + 147584 + 8320      = 230144
//	         block 128→128: 256 + 147584 + 256 + 147584           = 295680
//	stage 3: block 128→256: 256 + 295168 + 512 + 590080 + 33024   = 919040
//	         block 256→256: 512 + 590080 + 512 + 590080           = 1181184
//	final bn 512; linear 256·C + C
//
// Total = 2747616 + 512 + 144c + 16 + 257C: c=3, C=10 → 2751146 (the
// published WRN-16-4 has 2.7M parameters); c=1, C=26 → 2754970.
func TestWideResNet164ShapesAndParams(t *testing.T) {
	for _, tc := range []modelShapeCase{
		{name: "wrn-16-4", c: 3, h: 32, w: 32, classes: 10, dropout: 0.3, wantParams: 2751146},
		{name: "wrn-16-4", c: 1, h: 28, w: 28, classes: 26, dropout: 0.4, wantParams: 2754970},
	} {
		checkModelShapes(t, tc)
	}
}

// benchModelStep measures one training-mode forward and backward pass of a
// registered image model on a batch of 32×32×3 inputs (mean-logit cost).
func benchModelStep(b *testing.B, name string, batch int) {
	g := gorgonia.NewGraph()
	spec := nn.ModelSpec{Name: name, Channels: 3, Height: 32, Width: 32, NumClasses: 10, Dropout: 0.3}
	m, err := NewModel(g, spec, rng.New(1, "init"))
	if err != nil {
		b.Fatal(err)
	}
	x := testutil.RandInput(g, tensor.Float32, "x", tensor.Shape{batch, 3, 32, 32}, rng.New(2, "x"))
	y, err := m.Forward(x, true)
	if err != nil {
		b.Fatal(err)
	}
	cost, err := gorgonia.Mean(y)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := gorgonia.Grad(cost, m.Learnables()...); err != nil {
		b.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := vm.RunAll(); err != nil {
			b.Fatal(err)
		}
		vm.Reset()
	}
	b.ReportMetric(float64(batch*b.N)/b.Elapsed().Seconds(), "images/s")
}

func BenchmarkWideResNet164TrainStep(b *testing.B) { benchModelStep(b, "wrn-16-4", 16) }
func BenchmarkResNet18TrainStep(b *testing.B)      { benchModelStep(b, "resnet18", 16) }
func BenchmarkLLPGANDiscriminatorTrainStep(b *testing.B) {
	benchModelStep(b, "llpgan-d", 16)
}
