package models

import (
	"fmt"
	"math/rand/v2"

	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// FeatureModel is a model that also exposes the features f_conv(x) its
// last linear layer reads (Appendix `suppsec: exp`, "LLPGAN": the generator
// loss matches these features).
type FeatureModel interface {
	nn.Model
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
	spec   nn.ModelSpec
	convs  []*nn.Conv
	fc     *nn.Dense
	params gorgonia.Nodes
}

// llpganDConvs lists (out channels, kernel, stride) of the discriminator's
// convolutions; dropout 0.5 precedes the 4th and 7th.
var llpganDConvs = [][3]int{{64, 3, 1}, {64, 3, 1}, {64, 3, 2}, {128, 3, 1}, {128, 3, 1}, {128, 3, 2}, {256, 3, 1}, {128, 1, 1}, {64, 1, 1}}

func init() {
	RegisterModel(ModelLLPGAND, func(g *gorgonia.ExprGraph, spec nn.ModelSpec, rng *rand.Rand) (nn.Model, error) {
		return NewLLPGANDiscriminator(g, spec, rng)
	})
	RegisterModel(ModelLLPGANG, func(g *gorgonia.ExprGraph, spec nn.ModelSpec, rng *rand.Rand) (nn.Model, error) {
		return NewLLPGANGenerator(g, spec, rng)
	})
}

// NewLLPGANDiscriminator builds the discriminator for spec's images in g.
func NewLLPGANDiscriminator(g *gorgonia.ExprGraph, spec nn.ModelSpec, rng *rand.Rand) (*LLPGANDiscriminator, error) {
	if !spec.IsImage() {
		return nil, fmt.Errorf("llpgan-d: spec %q has no image shape (Channels, Height, Width)", spec.Name)
	}
	dt := specDType(spec)
	m := &LLPGANDiscriminator{netState: netState{g: g, dt: dt}, spec: spec}
	in := spec.Channels
	for i, l := range llpganDConvs {
		pad := l[1] / 2
		c := nn.NewConv(g, dt, fmt.Sprintf("llpgan-d.conv%d", i), in, l[0], l[1], pad, l[2], true, rng)
		m.convs = append(m.convs, c)
		m.params = append(m.params, c.Learnables()...)
		in = l[0]
	}
	m.fc = nn.NewDense(g, dt, "llpgan-d.fc", in, spec.NumClasses, rng)
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
	h, err := nn.AsImage(x, m.spec)
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
	feat, err := nn.GlobalAvgPool(h, m.dt)
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
	spec   nn.ModelSpec
	dcgan  bool
	dense  []*nn.Dense
	bns    []*nn.BatchNorm
	convT  []*nn.ConvTranspose
	params gorgonia.Nodes
}

// NewLLPGANGenerator builds the generator of spec's images in g.
func NewLLPGANGenerator(g *gorgonia.ExprGraph, spec nn.ModelSpec, rng *rand.Rand) (*LLPGANGenerator, error) {
	if !spec.IsImage() {
		return nil, fmt.Errorf("llpgan-g: spec %q has no image shape (Channels, Height, Width)", spec.Name)
	}
	dt := specDType(spec)
	m := &LLPGANGenerator{netState: netState{g: g, dt: dt}, spec: spec}
	m.dcgan = spec.Height%8 == 0 && spec.Width%8 == 0
	if m.dcgan {
		h0, w0 := spec.Height/8, spec.Width/8
		d := nn.NewDense(g, dt, "llpgan-g.dense", LLPGANNoiseDim, 512*h0*w0, rng)
		d.B = nil // no bias (bias=False in LLP-GAN's bn_dense)
		m.dense = append(m.dense, d)
		m.params = append(m.params, d.W)
		b := m.newBatchNorm("llpgan-g.bn0", 512*h0*w0, 2, 0.1, false)
		m.bns = append(m.bns, b)
		m.params = append(m.params, b.Learnables()...)
		in := 512
		for i, out := range []int{256, 128, spec.Channels} {
			last := i == 2
			ct := nn.NewConvTranspose(g, dt, fmt.Sprintf("llpgan-g.deconv%d", i), in, out, last, rng)
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
		d := nn.NewDense(g, dt, fmt.Sprintf("llpgan-g.fc%d", i), in, out, rng)
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
