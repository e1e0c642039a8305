package main

import (
	"io"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/training"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTrainPVCLikelihoodFlag: `llpfc train --method llppvc`
// trains the exact likelihood by default and names it in the cell;
// --pvc-likelihood fft writes the cell as every llppvc cell before the
// setting (the setting empty, the same key); the flag with another method,
// or another name, is a usage error naming it.
func TestTrainPVCLikelihoodFlag(t *testing.T) {
	base := []string{"--data", "fixture", "--bag-size", "16", "--num-points", "320"}
	r, status := parseTrain(append(base, "--method", "llppvc"), io.Discard)
	require.NotNil(t, r, "status %d", status)
	assert.Equal(t, training.PVCExact, r.cell.Hyper.PVCLikelihood)
	exact := r.cell.Key()
	r, status = parseTrain(append(base, "--method", "llppvc", "--pvc-likelihood", "fft"), io.Discard)
	require.NotNil(t, r, "status %d", status)
	assert.Empty(t, r.cell.Hyper.PVCLikelihood)
	assert.NotEqual(t, exact, r.cell.Key())
	r, _ = parseTrain(append(base, "--method", "kl"), io.Discard)
	require.NotNil(t, r)
	assert.Empty(t, r.cell.Hyper.PVCLikelihood, "kl has no likelihood")
	for _, args := range [][]string{{"--method", "kl", "--pvc-likelihood", "exact"}, {"--method", "llppvc", "--pvc-likelihood", "dp"}} {
		var stderr strings.Builder
		r, status := parseTrain(append(base, args...), &stderr)
		assert.Nil(t, r, "%v", args)
		assert.Equal(t, exitBadUsage, status, "%v", args)
		assert.Contains(t, stderr.String(), "--pvc-likelihood", "%v", args)
	}
}
