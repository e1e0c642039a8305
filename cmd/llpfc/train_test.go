package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runTrainCmd(args ...string) (code int, stdout, stderr string) {
	return runCmd(append([]string{"train"}, args...)...)
}

// TestTrainJSONContract trains each built-in method briefly on the embedded
// fixture and checks the last stdout line is one JSON object with the
// contract's fields, sensible values, and that the same seed repeats the
// test accuracy (for llpfc-uniform; determinism of every method is tested
// in package training).
func TestTrainJSONContract(t *testing.T) {
	for _, method := range []string{"llpfc-uniform", "kl"} {
		args := []string{"--data", "fixture", "--method", method, "--model", "mlp", "--bag-size", "16", "--num-points", "640",
			"--protocol", "paper", "--epochs", "2", "--optimizer", "adam", "--lr", "1e-3", "--regroup-every", "1", "--seed", "3", "--json", "--quiet"}
		if method != "kl" {
			args = append(args, "--batch-size", "32")
		}
		var accs []float64
		runs := 1
		if method == "llpfc-uniform" {
			runs = 2
		}
		for run := 0; run < runs; run++ {
			code, out, errOut := runTrainCmd(args...)
			require.Equal(t, exitOK, code, "%s: %s", method, errOut)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			var got map[string]any
			require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &got), "%s: last line %q", method, lines[len(lines)-1])
			for _, k := range []string{"test_accuracy", "epochs", "wall_seconds", "train_images_per_second", "peak_rss_bytes"} {
				v, ok := got[k].(float64)
				require.True(t, ok, "%s: field %s missing or not a number in %v", method, k, got)
				if k != "test_accuracy" {
					assert.Greater(t, v, 0.0, "%s: %s", method, k)
				}
			}
			assert.Equal(t, 2.0, got["epochs"], "%s: epochs", method)
			assert.Equal(t, "cpu", got["device"], "%s: the device that trained", method)
			settings, ok := got["settings"].(map[string]any)
			require.True(t, ok, "%s: settings missing", method)
			for k, v := range map[string]string{"method": method, "bn_stats": "minibatch", "kl_scale": "authors", "chunk_size": "256", "run.bag_size": "16"} {
				assert.Equal(t, v, settings[k], "%s: settings[%s]", method, k)
			}
			acc := got["test_accuracy"].(float64)
			// 10 classes: better than chance after 2 epochs
			assert.True(t, acc > 0.1 && acc <= 1, "%s: test accuracy %v, want in (0.1, 1]", method, acc)
			accs = append(accs, acc)
		}
		if len(accs) == 2 {
			assert.Equal(t, accs[0], accs[1], "%s: the same seed", method)
		}
	}
}

// TestTrainOutAndResume writes result.json and a checkpoint, then resumes a
// longer run from it and checks it equals an uninterrupted run.
func TestTrainOutAndResume(t *testing.T) {
	dir := t.TempDir()
	base := []string{"--data", "fixture", "--method", "llpfc-approx", "--model", "mlp", "--bag-size", "16", "--num-points", "320",
		"--optimizer", "nesterov", "--lr", "0.01", "--weight-decay", "5e-4", "--batch-size", "32", "--regroup-every", "1", "--seed", "5", "--json", "--quiet"}
	code, _, errOut := runTrainCmd(append(base, "--epochs", "1", "--out", dir)...)
	require.Equal(t, exitOK, code, errOut)
	for _, f := range []string{"result.json", "checkpoint.gob"} {
		_, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, f)
	}
	code, resumed, errOut := runTrainCmd(append(base, "--epochs", "2", "--out", dir, "--resume")...)
	require.Equal(t, exitOK, code, "resume: %s", errOut)
	code, straight, errOut := runTrainCmd(append(base, "--epochs", "2")...)
	require.Equal(t, exitOK, code, "straight: %s", errOut)
	acc := func(out string) float64 {
		lines := strings.Split(strings.TrimSpace(out), "\n")
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &m))
		return m["test_accuracy"].(float64)
	}
	assert.Equal(t, acc(straight), acc(resumed), "resumed accuracy vs uninterrupted")
}

func TestTrainBadUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--data", "fixture", "--method", "bogus", "--epochs", "1", "--num-points", "320", "--bag-size", "16"},
		{"--data", "fixture", "--optimizer", "rmsprop", "--epochs", "1", "--num-points", "320", "--bag-size", "16"},
		{"--data", "nope"},
		{"--data", "fixture", "--milestones", "5,x"},
		{"--data", "fixture", "--resume"},
		{"--data", "fixture", "--bag-size", "16", "--num-points", "100"},
		{"--data", t.TempDir()},
		{"--data", "fixture", "--augment", "mixup"},
	} {
		code, _, errOut := runTrainCmd(args...)
		assert.NotEqual(t, exitOK, code, "%v: want a failure", args)
		assert.NotEmpty(t, errOut, "%v: want a message", args)
	}
}

// TestTrainPreset checks that --preset runs a built-in table's cell and that
// explicit flags win: the quick table's LLPFC-uniform cell at bag size 64 is
// Adam (lr 1e-3, here overridden to 0.05) with minibatches of 128 on the mlp,
// here 1 epoch on 640 points for speed.
func TestTrainPreset(t *testing.T) {
	code, out, errOut := runTrainCmd("--data", "fixture", "--preset", "quick", "--method", "llpfc-uniform", "--lr", "0.05", "--epochs", "1",
		"--bag-size", "64", "--num-points", "640", "--json", "--quiet")
	require.Equal(t, exitOK, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var got struct {
		Config experiments.Config `json:"config"`
		Epochs int                `json:"epochs"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &got))
	assert.Equal(t, "adam", got.Config.Hyper.Optimizer, "the preset's optimizer")
	assert.Equal(t, 0.05, got.Config.Hyper.LR, "--lr given explicitly wins")
	assert.Equal(t, 128, got.Config.Hyper.BatchSize, "the preset's minibatch")
	assert.Equal(t, "mlp", got.Config.Model, "the preset's model")
	assert.Equal(t, 1, got.Epochs, "--epochs given explicitly wins")
	assert.Equal(t, 1, got.Config.Hyper.Epochs)
	assert.Equal(t, 640, got.Config.NumPoints, "--num-points given explicitly wins")
	code, _, _ = runTrainCmd("--data", "fixture", "--preset", "nope")
	assert.Equal(t, exitBadUsage, code, "unknown preset")
}

// TestTrainDeviceFlag: --device names a registered back end or
// is refused with exit 2 before anything is read; the CPU is the default.
func TestTrainDeviceFlag(t *testing.T) {
	code, _, errOut := runTrainCmd("--data", "fixture", "--device", "tpu", "--epochs", "1")
	assert.Equal(t, exitBadUsage, code, errOut)
	assert.Contains(t, errOut, "--device")
	assert.Contains(t, errOut, `"tpu"`)
	assert.Contains(t, errOut, "cpu", "the message lists the known back ends")
}

// TestTrainValBagsSelect: --val-bags and --select best-val put
// the selected epoch and its validation KL in the result, beside the
// scores every result has; a selection without held-out bags, a
// fractional count and an unknown selection exit 2.
func TestTrainValBagsSelect(t *testing.T) {
	code, out, errOut := runTrainCmd("--data", "fixture", "--bag-size", "16", "--num-points", "640", "--epochs", "3", "--batch-size", "32",
		"--val-bags", "0.2", "--select", "best-val", "--json", "--quiet")
	require.Equal(t, exitOK, code, errOut)
	got := lastJSON(t, out)
	sel, ok := got["selected_epoch"].(float64)
	require.True(t, ok, "selected_epoch in %v", got)
	assert.True(t, sel >= 1 && sel <= 3, "selected_epoch %v, want an epoch 1…3 as progress counts them", sel)
	assert.Greater(t, got["val_kl"].(float64), 0.0)
	scores := got["scores"].(map[string]any)
	assert.Equal(t, got["test_accuracy"], scores["accuracy"])
	assert.Greater(t, got["bag_proportion_error"].(float64), 0.0)
	for _, args := range [][]string{{"--select", "best-val"}, {"--val-bags", "2.5"}, {"--select", "best"}, {"--val-bags", "-1"}} {
		code, _, errOut := runTrainCmd(append([]string{"--data", "fixture", "--epochs", "1"}, args...)...)
		assert.Equal(t, exitBadUsage, code, "%v: %s", args, errOut)
	}
}

// Features of scale 1e4 fed unstandardized (--normalize none) overflow
// the network at the first step: training stops before any update, exit 1,
// and the message says why and what fixes it (training.NonFiniteError).
func TestNonFiniteLossNamesTheNormalization(t *testing.T) {
	var b strings.Builder
	b.WriteString("label,a,b\n")
	for i := 0; i < 400; i++ {
		y := i % 2
		fmt.Fprintf(&b, "%d,%.1f,%.1f\n", y, 1e4*(float64(y)+float64(i%7)/7), 3e3*float64(i%5)/5)
	}
	f := writeFile(t, t.TempDir(), "big.csv", b.String())
	code, _, errOut := runTrainCmd("--data", "csv:"+f+","+f, "--method", "kl", "--bag-size", "2", "--epochs", "1", "--normalize", "none", "--quiet")
	assert.Equal(t, exitFailed, code, errOut)
	assert.Contains(t, errOut, "KL loss is NaN")
	assert.Contains(t, errOut, `the inputs are not standardized, normalize "none"`)
}

// A resume with any setting that enters the
// result changed is refused, naming the field, instead of continuing another
// run's checkpoint under new labels; the same settings resume.
func TestTrainResumeRefusesOtherSettings(t *testing.T) {
	base := []string{"--data", "fixture", "--method", "llpfc-uniform", "--bag-size", "32", "--num-points", "640",
		"--batch-size", "32", "--quiet"}
	out := filepath.Join(t.TempDir(), "ck")
	code, _, errs := runTrainCmd(append(base, "--epochs", "1", "--out", out)...)
	require.Equal(t, exitOK, code, errs)
	for _, tc := range []struct {
		flags []string
		field string
	}{
		{[]string{"--bag-size", "64"}, "run.bag_size"},
		{[]string{"--num-points", "1280"}, "run.num_points"},
		{[]string{"--protocol", "shuffle"}, "run.protocol"},
		{[]string{"--augment", "crop-flip"}, "run.hyper.augment"},
		{[]string{"--normalize", "none"}, "inputs"},
		{[]string{"--compat", "original"}, "compat"},
		{[]string{"--group-weights", "hm"}, "group_weights"},
		{[]string{"--kl-scale", "paper", "--method", "kl", "--batch-size", "2"}, "method"},
		// Other data: a synthetic set of as many classes (the data set's
		// name, and the hashes of its inputs and bags, are keyed).
		{[]string{"--data", "gmm:classes=10,dim=8,train=1000,test=100"}, "run.dataset"},
		{[]string{"--data", "gmm:classes=10,dim=8,train=1000,test=100"}, "inputs"},
	} {
		args := append(append(append([]string(nil), base...), "--epochs", "2", "--out", out, "--resume"), tc.flags...)
		code, _, errs := runTrainCmd(args...)
		assert.NotEqual(t, exitOK, code, "%v", tc.flags)
		assert.Contains(t, errs, "other settings", "%v", tc.flags)
		assert.Contains(t, errs, tc.field+": ", "%v: %s", tc.flags, errs)
	}
	code, _, errs = runTrainCmd(append(base, "--epochs", "2", "--out", out, "--resume")...)
	assert.Equal(t, exitOK, code, errs)
}

// With --bags the result records the file's bag size, and
// the flags that would describe other bags are refused naming the flag.
func TestTrainBagsFileSettings(t *testing.T) {
	dir := t.TempDir()
	bags := filepath.Join(dir, "bags.json")
	code, _, errs := func() (int, string, string) {
		var o, e strings.Builder
		c := dispatch([]string{"bags", "--data", "fixture", "--bag-size", "16", "--num-points", "320", "--seed", "2", "--out", bags, "--trouble-rounds", "0"}, &o, &e)
		return c, o.String(), e.String()
	}()
	require.Equal(t, exitOK, code, errs)
	code, out, errs := runTrainCmd("--data", "fixture", "--bags", bags, "--epochs", "1", "--batch-size", "32", "--json", "--quiet")
	require.Equal(t, exitOK, code, errs)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var res struct {
		Config      experiments.Config `json:"config"`
		NumBags     int                `json:"num_bags"`
		TrainPoints int                `json:"train_points"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &res))
	assert.Equal(t, 16, res.Config.BagSize, "the file's bag size, not the flag's default 64")
	assert.Equal(t, "bags-file", res.Config.Protocol)
	assert.Equal(t, 20, res.NumBags)
	assert.Equal(t, 320, res.Config.NumPoints)
	assert.Equal(t, 320, res.TrainPoints)
	for _, f := range [][]string{{"--bag-size", "16"}, {"--num-points", "320"}, {"--protocol", "paper"}} {
		code, _, errs := runTrainCmd(append([]string{"--data", "fixture", "--bags", bags, "--epochs", "1"}, f...)...)
		assert.Equal(t, exitBadUsage, code, "%v", f)
		assert.Contains(t, errs, f[0]+" conflicts with --bags", "%v", f)
	}
}

