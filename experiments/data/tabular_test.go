package data

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadCSVValues(t *testing.T) {
	cases := []struct {
		name, in string
		opt      TabularOptions
		x        []float32
		y        []int
		classes  []string
		d        int
	}{
		{"header, label last", "f1,f2,label\n1.5,2,3\n-1,0,1\n4,5,3\n", TabularOptions{},
			[]float32{1.5, 2, -1, 0, 4, 5}, []int{1, 0, 1}, []string{"1", "3"}, 2},
		{"no header, label first", "7,0.25,1\n2,1e2,3\n", TabularOptions{},
			[]float32{0.25, 1, 100, 3}, []int{1, 0}, []string{"2", "7"}, 2},
		{"named column, string labels", "a,kind,b\n1,cat,2\n3,dog,4\n5,cat,6\n", TabularOptions{LabelColumn: "KIND"},
			[]float32{1, 2, 3, 4, 5, 6}, []int{0, 1, 0}, []string{"cat", "dog"}, 2},
		{"numeric order not lexicographic", "label,x\n10,1\n9,2\n", TabularOptions{},
			[]float32{1, 2}, []int{1, 0}, []string{"9", "10"}, 1},
		{"fixed classes from training", "label,x\n2,1\n", TabularOptions{Classes: []string{"0", "1", "2"}},
			[]float32{1}, []int{2}, []string{"0", "1", "2"}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := ReadCSV(strings.NewReader(c.in), "t.csv", c.opt)
			require.NoError(t, err)
			require.Equalf(t, c.d, d.D, "N=%d D=%d K=%d", d.N, d.D, d.NumClasses)
			require.Lenf(t, c.y, d.N, "N=%d D=%d K=%d", d.N, d.D, d.NumClasses)
			require.Lenf(t, c.classes, d.NumClasses, "N=%d D=%d K=%d", d.N, d.D, d.NumClasses)
			for i := range c.x {
				if !assert.Equalf(t, c.x[i], d.X[i], "X = %v, want %v", d.X, c.x) {
					break
				}
			}
			for i := range c.y {
				if !assert.Equalf(t, c.y[i], d.Y[i], "Y = %v, want %v", d.Y, c.y) {
					break
				}
			}
			assert.Equalf(t, strings.Join(c.classes, ","), strings.Join(d.ClassNames, ","), "classes %v, want %v", d.ClassNames, c.classes)
			assert.NoError(t, d.Validate())
		})
	}
}

func TestReadCSVCorrupt(t *testing.T) {
	cases := []struct {
		name, in string
		opt      TabularOptions
		want     []string
	}{
		{"empty", "", TabularOptions{}, []string{"line 1", "empty"}},
		{"one column", "label\n1\n", TabularOptions{}, []string{"line 1", "1 column"}},
		{"semicolons", "label;x\n1;2\n", TabularOptions{}, []string{"line 1", "one column", `separated by ";"`, "save it comma-separated"}},
		{"tabs", "label\tx\n1\t2\n", TabularOptions{}, []string{"line 1", "one column", `separated by "\t"`}},
		{"no label column", "a,b\n1,2\n", TabularOptions{}, []string{"line 1", "no column named label"}},
		{"bad feature", "label,x\n1,2\n0,abc\n", TabularOptions{}, []string{"line 3, column 2", `"abc"`}},
		{"NaN feature", "label,x\n1,NaN\n", TabularOptions{}, []string{"line 2, column 2", `feature "NaN" is a missing value`, "drop the row, or fill it in"}},
		{"a feature written NaN, @na= not naming it", "label,x\n1,NaN\n", TabularOptions{na: parseNA("")}, []string{"line 2, column 2", "finite"}},
		{"ragged", "label,x\n1,2\n0,1,5\n", TabularOptions{}, []string{"line 3", "wrong number of fields"}},
		{"header only", "label,x\n", TabularOptions{}, []string{"no data rows"}},
		{"empty label", "label,x\n,2\n", TabularOptions{}, []string{"line 2, column 1", "empty label"}},
		{"unseen label", "label,x\n5,2\n", TabularOptions{Classes: []string{"0", "1"}}, []string{"line 2", `label "5"`, "training classes"}},
		{"the training file's spelling", "label,x\n1,2\n", TabularOptions{Classes: []string{"0.0", "1.0"}}, []string{"line 2", `label "1"`, `writes this number as "1.0"`}},
		{"same number twice", "label,x\n1,2\n1.0,3\n", TabularOptions{}, []string{`"1" and "1.0"`}},
		{"bad column index", "1,2\n", TabularOptions{LabelColumn: "4"}, []string{"no label column \"4\""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(c.in), "t.csv", c.opt)
			wantErr(t, err, append([]string{"t.csv"}, c.want...)...)
		})
	}
}

