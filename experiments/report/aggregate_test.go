package report

import (
	"fmt"
	"math"
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAggregateKeepsSeedsWithTheirCells checks aggregate on cells stored in
// a scrambled seed order against the obvious computation: the seeds come
// back sorted, each with the key of its own cell (a seed paired with another
// seed's cell would mislabel the report's per-seed rows), and the mean and
// population standard deviation, √(Σ(x − x̄)²/n), of the cells' test
// accuracies, computed here in two plain passes.
func TestAggregateKeepsSeedsWithTheirCells(t *testing.T) {
	seeds := []int64{7, 2, 5, 1}
	acc := []float64{0.61, 0.74, 0.58, 0.69}
	byKey := map[string]*grid.Result{}
	st := Stat{N: len(seeds)}
	for i, s := range seeds {
		key := fmt.Sprintf("cell-seed-%d", s)
		byKey[key] = &grid.Result{Metrics: experiments.Metrics{TestAccuracy: acc[i]}}
		st.Seeds = append(st.Seeds, s)
		st.Keys = append(st.Keys, key)
	}
	got, err := aggregate(st, byKey, "")
	require.NoError(t, err)
	assert.Equal(t, []int64{1, 2, 5, 7}, got.Seeds)
	for i, s := range got.Seeds {
		assert.Equal(t, fmt.Sprintf("cell-seed-%d", s), got.Keys[i], "seed %d paired with another seed's cell", s)
	}
	var mean, ss float64
	for _, a := range acc {
		mean += a / float64(len(acc))
	}
	for _, a := range acc {
		ss += (a - mean) * (a - mean)
	}
	assert.InDelta(t, mean, got.Mean, 1e-15)
	assert.InDelta(t, math.Sqrt(ss/float64(len(acc))), got.Std, 1e-15)
}
