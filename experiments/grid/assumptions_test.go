package grid

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/llpfc/llpfc/experiments"
)

// TestSameOutcomeIgnoresAssumptions: a cell's assumption diagnostics are
// measurements of its bags, not outcomes: a store written before
// them and one written after hold the same outcome, so collecting or merging
// them is no conflict; the test accuracy still is an outcome.
func TestSameOutcomeIgnoresAssumptions(t *testing.T) {
	a := &Result{Key: "k", Metrics: experiments.Metrics{TestAccuracy: 0.8}}
	b := &Result{Key: "k", Metrics: experiments.Metrics{TestAccuracy: 0.8, Assumptions: &experiments.Assumptions{
		Checks: []experiments.AssumptionCheck{{Name: "x", Value: 1, Holds: true}}}}}
	assert.True(t, a.SameOutcome(b))
	assert.True(t, b.SameOutcome(a))
	b.Metrics.TestAccuracy = 0.7
	assert.False(t, a.SameOutcome(b))
}
