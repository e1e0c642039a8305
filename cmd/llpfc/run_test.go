package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// killSpec is a grid of 2 methods × 3 bag sizes × 3 seeds = 18 cells of the
// logistic learner, each taking a fraction of a second.
const killSpec = `{
  "name": "kill-test",
  "learner": "logreg",
  "model": "linear",
  "datasets": ["gmm:classes=4,dim=8,train=12000,test=1000,sep=2.5"],
  "methods": ["llpfc-uniform", "kl"],
  "bag_sizes": [16, 64, 256],
  "seeds": [1, 2, 3],
  "protocol": "paper",
  "num_points": 8192,
  "hyper": {"epochs": 12, "optimizer": "adam", "lr": 0.02, "batch_size": 32,
            "schedule": {"kind": "constant"}, "regroup_every": 3},
  "overrides": [{"when": {"methods": ["kl"]}, "set": {"hyper": {"batch_size": 2}}}]
}`

func buildLLPFC(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "llpfc")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

func storeKeys(t *testing.T, dir string) []string {
	t.Helper()
	_, err := os.ReadDir(filepath.Join(dir, "cells"))
	require.NoError(t, err)
	return storeKeysIfAny(dir)
}

var runLine = regexp.MustCompile(`(\d+) of (\d+) cells in this shard; (\d+) run now, (\d+) already finished, (\d+) failed`)

// runCounts runs the binary to completion and returns its counts.
func runCounts(t *testing.T, bin string, args ...string) (inShard, ran, skipped int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "llpfc %v: %s%s", args, stdout.String(), stderr.String())
	m := runLine.FindStringSubmatch(stdout.String())
	require.True(t, m != nil && m[5] == "0", "llpfc %v: unexpected output %q", args, stdout.String())
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[3])
	c, _ := strconv.Atoi(m[4])
	return a, b, c
}

