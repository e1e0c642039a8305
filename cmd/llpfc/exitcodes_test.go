package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One rule for every command — bad flags or bad input exit
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

// TestZeroOrNegativeSizesNameTheirFlag: a zero or negative size,
// count or rate given to a command's flag is bad usage (exit status 2) with a
// message that starts with the command and names that flag and the value,
// and nothing is run.
func TestZeroOrNegativeSizesNameTheirFlag(t *testing.T) {
	dir := t.TempDir()
	bagsOut := filepath.Join(dir, "bags.json")
	train := func(extra ...string) []string {
		return append([]string{"train", "--data", "fixture", "--epochs", "1", "--quiet", "--bag-size", "16", "--num-points", "320"}, extra...)
	}
	bags := func(extra ...string) []string {
		return append([]string{"bags", "--data", "fixture", "--bag-size", "16", "--out", bagsOut}, extra...)
	}
	bench := func(extra ...string) []string { return append([]string{"bench", "--steps", "1"}, extra...) }
	binary := func(extra ...string) []string {
		return append([]string{"reproduce", "--table", "binary", "--offline", "--dry-run", "--results", filepath.Join(dir, "bin")}, extra...)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		prefix string // the message starts with it
		want   string // and names the flag and its value
	}{
		{"train batch 0", train("--batch-size", "0"), "llpfc train: ", "--batch-size is 0"},
		{"train epochs 0", train("--epochs", "0"), "llpfc train: ", "--epochs is 0"},
		{"train epochs -2", train("--epochs", "-2"), "llpfc train: ", "--epochs is -2"},
		{"train lr 0", train("--lr", "0"), "llpfc train: ", "--lr is 0"},
		{"train lr -0.1", train("--lr", "-0.1"), "llpfc train: ", "--lr is -0.1"},
		{"train bag size 0", train("--bag-size", "0"), "llpfc train: ", "--bag-size is 0"},
		{"train num points -1", train("--num-points", "-1"), "llpfc train: ", "--num-points is -1"},
		{"train regroup 0", train("--regroup-every", "0"), "llpfc train: ", "--regroup-every is 0"},
		{"train chunk 0", train("--chunk-size", "0"), "llpfc train: ", "--chunk-size is 0"},
		{"train chunk -1", train("--chunk-size", "-1"), "llpfc train: ", "--chunk-size is -1"},
		{"train eval every -1", train("--eval-every", "-1"), "llpfc train: ", "--eval-every is -1"},
		{"train weight decay -1", train("--weight-decay", "-1"), "llpfc train: ", "--weight-decay is -1"},
		{"train gamma 0", train("--gamma", "0"), "llpfc train: ", "--gamma is 0"},
		{"train vat iters -1", train("--vat-power-iters", "-1"), "llpfc train: ", "--vat-power-iters is -1"},
		{"bags bag size 0", bags("--bag-size", "0", "--num-bags", "2"), "llpfc bags: ", "--bag-size is 0"},
		{"bags bag size -4", bags("--bag-size", "-4", "--num-bags", "2"), "llpfc bags: ", "--bag-size is -4"},
		{"bags num bags 0", bags("--num-bags", "0", "--num-points", "32"), "llpfc bags: ", "--num-bags is 0"},
		{"bags num bags -1", bags("--num-bags", "-1"), "llpfc bags: ", "--num-bags is -1"},
		{"bags num points -1", bags("--num-points", "-1"), "llpfc bags: ", "--num-points is -1"},
		{"bags num points 0", bags("--num-points", "0", "--num-bags", "2"), "llpfc bags: ", "--num-points is 0"},
		{"bags trouble rounds -1", bags("--num-bags", "2", "--trouble-rounds", "-1"), "llpfc bags: ", "--trouble-rounds is -1"},
		{"bench batch 0", bench("--batch-size", "0"), "llpfc bench: ", "--batch-size is 0"},
		{"bench steps 0", bench("--steps", "0"), "llpfc bench: ", "--steps is 0"},
		{"bench warmup -1", bench("--warmup", "-1"), "llpfc bench: ", "--warmup is -1"},
		{"bench channels 0", bench("--channels", "0"), "llpfc bench: ", "--channels is 0"},
		{"bench height 0", bench("--height", "0"), "llpfc bench: ", "--height is 0"},
		{"bench width -1", bench("--width", "-1"), "llpfc bench: ", "--width is -1"},
		{"bench classes 1", bench("--classes", "1"), "llpfc bench: ", "--classes is 1"},
		{"bench bag size 0", bench("--bag-size", "0"), "llpfc bench: ", "--bag-size is 0"},
		{"bench threads -1", bench("--threads", "-1"), "llpfc bench: ", "--threads is -1"},
		{"binary trials 0", binary("--trials", "0"), "llpfc reproduce --table binary: ", "--trials is 0"},
		{"binary trials -1", binary("--trials", "-1"), "llpfc reproduce --table binary: ", "--trials is -1"},
		{"binary train size 0", binary("--train-size", "0"), "llpfc reproduce --table binary: ", "--train-size is 0"},
		{"binary train size -5", binary("--train-size", "-5"), "llpfc reproduce --table binary: ", "--train-size is -5"},
		{"binary test size 0", binary("--test-size", "0"), "llpfc reproduce --table binary: ", "--test-size is 0"},
		{"binary test size -2", binary("--test-size", "-2"), "llpfc reproduce --table binary: ", "--test-size is -2"},
		{"binary max exact 0", binary("--max-exact", "0"), "llpfc reproduce --table binary: ", "--max-exact is 0"},
		{"binary bag sizes 0", binary("--bag-sizes", "8,0"), "llpfc reproduce --table binary: ", `--bag-sizes: "0" is not a positive integer`},
		{"groups trouble rounds -1", []string{"groups", "--bags", bagsOut, "--mode", "uniform", "--trouble-rounds", "-1"}, "llpfc groups: ", "--trouble-rounds is -1"},
		{"verify cases 0", []string{"verify", "--cases", "0"}, "llpfc verify: ", "--cases is 0"},
		{"verify cases -3", []string{"verify", "--cases", "-3"}, "llpfc verify: ", "--cases is -3"},
		{"run shard 0/2", []string{"run", "quick", "--list", "--shard", "0/2"}, "llpfc run: ", "--shard: "},
		{"reproduce shard 1/0", []string{"reproduce", "--dry-run", "--json", "--shard", "1/0"}, "llpfc reproduce: ", "--shard: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o, e bytes.Buffer
			code := dispatch(tc.args, &o, &e)
			assert.Equal(t, exitBadUsage, code, "stderr: %s", e.String())
			assert.Contains(t, e.String(), tc.want)
			assert.Truef(t, bytes.HasPrefix(e.Bytes(), []byte(tc.prefix)), "stderr %q does not start with %q", e.String(), tc.prefix)
			assert.Empty(t, o.String(), "nothing is run or printed")
			assert.NoFileExists(t, bagsOut)
		})
	}
}

