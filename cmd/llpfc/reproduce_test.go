package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/experiments"
)

// miniQuick is a miniature of the quick grid: the same embedded
// Fashion-MNIST fixture, learner, model, protocol and Adam settings, but 640
// training points, 200 test points and one epoch, two methods × two bag sizes
// × two seeds = 8 cells of a fraction of a second each.
func miniQuick() *experiments.Spec {
	s, _ := experiments.BuiltinSpec("quick")
	s.Name = "quick-mini"
	s.Methods = []string{"llpfc-uniform", "kl"}
	s.BagSizes = []int{16, 64}
	s.NumPoints = 640
	s.TestPoints = 200
	s.Hyper.Epochs = 1
	return s
}

// withMiniQuick makes reproduce --quick run miniQuick for the test.
func withMiniQuick(t *testing.T) {
	t.Helper()
	old := reproduceSpecs["quick"]
	reproduceSpecs["quick"] = miniQuick
	t.Cleanup(func() { reproduceSpecs["quick"] = old })
}

func reproduce(t *testing.T, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	status = dispatch(append([]string{"reproduce"}, args...), &o, &e)
	return status, o.String(), e.String()
}

// TestReproduceQuickEndToEnd runs reproduce --quick (on the miniature grid)
// twice: the first run trains every cell and prints the table (a row per
// method, mean ± std in every bag-size column) and the paths of report.md
// and a PNG plot, which must exist; the second runs zero cells, reports at
// once and prints the same table.
func TestReproduceQuickEndToEnd(t *testing.T) {
	withMiniQuick(t)
	dir := t.TempDir()
	res, out := filepath.Join(dir, "results"), filepath.Join(dir, "report")
	status, stdout, stderr := reproduce(t, "--quick", "--results", res, "--out", out)
	if status != exitOK {
		t.Fatalf("status %d\nstdout:\n%s\nstderr:\n%s", status, stdout, stderr)
	}
	if !strings.Contains(stderr, "8 runs") || !strings.Contains(stderr, "8 to run") || !strings.Contains(stderr, "8 runs now, 0 already finished, 0 failed") {
		t.Errorf("plan/summary lines missing from stderr:\n%s", stderr)
	}
	if !strings.Contains(stderr, "cell 8/8 done") {
		t.Errorf("no progress lines in stderr:\n%s", stderr)
	}
	if !strings.Contains(stdout, "| Method | 16 | 64 |") {
		t.Errorf("no table header for bag sizes 16, 64 in stdout:\n%s", stdout)
	}
	cell := `\| 0\.\d{4} ± 0\.\d{4}( †)? ` // † marks a baseline with fewer than 100 optimizer steps
	for _, m := range []string{"LLPFC-uniform", "KL"} {
		row := regexp.MustCompile(`(?m)^\| ` + m + ` ` + cell + cell + `\|$`)
		if !row.MatchString(stdout) {
			t.Errorf("no row %q with two mean ± std cells in stdout:\n%s", m, stdout)
		}
	}
	md := filepath.Join(out, "report.md")
	if !strings.Contains(stdout, "report: "+md) {
		t.Errorf("stdout does not name %s:\n%s", md, stdout)
	}
	if b, err := os.ReadFile(md); err != nil || !strings.Contains(string(b), "| Method | 16 | 64 |") {
		t.Errorf("report.md: %v\n%s", err, b)
	}
	// One plot for the table and one of LLPFC's accuracy against ‖T̂⁻¹‖₁.
	plots := regexp.MustCompile(`(?m)^plot: +(\S+\.png)$`).FindAllStringSubmatch(stdout, -1)
	if len(plots) != 2 || filepath.Base(plots[1][1]) != "trouble.png" {
		t.Fatalf("want two plot lines in stdout, the table's and trouble.png, got %d:\n%s", len(plots), stdout)
	}
	for _, p := range plots {
		png, err := os.ReadFile(p[1])
		if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("plot %s is not a PNG (err %v)", p[1], err)
		}
	}
	cells, err := os.ReadDir(filepath.Join(res, "cells"))
	if err != nil || len(cells) != 8 {
		t.Errorf("store holds %d cells (err %v), want 8", len(cells), err)
	}

	status, stdout2, stderr2 := reproduce(t, "--results", res, "--out", out) // --quick is the default
	if status != exitOK {
		t.Fatalf("second run: status %d\n%s", status, stderr2)
	}
	if !strings.Contains(stderr2, "8 already in") || !strings.Contains(stderr2, "0 to run") ||
		!strings.Contains(stderr2, "0 runs now, 8 already finished") || strings.Contains(stderr2, "start:") {
		t.Errorf("second run trained cells:\n%s", stderr2)
	}
	if stdout2 != stdout {
		t.Errorf("second run's table differs:\nfirst:\n%s\nsecond:\n%s", stdout, stdout2)
	}
}

// TestReproduceDryRun checks that --dry-run prints the number of runs and a
// measured throughput and estimate, and neither trains nor creates the store.
func TestReproduceDryRun(t *testing.T) {
	withMiniQuick(t)
	res := filepath.Join(t.TempDir(), "results")
	status, stdout, stderr := reproduce(t, "--dry-run", "--results", res)
	if status != exitOK {
		t.Fatalf("status %d\n%s", status, stderr)
	}
	for _, want := range []string{"8 runs", "8 to run", "work: 5120 instance-epochs", "measured on this machine: mlp on 1×28×28 inputs", "estimate:", "CPU-hours"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if stdout != "" || strings.Contains(stderr, "start:") {
		t.Errorf("dry run trained or reported:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if _, err := os.Stat(res); !os.IsNotExist(err) {
		t.Errorf("dry run created %s (err %v)", res, err)
	}
}

// TestReproduceBadUsage checks the usage errors: each exits with status 2
// and a message naming the flag.
func TestReproduceBadUsage(t *testing.T) {
	empty := t.TempDir()
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--quick", "--table", "vgg16"}, []string{"--quick and --table are exclusive"}},
		{[]string{"--table", "table5"}, []string{`--table "table5": unknown`, "wrn16-4, resnet18, vgg16, llpgan"}},
		{[]string{"--shard", "3/2"}, []string{"--shard", "1 ≤ i ≤ n"}},
		{[]string{"--table", "vgg16", "--data-dir", empty, "--results", filepath.Join(empty, "r")},
			[]string{"Nvidia Tesla v100 GPU", "trains in float32 on the CPU", "cifar10:", "data sets missing", "nothing was run"}},
		{[]string{"stray"}, []string{`unexpected argument "stray"`}},
	}
	for _, tt := range tests {
		status, _, stderr := reproduce(t, tt.args...)
		if status != exitBadUsage {
			t.Errorf("%v: status %d, want %d\n%s", tt.args, status, exitBadUsage, stderr)
		}
		for _, w := range tt.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", tt.args, w, stderr)
			}
		}
	}
}
