package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Model is a network architecture bound to one gorgonia graph.
//
// The parameters live in the graph the model was built in; Forward may be
// called more than once on that graph (for example once with train=true for
// the training tape and once with train=false for the evaluation tape), and
// every call shares the same Learnables.
type Model interface {
	Name() string
	// Forward adds the forward pass of x (batch×D for flat inputs,
	// batch×C×H×W for images) to x's graph and returns the logits node
	// (batch×NumClasses). train selects training behaviour (dropout,
	// batch-norm statistics).
	Forward(x *gorgonia.Node, train bool) (*gorgonia.Node, error)
	// Learnables returns the trainable parameters in a fixed order.
	Learnables() gorgonia.Nodes
}

// ModelSpec describes the input and output of a network to build.
//
// Image inputs set Channels, Height and Width (Features is then
// Channels·Height·Width or zero); flat inputs set Features only.
type ModelSpec struct {
	Name                    string
	Channels, Height, Width int
	Features                int
	NumClasses              int
	// Dropout is the dropout probability of architectures that have
	// dropout; zero means none.
	Dropout float64
	// Dtype of the parameters and activations. The zero value means
	// tensor.Float32, the training default; tensor.Float64 is used by the
	// finite-difference gradient checks. Use DType() to read it.
	Dtype tensor.Dtype
}

// DType returns the element type of the graph: spec.Dtype, or tensor.Float32
// when it is unset.
func (s ModelSpec) DType() tensor.Dtype {
	if s.Dtype == tensor.Float64 {
		return tensor.Float64
	}
	return tensor.Float32
}

// IsImage reports whether the spec describes C×H×W image inputs.
func (s ModelSpec) IsImage() bool { return s.Channels > 0 && s.Height > 0 && s.Width > 0 }

// InputDim returns the number of input features per instance
// (Channels·Height·Width for images, Features otherwise).
func (s ModelSpec) InputDim() int {
	if s.IsImage() {
		return s.Channels * s.Height * s.Width
	}
	return s.Features
}

// InputShape returns the shape of an input batch of the given size:
// batch×C×H×W for images, batch×Features for flat inputs.
func (s ModelSpec) InputShape(batch int) tensor.Shape {
	if s.IsImage() {
		return tensor.Shape{batch, s.Channels, s.Height, s.Width}
	}
	return tensor.Shape{batch, s.Features}
}

// Validate checks that the spec describes a buildable network.
func (s ModelSpec) Validate() error {
	if s.NumClasses < 2 {
		return fmt.Errorf("model spec %q: NumClasses = %d, want ≥ 2", s.Name, s.NumClasses)
	}
	if s.Channels < 0 || s.Height < 0 || s.Width < 0 || s.Features < 0 {
		return fmt.Errorf("model spec %q: negative dimension (C=%d H=%d W=%d D=%d)", s.Name, s.Channels, s.Height, s.Width, s.Features)
	}
	if s.IsImage() && s.Features != 0 && s.Features != s.Channels*s.Height*s.Width {
		return fmt.Errorf("model spec %q: Features = %d, want C·H·W = %d or 0", s.Name, s.Features, s.Channels*s.Height*s.Width)
	}
	if s.InputDim() <= 0 {
		return fmt.Errorf("model spec %q: no input size (set Channels, Height, Width or Features)", s.Name)
	}
	if s.Dropout < 0 || s.Dropout >= 1 || math.IsNaN(s.Dropout) {
		return fmt.Errorf("model spec %q: Dropout = %v, want in [0, 1)", s.Name, s.Dropout)
	}
	return nil
}

// ParamCount returns the number of scalar trainable parameters of m.
func ParamCount(m Model) int {
	n := 0
	for _, p := range m.Learnables() {
		n += p.Shape().TotalSize()
	}
	return n
}

// KaimingUniformBound is the half-width of PyTorch's default initialisation
// of nn.Linear and nn.Conv2d weights and biases: kaiming_uniform_ with
// a = √5 gives gain √(2/(1+5)) = √(1/3) and bound gain·√(3/fan_in) =
// 1/√fan_in; the bias uses the same 1/√fan_in.
func KaimingUniformBound(fanIn int) float64 { return 1 / math.Sqrt(float64(fanIn)) }

