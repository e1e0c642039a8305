package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// requiredLabels are the results issue 2 names; `llpfc verify` must report
// every one of them, with status pass, at least 500 cases and its negative
// control caught (the done-when, checked at the default case count).
var requiredLabels = []string{
	"cali.inner.lemma", "thm:inv.cali", "thm:cali.noise", "theorem: cali_lowerb",
	"YW_lemma:KL", "theorem: Pinsker inequality", "lemma: L1 norm upper bounds ZO divergence",
	"lemma: operator norm inverse infimum", "eq: uniform noise inverse norm", "fc.fisher.consistency",
	"llp.cali", "lip.upper.bd.cel", "lambda0.formula",
	"rad.lips.lemma", "lemma: gen", "thm: geb", "vec.rad.ineq", "lemma: multi.rad.1", "multi.rad.lemma",
	"supp.prop.rad: subset", "supp.prop.rad: sum", "supp.prop.rad: mult", "supp.prop.rad: conv", "supp.prop.rad: lip",
	"prop: kernel_bound", "prop: MLP_bound",
	"sec:cfm prob model", "grouping assumption: ch", "hm.weights.optimal", "llpfc-ideal: empirical risk",
	// Algorithms 1–3 (issue 11).
	"alg3: sigma-hat", "alg2: alpha-hat", "alg2: T-hat", "alg1: empirical risk unbiased",
}

func TestVerifyJSONContract(t *testing.T) {
	var out, errb bytes.Buffer
	status := dispatch([]string{"verify", "--json"}, &out, &errb)
	var rows []map[string]any
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("stdout is not a JSON array: %v\n%s\nstderr: %s", err, out.String(), errb.String())
	}
	seen := map[string]map[string]any{}
	for _, r := range rows {
		for _, k := range []string{"label", "cases", "worst_ratio", "status", "negative_control", "kind", "ratio_floor"} {
			if _, ok := r[k]; !ok {
				t.Errorf("row %v lacks key %q", r["label"], k)
			}
		}
		label, _ := r["label"].(string)
		seen[label] = r
		switch k := r["kind"]; k {
		case "theorem":
			// A theorem that is a bound declares the tightness its search must reach.
			if f, _ := r["ratio_floor"].(float64); f <= 0 {
				t.Errorf("%s: theorem without a ratio floor", label)
			}
		case "identity", "definitional":
		default:
			t.Errorf("%s: kind %v", label, k)
		}
		if s := r["status"]; s != "pass" {
			t.Errorf("%s: status %v: %v", label, s, r["counterexample"])
		}
		if nc := r["negative_control"]; nc != "caught" {
			t.Errorf("%s: negative_control %v, want caught", label, nc)
		}
		if c, _ := r["cases"].(float64); c < 500 {
			t.Errorf("%s: %v cases, want ≥ 500", label, r["cases"])
		}
	}
	for _, l := range requiredLabels {
		if _, ok := seen[l]; !ok {
			t.Errorf("verify does not report %q", l)
		}
	}
	if status != exitOK {
		t.Errorf("exit status %d, want %d", status, exitOK)
	}
}

func TestVerifyTableAndBadFlags(t *testing.T) {
	var out, errb bytes.Buffer
	if s := dispatch([]string{"verify", "--cases", "0"}, &out, &errb); s != exitBadUsage {
		t.Errorf("--cases 0: exit %d, want %d", s, exitBadUsage)
	}
	if s := dispatch([]string{"verify", "--only", "no-such-label-xyz"}, &out, &errb); s != exitBadUsage {
		t.Errorf("--only with no match: exit %d, want %d", s, exitBadUsage)
	}
	out.Reset()
	if s := dispatch([]string{"verify", "--cases", "10", "--only", "Pinsker"}, &out, &errb); s != exitOK {
		t.Fatalf("exit %d: %s %s", s, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "theorem: Pinsker inequality") || !strings.Contains(out.String(), "1 claims, 1 passed") {
		t.Errorf("table lacks the Pinsker row or the summary:\n%s", out.String())
	}
}
