package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/experiments/learn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeTable writes a CSV file of n rows, two classes, two features.
func writeTable(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("label,a,b\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%d,%d,%d\n", i%2, i%7, (i*3)%5)
	}
	p := filepath.Join(dir, "t.csv")
	require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
	return p
}

// Exit codes and messages: combinations the learner cannot train once
// exited 1 after loading the data (llpgan with the mlp, llpgan on feature
// vectors) or printed a Go struct (cnn on a CSV file); a model larger than
// the memory died of "out of memory" (item 3). Each is now bad input, exit
// 2, naming the flag or the input.
func TestTrainRefusesWhatCannotTrain(t *testing.T) {
	dir := t.TempDir()
	csv := writeTable(t, dir, 64)
	wide := filepath.Join(dir, "wide.libsvm")
	require.NoError(t, os.WriteFile(wide, []byte("0 1:1\n1 100000:1\n0 2:1\n1 3:1\n0 4:1\n1 5:1\n0 6:1\n1 7:1\n"), 0o644))
	old := learn.MemoryBudget
	learn.MemoryBudget = func() int64 { return 64 << 20 } // the wide file's mlp needs 800 MB
	defer func() { learn.MemoryBudget = old }()
	tab := "csv:" + csv + "," + csv
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", "fixture", "--method", "llpgan", "--model", "mlp"}, "--model: is \"mlp\", but method llpgan trains its discriminator llpgan-d"},
		{[]string{"--data", tab, "--method", "llpgan", "--model", "llpgan-d", "--bag-size", "8"}, "--method: llpgan's generator makes images"},
		{[]string{"--data", tab, "--model", "cnn", "--bag-size", "8"}, `--model: model "cnn" needs images`},
		{[]string{"--data", "fixture", "--model", "llpgan-g"}, `--model "llpgan-g": unknown`},
		{[]string{"--data", "libsvm:" + wide + "," + wide, "--method", "kl", "--bag-size", "2"}, "model mlp on the 100000 features of data set libsvm:"},
	} {
		code, _, errs := runTrainCmd(append(tc.args, "--epochs", "1", "--quiet")...)
		assert.Equal(t, exitBadUsage, code, "%v: %s", tc.args, errs)
		assert.Contains(t, errs, tc.want, "%v", tc.args)
		assert.NotContains(t, errs, "Channels:", "%v: no Go struct in the message", tc.args)
	}
}

// TestTrainResumeOfAFinishedRun — timing and messages: --resume on a finished --out once rewrote
// result.json with the resuming call's wall time and 0 images/s; a resume
// with fewer epochs said "next epoch 4 outside 0..2"; --out without
// --resume overwrote another run's checkpoint silently.
func TestTrainResumeOfAFinishedRun(t *testing.T) {
	base := []string{"--data", "fixture", "--method", "llpfc-uniform", "--bag-size", "32", "--num-points", "640", "--batch-size", "32", "--quiet"}
	out := filepath.Join(t.TempDir(), "ck")
	code, _, errs := runTrainCmd(append(base, "--epochs", "2", "--out", out)...)
	require.Equal(t, exitOK, code, errs)
	first, err := os.ReadFile(filepath.Join(out, "result.json"))
	require.NoError(t, err)

	code, stdout, errs := runTrainCmd(append(base, "--epochs", "2", "--out", out, "--resume")...)
	assert.Equal(t, exitOK, code, errs)
	again, _ := os.ReadFile(filepath.Join(out, "result.json"))
	assert.Equal(t, string(first), string(again), "a resume of a finished run rewrote result.json")
	assert.Contains(t, stdout, "test accuracy")

	code, _, errs = runTrainCmd(append(base, "--epochs", "1", "--out", out, "--resume")...)
	assert.Equal(t, exitBadUsage, code, errs)
	assert.Contains(t, errs, "--epochs 1: the checkpoint")
	assert.Contains(t, errs, "holds 2 finished epochs; pass --epochs 2 or more")

	code, _, errs = runTrainCmd(append(base, "--epochs", "2", "--out", out)...)
	assert.Equal(t, exitBadUsage, code, errs)
	assert.Contains(t, errs, "holds the checkpoint of an earlier run")
	again, _ = os.ReadFile(filepath.Join(out, "result.json"))
	assert.Equal(t, string(first), string(again), "a refused run changed --out")

	// A resume that trains more epochs times all of them.
	code, _, errs = runTrainCmd(append(base, "--epochs", "3", "--out", out, "--resume", "--json")...)
	require.Equal(t, exitOK, code, errs)
	var res finishedRun
	b, _ := os.ReadFile(filepath.Join(out, "result.json"))
	require.NoError(t, json.Unmarshal(b, &res))
	require.Len(t, res.History, 3)
	var secs, images float64
	for _, e := range res.History {
		secs += e.Seconds
		images += float64(e.Images)
	}
	assert.GreaterOrEqual(t, res.WallSeconds, secs, "wall time covers every epoch")
	assert.InDelta(t, images/secs, res.TrainImagesPerSecond, 1e-6*images/secs, "throughput over every epoch")
}

