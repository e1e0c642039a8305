package methods

import (
	"fmt"

	"github.com/llpfc/llpfc/estimators"
)

// Regrouping records the groups of one LLPFC regrouping: at epoch
// Epoch the bags were partitioned anew, and Groups summarizes the
// diagnostics of the groups the method trained on — the distribution of
// ‖T̂_i⁻¹‖₁ (the noise constant of Proposition `theorem: cali_lowerb`) and of
// the condition numbers, and the fraction where Assumption
// `grouping assumption: ch` fails. Uniform summarizes, for the same groups,
// the T̂_i of Algorithm 2's noisy prior; it is set for the modes ideal and
// approx, whose own T̂_i can be singular by design (approx's α̂ has zero
// entries), so that cells of every mode can be set against one measure of
// how alike their bags are.
type Regrouping struct {
	Epoch   int                         `json:"epoch"`
	Groups  estimators.GroupingSummary  `json:"groups"`
	Uniform *estimators.GroupingSummary `json:"uniform,omitempty"`
}

// Regroupings implements GroupingReporter: the partition of epoch k·r comes
// from grouping, as in regroup, so the groups are those trained on.
func (m *llpfcMethod) Regroupings(epochs int) ([]Regrouping, error) {
	r := m.env.Config.RegroupEvery
	if r == 0 { // never regroup: the groups of epoch 0 throughout
		r = max(epochs, 1)
	}
	var out []Regrouping
	for e := 0; e < epochs; e += r {
		red, err := m.grouping(e, m.opts)
		if err != nil {
			return nil, fmt.Errorf("diagnostics of the grouping at epoch %d: %w", e+1, err)
		}
		rg := Regrouping{Epoch: e, Groups: estimators.Summarize(red)}
		if m.opts.Mode == estimators.ModeIdeal || m.opts.Mode == estimators.ModeApprox {
			uo := m.opts
			uo.Mode = estimators.ModeUniform
			ured, err := m.grouping(e, uo)
			if err != nil {
				return nil, fmt.Errorf("diagnostics of the grouping at epoch %d (uniform prior): %w", e+1, err)
			}
			s := estimators.Summarize(ured)
			rg.Uniform = &s
		}
		out = append(out, rg)
	}
	return out, nil
}
