package data

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/estimators"
)

// TestReadBagOnlyNumpyFiles reads the bag-only set NumPy wrote
// (testdata/numpy/gen_numpy.py) as numpy.savez, numpy.savez_compressed and
// a directory of .npy files: the bags are the instances' ids (not
// contiguous, named by bag_ids), counts become proportions, and the test
// split is labelled.
func TestReadBagOnlyNumpyFiles(t *testing.T) {
	want := &estimators.BagSet{NumClasses: 2, Bags: []estimators.Bag{
		{ID: 3, Size: 2, Proportions: []float64{0.5, 0.5}, Indices: []int{1, 4}},
		{ID: 7, Size: 4, Proportions: []float64{0.75, 0.25}, Indices: []int{0, 2, 3, 5}},
	}}
	for _, c := range []struct {
		path string
		test bool
	}{
		{"testdata/numpy/bagonly.npz", true},
		{"testdata/numpy/bagonly_compressed.npz", true},
		{"testdata/numpy/bagonly_dir", false},
	} {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			train, test, err := ReadBagOnly("bags:" + c.path)
			require.NoError(t, err)
			assert.Equal(t, want, train.Bags)
			assert.Nil(t, train.Y)
			assert.Equal(t, 6, train.N)
			assert.Equal(t, 2, train.D)
			assert.Equal(t, []float32{0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.25, 2.5, 2.75}, train.X)
			if !c.test {
				assert.Nil(t, test)
				// Load gives the empty split NoTestSplit: no instance, the
				// training split's shape and classes.
				empty, err := Load("bags:"+c.path, "", Test)
				require.NoError(t, err)
				assert.Equal(t, 0, empty.N)
				assert.Empty(t, empty.X)
				assert.Equal(t, []int{}, empty.Y)
				assert.Equal(t, train.D, empty.D)
				assert.Equal(t, train.NumClasses, empty.NumClasses)
				assert.NoError(t, empty.Validate())
				return
			}
			require.NotNil(t, test)
			assert.Equal(t, []int{1, 0}, test.Y)
			assert.Equal(t, []float32{0.5, 1, 2, 0.25}, test.X)
			assert.Equal(t, 2, test.NumClasses)
		})
	}
}

// writeFiles writes name → content into dir and returns dir.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return dir
}

// TestReadBagOnlyCSV reads the table layout from CSV files, given as a
// directory and as TRAIN,PROPORTIONS,TEST: string bag ids, a categorical
// column (detected) one-hot with the training categories, an unseen test
// category as an all-zero block, class names from the proportions' header
// and test labels matched to them.
func TestReadBagOnlyCSV(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"train.csv":       "x,colour,bag\n1,red,a\n2,blue,b\n3,red,a\n4,green,b\n",
		"proportions.csv": "bag,cat,dog\nb,0.5,0.5\na,1,0\n",
		"test.csv":        "label,colour,x\ndog,purple,5\ncat,red,6\n",
	})
	names := []string{"bags:" + dir,
		"bags:" + filepath.Join(dir, "train.csv") + "," + filepath.Join(dir, "proportions.csv") + "," + filepath.Join(dir, "test.csv")}
	for _, name := range names {
		train, test, err := ReadBagOnly(name)
		require.NoError(t, err, name)
		assert.Equal(t, []Column{{Name: "x", Offset: 0, Width: 1}, {Name: "colour", Categories: []string{"blue", "green", "red"}, Offset: 1, Width: 3}}, train.Columns)
		assert.Equal(t, []float32{1, 0, 0, 1, 2, 1, 0, 0, 3, 0, 0, 1, 4, 0, 1, 0}, train.X)
		assert.Equal(t, []string{"cat", "dog"}, train.ClassNames)
		assert.Equal(t, []estimators.Bag{
			{ID: 0, Size: 2, Proportions: []float64{0.5, 0.5}, Indices: []int{1, 3}},
			{ID: 1, Size: 2, Proportions: []float64{1, 0}, Indices: []int{0, 2}},
		}, train.Bags.Bags, "string ids: bags numbered by their row of the proportions")
		assert.Equal(t, []float32{5, 0, 0, 0, 6, 0, 0, 1}, test.X, "purple, unseen in training, is an all-zero block")
		assert.Equal(t, []int{1, 0}, test.Y)
	}
}

