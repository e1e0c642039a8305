package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// llpfc bags and llpfc groups predict trouble before any training:
// near-uniform bags (shuffle protocol, bag size 256) get the warning, the
// paper's Dirichlet bags of the same size do not; --trouble-rounds 0 skips it
// and a negative count is a usage error naming the flag.
func TestBagsAndGroupsPredictTrouble(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := dispatch(args, &out, &errb)
		return code, out.String(), errb.String()
	}
	for _, tc := range []struct {
		protocol string
		warn     bool
	}{{"shuffle", true}, {"paper", false}} {
		path := filepath.Join(dir, tc.protocol+".json")
		code, out, errs := run("bags", "--data", "fixture", "--bag-size", "256", "--num-points", "40960", "--protocol", tc.protocol, "--seed", "0", "--out", path)
		require.Equal(t, exitOK, code, errs)
		assert.Contains(t, out, "predicted trouble over 20 random groupings (320 groups, mode uniform)")
		assert.Equal(t, tc.warn, bytes.Contains([]byte(out), []byte("warning: LLPFC is likely to train poorly")), "%s: %s", tc.protocol, out)

		code, out, errs = run("groups", "--bags", path, "--mode", "approx", "--seed", "0")
		require.Equal(t, exitOK, code, errs)
		assert.Contains(t, out, "predicted trouble over 20 random groupings (320 groups, mode uniform)", "groups predicts with the uniform prior whatever the mode")
		assert.Equal(t, tc.warn, bytes.Contains([]byte(out), []byte("warning: LLPFC")), "%s: %s", tc.protocol, out)

		code, out, _ = run("groups", "--bags", path, "--mode", "uniform", "--trouble-rounds", "0")
		require.Equal(t, exitOK, code)
		assert.NotContains(t, out, "predicted trouble")
	}
	code, _, errs := run("groups", "--bags", filepath.Join(dir, "paper.json"), "--mode", "uniform", "--trouble-rounds", "-1")
	assert.Equal(t, exitBadUsage, code)
	assert.Contains(t, errs, "--trouble-rounds")
}
