package models

import (
	"fmt"
	"math/rand/v2"

	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
)

// vgg16Config is configuration "D" of Simonyan & Zisserman (2015): output
// channels of the 3×3 convolutions, 0 marking a 2×2 max-pool.
var vgg16Config = []int{64, 64, 0, 128, 128, 0, 256, 256, 256, 0, 512, 512, 512, 0, 512, 512, 512, 0}

// VGG16 is VGG16 with batch normalization as the authors' code builds it
// (models/vgg.py, torchvision's vgg16_bn with a configurable number of
// input channels), used unchanged on 32×32 inputs: thirteen 3×3
// convolutions (padding 1, with bias) each followed by batch norm and ReLU,
// five 2×2 max-pools, adaptive average pooling to 7×7 (on 32×32 inputs the
// final map is 1×1 and is copied into all 49 cells), and the ImageNet
// classifier 25088→4096→4096→C with ReLU and dropout after each of the
// first two linear layers. Appendix `suppsec: exp`, "VGG16": dropout 0.5 on
// the first two fully connected layers (spec.Dropout if set, else 0.5).
//
// Five 2×2 pools need inputs of at least 32×32; the authors' code resizes
// EMNIST's 28×28 images to 32×32 for VGG, and NewVGG16 rejects smaller
// inputs with an error saying so.
type VGG16 struct {
	netState
	spec    nn.ModelSpec
	convs   []*nn.Conv
	convBNs []*nn.BatchNorm
	fc      [3]*nn.Dense
	dropP   float64
	params  gorgonia.Nodes
}

func init() {
	RegisterModel(ModelVGG16, func(g *gorgonia.ExprGraph, spec nn.ModelSpec, rng *rand.Rand) (nn.Model, error) {
		return NewVGG16(g, spec, rng)
	})
}

// NewVGG16 builds VGG16-BN for spec's images in g.
func NewVGG16(g *gorgonia.ExprGraph, spec nn.ModelSpec, rng *rand.Rand) (*VGG16, error) {
	if !spec.IsImage() {
		return nil, fmt.Errorf("vgg16: spec %q has no image shape (Channels, Height, Width)", spec.Name)
	}
	if spec.Height < 32 || spec.Width < 32 {
		return nil, fmt.Errorf("vgg16: input %d×%d, want at least 32×32 (five 2×2 max-pools; the authors' code resizes 28×28 EMNIST images to 32×32 for VGG)", spec.Height, spec.Width)
	}
	dt := specDType(spec)
	m := &VGG16{netState: netState{g: g, dt: dt}, spec: spec, dropP: spec.Dropout}
	if m.dropP == 0 {
		m.dropP = 0.5
	}
	in := spec.Channels
	for i, v := range vgg16Config {
		if v == 0 {
			continue
		}
		c := nn.NewConvInit(g, dt, fmt.Sprintf("vgg16.features.conv%d", i), in, v, 3, 1, 1, true, nn.InitKaimingFanOut, rng)
		b := m.newBatchNorm(fmt.Sprintf("vgg16.features.bn%d", i), v, 4, 0.1, true)
		m.convs = append(m.convs, c)
		m.convBNs = append(m.convBNs, b)
		m.params = append(m.params, c.Learnables()...)
		m.params = append(m.params, b.Learnables()...)
		in = v
	}
	m.fc[0] = nn.NewDenseNormal001(g, dt, "vgg16.classifier.0", 512*7*7, 4096, rng)
	m.fc[1] = nn.NewDenseNormal001(g, dt, "vgg16.classifier.3", 4096, 4096, rng)
	m.fc[2] = nn.NewDenseNormal001(g, dt, "vgg16.classifier.6", 4096, spec.NumClasses, rng)
	for _, d := range m.fc {
		m.params = append(m.params, d.Learnables()...)
	}
	return m, nil
}

// Name returns "vgg16".
func (m *VGG16) Name() string { return ModelVGG16 }

// Learnables returns the trainable parameters in layer order.
func (m *VGG16) Learnables() gorgonia.Nodes { return m.params }

// Forward returns the logits of x.
func (m *VGG16) Forward(x *gorgonia.Node, train bool) (*gorgonia.Node, error) {
	h, err := nn.AsImage(x, m.spec)
	if err != nil {
		return nil, err
	}
	k := 0
	for i, v := range vgg16Config {
		if v == 0 {
			if h, err = nn.MaxPool2(h, false); err != nil {
				return nil, fmt.Errorf("vgg16 pool after layer %d: %w", i, err)
			}
			continue
		}
		if h, err = m.convs[k].Forward(h); err != nil {
			return nil, fmt.Errorf("vgg16 conv %d: %w", k, err)
		}
		// ReLU(BN(h)) as one op in training mode: the composite
		// kept the batch norm's output, the ReLU's mask and its product, each
		// activation-sized, and ran the ReLU on one core.
		if h, err = m.bnReLU(m.convBNs[k], h, train); err != nil {
			return nil, err
		}
		k++
	}
	if h, err = nn.AdaptiveAvgPool(h, m.dt, 7, 7); err != nil {
		return nil, err
	}
	if h, err = nn.Flatten(h); err != nil {
		return nil, err
	}
	for i, d := range m.fc {
		if h, err = d.Forward(h); err != nil {
			return nil, fmt.Errorf("vgg16 classifier %d: %w", i, err)
		}
		if i == 2 {
			break
		}
		if h, err = gorgonia.Rectify(h); err != nil {
			return nil, err
		}
		if h, err = m.dropout(h, m.dropP, train); err != nil {
			return nil, err
		}
	}
	return h, nil
}
