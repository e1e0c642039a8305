package main

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/fixtures/bagonly"
)

// Bag-only data end to end: a bag-only set trains through `llpfc train` and a
// grid spec to the same numbers as its instances with their labels and the
// same bags (the labelled path: a named or CSV data set and a bags file).

// fixturePath is the committed bag-only fixture, from this package.
var fixturePath = filepath.Join("..", "..", bagonly.Path)

// trainJSON runs `llpfc train ARGS --json --quiet` and returns its JSON.
func trainJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	code, out, errOut := runCmd(append(append([]string{"train"}, args...), "--json", "--quiet")...)
	require.Equal(t, exitOK, code, "llpfc train %v: %s", args, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &res))
	return res
}

// sameRun are the training flags every run of these tests shares.
var sameRun = []string{"--epochs", "2", "--regroup-every", "1", "--seed", "3"}

// idxFile writes an uncompressed IDX file of unsigned bytes.
func idxFile(t *testing.T, path string, dims []int, payload []byte) {
	t.Helper()
	var b bytes.Buffer
	b.Write([]byte{0, 0, 8, byte(len(dims))})
	for _, d := range dims {
		require.NoError(t, binary.Write(&b, binary.BigEndian, uint32(d)))
	}
	b.Write(payload)
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
}

// fixtureBagsFile writes the fixture's bags as a bags file over its images
// in file order (each bag's instances in increasing order, as the bag-only
// reader lists them) and returns its path.
func fixtureBagsFile(t *testing.T, dir string, f *bagonly.Fixture) string {
	t.Helper()
	set := &estimators.BagSet{NumClasses: 10}
	for k := 0; k < len(f.Proportions)/10; k++ {
		var idx []int
		for i, b := range f.Bag {
			if int(b) == k {
				idx = append(idx, i)
			}
		}
		set.Bags = append(set.Bags, estimators.Bag{ID: k, Size: len(idx), Proportions: f.Proportions[k*10 : (k+1)*10], Indices: idx})
	}
	var b bytes.Buffer
	require.NoError(t, set.Write(&b))
	p := filepath.Join(dir, "bags.json")
	require.NoError(t, os.WriteFile(p, b.Bytes(), 0o644))
	return p
}

// pixelText writes pixel v as the float64 of its float32 value in [0,1],
// exactly (a CSV reader then holds what the image readers hold).
func pixelText(v byte) string {
	return strconv.FormatFloat(float64(float32(v)/255), 'g', -1, 64)
}

