package loss

import (
	"fmt"
	"hash"
	"math"

	"github.com/chewxy/hm"
	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// FCFloor is the floor ε added inside the logarithm of the forward-correction
// loss: the loss of instance i is −w_i·log((T̂p)_ỹ + ε). It only matters when
// (T̂p)_ỹ underflows (a row of T̂ that is zero where p has its mass); with
// (T̂p)_ỹ ≥ 1e-6 its effect on the loss is below float32 resolution.
const FCFloor = 1e-12

// FCLoss adds the weighted forward-correction (FC) loss of Algorithms
// `algo:LLPFC-uniform` and `algo:LLPFC-approx` (line "Train with …") to the
// graph of logits:
//
//	loss = −Σ_i w_i · log( Σ_j R_ij · softmax(z_i)_j + FCFloor ),
//
// where z (batch×C) are the logits, R (batch×C) holds in row i the row ỹ_i
// of T̂_{g(i)} for instance i with noisy label ỹ_i in group g(i) (only that
// row of (T̂ f(x))_ỹ = Σ_j T̂(ỹ, j) f_j(x) enters ℓ_T̂(f(x), ỹ) = −log
// (T̂ f(x))_ỹ, Section `llnfc`), and w (batch) holds the per-instance weight
// (w_g/n_g for LLPFC-uniform, w_g·α̂_g(c)/|b| for LLPFC-approx; zero for
// padding rows). The caller chooses any normalisation (for example the
// weights of a minibatch divided by the batch size).
//
// The op is fused: softmax, the product with R and the logarithm are
// computed together in a numerically stable form (z shifted by its row
// maximum, so exp never overflows) and the gradient with respect to z is the
// closed form ∂loss/∂z_ij = −w_i · p_ij (R_ij − q_i)/(q_i + ε) with
// q_i = Σ_k R_ik p_ik. R and w are treated as constants.
func FCLoss(z, r, w *gorgonia.Node) (*gorgonia.Node, error) {
	if err := checkFCInputs(z, r, w); err != nil {
		return nil, err
	}
	return gorgonia.ApplyOp(fcLossOp{}, z, r, w)
}

// checkFCInputs checks the shapes and element types of FCLoss's inputs.
func checkFCInputs(z, r, w *gorgonia.Node) error {
	zs, rs, ws := z.Shape(), r.Shape(), w.Shape()
	if zs.Dims() != 2 || !rs.Eq(zs) {
		return fmt.Errorf("FCLoss: logits shape %v and rows-of-T̂ shape %v, want equal batch×C", zs, rs)
	}
	if ws.TotalSize() != zs[0] {
		return fmt.Errorf("FCLoss: weights shape %v, want a vector of length %d (the batch)", ws, zs[0])
	}
	if z.Dtype() != r.Dtype() || z.Dtype() != w.Dtype() {
		return fmt.Errorf("FCLoss: element types %v, %v, %v differ", z.Dtype(), r.Dtype(), w.Dtype())
	}
	return nil
}

// AuthorsClamp is the lower clamp of the authors' FC loss: loss_f clamps the
// corrected probabilities to [1e-8, 1−1e-8] before the logarithm
// (llpfc.py@1d0cbc5:12-17). In float32, 1−1e-8 rounds to 1, so only the lower
// clamp acts.
const AuthorsClamp = 1e-8

// FCLossClamped is FCLoss as the authors' loss_f computes it (Compat
// original): −Σ_i w_i·log(max(q_i, AuthorsClamp)) with q_i = Σ_j R_ij
// softmax(z_i)_j, and a zero gradient for the rows with q_i < AuthorsClamp
// (torch.clamp passes no gradient outside its range). FCLoss instead adds
// FCFloor = 1e-12 inside the logarithm and keeps a gradient everywhere.
func FCLossClamped(z, r, w *gorgonia.Node) (*gorgonia.Node, error) {
	if err := checkFCInputs(z, r, w); err != nil {
		return nil, err
	}
	return gorgonia.ApplyOp(fcLossOp{clamp: true}, z, r, w)
}

// fcLossOp computes the FC loss; fcLossGradOp its gradient with respect to z.
// clamp selects the authors' clamped logarithm (FCLossClamped).
type fcLossOp struct{ clamp bool }

func (fcLossOp) Arity() int { return 3 }
func (fcLossOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	return hm.NewFnType(gorgonia.TensorType{Dims: 2, Of: a}, gorgonia.TensorType{Dims: 2, Of: a}, gorgonia.TensorType{Dims: 1, Of: a}, a)
}
func (fcLossOp) InferShape(...gorgonia.DimSizer) (tensor.Shape, error) {
	return tensor.ScalarShape(), nil
}
func (fcLossOp) ReturnsPtr() bool        { return false }
func (fcLossOp) CallsExtern() bool       { return false }
func (fcLossOp) OverwritesInput() int    { return -1 }
func (o fcLossOp) WriteHash(h hash.Hash) { fmt.Fprint(h, "llpfc.FCLoss", o.clamp) }
func (o fcLossOp) Hashcode() uint32      { return nn.OpHash(o) }
func (fcLossOp) String() string          { return "FCLoss" }
func (fcLossOp) DiffWRT(int) []bool      { return []bool{true, false, false} }

func (o fcLossOp) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	dz, err := gorgonia.ApplyOp(&fcLossGradOp{clamp: o.clamp}, inputs[0], inputs[1], inputs[2], grad)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{dz, nil, nil}, nil
}

