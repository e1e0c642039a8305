package estimators

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
)

// GroupingSummary summarizes the diagnostics of the groups of one or more
// partitions of a bag set: the distribution over groups of ‖T̂_i⁻¹‖₁ — the
// noise constant of Proposition `theorem: cali_lowerb`, which multiplies the
// excess-risk bound by √2‖T̂⁻¹‖₁ — and of the condition numbers of Γ̂_i and
// T̂_i, and the fraction of groups where Assumption `grouping assumption: ch`
// fails. Near-uniform bags make Γ̂_i nearly singular and these numbers large:
// this is how the paper's theory predicts where LLPFC breaks before any
// training.
//
// Infinite values (a singular T̂_i) count as larger than every finite one;
// in JSON they are written as null.
type GroupingSummary struct {
	Partitions int // number of partitions summarized
	Groups     int // number of groups over all of them
	// InvNorm1T: median, 90th percentile and maximum of ‖T̂_i⁻¹‖₁.
	InvNorm1Median, InvNorm1P90, InvNorm1Max float64
	// CondGamma, CondT: median and 90th percentile of the 2-norm condition
	// numbers of Γ̂_i and T̂_i.
	CondGammaMedian, CondGammaP90 float64
	CondTMedian, CondTP90         float64
	// AssumptionFails is the fraction of groups for which Assumption
	// `grouping assumption: ch` does not hold for (Γ̂_i, σ̂).
	AssumptionFails float64
	// Singular is the fraction of groups whose T̂_i is singular (‖T̂_i⁻¹‖₁ = ∞).
	Singular float64
}

// Summarize returns the GroupingSummary of the groups of reds. It returns the
// zero summary when reds have no group.
func Summarize(reds ...*Reduction) GroupingSummary {
	var inv, cg, ct []float64
	fails, sing := 0, 0
	for _, red := range reds {
		for _, g := range red.Groups {
			d := g.Diagnostics
			inv = append(inv, d.InvNorm1T)
			cg = append(cg, d.CondGamma)
			ct = append(ct, d.CondT)
			if !d.AssumptionHolds {
				fails++
			}
			if math.IsInf(d.InvNorm1T, 1) {
				sing++
			}
		}
	}
	s := GroupingSummary{Partitions: len(reds), Groups: len(inv)}
	if s.Groups == 0 {
		return s
	}
	n := float64(s.Groups)
	s.InvNorm1Median, s.InvNorm1P90, s.InvNorm1Max = quantile(inv, 0.5), quantile(inv, 0.9), quantile(inv, 1)
	s.CondGammaMedian, s.CondGammaP90 = quantile(cg, 0.5), quantile(cg, 0.9)
	s.CondTMedian, s.CondTP90 = quantile(ct, 0.5), quantile(ct, 0.9)
	s.AssumptionFails = float64(fails) / n
	s.Singular = float64(sing) / n
	return s
}

// quantile returns the p-quantile of v by the nearest-rank rule: the
// ⌈p·n⌉-th smallest value (the smallest for p = 0). v is sorted in place.
func quantile(v []float64, p float64) float64 {
	sort.Float64s(v)
	k := int(math.Ceil(p*float64(len(v)))) - 1
	return v[max(k, 0)]
}

// PredictTrouble draws rounds random partitions of set into groups (the
// partitions LLPFC would use in its regrouping rounds 0, 1, …, rounds−1 with
// seed: BuildRound) and summarizes their diagnostics. Algorithm 1 (ModeIdeal)
// stops at the first group that violates its Assumption, so for a prediction
// opts.Mode ideal is replaced by uniform (same Γ̂ and σ̂; the Assumption
// check is part of the summary).
func PredictTrouble(set *BagSet, opts Options, seed int64, rounds int) (GroupingSummary, error) {
	if rounds < 1 {
		return GroupingSummary{}, &InputError{fmt.Errorf("number of random groupings is %d, want ≥ 1", rounds)}
	}
	if opts.Mode == ModeIdeal {
		opts.Mode = ModeUniform
	}
	reds := make([]*Reduction, rounds)
	for r := range reds {
		red, err := BuildRound(set, opts, seed, r)
		if err != nil {
			return GroupingSummary{}, err
		}
		reds[r] = red
	}
	return Summarize(reds...), nil
}

