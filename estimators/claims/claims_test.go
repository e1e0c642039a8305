package claims

import (
	"testing"

	"github.com/llpfc/llpfc/theory/verify"
)

// TestAlgorithmClaims runs the three claims at the default search and their
// negative controls: each claim passes on estimators and fails on its bug.
func TestAlgorithmClaims(t *testing.T) {
	for _, l := range []string{"algo:LLPFC", "algo:LLPFC-uniform", "algo:LLPFC-approx"} {
		c, ok := verify.Lookup(l)
		if !ok {
			t.Fatalf("%s not registered", l)
		}
		r := verify.Run(c, verify.Config{Cases: verify.DefaultCases, Seed: 1})
		if r.Status != "pass" {
			t.Errorf("%s: %s", l, r.Counterexample)
		}
		if r.NegativeControl != "caught" {
			t.Errorf("%s: negative control (%s) %s", l, c.NegativeName, r.NegativeControl)
		}
	}
}
