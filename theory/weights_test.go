package theory

import (
	"math"
	"strings"
	"testing"
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
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for i := range w {
			if math.Abs(w[i]-tc.wantW[i]) > 1e-15 {
				t.Errorf("%s: w[%d] = %g, want %g", tc.name, i, w[i], tc.wantW[i])
			}
		}
		if math.Abs(v-tc.wantValue) > 1e-15 {
			t.Errorf("%s: value %g, want %g", tc.name, v, tc.wantValue)
		}
		wt, err := WeightTerm(w, tc.n)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(wt-tc.wantValue) > 1e-15 {
			t.Errorf("%s: WeightTerm(HM weights) = %g, want %g", tc.name, wt, tc.wantValue)
		}
	}
}

func TestHarmonicMean(t *testing.T) {
	hm, err := HarmonicMean([]float64{2, 6, 3})
	if err != nil || math.Abs(hm-3) > 1e-15 {
		t.Errorf("HM(2,6,3) = %g, %v; want 3", hm, err)
	}
}

func TestAlphaWeightTerm(t *testing.T) {
	// √(1·(0.25/2 + 0.25/2)) = 0.5.
	v, err := AlphaWeightTerm([]float64{1}, [][]float64{{.5, .5}}, [][]float64{{2, 2}})
	if err != nil || math.Abs(v-0.5) > 1e-15 {
		t.Errorf("AlphaWeightTerm = %g, %v; want 0.5", v, err)
	}
	// Two groups, w = (1/2, 1/2): b = (0.01/1 + 0.81/9, 0.25/4 + 0.25/4) = (0.1, 0.125);
	// term = √(0.25·0.1 + 0.25·0.125) = √0.05625.
	alpha := [][]float64{{.1, .9}, {.5, .5}}
	n := [][]float64{{1, 9}, {4, 4}}
	v, err = AlphaWeightTerm([]float64{.5, .5}, alpha, n)
	if err != nil || math.Abs(v-math.Sqrt(0.05625)) > 1e-15 {
		t.Errorf("AlphaWeightTerm = %g, %v; want √0.05625", v, err)
	}
	// Optimal: w ∝ (1/0.1, 1/0.125) = (10, 8) → (5/9, 4/9), value 1/√18.
	w, val, err := AlphaOptimalWeights(alpha, n)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(w[0]-5./9) > 1e-15 || math.Abs(w[1]-4./9) > 1e-15 || math.Abs(val-1/math.Sqrt(18)) > 1e-15 {
		t.Errorf("AlphaOptimalWeights = %v, %g; want (5/9, 4/9), 1/√18", w, val)
	}
	at, _ := AlphaWeightTerm(w, alpha, n)
	if math.Abs(at-val) > 1e-15 {
		t.Errorf("AlphaWeightTerm at the optimum %g, want %g", at, val)
	}
	// Never above WeightTerm (α_i(c) ≤ 1).
	wt, _ := WeightTerm([]float64{.5, .5}, n)
	if v > wt {
		t.Errorf("AlphaWeightTerm %g > WeightTerm %g", v, wt)
	}
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
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, tc.err, tc.want)
		}
	}
}
