package loss

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func init() { models.RegisterModel("test-tiny-dropout", newFDDropNet) }

// fdDropNet is D→6 tanh → dropout(½) → C, a StochasticModel whose masks
// are input nodes refilled by Resample.
type fdDropNet struct {
	l1, l2 *nn.Dense
	masks  []*tensor.Dense
	nodes  gorgonia.Nodes
	g      *gorgonia.ExprGraph
}

func newFDDropNet(g *gorgonia.ExprGraph, spec nn.ModelSpec, r *rand.Rand) (nn.Model, error) {
	return &fdDropNet{g: g, l1: nn.NewDense(g, spec.DType(), "drop.l1", spec.InputDim(), 6, r), l2: nn.NewDense(g, spec.DType(), "drop.l2", 6, spec.NumClasses, r)}, nil
}
func (m *fdDropNet) Name() string { return "test-tiny-dropout" }
func (m *fdDropNet) Learnables() gorgonia.Nodes {
	return append(m.l1.Learnables(), m.l2.Learnables()...)
}
func (m *fdDropNet) Forward(x *gorgonia.Node, train bool) (*gorgonia.Node, error) {
	h, err := m.l1.Forward(x)
	if err != nil {
		return nil, err
	}
	if h, err = gorgonia.Tanh(h); err != nil {
		return nil, err
	}
	if train {
		mask, mt := nn.NewInputNode(m.g, x.Dtype(), "drop.mask", h.Shape())
		m.masks = append(m.masks, mt)
		m.nodes = append(m.nodes, mask)
		if h, err = gorgonia.HadamardProd(h, mask); err != nil {
			return nil, err
		}
	}
	return m.l2.Forward(h)
}
func (m *fdDropNet) Masks() gorgonia.Nodes { return m.nodes }

func (m *fdDropNet) Resample(r *rand.Rand) {
	for _, t := range m.masks {
		d := t.Data().([]float64)
		for i := range d {
			d[i] = 0
			if r.Float64() < 0.5 {
				d[i] = 2
			}
		}
	}
}

// TestKLChunkedDropoutFiniteDifference checks that with dropout the chunked
// gradient is the exact gradient of the chunked loss: the loss returned by
// Gradient, as a function of the parameters with the mask stream fixed, is
// differentiated by central differences. Were the masks of pass 1 and pass 2
// different, the two would disagree. It also checks that the masks matter
// (another mask stream gives another loss).
func TestKLChunkedDropoutFiniteDifference(t *testing.T) {
	f := newKLFixture([]int{4, 5}, 3, 3, 9)
	f.spec.Name = "test-tiny-dropout"
	g := gorgonia.NewGraph()
	m, err := models.NewModel(g, f.spec, rng.New(3, "init"))
	require.NoError(t, err)
	k, err := NewKLChunked(cpuBackend, g, m, f.spec, 3)
	require.NoError(t, err)
	defer k.Close()
	params := m.Learnables()
	acc := newHostAcc(params)
	lossAt := func(seed uint64, into hostAcc) float64 {
		k.SetRandom(rand.New(rand.NewPCG(seed, 1)))
		if into == nil {
			into = newHostAcc(params)
		}
		l, _, err := k.Gradient(f.x, f.bags, into)
		require.NoError(t, err)
		return l
	}
	l0 := lossAt(11, acc)
	l1 := lossAt(12, nil)
	require.NotEqual(t, l0, l1, "another mask stream gave the same loss: dropout inactive")
	const h = 1e-6
	for i, p := range params {
		d := p.Value().Data().([]float64)
		for j := range d {
			orig := d[j]
			d[j] = orig + h
			lp := lossAt(11, nil)
			d[j] = orig - h
			lm := lossAt(11, nil)
			d[j] = orig
			fd := (lp - lm) / (2 * h)
			assert.LessOrEqual(t, math.Abs(fd-acc[i][j]), 1e-7*math.Max(1, math.Abs(fd)), "%s[%d]: chunked gradient %.10g, finite difference %.10g", p.Name(), j, acc[i][j], fd)
		}
	}
}

