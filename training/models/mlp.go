package models

import (
	"fmt"
	"math/rand/v2"

	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
)

func init() { RegisterModel(ModelMLP, newMLP) }

// mlp is the fully connected network input→512→256→C with ReLU activations
// (the small model for flat and image inputs; images are flattened).
type mlp struct {
	spec   nn.ModelSpec
	layers [3]*nn.Dense
}

func newMLP(g *gorgonia.ExprGraph, spec nn.ModelSpec, rng *rand.Rand) (nn.Model, error) {
	dt := spec.DType()
	d := spec.InputDim()
	m := &mlp{spec: spec}
	m.layers[0] = nn.NewDense(g, dt, "mlp.fc1", d, 512, rng)
	m.layers[1] = nn.NewDense(g, dt, "mlp.fc2", 512, 256, rng)
	m.layers[2] = nn.NewDense(g, dt, "mlp.fc3", 256, spec.NumClasses, rng)
	return m, nil
}

func (m *mlp) Name() string { return ModelMLP }

func (m *mlp) Forward(x *gorgonia.Node, train bool) (*gorgonia.Node, error) {
	h, err := nn.Flatten(x)
	if err != nil {
		return nil, err
	}
	if h.Shape()[1] != m.spec.InputDim() {
		return nil, fmt.Errorf("mlp: input shape %v, want batch×%d", x.Shape(), m.spec.InputDim())
	}
	for i, l := range m.layers {
		if h, err = l.Forward(h); err != nil {
			return nil, fmt.Errorf("mlp layer %d: %w", i+1, err)
		}
		if i < len(m.layers)-1 {
			if h, err = gorgonia.Rectify(h); err != nil {
				return nil, err
			}
		}
	}
	return h, nil
}

func (m *mlp) Learnables() gorgonia.Nodes {
	var ps gorgonia.Nodes
	for _, l := range m.layers {
		ps = append(ps, l.Learnables()...)
	}
	return ps
}
