package data

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeNPZFile(t testing.TB, dir string, arrays []NPYArray) string {
	path := filepath.Join(dir, "s.npz")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, WriteNPZ(f, arrays))
	require.NoError(t, f.Close())
	return path
}

// TestNPZSet: npz:PATH reads X and y (and the test split) as a labelled
// set, the values as written and C = 1 + the largest label of both splits;
// without labels both splits are Unlabelled and not Labelled; Load gives
// the empty test split when there is none.
func TestNPZSet(t *testing.T) {
	x := NPYArray{Key: "X", Shape: []int{3, 2}, F64: []float64{1, 2, 3, 4, 5, 6}}
	y := NPYArray{Key: "y", Shape: []int{3}, I64: []int64{0, 2, 0}}
	tx := NPYArray{Key: "test_X", Shape: []int{2, 2}, F64: []float64{7, 8, 9, 10}}
	ty := NPYArray{Key: "test_y", Shape: []int{2}, I64: []int64{3, 1}}

	path := writeNPZFile(t, t.TempDir(), []NPYArray{x, y, tx, ty})
	train, test, err := ReadNPZSet("npz:" + path)
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 2, 3, 4, 5, 6}, train.X)
	assert.Equal(t, []int{0, 2, 0}, train.Y)
	assert.Equal(t, []int{3, 1}, test.Y)
	assert.Equal(t, 4, train.NumClasses, "C = 1 + the largest label of either split")
	assert.Equal(t, 4, test.NumClasses)
	assert.True(t, train.Labelled())

	path = writeNPZFile(t, t.TempDir(), []NPYArray{x})
	train, test, err = ReadNPZSet("npz:" + path)
	require.NoError(t, err)
	assert.Nil(t, test)
	assert.True(t, train.Unlabelled)
	assert.False(t, train.Labelled())
	assert.Nil(t, train.Y)
	loaded, err := Load("npz:"+path, "", Test)
	require.NoError(t, err)
	assert.Equal(t, 0, loaded.N)
	assert.True(t, loaded.Unlabelled, "the empty test split of an unlabelled set is unlabelled too")

	// A directory of .npy files reads as the archive does.
	dir := t.TempDir()
	for _, a := range []NPYArray{x, y} {
		f, err := os.Create(filepath.Join(dir, a.Key+".npy"))
		require.NoError(t, err)
		require.NoError(t, writeNPYArray(f, a))
		require.NoError(t, f.Close())
	}
	train, _, err = ReadNPZSet("npz:" + dir)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 2, 0}, train.Y)
}

// TestNPZSetBadInput: each refusal names the file and the array.
func TestNPZSetBadInput(t *testing.T) {
	x := NPYArray{Key: "X", Shape: []int{3, 2}, F64: []float64{1, 2, 3, 4, 5, 6}}
	y := NPYArray{Key: "y", Shape: []int{3}, I64: []int64{0, 1, 0}}
	tx := NPYArray{Key: "test_X", Shape: []int{1, 2}, F64: []float64{7, 8}}
	cases := []struct {
		name   string
		arrays []NPYArray
		want   []string
	}{
		{"no X", []NPYArray{y}, []string{"no array X (the instances); it holds arrays y"}},
		{"bags", []NPYArray{x, y, {Key: "bag", Shape: []int{3}, I64: []int64{0, 0, 0}}}, []string{`array "bag" is not part of an npz: set (bags and proportions make a bag-only set: read it as bags:PATH)`}},
		{"stray", []NPYArray{x, {Key: "weights", Shape: []int{3}, F64: []float64{1, 1, 1}}}, []string{`array "weights" is not part of an npz: set; it reads X, y, test_X and test_y`}},
		{"y length", []NPYArray{x, {Key: "y", Shape: []int{2}, I64: []int64{0, 1}}}, []string{"array y: shape (2,), want (3,): one label per instance of X"}},
		{"float labels", []NPYArray{x, {Key: "y", Shape: []int{3}, F64: []float64{0, 1, 0}}}, []string{"array y: dtype <f8, want an integer type"}},
		{"negative label", []NPYArray{x, {Key: "y", Shape: []int{3}, I64: []int64{0, -1, 0}}}, []string{"array y[1]: label -1, want a class 0…C−1"}},
		{"test_y alone", []NPYArray{x, y, {Key: "test_y", Shape: []int{1}, I64: []int64{0}}}, []string{"test_y without test_X"}},
		{"labels for one split", []NPYArray{x, y, tx}, []string{"labels for one split only"}},
		{"test shape", []NPYArray{x, {Key: "test_X", Shape: []int{1, 3}, F64: []float64{1, 2, 3}}}, []string{"the test split must be shaped like X"}},
		{"NaN", []NPYArray{{Key: "X", Shape: []int{1, 2}, F64: []float64{1, nanValue()}}}, []string{"array X: row 0, column 1 is NaN"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeNPZFile(t, t.TempDir(), c.arrays)
			_, _, err := ReadNPZSet("npz:" + path)
			wantErr(t, err, append([]string{"s.npz"}, c.want...)...)
		})
	}
	_, _, err := ReadNPZSet("npz:" + filepath.Join(t.TempDir(), "s.csv"))
	wantErr(t, err, "s.csv")
}

// TestNPZSetProperty: for generated labelled and unlabelled sets, what
// ReadNPZSet accepts is the arrays as written (every value, every label), a
// valid Dataset, and C is one more than the largest label.
func TestNPZSetProperty(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 60
	props := gopter.NewProperties(params)
	props.Property("npz: reads what was written", prop.ForAll(
		func(n, d int, labelled bool, seed int64) bool {
			vals := make([]float64, n*d)
			labels := make([]int64, n)
			r := uint64(seed)
			next := func() int64 { r = r*6364136223846793005 + 1442695040888963407; return int64(r >> 33) }
			top := int64(0)
			for i := range vals {
				vals[i] = float64(next()%2001-1000) / 7
			}
			for i := range labels {
				labels[i] = next() % 5
				top = max(top, labels[i])
			}
			arrays := []NPYArray{{Key: "X", Shape: []int{n, d}, F64: vals}}
			if labelled {
				arrays = append(arrays, NPYArray{Key: "y", Shape: []int{n}, I64: labels})
			}
			path := writeNPZFile(t, t.TempDir(), arrays)
			train, test, err := ReadNPZSet("npz:" + path)
			if err != nil || test != nil || train.Validate() != nil || train.N != n || train.D != d {
				t.Logf("n %d d %d: %v", n, d, err)
				return false
			}
			for i, v := range vals {
				if train.X[i] != float32(v) {
					return false
				}
			}
			if !labelled {
				return train.Unlabelled && train.Y == nil && train.NumClasses == 0
			}
			for i, l := range labels {
				if train.Y[i] != int(l) {
					return false
				}
			}
			return train.NumClasses == int(top)+1 && !train.Unlabelled
		},
		gen.IntRange(1, 40), gen.IntRange(1, 6), gen.Bool(), gen.Int64()))
	props.TestingRun(t)
}