func TestReadLIBSVMValues(t *testing.T) {
	in := "# a comment line\n+1 1:0.5 3:-2 # trailing comment\n\n-1 2:4\n1.0 3:1e-1\n"
	d, err := ReadLIBSVM(strings.NewReader(in), "t.svm", TabularOptions{})
	require.NoError(t, err)
	wantX := []float32{0.5, 0, -2, 0, 4, 0, 0, 0, 0.1}
	require.Equalf(t, 3, d.N, "N=%d D=%d K=%d", d.N, d.D, d.NumClasses)
	require.Equalf(t, 3, d.D, "N=%d D=%d K=%d", d.N, d.D, d.NumClasses)
	require.Equalf(t, 2, d.NumClasses, "N=%d D=%d K=%d", d.N, d.D, d.NumClasses)
	for i := range wantX {
		require.Equalf(t, wantX[i], d.X[i], "X = %v, want %v", d.X, wantX)
	}
	// −1 < +1: "-1" is class 0; "+1" and "1.0" are the same class 1.
	assert.Equalf(t, []int{1, 0, 1}, d.Y[:3], "Y = %v, want [1 0 1]", d.Y)
	// The test split is read with the training split's classes and D.
	te, err := ReadLIBSVM(strings.NewReader("1 2:1\n"), "te.svm", TabularOptions{Classes: d.ClassNames, Dim: d.D})
	require.NoError(t, err)
	assert.Equalf(t, 3, te.D, "test split D=%d Y=%v X=%v", te.D, te.Y, te.X)
	assert.Equalf(t, 1, te.Y[0], "test split D=%d Y=%v X=%v", te.D, te.Y, te.X)
	assert.Equalf(t, float32(1), te.X[1], "test split D=%d Y=%v X=%v", te.D, te.Y, te.X)
}

func TestReadLIBSVMCorrupt(t *testing.T) {
	cases := []struct {
		name, in string
		opt      TabularOptions
		want     []string
	}{
		{"empty", "# nothing\n", TabularOptions{}, []string{"no instances"}},
		{"no features", "1\n2\n", TabularOptions{}, []string{"no features"}},
		{"bad label", "x 1:2\n", TabularOptions{}, []string{"line 1", `label "x"`}},
		{"multi-label", "1,2 1:2\n", TabularOptions{}, []string{"line 1", "multi-label"}},
		{"no colon", "1 1:2\n0 3\n", TabularOptions{}, []string{"line 2, field 2", "index:value"}},
		{"index 0", "1 0:2\n", TabularOptions{}, []string{"line 1, field 2", `index "0"`}},
		{"decreasing", "1 3:2 2:1\n", TabularOptions{}, []string{"line 1, field 3", "strictly increasing"}},
		{"bad value", "1 1:x\n", TabularOptions{}, []string{"line 1, field 2", `value "x"`}},
		{"beyond training D", "1 5:1\n", TabularOptions{Dim: 4}, []string{"line 1, field 2", "exceeds the 4 features"}},
		{"unseen label", "7 1:1\n", TabularOptions{Classes: []string{"1", "2"}}, []string{"line 1", `label "7"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadLIBSVM(strings.NewReader(c.in), "t.svm", c.opt)
			wantErr(t, err, append([]string{"t.svm"}, c.want...)...)
		})
	}
}
