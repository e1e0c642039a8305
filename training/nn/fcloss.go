package nn

import (
	"fmt"
	"hash"
	"math"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// FCFloor is the floor ε added inside the logarithm of the forward-correction
// loss: the loss of instance i is −w_i·log((T̂p)_ỹ + ε). It only matters when
// (T̂p)_ỹ underflows (a row of T̂ that is zero where p has its mass); with
// (T̂p)_ỹ ≥ 1e-6 its effect on the loss is below float32 resolution.
const FCFloor = 1e-12

// AuthorsClamp is the lower clamp of the authors' FC loss: loss_f clamps the
// corrected probabilities to [1e-8, 1−1e-8] before the logarithm
// (llpfc.py@1d0cbc5:12-17). In float32, 1−1e-8 rounds to 1, so only the lower
// clamp acts.
const AuthorsClamp = 1e-8

// FCLossOp computes the FC loss; FCLossGradOp its gradient with respect to z.
// clamp selects the authors' clamped logarithm (FCLossClamped).
type FCLossOp struct{ Clamp bool }

func (FCLossOp) Arity() int { return 3 }

func (FCLossOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(gorgonia.TensorType{Dims: 2, Of: a}, gorgonia.TensorType{Dims: 2, Of: a}, gorgonia.TensorType{Dims: 1, Of: a}, a)
}

func (FCLossOp) InferShape(...gorgonia.DimSizer) (tensor.Shape, error) {
	return tensor.ScalarShape(), nil
}

func (FCLossOp) ReturnsPtr() bool { return false }

func (FCLossOp) CallsExtern() bool { return false }

func (FCLossOp) OverwritesInput() int { return -1 }

func (o FCLossOp) WriteHash(h hash.Hash) { fmt.Fprint(h, "llpfc.FCLoss", o.Clamp) }

func (o FCLossOp) Hashcode() uint32 { return OpHash(o) }

func (FCLossOp) String() string { return "FCLoss" }

func (FCLossOp) DiffWRT(int) []bool { return []bool{true, false, false} }

// Kind names the op for the compute back ends (device.OpKind).
func (o FCLossOp) Kind() string {
	if o.Clamp {
		return "llpfc.FCLossClamped"
	}
	return "llpfc.FCLoss"
}

func (o FCLossOp) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	dz, err := gorgonia.ApplyOp(&FCLossGradOp{Clamp: o.Clamp}, inputs[0], inputs[1], inputs[2], grad)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{dz, nil, nil}, nil
}

func (o FCLossOp) Do(vs ...gorgonia.Value) (gorgonia.Value, error) {
	if len(vs) != 3 {
		return nil, fmt.Errorf("FCLoss: %d inputs, want 3", len(vs))
	}
	c := vs[0].Shape()[1]
	switch z := vs[0].Data().(type) {
	case []float32:
		return gorgonia.NewF32(float32(fcLossValue(z, vs[1].Data().([]float32), vs[2].Data().([]float32), c, o.Clamp))), nil
	case []float64:
		return gorgonia.NewF64(fcLossValue(z, vs[1].Data().([]float64), vs[2].Data().([]float64), c, o.Clamp)), nil
	default:
		return nil, fmt.Errorf("FCLoss: element type %T not supported", vs[0].Data())
	}
}

// fcLossValue returns −Σ_i w_i log(Σ_j R_ij softmax(z_i)_j + FCFloor) for
// row-major z and R with c columns, accumulated in float64; with clamp,
// −Σ_i w_i log(max(q_i, AuthorsClamp)).
func fcLossValue[T float32 | float64](z, r, w []T, c int, clamp bool) float64 {
	var loss float64
	for i := range w {
		if w[i] == 0 {
			continue
		}
		_, q := fcRow(z[i*c:(i+1)*c], r[i*c:(i+1)*c], nil)
		if clamp {
			loss -= float64(w[i]) * math.Log(max(q, AuthorsClamp))
		} else {
			loss -= float64(w[i]) * math.Log(q+FCFloor)
		}
	}
	return loss
}

// fcRow returns the softmax of z into p (if non-nil) and q = Σ_j r_j p_j,
// accumulating in float64.
func fcRow[T float32 | float64](z, r, p []T) (sum, q float64) {
	m := z[0]
	for _, v := range z[1:] {
		if v > m {
			m = v
		}
	}
	var num float64
	for j, v := range z {
		e := math.Exp(float64(v - m))
		sum += e
		num += float64(r[j]) * e
		if p != nil {
			p[j] = T(e)
		}
	}
	if p != nil {
		inv := 1 / sum
		for j := range p {
			p[j] = T(float64(p[j]) * inv)
		}
	}
	return sum, num / sum
}

