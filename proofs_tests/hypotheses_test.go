package proofs_tests

// The hypotheses of every claim: each part listed with where it comes from
// (the statement, a definition it uses, a lemma its proof applies), probed,
// its points judged and its counterexample re-evaluated, and its ranges held
// to their printed form. The registration itself is pinned here, claim by
// claim, by hand: a hypothesis dropped or a status changed fails
// TestHypothesesRegistration whatever the table of docs/claims.md (which
// -update-readme rewrites) says.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/theory/verify"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// paperLines is the number of lines of the paper's LaTeX
// (../shared/paper/llpfc-neurips2022.tex) the hypotheses cite.
const paperLines = 1819

// TestEveryClaimHasItsHypotheses: every claim of `llpfc verify` lists its
// hypotheses, every list belongs to a registered claim, and every
// hypothesis of a result of the paper names the LaTeX line that states it
// and where it comes from.
func TestEveryClaimHasItsHypotheses(t *testing.T) {
	labels := map[string]bool{}
	for _, c := range verify.Claims() {
		labels[c.Label] = true
		hs := verify.HypothesesOf(c.Label)
		assert.NotEmptyf(t, hs, "claim %q lists no hypotheses", c.Label)
		for _, h := range hs {
			assert.NotEmptyf(t, h.From, "%s / %s: no origin", c.Label, h.Name)
			if newerMethod(c.Label) {
				assert.Truef(t, strings.HasPrefix(h.From, verify.FromMethod), "%s / %s: a newer method's hypothesis comes from its method, not %q", c.Label, h.Name, h.From)
				continue
			}
			assert.Truef(t, h.Line >= 1 && h.Line <= paperLines, "%s / %s: LaTeX line %d, want 1..%d", c.Label, h.Name, h.Line, paperLines)
		}
	}
	for _, l := range verify.HypothesisLabels() {
		if strings.HasPrefix(l, "test:") {
			continue
		}
		assert.Truef(t, labels[l], "hypotheses registered for %q, which is not a claim", l)
	}
}

// newerMethod reports whether label is a claim of a method outside the
// paper (EasyLLP, LLP-PVC, MixBag), whose hypotheses come from their own
// papers and code, not from a line of the LaTeX.
func newerMethod(label string) bool {
	for _, p := range []string{"easyllp:", "llppvc:", "mixbag:"} {
		if strings.HasPrefix(label, p) {
			return true
		}
	}
	return false
}

