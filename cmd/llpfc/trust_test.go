package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/training/models"
)

// Nothing of the user's is lost or misread. The tests of the cases that
// are not a property of their own (guard_test.go, experiments/data's
// TestPropertyTableHeaders).

// gmmSet is a small labelled set train and predict read in milliseconds.
const gmmSet = "gmm:classes=3,dim=2,train=200,test=20"

// saveGMMModel trains the mlp on gmmSet with seed and saves it to path.
func saveGMMModel(t *testing.T, path, seed string) {
	t.Helper()
	code, _, stderr := runCmd("train", "--data", gmmSet, "--bag-size", "8", "--num-points", "64", "--epochs", "1",
		"--batch-size", "16", "--quiet", "--seed", seed, "--save-model", path)
	require.Equal(t, exitOK, code, stderr)
}

// setManifest rewrites a field of the model's manifest (a dotted path) and
// returns the manifest's path.
func setManifest(t *testing.T, model, field string, v any) {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(readString(t, model+".json")), &m))
	setField(m, field, v)
	b, err := json.Marshal(m)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(model+".json", b, 0o644))
}

// Item 17 of the exit-status list: the weights and the manifest are one
// model. The manifest records the SHA-256 of the weights file (checked here
// against sha256 of the bytes on disk), and weights from another save
// beside it — what a crash between the two writes, or a copy of one file,
// leaves — are refused by name, either way round.
func TestSavedModelIsTied(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	saveGMMModel(t, a, "1")
	saveGMMModel(t, b, "2")
	var man struct {
		Sum string `json:"weights_sha256"`
	}
	require.NoError(t, json.Unmarshal([]byte(readString(t, a+".json")), &man))
	sum := sha256.Sum256([]byte(readString(t, a+".npz")))
	assert.Equal(t, hex.EncodeToString(sum[:]), man.Sum, "the manifest's checksum is not the weights'")
	code, _, stderr := runCmd("predict", "--model", a, "--data", gmmSet)
	require.Equal(t, exitOK, code, stderr)

	for _, swap := range []string{".npz", ".json"} {
		c := filepath.Join(dir, "c"+swap[1:])
		for _, ext := range []string{".npz", ".json"} {
			from := a
			if ext == swap {
				from = b
			}
			writeFile(t, dir, filepath.Base(c)+ext, readString(t, from+ext))
		}
		code, _, stderr := runCmd("predict", "--model", c, "--data", gmmSet)
		assert.Equal(t, exitBadUsage, code, "%s from another save: %s", swap, stderr)
		assert.Contains(t, stderr, c+".npz", "the message names the weights")
		assert.Contains(t, stderr, c+".json", "the message names the manifest")
	}
}

// Item 5: predict never scores probabilities that are not finite. A NaN
// weight (its checksum recorded, as a model trained to NaN would have it)
// makes every probability NaN: exit 1 naming the first instance, and no
// accuracy printed. A manifest whose standard deviation is 0 is refused on
// load naming the field (exit 2); an edited manifest's wrong type is named
// in the file's words, not as a Go struct.
func TestPredictNeverScoresNonFinite(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "m")
	saveGMMModel(t, m, "1")
	orig := readString(t, m+".json")

	state, err := models.ReadNPZBytes([]byte(readString(t, m+".npz")))
	require.NoError(t, err)
	state[0].Data[0] = float32(math.NaN())
	var w bytes.Buffer
	require.NoError(t, models.WriteNPZ(&w, state))
	require.NoError(t, os.WriteFile(m+".npz", w.Bytes(), 0o644))
	sum := sha256.Sum256(w.Bytes())
	setManifest(t, m, "weights_sha256", hex.EncodeToString(sum[:]))
	code, stdout, stderr := runCmd("predict", "--model", m, "--data", gmmSet, "--out", filepath.Join(dir, "p.csv"))
	assert.Equal(t, exitFailed, code, stderr)
	assert.Contains(t, stderr, "instance 0")
	assert.Contains(t, stderr, "not finite")
	assert.NotContains(t, stdout, "accuracy")
	assert.NoFileExists(t, filepath.Join(dir, "p.csv"))

	saveGMMModel(t, m, "1")
	setManifest(t, m, "normalization.std", []any{0, 1})
	code, _, stderr = runCmd("predict", "--model", m, "--data", gmmSet)
	assert.Equal(t, exitBadUsage, code, stderr)
	assert.Contains(t, stderr, "normalization.std[0]")

	require.NoError(t, os.WriteFile(m+".json", []byte(strings.Replace(orig, `"num_classes": 3`, `"num_classes": "three"`, 1)), 0o644))
	code, _, stderr = runCmd("predict", "--model", m, "--data", gmmSet)
	assert.Equal(t, exitBadUsage, code, stderr)
	assert.Contains(t, stderr, "num_classes")
	assert.NotContains(t, stderr, "Go struct")
}

