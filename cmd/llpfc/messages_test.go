package main

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Messages: `reproduce --quick --model cnn` was once refused with a
// message about "the paper's tables", which the quick grid is not.
func TestReproduceQuickModelMessage(t *testing.T) {
	var o, e bytes.Buffer
	assert.Equal(t, exitBadUsage, dispatch([]string{"reproduce", "--quick", "--model", "cnn", "--dry-run"}, &o, &e))
	assert.Contains(t, e.String(), "the quick grid trains the mlp")
	assert.NotContains(t, e.String(), "paper's tables")
	e.Reset()
	assert.Equal(t, exitBadUsage, dispatch([]string{"reproduce", "--table", "vgg16", "--model", "cnn", "--dry-run"}, &o, &e))
	assert.Contains(t, e.String(), "the paper's tables (--table vgg16) fix their networks")
}

// Exit codes: `bench --model cnn --height 2 --width 2` and
// `bench --model llpgan-g` once exited 1 (the model could not be built), and an
// image too large for the memory ran out of it. Each is bad input now,
// refused before anything is allocated.
func TestBenchRefusesWhatCannotRun(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "cnn", "--height", "2", "--width", "2"}, "model cnn takes images of at least 4×4"},
		{[]string{"--model", "vgg16", "--height", "28", "--width", "28"}, "at least 32×32"},
		{[]string{"--model", "llpgan-g"}, `--model "llpgan-g": unknown`},
		{[]string{"--model", "mlp", "--method", "llpgan"}, "--method llpgan trains its discriminator llpgan-d"},
		{[]string{"--model", "cnn", "--height", "30000", "--width", "30000"}, "--channels, --height and --width"},
	} {
		var o, e bytes.Buffer
		assert.Equal(t, exitBadUsage, dispatch(append([]string{"bench", "--steps", "1", "--warmup", "0"}, tc.args...), &o, &e), "%v: %s", tc.args, e.String())
		assert.Contains(t, e.String(), tc.want, "%v", tc.args)
	}
}

// Messages: SIGINT during `report` once left ".NAME.png.tmp-NNN"
// files. The report now stops between two files at the first signal, and
// whenever the signal comes, its directory holds whole files only.
func TestReportInterruptedLeavesNoTemporaries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildLLPFC(t)
	dir := t.TempDir()
	store, err := grid.OpenStore(filepath.Join(dir, "store"))
	require.NoError(t, err)
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 40; i++ { // 40 tables: a report of a few seconds
		c := storeConfig("s", fmt.Sprintf("csv:d%d.csv", i), "kl", "paper", 64, 0, false)
		require.NoError(t, store.Put(storeResult(r, "s", c)))
	}
	out := filepath.Join(dir, "report")
	for _, wait := range []time.Duration{300 * time.Millisecond, 900 * time.Millisecond} {
		cmd := exec.Command(bin, "report", "--results", store.Dir, "--out", out)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		time.Sleep(wait)
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		temps, _ := filepath.Glob(filepath.Join(out, ".*"))
		assert.Empty(t, temps, "after SIGINT at %v: %s", wait, stderr.String())
		assert.NotContains(t, stderr.String(), "internal error")
	}
}

// A class that runs short while drawing bags is named by its label as well
// as its index: with labels -1, 0, 1, 2, "class 0" alone read as the label 0
// (found trying odd CSV files as a new user, 2026-11-28).
func TestShortClassNamedByLabel(t *testing.T) {
	dir := t.TempDir()
	csv := "f1,label\n0.5,-1\n"
	for i := 0; i < 300; i++ {
		csv += fmt.Sprintf("%d.25,%d\n", i, i%3)
	}
	path := filepath.Join(dir, "train.csv")
	require.NoError(t, os.WriteFile(path, []byte(csv), 0o644))
	var o, e bytes.Buffer
	code := dispatch([]string{"bags", "--data", "csv:" + path + "@label", "--bag-size", "8", "--num-points", "200",
		"--protocol", "paper", "--shortfall", "strict", "--seed", "1", "--out", filepath.Join(dir, "out.bags")}, &o, &e)
	assert.Equal(t, exitBadUsage, code, e.String())
	assert.Regexp(t, `class 0 \(label "-1"\) needs \d+ more points`, e.String())
	e.Reset()
	code = dispatch([]string{"train", "--data", "csv:" + path + "," + path + "@label", "--bag-size", "8", "--num-points", "200",
		"--epochs", "1"}, &o, &e)
	assert.Equal(t, exitBadUsage, code, e.String())
	assert.Regexp(t, `class 0 \(label "-1"\) needs \d+ more points`, e.String())
}