// TroubleInvNorm1 is the median ‖T̂⁻¹‖₁ above which Warning speaks. It is a
// measured threshold, not a theorem: on the Fashion-MNIST fixture (C = 10,
// 40,960 points, uniform mode, 5 groupings, seed 0) the paper's Dirichlet(1)
// protocol gives medians of 64–98 at every bag size from 16 to 1024 — bags
// on which LLPFC trains to ≥ 0.80 test accuracy — while the shuffle protocol
// (near-uniform proportions) gives 100 at bag size 16 and 218, 364 and 1020
// at 64, 256 and 1024 (TestPredictTroubleSeparatesProtocols). The calibration
// bound of Proposition `theorem: cali_lowerb` scales the excess-risk bound by
// √2‖T̂⁻¹‖₁, so above this threshold it is more than 200 times looser than
// with noise-free labels.
const TroubleInvNorm1 = 150

// Warning returns a plain-words warning when the summary predicts that LLPFC
// will struggle — the median ‖T̂⁻¹‖₁ of the groups above TroubleInvNorm1 —
// and "" otherwise. It does not warn on the fraction of groups where
// Assumption `grouping assumption: ch` fails (with C bags of Dirichlet
// proportions σ̂ is rarely inside their hull, so it fails almost everywhere,
// on bags where LLPFC trains well), nor on singular T̂ alone (Algorithm 3's
// α̂ often has zero entries, which make rows of T̂ zero by design). It does
// not know the bags, so it cannot say why T̂ is singular: WarningFor can.
func (s GroupingSummary) Warning() string { return s.WarningFor(nil) }

// WarningFor is Warning with its cause read from the bags of set (nil: not
// known). When T̂ is singular in most groups (an infinite median) the cause
// is one of two, with opposite remedies (the warning for bag sizes 1–2
// and dirichlet:0.01 once said the proportions were too alike and
// suggested smaller bags): pure bags — each of one class, as with bags of
// one or two instances or a Dirichlet of small concentration — where a
// group repeats a class and misses another, which larger or more mixed bags
// cure; or proportions so alike that the group's Γ̂ loses rank, which
// smaller bags or proportions that differ more cure. When T̂ is singular in
// every group, LLPFC cannot learn from the bags at all.
func (s GroupingSummary) WarningFor(set *BagSet) string {
	if !(s.InvNorm1Median > TroubleInvNorm1) {
		return ""
	}
	const head = "warning: LLPFC is likely to train poorly on these bags: "
	tail := " A bag-level loss such as KL does not depend on T̂."
	if s.Singular >= 1 {
		tail = " With every group's T̂ singular, LLPFC cannot learn from these bags (its loss does not tell the classes apart); a bag-level loss such as KL does not depend on T̂."
	}
	level := fmt.Sprintf("the median ‖T̂⁻¹‖₁ of its groups is %s (above %d; T̂ singular in %.0f%% of them)",
		fmtInf(s.InvNorm1Median), TroubleInvNorm1, 100*s.Singular)
	if pure := pureFraction(set); pure >= 0.5 {
		return head + level + fmt.Sprintf(", because %.0f%% of the bags are pure (one class each, as with bags of one or two instances, "+
			"or a Dirichlet of small concentration): a group of C pure bags that repeats a class misses another, and its proportions "+
			"cannot tell that class apart. Bags that mix the classes help — larger bags, or a Dirichlet concentration near 1 — "+
			"smaller bags do not.", 100*pure) + tail
	}
	if math.IsInf(s.InvNorm1Median, 1) {
		return head + level + ": the label proportions of a group's bags are linearly dependent (too alike, or identical), " +
			"so its noise transition matrix cannot be inverted. Bags whose proportions differ more (smaller bags, or proportions drawn " +
			"as in the paper from a Dirichlet) help." + tail
	}
	return fmt.Sprintf(head+"the median ‖T̂⁻¹‖₁ of its groups is %s (above %d), "+
		"so the bags' label proportions are too alike, each group's noise transition matrix is close to singular, and the "+
		"forward-corrected loss amplifies noise by that factor (Proposition 'theorem: cali_lowerb'). Bags whose proportions differ "+
		"more (smaller bags, or proportions drawn as in the paper from a Dirichlet) help.",
		fmtInf(s.InvNorm1Median), TroubleInvNorm1) + tail
}

