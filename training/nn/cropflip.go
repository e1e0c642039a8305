package nn

import (
	"errors"
	"fmt"
	"hash"
	"math"
	"math/rand/v2"
	"sync/atomic"

	"github.com/chewxy/hm"
	"github.com/llpfc/llpfc/internal/par"
	"github.com/llpfc/llpfc/internal/philox"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// CropFlip is the augmentation of Appendix `suppsec: exp` ("Architecture
// and Hyperparameters") as an op of the training graph, drawn and applied
// where the program runs: Pad pixels are added on each side of every
// image (channel c's value PadValues[c], 0 when PadValues is nil, the
// reference's zero padding of raw pixels), a crop of the original size is
// taken at a uniform offset of the padded image, and with probability
// FlipProb the crop is mirrored horizontally (torchvision's
// RandomCrop(size, padding=4) and RandomHorizontalFlip() in the authors'
// code: Pad = 4, FlipProb = 1/2).
//
// Image n's draw is a function of the step's key k and the image's row r
// in the step's minibatch (the chunk's first row plus n) alone: the words
// (w0, w1, w2, ·) of Philox4x32-10(counter (r, CropFlipLayer, 0, 0), key
// k) (internal/philox) give, with integers only,
//
//	Top  = ⌊w0·(2·Pad+1) / 2³²⌋,  Left = ⌊w1·(2·Pad+1) / 2³²⌋,
//	Flip = ⌊w2 / 2⌋ < FlipThreshold = ⌊FlipProb·2³¹⌋,
//
// each offset uniform on [0, 2·Pad] within 2⁻³² and the flip's
// probability FlipProb within 2⁻³¹ (exactly 1/2 for the paper's 1/2, and
// exactly 0 and 1 at the ends). Why on the device: the host's part of the
// augmentation is one 64-bit key a step, a kernel argument — no pixel
// crosses the bus twice, and the CPU back end computes the very same
// pixels in Go, so the two back ends' results stay comparable entry by
// entry, as dropout's masks (nn.Dropout) do.
type CropFlip struct {
	Pad       int
	FlipProb  float64
	PadValues []float64
}

// CropFlipLayer is the counter word that augmentation's Philox blocks
// carry in place of dropout's layer number: reserved, nn.Dropout refuses
// it as a layer, so no dropout mask and no augmentation draw share a
// counter even under one key.
const CropFlipLayer = math.MaxUint32

// CropFlipDraw is one image's choice: the crop's top-left corner (Top,
// Left) in padded coordinates, each in [0, 2·Pad], and whether the crop is
// mirrored.
type CropFlipDraw struct {
	Top, Left int
	Flip      bool
}

// Check reports a setting out of range.
func (a CropFlip) Check() error {
	if a.Pad < 0 || a.Pad > 1<<20 {
		return fmt.Errorf("crop-flip: pad %d, want in [0, 2²⁰]", a.Pad)
	}
	if !(a.FlipProb >= 0 && a.FlipProb <= 1) {
		return fmt.Errorf("crop-flip: flip probability %v, want in [0, 1]", a.FlipProb)
	}
	for c, v := range a.PadValues {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("crop-flip: channel %d padding value %v, want finite", c, v)
		}
	}
	return nil
}

// FlipThreshold returns ⌊FlipProb·2³¹⌋: an image is mirrored when the top
// 31 bits of its third word are below it.
func (a CropFlip) FlipThreshold() uint32 { return uint32(math.Floor(a.FlipProb * (1 << 31))) }

// Draw returns the draw of the image at row r of a step whose key is key.
func (a CropFlip) Draw(key philox.Key, r int) CropFlipDraw {
	b := philox.Block10(philox.Counter{uint32(r), CropFlipLayer, 0, 0}, key)
	span := uint64(2*a.Pad + 1)
	return CropFlipDraw{
		Top:  int(uint64(b[0]) * span >> 32),
		Left: int(uint64(b[1]) * span >> 32),
		Flip: b[2]>>1 < a.FlipThreshold(),
	}
}

// CropFlipKey is the key of a model's augmentation: set once per step
// (Set, from one 64-bit draw of the run's "augment" stream) and read by
// every CropFlip op built with it when it runs; First is the minibatch row
// of the program's first image (a chunked loss sets it before each
// chunk), so an image gets the same pixels in every program of the step.
// Until the first Set the op is the identity.
type CropFlipKey struct {
	stepKey
	first atomic.Int64
}