// NewLearnable adds a trainable parameter of the given shape to g, filled
// with independent draws from U(−bound, bound) taken from rng in row-major
// order. With bound = KaimingUniformBound(fanIn) this is PyTorch's default
// initialisation of linear and convolutional layers. bound = 0 gives zeros;
// use NewConstLearnable for other constants (batch-norm scale).
func NewLearnable(g *gorgonia.ExprGraph, dt tensor.Dtype, name string, shape tensor.Shape, bound float64, rng *rand.Rand) *gorgonia.Node {
	n := shape.TotalSize()
	var backing any
	switch dt {
	case tensor.Float64:
		v := make([]float64, n)
		for i := range v {
			v[i] = bound * (2*rng.Float64() - 1)
		}
		backing = v
	default:
		dt = tensor.Float32
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(bound * (2*rng.Float64() - 1))
		}
		backing = v
	}
	t := tensor.New(tensor.WithShape(shape.Clone()...), tensor.WithBacking(backing))
	return gorgonia.NewTensor(g, dt, len(shape), gorgonia.WithShape(shape.Clone()...), gorgonia.WithName(name), gorgonia.WithValue(t))
}

// NewConstLearnable adds a trainable parameter of the given shape with every
// entry equal to c (batch-norm scale 1, shift 0).
func NewConstLearnable(g *gorgonia.ExprGraph, dt tensor.Dtype, name string, shape tensor.Shape, c float64) *gorgonia.Node {
	n := shape.TotalSize()
	var backing any
	if dt == tensor.Float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = c
		}
		backing = v
	} else {
		dt = tensor.Float32
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(c)
		}
		backing = v
	}
	t := tensor.New(tensor.WithShape(shape.Clone()...), tensor.WithBacking(backing))
	return gorgonia.NewTensor(g, dt, len(shape), gorgonia.WithShape(shape.Clone()...), gorgonia.WithName(name), gorgonia.WithValue(t))
}

// Dense is a fully connected layer y = xW + b with W of shape in×out and b
// of shape 1×out, initialised like PyTorch's nn.Linear (U(±1/√in)).
type Dense struct {
	W, B *gorgonia.Node
}

// NewDense adds a dense layer's parameters to g. Parameters are drawn from
// rng in the order W then b.
func NewDense(g *gorgonia.ExprGraph, dt tensor.Dtype, name string, in, out int, rng *rand.Rand) *Dense {
	bound := KaimingUniformBound(in)
	return &Dense{
		W: NewLearnable(g, dt, name+".W", tensor.Shape{in, out}, bound, rng),
		B: NewLearnable(g, dt, name+".b", tensor.Shape{1, out}, bound, rng),
	}
}

// NewDenseNormal001 is a dense layer initialized as the authors' VGG
// classifier (InitNormal001): weight N(0, 0.01²), bias 0.
func NewDenseNormal001(g *gorgonia.ExprGraph, dt tensor.Dtype, name string, in, out int, rng *rand.Rand) *Dense {
	return &Dense{
		W: newNormalLearnable(g, dt, name+".W", tensor.Shape{in, out}, 0.01, rng),
		B: NewConstLearnable(g, dt, name+".b", tensor.Shape{1, out}, 0),
	}
}

// Forward returns xW + b for x of shape batch×in.
func (d *Dense) Forward(x *gorgonia.Node) (*gorgonia.Node, error) {
	xw, err := gorgonia.Mul(x, d.W)
	if err != nil {
		return nil, err
	}
	return gorgonia.BroadcastAdd(xw, d.B, nil, []byte{0})
}

// Learnables returns W and b.
func (d *Dense) Learnables() gorgonia.Nodes { return gorgonia.Nodes{d.W, d.B} }

// Conv is a 2-D convolution over NCHW inputs with a square kernel, filter of
// shape out×in×k×k and optional bias of shape 1×out×1×1, initialised like
// PyTorch's nn.Conv2d (U(±1/√(in·k·k))).
type Conv struct {
	W, B                *gorgonia.Node
	Kernel, Pad, Stride int
}

// NewConv adds a convolution's parameters to g (W then b from rng).
func NewConv(g *gorgonia.ExprGraph, dt tensor.Dtype, name string, in, out, kernel, pad, stride int, bias bool, rng *rand.Rand) *Conv {
	return NewConvInit(g, dt, name, in, out, kernel, pad, stride, bias, InitDefault, rng)
}

// Init is a weight initialization. The paper is silent; the authors' models
// (models/*.py at 1d0cbc5) each choose one, and llpfc follows them.
type Init int

// The initializations.
const (
	// InitDefault is PyTorch's default for nn.Conv2d and nn.Linear: weight
	// and bias U(±1/√fan_in), fan_in = in·k·k.
	InitDefault Init = iota
	// InitXavierRelu is the authors' WideResNet conv_init
	// (models/WideRes.py@1d0cbc5:57-61): xavier_uniform_ with gain √2,
	// weight U(±√2·√(6/(fan_in+fan_out))), fan_out = out·k·k; bias 0.
	InitXavierRelu
	// InitKaimingFanOut is the authors' VGG and ResNet convolutions
	// (models/vgg.py@1d0cbc5:43, models/ResNet.py@1d0cbc5:170):
	// kaiming_normal_(mode='fan_out', nonlinearity='relu'), weight
	// N(0, 2/fan_out); bias 0.
	InitKaimingFanOut
	// InitNormal001 is the authors' VGG linear layers
	// (models/vgg.py@1d0cbc5:50-51): weight N(0, 0.01²), bias 0.
	InitNormal001
)