// writeBagOnlyNPZ writes a bag-only set of n instances of d features in k
// bags of 3 classes (counts), with a test split of 60 instances drawn with
// testSeed, to path.
func writeBagOnlyNPZ(t *testing.T, path string, testSeed int64) {
	t.Helper()
	const n, d, k, C, m = 400, 4, 20, 3, 60
	r := rand.New(rand.NewSource(1))
	x, bag, props := make([]float64, n*d), make([]int64, n), make([]int64, k*C)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			x[i*d+j] = r.NormFloat64()
		}
		bag[i] = int64(r.Intn(k))
		y := 0
		if x[i*d] > 0 {
			y++
		}
		if x[i*d+1] > 0.5 {
			y++
		}
		props[bag[i]*C+int64(y)]++
	}
	rt := rand.New(rand.NewSource(testSeed))
	tx, ty := make([]float64, m*d), make([]int64, m)
	for i := range ty {
		for j := 0; j < d; j++ {
			tx[i*d+j] = rt.NormFloat64()
		}
		ty[i] = int64(rt.Intn(C))
	}
	var b bytes.Buffer
	require.NoError(t, data.WriteNPZ(&b, []data.NPYArray{{Key: "X", Shape: []int{n, d}, F64: x}, {Key: "bag", Shape: []int{n}, I64: bag},
		{Key: "proportions", Shape: []int{k, C}, I64: props}, {Key: "test_X", Shape: []int{m, d}, F64: tx}, {Key: "test_y", Shape: []int{m}, I64: ty}}))
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
}

// Item 6: a run's identity is its whole input, the test split included. A
// finished --out run is served as it is only on the data it ran on: after
// its test split changed, --resume is refused naming the test split and
// the data set (exit 2), and so is continuing its checkpoint.
func TestFinishedRunNotServedOnOtherData(t *testing.T) {
	dir := t.TempDir()
	set, out := filepath.Join(dir, "v.npz"), filepath.Join(dir, "o")
	writeBagOnlyNPZ(t, set, 1)
	args := []string{"train", "--data", "bags:" + set, "--out", out, "--epochs", "1", "--quiet"}
	code, _, stderr := runCmd(args...)
	require.Equal(t, exitOK, code, stderr)
	code, _, stderr = runCmd(append(args, "--resume")...)
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stderr, "finished", "the same data: served as it is")
	result := readString(t, filepath.Join(out, "result.json"))

	writeBagOnlyNPZ(t, set, 2) // the same training data, another test split
	for _, extra := range [][]string{{"--resume"}, {"--resume", "--epochs", "2"}} {
		a := append(append([]string(nil), args...), extra...)
		code, stdout, stderr := runCmd(a...)
		assert.Equal(t, exitBadUsage, code, "llpfc %q: %s%s", a, stdout, stderr)
		for _, w := range []string{"test", "--data bags:" + set, "test_X"} {
			assert.Contains(t, stderr, w, "llpfc %q", a)
		}
		assert.NotContains(t, stdout, "test accuracy", "llpfc %q: a result was served", a)
	}
	assert.Equal(t, result, readString(t, filepath.Join(out, "result.json")), "the finished result was rewritten")
}

