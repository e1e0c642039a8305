package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/theory/verify"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requiredLabels are the paper's numbered results and the claims beside
// them; `llpfc verify` must report every one of them, with status pass, at
// least 500 cases and its negative control caught (checked at the default case count).
var requiredLabels = []string{
	"cali.inner.lemma", "thm:inv.cali", "thm:cali.noise", "theorem: cali_lowerb",
	"YW_lemma:KL", "theorem: Pinsker inequality", "lemma: L1 norm upper bounds ZO divergence",
	"lemma: operator norm inverse infimum", "eq: uniform noise inverse norm", "fc.fisher.consistency",
	"llp.cali", "lip.upper.bd.cel", "lambda0.formula",
	"rad.lips.lemma", "lemma: gen", "thm: geb", "vec.rad.ineq", "lemma: multi.rad.1", "multi.rad.lemma",
	"supp.prop.rad: subset", "supp.prop.rad: sum", "supp.prop.rad: mult", "supp.prop.rad: conv", "supp.prop.rad: lip",
	"prop: kernel_bound", "prop: MLP_bound",
	"sec:cfm prob model", "grouping assumption: ch", "hm.weights.optimal", "llpfc-ideal: empirical risk",
	// Algorithms 1–3.
	"alg3: sigma-hat", "alg2: alpha-hat", "alg2: T-hat", "alg1: empirical risk unbiased",
	// The newer methods' identities.
	"easyllp: unbiased", "llppvc: count likelihood", "mixbag: mixture", "mixbag: interval coverage",
}

func TestVerifyJSONContract(t *testing.T) {
	var out, errb bytes.Buffer
	status := dispatch([]string{"verify", "--json"}, &out, &errb)
	var rows []map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &rows), "stdout is not a JSON array:\n%s\nstderr: %s", out.String(), errb.String())
	seen := map[string]map[string]any{}
	for _, r := range rows {
		for _, k := range []string{"label", "cases", "worst_ratio", "status", "negative_control", "kind", "ratio_floor"} {
			assert.Contains(t, r, k, "row %v lacks key %q", r["label"], k)
		}
		label, _ := r["label"].(string)
		seen[label] = r
		switch k := r["kind"]; k {
		case "theorem":
			// A theorem that is a bound declares the tightness its search must reach.
			f, _ := r["ratio_floor"].(float64)
			assert.Positive(t, f, "%s: theorem without a ratio floor", label)
		case "identity", "definitional":
		default:
			assert.Fail(t, "unknown kind", "%s: kind %v", label, k)
		}
		assert.Equal(t, "pass", r["status"], "%s: counterexample %v", label, r["counterexample"])
		assert.Equal(t, "caught", r["negative_control"], "%s: negative control", label)
		c, _ := r["cases"].(float64)
		assert.GreaterOrEqual(t, c, 500.0, "%s: cases", label)
		// Every row lists its hypotheses, each with a status and
		// the LaTeX line or text it comes from.
		hs, _ := r["hypotheses"].([]any)
		assert.NotEmpty(t, hs, "%s: no hypotheses", label)
		for _, h := range hs {
			m, _ := h.(map[string]any)
			var statuses []any // a probe invalid is no status a row may report
			for _, st := range verify.ProbeStatuses {
				statuses = append(statuses, string(st))
			}
			assert.Contains(t, statuses, m["status"], "%s: %v", label, m)
			assert.NotEmpty(t, m["text"], "%s: %v", label, m)
			if m["status"] == "needed" {
				assert.NotEmpty(t, m["counterexample"], "%s: needed without a counterexample: %v", label, m)
			}
		}
	}
	for _, l := range requiredLabels {
		assert.Contains(t, seen, l, "verify does not report %q", l)
	}
	assert.Equal(t, exitOK, status, "exit status")
}

func TestVerifyTableAndBadFlags(t *testing.T) {
	var out, errb bytes.Buffer
	assert.Equal(t, exitBadUsage, dispatch([]string{"verify", "--cases", "0"}, &out, &errb), "--cases 0")
	assert.Equal(t, exitBadUsage, dispatch([]string{"verify", "--only", "no-such-label-xyz"}, &out, &errb), "--only with no match")
	out.Reset()
	s := dispatch([]string{"verify", "--cases", "10", "--only", "Pinsker"}, &out, &errb)
	require.Equal(t, exitOK, s, "%s %s", out.String(), errb.String())
	assert.True(t, strings.Contains(out.String(), "theorem: Pinsker inequality") && strings.Contains(out.String(), "1 claims, 1 passed"),
		"table lacks the Pinsker row or the summary:\n%s", out.String())
}