// A run that fails leaves no empty --out directory.
func TestTrainFailureLeavesNoEmptyOut(t *testing.T) {
	dir := t.TempDir()
	few := filepath.Join(dir, "few.json")
	require.NoError(t, os.WriteFile(few, []byte(`{"num_classes": 10, "bags": [`+
		`{"id": 0, "size": 2, "proportions": [0.5,0.5,0,0,0,0,0,0,0,0], "indices": [0, 1]}]}`), 0o644))
	out := filepath.Join(dir, "out")
	code, _, errs := runTrainCmd("--data", "fixture", "--bags", few, "--epochs", "1", "--quiet", "--out", out)
	assert.Equal(t, exitBadUsage, code, errs)
	_, err := os.Stat(out)
	assert.True(t, os.IsNotExist(err), "the failed run's --out was removed")
}

// MNIST and Fashion-MNIST share file names, so a directory
// given as --data is named by its own name, and an ambiguous one is refused
// asking for the set's name (it used to be called fashion-mnist always).
func TestNamedSetInDirectory(t *testing.T) {
	src := "/usr/share/datasets/fashion-mnist"
	if _, err := os.Stat(src); err != nil {
		t.Skip("Debian's dataset-fashion-mnist is not installed (.ci/run installs it)")
	}
	root := t.TempDir()
	for _, d := range []string{"mnist-files", "fashion-files", "plain"} {
		dir := filepath.Join(root, d)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		ents, err := os.ReadDir(src)
		require.NoError(t, err)
		for _, e := range ents {
			require.NoError(t, os.Symlink(filepath.Join(src, e.Name()), filepath.Join(dir, e.Name())))
		}
	}
	for dir, want := range map[string]string{"mnist-files": "mnist", "fashion-files": "fashion-mnist"} {
		name, _, err := namedSetIn(filepath.Join(root, dir))
		require.NoError(t, err)
		assert.Equal(t, want, name, dir)
	}
	_, _, err := namedSetIn(filepath.Join(root, "plain"))
	assert.ErrorContains(t, err, "name the set")
}