// writeTables writes the fixture's instances as tables: a labelled CSV
// set (train.csv, test.csv with a label column) and the bag-only layout
// (a train table with a bag column, proportions and test tables) in CSV
// and in Parquet; it returns the three directories.
func writeTables(t *testing.T, dir string, f *bagonly.Fixture) (labelled, csvDir, pqDir string) {
	t.Helper()
	labelled, csvDir, pqDir = filepath.Join(dir, "labelled"), filepath.Join(dir, "csv"), filepath.Join(dir, "parquet")
	for _, d := range []string{labelled, csvDir, pqDir} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	names := make([]string, 784)
	for j := range names {
		names[j] = "p" + strconv.Itoa(j)
	}
	table := func(images []byte, extraName string, extra func(i int) string) string {
		var b strings.Builder
		b.WriteString(strings.Join(names, ",") + "," + extraName + "\n")
		for i := 0; i < len(images)/784; i++ {
			for _, v := range images[i*784 : (i+1)*784] {
				b.WriteString(pixelText(v) + ",")
			}
			b.WriteString(extra(i) + "\n")
		}
		return b.String()
	}
	label := func(i int) string { return strconv.Itoa(f.Labels[i]) }
	testLabel := func(i int) string { return strconv.FormatInt(f.TestLabels[i], 10) }
	bag := func(i int) string { return strconv.FormatInt(f.Bag[i], 10) }
	files := map[string]string{
		filepath.Join(labelled, "train.csv"): table(f.Images, "label", label),
		filepath.Join(labelled, "test.csv"):  table(f.TestImages, "label", testLabel),
		filepath.Join(csvDir, "train.csv"):   table(f.Images, "bag", bag),
		filepath.Join(csvDir, "test.csv"):    table(f.TestImages, "label", testLabel),
	}
	var props strings.Builder
	props.WriteString("bag,0,1,2,3,4,5,6,7,8,9\n")
	for k := 0; k < len(f.Proportions)/10; k++ {
		props.WriteString(strconv.Itoa(k))
		for _, p := range f.Proportions[k*10 : (k+1)*10] {
			props.WriteString("," + strconv.FormatFloat(p, 'g', -1, 64))
		}
		props.WriteString("\n")
	}
	files[filepath.Join(csvDir, "proportions.csv")] = props.String()
	for p, body := range files {
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	pq := func(name string, images []byte, extra data.ParquetColumn) {
		cols := make([]data.ParquetColumn, 0, 785)
		n := len(images) / 784
		for j := range names {
			v := make([]float32, n)
			for i := range v {
				v[i] = float32(images[i*784+j]) / 255
			}
			cols = append(cols, data.ParquetColumn{Name: names[j], Values: v})
		}
		var b bytes.Buffer
		require.NoError(t, data.WriteParquet(&b, append(cols, extra)))
		require.NoError(t, os.WriteFile(filepath.Join(pqDir, name), b.Bytes(), 0o644))
	}
	pq("train.parquet", f.Images, data.ParquetColumn{Name: "bag", Values: f.Bag})
	pq("test.parquet", f.TestImages, data.ParquetColumn{Name: "label", Values: f.TestLabels})
	ids := make([]int64, len(f.Proportions)/10)
	cols := []data.ParquetColumn{{Name: "bag", Values: ids}}
	for c := 0; c < 10; c++ {
		v := make([]float64, len(ids))
		for k := range ids {
			ids[k] = int64(k)
			v[k] = f.Proportions[k*10+c]
		}
		cols = append(cols, data.ParquetColumn{Name: strconv.Itoa(c), Values: v})
	}
	var b bytes.Buffer
	require.NoError(t, data.WriteParquet(&b, cols))
	require.NoError(t, os.WriteFile(filepath.Join(pqDir, "proportions.parquet"), b.Bytes(), 0o644))
	return labelled, csvDir, pqDir
}

// TestBagOnlyTrainsLikeTheLabelledSet: the bag-only fixture (.npz), and the
// same instances as bag-only CSV and Parquet tables, train (`llpfc train`
// and a grid spec) to exactly the test accuracy and final loss of the
// labelled instances with the same bags: the images as a named IDX set in
// --data-dir, the tables as a labelled CSV set, each with a bags file.
func TestBagOnlyTrainsLikeTheLabelledSet(t *testing.T) {
	f, err := bagonly.Make()
	require.NoError(t, err)
	dir := t.TempDir()
	idxDir := filepath.Join(dir, "idx")
	require.NoError(t, os.MkdirAll(idxDir, 0o755))
	idxFile(t, filepath.Join(idxDir, "train-images-idx3-ubyte"), []int{f.N(), 28, 28}, f.Images)
	labels := make([]byte, f.N())
	for i, l := range f.Labels {
		labels[i] = byte(l)
	}
	idxFile(t, filepath.Join(idxDir, "train-labels-idx1-ubyte"), []int{f.N()}, labels)
	idxFile(t, filepath.Join(idxDir, "t10k-images-idx3-ubyte"), []int{len(f.TestLabels), 28, 28}, f.TestImages)
	tl := make([]byte, len(f.TestLabels))
	for i, l := range f.TestLabels {
		tl[i] = byte(l)
	}
	idxFile(t, filepath.Join(idxDir, "t10k-labels-idx1-ubyte"), []int{len(tl)}, tl)
	bags := fixtureBagsFile(t, dir, f)
	labelledCSV, csvDir, pqDir := writeTables(t, dir, f)

	images := trainJSON(t, append([]string{"--data", "fashion-mnist", "--data-dir", idxDir, "--bags", bags}, sameRun...)...)
	tables := trainJSON(t, append([]string{"--data", "csv:" + filepath.Join(labelledCSV, "train.csv") + "," + filepath.Join(labelledCSV, "test.csv"), "--bags", bags}, sameRun...)...)
	cases := []struct {
		format, data string
		want         map[string]any
	}{
		{"npz", "bags:" + fixturePath, images},
		{"csv", "bags:" + csvDir, tables},
		{"parquet", "bags:" + pqDir, tables},
	}
	var specData []string
	for _, c := range cases {
		got := trainJSON(t, append([]string{"--data", c.data}, sameRun...)...)
		for _, k := range []string{"test_accuracy", "final_loss", "train_points", "test_points"} {
			assert.Equal(t, c.want[k], got[k], "%s: %s, bag-only vs labelled with the same bags", c.format, k)
		}
		assert.Equal(t, "given", got["config"].(map[string]any)["protocol"], c.format)
		t.Logf("%s: test accuracy %v (bag-only) = %v (labelled, same bags); final loss %v", c.format, got["test_accuracy"], c.want["test_accuracy"], got["final_loss"])
		specData = append(specData, c.data)
	}
	// A grid spec: no bag sizes, no protocol (the data sets give their bags).
	spec := map[string]any{"name": "own", "learner": "gorgonia", "model": "mlp", "datasets": specData,
		"methods": []string{"llpfc-uniform"}, "seeds": []int{3},
		"hyper": map[string]any{"epochs": 2, "optimizer": "adam", "lr": 0.001, "momentum": 0.9, "beta1": 0.9, "beta2": 0.999,
			"batch_size": 128, "schedule": map[string]any{"kind": "constant"}, "regroup_every": 1}}
	b, _ := json.Marshal(spec)
	store := filepath.Join(dir, "store")
	code, _, errOut := runCmd("run", writeFile(t, dir, "own.json", string(b)), "--results", store)
	require.Equal(t, exitOK, code, errOut)
	cells, err := filepath.Glob(filepath.Join(store, "cells", "*.json"))
	require.NoError(t, err)
	require.Len(t, cells, 3)
	byData := map[string]map[string]any{}
	for _, p := range cells {
		var cell struct {
			Config  map[string]any `json:"config"`
			Metrics map[string]any `json:"metrics"`
		}
		raw, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &cell))
		byData[cell.Config["dataset"].(string)] = cell.Metrics
	}
	for _, c := range cases {
		m := byData[c.data]
		require.NotNil(t, m, c.data)
		assert.Equal(t, c.want["test_accuracy"], m["test_accuracy"], "%s: grid cell vs labelled", c.format)
		assert.Equal(t, c.want["final_loss"], m["final_loss"], "%s: grid cell vs labelled", c.format)
	}
	code, out, errOut := runCmd("report", "--results", store, "--out", filepath.Join(dir, "rep"))
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "| Method | varying |", "bags of varying sizes: one column")
}