// pureFraction returns the fraction of the bags of set whose proportions
// put all their mass on one class (0 for a nil or empty set).
func pureFraction(set *BagSet) float64 {
	if set == nil || len(set.Bags) == 0 {
		return 0
	}
	pure := 0
	for _, b := range set.Bags {
		for _, p := range b.Proportions {
			if p > 1-ProportionTol {
				pure++
				break
			}
		}
	}
	return float64(pure) / float64(len(set.Bags))
}

func fmtInf(v float64) string {
	if math.IsInf(v, 1) {
		return "∞"
	}
	return fmt.Sprintf("%.3g", v)
}

// groupingSummaryJSON is GroupingSummary with infinities as null.
type groupingSummaryJSON struct {
	Partitions      int      `json:"partitions"`
	Groups          int      `json:"groups"`
	InvNorm1Median  *float64 `json:"inv_norm1_median"`
	InvNorm1P90     *float64 `json:"inv_norm1_p90"`
	InvNorm1Max     *float64 `json:"inv_norm1_max"`
	CondGammaMedian *float64 `json:"cond_gamma_median"`
	CondGammaP90    *float64 `json:"cond_gamma_p90"`
	CondTMedian     *float64 `json:"cond_t_median"`
	CondTP90        *float64 `json:"cond_t_p90"`
	AssumptionFails float64  `json:"assumption_fails"`
	Singular        float64  `json:"singular"`
}

// MarshalJSON writes s with snake-case names and infinite values as null.
func (s GroupingSummary) MarshalJSON() ([]byte, error) {
	return json.Marshal(groupingSummaryJSON{
		Partitions: s.Partitions, Groups: s.Groups,
		InvNorm1Median: finite(s.InvNorm1Median), InvNorm1P90: finite(s.InvNorm1P90), InvNorm1Max: finite(s.InvNorm1Max),
		CondGammaMedian: finite(s.CondGammaMedian), CondGammaP90: finite(s.CondGammaP90),
		CondTMedian: finite(s.CondTMedian), CondTP90: finite(s.CondTP90),
		AssumptionFails: s.AssumptionFails, Singular: s.Singular,
	})
}

// UnmarshalJSON reads the form MarshalJSON writes; null is +∞.
func (s *GroupingSummary) UnmarshalJSON(b []byte) error {
	var j groupingSummaryJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	inf := func(p *float64) float64 {
		if p == nil {
			return math.Inf(1)
		}
		return *p
	}
	*s = GroupingSummary{
		Partitions: j.Partitions, Groups: j.Groups,
		InvNorm1Median: inf(j.InvNorm1Median), InvNorm1P90: inf(j.InvNorm1P90), InvNorm1Max: inf(j.InvNorm1Max),
		CondGammaMedian: inf(j.CondGammaMedian), CondGammaP90: inf(j.CondGammaP90),
		CondTMedian: inf(j.CondTMedian), CondTP90: inf(j.CondTP90),
		AssumptionFails: j.AssumptionFails, Singular: j.Singular,
	}
	return nil
}
