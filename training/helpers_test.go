package training

import (
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func init() { RegisterModel("test-tiny", newFDTinyNet) }

// fdTinyNet is a smooth two-layer network D→5→C with tanh, small enough for
// central finite differences over every parameter.
type fdTinyNet struct{ l1, l2 *Dense }

func newFDTinyNet(g *gorgonia.ExprGraph, spec ModelSpec, rng *rand.Rand) (Model, error) {
	return &fdTinyNet{
		l1: NewDense(g, spec.DType(), "tiny.l1", spec.InputDim(), 5, rng),
		l2: NewDense(g, spec.DType(), "tiny.l2", 5, spec.NumClasses, rng),
	}, nil
}
func (m *fdTinyNet) Name() string { return "test-tiny" }
func (m *fdTinyNet) Forward(x *gorgonia.Node, train bool) (*gorgonia.Node, error) {
	h, err := flatten(x)
	if err != nil {
		return nil, err
	}
	if h, err = m.l1.Forward(h); err != nil {
		return nil, err
	}
	if h, err = gorgonia.Tanh(h); err != nil {
		return nil, err
	}
	return m.l2.Forward(h)
}
func (m *fdTinyNet) Learnables() gorgonia.Nodes {
	return append(m.l1.Learnables(), m.l2.Learnables()...)
}

// constInput returns a float64 input node holding v.
func constInput(g *gorgonia.ExprGraph, name string, shape tensor.Shape, v []float64) *gorgonia.Node {
	t := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(v))
	return gorgonia.NewTensor(g, tensor.Float64, len(shape), gorgonia.WithShape(shape...), gorgonia.WithName(name), gorgonia.WithValue(t))
}

func randSlice(r *rand.Rand, n int, lo, hi float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = lo + (hi-lo)*r.Float64()
	}
	return v
}

// checkGradFD compares the symbolic gradients of loss with respect to params
// against central finite differences of the loss (step h), parameter by
// parameter, with tolerance tol on |a−b|/max(1,|a|,|b|).
func checkGradFD(t *testing.T, g *gorgonia.ExprGraph, loss *gorgonia.Node, params gorgonia.Nodes, h, tol float64) {
	t.Helper()
	grads, err := gorgonia.Grad(loss, params...)
	require.NoError(t, err)
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	run := func() float64 {
		require.NoError(t, vm.RunAll())
		defer vm.Reset()
		v, err := scalarOf(loss.Value())
		require.NoError(t, err)
		return v
	}
	run()
	analytic := make([][]float64, len(params))
	for k, gn := range grads {
		analytic[k] = append([]float64(nil), gn.Value().Data().([]float64)...)
	}
	checked := 0
	for k, p := range params {
		data := p.Value().Data().([]float64)
		for i := range data {
			orig := data[i]
			data[i] = orig + h
			fp := run()
			data[i] = orig - h
			fm := run()
			data[i] = orig
			fd := (fp - fm) / (2 * h)
			a := analytic[k][i]
			d := math.Abs(a-fd) / math.Max(1, math.Max(math.Abs(a), math.Abs(fd)))
			assert.LessOrEqual(t, d, tol, "%s[%d]: gradient %.10g, finite difference %.10g", p.Name(), i, a, fd)
			checked++
		}
	}
	require.NotEqual(t, 0, checked, "no parameter checked")
}

// inputDT adds a constant tensor of element type dt (float64 or float32)
// holding v to g.
func inputDT(g *gorgonia.ExprGraph, dt tensor.Dtype, name string, shape tensor.Shape, v []float64) *gorgonia.Node {
	if dt == tensor.Float64 {
		return constInput(g, name, shape, v)
	}
	f := make([]float32, len(v))
	for i := range v {
		f[i] = float32(v[i])
	}
	return gorgonia.NewTensor(g, dt, len(shape), gorgonia.WithShape(shape...), gorgonia.WithName(name), gorgonia.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(f))))
}
