package grid

import (
	"maps"
	"slices"
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/training"
	"github.com/llpfc/llpfc/training/methods"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSpecTuneGivesEveryMethodItsSpace: a spec with "tune" gives
// every cell its method's search space from the registry — the same number
// of trials for every method, LLPFC and KL included — with the rate (and a
// searched minibatch) left 0; an override's rate under "tune" is refused
// naming it (it was dropped without a word), its own search kept; without
// held-out bags the spec is refused.
func TestSpecTuneGivesEveryMethodItsSpace(t *testing.T) {
	s := fashionMNISTSpec()
	s.Tune = true
	s.Hyper.ValBags = 0.1
	_, err := s.Cells()
	require.ErrorContains(t, err, `.set: hyper.lr under "tune", which searches it for`)
	require.ErrorContains(t, err, `{"hyper": {"search": {"lr": [VALUE]}}} in the override, or leave "tune" out`)
	for i := range s.Overrides {
		s.Overrides[i] = s.Overrides[i].without("lr")
	}
	cells, err := s.Cells()
	require.NoError(t, err)
	require.NoError(t, s.Validate())
	trials := map[int]bool{}
	for _, c := range cells {
		h := c.Config.Hyper
		require.NotNil(t, h.Search, c.Config.Method)
		d, _ := experiments.Method(c.Config.Method)
		assert.Equal(t, d.Search.LR, h.Search.LR, c.Config.Method)
		assert.Zero(t, h.LR, "%s: the cell's rate is the search's", c.Config.Method)
		trials[h.Search.Trials()] = true
	}
	assert.Len(t, trials, 1, "every method gets the same number of trials")
	untuned, err := fashionMNISTSpec().Cells()
	require.NoError(t, err)
	assert.NotEqual(t, untuned[0].Key, cells[0].Key, "a tuned cell is another cell")

	s.Overrides = append(s.Overrides, Override{When: Match{Methods: []string{"kl"}}, Set: set(obj{"hyper": obj{"search": obj{"lr": []float64{0.5}}}})})
	cells, err = s.Cells()
	require.NoError(t, err)
	for _, c := range cells {
		if c.Config.Method == "kl" {
			assert.Equal(t, []float64{0.5}, c.Config.Hyper.Search.LR, "an override's search is kept")
		}
	}
	s.Hyper.ValBags = 0
	assert.ErrorContains(t, s.Validate(), "hyper.search: needs hyper.val_bags > 0")
}

// TestTunedComparisonSpec: the tuned comparison's cells — the
// methods it names (TunedMethods: every method but LLP-GAN that was
// registered when it ran, none that registers since), 5 seeds, 10% of the bags
// held out, each method's own search space and minibatch (its descriptor's,
// or its authors'), the newer methods' authors' optimizer and flooding,
// LLP-PVC's exact likelihood.
func TestTunedComparisonSpec(t *testing.T) {
	for _, name := range []string{"fashion-mnist-tuned", "fashion-mnist-shuffle-tuned"} {
		s, ok := BuiltinSpec(name)
		require.True(t, ok)
		cells, err := s.Cells()
		require.NoError(t, err)
		seen := map[string]experiments.Config{}
		for _, c := range cells {
			seen[c.Config.Method] = c.Config
			h := c.Config.Hyper
			require.NotNil(t, h.Search, c.Config.Method)
			assert.Equal(t, TunedValBags, h.ValBags)
			d, _ := experiments.Method(c.Config.Method)
			want := d.DefaultBatch
			if d.Batch == methods.Instances {
				want = 128
			}
			assert.Equal(t, want, h.BatchSize, "%s: its own minibatch", c.Config.Method)
		}
		assert.ElementsMatch(t, TunedMethods, slices.Collect(maps.Keys(seen)))
		assert.Len(t, TunedMethods, 10, "the ten methods of the committed comparisons")
		assert.NotContains(t, TunedMethods, training.MethodLLPGAN, "LLP-GAN trains its own discriminator")
		assert.Equal(t, 0.3, seen[training.MethodEasyLLP].Hyper.Flood)
		assert.Equal(t, "nesterov", seen[training.MethodEasyLLP].Hyper.Optimizer)
		assert.Equal(t, training.PVCExact, seen[training.MethodLLPPVC].Hyper.PVCLikelihood)
		assert.Equal(t, 2, seen[training.MethodKL].Hyper.BatchSize)
		assert.Equal(t, TunedSeeds, s.Seeds)
	}
}
