package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 17, item 7: one rule for every command — bad flags or bad input exit
// with status 2 and a message naming the flag (or the input at fault).
func TestExitCodeRuleForEveryCommand(t *testing.T) {
	dir := t.TempDir()
	notDir := filepath.Join(dir, "a-file")
	require.NoError(t, os.WriteFile(notDir, []byte("x"), 0o644))
	// A bags file with an instance index past the training split, and one
	// with fewer bags than classes.
	farIndex := filepath.Join(dir, "far.json")
	require.NoError(t, os.WriteFile(farIndex, []byte(`{"num_classes": 10, "bags": [`+
		`{"id": 0, "size": 1, "proportions": [1,0,0,0,0,0,0,0,0,0], "indices": [99999999]}]}`), 0o644))
	fewBags := filepath.Join(dir, "few.json")
	require.NoError(t, os.WriteFile(fewBags, []byte(`{"num_classes": 10, "bags": [`+
		`{"id": 0, "size": 2, "proportions": [0.5,0.5,0,0,0,0,0,0,0,0], "indices": [0, 1]}]}`), 0o644))
	trainArgs := func(extra ...string) []string {
		return append([]string{"train", "--data", "fixture", "--epochs", "1", "--quiet", "--bag-size", "16", "--num-points", "320"}, extra...)
	}
	for _, tc := range []struct {
		args []string
		want string // in the message
	}{
		{trainArgs("--dropout", "2"), "--dropout"},
		{trainArgs("--eval-every", "-1"), "--eval-every"},
		{trainArgs("--batch-size", "0"), "--batch-size"},
		{trainArgs("--lr", "-1"), "--lr"},
		{trainArgs("--epochs", "0"), "--epochs"},
		{trainArgs("--normalize", "minmax"), "--normalize"},
		{trainArgs("--kl-scale", "x"), "--kl-scale"},
		{trainArgs("--bn-stats", "x"), "--bn-stats"},
		{trainArgs("--optimizer", "x"), "--optimizer"},
		{trainArgs("--nope"), "-nope"},
		// An --out where nothing can be written fails before the first step
		// (item 8): /proc/self is a directory no one may create files in.
		{trainArgs("--out", "/proc/self"), "cannot write there"},
		{[]string{"train", "--data", "fixture", "--epochs", "1", "--quiet", "--bags", farIndex}, "99999999"},
		{[]string{"train", "--data", "fixture", "--epochs", "1", "--quiet", "--bags", fewBags}, "bags"},
		{[]string{"bags", "--data", "fixture", "--bag-size", "0", "--num-points", "10", "--out", filepath.Join(dir, "b.json")}, "--bag-size"},
		{[]string{"bags", "--data", "fixture", "--bag-size", "16", "--num-points", "32", "--trouble-rounds", "-1", "--out", filepath.Join(dir, "b.json")}, "--trouble-rounds"},
		{[]string{"groups", "--bags", fewBags, "--mode", "uniform", "--weights", "foo"}, "--weights"},
		{[]string{"groups", "--bags", fewBags, "--mode", "nope"}, "--mode"},
		{[]string{"run", "quick", "--shard", "5/2"}, "--shard"},
		{[]string{"run", "quick", "--results", filepath.Join(notDir, "x")}, "--results"},
		{[]string{"reproduce", "--results", filepath.Join(notDir, "x")}, "--results"},
		{[]string{"reproduce", "--table", "nope"}, "--table"},
		{[]string{"reproduce", "--table", "wrn16-4", "--model", "cnn", "--dry-run"}, "--model"},
		{[]string{"reproduce", "--table", "fashion-mnist", "--model", "vgg16", "--dry-run"}, "--model"},
		{[]string{"report", "--results", filepath.Join(dir, "none")}, "--results"},
		{[]string{"merge", "--out", filepath.Join(dir, "m")}, "--out"},
		{[]string{"verify", "--cases", "0"}, "--cases"},
		{[]string{"bench", "--model", "nope"}, "--model"},
	} {
		var out, errb bytes.Buffer
		code := dispatch(tc.args, &out, &errb)
		assert.Equal(t, exitBadUsage, code, "%v: %s", tc.args, errb.String())
		assert.Contains(t, errb.String(), tc.want, "%v", tc.args)
	}
}
