package estimators

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Messages: with pure bags (bag size 1–2, dirichlet:0.01) T̂ is singular
// because a group repeats one class and misses another, yet the warning
// once said the proportions were "too alike" and advised smaller bags.
// The warning now reads the cause from the bags; with every group singular
// (all bags alike) it says LLPFC cannot learn.
func TestWarningNamesTheCause(t *testing.T) {
	const C, n = 10, 200
	bagSet := func(props func(k int) []float64) *BagSet {
		s := &BagSet{NumClasses: C}
		for k := 0; k < n; k++ {
			s.Bags = append(s.Bags, Bag{ID: k, Size: 1, Proportions: props(k), Indices: []int{k}})
		}
		return s
	}
	pure := bagSet(func(k int) []float64 { p := make([]float64, C); p[k%C] = 1; return p })
	alike := bagSet(func(int) []float64 {
		p := make([]float64, C)
		for c := range p {
			p[c] = 1.0 / C
		}
		return p
	})
	for _, tc := range []struct {
		name      string
		set       *BagSet
		want, not []string
	}{
		{"pure bags", pure, []string{"pure", "singular", "larger bags"}, []string{"too alike", "smaller bags) help"}},
		{"identical proportions", alike, []string{"linearly dependent", "cannot learn"}, []string{"pure"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := PredictTrouble(tc.set, Options{Mode: ModeUniform}, 1, 5)
			require.NoError(t, err)
			w := s.WarningFor(tc.set)
			for _, x := range tc.want {
				assert.Contains(t, w, x)
			}
			for _, x := range tc.not {
				assert.NotContains(t, w, x)
			}
		})
	}
}
