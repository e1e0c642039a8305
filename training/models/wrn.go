package models

import (
	"fmt"
	"math/rand/v2"

	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
)

// WideResNet is the Wide ResNet of Zagoruyko & Komodakis (2016) as the
// authors' code builds it (models/WideRes.py, taken from LLP-VAT): a 3×3
// convolution to 16 channels, three stages of (depth−4)/6 pre-activation
// "wide basic" blocks with 16k, 32k, 64k channels — BN → ReLU → 3×3 conv →
// dropout → BN → ReLU → 3×3 conv (stride 2 on the second convolution of a
// stage's first block), plus a 1×1 convolution on the shortcut when the
// shape changes; every convolution has a bias — then BN → ReLU → global
// average pooling → linear. The final batch norm uses PyTorch momentum 0.9
// as in that code (the others 0.1). Appendix `suppsec: exp`, "Wide
// ResNet-16-4": depth 16, widen factor 4, dropout spec.Dropout (the paper
// uses 0.3 on CIFAR10 and 0.4 on SVHN and EMNIST).
//
// The reference code pools with a fixed 8×8 window, which only fits 32×32
// inputs; here the pooling is global, identical at 32×32 and also defined
// at 28×28 (7×7 final map).
type WideResNet struct {
	netState
	spec         nn.ModelSpec
	depth, width int
	conv1        *nn.Conv
	blocks       []*wideBlock
	bnOut        *nn.BatchNorm
	fc           *nn.Dense
	params       gorgonia.Nodes
}

type wideBlock struct {
	bn1, bn2     *nn.BatchNorm
	conv1, conv2 *nn.Conv
	shortcut     *nn.Conv
}

func init() {
	RegisterModel(ModelWRN164, func(g *gorgonia.ExprGraph, spec nn.ModelSpec, rng *rand.Rand) (nn.Model, error) {
		return NewWideResNet(g, spec, 16, 4, rng)
	})
}

// NewWideResNet builds WRN-depth-width for spec's images in g.
func NewWideResNet(g *gorgonia.ExprGraph, spec nn.ModelSpec, depth, width int, rng *rand.Rand) (*WideResNet, error) {
	if !spec.IsImage() {
		return nil, fmt.Errorf("wide resnet: spec %q has no image shape (Channels, Height, Width)", spec.Name)
	}
	if depth < 10 || (depth-4)%6 != 0 || width < 1 {
		return nil, fmt.Errorf("wide resnet: depth %d width %d, want depth = 6n+4 with n ≥ 1 and width ≥ 1", depth, width)
	}
	dt := specDType(spec)
	m := &WideResNet{netState: netState{g: g, dt: dt}, spec: spec, depth: depth, width: width}
	m.conv1 = nn.NewConvInit(g, dt, "wrn.conv1", spec.Channels, 16, 3, 1, 1, true, nn.InitXavierRelu, rng)
	m.params = append(m.params, m.conv1.Learnables()...)
	n := (depth - 4) / 6
	in := 16
	for stage, planes := range []int{16 * width, 32 * width, 64 * width} {
		for i := 0; i < n; i++ {
			stride := 1
			if stage > 0 && i == 0 {
				stride = 2
			}
			name := fmt.Sprintf("wrn.layer%d.%d", stage+1, i)
			b := &wideBlock{}
			b.bn1 = m.newBatchNorm(name+".bn1", in, 4, 0.1, true)
			b.conv1 = nn.NewConvInit(g, dt, name+".conv1", in, planes, 3, 1, 1, true, nn.InitXavierRelu, rng)
			b.bn2 = m.newBatchNorm(name+".bn2", planes, 4, 0.1, true)
			b.conv2 = nn.NewConvInit(g, dt, name+".conv2", planes, planes, 3, 1, stride, true, nn.InitXavierRelu, rng)
			m.params = append(m.params, b.bn1.Learnables()...)
			m.params = append(m.params, b.conv1.Learnables()...)
			m.params = append(m.params, b.bn2.Learnables()...)
			m.params = append(m.params, b.conv2.Learnables()...)
			if stride != 1 || in != planes {
				b.shortcut = nn.NewConvInit(g, dt, name+".shortcut", in, planes, 1, 0, stride, true, nn.InitXavierRelu, rng)
				m.params = append(m.params, b.shortcut.Learnables()...)
			}
			m.blocks = append(m.blocks, b)
			in = planes
		}
	}
	m.bnOut = m.newBatchNorm("wrn.bn1", in, 4, 0.9, true)
	m.fc = nn.NewDense(g, dt, "wrn.linear", in, spec.NumClasses, rng)
	m.params = append(m.params, m.bnOut.Learnables()...)
	m.params = append(m.params, m.fc.Learnables()...)
	return m, nil
}

// Name returns "wrn-<depth>-<width>".
func (m *WideResNet) Name() string { return fmt.Sprintf("wrn-%d-%d", m.depth, m.width) }

// Learnables returns the trainable parameters in layer order.
func (m *WideResNet) Learnables() gorgonia.Nodes { return m.params }

// Forward returns the logits of x.
func (m *WideResNet) Forward(x *gorgonia.Node, train bool) (*gorgonia.Node, error) {
	x, err := nn.AsImage(x, m.spec)
	if err != nil {
		return nil, err
	}
	h, err := m.conv1.Forward(x)
	if err != nil {
		return nil, fmt.Errorf("%s conv1: %w", m.Name(), err)
	}
	for i, b := range m.blocks {
		if h, err = m.block(b, h, train); err != nil {
			return nil, fmt.Errorf("%s block %d: %w", m.Name(), i, err)
		}
	}
	if h, err = m.bnReLU(m.bnOut, h, train); err != nil {
		return nil, err
	}
	if h, err = nn.GlobalAvgPool(h, m.dt); err != nil {
		return nil, err
	}
	return m.fc.Forward(h)
}

func (m *WideResNet) block(b *wideBlock, x *gorgonia.Node, train bool) (*gorgonia.Node, error) {
	h, err := m.bnReLU(b.bn1, x, train)
	if err != nil {
		return nil, err
	}
	if h, err = b.conv1.Forward(h); err != nil {
		return nil, err
	}
	if h, err = m.dropout(h, m.spec.Dropout, train); err != nil {
		return nil, err
	}
	if h, err = m.bnReLU(b.bn2, h, train); err != nil {
		return nil, err
	}
	if h, err = b.conv2.Forward(h); err != nil {
		return nil, err
	}
	id := x
	if b.shortcut != nil {
		if id, err = b.shortcut.Forward(x); err != nil {
			return nil, err
		}
	}
	return gorgonia.Add(h, id)
}