// TestGivenDefaultsStayValid: the values a flag's help prints as its default
// (and the documented meaning of 0 where 0 has one) are still accepted when
// given explicitly.
func TestGivenDefaultsStayValid(t *testing.T) {
	dir := t.TempDir()
	var o, e bytes.Buffer
	code := dispatch([]string{"reproduce", "--table", "binary", "--offline", "--dry-run", "--results", filepath.Join(dir, "bin"),
		"--test-size", "-1", "--max-exact", "2048"}, &o, &e)
	require.Equal(t, exitOK, code, e.String())
	assert.Contains(t, e.String(), "cells")

	r, status := parseTrain([]string{"--data", "fixture", "--num-points", "0", "--eval-every", "0", "--momentum", "0"}, &e)
	require.NotNil(t, r, "status %d: %s", status, e.String())
	assert.Equal(t, 0, r.cell.NumPoints, "--num-points 0: 3/4 of the training split")
	assert.Equal(t, 128, r.cell.Hyper.BatchSize, "--batch-size left out: the method's default")
	// A method's own settings, given for the method that reads them, at
	// their defaults and at their documented 0.
	r, status = parseTrain([]string{"--data", "fixture", "--method", "llpvat", "--vat-eps", "0", "--vat-xi", "0", "--vat-power-iters", "0",
		"--kl-scale", "authors", "--vat-rampup", "authors", "--bn-stats", "minibatch"}, &e)
	require.NotNil(t, r, "status %d: %s", status, e.String())
	r2, status := parseTrain([]string{"--data", "fixture", "--method", "llpvat", "--vat-xi", "1e-6", "--vat-power-iters", "1"}, &e)
	require.NotNil(t, r2, "status %d: %s", status, e.String())
	assert.Equal(t, r.cell.Key(), r2.cell.Key(), "a setting at its default, or at the 0 that means it, is one key")
}
