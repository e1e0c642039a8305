package testnet

import (
	"math/rand/v2"

	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
)

// fdTinyNet is a smooth two-layer network D→5→C with tanh, small enough for
// central finite differences over every parameter.
type fdTinyNet struct{ l1, l2 *nn.Dense }

// NewFDTinyNet builds fdTinyNet for spec (a models.BuildFunc; tests register
// it as "test-tiny").
func NewFDTinyNet(g *gorgonia.ExprGraph, spec nn.ModelSpec, rng *rand.Rand) (nn.Model, error) {
	return &fdTinyNet{
		l1: nn.NewDense(g, spec.DType(), "tiny.l1", spec.InputDim(), 5, rng),
		l2: nn.NewDense(g, spec.DType(), "tiny.l2", 5, spec.NumClasses, rng),
	}, nil
}

func (m *fdTinyNet) Name() string { return "test-tiny" }

func (m *fdTinyNet) Forward(x *gorgonia.Node, train bool) (*gorgonia.Node, error) {
	h, err := nn.Flatten(x)
	if err != nil {
		return nil, err
	}
	if h, err = m.l1.Forward(h); err != nil {
		return nil, err
	}
	if h, err = gorgonia.Tanh(h); err != nil {
		return nil, err
	}
	return m.l2.Forward(h)
}

func (m *fdTinyNet) Learnables() gorgonia.Nodes {
	return append(m.l1.Learnables(), m.l2.Learnables()...)
}
