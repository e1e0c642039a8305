package training

import (
	"fmt"
	"math/rand/v2"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// FeatureModel is a model that also exposes the features f_conv(x) its
// last linear layer reads (Appendix `suppsec: exp`, "LLPGAN": the generator
// loss matches these features).
type FeatureModel interface {
	Model
	// ForwardFeatures returns the logits and the features of x.
	ForwardFeatures(x *gorgonia.Node, train bool) (logits, features *gorgonia.Node, err error)
}

// LLPGANDiscriminator is the LLP-GAN discriminator f of Liu et al. (2019)
// in the form the LLPFC authors' code uses (models/LLPGAN_DIS.py, the same
// layers as LLP-GAN's TensorFlow D with ReLU in place of leaky ReLU):
// dropout 0.2 on the input; 3×3 convolutions (padding 1, with bias, each
// followed by ReLU) c→64, 64→64, 64→64 stride 2; dropout 0.5; 64→128,
// 128→128, 128→128 stride 2; dropout 0.5; 3×3 128→256, 1×1 256→128,
// 1×1 128→64; average pooling over the whole final map (8×8 for 32×32
// inputs, 7×7 for 28×28, as the reference's pool size
// round(round(s/2)/2)); the 64 pooled values are f_conv(x); a linear layer
// 64→C gives the logits. The dropout rates are part of the architecture
// (spec.Dropout is ignored).
type LLPGANDiscriminator struct {
	netState
	spec   ModelSpec
	convs  []*Conv
	fc     *Dense
	params gorgonia.Nodes
}

// llpganDConvs lists (out channels, kernel, stride) of the discriminator's
// convolutions; dropout 0.5 precedes the 4th and 7th.
var llpganDConvs = [][3]int{{64, 3, 1}, {64, 3, 1}, {64, 3, 2}, {128, 3, 1}, {128, 3, 1}, {128, 3, 2}, {256, 3, 1}, {128, 1, 1}, {64, 1, 1}}

func init() {
	RegisterModel(ModelLLPGAND, func(g *gorgonia.ExprGraph, spec ModelSpec, rng *rand.Rand) (Model, error) {
		return NewLLPGANDiscriminator(g, spec, rng)
	})
	RegisterModel(ModelLLPGANG, func(g *gorgonia.ExprGraph, spec ModelSpec, rng *rand.Rand) (Model, error) {
		return NewLLPGANGenerator(g, spec, rng)
	})
}

// NewLLPGANDiscriminator builds the discriminator for spec's images in g.
func NewLLPGANDiscriminator(g *gorgonia.ExprGraph, spec ModelSpec, rng *rand.Rand) (*LLPGANDiscriminator, error) {
	if !spec.IsImage() {
		return nil, fmt.Errorf("llpgan-d: spec %q has no image shape (Channels, Height, Width)", spec.Name)
	}
	dt := specDType(spec)
	m := &LLPGANDiscriminator{netState: netState{g: g, dt: dt}, spec: spec}
	in := spec.Channels
	for i, l := range llpganDConvs {
		pad := l[1] / 2
		c := NewConv(g, dt, fmt.Sprintf("llpgan-d.conv%d", i), in, l[0], l[1], pad, l[2], true, rng)
		m.convs = append(m.convs, c)
		m.params = append(m.params, c.Learnables()...)
		in = l[0]
	}
	m.fc = NewDense(g, dt, "llpgan-d.fc", in, spec.NumClasses, rng)
	m.params = append(m.params, m.fc.Learnables()...)
	return m, nil
}

// Name returns "llpgan-d".
func (m *LLPGANDiscriminator) Name() string { return ModelLLPGAND }

// Learnables returns the trainable parameters in layer order.
func (m *LLPGANDiscriminator) Learnables() gorgonia.Nodes { return m.params }

// Forward returns the logits of x (the C inputs of the (C+1)-way softmax
// whose last input is fixed to 0; see LLPGANDiscriminatorLoss).
func (m *LLPGANDiscriminator) Forward(x *gorgonia.Node, train bool) (*gorgonia.Node, error) {
	logits, _, err := m.ForwardFeatures(x, train)
	return logits, err
}

// ForwardFeatures returns the logits and the pooled 64-dimensional
// features f_conv(x).
func (m *LLPGANDiscriminator) ForwardFeatures(x *gorgonia.Node, train bool) (*gorgonia.Node, *gorgonia.Node, error) {
	h, err := asImage(x, m.spec)
	if err != nil {
		return nil, nil, err
	}
	if h, err = m.dropout(h, 0.2, train); err != nil {
		return nil, nil, err
	}
	for i, c := range m.convs {
		if i == 3 || i == 6 {
			if h, err = m.dropout(h, 0.5, train); err != nil {
				return nil, nil, err
			}
		}
		if h, err = c.Forward(h); err != nil {
			return nil, nil, fmt.Errorf("llpgan-d conv %d: %w", i, err)
		}
		if h, err = gorgonia.Rectify(h); err != nil {
			return nil, nil, err
		}
	}
	feat, err := globalAvgPool(h, m.dt)
	if err != nil {
		return nil, nil, err
	}
	logits, err := m.fc.Forward(feat)
	if err != nil {
		return nil, nil, err
	}
	return logits, feat, nil
}

// LLPGANNoiseDim is the dimension of the generator's noise z (z_dim = 100
// in LLP-GAN's code, drawn from U(−1, 1); the LLPFC authors' code defaults
// to 500 normal draws).
const LLPGANNoiseDim = 100

// LLPGANGenerator is the LLP-GAN generator g, mapping noise z (batch ×
// LLPGANNoiseDim) to images batch×C×H×W (its Forward returns images, not
// logits). Two forms:
//
//   - H and W divisible by 8 (SVHN, CIFAR10): the DCGAN generator of
//     LLP-GAN's TensorFlow code: linear z→512·(H/8)·(W/8) without bias,
//     batch norm (shift only, TensorFlow's default), leaky ReLU 0.2; three
//     5×5 stride-2 transposed convolutions 512→256→128→C ("same" padding,
//     PyTorch terms padding 2, output padding 1), the first two without bias
//     and followed by shift-only batch norm and leaky ReLU, the last with
//     bias and tanh.
//   - otherwise (28×28 EMNIST): the LLPFC authors' LLPGAN_GEN_MNIST, a
//     perceptron z→500→500→C·H·W, each linear layer followed by ReLU and
//     batch norm (γ and β).
//
// The LLPFC authors' colour generator (LLPGAN_GEN_COLOR: unpadded stride-1
// transposed convolutions) outputs 16×16 images, which its 32×32
// discriminator cannot take, so the LLP-GAN original is used instead.
type LLPGANGenerator struct {
	netState
	spec   ModelSpec
	dcgan  bool
	dense  []*Dense
	bns    []*BatchNorm
	convT  []*ConvTranspose
	params gorgonia.Nodes
}

// NewLLPGANGenerator builds the generator of spec's images in g.
func NewLLPGANGenerator(g *gorgonia.ExprGraph, spec ModelSpec, rng *rand.Rand) (*LLPGANGenerator, error) {
	if !spec.IsImage() {
		return nil, fmt.Errorf("llpgan-g: spec %q has no image shape (Channels, Height, Width)", spec.Name)
	}
	dt := specDType(spec)
	m := &LLPGANGenerator{netState: netState{g: g, dt: dt}, spec: spec}
	m.dcgan = spec.Height%8 == 0 && spec.Width%8 == 0
	if m.dcgan {
		h0, w0 := spec.Height/8, spec.Width/8
		d := NewDense(g, dt, "llpgan-g.dense", LLPGANNoiseDim, 512*h0*w0, rng)
		d.B = nil // no bias (bias=False in LLP-GAN's bn_dense)
		m.dense = append(m.dense, d)
		m.params = append(m.params, d.W)
		b := m.newBatchNorm("llpgan-g.bn0", 512*h0*w0, 2, 0.1, false)
		m.bns = append(m.bns, b)
		m.params = append(m.params, b.Learnables()...)
		in := 512
		for i, out := range []int{256, 128, spec.Channels} {
			last := i == 2
			ct := NewConvTranspose(g, dt, fmt.Sprintf("llpgan-g.deconv%d", i), in, out, last, rng)
			m.convT = append(m.convT, ct)
			m.params = append(m.params, ct.Learnables()...)
			if !last {
				b := m.newBatchNorm(fmt.Sprintf("llpgan-g.bn%d", i+1), out, 4, 0.1, false)
				m.bns = append(m.bns, b)
				m.params = append(m.params, b.Learnables()...)
			}
			in = out
		}
		return m, nil
	}
	in := LLPGANNoiseDim
	for i, out := range []int{500, 500, spec.InputDim()} {
		d := NewDense(g, dt, fmt.Sprintf("llpgan-g.fc%d", i), in, out, rng)
		b := m.newBatchNorm(fmt.Sprintf("llpgan-g.bn%d", i), out, 2, 0.1, true)
		m.dense = append(m.dense, d)
		m.bns = append(m.bns, b)
		m.params = append(m.params, d.Learnables()...)
		m.params = append(m.params, b.Learnables()...)
		in = out
	}
	return m, nil
}

// Name returns "llpgan-g".
func (m *LLPGANGenerator) Name() string { return ModelLLPGANG }

// Learnables returns the trainable parameters in layer order.
func (m *LLPGANGenerator) Learnables() gorgonia.Nodes { return m.params }

// Forward maps noise z (batch×LLPGANNoiseDim) to images batch×C×H×W.
func (m *LLPGANGenerator) Forward(z *gorgonia.Node, train bool) (*gorgonia.Node, error) {
	s := z.Shape()
	if s.Dims() != 2 || s[1] != LLPGANNoiseDim {
		return nil, fmt.Errorf("llpgan-g: noise shape %v, want batch×%d", s, LLPGANNoiseDim)
	}
	batch := s[0]
	if !m.dcgan {
		h := z
		var err error
		for i, d := range m.dense {
			if h, err = d.Forward(h); err != nil {
				return nil, err
			}
			if h, err = gorgonia.Rectify(h); err != nil {
				return nil, err
			}
			if h, err = m.bn(m.bns[i], h, train); err != nil {
				return nil, err
			}
		}
		return gorgonia.Reshape(h, tensor.Shape{batch, m.spec.Channels, m.spec.Height, m.spec.Width})
	}
	h, err := gorgonia.Mul(z, m.dense[0].W)
	if err != nil {
		return nil, err
	}
	if h, err = m.bn(m.bns[0], h, train); err != nil {
		return nil, err
	}
	if h, err = gorgonia.LeakyRelu(h, 0.2); err != nil {
		return nil, err
	}
	if h, err = gorgonia.Reshape(h, tensor.Shape{batch, 512, m.spec.Height / 8, m.spec.Width / 8}); err != nil {
		return nil, err
	}
	for i, ct := range m.convT {
		if h, err = ct.Forward(h); err != nil {
			return nil, fmt.Errorf("llpgan-g deconv %d: %w", i, err)
		}
		if i == len(m.convT)-1 {
			return gorgonia.Tanh(h)
		}
		if h, err = m.bn(m.bns[i+1], h, train); err != nil {
			return nil, err
		}
		if h, err = gorgonia.LeakyRelu(h, 0.2); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// ConvTranspose is a 5×5 stride-2 transposed convolution with "same"
// padding: output 2H×2W, PyTorch's ConvTranspose2d(k=5, stride=2,
// padding=2, output_padding=1), whose definition is
//
//	y[o, Y, X] = Σ x[c, i, j]·Wp[c, o, a, b] over Y = 2i − 2 + a, X = 2j − 2 + b.
//
// It is computed by sub-pixel decomposition: the output pixels of row
// parity p and column parity q only meet the kernel taps a ≡ p, b ≡ q
// (mod 2), so the 5×5 kernel splits into four sub-kernels — K[0][0] 3×3
// (a, b ∈ {0, 2, 4}), K[0][1] 3×2, K[1][0] 2×3, K[1][1] 2×2 — each an
// ordinary convolution of the input (padding 1), and a constant scatter
// interleaves the four results. The 25 taps per channel pair are exactly
// the four sub-kernels' 9 + 6 + 6 + 4 entries, which are the parameters:
// for even a, row t of the sub-kernel is tap a = 4 − 2t; for odd a, tap
// a = 3 − 2t (columns likewise). This costs 25·in·out multiply-adds per
// input pixel, a quarter of convolving a zero-inserted image.
type ConvTranspose struct {
	K       [2][2]*gorgonia.Node // out×in×(3 or 2)×(3 or 2)
	B       *gorgonia.Node
	In, Out int
	dt      tensor.Dtype
}

// subTaps is the sub-kernel size for a parity: 3 taps for even, 2 for odd.
func subTaps(parity int) int { return 3 - parity }

// NewConvTranspose adds a transposed convolution's parameters to g,
// initialised U(±1/√(in·25)) (sub-kernels in the order K00, K01, K10, K11,
// then the bias).
func NewConvTranspose(g *gorgonia.ExprGraph, dt tensor.Dtype, name string, in, out int, bias bool, rng *rand.Rand) *ConvTranspose {
	bound := KaimingUniformBound(in * 25)
	c := &ConvTranspose{In: in, Out: out, dt: dt}
	for p := 0; p < 2; p++ {
		for q := 0; q < 2; q++ {
			c.K[p][q] = NewLearnable(g, dt, fmt.Sprintf("%s.K%d%d", name, p, q), tensor.Shape{out, in, subTaps(p), subTaps(q)}, bound, rng)
		}
	}
	if bias {
		c.B = NewLearnable(g, dt, name+".b", tensor.Shape{1, out, 1, 1}, bound, rng)
	}
	return c
}

// Learnables returns the four sub-kernels (and b if present).
func (c *ConvTranspose) Learnables() gorgonia.Nodes {
	ns := gorgonia.Nodes{c.K[0][0], c.K[0][1], c.K[1][0], c.K[1][1]}
	if c.B != nil {
		ns = append(ns, c.B)
	}
	return ns
}

// Tap returns the PyTorch-layout weight Wp[c, o, a, b] held by the
// sub-kernels (for tests and export).
func (c *ConvTranspose) Tap(ch, o, a, b int) float64 {
	p, q := a%2, b%2
	t := (4 - a) / 2
	if p == 1 {
		t = (3 - a) / 2
	}
	u := (4 - b) / 2
	if q == 1 {
		u = (3 - b) / 2
	}
	kh, kw := subTaps(p), subTaps(q)
	v := valueData(c.K[p][q].Value())
	return v[((o*c.In+ch)*kh+t)*kw+u]
}

// Forward returns the transposed convolution of x (batch×In×H×W).
func (c *ConvTranspose) Forward(x *gorgonia.Node) (*gorgonia.Node, error) {
	s := x.Shape()
	if s.Dims() != 4 || s[1] != c.In {
		return nil, fmt.Errorf("transposed convolution: input shape %v, want batch×%d×H×W", s, c.In)
	}
	n, h, w := s[0], s[2], s[3]
	H, W := 2*h, 2*w
	var sum *gorgonia.Node
	for p := 0; p < 2; p++ {
		for q := 0; q < 2; q++ {
			kh, kw := subTaps(p), subTaps(q)
			y, err := gorgonia.Conv2d(x, c.K[p][q], tensor.Shape{kh, kw}, []int{1, 1}, []int{1, 1}, []int{1, 1})
			if err != nil {
				return nil, err
			}
			// Even parity: output index u of the padded 3-tap convolution is
			// sub-pixel u; odd parity (2 taps): index u+1 is sub-pixel u.
			yh, yw := y.Shape()[2], y.Shape()[3]
			m := make([]float64, yh*yw*H*W)
			for u := 0; u < h; u++ {
				for v := 0; v < w; v++ {
					src := (u+p)*yw + (v + q)
					m[src*H*W+(2*u+p)*W+(2*v+q)] = 1
				}
			}
			scatter := constMatrixNode(x.Graph(), c.dt, fmt.Sprintf("subpixel-%d%d", p, q), yh*yw, H*W, m)
			flat, err := gorgonia.Reshape(y, tensor.Shape{n * c.Out, yh * yw})
			if err != nil {
				return nil, err
			}
			part, err := gorgonia.Mul(flat, scatter)
			if err != nil {
				return nil, err
			}
			if sum == nil {
				sum = part
			} else if sum, err = gorgonia.Add(sum, part); err != nil {
				return nil, err
			}
		}
	}
	out, err := gorgonia.Reshape(sum, tensor.Shape{n, c.Out, H, W})
	if err != nil {
		return nil, err
	}
	if c.B == nil {
		return out, nil
	}
	return gorgonia.BroadcastAdd(out, c.B, nil, []byte{0, 2, 3})
}
