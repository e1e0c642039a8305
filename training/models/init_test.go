package models

import (
	"math"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// paramStats returns the float64 copy of a float32 parameter's values.
func paramValues(n *gorgonia.Node) []float64 {
	d := n.Value().Data().([]float32)
	out := make([]float64, len(d))
	for i, v := range d {
		out[i] = float64(v)
	}
	return out
}

// Each deep model is initialized as in the authors' code
// (models/*.py@1d0cbc5), checked on the statistics of every layer large
// enough to estimate them (≥ 20,000 weights: the sample standard deviation
// is then within 2% of its expectation with overwhelming probability):
//   - wrn-16-4 convolutions: xavier_uniform_ with gain √2, so
//     U(±b), b = √2·√(6/(fan_in+fan_out)), std b/√3, and bias 0;
//   - resnet18 and vgg16 convolutions: kaiming_normal_(fan_out, relu), std
//     √(2/fan_out), mean 0; bias 0 (VGG's convolutions have one);
//   - vgg16's linear layers N(0, 0.01²), bias 0; wrn's and resnet18's linear
//     layers keep PyTorch's default U(±1/√fan_in).
func TestInitializationAsTheAuthors(t *testing.T) {
	for _, tc := range []struct {
		model string
		check func(t *testing.T, name string, shape tensor.Shape, v []float64)
	}{
		{"wrn-16-4", func(t *testing.T, name string, shape tensor.Shape, v []float64) {
			if len(shape) == 4 && strings.HasSuffix(name, ".W") {
				fanIn, fanOut := shape[1]*shape[2]*shape[3], shape[0]*shape[2]*shape[3]
				b := math.Sqrt2 * math.Sqrt(6/float64(fanIn+fanOut))
				assert.LessOrEqual(t, maxAbs(v), b, name)
				assert.InEpsilon(t, b/math.Sqrt(3), stat.PopStdDev(v, nil), 0.02, name)
			}
			if len(shape) == 4 && strings.HasSuffix(name, ".b") {
				assert.Zero(t, maxAbs(v), "%s: conv bias 0", name)
			}
		}},
		{"resnet18", func(t *testing.T, name string, shape tensor.Shape, v []float64) {
			if len(shape) == 4 && strings.HasSuffix(name, ".W") {
				fanOut := shape[0] * shape[2] * shape[3]
				assert.InEpsilon(t, math.Sqrt(2/float64(fanOut)), stat.PopStdDev(v, nil), 0.02, name)
				assert.InDelta(t, 0, stat.Mean(v, nil), 0.05*math.Sqrt(2/float64(fanOut)), name)
			}
			if name == "resnet18.fc.W" {
				assert.LessOrEqual(t, maxAbs(v), nn.KaimingUniformBound(shape[0]), name)
			}
		}},
		{"vgg16", func(t *testing.T, name string, shape tensor.Shape, v []float64) {
			switch {
			case len(shape) == 4 && strings.HasSuffix(name, ".W"):
				fanOut := shape[0] * shape[2] * shape[3]
				assert.InEpsilon(t, math.Sqrt(2/float64(fanOut)), stat.PopStdDev(v, nil), 0.02, name)
			case strings.Contains(name, "classifier") && strings.HasSuffix(name, ".W"):
				assert.InEpsilon(t, 0.01, stat.PopStdDev(v, nil), 0.02, name)
			case strings.HasSuffix(name, ".b"):
				assert.Zero(t, maxAbs(v), "%s: bias 0", name)
			}
		}},
	} {
		g := gorgonia.NewGraph()
		m, err := NewModel(g, nn.ModelSpec{Name: tc.model, Channels: 3, Height: 32, Width: 32, NumClasses: 10}, rng.New(1, "init"))
		require.NoError(t, err, tc.model)
		checked := 0
		for _, p := range m.Learnables() {
			v := paramValues(p)
			if len(v) < 20000 && !strings.HasSuffix(p.Name(), ".b") {
				continue
			}
			tc.check(t, p.Name(), p.Shape(), v)
			checked++
		}
		assert.Greater(t, checked, 5, "%s: layers checked", tc.model)
	}
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}
