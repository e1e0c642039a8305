package loss

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/internal/testutil"
	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// klFixture is a small minibatch of bags over a random N×D matrix.
type klFixture struct {
	x    []float32
	bags []BagRef
	spec nn.ModelSpec
}

func newKLFixture(sizes []int, d, c int, seed int64) klFixture {
	s := rng.New(seed, "kl-fixture")
	n := 0
	for _, m := range sizes {
		n += m
	}
	x := make([]float32, (n+3)*d)
	for i := range x {
		x[i] = float32(4*s.Float64() - 2)
	}
	perm := s.Perm(n + 3) // bags take a scattered subset of the rows
	var bags []BagRef
	at := 0
	for _, m := range sizes {
		p := testutil.RandSlice(s, c, 0, 1)
		sum := 0.0
		for _, v := range p {
			sum += v
		}
		for i := range p {
			p[i] /= sum
		}
		bags = append(bags, BagRef{Indices: append([]int(nil), perm[at:at+m]...), Proportions: p})
		at += m
	}
	return klFixture{x: x, bags: bags, spec: nn.ModelSpec{Name: "test-tiny", Features: d, NumClasses: c, Dtype: tensor.Float64}}
}

// wholeBagGraph builds the reference KLLoss over all instances of f.bags.
func (f klFixture) wholeBagGraph(t *testing.T, initSeed int64) (*gorgonia.ExprGraph, *gorgonia.Node, nn.Model) {
	t.Helper()
	g := gorgonia.NewGraph()
	m, err := models.NewModel(g, f.spec, rng.New(initSeed, "init"))
	require.NoError(t, err)
	d, c := f.spec.InputDim(), f.spec.NumClasses
	var xs []float64
	var n int
	for _, b := range f.bags {
		for _, r := range b.Indices {
			for _, v := range f.x[r*d : (r+1)*d] {
				xs = append(xs, float64(v))
			}
			n++
		}
	}
	avg := make([]float64, len(f.bags)*n)
	props := make([]float64, len(f.bags)*c)
	at := 0
	for k, b := range f.bags {
		for range b.Indices {
			avg[k*n+at] = 1 / float64(len(b.Indices))
			at++
		}
		copy(props[k*c:], b.Proportions)
	}
	z, err := m.Forward(testutil.ConstInput(g, "x", f.spec.InputShape(n), xs), true)
	require.NoError(t, err)
	loss, err := KLLoss(z, testutil.ConstInput(g, "avg", tensor.Shape{len(f.bags), n}, avg), testutil.ConstInput(g, "props", tensor.Shape{len(f.bags), c}, props))
	require.NoError(t, err)
	return g, loss, m
}

// TestKLLossGradFiniteDifference checks the whole-bag KL loss gradient
// against central finite differences on a tiny network.
func TestKLLossGradFiniteDifference(t *testing.T) {
	f := newKLFixture([]int{4, 6}, 3, 3, 1)
	g, loss, m := f.wholeBagGraph(t, 2)
	testutil.CheckGradFD(t, g, loss, m.Learnables(), 1e-6, 1e-7)
}

// TestKLChunkedEqualsWholeBag checks that the two-pass chunked gradient
// equals the whole-bag gradient (within 1e-5, in practice ~1e-15 in float64)
// for chunk sizes that split bags, straddle bag boundaries and exceed the
// minibatch, and that the losses agree.
func TestKLChunkedEqualsWholeBag(t *testing.T) {
	f := newKLFixture([]int{5, 9, 3}, 4, 3, 3)
	g, loss, m := f.wholeBagGraph(t, 4)
	grads, err := gorgonia.Grad(loss, m.Learnables()...)
	require.NoError(t, err)
	vm := gorgonia.NewTapeMachine(g)
	require.NoError(t, vm.RunAll())
	wantLoss, _ := nn.ScalarOf(loss.Value())
	var want [][]float64
	for _, gn := range grads {
		want = append(want, append([]float64(nil), gn.Value().Data().([]float64)...))
	}
	vm.Close()
	for _, chunk := range []int{1, 4, 7, 17, 100} {
		g2 := gorgonia.NewGraph()
		m2, err := models.NewModel(g2, f.spec, rng.New(4, "init"))
		require.NoError(t, err)
		k, err := NewKLChunked(cpuBackend, g2, m2, f.spec, chunk)
		require.NoError(t, err)
		k.SetScale(KLScalePaper) // KLLoss is the paper's −1/(CB)·Σ
		acc := make([][]float64, len(want))
		for i := range acc {
			acc[i] = make([]float64, len(want[i]))
		}
		got, n, err := k.Gradient(f.x, f.bags, hostAcc(acc))
		k.Close()
		require.NoError(t, err)
		assert.Equal(t, 17, n, "chunk %d: %d instances, want 17", chunk, n)
		assert.InDelta(t, wantLoss, got, 1e-12, "chunk %d: loss %.15g, whole-bag %.15g", chunk, got, wantLoss)
		for i := range want {
			for j := range want[i] {
				if d := math.Abs(acc[i][j] - want[i][j]); d > 1e-5 || math.IsNaN(d) {
					t.Errorf("chunk %d: param %d[%d]: chunked %.12g, whole-bag %.12g", chunk, i, j, acc[i][j], want[i][j])
				}
			}
		}
	}
}