// Item 8: the counts a result reports are what was trained on. With
// --val-bags 0.25 of 20 bags, 5 bags are held out; train_points, the plan
// line and num_bags count the 15 trained on, which the training loop's own
// count of instances per epoch (instance_epochs / epochs) confirms, and
// the held-out ones are reported apart.
func TestValBagsCountWhatWasTrained(t *testing.T) {
	dir := t.TempDir()
	set := filepath.Join(dir, "v.npz")
	writeBagOnlyNPZ(t, set, 1)
	code, stdout, stderr := runCmd("train", "--data", "bags:"+set, "--val-bags", "0.25", "--epochs", "2", "--json")
	require.Equal(t, exitOK, code, stderr)
	got := lastJSON(t, stdout)
	num := func(k string) int { v, _ := got[k].(float64); return int(v) }
	assert.Equal(t, 15, num("num_bags"))
	assert.Equal(t, 5, num("val_bags"))
	assert.Equal(t, 400, num("train_points")+num("val_points"))
	assert.Equal(t, num("instance_epochs")/num("epochs"), num("train_points"), "train_points is not what each epoch trained on")
	assert.Contains(t, stderr, fmt.Sprintf("15 bags (%d instances) to train on and 5 held out for validation (%d instances)", num("train_points"), num("val_points")))
}

// Items 2, 3, 4 and 7 and the two crashes: input that would be misread is
// refused, exit 2, naming what is at fault — never read by position here
// and by name there, never a class twice, never a ghost column, never one
// of two arrays ignored, never a panic.
func TestAmbiguousInputRefused(t *testing.T) {
	dir := t.TempDir()
	rows := func(head string, n int, row func(i int) string) string {
		var b strings.Builder
		b.WriteString(head + "\n")
		for i := 0; i < n; i++ {
			b.WriteString(row(i) + "\n")
		}
		return b.String()
	}
	feat := func(i int) string { return fmt.Sprintf("%d,%d", i%7, (i*3)%5) }
	lab := writeFile(t, dir, "lab.csv", rows("f0,f0,label", 80, func(i int) string { return feat(i) + fmt.Sprint(",", i%2) }))
	idx := writeFile(t, dir, "idx.csv", rows(",f0,f1,label", 80, func(i int) string { return fmt.Sprint(i, ",", feat(i), ",", i%2) }))
	tr := writeFile(t, dir, "tr.csv", rows("f0,f1,bag", 80, func(i int) string { return feat(i) + fmt.Sprint(",", i%8) }))
	props := func(head string) string {
		return writeFile(t, dir, strings.NewReplacer(",", "_").Replace(head)+".csv", rows(head, 8, func(k int) string {
			return fmt.Sprintf("%d,%d,%d,%d", k, 10-(k%3), k%3, 0)
		}))
	}
	te := writeFile(t, dir, "te.csv", rows("f0,f1,label", 10, func(i int) string { return feat(i) + ",a" }))
	npz := func(name string, extra ...data.NPYArray) string {
		arrays := append([]data.NPYArray{{Key: "X", Shape: []int{4, 2}, F64: []float64{1, 2, 3, 4, 5, 6, 7, 8}},
			{Key: "bag", Shape: []int{4}, I64: []int64{0, 1, 0, 1}}, {Key: "proportions", Shape: []int{2, 2}, F64: []float64{0.5, 0.5, 1, 0}},
			{Key: "test_X", Shape: []int{1, 2}, F64: []float64{1, 2}}, {Key: "test_y", Shape: []int{1}, I64: []int64{0}}}, extra...)
		var b bytes.Buffer
		require.NoError(t, data.WriteNPZ(&b, arrays))
		return writeFile(t, dir, name, b.String())
	}
	set := npz("ok.npz")
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"2: a column name twice", []string{"--data", "csv:" + lab + "," + lab, "--bag-size", "8"}, []string{"lab.csv", `"f0"`}},
		{"3: a class name twice", []string{"--data", "bags:" + tr + "," + props("bag,a,a,b") + "," + te}, []string{"bag_a_a_b.csv", `"a"`}},
		{"3: one class as 1 and 1.0", []string{"--data", "bags:" + tr + "," + props("bag,1,1.0,2")}, []string{"bag_1_1.0_2.csv", `"1" and "1.0"`}},
		{"4: a pandas index column, labelled", []string{"--data", "csv:" + idx + "," + idx, "--bag-size", "8"}, []string{"idx.csv", "empty name", "index=False"}},
		{"4: a pandas index column, proportions", []string{"--data", "bags:" + tr + "," + props(",bag,a,b")}, []string{"empty name", "index=False"}},
		{"7: X and x", []string{"--data", "bags:" + npz("x.npz", data.NPYArray{Key: "x", Shape: []int{4, 2}, F64: make([]float64, 8)})}, []string{`"X" and "x"`}},
		{"7: bag and bags", []string{"--data", "bags:" + npz("b.npz", data.NPYArray{Key: "bags", Shape: []int{4}, I64: []int64{1, 0, 1, 0}})}, []string{`"bag" and "bags"`}},
		{"7: proportions and label_proportions", []string{"--data", "bags:" + npz("p.npz", data.NPYArray{Key: "label_proportions", Shape: []int{2, 2}, F64: []float64{1, 0, 0, 1}})}, []string{`"label_proportions"`}},
		{"7: test_X and X_test", []string{"--data", "bags:" + npz("t.npz", data.NPYArray{Key: "X_test", Shape: []int{1, 2}, F64: []float64{9, 9}})}, []string{`"test_X" and "X_test"`}},
		{"crash: --val-bags nan", []string{"--data", "bags:" + set, "--val-bags", "nan"}, []string{"--val-bags", "NaN"}},
		{"crash: --val-bags inf", []string{"--data", "bags:" + set, "--val-bags", "inf"}, []string{"--val-bags", "Inf"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"train", "--epochs", "1", "--quiet"}, c.args...)
			code, stdout, stderr := runCmd(args...)
			require.NoError(t, noCrash(args, stderr))
			assert.Equal(t, exitBadUsage, code, "llpfc %q: %s%s", args, stdout, stderr)
			for _, w := range c.want {
				assert.Contains(t, stderr, w)
			}
		})
	}
}