// writeBags writes a bags file of n bags of size 10 over instances 0…10n−1
// of the fixture, with the proportions props(k) (10 classes).
func writeBags(t *testing.T, dir string, n int, props func(k int) string, indices func(k, j int) int) string {
	t.Helper()
	var bags []string
	for k := 0; k < n; k++ {
		var idx []string
		for j := 0; j < 10; j++ {
			idx = append(idx, fmt.Sprint(indices(k, j)))
		}
		bags = append(bags, fmt.Sprintf(`{"id": %d, "size": 10, "proportions": [%s], "indices": [%s]}`, k, props(k), strings.Join(idx, ",")))
	}
	p := filepath.Join(dir, "bags.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"num_classes": 10, "bags": [`+strings.Join(bags, ",")+`]}`), 0o644))
	return p
}

// A bags file whose every bag has proportions 0.1 once trained
// LLPFC with every group singular (loss ln 10, chance accuracy) without a
// word, though bags and groups warn on it.
func TestTrainWarnsOnSingularGroups(t *testing.T) {
	tenth := strings.TrimSuffix(strings.Repeat("0.1,", 10), ",")
	bags := writeBags(t, t.TempDir(), 30, func(int) string { return tenth }, func(k, j int) int { return 10*k + j })
	code, _, errs := runTrainCmd("--data", "fixture", "--bags", bags, "--epochs", "1", "--batch-size", "32", "--quiet")
	assert.Equal(t, exitOK, code, errs)
	assert.Contains(t, errs, "warning: LLPFC is likely to train poorly")
	assert.Contains(t, errs, "cannot learn from these bags")
}

// Messages: a bags file with a repeated instance index once named the
// wrong bag, and was refused for LLPFC but accepted for kl and supervised.
// It is refused for every method, naming both places.
func TestTrainRefusesRepeatedIndices(t *testing.T) {
	pure := func(k int) string {
		p := make([]string, 10)
		for c := range p {
			p[c] = "0"
		}
		p[k%10] = "1"
		return strings.Join(p, ",")
	}
	// Bag 3's first instance is bag 1's first.
	bags := writeBags(t, t.TempDir(), 12, pure, func(k, j int) int {
		if k == 3 && j == 0 {
			return 10
		}
		return 10*k + j
	})
	for _, method := range []string{"llpfc-uniform", "kl", "supervised"} {
		code, _, errs := runTrainCmd("--data", "fixture", "--bags", bags, "--method", method, "--epochs", "1", "--batch-size", "2", "--quiet")
		assert.Equal(t, exitBadUsage, code, "%s: %s", method, errs)
		assert.Contains(t, errs, "bags[3] (id 3): instance index 10 at position 0 is also at position 0 of bags[1] (id 1)", method)
	}
}

// End to end: features at 1e9 + N(0,1) against 1e9 + N(2,1) once
// trained `supervised` to chance (0.500) with exit status 0, since
// they were narrowed to float32 before standardizing.
func TestTrainOnLargeOffsetFeatures(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	b.WriteString("label,f\n")
	for i := 0; i < 800; i++ {
		fmt.Fprintf(&b, "%d,%.6f\n", i%2, 1e9+2*float64(i%2)+r.NormFloat64())
	}
	p := filepath.Join(dir, "offset.csv")
	require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
	code, out, errs := runTrainCmd("--data", "csv:"+p+","+p, "--method", "supervised", "--bag-size", "8", "--num-points", "512",
		"--epochs", "10", "--lr", "0.01", "--batch-size", "32", "--json", "--quiet")
	require.Equal(t, exitOK, code, errs)
	var res trainResult
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &res))
	assert.Greater(t, res.TestAccuracy, 0.75, "the Bayes accuracy is Φ(1) = 0.84")
}