// TestBagOnlyBadInput: every bad input of a bag-only set is an error that
// names the file, the row, line or key, and what was expected.
func TestBagOnlyBadInput(t *testing.T) {
	train := "x,bag\n1,0\n2,0\n3,1\n4,1\n"
	props := "bag,0,1\n0,0.5,0.5\n1,0.25,0.75\n"
	cases := []struct {
		name  string
		files map[string]string
		opt   string
		want  []string
	}{
		{"bag without proportions", map[string]string{"train.csv": train + "5,2\n", "proportions.csv": props},
			"", []string{"train.csv: line 6 has bag id \"2\", which has no row in", "proportions.csv", "1 instances"}},
		{"proportions without instances", map[string]string{"train.csv": train, "proportions.csv": props + "9,1,0\n"},
			"", []string{"proportions.csv: line 4 gives proportions for bag \"9\", but no instance of", "train.csv"}},
		{"repeated bag", map[string]string{"train.csv": train, "proportions.csv": props + "1,1,0\n"},
			"", []string{"proportions.csv: line 4 repeats bag \"1\" of line 3"}},
		{"sum not 1", map[string]string{"train.csv": train, "proportions.csv": "bag,0,1\n0,0.5,0.5\n1,0.25,0.7\n"},
			"", []string{"proportions.csv: line 3 (bag \"1\"): proportions sum to 0.95", "want 1 (within 1e-06", "@normalize"}},
		{"negative", map[string]string{"train.csv": train, "proportions.csv": "bag,0,1\n0,1.5,-0.5\n1,0.25,0.75\n"},
			"", []string{"proportions.csv: line 2, column \"1\" (class 1): -0.5, want a proportion or count ≥ 0"}},
		// Class columns named by numbers out of order: the message names the
		// column, as "class 1" alone would read as the column "1".
		{"negative, columns 1 and 0", map[string]string{"train.csv": train, "proportions.csv": "bag,1,0\n0,1.5,-0.5\n1,0.25,0.75\n"},
			"", []string{"proportions.csv: line 2, column \"0\" (class 1): -0.5"}},
		{"NaN", map[string]string{"train.csv": train, "proportions.csv": "bag,0,1\n0,NaN,0.5\n1,0.25,0.75\n"},
			"", []string{"proportions.csv: line 2, column 2: value \"NaN\" is not a finite"}},
		{"counts off", map[string]string{"train.csv": train, "proportions.csv": "bag,0,1\n0,1,1\n1,2,1\n"},
			"", []string{"proportions.csv: line 3 (bag \"1\"): counts sum to 3, but the bag has 2 instances"}},
		{"mixed column", map[string]string{"train.csv": "x,bag\n1,0\nred,0\n3,1\n4,1\n", "proportions.csv": props},
			"", []string{"train.csv: line 3, column 1: \"red\" is not a number, but column \"x\" holds numbers (line 2: \"1\")", "declare it categorical"}},
		{"label column in training", map[string]string{"train.csv": "x,label,bag\n1,0,0\n", "proportions.csv": props},
			"", []string{"train.csv: column \"label\"", "holds no instance labels"}},
		{"no bag column", map[string]string{"train.csv": "x,group\n1,0\n", "proportions.csv": props},
			"", []string{"train.csv: no column named bag, bag_id, bags", "@bag=COLUMN"}},
		{"text proportions", map[string]string{"train.csv": train, "proportions.csv": "bag,0,1\n0,half,0.5\n1,0.25,0.75\n"},
			"", []string{"proportions.csv: line 2, column 2: \"half\" is not a number"}},
		{"unknown option", map[string]string{"train.csv": train, "proportions.csv": props},
			"@normalise", []string{`option "normalise": want normalize`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, c.files)
			_, _, err := ReadBagOnly("bags:" + dir + c.opt)
			wantErr(t, err, c.want...)
		})
	}
	t.Run("normalize", func(t *testing.T) {
		dir := writeFiles(t, map[string]string{"train.csv": train, "proportions.csv": "bag,0,1\n0,1,3\n1,0.25,0.7\n"})
		tr, _, err := ReadBagOnly("bags:" + dir + "@normalize")
		require.NoError(t, err)
		assert.Equal(t, []float64{0.25, 0.75}, tr.Bags.Bags[0].Proportions)
		assert.InDeltaSlice(t, []float64{0.25 / 0.95, 0.7 / 0.95}, tr.Bags.Bags[1].Proportions, 1e-15)
	})
	t.Run("within 1e-6 is rescaled", func(t *testing.T) {
		dir := writeFiles(t, map[string]string{"train.csv": train, "proportions.csv": "bag,0,1\n0,0.5,0.5000004\n1,0.25,0.75\n"})
		tr, _, err := ReadBagOnly("bags:" + dir)
		require.NoError(t, err)
		assert.InDelta(t, 1, tr.Bags.Bags[0].Proportions[0]+tr.Bags.Bags[0].Proportions[1], 1e-15)
	})
}