// Item 9: run --save-models on a store whose cells finished without it
// trains those cells again to save their models, keeps the stored results
// as they are, and says so; each model predicts the cell's stored test
// accuracy (the oracle: the result file, written by the first run). A
// learner that saves no network is named in a note, not passed over.
func TestSaveModelsOnFinishedStore(t *testing.T) {
	dir := t.TempDir()
	spec := writeFile(t, dir, "s.json", strings.NewReplacer(`"learner": "logreg"`, `"learner": "gorgonia"`, `"model": "linear"`, `"model": "mlp"`).Replace(tinySpec))
	store := filepath.Join(dir, "r")
	code, _, stderr := runCmd("run", spec, "--results", store)
	require.Equal(t, exitOK, code, stderr)
	cells, _ := filepath.Glob(filepath.Join(store, "cells", "*.json"))
	require.Len(t, cells, 1)
	before := readString(t, cells[0])
	var cell struct {
		Key     string `json:"key"`
		Metrics struct {
			TestAccuracy float64 `json:"test_accuracy"`
		} `json:"metrics"`
	}
	require.NoError(t, json.Unmarshal([]byte(before), &cell))

	code, stdout, stderr := runCmd("run", spec, "--results", store, "--save-models")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "1 finished cells had no saved model and were trained again")
	assert.Equal(t, before, readString(t, cells[0]), "the stored result was rewritten")
	model := filepath.Join(store, "models", cell.Key)
	code, out, stderr := runCmd("predict", "--model", model, "--data", "gmm:classes=3,dim=4,train=600,test=100", "--json")
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, cell.Metrics.TestAccuracy, lastJSON(t, out)["scores"].(map[string]any)["accuracy"])

	code, stdout, _ = runCmd("run", spec, "--results", store, "--save-models")
	require.Equal(t, exitOK, code)
	assert.NotContains(t, stdout, "trained again", "a model already saved is not made again")

	code, _, stderr = runCmd("run", writeFile(t, dir, "l.json", tinySpec), "--results", filepath.Join(dir, "l"), "--save-models")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "--save-models keeps no model of 1 of the cells")
}

