package nn

import (
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"reflect"
	"unsafe"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// ValueData copies a float32 or float64 value (tensor or scalar) into a new
// []float64.
func ValueData(t gorgonia.Value) []float64 {
	switch d := t.Data().(type) {
	case []float64:
		return append([]float64(nil), d...)
	case []float32:
		out := make([]float64, len(d))
		for i, v := range d {
			out[i] = float64(v)
		}
		return out
	case float64:
		return []float64{d}
	case float32:
		return []float64{float64(d)}
	}
	return nil
}

// StoreFloat64 writes v into t's backing array (converting to float32 if
// needed); v may be shorter than t, the rest is zeroed.
func StoreFloat64(t *tensor.Dense, v []float64) {
	switch d := t.Data().(type) {
	case []float64:
		n := copy(d, v)
		clear(d[n:])
	case []float32:
		for i := range d {
			if i < len(v) {
				d[i] = float32(v[i])
			} else {
				d[i] = 0
			}
		}
	}
}

func CastScalar(dt tensor.Dtype, v float64) any {
	if dt == tensor.Float64 {
		return v
	}
	return float32(v)
}

// NewInputNode adds an input node of the given shape bound to a persistent
// zero tensor that the caller fills in place before each run.
func NewInputNode(g *gorgonia.ExprGraph, dt tensor.Dtype, name string, shape tensor.Shape) (*gorgonia.Node, *tensor.Dense) {
	t := tensor.New(tensor.Of(dt), tensor.WithShape(shape.Clone()...))
	n := gorgonia.NewTensor(g, dt, len(shape), gorgonia.WithShape(shape.Clone()...), gorgonia.WithName(name), gorgonia.WithValue(t))
	return n, t
}

// ValuesF64 returns v's elements as float64, converting float32 into *buf.
func ValuesF64(v gorgonia.Value, buf *[]float64) []float64 {
	switch d := v.Data().(type) {
	case []float64:
		return d
	case []float32:
		if cap(*buf) < len(d) {
			*buf = make([]float64, len(d))
		}
		out := (*buf)[:len(d)]
		for i, x := range d {
			out[i] = float64(x)
		}
		return out
	}
	return nil
}

// AddInto adds the elements of v to acc.
func AddInto(acc []float64, v gorgonia.Value) {
	switch d := v.Data().(type) {
	case []float64:
		for i, x := range d {
			acc[i] += x
		}
	case []float32:
		for i, x := range d {
			acc[i] += float64(x)
		}
	}
}

// ScalarOf reads a scalar value (a gorgonia scalar or a one-element tensor).
func ScalarOf(v gorgonia.Value) (float64, error) {
	switch d := v.Data().(type) {
	case float32:
		return float64(d), nil
	case float64:
		return d, nil
	case []float32:
		if len(d) == 1 {
			return float64(d[0]), nil
		}
	case []float64:
		if len(d) == 1 {
			return d[0], nil
		}
	}
	return 0, fmt.Errorf("expected a scalar gradient, got %T", v.Data())
}

func OpHash(o interface{ WriteHash(hash.Hash) }) uint32 {
	h := fnv.New32a()
	o.WriteHash(h)
	return h.Sum32()
}

// ConstTensor returns a dense tensor of the given shape filled with c.
func ConstTensor(dt tensor.Dtype, shape tensor.Shape, c float64) *tensor.Dense {
	n := shape.TotalSize()
	if dt == tensor.Float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = c
		}
		return tensor.New(tensor.WithShape(shape.Clone()...), tensor.WithBacking(v))
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(c)
	}
	return tensor.New(tensor.WithShape(shape.Clone()...), tensor.WithBacking(v))
}

func ScalarConst(dt tensor.Dtype, c float64) *gorgonia.Node {
	if dt == tensor.Float64 {
		return gorgonia.NewConstant(c)
	}
	return gorgonia.NewConstant(float32(c))
}

func Fill(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// ConstMatrixNode adds a non-trainable rows×cols matrix with the given
// row-major values.
func ConstMatrixNode(g *gorgonia.ExprGraph, dt tensor.Dtype, name string, rows, cols int, v []float64) *gorgonia.Node {
	var t *tensor.Dense
	if dt == tensor.Float64 {
		t = tensor.New(tensor.WithShape(rows, cols), tensor.WithBacking(append([]float64(nil), v...)))
	} else {
		f := make([]float32, len(v))
		for i, x := range v {
			f[i] = float32(x)
		}
		t = tensor.New(tensor.WithShape(rows, cols), tensor.WithBacking(f))
	}
	return gorgonia.NewMatrix(g, dt, gorgonia.WithShape(rows, cols), gorgonia.WithName(fmt.Sprintf("%s-%dx%d", name, rows, cols)), gorgonia.WithValue(t))
}

type float interface{ ~float32 | ~float64 }

// outTensor returns prealloc if it is a dense tensor of the wanted type and shape
// that shares no memory with the inputs, else a new tensor.
func outTensor(prealloc gorgonia.Value, dt tensor.Dtype, shape tensor.Shape, inputs ...gorgonia.Value) *tensor.Dense {
	if d, ok := prealloc.(*tensor.Dense); ok && d.Dtype() == dt && d.Shape().Eq(shape) && d.IsNativelyAccessible() && !d.IsView() {
		p := d.Uintptr()
		size := uintptr(d.MemSize())
		overlap := false
		for _, in := range inputs {
			if t, ok := in.(tensor.Memory); ok && t.Uintptr() != 0 {
				q, qs := t.Uintptr(), uintptr(t.MemSize())
				if p < q+qs && q < p+size {
					overlap = true
				}
			}
		}
		if !overlap {
			return d
		}
	}
	return tensor.New(tensor.Of(dt), tensor.WithShape(shape.Clone()...))
}

// Grad is gorgonia.Grad for a graph that may already hold the gradients of
// another loss. gorgonia v0.9.18's Backpropagate takes a node that has a
// derivative from an earlier Grad as "previously differentiated" and hands
// that derivative back instead of differentiating the new loss through
// it; a node the two losses share — the repeat that broadcasts a dense
// layer's bias, hash-consed across forward passes of the same size — then
// carried the first loss's gradient into the second's (LLP-VAT's KL
// gradient of every dense bias was its adversarial pass's:
// TestLLPVATGradientIsKLPlusWeightedVAT). Grad first forgets every node's
// derivative pointer (Node.deriv, reached by reflection as tape.go reaches
// the tape's registers; the gradient nodes keep their derivOf links, which
// the compiler's liveness analysis reads), so each loss is differentiated
// on its own.
func Grad(cost *gorgonia.Node, wrt ...*gorgonia.Node) (gorgonia.Nodes, error) {
	if err := forgetDerivatives(cost.Graph()); err != nil {
		return nil, err
	}
	return gorgonia.Grad(cost, wrt...)
}

// forgetDerivatives sets every node's deriv pointer of g to nil.
func forgetDerivatives(g *gorgonia.ExprGraph) error {
	for _, n := range g.AllNodes() {
		f := reflect.ValueOf(n).Elem().FieldByName("deriv")
		if !f.IsValid() || f.Type() != reflect.TypeOf(n) {
			return errors.New("nn.Grad: gorgonia's Node has no deriv field of type *Node (a gorgonia other than v0.9.18?)")
		}
		reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.Zero(f.Type()))
	}
	return nil
}