// NewConvInit is NewConv with the initialization init.
func NewConvInit(g *gorgonia.ExprGraph, dt tensor.Dtype, name string, in, out, kernel, pad, stride int, bias bool, init Init, rng *rand.Rand) *Conv {
	c := &Conv{Kernel: kernel, Pad: pad, Stride: stride}
	fanIn, fanOut := in*kernel*kernel, out*kernel*kernel
	shape := tensor.Shape{out, in, kernel, kernel}
	switch init {
	case InitXavierRelu:
		c.W = NewLearnable(g, dt, name+".W", shape, math.Sqrt2*math.Sqrt(6/float64(fanIn+fanOut)), rng)
	case InitKaimingFanOut:
		c.W = newNormalLearnable(g, dt, name+".W", shape, math.Sqrt(2/float64(fanOut)), rng)
	default:
		c.W = NewLearnable(g, dt, name+".W", shape, KaimingUniformBound(fanIn), rng)
	}
	if bias {
		if init == InitDefault {
			c.B = NewLearnable(g, dt, name+".b", tensor.Shape{1, out, 1, 1}, KaimingUniformBound(fanIn), rng)
		} else {
			c.B = NewConstLearnable(g, dt, name+".b", tensor.Shape{1, out, 1, 1}, 0)
		}
	}
	return c
}

// newNormalLearnable is a parameter with entries N(0, std²) from rng.
func newNormalLearnable(g *gorgonia.ExprGraph, dt tensor.Dtype, name string, shape tensor.Shape, std float64, rng *rand.Rand) *gorgonia.Node {
	n := shape.TotalSize()
	var backing any
	if dt == tensor.Float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = std * rng.NormFloat64()
		}
		backing = v
	} else {
		dt = tensor.Float32
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(std * rng.NormFloat64())
		}
		backing = v
	}
	t := tensor.New(tensor.WithShape(shape.Clone()...), tensor.WithBacking(backing))
	return gorgonia.NewTensor(g, dt, len(shape), gorgonia.WithShape(shape.Clone()...), gorgonia.WithName(name), gorgonia.WithValue(t))
}

// Forward returns the convolution of x (batch×in×H×W) plus the bias, with
// Conv2dIm2col (im2col into reused buffers, one matrix product per image
// written straight to NCHW, images split over the cores). It
// computes what gorgonia.Conv2d followed by a broadcast bias add computes
// (TestConv2dIm2colMatchesGorgonia, TestIm2colCNNTrainsLikeCNN).
func (c *Conv) Forward(x *gorgonia.Node) (*gorgonia.Node, error) {
	return Conv2dIm2col(x, c.W, c.B, c.Pad, c.Stride)
}

// Learnables returns W (and b if present).
func (c *Conv) Learnables() gorgonia.Nodes {
	if c.B == nil {
		return gorgonia.Nodes{c.W}
	}
	return gorgonia.Nodes{c.W, c.B}
}

// Flatten reshapes x to batch×(product of the other dimensions).
func Flatten(x *gorgonia.Node) (*gorgonia.Node, error) {
	s := x.Shape()
	if s.Dims() == 2 {
		return x, nil
	}
	return gorgonia.Reshape(x, tensor.Shape{s[0], s.TotalSize() / s[0]})
}

// AsImage reshapes a flat batch×(C·H·W) input to batch×C×H×W.
func AsImage(x *gorgonia.Node, spec ModelSpec) (*gorgonia.Node, error) {
	s := x.Shape()
	if s.Dims() == 4 {
		if s[1] != spec.Channels || s[2] != spec.Height || s[3] != spec.Width {
			return nil, fmt.Errorf("model %q: input shape %v, want batch×%d×%d×%d", spec.Name, s, spec.Channels, spec.Height, spec.Width)
		}
		return x, nil
	}
	if s.Dims() == 2 && s[1] == spec.InputDim() {
		return gorgonia.Reshape(x, tensor.Shape{s[0], spec.Channels, spec.Height, spec.Width})
	}
	return nil, fmt.Errorf("model %q: input shape %v, want batch×%d×%d×%d or batch×%d", spec.Name, s, spec.Channels, spec.Height, spec.Width, spec.InputDim())
}