// TestBagOnlyCommands: groups reads a bag-only set's bags; train refuses
// what would describe other bags and the supervised method; bags refuses a
// bag-only set and makes feature and kmeans bags; reproduce runs its grid
// on a bag-only set.
func TestBagOnlyCommands(t *testing.T) {
	set := "bags:" + fixturePath
	code, out, errOut := runCmd("groups", "--data", set, "--mode", "uniform", "--trouble-rounds", "0")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "C = 10, 32 bags, 3 groups")
	code, out, errOut = runCmd("groups", "--data", set, "--mode", "approx", "--json")
	require.Equal(t, exitOK, code, errOut)
	assert.True(t, json.Valid([]byte(out)))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "--data", set, "--method", "supervised"}, "--method supervised trains on instance labels"},
		{[]string{"train", "--data", set, "--protocol", "paper"}, "--protocol conflicts with --data " + set},
		{[]string{"train", "--data", set, "--bag-size", "8"}, "--bag-size conflicts with --data"},
		{[]string{"train", "--data", "fixture", "--protocol", "given"}, "--protocol given takes the bags of a bag-only data set"},
		{[]string{"train", "--data", "fixture", "--protocol", "kmeans:3", "--bag-size", "8"}, "--bag-size conflicts with --protocol kmeans:3"},
		{[]string{"groups", "--mode", "uniform"}, "--bags FILE or --data bags:PATH is required"},
		{[]string{"groups", "--data", set}, "--mode is required: one of ideal, uniform, approx, merge"},
		{[]string{"groups", "--data", "fixture", "--mode", "uniform"}, "groups reads a bag-only data set"},
		{[]string{"bags", "--data", set, "--out", "x.json"}, "is a bag-only data set: it gives its own bags"},
		{[]string{"bags", "--data", "fixture", "--protocol", "kmeans:4", "--num-bags", "3", "--out", "x.json"}, "--num-bags conflicts with --protocol kmeans:4"},
	} {
		code, _, errOut := runCmd(c.args...)
		assert.Equal(t, exitBadUsage, code, "%v: %s", c.args, errOut)
		assert.Contains(t, errOut, c.want, "%v", c.args)
	}
	dir := t.TempDir()
	table := writeFile(t, dir, "t.csv", "label,colour,x\n0,red,1\n1,red,2\n0,blue,3\n1,blue,4\n0,green,5\n1,red,6\n")
	code, out, errOut = runCmd("bags", "--data", "csv:"+table, "--protocol", "feature:colour", "--out", filepath.Join(dir, "f.json"), "--trouble-rounds", "0")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "wrote 3 bags of varying sizes")
	read, err := estimators.ReadBagSetFile(filepath.Join(dir, "f.json"))
	require.NoError(t, err)
	sizes := []int{}
	for _, b := range read.Bags {
		sizes = append(sizes, b.Size)
	}
	sort.Ints(sizes)
	assert.Equal(t, []int{1, 2, 3}, sizes, "blue 2, green 1, red 3")
	code, out, errOut = runCmd("bags", "--data", "csv:"+table, "--protocol", "feature:colour,min=2", "--out", filepath.Join(dir, "g.json"), "--trouble-rounds", "0")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "1 bags (1 instances) outside the size bounds dropped")
	code, out, errOut = runCmd("bags", "--data", "csv:"+table, "--protocol", "kmeans:2", "--seed", "4", "--out", filepath.Join(dir, "k.json"), "--trouble-rounds", "0")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "wrote 2 bags of varying sizes")

	code, out, errOut = runCmd("reproduce", "--quick", "--data", set, "--dry-run", "--json", "--results", filepath.Join(dir, "q"))
	require.Equal(t, exitOK, code, errOut)
	assert.Equal(t, 6, strings.Count(out, `"protocol": "given"`), "3 methods × 2 seeds on the set's own bags: %s", out)
	code, _, errOut = runCmd("reproduce", "--table", "wrn16-4", "--data", set, "--dry-run")
	assert.Equal(t, exitBadUsage, code)
	assert.Contains(t, errOut, "--data applies to --quick and the Fashion-MNIST tables")
}