var cropFlipKeySeq atomic.Int64

// NewCropFlipKey returns a key that is not set.
func NewCropFlipKey() *CropFlipKey { return &CropFlipKey{stepKey: stepKey{id: cropFlipKeySeq.Add(1)}} }

// Set makes key the key of the next runs and their first row 0.
func (k *CropFlipKey) Set(key uint64) {
	k.first.Store(0)
	k.store(key)
}

// SetFirst makes r the minibatch row of the next runs' first image.
func (k *CropFlipKey) SetFirst(r int) { k.first.Store(int64(r)) }

// Get returns the key, whether it was set and the first row.
func (k *CropFlipKey) Get() (key uint64, set bool, first int) {
	return k.key.Load(), k.set.Load(), int(k.first.Load())
}

// CropFlipRun is what a CropFlip op computes at one run: the images'
// draws from (Key, First + n) unless Identity.
type CropFlipRun struct {
	CropFlip
	Key      philox.Key
	First    int
	Identity bool
}

// ApplyCropFlip augments the N×C×H×W images x into y (y must not be x):
// image n with r's draw for row r.First+n, channel c's padding
// PadValues[c] (rounded to float32, as the float32 data it pads). Images
// are spread over the cores.
func ApplyCropFlip[F float](r CropFlipRun, x, y []F, N, C, H, W int) {
	if r.Identity {
		copy(y, x)
		return
	}
	P := r.Pad
	par.Range(N, func(lo, hi int) {
		for n := lo; n < hi; n++ {
			d := r.Draw(r.Key, r.First+n)
			for c := 0; c < C; c++ {
				var pad F
				if r.PadValues != nil {
					pad = F(float32(r.PadValues[c]))
				}
				src, dst := x[(n*C+c)*H*W:(n*C+c+1)*H*W], y[(n*C+c)*H*W:(n*C+c+1)*H*W]
				for yy := 0; yy < H; yy++ {
					sy := d.Top + yy - P
					row := dst[yy*W : (yy+1)*W]
					if sy < 0 || sy >= H {
						for i := range row {
							row[i] = pad
						}
						continue
					}
					srow := src[sy*W : (sy+1)*W]
					for xx := range row {
						cx := xx
						if d.Flip {
							cx = W - 1 - xx
						}
						if sx := d.Left + cx - P; sx >= 0 && sx < W {
							row[xx] = srow[sx]
						} else {
							row[xx] = pad
						}
					}
				}
			}
		}
	})
}

// Apply returns the augmented images of x (N×C×H×W), the model's
// input in a training graph. Nothing differentiates through it (LLP-VAT
// perturbs the augmented images, as the authors' data loader augments
// before VAT): a gradient through it is an error.
func (a CropFlip) Apply(x *gorgonia.Node, key *CropFlipKey) (*gorgonia.Node, error) {
	if err := a.Check(); err != nil {
		return nil, err
	}
	s := x.Shape()
	if s.Dims() != 4 {
		return nil, fmt.Errorf("crop-flip of a %v input, want N×C×H×W images", s)
	}
	if a.PadValues != nil && len(a.PadValues) != s[1] {
		return nil, fmt.Errorf("crop-flip: %d padding values for %d channels", len(a.PadValues), s[1])
	}
	if s.TotalSize() > math.MaxInt32 {
		return nil, fmt.Errorf("crop-flip of %d values, want at most 2³¹−1 (the device kernels index with 32 bits)", s.TotalSize())
	}
	if key == nil {
		return nil, errors.New("crop-flip: no key")
	}
	return gorgonia.ApplyOp(&cropFlipOp{a: a, key: key, shape: s.Clone()}, x)
}

// cropFlipOp is the forward op of CropFlip.Apply.
type cropFlipOp struct {
	a     CropFlip
	key   *CropFlipKey
	shape tensor.Shape
}

// CropFlipRun returns the op's next run (the key as it is now); the
// device back ends read it when they enqueue the op.
func (o *cropFlipOp) CropFlipRun() CropFlipRun {
	k, set, first := o.key.Get()
	return CropFlipRun{CropFlip: o.a, Key: philox.KeyOf(k), First: first, Identity: !set}
}

// CropFlipShape returns N, C, H, W.
func (o *cropFlipOp) CropFlipShape() (N, C, H, W int) {
	return o.shape[0], o.shape[1], o.shape[2], o.shape[3]
}

