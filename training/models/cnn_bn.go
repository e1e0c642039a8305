package models

import (
	"math/rand/v2"

	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
)

func init() { RegisterModel(ModelCNNBN, newCNNBN) }

// cnnBN is the cnn with batch normalization after each convolution (the
// KL scale's evidence on this machine: the smallest network where the batch-norm
// statistics of a chunked bag loss matter):
//
//	conv3×3 (32, padding 1) → BN → ReLU → maxpool 2×2 →
//	conv3×3 (64, padding 1) → BN → ReLU → maxpool 2×2 →
//	fc 128 → ReLU → fc C.
//
// Batch norm as in PyTorch's BatchNorm2d (momentum 0.1, ε 1e-5, γ = 1 and
// β = 0 at start); the rest is the cnn, initialized the same way.
type cnnBN struct {
	*cnn
	netState
	norms [2]*nn.BatchNorm
}

func newCNNBN(g *gorgonia.ExprGraph, spec nn.ModelSpec, rng *rand.Rand) (nn.Model, error) {
	base, err := newCNN(g, spec, rng)
	if err != nil {
		return nil, err // names the model (newCNN uses spec.Name)
	}
	m := &cnnBN{cnn: base.(*cnn), netState: netState{g: g, dt: spec.DType()}}
	m.norms[0] = m.newBatchNorm("cnn-bn.bn1", 32, 4, 0.1, true)
	m.norms[1] = m.newBatchNorm("cnn-bn.bn2", 64, 4, 0.1, true)
	m.act = func(i int, h *gorgonia.Node, train bool) (*gorgonia.Node, error) {
		return m.bnReLU(m.norms[i], h, train)
	}
	return m, nil
}

func (m *cnnBN) Name() string { return ModelCNNBN }

// Learnables lists each convolution's parameters followed by its batch
// norm's, then the dense layers'.
func (m *cnnBN) Learnables() gorgonia.Nodes {
	ps := append(m.conv1.Learnables(), m.norms[0].Learnables()...)
	ps = append(ps, m.conv2.Learnables()...)
	ps = append(ps, m.norms[1].Learnables()...)
	return append(ps, append(m.fc1.Learnables(), m.fc2.Learnables()...)...)
}