// Item 10: `run --list` runs every check a cell would fail on, so a grid in
// which every cell would fail is refused before any cell, naming the field:
// k-means with fewer clusters than classes or more than points, a feature
// column the data lack, more validation bags than bags, a network whose
// pooling the images are too small for. The oracle that each grid is bad:
// `llpfc train` with the same cell's settings fails too (it reads the data
// and makes the bags).
func TestListChecksWhatEveryCellFails(t *testing.T) {
	dir := t.TempDir()
	var x []float64
	for i := 0; i < 200; i++ {
		x = append(x, float64(i%3)/2)
	}
	var b bytes.Buffer
	require.NoError(t, data.WriteNPZ(&b, []data.NPYArray{{Key: "X", Shape: []int{200, 1, 1, 1}, F64: x},
		{Key: "bag", Shape: []int{200}, I64: func() []int64 {
			ids := make([]int64, 200)
			for i := range ids {
				ids[i] = int64(i % 10)
			}
			return ids
		}()}, {Key: "proportions", Shape: []int{10, 2}, F64: []float64{.5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5, .5}}}))
	tiny := writeFile(t, dir, "img1.npz", b.String())
	const gmm = "gmm:classes=3,dim=4,train=800,test=100"
	spec := func(dataset, model, protocol, extra string) string {
		p := ""
		if protocol != "" {
			p = `"protocol": "` + protocol + `", `
		}
		return `{"name": "t", "learner": "gorgonia", "model": "` + model + `", "datasets": ["` + dataset + `"], "methods": ["llpfc-uniform"], "seeds": [0], ` + p +
			`"hyper": {"epochs": 1, "optimizer": "adam", "lr": 0.001, "batch_size": 32, "schedule": {"kind": "constant"}` + extra + `}}`
	}
	for _, c := range []struct {
		name, spec, want string
		train            []string
	}{
		{"kmeans:1 on 3 classes", spec(gmm, "mlp", "kmeans:1", ""), "protocol", []string{"--data", gmm, "--protocol", "kmeans:1"}},
		{"kmeans:5000 on 800 points", spec(gmm, "mlp", "kmeans:5000", ""), "kmeans:5000", []string{"--data", gmm, "--protocol", "kmeans:5000"}},
		{"feature:nosuch", spec(gmm, "mlp", "feature:nosuch", ""), "nosuch", []string{"--data", gmm, "--protocol", "feature:nosuch"}},
		{"val_bags 25 of 20 bags", spec(gmm, "mlp", "kmeans:20", `, "val_bags": 25`), "val_bags", []string{"--data", gmm, "--protocol", "kmeans:20", "--val-bags", "25"}},
		{"cnn on 1×1 images", spec("bags:"+tiny, "cnn", "", ""), "1×1", []string{"--data", "bags:" + tiny, "--model", "cnn"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, dir, "s.json", c.spec)
			store := filepath.Join(dir, "r-"+strings.ReplaceAll(c.name, " ", "-"))
			for _, args := range [][]string{{"run", p, "--list", "--results", store}, {"run", p, "--results", store}} {
				code, _, stderr := runCmd(args...)
				assert.Equal(t, exitBadUsage, code, "llpfc %q: %s", args, stderr)
				assert.Contains(t, stderr, c.want)
			}
			cells, _ := filepath.Glob(filepath.Join(store, "cells", "*.json"))
			assert.Empty(t, cells, "a cell ran")
			args := append([]string{"train", "--epochs", "1", "--quiet", "--batch-size", "32"}, c.train...)
			code, _, stderr := runCmd(args...)
			assert.NotEqual(t, exitOK, code, "the oracle: llpfc %q trains, so the grid is not bad: %s", args, stderr)
		})
	}
}