// Killing `llpfc run` mid-grid with SIGKILL and running it again finishes the
// grid with every cell exactly once; the resumed store equals the merge of
// two shard stores (same keys, same outcomes); and `llpfc report` renders
// it.
func TestRunKillResumeShardMergeReport(t *testing.T) {
	bin := buildLLPFC(t)
	work := t.TempDir()
	specPath := filepath.Join(work, "spec.json")
	require.NoError(t, os.WriteFile(specPath, []byte(killSpec), 0o644))
	spec, err := grid.LoadSpec(specPath)
	require.NoError(t, err)
	cells, _ := spec.Cells()
	var want []string
	for _, c := range cells {
		want = append(want, c.Key)
	}
	sort.Strings(want)

	// Start, wait for a few finished cells, SIGKILL.
	res := filepath.Join(work, "res")
	cmd := exec.Command(bin, "run", specPath, "--results", res)
	var errBuf bytes.Buffer
	cmd.Stderr = &errBuf
	require.NoError(t, cmd.Start())
	deadline := time.Now().Add(60 * time.Second)
	for {
		if ks, err := os.ReadDir(filepath.Join(res, "cells")); err == nil && len(ks) >= 3 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			require.FailNow(t, "no cell finished within 60 s", errBuf.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	cmd.Wait()
	killed := storeKeys(t, res)
	require.Less(t, len(killed), len(want), "the run finished every cell before the kill; the test needs a longer grid")
	t.Logf("killed after %d of %d cells", len(killed), len(want))

	// Resume: exactly the missing cells run.
	inShard, ran, skipped := runCounts(t, bin, "run", specPath, "--results", res)
	assert.Equal(t, len(want), inShard, "resume: cells in the shard")
	assert.Equal(t, len(killed), skipped, "resume: cells skipped")
	assert.Equal(t, len(want)-len(killed), ran, "resume: cells run")
	require.Equal(t, want, storeKeys(t, res), "store after resume")
	// A third run does nothing.
	_, ran, skipped = runCounts(t, bin, "run", specPath, "--results", res)
	assert.Equal(t, 0, ran, "third run: cells run")
	assert.Equal(t, len(want), skipped, "third run: cells skipped")

	// Two shards (flags after the spec, and before it), merged.
	s1, s2 := filepath.Join(work, "s1"), filepath.Join(work, "s2")
	n1, _, _ := runCounts(t, bin, "run", specPath, "--shard", "1/2", "--results", s1)
	n2, _, _ := runCounts(t, bin, "run", "--shard", "2/2", "--results", s2, specPath)
	assert.Equal(t, len(want), n1+n2, "shards of %d and %d cells", n1, n2)
	assert.LessOrEqual(t, max(n1-n2, n2-n1), 1, "shards of %d and %d cells", n1, n2)
	merged := filepath.Join(work, "merged")
	out, err := exec.Command(bin, "merge", "--out", merged, s1, s2).CombinedOutput()
	require.NoError(t, err, "merge: %s", out)
	a, err := (&grid.Store{Dir: res}).All()
	require.NoError(t, err)
	b, err := (&grid.Store{Dir: merged}).All()
	require.NoError(t, err)
	require.Len(t, b, len(a), "merged shards vs resumed store")
	for i := range a {
		ja, _ := json.Marshal(a[i].Metrics)
		jb, _ := json.Marshal(b[i].Metrics)
		assert.True(t, a[i].SameOutcome(b[i]), "cell %s: resumed %s, merged %s", a[i].Key, ja, jb)
	}

	// Merging a store with a conflicting result fails naming the key.
	bad := filepath.Join(work, "bad")
	os.MkdirAll(filepath.Join(bad, "cells"), 0o755)
	r := *a[0]
	r.Metrics.TestAccuracy = 1 - r.Metrics.TestAccuracy
	require.NoError(t, (&grid.Store{Dir: bad}).Put(&r))
	out, err = exec.Command(bin, "merge", "--out", merged, bad).CombinedOutput()
	assert.Error(t, err, "conflicting merge")
	assert.Contains(t, string(out), r.Key, "conflicting merge names the key")

	// Report.
	rep := filepath.Join(work, "report")
	var stdout, stderr bytes.Buffer
	rc := exec.Command(bin, "report", "--results", merged, "--out", rep)
	rc.Stdout, rc.Stderr = &stdout, &stderr
	require.NoError(t, rc.Run(), "report: %s", stderr.String())
	assert.Contains(t, stdout.String(), "| LLPFC-uniform |", "report output")
	assert.Contains(t, stdout.String(), "| Method | 16 | 64 | 256 |", "report output")
	pngs, _ := filepath.Glob(filepath.Join(rep, "*.png"))
	assert.Len(t, pngs, 1, "plots the report wrote")
}

// Bad usage exits 2 with a message naming the problem.
func TestRunMergeReportUsage(t *testing.T) {
	dir := t.TempDir()
	badSpec := filepath.Join(dir, "bad.json")
	os.WriteFile(badSpec, []byte(strings.Replace(killSpec, `"lr": 0.02`, `"lr": 0`, 1)), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "want exactly one SPEC"},
		{[]string{"run", "no-such-spec"}, "neither a built-in spec"},
		{[]string{"run", badSpec}, "hyper.lr: is 0"},
		{[]string{"run", "quick", "--shard", "3/2"}, "--shard"},
		{[]string{"merge", dir}, "want --out DIR"},
		{[]string{"merge", "--out", dir, filepath.Join(dir, "nope")}, "not a results directory"},
		{[]string{"report", "--results", filepath.Join(dir, "nope")}, "not a results directory"},
	} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, exitBadUsage, dispatch(tc.args, &stdout, &stderr), "%v", tc.args)
		assert.Contains(t, stderr.String(), tc.want, "%v", tc.args)
	}
	// --print-spec prints a spec that parses back to the same cells.
	var pout, perr bytes.Buffer
	require.Equal(t, exitOK, dispatch([]string{"run", "vgg16", "--print-spec"}, &pout, &perr), "--print-spec: %s", perr.String())
	back, err := grid.ParseSpec("printed", &pout)
	require.NoError(t, err, "printed spec does not parse")
	orig, _ := grid.BuiltinSpec("vgg16")
	c1, _ := orig.Cells()
	c2, _ := back.Cells()
	if assert.Len(t, c2, len(c1), "printed vgg16 spec: cells") {
		assert.Equal(t, c1[0].Key, c2[0].Key, "printed vgg16 spec: first cell")
		assert.Equal(t, c1[len(c1)-1].Key, c2[len(c2)-1].Key, "printed vgg16 spec: last cell")
	}
	// --list shows the cells without training.
	var stdout, stderr bytes.Buffer
	require.Equal(t, exitOK, dispatch([]string{"run", "wrn16-4", "--list", "--shard", "1/10", "--results", dir}, &stdout, &stderr), "run --list: %s", stderr.String())
	assert.Equal(t, 42, strings.Count(stdout.String(), "todo"), "--list shard 1/10 of wrn16-4: cells (420 / 10)")
}
