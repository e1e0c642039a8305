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
				_, err := Load("bags:"+c.path, "", Test)
				wantErr(t, err, "has no test split", "test_X and test_y")
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
// names the file, the row, line or key, and what was expected (issue 28).
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
			"", []string{"proportions.csv: line 2, class 1: -0.5, want a proportion or count ≥ 0"}},
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
