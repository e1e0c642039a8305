package training

import (
	"fmt"
	"hash"
	"math"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// bnOp is training-mode batch normalization as one op (issue 12, memory):
// y = γ·(x − μ)/√(σ² + ε) + β with μ and σ² the per-channel mean and biased
// variance of the minibatch, for x of shape N×C or N×C×H×W. The composite
// form it replaces (a dozen gorgonia element-wise nodes: centring, square,
// two averaging products, inverse square root, two broadcasts) allocated a
// fresh tensor per node per run; this op writes into the machine's
// preallocated output, and its gradient ops recompute μ and σ² from x (one
// pass) instead of keeping intermediate tensors alive. With a record it
// stores μ and σ² for UpdateRunningStats (the Read nodes of the composite
// form). Inputs: x, γ (when scale), β.
type bnOp struct {
	c, dims int
	eps     float64
	scale   bool
	rec     *bnRecord // nil when the batch is not recorded
	mean    *tensor.Dense
	vari    *tensor.Dense
	out     outCache
}

func (o *bnOp) paramShape() tensor.Shape {
	if o.dims == 4 {
		return tensor.Shape{1, o.c, 1, 1}
	}
	return tensor.Shape{1, o.c}
}

func (o *bnOp) Arity() int {
	if o.scale {
		return 3
	}
	return 2
}
func (o *bnOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	t := gorgonia.TensorType{Dims: o.dims, Of: a}
	if o.scale {
		return hm.NewFnType(t, t, t, t)
	}
	return hm.NewFnType(t, t, t)
}
func (o *bnOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	s, ok := in[0].(tensor.Shape)
	if !ok || s.Dims() != o.dims || s[1] != o.c {
		return nil, fmt.Errorf("batch norm: input shape %v, want %d dimensions with %d channels", in[0], o.dims, o.c)
	}
	return s.Clone(), nil
}
func (o *bnOp) ReturnsPtr() bool     { return false }
func (o *bnOp) CallsExtern() bool    { return false }
func (o *bnOp) OverwritesInput() int { return -1 }
func (o *bnOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "llpfc.BatchNorm(c=%d,dims=%d,eps=%g,scale=%t,rec=%p)", o.c, o.dims, o.eps, o.scale, o.rec)
}
func (o *bnOp) Hashcode() uint32 { return opHash(o) }
func (o *bnOp) String() string   { return fmt.Sprintf("BatchNorm(%d)", o.c) }
func (o *bnOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	for i := range d {
		d[i] = true
	}
	return d
}

func (o *bnOp) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	x := inputs[0]
	g := &bnGradOp{fwd: o, wrt: 0, xShape: x.Shape().Clone()}
	in := gorgonia.Nodes{x}
	if o.scale {
		in = append(in, inputs[1])
	}
	dx, err := gorgonia.ApplyOp(g, append(in, grad)...)
	if err != nil {
		return nil, err
	}
	db, err := gorgonia.ApplyOp(&bnGradOp{fwd: o, wrt: 2, xShape: x.Shape().Clone()}, x, grad)
	if err != nil {
		return nil, err
	}
	if !o.scale {
		return gorgonia.Nodes{dx, db}, nil
	}
	dg, err := gorgonia.ApplyOp(&bnGradOp{fwd: o, wrt: 1, xShape: x.Shape().Clone()}, x, grad)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{dx, dg, db}, nil
}

func (o *bnOp) Do(vs ...gorgonia.Value) (gorgonia.Value, error) { return o.UsePreallocDo(nil, vs...) }

func (o *bnOp) UsePreallocDo(prealloc gorgonia.Value, vs ...gorgonia.Value) (gorgonia.Value, error) {
	if len(vs) != o.Arity() {
		return nil, fmt.Errorf("%v: %d inputs, want %d", o, len(vs), o.Arity())
	}
	xs := vs[0].Shape()
	out := o.out.get(prealloc, vs[0].Dtype(), xs, vs...)
	n, hw := xs[0], xs.TotalSize()/(xs[0]*o.c)
	if o.mean == nil {
		o.mean = tensor.New(tensor.Of(vs[0].Dtype()), tensor.WithShape(o.paramShape()...))
		o.vari = tensor.New(tensor.Of(vs[0].Dtype()), tensor.WithShape(o.paramShape()...))
	}
	switch x := vs[0].Data().(type) {
	case []float32:
		var gamma []float32
		if o.scale {
			gamma = vs[1].Data().([]float32)
		}
		bnForward(x, gamma, vs[len(vs)-1].Data().([]float32), out.Data().([]float32), o.mean.Data().([]float32), o.vari.Data().([]float32), n, o.c, hw, o.eps)
	case []float64:
		var gamma []float64
		if o.scale {
			gamma = vs[1].Data().([]float64)
		}
		bnForward(x, gamma, vs[len(vs)-1].Data().([]float64), out.Data().([]float64), o.mean.Data().([]float64), o.vari.Data().([]float64), n, o.c, hw, o.eps)
	default:
		return nil, fmt.Errorf("%v: element type %T not supported", o, vs[0].Data())
	}
	if o.rec != nil {
		o.rec.mean, o.rec.variance = o.mean, o.vari
	}
	return out, nil
}

// bnStats writes the per-channel mean and biased variance of x (n×c×hw,
// row-major), accumulated in float64 (two passes: the centred second moment).
func bnStats[F float](x []F, n, c, hw int, mean, vari []float64) {
	m := float64(n * hw)
	for ch := 0; ch < c; ch++ {
		s := 0.0
		for i := 0; i < n; i++ {
			for _, v := range x[(i*c+ch)*hw : (i*c+ch+1)*hw] {
				s += float64(v)
			}
		}
		mu := s / m
		q := 0.0
		for i := 0; i < n; i++ {
			for _, v := range x[(i*c+ch)*hw : (i*c+ch+1)*hw] {
				d := float64(v) - mu
				q += d * d
			}
		}
		mean[ch], vari[ch] = mu, q/m
	}
}