// TestTrainFeatureAndKMeansProtocols: a labelled set trains on feature and
// kmeans bags, whose cells record bag size 0 and the protocol.
func TestTrainFeatureAndKMeansProtocols(t *testing.T) {
	dir := t.TempDir()
	name := featureTable(t, dir)
	for _, proto := range []string{"feature:g", "kmeans:12"} {
		res := trainJSON(t, "--data", name, "--protocol", proto, "--epochs", "1", "--batch-size", "32")
		cfg := res["config"].(map[string]any)
		assert.Equal(t, proto, cfg["protocol"])
		assert.Equal(t, 0.0, cfg["bag_size"])
		assert.Equal(t, 240.0, res["train_points"], proto)
		assert.Equal(t, 12.0, res["num_bags"], proto)
	}
	spec := `{"name": "km", "learner": "gorgonia", "model": "mlp", "datasets": ["` + name + `"], "methods": ["llpfc-uniform", "kl"],
	  "seeds": [1], "protocol": "kmeans:12", "hyper": {"epochs": 1, "optimizer": "adam", "lr": 0.001, "batch_size": 32, "schedule": {"kind": "constant"}},
	  "overrides": [{"when": {"methods": ["kl"]}, "set": {"hyper": {"batch_size": 2}}}]}`
	store := filepath.Join(dir, "store")
	code, _, errOut := runCmd("run", writeFile(t, dir, "km.json", spec), "--results", store)
	require.Equal(t, exitOK, code, errOut)
	code, out, errOut := runCmd("report", "--results", store, "--out", filepath.Join(dir, "rep"))
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "protocol kmeans:12")
	assert.Contains(t, out, "| Method | varying |")
	assert.Contains(t, out, "the whole training split in kmeans:12 bags")
}

