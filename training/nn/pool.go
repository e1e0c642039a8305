package nn

import (
	"errors"
	"fmt"
	"hash"
	"sync"
	"sync/atomic"

	"github.com/chewxy/hm"
	"github.com/llpfc/llpfc/internal/par"
	"github.com/llpfc/llpfc/internal/vec"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// FusedPool switches maxPool2 to the fused op poolOp; tests turn it off to
// compare with gorgonia's MaxPool2D (and Rectify) it replaces.
var FusedPool = true

// poolOpSeq numbers poolOps so that two layers never hash alike (each op
// keeps the positions of its last forward run).
var poolOpSeq atomic.Int64

// MaxPool2 is the 2×2, stride-2 max pool (no padding) of the cnn and VGG16
// (App. `suppsec: exp`), of ReLU(x) when relu is set: N×C×H×W →
// N×C×⌊H/2⌋×⌊W/2⌋. ReLU and max commute (ReLU is monotone), so the fused op
// takes the window's maximum and then clips it at 0: the full-resolution
// ReLU output and its gradient are never formed. It is a speed lever:
// gorgonia's MaxPool2D runs on one core and its generic loops took
// 15 % of a cnn step's CPU time, the ReLU's Gte and Mul another 8 %. The op
// works plane by plane (image × channel) on all cores; each output depends
// on one plane, so results do not depend on the core count. The gradient
// goes to the window's first maximum in row-major order (as MaxPool2D and
// PyTorch), and nowhere when the ReLU cut the output to 0
// (TestMaxPool2MatchesGorgonia). In float32 the forward runs eight windows
// an instruction (vec.MaxPool2Row, the same bits): a window at a time it
// was a sixth of a cnn step's CPU time.
func MaxPool2(x *gorgonia.Node, relu bool) (*gorgonia.Node, error) {
	s := x.Shape()
	if s.Dims() != 4 || s[2] < 2 || s[3] < 2 {
		return nil, fmt.Errorf("max pool 2×2: input shape %v, want N×C×H×W with H, W ≥ 2", s)
	}
	if !FusedPool {
		var err error
		if relu {
			if x, err = gorgonia.Rectify(x); err != nil {
				return nil, err
			}
		}
		return gorgonia.MaxPool2D(x, tensor.Shape{2, 2}, []int{0, 0}, []int{2, 2})
	}
	op := &poolOp{n: s[0], c: s[1], h: s[2], w: s[3], relu: relu, id: poolOpSeq.Add(1)}
	return gorgonia.ApplyOp(op, x)
}

// poolOp is the forward op of maxPool2.
type poolOp struct {
	n, c, h, w int
	relu       bool
	id         int64

	mu sync.Mutex
	// arg holds, per output, the index within its input plane of the value
	// it took, or −1 when the ReLU cut it to 0 (no gradient).
	arg []int32
}

func (o *poolOp) outShape() tensor.Shape { return tensor.Shape{o.n, o.c, o.h / 2, o.w / 2} }
func (o *poolOp) Arity() int             { return 1 }
func (o *poolOp) Type() hm.Type {
	t := gorgonia.TensorType{Dims: 4, Of: hm.TypeVariable('a')}
	return hm.NewFnType(t, t)
}
func (o *poolOp) InferShape(...gorgonia.DimSizer) (tensor.Shape, error) { return o.outShape(), nil }
func (o *poolOp) ReturnsPtr() bool                                      { return false }
func (o *poolOp) CallsExtern() bool                                     { return false }
func (o *poolOp) OverwritesInput() int                                  { return -1 }
func (o *poolOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "llpfc.MaxPool2(%d,%d,%d,%d,relu=%t,#%d)", o.n, o.c, o.h, o.w, o.relu, o.id)
}
func (o *poolOp) Hashcode() uint32 { return OpHash(o) }
func (o *poolOp) String() string {
	if o.relu {
		return fmt.Sprintf("MaxPool2ReLU(%d×%d×%d×%d)", o.n, o.c, o.h, o.w)
	}
	return fmt.Sprintf("MaxPool2(%d×%d×%d×%d)", o.n, o.c, o.h, o.w)
}

// Kind names the op for the compute back ends (device.OpKind).
func (o *poolOp) Kind() string {
	if o.relu {
		return "llpfc.MaxPool2ReLU"
	}
	return "llpfc.MaxPool2"
}

func (o *poolOp) DiffWRT(int) []bool { return []bool{true} }
func (o *poolOp) SymDiff(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d, err := gorgonia.ApplyOp(&poolGradOp{fwd: o}, inputs[0], grad)
	return gorgonia.Nodes{d}, err
}

func (o *poolOp) Do(vs ...gorgonia.Value) (gorgonia.Value, error) { return o.UsePreallocDo(nil, vs...) }

