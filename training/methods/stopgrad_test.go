package methods

import (
	"math"
	"testing"

	"github.com/llpfc/llpfc/training/loss"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sinkhornLabels is a stop-gradient objective as optimal-transport
// pseudo-labelling trains (a test's): each bag's targets are its instances'
// predicted distributions rescaled by iters Sinkhorn iterations until the
// bag's soft counts match its proportions (smoothed by δ, so that no column
// is empty) and every row sums to 1, then held constant; the loss is the
// cross-entropy of the softmax of the logits against them, averaged over
// the minibatch's instances: L = −(1/n) Σ_i Σ_c q_ic log p_ic, whose
// gradient at fixed q is (p_ic − q_ic)/n.
type sinkhornLabels struct{ iters int }

func (sinkhornLabels) Head() loss.Head { return loss.HeadLogits }

func (s sinkhornLabels) Loss(out []float64, C int, bags []loss.BagRef, grad []float64) (float64, error) {
	return loss.TargetLoss(s, out, C, bags, grad)
}

func softmaxRow(z []float64) []float64 {
	m := math.Inf(-1)
	for _, v := range z {
		m = math.Max(m, v)
	}
	p := make([]float64, len(z))
	var sum float64
	for c, v := range z {
		p[c] = math.Exp(v - m)
		sum += p[c]
	}
	for c := range p {
		p[c] /= sum
	}
	return p
}

func (s sinkhornLabels) Targets(out []float64, C int, bags []loss.BagRef) ([]float64, error) {
	const delta = 0.01
	q := make([]float64, len(out))
	start := 0
	for _, b := range bags {
		m := len(b.Indices)
		for i := start; i < start+m; i++ {
			copy(q[i*C:(i+1)*C], softmaxRow(out[i*C:(i+1)*C]))
		}
		for range s.iters {
			for c := 0; c < C; c++ {
				var col float64
				for i := start; i < start+m; i++ {
					col += q[i*C+c]
				}
				want := float64(m) * (b.Proportions[c] + delta) / (1 + float64(C)*delta)
				for i := start; i < start+m; i++ {
					q[i*C+c] *= want / col
				}
			}
			for i := start; i < start+m; i++ {
				var row float64
				for c := 0; c < C; c++ {
					row += q[i*C+c]
				}
				for c := 0; c < C; c++ {
					q[i*C+c] /= row
				}
			}
		}
		start += m
	}
	return q, nil
}

func (sinkhornLabels) LossAt(q, out []float64, C int, bags []loss.BagRef, grad []float64) (float64, error) {
	n := len(out) / C
	var l float64
	for i := 0; i < n; i++ {
		p := softmaxRow(out[i*C : (i+1)*C])
		for c := 0; c < C; c++ {
			l -= q[i*C+c] * math.Log(p[c]) / float64(n)
			grad[i*C+c] = (p[c] - q[i*C+c]) / float64(n)
		}
	}
	return l, nil
}

// TestFiniteDifferenceFreezesTargets: a stop-gradient bag objective (the
// Sinkhorn pseudo-labels above, a loss.TargetObjective), registered as a
// new method is, passes the finite-difference check of every bag objective
// (bagGradientError as TestEveryBagObjectiveFiniteDifference runs it, its
// targets frozen at the gradient's point), at every chunk size; with the
// targets recomputed at each perturbed point the same check fails it, by
// far: the freezing is what makes a stop-gradient checkable, not a
// tolerance.
func TestFiniteDifferenceFreezesTargets(t *testing.T) {
	RegisterBag(Descriptor{Name: "test-sinkhorn", Label: "Test-Sinkhorn", Order: 80, DefaultBatch: 4, Search: DefaultSearch,
		Help: "a test's optimal-transport pseudo-labels"},
		BagSpec{Objective: func(*Env) (loss.BagObjective, error) { return sinkhornLabels{iters: 5}, nil }})
	t.Cleanup(func() { Unregister("test-sinkhorn") })
	d := MustLookup("test-sinkhorn")
	for _, chunk := range []int{1, 4, 100} {
		worst := bagGradientError(t, d, chunk, true)
		assert.LessOrEqual(t, worst.err, 1e-6, "chunk %d: %s", chunk, worst.where)
	}
	unfrozen := bagGradientError(t, d, 100, false)
	assert.Greater(t, unfrozen.err, 1e-3, "the targets recomputed at every point: %s", unfrozen.where)

	// Its loss is LossAt at its own targets, and the frozen objective's
	// first loss is the same.
	data, refs := fdBags()
	out := make([]float64, 17*3)
	for i := range out {
		out[i] = float64(data.X[i%len(data.X)])
	}
	g1, g2 := make([]float64, len(out)), make([]float64, len(out))
	l1, err := sinkhornLabels{iters: 5}.Loss(out, 3, refs, g1)
	require.NoError(t, err)
	f := loss.FreezeTargets(sinkhornLabels{iters: 5})
	l2, err := f.Loss(out, 3, refs, g2)
	require.NoError(t, err)
	assert.Equal(t, l1, l2)
	assert.Equal(t, g1, g2)
	require.NotNil(t, f.Frozen())
	for i := range out {
		out[i] += 0.5 * float64(i%3) // moves every softmax
	}
	_, err = f.Loss(out, 3, refs, g2)
	require.NoError(t, err)
	q, _ := sinkhornLabels{iters: 5}.Targets(out, 3, refs)
	assert.NotEqual(t, q, f.Frozen(), "the frozen targets are the first call's")
}
