package theory

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHMWeights(t *testing.T) {
	for _, tc := range []struct {
		name      string
		n         [][]float64
		wantW     []float64
		wantValue float64
	}{
		// HM = (1, 2) → w = (1/3, 2/3); value √(C/ΣHM) = √(2/3).
		{"two groups", [][]float64{{1, 1}, {2, 2}}, []float64{1. / 3, 2. / 3}, math.Sqrt(2. / 3)},
		// HM = 2/(1+1/3) = 3/2 → value √(2/(3/2)).
		{"one group", [][]float64{{1, 3}}, []float64{1}, math.Sqrt(4. / 3)},
		// HM_1 = 3/(1/2+1/6+1/3) = 3, HM_2 = 3/(3/3) = 3 → equal weights, √(3/6).
		{"equal HM", [][]float64{{2, 6, 3}, {3, 3, 3}}, []float64{.5, .5}, math.Sqrt(.5)},
		// Equal bag sizes n, N groups: value √(C/(Nn)) (Section 4.3).
		{"equal sizes", [][]float64{{5, 5, 5}, {5, 5, 5}, {5, 5, 5}, {5, 5, 5}}, []float64{.25, .25, .25, .25}, math.Sqrt(3. / 20)},
	} {
		w, v, err := HMWeights(tc.n)
		require.NoErrorf(t, err, "%s: %v", tc.name, err)
		for i := range w {
			assert.InDeltaf(t, tc.wantW[i], w[i], 1e-15, "%s: w[%d] = %g, want %g", tc.name, i, w[i], tc.wantW[i])
		}
		assert.InDeltaf(t, tc.wantValue, v, 1e-15, "%s: value %g, want %g", tc.name, v, tc.wantValue)
		wt, err := WeightTerm(w, tc.n)
		require.NoError(t, err)
		assert.InDeltaf(t, tc.wantValue, wt, 1e-15, "%s: WeightTerm(HM weights) = %g, want %g", tc.name, wt, tc.wantValue)
	}
}

func TestHarmonicMean(t *testing.T) {
	hm, err := HarmonicMean([]float64{2, 6, 3})
	assert.NoError(t, err)
	assert.InDeltaf(t, 3, hm, 1e-15, "HM(2,6,3) = %g; want 3", hm)
}

func TestAlphaWeightTerm(t *testing.T) {
	// √(1·(0.25/2 + 0.25/2)) = 0.5.
	v, err := AlphaWeightTerm([]float64{1}, [][]float64{{.5, .5}}, [][]float64{{2, 2}})
	assert.NoError(t, err)
	assert.InDeltaf(t, 0.5, v, 1e-15, "AlphaWeightTerm = %g; want 0.5", v)
	// Two groups, w = (1/2, 1/2): b = (0.01/1 + 0.81/9, 0.25/4 + 0.25/4) = (0.1, 0.125);
	// term = √(0.25·0.1 + 0.25·0.125) = √0.05625.
	alpha := [][]float64{{.1, .9}, {.5, .5}}
	n := [][]float64{{1, 9}, {4, 4}}
	v, err = AlphaWeightTerm([]float64{.5, .5}, alpha, n)
	assert.NoError(t, err)
	assert.InDeltaf(t, math.Sqrt(0.05625), v, 1e-15, "AlphaWeightTerm = %g; want √0.05625", v)
	// Optimal: w ∝ (1/0.1, 1/0.125) = (10, 8) → (5/9, 4/9), value 1/√18.
	w, val, err := AlphaOptimalWeights(alpha, n)
	require.NoError(t, err)
	assert.InDeltaf(t, 5./9, w[0], 1e-15, "AlphaOptimalWeights = %v, %g; want (5/9, 4/9), 1/√18", w, val)
	assert.InDeltaf(t, 4./9, w[1], 1e-15, "AlphaOptimalWeights = %v, %g; want (5/9, 4/9), 1/√18", w, val)
	assert.InDeltaf(t, 1/math.Sqrt(18), val, 1e-15, "AlphaOptimalWeights = %v, %g; want (5/9, 4/9), 1/√18", w, val)
	at, _ := AlphaWeightTerm(w, alpha, n)
	assert.InDeltaf(t, val, at, 1e-15, "AlphaWeightTerm at the optimum %g, want %g", at, val)
	// Never above WeightTerm (α_i(c) ≤ 1).
	wt, _ := WeightTerm([]float64{.5, .5}, n)
	assert.LessOrEqualf(t, v, wt, "AlphaWeightTerm %g > WeightTerm %g", v, wt)
}

func TestWeightsErrors(t *testing.T) {
	n := [][]float64{{1, 2}, {3, 4}}
	for _, tc := range []struct {
		name, want string
		err        error
	}{
		{"no groups", "n: no groups", func() error { _, _, err := HMWeights(nil); return err }()},
		{"zero count", "n[1][0]: is 0", func() error { _, _, err := HMWeights([][]float64{{1, 2}, {0, 1}}); return err }()},
		{"ragged", "n[1]: has 1 entries", func() error { _, _, err := HMWeights([][]float64{{1, 2}, {1}}); return err }()},
		{"NaN count", "n[0][1]", func() error { _, err := HarmonicMean([]float64{1, math.NaN()}); return err }()},
		{"w not simplex", "w: entries sum", func() error { _, err := WeightTerm([]float64{.5, .6}, n); return err }()},
		{"w length", "w: has 1 entries, want N=2", func() error { _, err := WeightTerm([]float64{1}, n); return err }()},
		{"alpha groups", "alpha: has 1 groups", func() error {
			_, err := AlphaWeightTerm([]float64{.5, .5}, [][]float64{{.5, .5}}, n)
			return err
		}()},
		{"alpha row", "alpha[1]: entry 0", func() error {
			_, _, err := AlphaOptimalWeights([][]float64{{.5, .5}, {-.5, 1.5}}, n)
			return err
		}()},
	} {
		assert.ErrorContainsf(t, tc.err, tc.want, "%s: error %v, want one containing %q", tc.name, tc.err, tc.want)
	}
}