func bnForward[F float](x, gamma, beta, y, meanOut, varOut []F, n, c, hw int, eps float64) {
	mean, vari := make([]float64, c), make([]float64, c)
	bnStats(x, n, c, hw, mean, vari)
	for ch := 0; ch < c; ch++ {
		inv := 1 / math.Sqrt(vari[ch]+eps)
		sc := inv
		if gamma != nil {
			sc *= float64(gamma[ch])
		}
		sh := float64(beta[ch]) - mean[ch]*sc
		for i := 0; i < n; i++ {
			off := (i*c + ch) * hw
			for k, v := range x[off : off+hw] {
				y[off+k] = F(float64(v)*sc + sh)
			}
		}
		meanOut[ch], varOut[ch] = F(mean[ch]), F(vari[ch])
	}
}

// bnGradOp computes one gradient of bnOp: wrt 0, ∂/∂x from (x, [γ,] dy):
// γ/√(σ²+ε)·(dy − mean(dy) − x̂·mean(dy·x̂)) per channel; wrt 1, ∂/∂γ =
// Σ dy·x̂ from (x, dy); wrt 2, ∂/∂β = Σ dy from (x, dy) (x only for its
// shape's sake of uniformity).
type bnGradOp struct {
	fwd    *bnOp
	wrt    int
	xShape tensor.Shape
	out    outCache
}

func (o *bnGradOp) Arity() int {
	if o.wrt == 0 && o.fwd.scale {
		return 3
	}
	return 2
}
func (o *bnGradOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	t := gorgonia.TensorType{Dims: o.fwd.dims, Of: a}
	if o.Arity() == 3 {
		return hm.NewFnType(t, t, t, t)
	}
	return hm.NewFnType(t, t, t)
}
func (o *bnGradOp) outShape() tensor.Shape {
	if o.wrt == 0 {
		return o.xShape.Clone()
	}
	return o.fwd.paramShape()
}
func (o *bnGradOp) InferShape(...gorgonia.DimSizer) (tensor.Shape, error) { return o.outShape(), nil }
func (o *bnGradOp) ReturnsPtr() bool                                      { return false }
func (o *bnGradOp) CallsExtern() bool                                     { return false }
func (o *bnGradOp) OverwritesInput() int                                  { return -1 }
func (o *bnGradOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "llpfc.BatchNormGrad(wrt=%d,x=%v,fwd=%p)", o.wrt, o.xShape, o.fwd)
}
func (o *bnGradOp) Hashcode() uint32 { return opHash(o) }
func (o *bnGradOp) String() string   { return fmt.Sprintf("BatchNormGrad%d(%d)", o.wrt, o.fwd.c) }

func (o *bnGradOp) Do(vs ...gorgonia.Value) (gorgonia.Value, error) {
	return o.UsePreallocDo(nil, vs...)
}

func (o *bnGradOp) UsePreallocDo(prealloc gorgonia.Value, vs ...gorgonia.Value) (gorgonia.Value, error) {
	if len(vs) != o.Arity() {
		return nil, fmt.Errorf("%v: %d inputs, want %d", o, len(vs), o.Arity())
	}
	out := o.out.get(prealloc, vs[0].Dtype(), o.outShape(), vs...)
	xs := o.xShape
	n, c := xs[0], o.fwd.c
	hw := xs.TotalSize() / (n * c)
	switch x := vs[0].Data().(type) {
	case []float32:
		var gamma []float32
		if o.Arity() == 3 {
			gamma = vs[1].Data().([]float32)
		}
		bnBackward(o.wrt, x, gamma, vs[len(vs)-1].Data().([]float32), out.Data().([]float32), n, c, hw, o.fwd.eps)
	case []float64:
		var gamma []float64
		if o.Arity() == 3 {
			gamma = vs[1].Data().([]float64)
		}
		bnBackward(o.wrt, x, gamma, vs[len(vs)-1].Data().([]float64), out.Data().([]float64), n, c, hw, o.fwd.eps)
	default:
		return nil, fmt.Errorf("%v: element type %T not supported", o, vs[0].Data())
	}
	return out, nil
}

func bnBackward[F float](wrt int, x, gamma, dy, out []F, n, c, hw int, eps float64) {
	mean, vari := make([]float64, c), make([]float64, c)
	bnStats(x, n, c, hw, mean, vari)
	m := float64(n * hw)
	for ch := 0; ch < c; ch++ {
		inv := 1 / math.Sqrt(vari[ch]+eps)
		sdy, sdyx := 0.0, 0.0 // Σ dy, Σ dy·x̂
		for i := 0; i < n; i++ {
			off := (i*c + ch) * hw
			for k, d := range dy[off : off+hw] {
				sdy += float64(d)
				sdyx += float64(d) * (float64(x[off+k]) - mean[ch]) * inv
			}
		}
		switch wrt {
		case 1:
			out[ch] = F(sdyx)
			continue
		case 2:
			out[ch] = F(sdy)
			continue
		}
		g := inv
		if gamma != nil {
			g *= float64(gamma[ch])
		}
		a, b := sdy/m, sdyx/m
		for i := 0; i < n; i++ {
			off := (i*c + ch) * hw
			for k, d := range dy[off : off+hw] {
				xh := (float64(x[off+k]) - mean[ch]) * inv
				out[off+k] = F(g * (float64(d) - a - xh*b))
			}
		}
	}
}
