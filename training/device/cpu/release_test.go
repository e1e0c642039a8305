package cpu

import (
	"testing"

	"github.com/llpfc/llpfc/internal/rng"

	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestTapeReleaseFreesValues (the memory of a real training run):
// after Release no computed node of the machine is bound to a value and no
// register holds one — so nothing of the run's activations and gradients
// stays reachable from the machine — while parameters and bound inputs keep
// theirs; a run after Release gives the bit-identical loss and gradients of
// the run before it.
func TestTapeReleaseFreesValues(t *testing.T) {
	spec := nn.ModelSpec{Name: "cnn-bn", Channels: 1, Height: 8, Width: 8, NumClasses: 4}
	g := gorgonia.NewGraph()
	m, err := models.NewModel(g, spec, rng.New(1, "init"))
	require.NoError(t, err)
	xn, x := nn.NewInputNode(g, tensor.Float32, "x", spec.InputShape(5))
	rn, r := nn.NewInputNode(g, tensor.Float32, "r", tensor.Shape{5, 4})
	wn, w := nn.NewInputNode(g, tensor.Float32, "w", tensor.Shape{5})
	for i, d := 0, x.Data().([]float32); i < len(d); i++ {
		d[i] = float32(i%7) / 7
	}
	for i, d := 0, r.Data().([]float32); i < len(d); i++ {
		d[i] = float32(i%4) / 4
	}
	for i, d := 0, w.Data().([]float32); i < len(d); i++ {
		d[i] = 0.2
	}
	z, err := m.Forward(xn, true)
	require.NoError(t, err)
	loss, err := loss.FCLoss(z, rn, wn)
	require.NoError(t, err)
	grads, err := gorgonia.Grad(loss, m.Learnables()...)
	require.NoError(t, err)
	tp := newTape(g.SubgraphRoots(append(gorgonia.Nodes{loss}, grads...)...))
	defer tp.Close()
	require.NotNil(t, tp.mem, "tape: gorgonia's tapeMachine fields not found")
	snapshot := func() []float32 {
		out := append([]float32(nil), loss.Value().Data().(float32))
		for _, gn := range grads {
			out = append(out, gn.Value().Data().([]float32)...)
		}
		return out
	}
	require.NoError(t, tp.RunAll())
	first := snapshot()
	require.NotEmpty(t, tp.computed)
	bound := 0
	for _, n := range tp.computed {
		if n.Value() != nil {
			bound++
		}
	}
	require.Equal(t, len(tp.computed), bound, "after a run every computed node is bound")

	tp.Release()
	for _, n := range tp.computed {
		assert.Nil(t, n.Value(), "computed node %v still bound after Release", n)
	}
	for i, v := range *tp.mem {
		assert.Nil(t, v, "register %d still holds a value after Release", i)
	}
	for _, p := range m.Learnables() {
		assert.NotNil(t, p.Value(), "parameter %v lost its value", p)
	}
	assert.NotNil(t, xn.Value(), "bound input lost its value")

	require.NoError(t, tp.RunAll())
	assert.Equal(t, first, snapshot(), "a run after Release: the same loss and gradients")
}
