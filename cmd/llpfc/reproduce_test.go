package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
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
	return runCmd(append([]string{"reproduce"}, args...)...)
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
		c := experiments.Config{Method: method, Model: model, BagSize: bag, Hyper: experiments.Hyper{BatchSize: batch}}
		require.NoError(t, c.Hyper.BNStats.UnmarshalText([]byte(stats)))
		return c
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
		assert.Equal(t, tc.want, f, "%s %s bag %d × %d, stats %q", tc.c.Method, tc.c.Model, tc.c.BagSize, tc.c.Hyper.BatchSize, tc.c.Hyper.BNStats.String())
	}
}

// writeAdultFiles writes adult.data and adult.test in the UCI format (", "
// separators, '?' values, the test file's "|1x3 Cross validator" first line
// and trailing '.' on its labels) with income depending on age, education
// and hours, so that a classifier can learn it.
func writeAdultFiles(t *testing.T, dir string, nTrain, nTest int) {
	r := rand.New(rand.NewPCG(1, 2))
	works := []string{"Private", "Self-emp-not-inc", "State-gov", "?"}
	edus := []string{"Bachelors", "HS-grad", "Masters", "11th"}
	rec := func(test bool) string {
		age := 20 + r.IntN(50)
		edu := r.IntN(len(edus))
		hours := 20 + r.IntN(40)
		score := float64(age-40)/10 + float64(hours-40)/10 + []float64{1, -1, 2, -2}[edu] + r.NormFloat64()
		label := "<=50K"
		if score > 1 {
			label = ">50K"
		}
		if test {
			label += "."
		}
		country := "United-States"
		if r.IntN(10) == 0 {
			country = "?"
		}
		return fmt.Sprintf("%d, %s, %d, %s, %d, Never-married, Adm-clerical, Not-in-family, White, Male, 0, 0, %d, %s, %s\n",
			age, works[r.IntN(len(works))], 100000+r.IntN(100000), edus[edu], 9+edu, hours, country, label)
	}
	var tr, te strings.Builder
	for i := 0; i < nTrain; i++ {
		tr.WriteString(rec(false))
	}
	tr.WriteString("\n")
	te.WriteString("|1x3 Cross validator\n")
	for i := 0; i < nTest; i++ {
		te.WriteString(rec(true))
	}
	os.MkdirAll(filepath.Join(dir, "adult"), 0o755)
	os.WriteFile(filepath.Join(dir, "adult", "adult.data"), []byte(tr.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "adult", "adult.test"), []byte(te.String()), 0o644)
}

func writeMagicFile(t *testing.T, dir string, n int) {
	r := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for i := 0; i < n; i++ {
		g := r.IntN(2) == 0
		c := "h"
		if g {
			c = "g"
		}
		for j := 0; j < 10; j++ {
			v := 10*r.NormFloat64() + 50
			if g && j < 3 {
				v += 12
			}
			fmt.Fprintf(&b, "%.4f,", v)
		}
		b.WriteString(c + "\n")
	}
	os.WriteFile(filepath.Join(dir, "magic04.data"), []byte(b.String()), 0o644)
}

// Files in the UCI formats go end to end through `reproduce --table binary`:
// all five methods on both data sets and intervals, the table with the
// paper's numbers beside ours, the cell store, and a second run that only
// reports.
func TestReproduceBinaryOnGeneratedUCIFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("trains 5 methods × 2 data sets × 2 intervals with cross-validation")
	}
	dir := t.TempDir()
	writeAdultFiles(t, dir, 600, 200)
	writeMagicFile(t, dir, 500)
	res, rep := filepath.Join(dir, "res"), filepath.Join(dir, "rep")
	args := []string{"--table", "binary", "--data-dir", dir, "--results", res, "--out", rep,
		"--trials", "1", "--bag-sizes", "8", "--train-size", "160", "--test-size", "100"}
	var out, errb bytes.Buffer
	require.Equal(t, exitOK, runReproduce(args, &out, &errb), "stderr:\n%s", errb.String())
	md := out.String()
	for _, want := range []string{"## adult, label proportions in [0,0.5]", "## magic, label proportions in [0.5,1]",
		"| llpfc-approx |", "| alter-psvm |", " / 0.8720 ± 0.0035", "(1)"} {
		assert.Contains(t, md, want, "report lacks %q", want)
	}
	assert.False(t, strings.Contains(md, "| — |") || strings.Contains(md, "—  /"), "report has an empty cell:\n%s", md)
	cells, _ := filepath.Glob(filepath.Join(res, "cells", "*.json"))
	assert.Len(t, cells, 2*2*5, "cells stored")
	b, _ := os.ReadFile(filepath.Join(res, "cells", "adult_lp0-0.5_b8_t0_llpfc-uniform.json"))
	for _, want := range []string{`"selected"`, `"lambda"`, `"auc"`, `"cv"`, `"code_version"`, `"wall_seconds"`} {
		assert.True(t, bytes.Contains(b, []byte(want)), "stored cell lacks %s", want)
	}
	// A second run trains nothing.
	out.Reset()
	errb.Reset()
	code := runReproduce(args, &out, &errb)
	assert.True(t, code == exitOK && strings.Contains(errb.String(), "20 already in"), "second run: exit %d, stderr %s", code, errb.String())
}

func TestReproduceBinaryMissingFilesAndDryRun(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := runReproduce([]string{"--table", "binary", "--data-dir", dir, "--results", filepath.Join(dir, "r")}, &out, &errb)
	assert.True(t, code == exitBadUsage && strings.Contains(errb.String(), "archive.ics.uci.edu") && strings.Contains(errb.String(), "--offline"),
		"missing files: exit %d, stderr %s", code, errb.String())
	errb.Reset()
	code = runReproduce([]string{"--table=binary", "--dry-run", "--data-dir", dir}, &out, &errb)
	assert.True(t, code == exitOK && strings.Contains(errb.String(), "400 cells"), "dry run: exit %d, stderr %s", code, errb.String())
	assert.Equal(t, exitBadUsage, runReproduce([]string{"--table", "binary", "--methods", "svm"}, &out, &errb), "unknown method")
}