// FCLossGradOp computes g·∂loss/∂z from (z, R, w, g) with g the upstream
// scalar gradient. It reuses its output and scratch buffers between runs.
type FCLossGradOp struct {
	Clamp bool
	p32   []float32
	p64   []float64
}

func (*FCLossGradOp) Arity() int { return 4 }

func (*FCLossGradOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	t2 := gorgonia.TensorType{Dims: 2, Of: a}
	return hm.NewFnType(t2, t2, gorgonia.TensorType{Dims: 1, Of: a}, a, t2)
}

func (*FCLossGradOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	s, ok := in[0].(tensor.Shape)
	if !ok {
		return nil, fmt.Errorf("FCLossGrad: input shape of type %T", in[0])
	}
	return s.Clone(), nil
}

func (*FCLossGradOp) ReturnsPtr() bool { return false }

func (*FCLossGradOp) CallsExtern() bool { return false }

func (*FCLossGradOp) OverwritesInput() int { return -1 }

func (o *FCLossGradOp) WriteHash(h hash.Hash) { fmt.Fprint(h, "llpfc.FCLossGrad", o.Clamp) }

func (o *FCLossGradOp) Hashcode() uint32 { return OpHash(o) }

func (*FCLossGradOp) String() string { return "FCLossGrad" }

// Kind names the op for the compute back ends (device.OpKind).
func (o *FCLossGradOp) Kind() string { return FCLossOp{Clamp: o.Clamp}.Kind() + "Grad" }

func (o *FCLossGradOp) Do(vs ...gorgonia.Value) (gorgonia.Value, error) {
	if len(vs) != 4 {
		return nil, fmt.Errorf("FCLossGrad: %d inputs, want 4", len(vs))
	}
	out := tensor.New(tensor.Of(vs[0].Dtype()), tensor.WithShape(vs[0].Shape().Clone()...))
	return o.UsePreallocDo(out, vs...)
}

// UsePreallocDo writes the gradient into prealloc (the machine's buffer for
// this node), so a training step allocates nothing here.
func (o *FCLossGradOp) UsePreallocDo(prealloc gorgonia.Value, vs ...gorgonia.Value) (gorgonia.Value, error) {
	gs, err := ScalarOf(vs[3])
	if err != nil {
		return nil, err
	}
	c := vs[0].Shape()[1]
	switch z := vs[0].Data().(type) {
	case []float32:
		if len(o.p32) != c {
			o.p32 = make([]float32, c)
		}
		fcLossGrad(z, vs[1].Data().([]float32), vs[2].Data().([]float32), prealloc.Data().([]float32), o.p32, gs, o.Clamp)
	case []float64:
		if len(o.p64) != c {
			o.p64 = make([]float64, c)
		}
		fcLossGrad(z, vs[1].Data().([]float64), vs[2].Data().([]float64), prealloc.Data().([]float64), o.p64, gs, o.Clamp)
	default:
		return nil, fmt.Errorf("FCLossGrad: element type %T not supported", vs[0].Data())
	}
	return prealloc, nil
}

// fcLossGrad writes gs·∂loss/∂z into dz: for row i,
// −gs·w_i/(q_i+FCFloor)·p_ij·(R_ij − q_i) with p = softmax(z_i), q_i = ⟨R_i, p⟩;
// p is scratch of length c. With clamp, rows with q_i < AuthorsClamp get 0
// and the others −gs·w_i/q_i·p_ij·(R_ij − q_i).
func fcLossGrad[T float32 | float64](z, r, w, dz, p []T, gs float64, clamp bool) {
	c := len(p)
	for i := range w {
		row := dz[i*c : (i+1)*c]
		if w[i] == 0 {
			clear(row)
			continue
		}
		rr := r[i*c : (i+1)*c]
		_, q := fcRow(z[i*c:(i+1)*c], rr, p)
		k := -gs * float64(w[i]) / (q + FCFloor)
		if clamp {
			if q < AuthorsClamp {
				clear(row)
				continue
			}
			k = -gs * float64(w[i]) / q
		}
		for j := range row {
			row[j] = T(k * float64(p[j]) * (float64(rr[j]) - q))
		}
	}
}