// TestKLChunkedExactBatchNormDropoutFiniteDifference checks the exact
// whole-minibatch batch norm of the chunked KL loss against an oracle that
// shares none of its code: central finite differences of the loss that
// Gradient returns, on WRN-10-1 with dropout 0.3 (masks drawn per chunk from
// a fixed stream and replayed in every statistics, adjoint and gradient
// sweep), a minibatch of 12 instances in chunks of 5 (the last padded), for
// one coordinate of each of six parameter tensors (convolutions, batch-norm
// scales and shifts, the classifier). A sweep that forgot the statistics'
// dependence on the parameters, or replayed other masks, would disagree.
func TestKLChunkedExactBatchNormDropoutFiniteDifference(t *testing.T) {
	spec := nn.ModelSpec{Name: "wrn-10-1", Channels: 2, Height: 4, Width: 4, NumClasses: 3, Dropout: 0.3, Dtype: tensor.Float64}
	f := newKLFixture([]int{5, 7}, spec.InputDim(), 3, 9)
	f.spec = spec
	g := gorgonia.NewGraph()
	m, err := models.NewModel(g, spec, rng.New(3, "init"))
	require.NoError(t, err)
	_, stochastic := m.(nn.StochasticModel)
	require.True(t, stochastic, "WRN with dropout draws masks")
	k, err := NewKLChunked(cpuBackend, g, m, spec, 5)
	require.NoError(t, err)
	defer k.Close()
	params := m.Learnables()
	lossAt := func(into hostAcc) float64 {
		k.SetRandom(rand.New(rand.NewPCG(11, 1)))
		if into == nil {
			into = newHostAcc(params)
		}
		l, _, err := k.Gradient(f.x, f.bags, into)
		require.NoError(t, err)
		return l
	}
	acc := newHostAcc(params)
	lossAt(acc)
	const h = 1e-5
	step := max(1, len(params)/6)
	checked := 0
	for i := 0; i < len(params); i += step {
		d := params[i].Value().Data().([]float64)
		j := len(d) / 2
		orig := d[j]
		d[j] = orig + h
		lp := lossAt(nil)
		d[j] = orig - h
		lm := lossAt(nil)
		d[j] = orig
		fd := (lp - lm) / (2 * h)
		assert.InDelta(t, fd, acc[i][j], 1e-7*math.Max(1, math.Abs(fd)), "%s[%d]: chunked gradient vs finite difference", params[i].Name(), j)
		checked++
	}
	require.GreaterOrEqual(t, checked, 6)
}

// TestKLChunkedDrawsAMaskPerChunk: PyTorch's dropout draws an independent
// mask for every row of a forward pass, so a minibatch that runs in chunks
// must draw each chunk's masks from its own seed. Sixteen one-instance bags
// of the same instance, in chunks of one, give that instance sixteen
// independent masks (6 units, ½ each): their sixteen bag means must take
// many different values. Reusing one chunk's seed gives one value.
func TestKLChunkedDrawsAMaskPerChunk(t *testing.T) {
	f := newKLFixture([]int{4, 5}, 3, 3, 9)
	f.spec.Name = "test-tiny-dropout"
	g := gorgonia.NewGraph()
	m, err := models.NewModel(g, f.spec, rng.New(3, "init"))
	require.NoError(t, err)
	k, err := NewKLChunked(cpuBackend, g, m, f.spec, 1)
	require.NoError(t, err)
	defer k.Close()
	k.SetRandom(rand.New(rand.NewPCG(21, 1)))
	bags := make([]BagRef, 16)
	for i := range bags {
		bags[i] = BagRef{Indices: []int{0}, Proportions: f.bags[0].Proportions}
	}
	acc := make([][]float64, len(m.Learnables()))
	for i, p := range m.Learnables() {
		acc[i] = make([]float64, p.Shape().TotalSize())
	}
	_, _, err = k.Gradient(f.x, bags, hostAcc(acc))
	require.NoError(t, err)
	distinct := map[float64]bool{}
	for b := range bags {
		distinct[k.pbar[b][0]] = true
	}
	assert.GreaterOrEqual(t, len(distinct), 8, "16 chunks of the same instance gave %d distinct outputs: the chunks share their dropout masks", len(distinct))
}
