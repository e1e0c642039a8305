package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"codeberg.org/sbinet/npyio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runPredictCmd(args ...string) (code int, stdout, stderr string) {
	return runCmd(append([]string{"predict"}, args...)...)
}

// lastJSON decodes the last line of out.
func lastJSON(t *testing.T, out string) map[string]any {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &got), "last line %q", lines[len(lines)-1])
	return got
}

// TestTrainSaveModelPredictRoundTrip: a model trained with
// --save-model and scored by predict on the same test split gives the test
// accuracy train printed, bit for bit (the same normalization, the same
// evaluation-mode network); the CSV and .npy predictions hold one row per
// test instance whose probabilities sum to 1 and whose argmax is the
// predicted class, the CSV's labels agree with the printed accuracy.
func TestTrainSaveModelPredictRoundTrip(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m")
	for _, arch := range []string{"mlp", "cnn-bn"} {
		code, out, errOut := runTrainCmd("--data", "fixture", "--method", "llpfc-uniform", "--model", arch, "--bag-size", "16", "--num-points", "640",
			"--epochs", "1", "--batch-size", "32", "--seed", "2", "--save-model", model+"-"+arch, "--json", "--quiet")
		require.Equal(t, exitOK, code, errOut)
		trained := lastJSON(t, out)["test_accuracy"].(float64)
		for _, name := range []string{model + "-" + arch + ".npz", model + "-" + arch + ".json"} {
			_, err := os.Stat(name)
			require.NoError(t, err, "%s written", name)
		}
		csvPath, npyPath := filepath.Join(dir, arch+".csv"), filepath.Join(dir, arch+".npy")
		code, out, errOut = runPredictCmd("--model", model+"-"+arch, "--data", "fixture", "--out", csvPath, "--json")
		require.Equal(t, exitOK, code, errOut)
		got := lastJSON(t, out)
		scores := got["scores"].(map[string]any)
		assert.Equal(t, trained, scores["accuracy"], "%s: predict's accuracy vs train's", arch)
		rows := readCSV(t, csvPath)
		n := int(got["n"].(float64))
		require.Len(t, rows, n+1, "%s: a header and one row per instance", arch)
		right := 0
		for _, r := range rows[1:] {
			var sum float64
			best, pred := -1.0, 0
			for c := 0; c < 10; c++ {
				p, err := strconv.ParseFloat(r[2+c], 64)
				require.NoError(t, err)
				sum += p
				if p > best {
					best, pred = p, c
				}
			}
			assert.InDelta(t, 1, sum, 1e-6)
			assert.Equal(t, strconv.Itoa(pred), r[1], "argmax is the predicted class")
			if r[1] == r[12] {
				right++
			}
		}
		assert.InDelta(t, trained, float64(right)/float64(n), 1e-12, "%s: the CSV's labels", arch)
		code, _, errOut = runPredictCmd("--model", model+"-"+arch+".json", "--data", "fixture", "--out", npyPath)
		require.Equal(t, exitOK, code, errOut)
		f, err := os.Open(npyPath)
		require.NoError(t, err)
		var probs []float32
		require.NoError(t, npyio.Read(f, &probs))
		f.Close()
		assert.Len(t, probs, n*10)
	}
}

func readCSV(t *testing.T, path string) [][]string {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	return rows
}

