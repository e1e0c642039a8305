package testutil

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// ConstInput returns a float64 input node holding v.
func ConstInput(g *gorgonia.ExprGraph, name string, shape tensor.Shape, v []float64) *gorgonia.Node {
	t := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(v))
	return gorgonia.NewTensor(g, tensor.Float64, len(shape), gorgonia.WithShape(shape...), gorgonia.WithName(name), gorgonia.WithValue(t))
}

// RandSlice returns n independent draws from U(lo, hi).
func RandSlice(r *rand.Rand, n int, lo, hi float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = lo + (hi-lo)*r.Float64()
	}
	return v
}

// CheckGradFD compares the symbolic gradients of loss with respect to params
// against central finite differences of the loss (step h), parameter by
// parameter, with tolerance tol on |a−b|/max(1,|a|,|b|).
func CheckGradFD(t *testing.T, g *gorgonia.ExprGraph, loss *gorgonia.Node, params gorgonia.Nodes, h, tol float64) {
	t.Helper()
	grads, err := gorgonia.Grad(loss, params...)
	require.NoError(t, err)
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	run := func() float64 {
		require.NoError(t, vm.RunAll())
		defer vm.Reset()
		v, err := scalar(loss.Value())
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

// InputDT adds a constant tensor of element type dt (float64 or float32)
// holding v to g.
func InputDT(g *gorgonia.ExprGraph, dt tensor.Dtype, name string, shape tensor.Shape, v []float64) *gorgonia.Node {
	if dt == tensor.Float64 {
		return ConstInput(g, name, shape, v)
	}
	f := make([]float32, len(v))
	for i := range v {
		f[i] = float32(v[i])
	}
	return gorgonia.NewTensor(g, dt, len(shape), gorgonia.WithShape(shape...), gorgonia.WithName(name), gorgonia.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(f))))
}

// MaxAbsDiff returns max_i |a_i − b_i| (+Inf when the lengths differ).
func MaxAbsDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var d float64
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// RandInput adds an input node of the given shape filled with N(0,1) draws.
func RandInput(g *gorgonia.ExprGraph, dt tensor.Dtype, name string, shape tensor.Shape, r *rand.Rand) *gorgonia.Node {
	n := shape.TotalSize()
	var t *tensor.Dense
	if dt == tensor.Float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = r.NormFloat64()
		}
		t = tensor.New(tensor.WithShape(shape.Clone()...), tensor.WithBacking(v))
	} else {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		t = tensor.New(tensor.WithShape(shape.Clone()...), tensor.WithBacking(v))
	}
	return gorgonia.NewTensor(g, dt, shape.Dims(), gorgonia.WithShape(shape.Clone()...), gorgonia.WithName(name), gorgonia.WithValue(t))
}

// Values returns a node's value as float64s.
func Values(t *testing.T, n *gorgonia.Node) []float64 {
	t.Helper()
	switch d := n.Value().Data().(type) {
	case []float32:
		out := make([]float64, len(d))
		for i, v := range d {
			out[i] = float64(v)
		}
		return out
	case []float64:
		return append([]float64(nil), d...)
	case float32:
		return []float64{float64(d)}
	case float64:
		return []float64{d}
	}
	t.Fatalf("node %v: unexpected value type %T", n, n.Value().Data())
	return nil
}

// GradCheck compares gorgonia's symbolic gradient of the scalar cost with
// respect to each node in wrt against central finite differences
// (f(θ+h) − f(θ−h))/2h on up to maxCoords coordinates per node, in a
// float64 graph. The nodes' values are perturbed in place and restored.
func GradCheck(t *testing.T, g *gorgonia.ExprGraph, cost *gorgonia.Node, wrt gorgonia.Nodes, maxCoords int, h, tol float64, before func()) {
	t.Helper()
	grads, err := gorgonia.Grad(cost, wrt...)
	require.NoError(t, err)
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	run := func() float64 {
		if before != nil {
			before()
		}
		require.NoError(t, vm.RunAll())
		vm.Reset()
		return Values(t, cost)[0]
	}
	run()
	analytic := make([][]float64, len(grads))
	for i, gn := range grads {
		analytic[i] = Values(t, gn)
	}
	r := rng.New(99, "gradcheck")
	checked := 0
	for i, n := range wrt {
		data, ok := n.Value().Data().([]float64)
		if !ok {
			t.Fatalf("gradCheck needs a float64 graph; %v holds %T", n, n.Value().Data())
		}
		require.Equal(t, len(data), len(analytic[i]), "%v: gradient has %d entries, value %d", n, len(analytic[i]), len(data))
		idx := r.Perm(len(data))
		if len(idx) > maxCoords {
			idx = idx[:maxCoords]
		}
		for _, k := range idx {
			orig := data[k]
			data[k] = orig + h
			fp := run()
			data[k] = orig - h
			fm := run()
			data[k] = orig
			fd := (fp - fm) / (2 * h)
			d := math.Abs(fd - analytic[i][k])
			assert.LessOrEqual(t, d, tol*math.Max(1, math.Abs(fd)), "%v[%d]: symbolic gradient %.8g, central difference %.8g", n, k, analytic[i][k], fd)
			checked++
		}
	}
	require.NotEqual(t, 0, checked, "gradCheck checked no coordinate")
}

// scalar reads a float32 or float64 scalar value.
func scalar(v gorgonia.Value) (float64, error) {
	switch d := v.Data().(type) {
	case float32:
		return float64(d), nil
	case float64:
		return d, nil
	}
	return 0, fmt.Errorf("not a scalar: %T", v.Data())
}