func TestKLChunkedErrors(t *testing.T) {
	f := newKLFixture([]int{2}, 2, 2, 5)
	g := gorgonia.NewGraph()
	m, _ := models.NewModel(g, f.spec, rng.New(1, "init"))
	if _, err := NewKLChunked(cpuBackend, g, m, f.spec, 0); err == nil {
		t.Error("chunk 0: no error")
	}
	k, err := NewKLChunked(cpuBackend, g, m, f.spec, 2)
	require.NoError(t, err)
	defer k.Close()
	acc := make([][]float64, len(m.Learnables()))
	for i, p := range m.Learnables() {
		acc[i] = make([]float64, p.Shape().TotalSize())
	}
	for name, bags := range map[string][]BagRef{
		"no bags":     nil,
		"empty bag":   {{Proportions: []float64{1, 0}}},
		"bad row":     {{Indices: []int{99}, Proportions: []float64{1, 0}}},
		"wrong props": {{Indices: []int{0}, Proportions: []float64{1}}},
	} {
		if _, _, err := k.Gradient(f.x, bags, hostAcc(acc)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func init() {
	models.RegisterModel("wrn-10-1", func(g *gorgonia.ExprGraph, spec nn.ModelSpec, rng *rand.Rand) (nn.Model, error) {
		return models.NewWideResNet(g, spec, 10, 1, rng)
	})
}

// wholeBagGrads runs f's whole-bag KL graph (wholeBagGraph) once and
// returns the flattened parameter gradient, the loss and the model.
func (f klFixture) wholeBagGrads(t *testing.T, initSeed int64) ([]float64, float64, nn.Model) {
	t.Helper()
	g, l, m := f.wholeBagGraph(t, initSeed)
	gn, err := gorgonia.Grad(l, m.Learnables()...)
	require.NoError(t, err)
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	require.NoError(t, vm.RunAll())
	var grads []float64
	for _, n := range gn {
		grads = append(grads, n.Value().Data().([]float64)...)
	}
	loss, err := nn.ScalarOf(l.Value())
	require.NoError(t, err)
	return grads, loss, m
}

// bnReference is one forward and backward pass of the whole minibatch
// through a batch-norm model built with gorgonia's composite batch norm
// (not the fused op the chunked loss drives): the gradient, the loss and
// the running statistics after one update, as the authors' code computes
// them (statistics over the minibatch).
func bnReference(t *testing.T, f klFixture) (grads []float64, loss float64, running []float64) {
	t.Helper()
	old := nn.FusedBatchNorm
	nn.FusedBatchNorm = false
	defer func() { nn.FusedBatchNorm = old }()
	grads, loss, m := f.wholeBagGrads(t, 4)
	bn := m.(nn.BatchNormModel)
	require.NoError(t, bn.UpdateRunningStats())
	for _, n := range bn.RunningStats() {
		running = append(running, n.Value().Data().([]float64)...)
	}
	return grads, loss, running
}

// chunkedBN runs KLChunked once on f with the given chunk size and
// statistics; it returns the flattened gradient, the loss and the running
// statistics after the call.
func chunkedBN(t *testing.T, f klFixture, chunk int, stats nn.BNStats) (grads []float64, loss float64, running []float64) {
	t.Helper()
	g := gorgonia.NewGraph()
	m, err := models.NewModel(g, f.spec, rng.New(4, "init"))
	require.NoError(t, err)
	k, err := NewKLChunked(cpuBackend, g, m, f.spec, chunk)
	require.NoError(t, err)
	defer k.Close()
	k.SetScale(KLScalePaper) // KLLoss is the paper's −1/(CB)·Σ
	k.SetBNStats(stats)
	acc := make([][]float64, len(m.Learnables()))
	for i, p := range m.Learnables() {
		acc[i] = make([]float64, p.Shape().TotalSize())
	}
	loss, _, err = k.Gradient(f.x, f.bags, hostAcc(acc))
	require.NoError(t, err)
	for _, a := range acc {
		grads = append(grads, a...)
	}
	for _, n := range m.(nn.BatchNormModel).RunningStats() {
		running = append(running, n.Value().Data().([]float64)...)
	}
	return grads, loss, running
}

// TestKLChunkedExactBatchNorm checks the authors' batch norm over the whole
// minibatch in a chunked KL loss: with BNStatsMinibatch, KLChunked's loss,
// gradient and running statistics equal one pass of the whole minibatch
// through the composite (unfused) batch norm — within 1e-9 in float64, the
// issue asks 1e-5 — for chunks that split the minibatch evenly, leave a
// padded last chunk, hold one instance, or hold the whole minibatch with
// padding. The models: cnn-bn (two batch-norm layers in a chain) and
// WRN-10-1 (the wrn-16-4 code at depth 10, width 1: 7 layers, residual
// paths, so a layer's input depends on several earlier layers' statistics). With BNStatsChunk and several chunks the
// gradient differs (each chunk's own statistics), which is what the
// statistics and adjoint sweeps correct.
func TestKLChunkedExactBatchNorm(t *testing.T) {
	for _, spec := range []nn.ModelSpec{
		{Name: "cnn-bn", Channels: 1, Height: 4, Width: 4, NumClasses: 3, Dtype: tensor.Float64},
		{Name: "wrn-10-1", Channels: 2, Height: 4, Width: 4, NumClasses: 3, Dtype: tensor.Float64},
	} {
		t.Run(spec.Name, func(t *testing.T) {
			f := newKLFixture([]int{5, 7}, spec.InputDim(), 3, 9)
			f.spec = spec
			want, wantLoss, wantRun := bnReference(t, f)
			for _, chunk := range []int{12, 16, 4, 5, 1} {
				got, loss, run := chunkedBN(t, f, chunk, nn.BNStatsMinibatch)
				assert.InDelta(t, wantLoss, loss, 1e-12, "chunk %d: loss", chunk)
				assert.Less(t, testutil.MaxAbsDiff(got, want), 1e-9, "chunk %d: gradient", chunk)
				assert.Less(t, testutil.MaxAbsDiff(run, wantRun), 1e-12, "chunk %d: running statistics", chunk)
			}
			got, _, _ := chunkedBN(t, f, 12, nn.BNStatsChunk)
			assert.Less(t, testutil.MaxAbsDiff(got, want), 1e-9, "chunk statistics, one chunk of the whole minibatch: exact")
			got, _, _ = chunkedBN(t, f, 5, nn.BNStatsChunk)
			assert.Greater(t, testutil.MaxAbsDiff(got, want), 1e-4, "chunk statistics, chunks of 5: a different gradient")
		})
	}
}

// TestKLChunkedExactBatchNormRefusesUnfused: whole-minibatch statistics in
// several chunks need the fused op; a model built with the composite batch
// norm is refused with a clear error rather than trained per chunk.
func TestKLChunkedExactBatchNormRefusesUnfused(t *testing.T) {
	old := nn.FusedBatchNorm
	nn.FusedBatchNorm = false
	defer func() { nn.FusedBatchNorm = old }()
	f := newKLFixture([]int{5, 7}, 16, 3, 9)
	f.spec = nn.ModelSpec{Name: "cnn-bn", Channels: 1, Height: 4, Width: 4, NumClasses: 3, Dtype: tensor.Float64}
	g := gorgonia.NewGraph()
	m, err := models.NewModel(g, f.spec, rng.New(4, "init"))
	require.NoError(t, err)
	k, err := NewKLChunked(cpuBackend, g, m, f.spec, 4)
	require.NoError(t, err)
	defer k.Close()
	acc := make([][]float64, len(m.Learnables()))
	for i, p := range m.Learnables() {
		acc[i] = make([]float64, p.Shape().TotalSize())
	}
	_, _, err = k.Gradient(f.x, f.bags, hostAcc(acc))
	require.ErrorIs(t, err, nn.ErrUnfusedBatchNorm)
	k.SetBNStats(nn.BNStatsChunk)
	_, _, err = k.Gradient(f.x, f.bags, hostAcc(acc))
	assert.NoError(t, err, "chunk statistics need no sweep")
}