// TestPredictRefusesBadModels: a missing model, a truncated weights file,
// weights of another architecture under a manifest, a manifest of another
// format, data of another shape and bad flags exit 2 with a message naming
// the file or flag.
func TestPredictRefusesBadModels(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "m")
	code, _, errOut := runTrainCmd("--data", "fixture", "--model", "mlp", "--bag-size", "16", "--num-points", "320", "--epochs", "1", "--save-model", m, "--quiet")
	require.Equal(t, exitOK, code, errOut)
	w, err := os.ReadFile(m + ".npz")
	require.NoError(t, err)
	man, err := os.ReadFile(m + ".json")
	require.NoError(t, err)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p+".npz", w, 0o644))
		require.NoError(t, os.WriteFile(p+".json", man, 0o644))
		if strings.HasSuffix(name, "truncated") {
			require.NoError(t, os.WriteFile(p+".npz", w[:len(w)/2], 0o644))
		} else if b != nil {
			require.NoError(t, os.WriteFile(p+".json", b, 0o644))
		}
		return p
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", filepath.Join(dir, "none"), "--data", "fixture"}, "none.json"},
		{[]string{"--model", write("truncated", nil), "--data", "fixture"}, "truncated.npz"},
		{[]string{"--model", write("cnn", bytes.Replace(man, []byte(`"architecture": "mlp"`), []byte(`"architecture": "cnn"`), 1)), "--data", "fixture"}, "no 0.weight"},
		{[]string{"--model", write("classes", bytes.Replace(man, []byte(`"num_classes": 10`), []byte(`"num_classes": 7`), 1)), "--data", "fixture"}, "5.weight has shape [10 256], model mlp wants [7 256]"},
		{[]string{"--model", write("format", bytes.Replace(man, []byte(`llpfc-model/2`), []byte(`llpfc-model/9`), 1)), "--data", "fixture"}, `format: is "llpfc-model/9"`},
		{[]string{"--model", m, "--data", "gmm:classes=10,dim=5,train=50,test=20,sep=2"}, "feature vectors of 5 values, the model takes 1×28×28 images"},
		{[]string{"--model", m}, "--data is required"},
		{[]string{"--model", m, "--data", "fixture", "--split", "val"}, "--split"},
		{[]string{"--model", m, "--data", "fixture", "--out", "x.txt"}, "--out"},
		{[]string{"--model", m, "--data", "fixture", "--device", "tpu"}, "--device"},
	} {
		code, _, errOut := runPredictCmd(tc.args...)
		assert.Equal(t, exitBadUsage, code, "%v: %s", tc.args, errOut)
		assert.Contains(t, errOut, tc.want, "%v", tc.args)
	}
	code, _, errOut = runTrainCmd("--data", "fixture", "--model", "llpgan-d", "--method", "llpgan", "--save-model", m)
	assert.Equal(t, exitBadUsage, code)
	assert.Contains(t, errOut, "--save-model")
}

// TestRunSaveModels: run --save-models keeps each cell's
// network in the store under models/KEY, and predict on the cell's data
// gives the cell's stored test accuracy.
func TestRunSaveModels(t *testing.T) {
	dir := t.TempDir()
	spec := strings.NewReplacer(`"learner": "logreg"`, `"learner": "gorgonia"`, `"model": "linear"`, `"model": "mlp"`).Replace(tinySpec)
	code, _, errOut := runCmd("run", writeFile(t, dir, "s.json", spec), "--results", dir+"/r", "--save-models")
	require.Equal(t, exitOK, code, errOut)
	cells, err := filepath.Glob(filepath.Join(dir, "r", "cells", "*.json"))
	require.NoError(t, err)
	require.Len(t, cells, 1)
	b, err := os.ReadFile(cells[0])
	require.NoError(t, err)
	var cell struct {
		Key     string `json:"key"`
		Metrics struct {
			TestAccuracy float64 `json:"test_accuracy"`
		} `json:"metrics"`
	}
	require.NoError(t, json.Unmarshal(b, &cell))
	code, out, errOut := runPredictCmd("--model", filepath.Join(dir, "r", "models", cell.Key), "--data", "gmm:classes=3,dim=4,train=600,test=100", "--json")
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, cell.Metrics.TestAccuracy, lastJSON(t, out)["scores"].(map[string]any)["accuracy"])
}

