package opencl_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/llpfc/llpfc/training/optim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestProfileOfAStep: the per-op profile of one step of a convolution
// (2 images of 3×7×5, 4 filters of 3×3, padding 1) followed by a matrix
// product (2×140 by 140×6), their gradients, the gradients' sum and an SGD
// update: one row per operation and geometry, each run once, with the
// work counted by hand — the convolution's three passes 2·N·O·OH·OW·C·K²
// = 15,120 operations each, the forward product 2·m·n·k = 3,360 with
// (m, n, k) = (2, 6, 140) — launches and time for each, the rows' times
// adding up to the profile's; the gradients' sum and the optimizer in rows
// of their own; a run after StopProfile records nothing; and the profiled
// run computes what a plain one does, bit for bit.
func TestProfileOfAStep(t *testing.T) {
	be := openBackend(t)
	g := gorgonia.NewGraph()
	r := rand.New(rand.NewPCG(5, 6))
	x := tensorOf(g, r, "x", -1, 1, 2, 3, 7, 5)
	w := tensorOf(g, r, "w", -1, 1, 4, 3, 3, 3)
	v := tensorOf(g, r, "v", -1, 1, 140, 6)
	y := must(nn.Conv2dIm2col(x, w, nil, 1, 1))
	z := must(gorgonia.Mul(must(gorgonia.Reshape(y, tensor.Shape{2, 140})), v))
	cost := must(gorgonia.Sum(z))
	gs := grads(cost, w, v)
	params := gorgonia.Nodes{w, v}
	p, err := be.Compile(g, append(gorgonia.Nodes{z}, gs...), device.Options{Name: "profiled", Params: params, Inputs: gorgonia.Nodes{x}})
	require.NoError(t, err)
	defer p.Close()
	gr, err := be.NewGrads(params)
	require.NoError(t, err)
	opt, err := be.NewOptimizer(optim.Config{Name: "sgd", LR: 0.1}, params, gr)
	require.NoError(t, err)
	require.NoError(t, p.Run())
	plain := values(t, p, z)
	plainG := values(t, p, gs[0])

	be.StartProfile()
	require.NoError(t, p.Run())
	require.NoError(t, gr.Reset())
	require.NoError(t, gr.Add(p, gs, 1))
	require.NoError(t, opt.Step(0.1))
	prof := be.StopProfile()
	got, gotG := values(t, p, z), values(t, p, gs[0])
	for i := range plain {
		require.Equal(t, math.Float32bits(plain[i]), math.Float32bits(got[i]), "z[%d] profiled %v, plain %v", i, got[i], plain[i])
	}
	for i := range plainG {
		require.Equal(t, math.Float32bits(plainG[i]), math.Float32bits(gotG[i]), "∂/∂w[%d] profiled %v, plain %v", i, gotG[i], plainG[i])
	}

	byCat := map[string][]device.OpProfile{}
	var sum float64
	for _, o := range prof.Ops {
		byCat[o.Category] = append(byCat[o.Category], o)
		sum += o.Seconds
		assert.Equal(t, 1, o.Calls, "%s %s %v: calls", o.Category, o.Kind, o.Geometry)
		assert.Positive(t, o.Seconds, "%s %s: time", o.Category, o.Kind)
	}
	assert.InDelta(t, prof.Seconds, sum, 1e-9, "the rows' times add up to the profile's")
	conv := map[string]int{"N": 2, "C": 3, "H": 7, "W": 5, "O": 4, "K": 3, "pad": 1, "stride": 1}
	for _, cat := range []string{device.CatConvForward, device.CatConvFilter} {
		require.Len(t, byCat[cat], 1, "%s rows", cat)
		o := byCat[cat][0]
		assert.Equal(t, conv, o.Geometry, cat)
		assert.Equal(t, int64(2*2*4*7*5*3*3*3), o.FLOPs, "%s: 2·N·O·OH·OW·C·K²", cat)
		assert.Positive(t, o.Launches, cat)
	}
	assert.Empty(t, byCat[device.CatConvData], "x is an input: no gradient with respect to it")
	var forward, dv *device.OpProfile
	for i, o := range byCat[device.CatGEMM] {
		switch o.Kind {
		case "gorgonia.linAlgBinOp(A × B)":
			forward = &byCat[device.CatGEMM][i]
		case "gorgonia.linAlgBinOp(Aᵀ × B)":
			dv = &byCat[device.CatGEMM][i]
		}
	}
	require.NotNil(t, forward, "the forward product's row among %v", byCat[device.CatGEMM])
	assert.Equal(t, map[string]int{"m": 2, "n": 6, "k": 140, "ta": 0, "tb": 0}, forward.Geometry)
	assert.Equal(t, int64(2*2*6*140), forward.FLOPs)
	assert.Equal(t, int64(1), forward.Launches, "one SGEMM")
	// ∂/∂v = reshape(y)ᵀ · ∂L/∂z: (140×2)·(2×6), k = 2
	require.NotNil(t, dv, "the gradient's product Aᵀ × B among %v", byCat[device.CatGEMM])
	assert.Equal(t, map[string]int{"m": 140, "n": 6, "k": 2, "ta": 1, "tb": 0}, dv.Geometry)
	assert.Equal(t, int64(2*140*6*2), dv.FLOPs)
	assert.Len(t, byCat[device.CatGradients], 1)
	require.Len(t, byCat[device.CatOptimizer], 1)
	assert.Equal(t, "optimizer sgd", byCat[device.CatOptimizer][0].Kind)

	// The BLAS products by shape (what a tuning pass times): the
	// convolution's im2col product W·col (4×70×27: O × N·OH·OW × C·K²) and
	// its filter gradient dy·colᵀ (4×27×70), the forward product, ∂/∂v and
	// ∂L/∂reshape(y) = ∂L/∂z·vᵀ (2×140×6), each once and timed.
	type shape struct{ ta, tb, m, n, k int }
	gemms := map[shape]int{}
	for _, g := range prof.GEMMs {
		gemms[shape{g.TA, g.TB, g.M, g.N, g.K}] += g.Calls
		assert.Positive(t, g.Seconds, "%+v", g)
	}
	assert.Equal(t, map[shape]int{{0, 0, 4, 70, 27}: 1, {0, 1, 4, 27, 70}: 1, {0, 0, 2, 6, 140}: 1, {1, 0, 140, 6, 2}: 1, {0, 1, 2, 140, 6}: 1}, gemms)

	require.NoError(t, p.Run())
	after := be.StopProfile()
	assert.Empty(t, after.Ops, "a run after StopProfile was recorded")
	assert.Empty(t, after.GEMMs, "a product after StopProfile was recorded")
}
