package data

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Messages: "," and "@" may be part of a file name. A comma once split
// the path of x,y.csv, and csv:a@DIR/tr.csv,a@DIR/te.csv read "DIR/te.csv"
// as a label column. A reading that names existing files now wins.
func TestTabularNamesWithCommaAndAt(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "a@dir")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	body := "label,f\n0,1\n1,2\n0,1.5\n1,2.5\n"
	for _, p := range []string{filepath.Join(sub, "tr.csv"), filepath.Join(sub, "te.csv"), filepath.Join(dir, "x,y.csv")} {
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	for _, tc := range []struct {
		name string
		test bool
	}{
		{"csv:" + filepath.Join(sub, "tr.csv") + "," + filepath.Join(sub, "te.csv"), true},
		{"csv:" + filepath.Join(sub, "tr.csv") + "," + filepath.Join(sub, "te.csv") + "@label", true},
		{"csv:" + filepath.Join(dir, "x,y.csv"), false},
		{"csv:" + filepath.Join(dir, "x,y.csv") + "," + filepath.Join(dir, "x,y.csv") + "@0", true},
	} {
		d, err := Load(tc.name, "", Train)
		if assert.NoError(t, err, tc.name) {
			assert.Equal(t, 4, d.N, tc.name)
			assert.Equal(t, 1, d.D, tc.name)
		}
		if tc.test {
			_, err := Load(tc.name, "", Test)
			assert.NoError(t, err, tc.name)
		}
	}
}

// Messages: a UTF-8 byte-order mark once hid the first header name
// ("\ufefflabel" is not "label").
func TestCSVByteOrderMark(t *testing.T) {
	d, err := ReadCSV(strings.NewReader("\ufefflabel,a,b\n0,1,2\n1,3,4\n"), "bom.csv", TabularOptions{})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1}, d.Y)
	assert.Equal(t, 2, d.D)
	d, err = ReadLIBSVM(strings.NewReader("\ufeff1 1:2\n0 1:3\n"), "bom.libsvm", TabularOptions{})
	require.NoError(t, err)
	assert.Equal(t, 2, d.N)
}

// Messages: a continuous label column was once read as 256 classes,
// all listed in the message. It is refused, saying how to name the label
// column, with at most 10 values listed.
func TestContinuousLabelColumn(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.WriteString("y,a\n")
	for i := 0; i < 256; i++ {
		fmt.Fprintf(&b, "%.6f,%d\n", r.Float64(), i)
	}
	_, err := ReadCSV(strings.NewReader(b.String()), "cont.csv", TabularOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "looks continuous")
	assert.Contains(t, err.Error(), "@COLUMN")

	b.Reset()
	b.WriteString("y,a\n")
	for i := 0; i < 256; i++ {
		fmt.Fprintf(&b, "%d,%d\n", 1000+i, i) // integer codes, one per row: an id, not a class
	}
	_, err = ReadCSV(strings.NewReader(b.String()), "ids.csv", TabularOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "256 distinct values in 256 rows")
	assert.Less(t, len(err.Error()), 400, "the message lists a few values, not all")
}

// CSV features were once narrowed to float32 before
// standardizing, so features at 1e9 + N(0,1) against 1e9 + N(2,1) — 1e9 has
// a float32 spacing of 64 — lost every difference and trained to chance.
// Standardizing from the values as read keeps the classes apart.
func TestStandardizeKeepsLargeOffsets(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	b.WriteString("label,f\n")
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&b, "%d,%.6f\n", i%2, 1e9+2*float64(i%2)+r.NormFloat64())
	}
	d, err := ReadCSV(strings.NewReader(b.String()), "offset.csv", TabularOptions{})
	require.NoError(t, err)
	norm, err := Fit(Standardize, d)
	require.NoError(t, err)
	assert.InDelta(t, 1.4, norm.Std[0], 0.2, "std of the feature: √(1+1)")
	s, err := norm.Apply(d)
	require.NoError(t, err)
	var mean [2]float64
	for i, y := range s.Y {
		mean[y] += float64(s.X[i]) / 200
	}
	assert.Greater(t, mean[1]-mean[0], 1.0, "standardized class means %v", mean)
	assert.Nil(t, s.Raw, "a normalized copy holds float32 values only")
}