// badBagOnly are the bad bag-only sets writeBagOnlyInputs makes, one per
// rule of a bag-only set (each message names the file and the row or key).
var badBagOnly = []string{
	"bags:{dir}/bo-nobag", "bags:{dir}/bo-norow", "bags:{dir}/bo-sum", "bags:{dir}/bo-neg", "bags:{dir}/bo-nan",
	"bags:{dir}/bo-counts", "bags:{dir}/bo-mixed", "bags:{dir}/bo-labels", "bags:{dir}/bo-len.npz", "bags:{dir}/bo-f16.npz",
	"bags:{dir}/bo-float-bags.npz", "bags:{dir}/bo-y.npz", "bags:{dir}/bo-chlast.npz", "bags:{dir}/bo@normalise",
	"bags:{dir}/bo-missing.npz",
}

// badBagOnlyTrain are the sets training refuses: those of badBagOnly. (A
// set without a test split, bo-notest, is not among them: it trains and is
// judged by bag-level figures, TestBagOnlyWithoutTestSplit.)
var badBagOnlyTrain = badBagOnly

// writeBagOnlyInputs writes, in dir, a valid bag-only set bo (CSV tables,
// 2 classes, 10 bags of 4) and the bad sets of badBagOnly.
func writeBagOnlyInputs(t *testing.T, dir string) {
	t.Helper()
	var train, props strings.Builder
	train.WriteString("x1,x2,bag\n")
	props.WriteString("bag,no,yes\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&train, "%d,%d,%d\n", i%7, (i*3)%5, i%10)
	}
	for k := 0; k < 10; k++ {
		fmt.Fprintf(&props, "%d,%g,%g\n", k, float64(k%5)/4, 1-float64(k%5)/4)
	}
	test := "x1,x2,label\n1,2,no\n3,4,yes\n"
	good := map[string]string{"train.csv": train.String(), "proportions.csv": props.String(), "test.csv": test}
	set := func(name string, edit func(files map[string]string)) {
		files := map[string]string{}
		for k, v := range good {
			files[k] = v
		}
		edit(files)
		for k, v := range files {
			writeFile(t, dir, filepath.Join(name, k), v)
		}
	}
	set("bo", func(map[string]string) {})
	set("bo-nobag", func(f map[string]string) { f["train.csv"] += "9,9,77\n" })
	set("bo-norow", func(f map[string]string) { f["proportions.csv"] += "55,0.5,0.5\n" })
	set("bo-sum", func(f map[string]string) {
		f["proportions.csv"] = strings.Replace(f["proportions.csv"], "0,0,1\n", "0,0,0.9\n", 1)
	})
	set("bo-neg", func(f map[string]string) {
		f["proportions.csv"] = strings.Replace(f["proportions.csv"], "0,0,1\n", "0,-0.5,1.5\n", 1)
	})
	set("bo-nan", func(f map[string]string) {
		f["proportions.csv"] = strings.Replace(f["proportions.csv"], "0,0,1\n", "0,NaN,1\n", 1)
	})
	set("bo-counts", func(f map[string]string) {
		f["proportions.csv"] = "bag,no,yes\n" + strings.Repeat("", 0) + countsRows(10, 3)
	})
	set("bo-mixed", func(f map[string]string) { f["train.csv"] = strings.Replace(f["train.csv"], "\n3,", "\nthree,", 1) })
	set("bo-labels", func(f map[string]string) {
		f["train.csv"] = strings.Replace(f["train.csv"], "x1,x2,bag", "x1,label,bag", 1)
	})
	npz := func(name string, arrays ...data.NPYArray) {
		var b bytes.Buffer
		require.NoError(t, data.WriteNPZ(&b, arrays))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644))
	}
	x := data.NPYArray{Key: "X", Shape: []int{4, 2}, F64: []float64{1, 2, 3, 4, 5, 6, 7, 8}}
	bag := data.NPYArray{Key: "bag", Shape: []int{4}, I64: []int64{0, 1, 0, 1}}
	p := data.NPYArray{Key: "proportions", Shape: []int{2, 2}, F64: []float64{0.5, 0.5, 1, 0}}
	npz("bo-len.npz", x, data.NPYArray{Key: "bag", Shape: []int{3}, I64: []int64{0, 1, 0}}, p)
	npz("bo-float-bags.npz", x, data.NPYArray{Key: "bag", Shape: []int{4}, F64: []float64{0, 1, 0, 1}}, p)
	npz("bo-y.npz", x, bag, p, data.NPYArray{Key: "y", Shape: []int{4}, I64: []int64{0, 1, 1, 0}})
	npz("bo-chlast.npz", data.NPYArray{Key: "X", Shape: []int{1, 8, 8, 3}, U8: make([]uint8, 192)}, data.NPYArray{Key: "bag", Shape: []int{1}, I64: []int64{0}}, p)
	npz("bo-missing.npz", x, bag)
	// float16 X, written by hand: WriteNPZ writes only the supported dtypes.
	var f16 bytes.Buffer
	zw := zip.NewWriter(&f16)
	for _, m := range []struct {
		key string
		npy []byte
	}{{"X", npyRaw("<f2", "(4, 2)", make([]byte, 16))}, {"bag", npyRaw("<i8", "(4,)", make([]byte, 32))}, {"proportions", npyRaw("<f8", "(1, 2)", make([]byte, 16))}} {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: m.key + ".npy", Method: zip.Store})
		require.NoError(t, err)
		_, err = w.Write(m.npy)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bo-f16.npz"), f16.Bytes(), 0o644))
}

