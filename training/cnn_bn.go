package training

import (
	"fmt"
	"math/rand/v2"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func init() { RegisterModel("cnn-bn", newCNNBN) }

// cnnBN is the cnn with batch normalization after each convolution (issue
// 20's evidence on this machine: the smallest network where the batch-norm
// statistics of a chunked bag loss matter):
//
//	conv3×3 (32, padding 1) → BN → ReLU → maxpool 2×2 →
//	conv3×3 (64, padding 1) → BN → ReLU → maxpool 2×2 →
//	fc 128 → ReLU → fc C.
//
// Batch norm as in PyTorch's BatchNorm2d (momentum 0.1, ε 1e-5, γ = 1 and
// β = 0 at start); the rest is initialized as cnn.
type cnnBN struct {
	netState
	spec         ModelSpec
	conv1, conv2 *Conv
	bn1, bn2     *BatchNorm
	fc1, fc2     *Dense
}

func newCNNBN(g *gorgonia.ExprGraph, spec ModelSpec, rng *rand.Rand) (Model, error) {
	if !spec.IsImage() {
		return nil, fmt.Errorf("model cnn-bn: needs image inputs (Channels, Height, Width), got spec %+v", spec)
	}
	h, w := spec.Height/4, spec.Width/4
	if h < 1 || w < 1 {
		return nil, fmt.Errorf("model cnn-bn: image %d×%d too small, want at least 4×4", spec.Height, spec.Width)
	}
	dt := spec.DType()
	m := &cnnBN{netState: netState{g: g, dt: dt}, spec: spec}
	m.conv1 = NewConv(g, dt, "cnn-bn.conv1", spec.Channels, 32, 3, 1, 1, true, rng)
	m.bn1 = m.newBatchNorm("cnn-bn.bn1", 32, 4, 0.1, true)
	m.conv2 = NewConv(g, dt, "cnn-bn.conv2", 32, 64, 3, 1, 1, true, rng)
	m.bn2 = m.newBatchNorm("cnn-bn.bn2", 64, 4, 0.1, true)
	m.fc1 = NewDense(g, dt, "cnn-bn.fc1", 64*h*w, 128, rng)
	m.fc2 = NewDense(g, dt, "cnn-bn.fc2", 128, spec.NumClasses, rng)
	return m, nil
}

func (m *cnnBN) Name() string { return "cnn-bn" }

func (m *cnnBN) Forward(x *gorgonia.Node, train bool) (*gorgonia.Node, error) {
	h, err := asImage(x, m.spec)
	if err != nil {
		return nil, err
	}
	for i, c := range []*Conv{m.conv1, m.conv2} {
		if h, err = c.Forward(h); err != nil {
			return nil, err
		}
		if h, err = m.bn([]*BatchNorm{m.bn1, m.bn2}[i], h, train); err != nil {
			return nil, fmt.Errorf("cnn-bn bn%d: %w", i+1, err)
		}
		if h, err = gorgonia.Rectify(h); err != nil {
			return nil, err
		}
		if h, err = gorgonia.MaxPool2D(h, tensor.Shape{2, 2}, []int{0, 0}, []int{2, 2}); err != nil {
			return nil, err
		}
	}
	if h, err = flatten(h); err != nil {
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

func (m *cnnBN) Learnables() gorgonia.Nodes {
	ps := append(m.conv1.Learnables(), m.bn1.Learnables()...)
	ps = append(ps, m.conv2.Learnables()...)
	ps = append(ps, m.bn2.Learnables()...)
	return append(ps, append(m.fc1.Learnables(), m.fc2.Learnables()...)...)
}
