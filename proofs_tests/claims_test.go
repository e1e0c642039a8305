package proofs_tests

import (
	"os"
	"strconv"
	"testing"

	_ "github.com/llpfc/llpfc/estimators/algclaims" // Algorithms 1–3
	"github.com/llpfc/llpfc/theory/verify"
	_ "github.com/llpfc/llpfc/theory/verify/claims"     // registers every claim
	_ "github.com/llpfc/llpfc/training/loss/lossclaims" // EasyLLP, LLP-PVC, MixBag

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// config reads the number of cases and the master seed from LLPFC_CASES and
// LLPFC_SEED (defaults: verify.DefaultCases and 1).
func config(t *testing.T) verify.Config {
	t.Helper()
	cfg := verify.Config{Cases: verify.DefaultCases, Seed: 1}
	if s := os.Getenv("LLPFC_CASES"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoErrorf(t, err, "LLPFC_CASES=%q: want a positive integer", s)
		require.GreaterOrEqualf(t, n, 1, "LLPFC_CASES=%q: want a positive integer", s)
		cfg.Cases = n
	}
	if s := os.Getenv("LLPFC_SEED"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		require.NoErrorf(t, err, "LLPFC_SEED=%q: want an integer", s)
		cfg.Seed = n
	}
	return cfg
}

// checkClaim runs the claim registered under label: it must pass on at least
// cfg.Cases inputs, and its negative control, if it has one, must be caught.
// wantNegative says whether the claim is required to have a negative control.
func checkClaim(t *testing.T, label string, wantNegative bool) {
	t.Helper()
	c, ok := verify.Lookup(label)
	require.Truef(t, ok, "no checker registered for %q", label)
	cfg := config(t)
	r := verify.Run(c, cfg)
	t.Logf("%s: %d cases, worst ratio %.6g, negative control %s", label, r.Cases, r.WorstRatio, r.NegativeControl)
	assert.Equalf(t, "pass", r.Status, "%s failed (seed %d): %s", label, cfg.Seed, r.Counterexample)
	assert.GreaterOrEqualf(t, r.Cases, cfg.Cases, "%s tried %d cases, want at least %d", label, r.Cases, cfg.Cases)
	assert.NotEqualf(t, "missed", r.NegativeControl,
		"%s: negative control %q was not caught: the checker cannot tell a wrong implementation", label, c.NegativeName)
	if wantNegative {
		assert.NotEqualf(t, "none", r.NegativeControl, "%s: has no negative control", label)
	}
}