func (o fcLossOp) Do(vs ...gorgonia.Value) (gorgonia.Value, error) {
	if len(vs) != 3 {
		return nil, fmt.Errorf("FCLoss: %d inputs, want 3", len(vs))
	}
	c := vs[0].Shape()[1]
	switch z := vs[0].Data().(type) {
	case []float32:
		return gorgonia.NewF32(float32(fcLossValue(z, vs[1].Data().([]float32), vs[2].Data().([]float32), c, o.clamp))), nil
	case []float64:
		return gorgonia.NewF64(fcLossValue(z, vs[1].Data().([]float64), vs[2].Data().([]float64), c, o.clamp)), nil
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

// fcLossGradOp computes g·∂loss/∂z from (z, R, w, g) with g the upstream
// scalar gradient. It reuses its output and scratch buffers between runs.
type fcLossGradOp struct {
	clamp bool
	p32   []float32
	p64   []float64
}

func (*fcLossGradOp) Arity() int { return 4 }
func (*fcLossGradOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	t2 := gorgonia.TensorType{Dims: 2, Of: a}
	return hm.NewFnType(t2, t2, gorgonia.TensorType{Dims: 1, Of: a}, a, t2)
}
func (*fcLossGradOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	s, ok := in[0].(tensor.Shape)
	if !ok {
		return nil, fmt.Errorf("FCLossGrad: input shape of type %T", in[0])
	}
	return s.Clone(), nil
}
func (*fcLossGradOp) ReturnsPtr() bool        { return false }
func (*fcLossGradOp) CallsExtern() bool       { return false }
func (*fcLossGradOp) OverwritesInput() int    { return -1 }
func (o *fcLossGradOp) WriteHash(h hash.Hash) { fmt.Fprint(h, "llpfc.FCLossGrad", o.clamp) }
func (o *fcLossGradOp) Hashcode() uint32      { return nn.OpHash(o) }
func (*fcLossGradOp) String() string          { return "FCLossGrad" }

func (o *fcLossGradOp) Do(vs ...gorgonia.Value) (gorgonia.Value, error) {
	if len(vs) != 4 {
		return nil, fmt.Errorf("FCLossGrad: %d inputs, want 4", len(vs))
	}
	out := tensor.New(tensor.Of(vs[0].Dtype()), tensor.WithShape(vs[0].Shape().Clone()...))
	return o.UsePreallocDo(out, vs...)
}

// UsePreallocDo writes the gradient into prealloc (the machine's buffer for
// this node), so a training step allocates nothing here.
func (o *fcLossGradOp) UsePreallocDo(prealloc gorgonia.Value, vs ...gorgonia.Value) (gorgonia.Value, error) {
	gs, err := nn.ScalarOf(vs[3])
	if err != nil {
		return nil, err
	}
	c := vs[0].Shape()[1]
	switch z := vs[0].Data().(type) {
	case []float32:
		if len(o.p32) != c {
			o.p32 = make([]float32, c)
		}
		fcLossGrad(z, vs[1].Data().([]float32), vs[2].Data().([]float32), prealloc.Data().([]float32), o.p32, gs, o.clamp)
	case []float64:
		if len(o.p64) != c {
			o.p64 = make([]float64, c)
		}
		fcLossGrad(z, vs[1].Data().([]float64), vs[2].Data().([]float64), prealloc.Data().([]float64), o.p64, gs, o.clamp)
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
