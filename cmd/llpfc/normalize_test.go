package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// llpfc train standardizes by default with the training split's constants
// (Fashion-MNIST's 0.2860 and 0.3530), records them in its result, keeps raw
// pixels with --normalize none, and refuses other values naming the flag.
func TestTrainNormalizeFlag(t *testing.T) {
	base := []string{"--data", "fixture", "--method", "llpfc-uniform", "--bag-size", "16", "--num-points", "320",
		"--epochs", "1", "--batch-size", "32", "--json", "--quiet"}
	var res struct {
		Normalization struct {
			Mode      string
			Mean, Std []float64
		} `json:"normalization"`
		TestAccuracy float64 `json:"test_accuracy"`
	}
	code, out, errs := runTrainCmd(base...)
	require.Equal(t, exitOK, code, errs)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &res))
	assert.Equal(t, "standardize", res.Normalization.Mode)
	require.Len(t, res.Normalization.Mean, 1)
	assert.InDelta(t, 0.2860, res.Normalization.Mean[0], 5e-5)
	assert.InDelta(t, 0.3530, res.Normalization.Std[0], 5e-5)
	std := res.TestAccuracy

	code, out, errs = runTrainCmd(append(base, "--normalize", "none")...)
	require.Equal(t, exitOK, code, errs)
	lines = strings.Split(strings.TrimSpace(out), "\n")
	res.Normalization.Mean = nil
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &res))
	assert.Equal(t, "none", res.Normalization.Mode)
	assert.Empty(t, res.Normalization.Mean)
	assert.NotEqual(t, std, res.TestAccuracy, "the inputs differ, so does the run")

	code, _, errs = runTrainCmd(append(base, "--normalize", "minmax")...)
	assert.Equal(t, exitBadUsage, code)
	assert.Contains(t, errs, "--normalize")
}
