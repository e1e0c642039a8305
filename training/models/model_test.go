package models

import (
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestParamCounts checks the parameter counts of the small models against
// counts derived by hand from the layer list (weights + biases):
//
//	mlp, D inputs, C classes: (D·512+512) + (512·256+256) + (256·C+C)
//	  D=784, C=10:  401,920 + 131,328 + 2,570 = 535,818
//	  D=3072, C=10: 1,573,376 + 131,328 + 2,570 = 1,707,274
//	cnn, c input channels, H×W images, C classes (padding 1, two 2×2 pools):
//	  conv1 32·c·9+32, conv2 64·32·9+64 = 18,496, fc1 64·(H/4)(W/4)·128+128, fc2 128·C+C
//	  28×28×1:  320 + 18,496 + (3136·128+128 = 401,536) + 1,290 = 421,642
//	  32×32×3:  896 + 18,496 + (4096·128+128 = 524,416) + 1,290 = 545,098
//	cnn-bn: cnn plus γ and β of two batch norms, 2·32 + 2·64 = 192
//	  28×28×1:  421,642 + 192 = 421,834
func TestParamCounts(t *testing.T) {
	cases := []struct {
		spec nn.ModelSpec
		want int
	}{
		{nn.ModelSpec{Name: "mlp", Features: 784, NumClasses: 10}, 535818},
		{nn.ModelSpec{Name: "mlp", Channels: 3, Height: 32, Width: 32, NumClasses: 10}, 1707274},
		{nn.ModelSpec{Name: "cnn", Channels: 1, Height: 28, Width: 28, NumClasses: 10}, 421642},
		{nn.ModelSpec{Name: "cnn", Channels: 3, Height: 32, Width: 32, NumClasses: 10}, 545098},
		{nn.ModelSpec{Name: "cnn-bn", Channels: 1, Height: 28, Width: 28, NumClasses: 10}, 421834},
	}
	for _, c := range cases {
		g := gorgonia.NewGraph()
		m, err := NewModel(g, c.spec, rng.New(1, "test"))
		require.NoError(t, err, "%+v: %v", c.spec, err)
		got := nn.ParamCount(m)
		assert.Equal(t, c.want, got, "%s %dx%dx%d/%d: %d parameters, want %d", c.spec.Name, c.spec.Channels, c.spec.Height, c.spec.Width, c.spec.Features, got, c.want)
	}
}

// TestOutputShapes runs the forward pass on 28×28×1 and 32×32×3 batches
// and checks the logits are batch×C.
func TestOutputShapes(t *testing.T) {
	for _, name := range []string{"mlp", "cnn", "cnn-bn"} {
		for _, in := range [][3]int{{1, 28, 28}, {3, 32, 32}} {
			spec := nn.ModelSpec{Name: name, Channels: in[0], Height: in[1], Width: in[2], NumClasses: 7}
			g := gorgonia.NewGraph()
			m, err := NewModel(g, spec, rng.New(1, "test"))
			require.NoError(t, err)
			const batch = 3
			x := gorgonia.NewTensor(g, tensor.Float32, 4, gorgonia.WithShape(spec.InputShape(batch)...), gorgonia.WithName("x"), gorgonia.WithInit(gorgonia.Uniform(0, 1)))
			out, err := m.Forward(x, false)
			require.NoError(t, err, "%s %v: %v", name, in, err)
			vm := gorgonia.NewTapeMachine(g)
			require.NoError(t, vm.RunAll(), "%s %v: %v", name, in, err)
			vm.Close()
			if got := out.Value().Shape(); !got.Eq(tensor.Shape{batch, 7}) {
				t.Errorf("%s %v: logits shape %v, want [%d 7]", name, in, got, batch)
			}
		}
	}
}

func TestNewModelErrors(t *testing.T) {
	g := gorgonia.NewGraph()
	r := rng.New(1, "test")
	for _, spec := range []nn.ModelSpec{
		{Name: "nope", Features: 3, NumClasses: 2},
		{Name: "mlp", Features: 3, NumClasses: 1},
		{Name: "mlp", NumClasses: 3},
		{Name: "cnn", Features: 3, NumClasses: 3},
		{Name: "mlp", Features: 3, NumClasses: 3, Dropout: 1},
	} {
		if _, err := NewModel(g, spec, r); err == nil {
			t.Errorf("NewModel(%+v): no error", spec)
		}
	}
}

// TestNewLearnableKaimingUniform checks PyTorch's default initialisation:
// every weight of a 784→512 dense layer lies in ±1/√784 and the sample
// variance is within 2% of the uniform distribution's bound²/3 (401,408
// draws: the relative standard error of the variance is about 0.2%).
func TestNewLearnableKaimingUniform(t *testing.T) {
	g := gorgonia.NewGraph()
	d := nn.NewDense(g, tensor.Float32, "fc", 784, 512, rng.New(1, "init"))
	w := d.W.Value().Data().([]float32)
	bound := nn.KaimingUniformBound(784)
	require.Equal(t, 1.0/28, bound, "bound %v, want 1/28", bound)
	var sum, sq float64
	for _, v := range w {
		require.LessOrEqual(t, math.Abs(float64(v)), bound, "weight %v outside ±%v", v, bound)
		sum += float64(v)
		sq += float64(v) * float64(v)
	}
	n := float64(len(w))
	mean := sum / n
	vr := sq/n - mean*mean
	if want := bound * bound / 3; math.Abs(vr/want-1) > 0.02 || math.Abs(mean) > 0.01*bound {
		t.Errorf("mean %v, variance %v; want 0 and %v", mean, vr, want)
	}
	b := d.B.Value().Data().([]float32)
	assert.Equal(t, 512, len(b), "bias has %d entries, want 512", len(b))
}
