package experiments

// Assumptions are the measured assumptions of a cell's method under that
// cell's protocol and bags: does the experiment meet the
// hypotheses of the method it trains? Each check is computed from the
// trained bags' sizes and proportions (and, for LLPFC, its groups'
// diagnostics), never from an instance's label, by experiments/learn
// (CellAssumptions) and reported by experiments/report's trouble section.
type Assumptions struct {
	// Code is the code version that computed the checks when it is not the
	// one that trained the cell (checks added to a committed store without
	// retraining); empty when RunCell computed them with the cell.
	Code   string            `json:"code,omitempty"`
	Checks []AssumptionCheck `json:"checks"`
}

// AssumptionCheck is one assumption of a method measured on a cell.
type AssumptionCheck struct {
	// Name names the method's assumption and where it is stated, e.g.
	// "easyllp: bags i.i.d. from the population".
	Name string `json:"name"`
	// Statistic says what Value measures and how Threshold was obtained.
	Statistic string  `json:"statistic"`
	Value     float64 `json:"value"`
	// Threshold is the value beyond which the assumption is taken to fail:
	// for most checks the 99th percentile of the statistic over i.i.d. bags
	// of the same sizes (what the assumption's model draws).
	Threshold float64 `json:"threshold"`
	// AtLeast: the assumption holds when Value ≥ Threshold (else when
	// Value ≤ Threshold).
	AtLeast bool `json:"at_least,omitempty"`
	Holds   bool `json:"holds"`
}

// Failing returns the checks that do not hold.
func (a *Assumptions) Failing() []AssumptionCheck {
	if a == nil {
		return nil
	}
	var out []AssumptionCheck
	for _, c := range a.Checks {
		if !c.Holds {
			out = append(out, c)
		}
	}
	return out
}