// TestFeatureKeys: the feature protocol's keys group the instances by the
// value combination of the named columns (categorical by category, numeric
// by value; by name or 0-based index), numbered in increasing order.
func TestFeatureKeys(t *testing.T) {
	d, err := ReadCSV(strings.NewReader("label,colour,x,size\n0,red,1,s\n1,blue,2,s\n0,red,1,l\n1,red,2,s\n0,blue,2,s\n"), "t.csv", TabularOptions{})
	require.NoError(t, err)
	for _, c := range []struct {
		cols []string
		want []int
	}{
		{[]string{"colour"}, []int{1, 0, 1, 1, 0}},
		{[]string{"COLOUR", "x"}, []int{1, 0, 1, 2, 0}},
		{[]string{"0", "2"}, []int{2, 0, 1, 2, 0}},
		{[]string{"x"}, []int{0, 1, 0, 1, 1}},
	} {
		keys, err := d.FeatureKeys(c.cols)
		require.NoError(t, err, c.cols)
		assert.Equal(t, c.want, keys, c.cols)
	}
	_, err = d.FeatureKeys([]string{"weight"})
	wantErr(t, err, `t.csv: no column "weight" for the feature protocol (columns: [colour x size])`)
	img := &Dataset{Name: "img", N: 2, D: 2, X: []float32{0, 1, 0, 0.5}}
	keys, err := img.FeatureKeys([]string{"1"})
	require.NoError(t, err)
	assert.Equal(t, []int{1, 0}, keys, "no columns: a feature by index")
}

