package loss

import (
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/internal/testutil"
	"github.com/llpfc/llpfc/training/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// klChunkedRun returns the loss and gradient of KLChunked at scale s on f,
// with the model initialized from initSeed.
func klChunkedRun(t *testing.T, f klFixture, initSeed int64, s KLScale) (float64, [][]float64) {
	t.Helper()
	g := gorgonia.NewGraph()
	m, err := models.NewModel(g, f.spec, rng.New(initSeed, "init"))
	require.NoError(t, err)
	k, err := NewKLChunked(cpuBackend, g, m, f.spec, 4)
	require.NoError(t, err)
	defer k.Close()
	if s != 0 {
		k.SetScale(s)
	}
	acc := make([][]float64, len(m.Learnables()))
	for i, p := range m.Learnables() {
		acc[i] = make([]float64, p.Shape().TotalSize())
	}
	loss, _, err := k.Gradient(f.x, f.bags, hostAcc(acc))
	require.NoError(t, err)
	return loss, acc
}

// The KL proportion loss at the authors' scale (their
// compute_kl_loss_on_bagbatch, kllib/train_fun.py@1d0cbc5: Σ over classes,
// mean over bags) is the default. Its value on fixed inputs equals that
// formula evaluated in plain Go on the model's probabilities (a separate
// forward pass), and its gradient is exactly C times the paper's 1/(CB)
// scale, whose gradient TestKLChunkedEqualsWholeBag and
// TestKLLossGradFiniteDifference tie to finite differences.
func TestKLScaleAuthorsFormula(t *testing.T) {
	f := newKLFixture([]int{5, 9, 3}, 4, 3, 3)
	C, B, d := f.spec.NumClasses, len(f.bags), f.spec.Features

	// The model's probabilities on every bagged row, from their own graph.
	g := gorgonia.NewGraph()
	m, err := models.NewModel(g, f.spec, rng.New(4, "init"))
	require.NoError(t, err)
	n := len(f.x) / d
	xs := make([]float64, len(f.x))
	for i, v := range f.x {
		xs[i] = float64(v)
	}
	z, err := m.Forward(testutil.ConstInput(g, "x", tensor.Shape{n, d}, xs), true)
	require.NoError(t, err)
	p, err := gorgonia.SoftMax(z)
	require.NoError(t, err)
	vm := gorgonia.NewTapeMachine(g)
	require.NoError(t, vm.RunAll())
	probs := append([]float64(nil), p.Value().Data().([]float64)...)
	vm.Close()

	authors := 0.0 // −(1/B) Σ_k Σ_c γ̂_k(c) log(mean_j p_j(c))
	for _, b := range f.bags {
		for c := 0; c < C; c++ {
			mean := 0.0
			for _, r := range b.Indices {
				mean += probs[r*C+c]
			}
			mean /= float64(len(b.Indices))
			authors -= b.Proportions[c] * math.Log(mean+KLFloor) / float64(B)
		}
	}
	lossA, gradA := klChunkedRun(t, f, 4, KLScaleAuthors)
	lossDefault, gradDefault := klChunkedRun(t, f, 4, 0)
	lossP, gradP := klChunkedRun(t, f, 4, KLScalePaper)
	assert.InDelta(t, authors, lossA, 1e-12, "the authors' formula")
	assert.Equal(t, lossA, lossDefault, "the default is the authors' scale")
	assert.Equal(t, gradA, gradDefault)
	assert.InDelta(t, float64(C)*lossP, lossA, 1e-12, "the paper's loss is 1/C of the authors'")
	for i := range gradA {
		for j := range gradA[i] {
			assert.InDelta(t, float64(C)*gradP[i][j], gradA[i][j], 1e-12*math.Max(1, math.Abs(gradA[i][j])), "param %d[%d]", i, j)
		}
	}
	_, err = ParseKLScale("per-class")
	assert.ErrorContains(t, err, "per-class")
}