// triggerWriter is a standard error that calls fire once, synchronously,
// when a line containing at is written: an interrupt at a known point.
type triggerWriter struct {
	syncBuffer
	at    string
	fire  func()
	fired bool
}

func (w *triggerWriter) Write(p []byte) (int, error) {
	n, err := w.syncBuffer.Write(p)
	if !w.fired && strings.Contains(string(p), w.at) {
		w.fired = true
		w.fire()
	}
	return n, err
}

// An interrupt that comes after the last step — while the model is saved,
// or once the grid's last cell is stored — still exits 1, saying the work
// finished, never 0 as if none had come. The interrupt is the command's own
// context, cancelled from its standard error at a line written after the
// last step (interruptible replaced; no signal is sent to the test).
func TestLateInterruptExits1(t *testing.T) {
	dir := t.TempDir()
	spec := writeFile(t, dir, "s.json", tinySpec)
	for _, c := range []struct {
		at   string
		args []string
	}{
		{"model saved to", []string{"train", "--data", gmmSet, "--bag-size", "8", "--num-points", "64", "--epochs", "1", "--batch-size", "16", "--save-model", filepath.Join(dir, "m")}},
		{"cell 1/1 done", []string{"run", spec, "--results", filepath.Join(dir, "r")}},
	} {
		var cancel context.CancelFunc
		old := interruptible
		interruptible = func(string, io.Writer) (context.Context, context.CancelFunc) {
			var ctx context.Context
			ctx, cancel = context.WithCancel(context.Background())
			return ctx, cancel
		}
		w := &triggerWriter{at: c.at}
		w.fire = func() { cancel() }
		var stdout bytes.Buffer
		code := dispatch(c.args, &stdout, w)
		interruptible = old
		require.True(t, w.fired, "llpfc %q never wrote %q: %s", c.args, c.at, w.String())
		assert.Equal(t, exitFailed, code, "llpfc %q: %s", c.args, w.String())
		assert.Contains(t, w.String(), "interrupted, but only after the last step")
	}
}

// The report of a grid over bag-only sets with and without a labelled test
// split shows each table what its cells hold — test accuracy where there
// is a test split, the training bags' proportion error where there is none
// (said in a note) — instead of refusing the whole; and --metric auc on
// three classes names the reason the cells lack it (the AUC is measured
// for two classes), not the results' age.
func TestReportMixesTestAndNoTestSets(t *testing.T) {
	dir := t.TempDir()
	withTest := filepath.Join(dir, "v.npz")
	writeBagOnlyNPZ(t, withTest, 1)
	writeBagOnlyInputs(t, dir)
	noTest := "bags:" + dir + "/bo/train.csv," + dir + "/bo/proportions.csv"
	spec := strings.NewReplacer(`"learner": "logreg"`, `"learner": "gorgonia"`, `"model": "linear"`, `"model": "mlp"`,
		`"gmm:classes=3,dim=4,train=600,test=100"`, `"bags:`+withTest+`", "`+noTest+`"`, `"bag_sizes": [8], `, "", `"protocol": "paper", "num_points": 256,`, "").Replace(tinySpec)
	store := filepath.Join(dir, "r")
	code, _, stderr := runCmd("run", writeFile(t, dir, "s.json", spec), "--results", store)
	require.Equal(t, exitOK, code, stderr)
	code, stdout, stderr := runCmd("report", "--results", store, "--out", filepath.Join(dir, "rep"))
	require.Equal(t, exitOK, code, stderr)
	sections := strings.Split(stdout, "### ")
	require.Len(t, sections, 3, stdout)
	for _, sec := range sections[1:] {
		switch {
		case strings.HasPrefix(sec, "t: mlp on bags:"+withTest):
			assert.Contains(t, sec, "Test accuracy, mean")
		case strings.HasPrefix(sec, "t: mlp on "+noTest):
			assert.Contains(t, sec, "proportion error ‖p̄ − γ‖₁, mean")
		default:
			t.Errorf("a table of neither set: %s", sec)
		}
	}
	assert.Contains(t, sections[0], "without a labelled test split")

	only := strings.Replace(spec, `, "`+noTest+`"`, "", 1)
	store = filepath.Join(dir, "r3")
	code, _, stderr = runCmd("run", writeFile(t, dir, "s3.json", only), "--results", store)
	require.Equal(t, exitOK, code, stderr)
	code, _, stderr = runCmd("report", "--results", store, "--out", filepath.Join(dir, "rep2"), "--metric", "auc")
	assert.Equal(t, exitBadUsage, code, stderr)
	assert.Contains(t, stderr, "measured for two classes, and its data set has 3")
}

