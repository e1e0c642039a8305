package grid

import (
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSpecTuneGivesEveryMethodItsSpace (issue 50): a spec with "tune" gives
// every cell its method's search space from the registry — the same number
// of trials for every method, LLPFC and KL included — with the rate (and a
// searched minibatch) left 0, over the overrides' authors' rates; an
// override's own search is kept; without held-out bags the spec is refused.
func TestSpecTuneGivesEveryMethodItsSpace(t *testing.T) {
	s := fashionMNISTSpec()
	s.Tune = true
	s.Hyper.ValBags = 0.1
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
