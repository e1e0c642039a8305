package models

import (
	"fmt"
	"math/rand/v2"

	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
)

func init() { RegisterModel(ModelCNN, newCNN) }

// cnn is the small convolutional network of this machine's scale:
//
//	conv3×3 (32, padding 1) → ReLU → maxpool 2×2 →
//	conv3×3 (64, padding 1) → ReLU → maxpool 2×2 →
//	fc 128 → ReLU → fc C.
//
// The convolutions use padding 1 ("same"), so only the pools shrink the
// image: H×W → ⌊⌊H/2⌋/2⌋ × ⌊⌊W/2⌋/2⌋ (28→7, 32→8).
type cnn struct {
	spec         nn.ModelSpec
	conv1, conv2 *nn.Conv
	fc1, fc2     *nn.Dense
	// act is the activation after convolution i (0 or 1): ReLU when nil;
	// cnn-bn puts its batch norms here.
	act func(i int, h *gorgonia.Node, train bool) (*gorgonia.Node, error)
}

func newCNN(g *gorgonia.ExprGraph, spec nn.ModelSpec, rng *rand.Rand) (nn.Model, error) {
	if !spec.IsImage() {
		return nil, fmt.Errorf("model %s: needs images (channels × height × width), got feature vectors of %d values", spec.Name, spec.Features)
	}
	h, w := spec.Height/4, spec.Width/4
	if h < 1 || w < 1 {
		return nil, fmt.Errorf("model %s: image %d×%d too small, want at least 4×4 (two 2×2 max-pools)", spec.Name, spec.Height, spec.Width)
	}
	dt := spec.DType()
	m := &cnn{spec: spec}
	m.conv1 = nn.NewConv(g, dt, "cnn.conv1", spec.Channels, 32, 3, 1, 1, true, rng)
	m.conv2 = nn.NewConv(g, dt, "cnn.conv2", 32, 64, 3, 1, 1, true, rng)
	m.fc1 = nn.NewDense(g, dt, "cnn.fc1", 64*h*w, 128, rng)
	m.fc2 = nn.NewDense(g, dt, "cnn.fc2", 128, spec.NumClasses, rng)
	return m, nil
}

func (m *cnn) Name() string { return ModelCNN }

func (m *cnn) Forward(x *gorgonia.Node, train bool) (*gorgonia.Node, error) {
	h, err := nn.AsImage(x, m.spec)
	if err != nil {
		return nil, err
	}
	for i, c := range []*nn.Conv{m.conv1, m.conv2} {
		if h, err = c.Forward(h); err != nil {
			return nil, err
		}
		relu := m.act == nil // ReLU fused into the pool
		if !relu {
			if h, err = m.act(i, h, train); err != nil {
				return nil, err
			}
		}
		if h, err = nn.MaxPool2(h, relu); err != nil {
			return nil, err
		}
	}
	if h, err = nn.Flatten(h); err != nil {
		return nil, err
	}
	if h, err = m.fc1.Forward(h); err != nil {
		return nil, err
	}
	if h, err = gorgonia.Rectify(h); err != nil {
		return nil, err
	}
	return m.fc2.Forward(h)
}

func (m *cnn) Learnables() gorgonia.Nodes {
	return append(append(m.conv1.Learnables(), m.conv2.Learnables()...), append(m.fc1.Learnables(), m.fc2.Learnables()...)...)
}