// predict scores an unlabelled table (no label, class, y or target column):
// every row gets the probabilities the same rows get with their labels in
// a column of their own and the columns in another order (the oracle: the
// labelled read, laid out by name), and no score is printed.
func TestPredictScoresAnUnlabelledTable(t *testing.T) {
	dir := t.TempDir()
	writeBagOnlyInputs(t, dir)
	model := filepath.Join(dir, "m")
	code, _, stderr := runCmd("train", "--data", "bags:"+dir+"/bo", "--epochs", "2", "--quiet", "--save-model", model)
	require.Equal(t, exitOK, code, stderr)
	var plain, labelled strings.Builder
	plain.WriteString("x2,x1\n")
	labelled.WriteString("x1,label,x2\n")
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&plain, "%d,%d\n", (i*3)%5, i%7)
		fmt.Fprintf(&labelled, "%d,%s,%d\n", i%7, []string{"no", "yes"}[i%2], (i*3)%5)
	}
	outs := map[string][][]string{}
	for name, body := range map[string]string{"plain": plain.String(), "labelled": labelled.String()} {
		p := writeFile(t, dir, name+".csv", body)
		out := filepath.Join(dir, name+"-p.csv")
		code, stdout, stderr := runCmd("predict", "--model", model, "--data", "csv:"+p, "--out", out)
		require.Equal(t, exitOK, code, stderr)
		if name == "plain" {
			assert.Contains(t, stdout, "no labels: no scores")
		} else {
			assert.Contains(t, stdout, "accuracy")
		}
		outs[name] = readCSV(t, out)
	}
	require.Len(t, outs["plain"], 13)
	for i, row := range outs["plain"] {
		assert.Equal(t, row, outs["labelled"][i][:len(row)], "row %d", i)
	}
}

// repeatedPrefix returns a message prefix said twice in a row ("model
// cnn-bn: model cnn: …", "npz: npz: …"): two consecutive prefixes of at
// most two words that begin with the same word; "" when there is none.
func repeatedPrefix(msg string) string {
	for _, line := range strings.Split(msg, "\n") {
		seg := strings.Split(line, ": ")
		for i := 0; i+2 < len(seg); i++ {
			a, b := strings.Fields(seg[i]), strings.Fields(seg[i+1])
			if len(a) > 0 && len(a) <= 2 && len(b) > 0 && len(b) <= 2 && a[0] == b[0] {
				return seg[i] + ": " + seg[i+1] + ": "
			}
		}
	}
	return ""
}