// npyRaw writes a .npy array of dtype descr and shape (a Python tuple) with
// the given data bytes.
func npyRaw(descr, shape string, payload []byte) []byte {
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape)
	h += strings.Repeat(" ", 63-(10+len(h))%64) + "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(h)), byte(len(h)>>8))
	return append(append(b, h...), payload...)
}

// countsRows writes k rows of counts whose sums are off by one from the
// bags' 4 instances.
func countsRows(k, n int) string {
	var b strings.Builder
	for i := 0; i < k; i++ {
		fmt.Fprintf(&b, "%d,%d,%d\n", i, n, 2)
	}
	return b.String()
}

// A bag-only set with no labelled test split — LLP data as it often comes,
// no instance label anywhere — still trains, gives a model out and is
// reported by a bag-level figure (the test data, when given, are the only
// labels). The oracle: training never reads the test split, so the run
// without it has the final loss and the bags' proportion error of the same
// run with it, bit for bit; only the test metrics are absent (test_points 0),
// and the commands that need them say so.
func TestBagOnlyWithoutTestSplit(t *testing.T) {
	f, err := bagonly.Make()
	require.NoError(t, err)
	dir := t.TempDir()
	var b bytes.Buffer
	require.NoError(t, data.WriteNPZ(&b, f.Arrays()[:3])) // X, bag, proportions: no test_X, test_y
	noTest := writeFile(t, dir, "notest.npz", b.String())
	set := "bags:" + noTest

	with := trainJSON(t, append([]string{"--data", "bags:" + fixturePath}, sameRun...)...)
	model := filepath.Join(dir, "m")
	without := trainJSON(t, append([]string{"--data", set, "--save-model", model}, sameRun...)...)
	for _, k := range []string{"final_loss", "bag_proportion_error", "train_points"} {
		assert.Equal(t, with[k], without[k], "%s with and without the test split", k)
	}
	assert.EqualValues(t, 0, without["test_points"])
	assert.Nil(t, without["scores"], "no test scores without test instances")
	assert.Positive(t, without["bag_proportion_error"])
	code, out, errOut := runCmd(append([]string{"train", "--data", set, "--quiet"}, sameRun...)...)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "no labelled test split; training bags' proportion error")

	// The model comes out and scores the training instances; the test split
	// it does not have is refused by name.
	code, _, errOut = runCmd("predict", "--model", model, "--data", set)
	assert.Equal(t, exitBadUsage, code)
	assert.Contains(t, errOut, "has no test split")
	code, out, errOut = runCmd("predict", "--model", model, "--data", set, "--split", "train")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, fmt.Sprintf("train split: %d instances", f.N()))

	// A grid on it: the report shows the bags' proportion error, and a test
	// metric asked for by name is refused with the reason.
	spec := map[string]any{"name": "own", "learner": "gorgonia", "model": "mlp", "datasets": []string{set},
		"methods": []string{"llpfc-uniform", "llpfc-approx"}, "seeds": []int{3},
		"hyper": map[string]any{"epochs": 2, "optimizer": "adam", "lr": 0.001, "beta1": 0.9, "beta2": 0.999,
			"batch_size": 128, "schedule": map[string]any{"kind": "constant"}, "regroup_every": 1}}
	js, _ := json.Marshal(spec)
	store := filepath.Join(dir, "store")
	code, _, errOut = runCmd("run", writeFile(t, dir, "own.json", string(js)), "--results", store)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, errOut, "no test split, bags' proportion error")
	code, out, errOut = runCmd("report", "--results", store, "--out", filepath.Join(dir, "rep"))
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "No cell had a labelled test split")
	assert.Contains(t, out, "Training bags' proportion error")
	for _, metric := range []string{"test_accuracy", "macro_f1"} {
		code, _, errOut = runCmd("report", "--results", store, "--out", filepath.Join(dir, "rep2"), "--metric", metric)
		assert.Equal(t, exitBadUsage, code, metric)
		assert.Contains(t, errOut, "had no labelled test split", metric)
	}
	csvPath := filepath.Join(dir, "cells.csv")
	code, _, errOut = runCmd("report", "--results", store, "--out", filepath.Join(dir, "rep3"), "--csv", csvPath)
	require.Equal(t, exitOK, code, errOut)
	raw, err := os.ReadFile(csvPath)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	require.Len(t, lines, 3, "a header and two cells")
	col := -1
	for i, h := range strings.Split(lines[0], ",") {
		if h == "test_accuracy" {
			col = i
		}
	}
	require.NotEqual(t, -1, col, "the CSV has a test_accuracy column: %s", lines[0])
	for _, l := range lines[1:] {
		assert.Empty(t, strings.Split(l, ",")[col], "no test accuracy without a test split: %s", l)
	}
}

