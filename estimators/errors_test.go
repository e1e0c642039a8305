package estimators

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/llpfc/llpfc/theory"
)

// The project has one assumption sentinel: an ideal-mode failure wraps
// theory.ErrAssumption, whether the group's α lies outside the simplex, its
// Γ̂ is singular, or a class is absent everywhere, and the message still
// names the group (one error per failure).
func TestIdealFailureIsTheoryErrAssumption(t *testing.T) {
	assert.Same(t, theory.ErrAssumption, ErrAssumption)
	for _, tc := range []struct {
		name string
		set  *BagSet
	}{
		{"absent class", absentSet()},
		{"identical bags (singular Γ̂)", &BagSet{NumClasses: 2, Bags: []Bag{
			{ID: 0, Size: 2, Proportions: []float64{0.5, 0.5}, Indices: []int{0, 1}},
			{ID: 1, Size: 2, Proportions: []float64{0.5, 0.5}, Indices: []int{2, 3}}}}},
	} {
		_, err := BuildSeed(tc.set, Options{Mode: ModeIdeal}, 1)
		assert.True(t, errors.Is(err, theory.ErrAssumption), "%s: %v", tc.name, err)
		var in *InputError
		assert.False(t, errors.As(err, &in), "%s: an assumption failure is not an input error", tc.name)
	}
}