// The exit statuses and words of the list: each case exits as the
// rule says (2 for bad input, found before any work; 0 for a run that
// warns), its message names what is at fault, says it once, and prints no
// Go struct.
func TestWordsAndStatuses(t *testing.T) {
	dir := t.TempDir()
	set := filepath.Join(dir, "v.npz")
	writeBagOnlyNPZ(t, set, 1)
	writeBagOnlyInputs(t, dir)
	var zero strings.Builder
	zero.WriteString("bag,no,yes,never\n")
	for k := 0; k < 10; k++ {
		fmt.Fprintf(&zero, "%d,2,2,0\n", k)
	}
	zeroProps := writeFile(t, dir, "zero.csv", zero.String())
	model := filepath.Join(dir, "m")
	saveGMMModel(t, model, "1")
	old := filepath.Join(dir, "old")
	writeFile(t, dir, "old.npz", readString(t, model+".npz")[:300]) // truncated weights
	var man map[string]any
	require.NoError(t, json.Unmarshal([]byte(readString(t, model+".json")), &man))
	man["format"] = "llpfc-model/1"
	delete(man, "weights_sha256")
	b, _ := json.Marshal(man)
	writeFile(t, dir, "old.json", string(b))
	for _, c := range []struct {
		name   string
		args   []string
		status int
		want   []string
	}{
		{"a network for images on feature vectors", []string{"train", "--data", "bags:" + set, "--model", "cnn-bn", "--epochs", "1", "--quiet"}, exitBadUsage, []string{`"cnn-bn" needs images`}},
		{"llpgan-d on feature vectors", []string{"train", "--data", "bags:" + set, "--model", "llpgan-d", "--method", "llpgan", "--epochs", "1", "--quiet"}, exitBadUsage, []string{"llpgan", "feature vectors"}},
		// Every output makes its missing folders, as --out and --results do (one rule).
		{"a model in a missing folder", []string{"train", "--data", "bags:" + set, "--epochs", "1", "--quiet", "--save-model", dir + "/no/m"}, exitOK, nil},
		{"predictions in a missing folder", []string{"predict", "--model", model, "--data", gmmSet, "--out", dir + "/no2/p.csv"}, exitOK, nil},
		{"a model under a file", []string{"train", "--data", "bags:" + set, "--epochs", "1", "--quiet", "--save-model", set + "/m"}, exitBadUsage, []string{"--save-model", "is a file"}},
		{"weights truncated under an old manifest", []string{"predict", "--model", old, "--data", gmmSet}, exitBadUsage, []string{"old.npz"}},
		{"too few bags after --val-bags", []string{"train", "--data", "bags:" + set, "--val-bags", "18", "--epochs", "1", "--quiet"}, exitBadUsage, []string{"--val-bags", "2 bags to train on"}},
		{"a class at 0 in every bag", []string{"train", "--data", "bags:" + dir + "/bo/train.csv," + zeroProps + "@normalize", "--epochs", "1", "--quiet"}, exitOK, []string{`class 2 ("never") has proportion 0 in every bag`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			stderr := runExpecting(t, c.args, c.status, c.want)
			assert.Empty(t, repeatedPrefix(stderr), "a prefix said twice: %s", stderr)
			assert.NotContains(t, stderr, "{Name:", "a Go struct")
		})
	}

	// reproduce --data announces the user's data, not the grid's own.
	code, _, stderr := runCmd("reproduce", "--quick", "--data", "bags:"+set, "--dry-run", "--results", dir+"/q")
	require.Equal(t, exitOK, code, stderr)
	first := strings.SplitN(stderr, "\n", 2)[0]
	assert.Contains(t, first, "bags:"+set)
	assert.NotContains(t, first, "Fashion-MNIST")
	assert.NotContains(t, first, "2048")
}

// predict --device with no OpenCL platform is bad input (exit 2) naming
// the device, as train's is (a subprocess: the test binary may have loaded
// a platform already).
func TestPredictWithoutAPlatformExits2(t *testing.T) {
	bin := buildLLPFC(t)
	dir := t.TempDir()
	model := filepath.Join(dir, "m")
	saveGMMModel(t, model, "1")
	for _, args := range [][]string{{"predict", "--model", model, "--data", gmmSet, "--device", "opencl"},
		{"train", "--data", gmmSet, "--bag-size", "8", "--num-points", "64", "--epochs", "1", "--quiet", "--device", "opencl"}} {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "OCL_ICD_VENDORS="+t.TempDir(), "OCL_ICD_FILENAMES=")
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "llpfc %q: %s", args, out)
		assert.Equal(t, exitBadUsage, ee.ExitCode(), "llpfc %q: %s", args, out)
		assert.Contains(t, string(out), "opencl")
	}
}
