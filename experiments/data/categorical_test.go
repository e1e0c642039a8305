package data

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCSVCategoricalColumns: a column of non-numbers is
// detected as categorical, a declared one is categorical whatever its
// values; each becomes a one-hot block with the training split's categories
// (numeric ones in numeric order), an unseen test category an all-zero
// block; numeric columns are standardized, the one-hot features not.
func TestCSVCategoricalColumns(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "tr.csv")
	te := filepath.Join(dir, "te.csv")
	require.NoError(t, os.WriteFile(tr, []byte("age,job,zip,label\n30,clerk,10,a\n40,chef,9,b\n50,clerk,10,a\n"), 0o644))
	require.NoError(t, os.WriteFile(te, []byte("zip,label,job,age\n11,b,pilot,60\n9,a,chef,20\n"), 0o644))
	name := "csv:" + tr + "," + te + "@categorical=zip"
	d, err := Load(name, "", Train)
	require.NoError(t, err)
	assert.Equal(t, []Column{{Name: "age", Offset: 0, Width: 1}, {Name: "job", Categories: []string{"chef", "clerk"}, Offset: 1, Width: 2},
		{Name: "zip", Categories: []string{"9", "10"}, Offset: 3, Width: 2}}, d.Columns)
	assert.Equal(t, []float32{30, 0, 1, 0, 1, 40, 1, 0, 1, 0, 50, 0, 1, 0, 1}, d.X)
	test, err := Load(name, "", Test)
	require.NoError(t, err)
	assert.Equal(t, []float32{60, 0, 0, 0, 0, 20, 1, 0, 1, 0}, test.X, "columns by name; pilot and zip 11 unseen: all-zero blocks")
	assert.Equal(t, []int{1, 0}, test.Y)
	norm, err := Fit(Standardize, d)
	require.NoError(t, err)
	assert.Equal(t, []float64{40, 0, 0, 0, 0}, norm.Mean)
	assert.Equal(t, []float64{1, 1, 1, 1}, norm.Std[1:])
	n, err := norm.Apply(test)
	require.NoError(t, err)
	assert.Equal(t, float32(0), n.X[1], "one-hot features keep 0 and 1")
	assert.Equal(t, float32(1), n.X[6])

	undeclared, err := Load("csv:"+tr+","+te, "", Train)
	require.NoError(t, err)
	assert.False(t, undeclared.Columns[2].Categorical(), "zip holds numbers: numeric unless declared")
}

// TestCSVCategoricalErrors: a column mixing numbers and categories, a
// declared column that does not exist, and a headerless file whose first
// line would be read as a header are errors naming the place.
func TestCSVCategoricalErrors(t *testing.T) {
	cases := []struct {
		name, in string
		opt      TabularOptions
		want     []string
	}{
		{"mixed, number first", "label,x\n0,1\n1,two\n", TabularOptions{}, []string{"t.csv: line 3, column 2: \"two\" is not a number, but column \"x\" holds numbers (line 2: \"1\")", "declare it categorical"}},
		{"mixed, category first", "label,x\n0,one\n1,2\n", TabularOptions{}, []string{"t.csv: line 3, column 2: \"2\" is a number, but column \"x\" holds categories (line 2: \"one\")"}},
		{"declared missing", "label,x\n0,1\n", TabularOptions{Categorical: []string{"colour"}}, []string{"t.csv: line 1: no column \"colour\" to read as categorical"}},
		{"headerless", "0,red,1\n1,blue,2\n0,red,3\n", TabularOptions{LabelColumn: "0"}, []string{"t.csv: line 1 is read as a header, but its field", "is also a value of that column at line 3", "give the file a header line"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(c.in), "t.csv", c.opt)
			wantErr(t, err, c.want...)
		})
	}
	d, err := ReadCSV(strings.NewReader("label,x\n0,1\n1,two\n"), "t.csv", TabularOptions{Categorical: []string{"x"}})
	require.NoError(t, err, "declared: every value a category")
	assert.Equal(t, []string{"1", "two"}, d.Columns[0].Categories)
}
