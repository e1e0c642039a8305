package report

import (
	"bytes"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/training"
)

// Without ties Spearman's ρ is 1 − 6Σd²/(n(n²−1)) (d: rank differences); a
// monotone map gives ±1; ties share their mean rank.
func TestSpearman(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 100; trial++ {
		n := 3 + r.IntN(20)
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], y[i] = r.Float64(), r.Float64()
		}
		rx, ry := ranks(x), ranks(y)
		d2 := 0.0
		for i := range rx {
			d2 += (rx[i] - ry[i]) * (rx[i] - ry[i])
		}
		assert.InDelta(t, 1-6*d2/float64(n*(n*n-1)), Spearman(x, y), 1e-12)
	}
	assert.InDelta(t, -1, Spearman([]float64{1, 10, 100, 1000}, []float64{0.9, 0.8, 0.5, 0.1}), 1e-12)
	assert.Equal(t, []float64{1, 2.5, 2.5, 4}, ranks([]float64{1, 5, 5, 9}))
	assert.True(t, math.IsNaN(Spearman([]float64{1, 2}, []float64{1, 2})), "fewer than 3 pairs")
}

// trouble results: LLPFC cells whose accuracy falls as their groups' median
// ‖T̂⁻¹‖₁ grows, and KL cells.
func troubleResults(rising bool) []*grid.Result {
	var out []*grid.Result
	for i, inv := range []float64{50, 100, 400, 1600} {
		acc := 0.85 - 0.05*float64(i)
		if rising {
			acc = 0.6 + 0.05*float64(i)
		}
		uni := estimators.GroupingSummary{InvNorm1Median: inv}
		out = append(out, &grid.Result{Key: "u" + string(rune('a'+i)), Config: experiments.Config{Method: "llpfc-approx", Protocol: "shuffle", BagSize: 16 << (2 * i)},
			Metrics: experiments.Metrics{TestAccuracy: acc, Regroupings: []training.Regrouping{
				{Epoch: 0, Groups: estimators.GroupingSummary{InvNorm1Median: math.Inf(1)}, Uniform: &uni},
				{Epoch: 5, Groups: estimators.GroupingSummary{InvNorm1Median: math.Inf(1)}, Uniform: &estimators.GroupingSummary{InvNorm1Median: inv * 4}},
			}}})
		out = append(out, &grid.Result{Key: "k" + string(rune('a'+i)), Config: experiments.Config{Method: "kl", Protocol: "shuffle", BagSize: 16 << (2 * i)},
			Metrics: experiments.Metrics{TestAccuracy: 0.7}})
	}
	return out
}

// A cell's ‖T̂⁻¹‖₁ is the geometric mean over its regroupings of the median,
// from the uniform-prior summary where there is one; KL cells have none.
func TestTroublePoints(t *testing.T) {
	pts := TroublePoints(troubleResults(false))
	require.Len(t, pts, 8)
	assert.Equal(t, "kl", pts[0].Method, "baselines first, as in the paper's tables")
	assert.Zero(t, pts[0].InvNorm1)
	assert.InDelta(t, math.Sqrt(50*200), pts[4].InvNorm1, 1e-9)
	assert.Equal(t, 16, pts[4].BagSize)
}

// The section states the correlation's sign and whether it contradicts the
// theory, and the means above and below the warning threshold.
func TestTroubleMarkdown(t *testing.T) {
	var falling, rising bytes.Buffer
	TroubleMarkdown(&falling, TroublePoints(troubleResults(false)))
	TroubleMarkdown(&rising, TroublePoints(troubleResults(true)))
	assert.Contains(t, falling.String(), "ρ = -1.00 over all cells")
	assert.Contains(t, falling.String(), "Negative, as the theory expects")
	assert.Contains(t, rising.String(), "Positive: this contradicts the expectation")
	flat := troubleResults(false)
	for i, acc := range []float64{0.80, 0.82, 0.79, 0.81} { // no monotone trend: ρ = 0
		flat[2*i].Metrics.TestAccuracy = acc
	}
	var none0 bytes.Buffer
	TroubleMarkdown(&none0, TroublePoints(flat))
	assert.Contains(t, none0.String(), "No clear relation")
	assert.Contains(t, falling.String(), "above the warning threshold 150 (`estimators.TroubleInvNorm1`): mean accuracy 0.7500 over 3 cells; at or below: mean accuracy 0.8500 over 1 cell")
	var none bytes.Buffer
	TroubleMarkdown(&none, nil)
	assert.Contains(t, none.String(), "No LLPFC cell has finished yet")
}

// The plot is a PNG of two panels side by side.
func TestTroublePlot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trouble.png")
	if p := os.Getenv("LLPFC_KEEP_PLOT"); p != "" {
		path = p
	}
	require.NoError(t, TroublePlot(path, TroublePoints(troubleResults(false))))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	b := img.Bounds()
	assert.Greater(t, b.Dx(), 2*b.Dy(), "two panels side by side")
}