func (o *poolOp) UsePreallocDo(prealloc gorgonia.Value, vs ...gorgonia.Value) (gorgonia.Value, error) {
	if len(vs) != 1 || vs[0].Shape().TotalSize() != o.n*o.c*o.h*o.w {
		return nil, fmt.Errorf("%v: inputs %v", o, vs)
	}
	out := outTensor(prealloc, vs[0].Dtype(), o.outShape(), vs...)
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.arg) != out.Shape().TotalSize() {
		o.arg = make([]int32, out.Shape().TotalSize())
	}
	switch x := vs[0].Data().(type) {
	case []float32:
		poolForward(o, x, out.Data().([]float32))
	case []float64:
		poolForward(o, x, out.Data().([]float64))
	default:
		return nil, fmt.Errorf("%v: element type %T not supported", o, vs[0].Data())
	}
	return out, nil
}

func poolForward[F float](o *poolOp, x, y []F) {
	w, ho, wo, hw := o.w, o.h/2, o.w/2, o.h*o.w
	// Each output row by vec.MaxPool2Row: branch-free, and in float32 eight
	// windows an instruction.
	par.Channels(o.n*o.c, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			xs := x[p*hw : (p+1)*hw]
			for oy := 0; oy < ho; oy++ {
				at := (p*ho + oy) * wo
				vec.MaxPool2Row(y[at:at+wo], o.arg[at:at+wo], xs[2*oy*w:2*oy*w+w], xs[(2*oy+1)*w:(2*oy+1)*w+w],
					int32(2*oy*w), int32(w), o.relu)
			}
		}
	})
}

// poolGradOp is ∂L/∂x of poolOp from ∂L/∂y (inputs x, for the shape, and
// ∂L/∂y), with the positions of the forward op's last run.
type poolGradOp struct{ fwd *poolOp }

func (o *poolGradOp) Arity() int { return 2 }
func (o *poolGradOp) Type() hm.Type {
	t := gorgonia.TensorType{Dims: 4, Of: hm.TypeVariable('a')}
	return hm.NewFnType(t, t, t)
}
func (o *poolGradOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	s, ok := in[0].(tensor.Shape)
	if !ok {
		return nil, fmt.Errorf("max pool gradient: input shape %v", in[0])
	}
	return s.Clone(), nil
}
func (o *poolGradOp) ReturnsPtr() bool     { return false }
func (o *poolGradOp) CallsExtern() bool    { return false }
func (o *poolGradOp) OverwritesInput() int { return -1 }
func (o *poolGradOp) WriteHash(h hash.Hash) {
	fmt.Fprint(h, "grad:")
	o.fwd.WriteHash(h)
}
func (o *poolGradOp) Hashcode() uint32 { return OpHash(o) }

// DiffWRT and SymDiff declare the gradient op non-differentiable: a graph
// that is differentiated twice (LLP-VAT's probe ∂/∂d, then the parameters'
// gradient) must not need its second derivative, and gorgonia refuses a
// node without DiffWRT whose input has no other consumer.
func (o *poolGradOp) DiffWRT(n int) []bool { return make([]bool, n) }
func (o *poolGradOp) SymDiff(gorgonia.Nodes, *gorgonia.Node, *gorgonia.Node) (gorgonia.Nodes, error) {
	return nil, errors.New("the max pool's gradient has no gradient")
}
func (o *poolGradOp) String() string { return o.fwd.String() + "Grad" }

// Kind names the op for the compute back ends (device.OpKind).
func (o *poolGradOp) Kind() string { return o.fwd.Kind() + "Grad" }
func (o *poolGradOp) Do(vs ...gorgonia.Value) (gorgonia.Value, error) {
	return o.UsePreallocDo(nil, vs...)
}

func (o *poolGradOp) UsePreallocDo(prealloc gorgonia.Value, vs ...gorgonia.Value) (gorgonia.Value, error) {
	f := o.fwd
	if len(vs) != 2 || vs[0].Shape().TotalSize() != f.n*f.c*f.h*f.w || vs[1].Shape().TotalSize() != f.n*f.c*(f.h/2)*(f.w/2) {
		return nil, fmt.Errorf("%v: inputs %v", o, vs)
	}
	out := outTensor(prealloc, vs[0].Dtype(), vs[0].Shape(), vs...)
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.arg) != vs[1].Shape().TotalSize() {
		return nil, errors.New("max pool gradient: the forward op has not run")
	}
	switch dy := vs[1].Data().(type) {
	case []float32:
		poolBackward(f, dy, out.Data().([]float32))
	case []float64:
		poolBackward(f, dy, out.Data().([]float64))
	default:
		return nil, fmt.Errorf("%v: element type %T not supported", o, vs[1].Data())
	}
	return out, nil
}

func poolBackward[F float](f *poolOp, dy, dx []F) {
	hw, how := f.h*f.w, (f.h/2)*(f.w/2)
	par.Channels(f.n*f.c, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			ds := dx[p*hw : (p+1)*hw]
			clear(ds)
			for i, a := range f.arg[p*how : (p+1)*how] {
				if a >= 0 {
					ds[a] = dy[p*how+i]
				}
			}
		}
	})
}