// registration pins, claim by claim, how many hypothesis parts of each kind
// it registers and how many end in each status (Hypothesis.Expect; "not
// probeable here" for those without a probe). Written by hand: dropping a
// part, merging two, or moving a status fails TestHypothesesRegistration.
var registration = map[string]string{
	"YW_lemma:KL":                    "loss 1, T 3, distribution 1, range 1 | needed 1, needed to define the statement 3, not needed in what was tried 1, not probeable here 1",
	"alg1: empirical risk unbiased":  "grouping 1, sampling 2 | needed 1, not probeable here 2",
	"alg2: T-hat":                    "grouping 4, range 1 | needed 2, not needed in what was tried 2, not probeable here 1",
	"alg2: alpha-hat":                "grouping 2 | not needed in what was tried 2",
	"alg3: sigma-hat":                "grouping 1, range 1 | needed 1, needed to define the statement 1",
	"cali.inner.lemma":               "loss 3, T 3, distribution 1, range 2 | needed 4, needed to define the statement 3, not probeable here 2",
	"easyllp: unbiased":              "sampling 1, distribution 1, range 1 | needed 2, needed to define the statement 1",
	"eq: uniform noise inverse norm": "range 1 | needed 1",
	"equation-definition: Bayes minimum risk - zo loss": "range 1 | needed to define the statement 1",
	"equation-definition: Bayes risk - zo loss":         "range 2 | needed to define the statement 2",
	"equation-definition: KL divergence":                "range 1 | needed to define the statement 1",
	"equation: calibration function - lower":            "range 1 | needed to define the statement 1",
	"fc.fisher.consistency":                             "loss 2, T 3 | needed 3, needed to define the statement 2",
	"grouping assumption all groups":                    "grouping 2, distribution 1, range 1 | needed 3, not needed in what was tried 1",
	"grouping assumption: ch":                           "grouping 2, distribution 1, range 1 | needed 3, not needed in what was tried 1",
	"hm.weights.optimal":                                "grouping 2, range 1 | needed 1, not needed in what was tried 2",
	"lambda0.formula":                                   "loss 2, T 3 | needed to define the statement 2, not needed in what was tried 1, not probeable here 2",
	"lemma: L1 norm upper bounds ZO divergence":         "range 1 | needed to define the statement 1",
	"lemma: gen":                                    "loss 1, T 3, grouping 3, class 4, sampling 2, distribution 1, range 3 | needed to define the statement 4, not needed in what was tried 3, not probeable here 10",
	"lemma: multi.rad.1":                            "loss 1, class 1, range 1 | needed 2, not needed in what was tried 1",
	"lemma: operator norm inverse infimum":          "T 1, class 1 | needed to define the statement 1, not probeable here 1",
	"lip.upper.bd.cel":                              "loss 2, T 2, class 1 | needed 1, needed to define the statement 2, not needed in what was tried 1, not probeable here 1",
	"llp.cali":                                      "loss 3, T 3, grouping 2, distribution 2, range 1 | needed 5, needed to define the statement 2, not needed in what was tried 1, not probeable here 3",
	"llpfc-ideal: empirical risk":                   "loss 2, T 3, grouping 2, sampling 2, distribution 1, range 2 | needed 2, needed to define the statement 4, not needed in what was tried 6",
	"llppvc: count likelihood":                      "sampling 2, range 1 | needed 2, needed to define the statement 1",
	"mixbag: interval coverage":                     "sampling 1, range 1 | needed 1, not needed in what was tried 1",
	"mixbag: mixture":                               "sampling 1 | needed 1",
	"multi.rad.lemma":                               "loss 1, class 1, range 1 | needed 2, not needed in what was tried 1",
	"prop: MLP_bound":                               "grouping 1, class 5, range 2 | needed 2, needed to define the statement 1, not needed in what was tried 1, not probeable here 4",
	"prop: kernel_bound":                            "grouping 3, class 3, range 3 | needed 1, needed to define the statement 2, not needed in what was tried 1, not probeable here 5",
	"rad.lips.lemma":                                "loss 1, T 3, grouping 3, class 4, sampling 2, distribution 1, range 3 | needed to define the statement 4, not needed in what was tried 3, not probeable here 10",
	"sec:cfm prob model":                            "grouping 2, range 2 | needed 2, needed to define the statement 2",
	"supp.prop.rad: conv":                           "range 1 | not needed in what was tried 1",
	"supp.prop.rad: lip":                            "class 1, range 1 | needed 1, not needed in what was tried 1",
	"supp.prop.rad: mult":                           "range 2 | not needed in what was tried 1, not probeable here 1",
	"supp.prop.rad: subset":                         "class 1, range 1 | needed 1, not needed in what was tried 1",
	"supp.prop.rad: sum":                            "range 1 | not needed in what was tried 1",
	"supp.prop.weighted_rad_properties":             "class 1, range 1 | needed 1, not needed in what was tried 1",
	"supp.prop: MLP_bound":                          "class 4, range 3 | needed 4, needed to define the statement 1, not needed in what was tried 2",
	"supp.prop: kernel_bound":                       "class 2, range 2 | needed 1, not needed in what was tried 2, not probeable here 1",
	"theorem: Pinsker inequality":                   "range 1 | needed to define the statement 1",
	"theorem: cali_lowerb":                          "loss 1, T 3, distribution 1 | needed to define the statement 3, not needed in what was tried 1, not probeable here 1",
	"theorem: convex LB - calib func - FC log loss": "loss 1, T 3, distribution 1, range 1 | needed to define the statement 4, not needed in what was tried 1, not probeable here 1",
	"thm: geb":                                      "loss 1, T 3, grouping 3, class 11, sampling 2, distribution 1, range 4 | needed to define the statement 5, not needed in what was tried 1, not probeable here 19",
	"thm:cali.noise":                                "loss 3, T 3, distribution 2 | needed to define the statement 2, not needed in what was tried 3, not probeable here 3",
	"thm:inv.cali":                                  "loss 3, T 3, distribution 2, range 1 | needed 3, needed to define the statement 2, not needed in what was tried 1, not probeable here 3",
	"vec.rad.ineq":                                  "range 1 | not needed in what was tried 1",
}

// registrationOf renders label's registration as registration writes it.
func registrationOf(label string) string {
	kinds := map[verify.HypothesisKind]int{}
	st := map[verify.ProbeStatus]int{}
	for _, h := range verify.HypothesesOf(label) {
		kinds[h.Kind]++
		e := h.Expect
		if e == "" {
			e = verify.NotProbeable
		}
		st[e]++
	}
	var a, b []string
	for _, k := range verify.HypothesisKinds {
		if kinds[k] > 0 {
			a = append(a, fmt.Sprintf("%s %d", k, kinds[k]))
		}
	}
	for _, s := range verify.ProbeStatuses {
		if st[s] > 0 {
			b = append(b, fmt.Sprintf("%s %d", s, st[s]))
		}
	}
	return strings.Join(a, ", ") + " | " + strings.Join(b, ", ")
}

// TestHypothesesRegistration holds every claim's registration to the
// pinned table, and the table to the claims.
func TestHypothesesRegistration(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range verify.Claims() {
		seen[c.Label] = true
		want, ok := registration[c.Label]
		if assert.Truef(t, ok, "claim %q has no pinned registration", c.Label) {
			assert.Equalf(t, want, registrationOf(c.Label), "%s: the hypotheses registered (kinds | expected statuses) moved", c.Label)
		}
	}
	for l := range registration {
		assert.Truef(t, seen[l], "pinned registration of %q, which is not a claim", l)
	}
}

