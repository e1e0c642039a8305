package training

import (
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/device/cpu"
	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/methods"
	"github.com/llpfc/llpfc/training/models"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestLLPVATGradientIsKLPlusWeightedVAT: the llpvat method's gradient of a
// minibatch is the KL proportion loss's gradient plus w times LLP-VAT's
// consistency gradient, each computed on its own in a fresh graph (so no
// node is shared between the two losses) from the same initial network,
// minibatch, directions and weight — for every parameter, biases included.
// Before nn.Grad forgot earlier derivatives, gorgonia's Backpropagate
// reused the consistency loss's gradient of the repeat node that broadcasts
// each dense bias, and the KL part of every dense bias gradient was lost.
func TestLLPVATGradientIsKLPlusWeightedVAT(t *testing.T) {
	data := synthLLP(t, 3, 5, 8, 6, 10, 4)
	cfg := baseConfig(MethodLLPVAT)
	cfg.BatchSize, cfg.ChunkSize = 2, 16
	cfg, err := withDefaults(cfg)
	require.NoError(t, err)
	spec := cfg.Model
	spec.Features, spec.NumClasses, spec.Dtype = 5, 3, tensor.Float32
	vc := loss.PaperVATConfig("")
	vc.Xi = 1 // a direction the float32 graph resolves (ξ = 1e-6 is rounding noise)

	be := cpu.New()
	g := gorgonia.NewGraph()
	model, err := models.NewModel(g, spec, rng.New(cfg.Seed, "init"))
	require.NoError(t, err)
	cfg.VAT = vc
	env := &MethodEnv{Config: &cfg, Data: data, Spec: spec, Graph: g, Model: model, Backend: be}
	m, err := methods.MustLookup(MethodLLPVAT).New(env)
	require.NoError(t, err)
	defer m.Close()
	_, err = m.BeginEpoch(0)
	require.NoError(t, err)
	grads, err := be.NewGrads(model.Learnables())
	require.NoError(t, err)
	_, _, err = m.Step(0, grads)
	require.NoError(t, err)
	got := make([][]float64, len(model.Learnables()))
	for i, p := range model.Learnables() {
		got[i] = make([]float64, p.Shape().TotalSize())
	}
	require.NoError(t, grads.Read(got))

	// The same minibatch as Step(0): the first BatchSize bags of the epoch's order.
	order := env.Stream("llpvat-order", 0).Perm(len(data.Bags.Bags))
	D := spec.InputDim()
	var x []float32
	var bags []loss.BagRef
	for _, i := range order[:cfg.BatchSize] {
		b := data.Bags.Bags[i]
		ref := loss.BagRef{Proportions: b.Proportions}
		for _, r := range b.Indices {
			ref.Indices = append(ref.Indices, len(x)/D)
			x = append(x, data.X[r*D:(r+1)*D]...)
		}
		bags = append(bags, ref)
	}
	// KL alone.
	gK := gorgonia.NewGraph()
	mK, err := models.NewModel(gK, spec, rng.New(cfg.Seed, "init"))
	require.NoError(t, err)
	chunk := min(cfg.ChunkSize, 6*cfg.BatchSize)
	k, err := loss.NewKLChunked(be, gK, mK, spec, chunk)
	require.NoError(t, err)
	defer k.Close()
	k.SetScale(cfg.KLScale)
	gk, err := be.NewGrads(mK.Learnables())
	require.NoError(t, err)
	_, _, err = k.Gradient(x, bags, gk)
	require.NoError(t, err)
	// LLP-VAT alone, weighted as at step 0.
	gV := gorgonia.NewGraph()
	mV, err := models.NewModel(gV, spec, rng.New(cfg.Seed, "init"))
	require.NoError(t, err)
	v, err := loss.NewVAT(be, gV, mV, spec, chunk, vc)
	require.NoError(t, err)
	defer v.Close()
	w := cfg.VATRampup.Weight(0, cfg.Epochs*((len(data.Bags.Bags)+cfg.BatchSize-1)/cfg.BatchSize))
	require.Greater(t, w, 0.0)
	_, err = v.Gradient(x, w, env.Stream("llpvat-direction", 0), gk)
	require.NoError(t, err)
	want := make([][]float64, len(got))
	for i := range want {
		want[i] = make([]float64, len(got[i]))
	}
	require.NoError(t, gk.Read(want))
	for i, p := range model.Learnables() {
		var norm float64
		for _, v := range want[i] {
			norm = math.Max(norm, math.Abs(v))
		}
		for j := range want[i] {
			require.InDelta(t, want[i][j], got[i][j], 1e-6*math.Max(norm, 1e-3), "%s[%d]: llpvat's gradient vs KL's plus w·VAT's", p.Name(), j)
		}
	}
}
