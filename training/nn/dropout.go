package nn

import (
	"errors"
	"fmt"
	"hash"
	"math"
	"sync/atomic"

	"github.com/chewxy/hm"
	"github.com/llpfc/llpfc/internal/par"
	"github.com/llpfc/llpfc/internal/philox"
	"github.com/llpfc/llpfc/internal/vec"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Dropout (Srivastava et al. 2014, inverted as torch.nn.Dropout: a unit is
// kept with probability 1−p and scaled by 1/(1−p), so E[mask] = 1; the
// dropout of App. `suppsec: exp`'s Wide ResNet and VGG16 and of LLP-GAN's
// networks) with its masks drawn where the program runs.
//
// Element i of layer l's mask is a function of the step's key k alone:
// word i mod 4 of Philox4x32-10(counter (⌊i/4⌋, l, 0, 0), key k)
// (internal/philox) keeps the unit when it is at least ⌊p·2³²⌋. No mask is
// ever stored or uploaded: a GPU computes each element in the kernel that
// applies it, the backward pass computes the same mask again rather than
// keep the forward's, and the CPU back end computes the same numbers in Go
// — the two back ends drop the same units, so their results stay
// comparable entry by entry. A mask held in an input node instead (drawn
// on the host each step) made WRN-16-4's Table 1 step 8× slower on an
// H200 (bench/gpu/README.md: 155 img/s against 1,234 without dropout).

// DropoutKey is the key of a model's dropout masks: set once per step
// (Set, by the model's Resample) and read by every dropout op of the
// model when it runs. Until the first Set every mask keeps every unit
// with scale 1 (the identity).
type DropoutKey struct{ stepKey }

// stepKey is a key a program's random op reads at each run (dropout's
// masks, augmentation's draws): set once a step by the host, read where
// the program runs; id names it in the op's hash.
type stepKey struct {
	key atomic.Uint64
	set atomic.Bool
	id  int64
}

// store makes key the key of the next runs.
func (k *stepKey) store(key uint64) {
	k.key.Store(key)
	k.set.Store(true)
}

var dropoutKeySeq atomic.Int64

// NewDropoutKey returns a key that is not set.
func NewDropoutKey() *DropoutKey { return &DropoutKey{stepKey{id: dropoutKeySeq.Add(1)}} }

// Set makes key the key of the next runs.
func (k *DropoutKey) Set(key uint64) { k.store(key) }

// Get returns the key and whether it was set.
func (k *DropoutKey) Get() (uint64, bool) { return k.key.Load(), k.set.Load() }

// DropoutMask is what computes a dropout layer's mask at a run: element i
// is kept when Keep(i), and a kept element is multiplied by Scale, a
// dropped one by 0.
type DropoutMask struct {
	Key       philox.Key
	Layer     uint32
	Threshold uint32  // ⌊p·2³²⌋: a unit whose number is below it is dropped
	Scale     float64 // 1/(1−p)
}

// DropoutThreshold returns ⌊p·2³²⌋ for p in [0, 1): the 32-bit numbers
// below it, a share p of them within 2⁻³², drop their unit.
func DropoutThreshold(p float64) uint32 { return uint32(math.Floor(p * (1 << 32))) }

// Word returns the 32-bit number of element i.
func (m DropoutMask) Word(i int) uint32 {
	return philox.Block10(philox.Counter{uint32(i / 4), m.Layer, 0, 0}, m.Key)[i%4]
}

// Keep reports whether element i is kept.
func (m DropoutMask) Keep(i int) bool { return m.Word(i) >= m.Threshold }

// Dropout returns x with dropout of probability p in [0, 1): layer is the
// layer's number among the model's dropout layers (its masks' counter
// word), key the model's key.
func Dropout(x *gorgonia.Node, p float64, key *DropoutKey, layer int) (*gorgonia.Node, error) {
	if !(p >= 0 && p < 1) {
		return nil, fmt.Errorf("dropout probability %v, want in [0, 1)", p)
	}
	if layer < 0 || layer >= CropFlipLayer {
		return nil, fmt.Errorf("dropout layer %d, want in [0, 2³²−1) (2³²−1 is augmentation's, CropFlipLayer)", layer)
	}
	if n := x.Shape().TotalSize(); n > math.MaxInt32 {
		return nil, fmt.Errorf("dropout of %d values, want at most 2³¹−1 (the device kernels index with 32 bits)", n)
	}
	op := &dropoutOp{p: p, layer: uint32(layer), key: key, shape: x.Shape().Clone()}
	return gorgonia.ApplyOp(op, x)
}

// dropoutOp is the forward op: y = x ⊙ mask.
type dropoutOp struct {
	p     float64
	layer uint32
	key   *DropoutKey
	shape tensor.Shape
}

// DropoutMask returns the mask of the op's next run (the key as it is
// now); the device back ends read it when they enqueue the op.
func (o *dropoutOp) DropoutMask() DropoutMask {
	k, set := o.key.Get()
	if !set {
		return DropoutMask{Layer: o.layer, Threshold: 0, Scale: 1}
	}
	return DropoutMask{Key: philox.KeyOf(k), Layer: o.layer, Threshold: DropoutThreshold(o.p), Scale: 1 / (1 - o.p)}
}

func (o *dropoutOp) Arity() int { return 1 }
func (o *dropoutOp) Type() hm.Type {
	t := gorgonia.TensorType{Dims: o.shape.Dims(), Of: hm.TypeVariable('a')}
	return hm.NewFnType(t, t)
}
func (o *dropoutOp) InferShape(...gorgonia.DimSizer) (tensor.Shape, error) {
	return o.shape.Clone(), nil
}
func (o *dropoutOp) ReturnsPtr() bool     { return false }
func (o *dropoutOp) CallsExtern() bool    { return false }
func (o *dropoutOp) OverwritesInput() int { return -1 }
func (o *dropoutOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "llpfc.Dropout(%v,p=%v,layer=%d,key#%d)", o.shape, o.p, o.layer, o.key.id)
}
func (o *dropoutOp) Hashcode() uint32 { return OpHash(o) }
func (o *dropoutOp) String() string {
	return fmt.Sprintf("Dropout(p=%v, layer %d)%v", o.p, o.layer, o.shape)
}

// Kind names the op for the compute back ends (device.OpKind).
func (o *dropoutOp) Kind() string { return "llpfc.Dropout" }

func (o *dropoutOp) DiffWRT(int) []bool { return []bool{true} }

// SymDiff: ∂L/∂x = ∂L/∂y ⊙ mask, the mask computed again.
func (o *dropoutOp) SymDiff(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d, err := gorgonia.ApplyOp(&dropoutGradOp{fwd: o}, grad)
	return gorgonia.Nodes{d}, err
}

func (o *dropoutOp) Do(vs ...gorgonia.Value) (gorgonia.Value, error) {
	return o.UsePreallocDo(nil, vs...)
}

func (o *dropoutOp) UsePreallocDo(prealloc gorgonia.Value, vs ...gorgonia.Value) (gorgonia.Value, error) {
	return applyDropout(o, o.DropoutMask(), prealloc, vs)
}

// dropoutGradOp is ∂L/∂x of a dropoutOp from ∂L/∂y: the same mask. It is
// linear, so it is its own derivative (LLP-VAT differentiates a graph
// twice).
type dropoutGradOp struct{ fwd *dropoutOp }

// DropoutMask returns the forward op's mask.
func (o *dropoutGradOp) DropoutMask() DropoutMask { return o.fwd.DropoutMask() }

func (o *dropoutGradOp) Arity() int    { return 1 }
func (o *dropoutGradOp) Type() hm.Type { return o.fwd.Type() }
func (o *dropoutGradOp) InferShape(...gorgonia.DimSizer) (tensor.Shape, error) {
	return o.fwd.shape.Clone(), nil
}
func (o *dropoutGradOp) ReturnsPtr() bool     { return false }
func (o *dropoutGradOp) CallsExtern() bool    { return false }
func (o *dropoutGradOp) OverwritesInput() int { return -1 }
func (o *dropoutGradOp) WriteHash(h hash.Hash) {
	fmt.Fprint(h, "grad:")
	o.fwd.WriteHash(h)
}
func (o *dropoutGradOp) Hashcode() uint32 { return OpHash(o) }
func (o *dropoutGradOp) String() string   { return o.fwd.String() + "Grad" }

// Kind names the op for the compute back ends (device.OpKind).
func (o *dropoutGradOp) Kind() string { return "llpfc.DropoutGrad" }

func (o *dropoutGradOp) DiffWRT(int) []bool { return []bool{true} }
func (o *dropoutGradOp) SymDiff(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d, err := gorgonia.ApplyOp(&dropoutGradOp{fwd: o.fwd}, grad)
	return gorgonia.Nodes{d}, err
}
func (o *dropoutGradOp) Do(vs ...gorgonia.Value) (gorgonia.Value, error) {
	return o.UsePreallocDo(nil, vs...)
}
func (o *dropoutGradOp) UsePreallocDo(prealloc gorgonia.Value, vs ...gorgonia.Value) (gorgonia.Value, error) {
	return applyDropout(o, o.DropoutMask(), prealloc, vs)
}

// applyDropout multiplies the one input by the mask m.
func applyDropout(op fmt.Stringer, m DropoutMask, prealloc gorgonia.Value, vs []gorgonia.Value) (gorgonia.Value, error) {
	if len(vs) != 1 {
		return nil, fmt.Errorf("%v: %d inputs, want 1", op, len(vs))
	}
	out := outTensor(prealloc, vs[0].Dtype(), vs[0].Shape(), vs...)
	switch x := vs[0].Data().(type) {
	case []float32:
		DropoutApply(m, x, out.Data().([]float32))
	case []float64:
		DropoutApply(m, x, out.Data().([]float64))
	default:
		return nil, errors.New(op.String() + ": element type not supported")
	}
	return out, nil
}

// DropoutApply sets y = x ⊙ mask with m's mask (y may be x): each kept
// element times F(m.Scale), each dropped one times 0 (so a NaN stays a
// NaN, as the product with a stored mask did). The blocks are spread over
// the cores; each core makes its blocks' numbers a run at a time
// (philox.Words, eight blocks at once in vector registers) and applies
// them with vec.Dropout (a comparison and a masked product, no branch on
// the numbers: a branch mispredicts on a share p of them).
func DropoutApply[F float](m DropoutMask, x, y []F) {
	scale := F(m.Scale)
	n := len(x)
	y = y[:n]
	par.Range((n+3)/4, func(lo, hi int) {
		var w [4 * dropoutRun]uint32
		for g := lo; g < hi; g += dropoutRun {
			e := min(hi, g+dropoutRun)
			words := w[:4*(e-g)]
			philox.Words(words, uint32(g), m.Layer, m.Key)
			i0, i1 := 4*g, min(n, 4*e)
			vec.Dropout(y[i0:i1], x[i0:i1], words[:i1-i0], m.Threshold, scale)
		}
	})
}

// dropoutRun is the number of Philox blocks DropoutApply makes at a time
// (4 KiB of numbers, in L1 while they are applied).
const dropoutRun = 256
