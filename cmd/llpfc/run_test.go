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

	"github.com/llpfc/llpfc/experiments"
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
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func storeKeys(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, "cells"))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range ents {
		if n := e.Name(); !strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".json") {
			keys = append(keys, strings.TrimSuffix(n, ".json"))
		}
	}
	return keys
}

var runLine = regexp.MustCompile(`(\d+) of (\d+) cells in this shard; (\d+) run now, (\d+) already finished, (\d+) failed`)

// runCounts runs the binary to completion and returns its counts.
func runCounts(t *testing.T, bin string, args ...string) (inShard, ran, skipped int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("llpfc %v: %v\n%s%s", args, err, stdout.String(), stderr.String())
	}
	m := runLine.FindStringSubmatch(stdout.String())
	if m == nil || m[5] != "0" {
		t.Fatalf("llpfc %v: unexpected output %q", args, stdout.String())
	}
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
	if err := os.WriteFile(specPath, []byte(killSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := experiments.LoadSpec(specPath)
	if err != nil {
		t.Fatal(err)
	}
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
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if ks, err := os.ReadDir(filepath.Join(res, "cells")); err == nil && len(ks) >= 3 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no cell finished within 60 s:\n%s", errBuf.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	killed := storeKeys(t, res)
	if len(killed) >= len(want) {
		t.Fatalf("the run finished all %d cells before the kill; the test needs a longer grid", len(want))
	}
	t.Logf("killed after %d of %d cells", len(killed), len(want))

	// Resume: exactly the missing cells run.
	inShard, ran, skipped := runCounts(t, bin, "run", specPath, "--results", res)
	if inShard != len(want) || skipped != len(killed) || ran != len(want)-len(killed) {
		t.Errorf("resume ran %d and skipped %d of %d; want %d and %d", ran, skipped, inShard, len(want)-len(killed), len(killed))
	}
	got := storeKeys(t, res)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("store after resume has keys\n%v\nwant\n%v", got, want)
	}
	// A third run does nothing.
	if _, ran, skipped := runCounts(t, bin, "run", specPath, "--results", res); ran != 0 || skipped != len(want) {
		t.Errorf("third run ran %d, skipped %d", ran, skipped)
	}

	// Two shards (flags after the spec, and before it), merged.
	s1, s2 := filepath.Join(work, "s1"), filepath.Join(work, "s2")
	n1, _, _ := runCounts(t, bin, "run", specPath, "--shard", "1/2", "--results", s1)
	n2, _, _ := runCounts(t, bin, "run", "--shard", "2/2", "--results", s2, specPath)
	if n1+n2 != len(want) || n1-n2 > 1 || n2-n1 > 1 {
		t.Errorf("shards of %d and %d cells for a grid of %d", n1, n2, len(want))
	}
	merged := filepath.Join(work, "merged")
	if out, err := exec.Command(bin, "merge", "--out", merged, s1, s2).CombinedOutput(); err != nil {
		t.Fatalf("merge: %v\n%s", err, out)
	}
	a, err := (&experiments.Store{Dir: res}).All()
	if err != nil {
		t.Fatal(err)
	}
	b, err := (&experiments.Store{Dir: merged}).All()
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("resumed store %d results, merged shards %d", len(a), len(b))
	}
	for i := range a {
		if !a[i].SameOutcome(b[i]) {
			ja, _ := json.Marshal(a[i].Metrics)
			jb, _ := json.Marshal(b[i].Metrics)
			t.Errorf("cell %s: resumed %s, merged %s", a[i].Key, ja, jb)
		}
	}

	// Merging a store with a conflicting result fails naming the key.
	bad := filepath.Join(work, "bad")
	os.MkdirAll(filepath.Join(bad, "cells"), 0o755)
	r := *a[0]
	r.Metrics.TestAccuracy = 1 - r.Metrics.TestAccuracy
	if err := (&experiments.Store{Dir: bad}).Put(&r); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "merge", "--out", merged, bad).CombinedOutput()
	if err == nil || !strings.Contains(string(out), r.Key) {
		t.Errorf("conflicting merge: %v, output %q; want failure naming %s", err, out, r.Key)
	}

	// Report.
	rep := filepath.Join(work, "report")
	var stdout, stderr bytes.Buffer
	rc := exec.Command(bin, "report", "--results", merged, "--out", rep)
	rc.Stdout, rc.Stderr = &stdout, &stderr
	if err := rc.Run(); err != nil {
		t.Fatalf("report: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "| LLPFC-uniform |") || !strings.Contains(stdout.String(), "| Method | 16 | 64 | 256 |") {
		t.Errorf("report output:\n%s", stdout.String())
	}
	pngs, _ := filepath.Glob(filepath.Join(rep, "*.png"))
	if len(pngs) != 1 {
		t.Errorf("report wrote %d plots, want 1", len(pngs))
	}
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
		if code := dispatch(tc.args, &stdout, &stderr); code != exitBadUsage {
			t.Errorf("%v: exit %d, want %d", tc.args, code, exitBadUsage)
		}
		if !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: stderr %q lacks %q", tc.args, stderr.String(), tc.want)
		}
	}
	// --print-spec prints a spec that parses back to the same cells.
	var pout, perr bytes.Buffer
	if code := dispatch([]string{"run", "vgg16", "--print-spec"}, &pout, &perr); code != exitOK {
		t.Fatalf("--print-spec: exit %d: %s", code, perr.String())
	}
	back, err := experiments.ParseSpec("printed", &pout)
	if err != nil {
		t.Fatalf("printed spec does not parse: %v", err)
	}
	orig, _ := experiments.BuiltinSpec("vgg16")
	c1, _ := orig.Cells()
	c2, _ := back.Cells()
	if len(c1) != len(c2) || c1[0].Key != c2[0].Key || c1[len(c1)-1].Key != c2[len(c2)-1].Key {
		t.Errorf("printed vgg16 spec expands to other cells")
	}
	// --list shows the cells without training.
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"run", "wrn16-4", "--list", "--shard", "1/10", "--results", dir}, &stdout, &stderr); code != exitOK {
		t.Fatalf("run --list: exit %d: %s", code, stderr.String())
	}
	if n := strings.Count(stdout.String(), "todo"); n != 42 { // 420 cells / 10
		t.Errorf("--list shard 1/10 of wrn16-4 shows %d cells, want 42", n)
	}
}
