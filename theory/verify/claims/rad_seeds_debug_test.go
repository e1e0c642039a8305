package claims

import (
	"testing"

	"github.com/llpfc/llpfc/theory/verify"
)

func TestRadDebugMLPSeeds(t *testing.T) {
	for seed := int64(2); seed <= 6; seed++ {
		cfg := verify.Config{Cases: 500, Seed: seed}
		for _, l := range []string{"supp.prop: MLP_bound", "prop: MLP_bound", "rad.lips.lemma", "lemma: gen"} {
			c, _ := verify.Lookup(l)
			r := verify.Run(c, cfg)
			t.Logf("seed %d %s: %s worst=%.4g neg=%s", seed, l, r.Status, r.WorstRatio, r.NegativeControl)
			if r.Status != "pass" || r.NegativeControl != "caught" {
				t.Errorf("seed %d %s: %s neg=%s %.300s", seed, l, r.Status, r.NegativeControl, r.Counterexample)
			}
		}
	}
}