// A table's categorical columns reach the model as it read them in
// training (Manifest.Columns, data.Dataset.AlignColumns): a new table read
// on its own is one-hot over its own categories — here green, red, yellow
// against the training file's blue, green, red, the same width, so nothing
// but the columns' names could tell them apart. The oracle: the same rows
// read as the test file of the training table (encoded with the training
// file's categories, yellow an all-zero block) give the same probabilities.
// A column the model was trained on and the table lacks is refused by name.
func TestPredictAlignsCategoricalColumns(t *testing.T) {
	dir := t.TempDir()
	colours := []string{"blue", "green", "red"}
	var train, test strings.Builder
	train.WriteString("label,colour,x\n")
	test.WriteString("label,colour,x\n")
	for i := 0; i < 240; i++ {
		c := colours[i%3]
		y := 0
		if c == "red" || (c == "green" && i%2 == 0) {
			y = 1
		}
		fmt.Fprintf(&train, "%d,%s,%.3f\n", y, c, float64(i%17)/4)
		if i < 30 {
			fmt.Fprintf(&test, "%d,%s,%.3f\n", y, c, float64(i%5)/2)
		}
	}
	trainCSV := writeFile(t, dir, "train.csv", train.String())
	testCSV := writeFile(t, dir, "test.csv", test.String())
	newCSV := writeFile(t, dir, "new.csv", "label,colour,x\n1,red,0.5\n0,yellow,1.5\n1,green,2\n0,green,3.25\n1,red,4\n0,yellow,0\n")
	model := filepath.Join(dir, "m")
	code, _, errOut := runTrainCmd("--data", "csv:"+trainCSV+","+testCSV, "--method", "llpfc-uniform", "--bag-size", "8",
		"--epochs", "3", "--batch-size", "32", "--seed", "1", "--save-model", model, "--quiet")
	require.Equal(t, exitOK, code, errOut)
	manifest, err := os.ReadFile(model + ".json")
	require.NoError(t, err)
	assert.Contains(t, string(manifest), `"categories": [`, "the manifest keeps the columns")

	probs := func(data string) [][]string {
		out := filepath.Join(dir, strconv.Itoa(len(data))+".csv")
		code, _, errOut := runPredictCmd("--model", model, "--data", data, "--out", out)
		require.Equal(t, exitOK, code, "%s: %s", data, errOut)
		return readCSV(t, out)
	}
	reference := probs("csv:" + trainCSV + "," + newCSV) // new.csv encoded with the training file's categories
	alone := probs("csv:" + newCSV + "," + newCSV)       // new.csv with its own categories, aligned to the model's
	require.Len(t, reference, 7, "a header and six rows")
	assert.Equal(t, reference, alone, "the same rows, however the table's categories were read")

	noColour := writeFile(t, dir, "nocolour.csv", "label,x\n1,0.5\n0,1.5\n")
	code, _, errOut = runPredictCmd("--model", model, "--data", "csv:"+noColour+","+noColour)
	assert.Equal(t, exitBadUsage, code)
	assert.Contains(t, errOut, `no column "colour", which the model was trained on`)

	// A table of one column that is not a label is one feature, unlabelled:
	// the column the model lacks is named, not "want a label column".
	onlyX := writeFile(t, dir, "onlyx.csv", "x\n0.5\n1.5\n")
	code, _, errOut = runPredictCmd("--model", model, "--data", "csv:"+onlyX)
	assert.Equal(t, exitBadUsage, code)
	assert.Contains(t, errOut, `no column "colour", which the model was trained on`)
	assert.NotContains(t, errOut, "want a label column")

	// A column the model was not trained on is left out with a word: here
	// the labels under a name predict does not look for. Columns are found
	// without case, so Colour and X are the model's.
	extra := writeFile(t, dir, "extra.csv", "Colour,X,truth\nred,0.5,1\nblue,1.5,0\n")
	code, out, errOut := runPredictCmd("--model", model, "--data", "csv:"+extra)
	assert.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, `column(s) ["truth"] are not among the model's 2 feature columns and are not used`)
	assert.Contains(t, out, "no labels")
	code, _, errOut = runPredictCmd("--model", model, "--data", "csv:"+trainCSV+","+testCSV)
	assert.Equal(t, exitOK, code, errOut)
	assert.NotContains(t, errOut, "not used", "every column of the training table is the model's")
}