func (o *cropFlipOp) Arity() int { return 1 }
func (o *cropFlipOp) Type() hm.Type {
	t := gorgonia.TensorType{Dims: 4, Of: hm.TypeVariable('a')}
	return hm.NewFnType(t, t)
}
func (o *cropFlipOp) InferShape(...gorgonia.DimSizer) (tensor.Shape, error) {
	return o.shape.Clone(), nil
}
func (o *cropFlipOp) ReturnsPtr() bool     { return false }
func (o *cropFlipOp) CallsExtern() bool    { return false }
func (o *cropFlipOp) OverwritesInput() int { return -1 }
func (o *cropFlipOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "llpfc.CropFlip(%v,pad=%d,p=%v,values=%v,key#%d)", o.shape, o.a.Pad, o.a.FlipProb, o.a.PadValues, o.key.id)
}
func (o *cropFlipOp) Hashcode() uint32 { return OpHash(o) }
func (o *cropFlipOp) String() string {
	return fmt.Sprintf("CropFlip(pad %d, p=%v)%v", o.a.Pad, o.a.FlipProb, o.shape)
}

// Kind names the op for the compute back ends (device.OpKind).
func (o *cropFlipOp) Kind() string { return "llpfc.CropFlip" }

// ErrCropFlipGrad is the error of a gradient through the augmentation.
var ErrCropFlipGrad = errors.New("crop-flip: no gradient through the augmentation (it acts on the raw input, which nothing differentiates)")

func (o *cropFlipOp) DiffWRT(int) []bool { return []bool{false} }

func (o *cropFlipOp) SymDiff(gorgonia.Nodes, *gorgonia.Node, *gorgonia.Node) (gorgonia.Nodes, error) {
	return nil, ErrCropFlipGrad
}

func (o *cropFlipOp) Do(vs ...gorgonia.Value) (gorgonia.Value, error) {
	return o.UsePreallocDo(nil, vs...)
}

func (o *cropFlipOp) UsePreallocDo(prealloc gorgonia.Value, vs ...gorgonia.Value) (gorgonia.Value, error) {
	if len(vs) != 1 {
		return nil, fmt.Errorf("%v: %d inputs, want 1", o, len(vs))
	}
	if !vs[0].Shape().Eq(o.shape) {
		return nil, fmt.Errorf("%v: input %v", o, vs[0].Shape())
	}
	out := outTensor(prealloc, vs[0].Dtype(), vs[0].Shape(), vs...)
	N, C, H, W := o.CropFlipShape()
	r := o.CropFlipRun()
	switch x := vs[0].Data().(type) {
	case []float32:
		ApplyCropFlip(r, x, out.Data().([]float32), N, C, H, W)
	case []float64:
		ApplyCropFlip(r, x, out.Data().([]float64), N, C, H, W)
	default:
		return nil, errors.New(o.String() + ": element type not supported")
	}
	return out, nil
}

// Augmentation is a method's augmentation of its training graphs' input
// images: the settings and the key it sets once per step (Step). A nil
// *Augmentation augments nothing: Input returns its node, Step and
// SetFirst do nothing.
type Augmentation struct {
	CropFlip CropFlip
	Key      *CropFlipKey
}

// NewAugmentation returns the augmentation of settings a, nil for nil.
func NewAugmentation(a *CropFlip) (*Augmentation, error) {
	if a == nil {
		return nil, nil
	}
	if err := a.Check(); err != nil {
		return nil, err
	}
	return &Augmentation{CropFlip: *a, Key: NewCropFlipKey()}, nil
}

// Input returns the augmented images of the input node x (x itself for a
// nil augmentation): the node a training graph's model reads.
func (a *Augmentation) Input(x *gorgonia.Node) (*gorgonia.Node, error) {
	if a == nil {
		return x, nil
	}
	return a.CropFlip.Apply(x, a.Key)
}

// Step sets the step's key from one 64-bit draw of r (the method's named
// augmentation stream): the host's whole part of the augmentation.
func (a *Augmentation) Step(r *rand.Rand) {
	if a != nil {
		a.Key.Set(r.Uint64())
	}
}

// SetFirst makes row r of the step's minibatch the next runs' first image
// (a chunked loss calls it before each chunk).
func (a *Augmentation) SetFirst(r int) {
	if a != nil {
		a.Key.SetFirst(r)
	}
}