// TestHypothesisProbesFindWhatTheyFound: at the default 500 cases and seed
// 1, every probe reports the status recorded when its hypothesis was
// written down (Hypothesis.Expect), and none is invalid (a point that is
// not what its family says, a counterexample that fails its re-evaluation,
// an end on the wrong side of its range). A "needed" carries its
// counterexample, replayed exactly by a second run and re-evaluated by its
// judge; a "needed to define the statement" names the point where the
// statement is undefined; a "not needed in what was tried" says what was
// tried and that its points were judged; a "not probeable here" says why.
func TestHypothesisProbesFindWhatTheyFound(t *testing.T) {
	cfg := verify.Config{Cases: verify.DefaultCases, Seed: 1}
	counts := map[verify.ProbeStatus]int{}
	for _, l := range verify.HypothesisLabels() {
		if strings.HasPrefix(l, "test:") {
			continue
		}
		first := verify.CheckHypotheses(l, cfg)
		again := verify.CheckHypotheses(l, cfg)
		require.Len(t, again, len(first))
		for i, h := range first {
			counts[h.Status]++
			want := h.Expected
			if want == "" {
				want = verify.NotProbeable
			}
			assert.Equalf(t, want, h.Status, "%s / %s: %s%s", l, h.Name, h.Counterexample, h.Tried)
			switch h.Status {
			case verify.Needed:
				assert.NotEmptyf(t, h.Counterexample, "%s / %s: needed without a counterexample", l, h.Name)
				assert.Equalf(t, h.Counterexample, again[i].Counterexample, "%s / %s: the counterexample does not replay", l, h.Name)
				assert.Containsf(t, h.Judged, "re-evaluated", "%s / %s: a counterexample nobody re-evaluated", l, h.Name)
			case verify.NeededToDefine:
				assert.NotEmptyf(t, h.Counterexample, "%s / %s: needed to define, without the point", l, h.Name)
			case verify.NotNeeded:
				assert.NotEmptyf(t, h.Tried, "%s / %s: not needed without what was tried", l, h.Name)
				assert.NotEmptyf(t, h.Judged, "%s / %s: not needed, its points not judged", l, h.Name)
			case verify.NotProbeable:
				assert.NotEmptyf(t, h.Tried, "%s / %s: not probeable without why", l, h.Name)
			default:
				assert.Failf(t, "invalid or unknown status", "%s / %s: %q: %s", l, h.Name, h.Status, h.Tried)
			}
		}
	}
	for _, s := range verify.ProbeStatuses {
		assert.Positivef(t, counts[s], "no hypothesis is %q", s)
	}
	t.Logf("hypotheses: %v", counts)
}

// TestRangesAgreeWithTheirPrintedForm: every range of numbers has the ends,
// open flags and holes its printed text gives (ParsePrinted), and every
// range whose end checks are evaluated decides its points (CheckEnds ran in
// TestHypothesisProbesFindWhatTheyFound: an end on the wrong side of its
// range is an invalid probe).
func TestRangesAgreeWithTheirPrintedForm(t *testing.T) {
	n := 0
	for _, l := range verify.HypothesisLabels() {
		if strings.HasPrefix(l, "test:") {
			continue
		}
		for _, h := range verify.HypothesesOf(l) {
			r := h.Range
			if r == nil {
				continue
			}
			p, integer, ok := verify.ParsePrinted(r.Printed)
			if !ok {
				assert.NotNilf(t, r.Member, "%s / %s: %q is no range of numbers and has no Member to decide its points", l, h.Name, r.Printed)
				continue
			}
			n++
			assert.Equalf(t, p, verify.Printed{Lo: r.Lo, Hi: r.Hi, LoOpen: r.LoOpen, HiOpen: r.HiOpen, Holes: r.Holes},
				"%s / %s: the range's data disagree with its printed form %q", l, h.Name, r.Printed)
			if integer {
				assert.Truef(t, r.Integer, "%s / %s: %q prints a set of integers", l, h.Name, r.Printed)
			}
		}
	}
	assert.Greater(t, n, 20, "ranges of numbers checked")
}

// TestSlackProbesSayHowFarTheyWent: the probes that understate a constant
// of a sampled bound (the class bound A) state how far the right side moved
// against the bound's measured slack, and call a variation inside that
// slack not probeable rather than not needed.
func TestSlackProbesSayHowFarTheyWent(t *testing.T) {
	cfg := verify.Config{Cases: verify.DefaultCases, Seed: 1}
	for _, l := range []string{"rad.lips.lemma", "lemma: gen", "thm: geb"} {
		for _, h := range verify.CheckHypotheses(l, cfg) {
			if h.Name != "sup ‖g(x)‖₂ ≤ A" {
				continue
			}
			assert.Containsf(t, h.Slack, "shrank the right side by up to", "%s: %q", l, h.Slack)
			assert.Containsf(t, h.Slack, "the bound's slack is at most", "%s: %q", l, h.Slack)
			if strings.Contains(h.Tried, "within the bound's slack") {
				assert.Equal(t, verify.NotProbeable, h.Status, l)
			}
		}
	}
}
