package learn

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/bagproto"
	"github.com/llpfc/llpfc/experiments/data"
)

// The paper's theory predicts where LLPFC breaks. On the
// Fashion-MNIST fixture (40,960 points, seed 0, uniform mode, 5 groupings) the
// median ‖T̂⁻¹‖₁ of the groups stays below estimators.TroubleInvNorm1 for the
// paper's Dirichlet(1) bags at every bag size, and exceeds it for the shuffle
// protocol's near-uniform bags from bag size 64 on, growing with the bag size
// (proportions concentrate at the class prior as 1/√B).
func TestPredictTroubleSeparatesProtocols(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the 60,000-image fixture")
	}
	d, err := data.Load(experiments.FashionFixture, "", data.Train)
	require.NoError(t, err)
	median := func(protocol string, B int) float64 {
		p, err := bagproto.ParseProtocol(protocol)
		require.NoError(t, err)
		res, err := bagproto.Make(d.Y, d.NumClasses, bagproto.Config{Protocol: p, BagSize: B, NumPoints: 40960, Seed: 0})
		require.NoError(t, err)
		s, err := estimators.PredictTrouble(res.Bags, estimators.Options{Mode: estimators.ModeUniform}, 0, 5)
		require.NoError(t, err)
		// Findings (PAPER_MAP): with C = 10 bags per group, Assumption
		// `grouping assumption: ch` fails in (nearly) every group under both
		// protocols, so LLPFC-ideal cannot run; and Algorithm 3's α̂ has zero
		// entries in every group, so approx's own T̂ is singular.
		assert.Greater(t, s.AssumptionFails, 0.95, "%s, bag size %d: groups violating the assumption", protocol, B)
		ap, err := estimators.PredictTrouble(res.Bags, estimators.Options{Mode: estimators.ModeApprox}, 0, 2)
		require.NoError(t, err)
		assert.Greater(t, ap.Singular, 0.95, "%s, bag size %d: approx groups with a singular T̂", protocol, B)
		return s.InvNorm1Median
	}
	prev := 0.0
	for _, B := range []int{16, 64, 256, 1024} {
		paper, shuffle := median("paper", B), median("shuffle", B)
		t.Logf("bag size %4d: median ‖T̂⁻¹‖₁ paper %.4g, shuffle %.4g", B, paper, shuffle)
		assert.Less(t, paper, float64(estimators.TroubleInvNorm1), "paper protocol, bag size %d", B)
		if B >= 64 {
			assert.Greater(t, shuffle, float64(estimators.TroubleInvNorm1), "shuffle protocol, bag size %d", B)
		}
		assert.Greater(t, shuffle, prev, "shuffle protocol: the median grows with the bag size (%d)", B)
		prev = shuffle
	}
}
