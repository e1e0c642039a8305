package estimators

import (
	"fmt"
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

// TestDiagnosticsResidualIsEuclidean checks Diagnostics.Residual, the
// distance ‖Γ̂_iᵀα̂_i − σ̂‖₂ of a group's mixture from σ̂, against gonum's
// matrix-vector product and 2-norm on random bag sets in the uniform and
// approx modes (where it is not zero), so a squared or 1-norm residual fails.
func TestDiagnosticsResidualIsEuclidean(t *testing.T) {
	for _, mode := range []Mode{ModeUniform, ModeApprox} {
		for seed := int64(1); seed <= 5; seed++ {
			t.Run(fmt.Sprintf("%v_seed=%d", mode, seed), func(t *testing.T) {
				set := randomBagSet(rng.New(seed, "residual-bags"), 3, 9, 0)
				red, err := BuildSeed(set, Options{Mode: mode}, seed)
				require.NoError(t, err)
				nonzero := false
				for i, g := range red.Groups {
					var mix mat.VecDense
					mix.MulVec(g.Gamma.T(), mat.NewVecDense(len(g.Alpha), append([]float64(nil), g.Alpha...)))
					mix.SubVec(&mix, mat.NewVecDense(len(red.SigmaHat), append([]float64(nil), red.SigmaHat...)))
					want := mat.Norm(&mix, 2)
					nonzero = nonzero || want > 1e-3
					assert.InDelta(t, want, g.Diagnostics.Residual, 1e-12, "group %d: residual %v, want ‖Γ̂ᵀα̂ − σ̂‖₂ = %v", i, g.Diagnostics.Residual, want)
				}
				require.True(t, nonzero || mode == ModeApprox, "uniform mode with every residual below 1e-3: the case cannot tell a squared norm")
			})
		}
	}
}

// TestMergeAssignmentProbabilities checks MergeAssignment's distribution for
// one bag against its closed form. The first C draws seed mega-bag c with a
// uniformly random bag (a partial Fisher–Yates shuffle: P(bag k seeds c) =
// 1/M for each c, M bags), and every other bag joins mega-bag c with
// probability γ(c)^t/Σ_j γ(j)^t (t the sharpness, default 10), so
//
//	P(bag k in mega-bag c) = 1/M + (1 − C/M)·γ_k(c)^t/Σ_j γ_k(j)^t.
//
// Over 20,000 seeds each class's frequency is within 5 binomial standard
// deviations of it, for the default sharpness and t = 1.
func TestMergeAssignmentProbabilities(t *testing.T) {
	const draws = 20000
	gammaK := []float64{0.45, 0.35, 0.2}
	set := &BagSet{NumClasses: 3, Bags: []Bag{{ID: 0, Size: 4, Proportions: gammaK}}}
	for id := 1; id < 10; id++ { // M = 10 bags
		set.Bags = append(set.Bags, Bag{ID: id, Size: 4, Proportions: []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}})
	}
	M, C := float64(len(set.Bags)), float64(set.NumClasses)
	for _, sharp := range []float64{0, 1} { // 0: the default, 10
		t.Run(fmt.Sprintf("sharpness=%v", sharp), func(t *testing.T) {
			tt := sharp
			if tt == 0 {
				tt = DefaultMergeSharpness
			}
			var z float64
			for _, g := range gammaK {
				z += math.Pow(g, tt)
			}
			counts := make([]float64, 3)
			r := rng.New(5, "merge-probabilities")
			for i := 0; i < draws; i++ {
				mega, err := MergeAssignment(set, Options{Mode: ModeMerge, MergeSharpness: sharp}, r)
				require.NoError(t, err)
				counts[mega[0]]++
			}
			for c, g := range gammaK {
				p := 1/M + (1-C/M)*math.Pow(g, tt)/z
				sd := math.Sqrt(draws * p * (1 - p))
				assert.InDelta(t, p*draws, counts[c], 5*sd, "class %d: %v of %d draws, want %v", c, counts[c], draws, p*draws)
			}
		})
	}
}
