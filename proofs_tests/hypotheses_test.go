package proofs_tests

// The hypotheses of every claim (issue 52): each listed as its statement
// gives it, probed, and its ranges' ends evaluated.

import (
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
// hypothesis of a result of the paper names the LaTeX line that states it.
func TestEveryClaimHasItsHypotheses(t *testing.T) {
	labels := map[string]bool{}
	for _, c := range verify.Claims() {
		labels[c.Label] = true
		hs := verify.HypothesesOf(c.Label)
		assert.NotEmptyf(t, hs, "claim %q lists no hypotheses", c.Label)
		for _, h := range hs {
			if !newerMethod(c.Label) {
				assert.Truef(t, h.Line >= 1 && h.Line <= paperLines, "%s / %s: LaTeX line %d, want 1..%d", c.Label, h.Name, h.Line, paperLines)
			}
		}
	}
	for _, l := range verify.HypothesisLabels() {
		assert.Truef(t, labels[l], "hypotheses registered for %q, which is not a claim", l)
	}
}

// newerMethod reports whether label is a claim of a method outside the
// paper (issue 52, item 5: EasyLLP, LLP-PVC, MixBag), whose hypotheses come
// from their own papers and code, not from a line of the LaTeX.
func newerMethod(label string) bool {
	for _, p := range []string{"easyllp:", "llppvc:", "mixbag:"} {
		if strings.HasPrefix(label, p) {
			return true
		}
	}
	return false
}

// TestHypothesisProbesFindWhatTheyFound: at the default 500 cases and seed
// 1, every probe reports the status recorded when its hypothesis was
// written down (Hypothesis.Expect): a probe that stops finding its
// counterexample, or starts finding one, fails here. A "needed" carries its
// counterexample, replayed exactly by a second run (the stream seed it
// names reproduces it); a "not needed in what was tried" says what was
// tried; a "not probeable here" says why.
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
			if h.Expected != "" {
				assert.Equalf(t, h.Expected, h.Status, "%s / %s: %s%s", l, h.Name, h.Counterexample, h.Tried)
			}
			switch h.Status {
			case verify.Needed:
				assert.NotEmptyf(t, h.Counterexample, "%s / %s: needed without a counterexample", l, h.Name)
				assert.Equalf(t, h.Counterexample, again[i].Counterexample, "%s / %s: the counterexample does not replay", l, h.Name)
			case verify.NotNeeded, verify.NotProbeable:
				assert.NotEmptyf(t, h.Tried, "%s / %s: %s without what was tried or why", l, h.Name, h.Status)
			default:
				assert.Failf(t, "unknown status", "%s / %s: %q", l, h.Name, h.Status)
			}
		}
	}
	for _, s := range verify.ProbeStatuses {
		assert.Positivef(t, counts[s], "no hypothesis is %q", s)
	}
	t.Logf("hypotheses: %v", counts)
}
