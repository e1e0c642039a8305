package nn

import (
	"fmt"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestMaxPool2MatchesGorgonia: the fused 2×2 pool (with and without the
// ReLU) gives the output and the input gradient of gorgonia's Rectify and
// MaxPool2D, exactly, on shapes with odd sides (the last row or column is
// dropped) and with negative windows (the ReLU's zero gradient), in float32
// and float64 (TestMaxPool2CNNGradientsMatchGorgonia: a whole cnn's).
func TestMaxPool2MatchesGorgonia(t *testing.T) {
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		for _, shape := range []tensor.Shape{{2, 3, 5, 7}, {1, 2, 4, 4}, {3, 1, 2, 3}} {
			for _, relu := range []bool{false, true} {
				name := fmt.Sprintf("%v/%v/relu=%t", dt, shape, relu)
				fused, fusedGrad := poolRun(t, dt, shape, relu, true)
				ref, refGrad := poolRun(t, dt, shape, relu, false)
				assert.Equal(t, ref, fused, "%s: output", name)
				assert.Equal(t, refGrad, fusedGrad, "%s: input gradient", name)
			}
		}
	}
}

// poolRun builds y = maxPool2(x) (fused or gorgonia's) on a random x with
// about a third of its values negative, and returns y and ∂(Σ c⊙y)/∂x for a
// fixed random c.
func poolRun(t *testing.T, dt tensor.Dtype, shape tensor.Shape, relu, fused bool) (y, dx []float64) {
	t.Helper()
	old := FusedPool
	FusedPool = fused
	defer func() { FusedPool = old }()
	src := rng.New(5, "pool")
	g := gorgonia.NewGraph()
	xv := make([]float64, shape.TotalSize())
	for i := range xv {
		xv[i] = 3*src.Float64() - 1
	}
	x := gorgonia.NewTensor(g, dt, 4, gorgonia.WithShape(shape...), gorgonia.WithName("x"), gorgonia.WithValue(denseOf(dt, shape, xv)))
	out, err := MaxPool2(x, relu)
	require.NoError(t, err)
	os := out.Shape()
	cv := make([]float64, os.TotalSize())
	for i := range cv {
		cv[i] = src.Float64() + 0.5
	}
	c := gorgonia.NewTensor(g, dt, 4, gorgonia.WithShape(os...), gorgonia.WithName("c"), gorgonia.WithValue(denseOf(dt, os, cv)))
	prod, err := gorgonia.HadamardProd(out, c)
	require.NoError(t, err)
	s, err := gorgonia.Sum(prod)
	require.NoError(t, err)
	gx, err := gorgonia.Grad(s, x)
	require.NoError(t, err)
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	require.NoError(t, vm.RunAll())
	return ValueData(out.Value()), ValueData(gx[0].Value())
}

func denseOf(dt tensor.Dtype, shape tensor.Shape, v []float64) *tensor.Dense {
	if dt == tensor.Float64 {
		return tensor.New(tensor.WithShape(shape.Clone()...), tensor.WithBacking(append([]float64(nil), v...)))
	}
	f := make([]float32, len(v))
	for i, x := range v {
		f[i] = float32(x)
	}
	return tensor.New(tensor.WithShape(shape.Clone()...), tensor.WithBacking(f))
}