// TestBagOnlyNPZBadInput: the NumPy layout's bad inputs, each an error
// naming the archive and its array (and index), and what was expected.
func TestBagOnlyNPZBadInput(t *testing.T) {
	x := NPYArray{Key: "X", Shape: []int{4, 2}, F64: []float64{1, 2, 3, 4, 5, 6, 7, 8}}
	bag := NPYArray{Key: "bag", Shape: []int{4}, I64: []int64{0, 1, 0, 1}}
	p := NPYArray{Key: "proportions", Shape: []int{2, 2}, F64: []float64{0.5, 0.5, 1, 0}}
	img := NPYArray{Key: "X", Shape: []int{4, 1, 2, 2}, F32: make([]float32, 16)}
	cases := []struct {
		name   string
		arrays []NPYArray
		want   []string
	}{
		{"bag length", []NPYArray{x, {Key: "bag", Shape: []int{3}, I64: []int64{0, 1, 0}}, p}, []string{"array bag: shape (3,), want (4,): one bag id per instance of X"}},
		{"float bag ids", []NPYArray{x, {Key: "bag", Shape: []int{4}, F64: []float64{0, 1, 0, 1}}, p}, []string{"array bag: dtype <f8, want an integer type"}},
		{"instance labels", []NPYArray{x, bag, p, {Key: "y", Shape: []int{4}, I64: []int64{0, 1, 1, 0}}}, []string{`array "y" is not part of a bag-only set (instance labels are not LLP training data`}},
		{"no proportions", []NPYArray{x, bag}, []string{"no array proportions (a row of label proportions per bag); it holds arrays X, bag"}},
		{"NaN feature", []NPYArray{{Key: "X", Shape: []int{4, 2}, F64: []float64{1, 2, 3, nanValue(), 5, 6, 7, 8}}, bag, p}, []string{"array X: row 1, column 1 is NaN, want a finite float32 number"}},
		{"image out of range", []NPYArray{{Key: "X", Shape: []int{4, 1, 2, 2}, F32: append(make([]float32, 15), 2)}, bag, p}, []string{"array X: image value 2 at [3, 0, 1, 1], want a float in [0, 1]"}},
		{"int images", []NPYArray{{Key: "X", Shape: []int{4, 2, 2}, I64: make([]int64, 16)}, bag, p}, []string{"images of dtype <i8: want uint8 (0…255) or floats in [0, 1]"}},
		{"channels last", []NPYArray{{Key: "X", Shape: []int{4, 8, 8, 3}, U8: make([]uint8, 768)}, bag, p}, []string{"shape (4, 8, 8, 3) looks channels-last", "X.transpose(0, 3, 1, 2)"}},
		{"1-D X", []NPYArray{{Key: "X", Shape: []int{4}, F64: make([]float64, 4)}, bag, p}, []string{"array X: shape (4,): want N×D feature vectors, N×H×W or N×C×H×W images"}},
		{"proportions 1-D", []NPYArray{x, bag, {Key: "proportions", Shape: []int{4}, F64: []float64{1, 0, 1, 0}}}, []string{"array proportions: shape (4,): want K×C"}},
		{"bag_ids length", []NPYArray{x, bag, p, {Key: "bag_ids", Shape: []int{3}, I64: []int64{0, 1, 2}}}, []string{"array bag_ids: shape (3,), want (2,): one bag id per row of"}},
		{"bag_ids repeat", []NPYArray{x, bag, p, {Key: "bag_ids", Shape: []int{2}, I64: []int64{1, 1}}}, []string{"array proportions: row 1 (bag_ids[1] = 1) repeats bag 1 of row 0 (bag_ids[0] = 1)"}},
		{"NaN proportion", []NPYArray{x, bag, {Key: "proportions", Shape: []int{2, 2}, F64: []float64{nanValue(), 1, 1, 0}}}, []string{"array proportions: row 0, class 0: NaN, want a finite number"}},
		{"integer counts off", []NPYArray{x, bag, {Key: "proportions", Shape: []int{2, 2}, I64: []int64{1, 0, 2, 0}}}, []string{"array proportions: row 0 (bag 0): counts sum to 1, but the bag has 2 instances"}},
		{"test_y length", []NPYArray{img, bag, p, {Key: "test_X", Shape: []int{1, 1, 2, 2}, F32: make([]float32, 4)}, {Key: "test_y", Shape: []int{2}, I64: []int64{0, 1}}}, []string{"array test_y: shape (2,), want (1,): one label per test instance"}},
		{"test_y range", []NPYArray{img, bag, p, {Key: "test_X", Shape: []int{1, 1, 2, 2}, F32: make([]float32, 4)}, {Key: "test_y", Shape: []int{1}, I64: []int64{2}}}, []string{"array test_y[0]: label 2, want a class 0…1"}},
		{"test shape", []NPYArray{img, bag, p, {Key: "test_X", Shape: []int{1, 1, 3, 3}, F32: make([]float32, 9)}, {Key: "test_y", Shape: []int{1}, I64: []int64{0}}}, []string{"instances of 1×3×3 images, but X's are 1×2×2 images"}},
		{"test_X alone", []NPYArray{img, bag, p, {Key: "test_X", Shape: []int{1, 1, 2, 2}, F32: make([]float32, 4)}}, []string{"a test split needs both test_X and test_y"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "b.npz")
			f, err := os.Create(path)
			require.NoError(t, err)
			require.NoError(t, WriteNPZ(f, c.arrays))
			require.NoError(t, f.Close())
			_, _, err = ReadBagOnly("bags:" + path)
			wantErr(t, err, append([]string{"b.npz"}, c.want...)...)
		})
	}
}
