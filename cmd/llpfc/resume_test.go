package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/experiments"
)

// Issue 17, item 1 (and issue 19): a resume with any setting that enters the
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

// Issue 17, item 4: with --bags the result records the file's bag size, and
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

// Issue 17, item 10: a run that fails leaves no empty --out directory.
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

// Issue 17, item 10: MNIST and Fashion-MNIST share file names, so a directory
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