// TestNewerMethodsOnOwnBags: EasyLLP, MixBag and LLP-PVC need no
// instance label: each trains on the bag-only fixture (bags:, protocol
// given) and on feature and kmeans bags of a labelled table (bags of
// varying sizes), with its authors' minibatch of bags by default.
func TestNewerMethodsOnOwnBags(t *testing.T) {
	name := featureTable(t, t.TempDir())
	for _, method := range []string{"easyllp", "mixbag", "llppvc"} {
		res := trainJSON(t, "--data", "bags:"+fixturePath, "--method", method, "--epochs", "1", "--batch-size", "2")
		assert.Equal(t, "given", res["config"].(map[string]any)["protocol"], method)
		assert.Greater(t, res["test_accuracy"].(float64), 0.0, method)
		for _, proto := range []string{"feature:g", "kmeans:12"} {
			res := trainJSON(t, "--data", name, "--protocol", proto, "--method", method, "--epochs", "1")
			cfg := res["config"].(map[string]any)
			assert.Equal(t, proto, cfg["protocol"], method)
			assert.Equal(t, 12.0, res["num_bags"], method+" "+proto)
			assert.Equal(t, 240.0, res["train_points"], method+" "+proto)
		}
	}
}

// featureTable writes a labelled CSV of 240 rows, 3 classes and a
// categorical column g of 12 groups into dir, and returns its data-set name
// (the same table as training and test split).
func featureTable(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("label,g,x,y\n")
	for i := 0; i < 240; i++ {
		fmt.Fprintf(&b, "%d,g%d,%d,%d\n", i%3, i%12, i%7, (i*5)%11)
	}
	tr := writeFile(t, dir, "tr.csv", b.String())
	return "csv:" + tr + "," + tr + "@label=label" // y is a feature here: the option says which column is the label (y and label both go by the label's names: without it, the header is ambiguous)
}
