package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// miniQuick is a miniature of the quick grid: the same embedded
// Fashion-MNIST fixture, learner, model, protocol and Adam settings, but 640
// training points, 200 test points and one epoch, two methods × two bag sizes
// × two seeds = 8 cells of a fraction of a second each.
func miniQuick() *grid.Spec {
	s, _ := grid.BuiltinSpec("quick")
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
	require.Equal(t, exitOK, status, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	for _, want := range []string{"8 runs", "8 to run", "8 runs now, 0 already finished, 0 failed"} {
		assert.Contains(t, stderr, want, "plan/summary line")
	}
	assert.Contains(t, stderr, "cell 8/8 done", "progress lines")
	assert.Contains(t, stdout, "| Method | 16 | 64 |", "table header for bag sizes 16, 64")
	cell := `\| 0\.\d{4} ± 0\.\d{4}( †)? ` // † marks a baseline with fewer than 100 optimizer steps
	for _, m := range []string{"LLPFC-uniform", "KL"} {
		row := regexp.MustCompile(`(?m)^\| ` + m + ` ` + cell + cell + `\|$`)
		assert.Regexp(t, row, stdout, "row %q with two mean ± std cells", m)
	}
	md := filepath.Join(out, "report.md")
	assert.Contains(t, stdout, "report: "+md)
	b, err := os.ReadFile(md)
	if assert.NoError(t, err, "report.md") {
		assert.Contains(t, string(b), "| Method | 16 | 64 |", "report.md")
	}
	// One plot for the table and one of LLPFC's accuracy against ‖T̂⁻¹‖₁.
	plots := regexp.MustCompile(`(?m)^plot: +(\S+\.png)$`).FindAllStringSubmatch(stdout, -1)
	require.Len(t, plots, 2, "two plot lines in stdout, the table's and trouble.png:\n%s", stdout)
	require.Equal(t, "trouble.png", filepath.Base(plots[1][1]))
	for _, p := range plots {
		png, err := os.ReadFile(p[1])
		if assert.NoError(t, err, "plot %s", p[1]) {
			assert.True(t, bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")), "plot %s is not a PNG", p[1])
		}
	}
	cells, err := os.ReadDir(filepath.Join(res, "cells"))
	assert.NoError(t, err)
	assert.Len(t, cells, 8, "cells in the store")

	status, stdout2, stderr2 := reproduce(t, "--results", res, "--out", out) // --quick is the default
	require.Equal(t, exitOK, status, "second run: %s", stderr2)
	for _, want := range []string{"8 already in", "0 to run", "0 runs now, 8 already finished"} {
		assert.Contains(t, stderr2, want, "second run")
	}
	assert.NotContains(t, stderr2, "start:", "second run trained cells")
	assert.Equal(t, stdout, stdout2, "second run's table")
}

// TestReproduceDryRun checks that --dry-run prints the number of runs and a
// measured throughput and estimate, and neither trains nor creates the store.
func TestReproduceDryRun(t *testing.T) {
	withMiniQuick(t)
	res := filepath.Join(t.TempDir(), "results")
	status, stdout, stderr := reproduce(t, "--dry-run", "--results", res)
	require.Equal(t, exitOK, status, stderr)
	for _, want := range []string{"8 runs", "8 to run", "work: 5120 instance-epochs", "measured on this machine: mlp on 1×28×28 inputs", "estimate:", "CPU-hours"} {
		assert.Contains(t, stderr, want)
	}
	assert.Empty(t, stdout, "dry run reported")
	assert.NotContains(t, stderr, "start:", "dry run trained")
	_, err := os.Stat(res)
	assert.True(t, os.IsNotExist(err), "dry run created %s (err %v)", res, err)
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
		assert.Equal(t, exitBadUsage, status, "%v: %s", tt.args, stderr)
		for _, w := range tt.want {
			assert.Contains(t, stderr, w, "%v", tt.args)
		}
	}
}

// TestExactBNFactor: the plan's estimate counts a kl or llpvat cell with a
// batch-norm network K + 1 times when its bag minibatch spans several chunks
// (the statistics and adjoint sweeps of exact whole-minibatch batch norm),
// once otherwise: with per-chunk statistics, within one chunk, without batch
// norm, and for LLPFC.
func TestExactBNFactor(t *testing.T) {
	cifar := inputShape{C: 3, H: 32, W: 32, Classes: 10}
	cell := func(method, model string, bag, batch int, stats string) experiments.Config {
		return experiments.Config{Method: method, Model: model, BagSize: bag,
			Hyper: experiments.Hyper{BatchSize: batch, BNStats: stats}}
	}
	cache := map[string]int{}
	for _, tc := range []struct {
		c    experiments.Config
		want int64
	}{
		{cell("kl", "wrn-16-4", 256, 2, ""), 14},      // 512 instances > 256: 13 layers + 1
		{cell("llpvat", "wrn-16-4", 1024, 2, ""), 14}, // likewise
		{cell("kl", "wrn-16-4", 128, 2, ""), 1},       // 256 instances: one chunk
		{cell("kl", "wrn-16-4", 256, 2, "chunk"), 1},  // per-chunk statistics
		{cell("kl", "mlp", 2048, 2, ""), 1},           // no batch norm
		{cell("llpfc-uniform", "wrn-16-4", 2048, 128, ""), 1},
	} {
		f, err := exactBNFactor(tc.c, cifar, cache)
		require.NoError(t, err)
		assert.Equal(t, tc.want, f, "%s %s bag %d × %d, stats %q", tc.c.Method, tc.c.Model, tc.c.BagSize, tc.c.Hyper.BatchSize, tc.c.Hyper.BNStats)
	}
}
