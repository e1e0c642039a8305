package data

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parquetBytes writes columns with WriteParquet.
func parquetBytes(t testing.TB, columns ...ParquetColumn) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, WriteParquet(&b, columns))
	return b.Bytes()
}

// writeParquetFile writes columns to dir/name and returns the path.
func writeParquetFile(t *testing.T, dir, name string, columns ...ParquetColumn) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, parquetBytes(t, columns...), 0o644))
	return p
}

// TestReadParquetLabelled reads a labelled Parquet set (parquet:TRAIN,TEST):
// typed numeric columns, a string column one-hot (detected), an int column
// declared categorical, the label column found by name, and the test file
// encoded with the training file's columns, by name.
func TestReadParquetLabelled(t *testing.T) {
	dir := t.TempDir()
	tr := writeParquetFile(t, dir, "tr.parquet",
		ParquetColumn{"age", []float64{30, 40, 50}},
		ParquetColumn{"zip", []int64{7, 3, 7}},
		ParquetColumn{"job", []string{"b", "a", "b"}},
		ParquetColumn{"y", []int64{1, 0, 1}},
		ParquetColumn{"w", []float32{0.5, 1.5, 2.5}})
	te := writeParquetFile(t, dir, "te.parquet",
		ParquetColumn{"job", []string{"c"}},
		ParquetColumn{"y", []int64{0}},
		ParquetColumn{"w", []float32{3}},
		ParquetColumn{"zip", []int64{3}},
		ParquetColumn{"age", []float64{60}})
	name := "parquet:" + tr + "," + te + "@categorical=zip"
	d, err := Load(name, "", Train)
	require.NoError(t, err)
	assert.Equal(t, []Column{{Name: "age", Offset: 0, Width: 1}, {Name: "zip", Categories: []string{"3", "7"}, Offset: 1, Width: 2},
		{Name: "job", Categories: []string{"a", "b"}, Offset: 3, Width: 2}, {Name: "w", Offset: 5, Width: 1}}, d.Columns)
	assert.Equal(t, []float32{30, 0, 1, 0, 1, 0.5, 40, 1, 0, 1, 0, 1.5, 50, 0, 1, 0, 1, 2.5}, d.X)
	assert.Equal(t, []int{1, 0, 1}, d.Y)
	test, err := Load(name, "", Test)
	require.NoError(t, err)
	assert.Equal(t, []float32{60, 1, 0, 0, 0, 3}, test.X, "job c is unseen: an all-zero block")
	assert.Equal(t, []int{0}, test.Y)
	norm, err := Fit(Standardize, d)
	require.NoError(t, err)
	assert.Equal(t, []float64{0, 0, 0, 0}, norm.Mean[1:5], "one-hot features are not standardized")
	assert.Equal(t, []float64{1, 1, 1, 1}, norm.Std[1:5])
}

// TestReadBagOnlyParquet: the table layout from Parquet files gives the
// same set as from CSV files holding the same values.
func TestReadBagOnlyParquet(t *testing.T) {
	dir := t.TempDir()
	writeParquetFile(t, dir, "train.parquet",
		ParquetColumn{"x", []float64{1, 2, 3, 4}},
		ParquetColumn{"colour", []string{"red", "blue", "red", "green"}},
		ParquetColumn{"bag", []int64{5, 6, 5, 6}})
	writeParquetFile(t, dir, "proportions.parquet",
		ParquetColumn{"bag", []int64{6, 5}},
		ParquetColumn{"cat", []float64{0.5, 1}},
		ParquetColumn{"dog", []float64{0.5, 0}})
	writeParquetFile(t, dir, "test.parquet",
		ParquetColumn{"label", []string{"dog", "cat"}},
		ParquetColumn{"colour", []string{"purple", "red"}},
		ParquetColumn{"x", []float64{5, 6}})
	csvDir := writeFiles(t, map[string]string{
		"train.csv":       "x,colour,bag\n1,red,5\n2,blue,6\n3,red,5\n4,green,6\n",
		"proportions.csv": "bag,cat,dog\n6,0.5,0.5\n5,1,0\n",
		"test.csv":        "label,colour,x\ndog,purple,5\ncat,red,6\n",
	})
	ptr, pte, err := ReadBagOnly("bags:" + dir)
	require.NoError(t, err)
	ctr, cte, err := ReadBagOnly("bags:" + csvDir)
	require.NoError(t, err)
	ptr.Name, pte.Name, ctr.Name, cte.Name = "", "", "", ""
	assert.Equal(t, ctr, ptr)
	assert.Equal(t, cte, pte)
	assert.Equal(t, 6, ptr.Bags.Bags[0].ID, "integer ids number the bags")
}

// TestReadParquetBadInput: a column the reader cannot take is an error
// naming the file, the column and, for a value, its row.
func TestReadParquetBadInput(t *testing.T) {
	type withNull struct {
		X     *float64 `parquet:"x,optional"`
		Label int64    `parquet:"label"`
	}
	type withList struct {
		X     []float64 `parquet:"x,list"`
		Label int64     `parquet:"label"`
	}
	one := 1.0
	var nulls, lists bytes.Buffer
	require.NoError(t, parquet.Write(&nulls, []withNull{{&one, 0}, {nil, 1}}))
	require.NoError(t, parquet.Write(&lists, []withList{{[]float64{1, 2}, 0}}))
	cases := []struct {
		name string
		b    []byte
		want []string
	}{
		{"null", nulls.Bytes(), []string{"t.parquet: row 2, column \"x\": missing value (null)"}},
		{"list", lists.Bytes(), []string{"t.parquet: column \"x\" is a group or list"}},
		{"not parquet", []byte("x,label\n1,0\n"), []string{"t.parquet: not a readable Parquet file"}},
		{"no label", parquetBytes(t, ParquetColumn{"x", []float64{1}}, ParquetColumn{"z", []int64{1}}), []string{"t.parquet: header has no column named label", "parquet:TRAIN[,TEST]@COLUMN"}},
		{"NaN", parquetBytes(t, ParquetColumn{"x", []float64{1, nanValue()}}, ParquetColumn{"label", []int64{1, 0}}), []string{"t.parquet: row 2, column \"x\": feature NaN is a missing value: drop the row, or fill it in"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadParquet(bytes.NewReader(c.b), int64(len(c.b)), "t.parquet", TabularOptions{})
			wantErr(t, err, c.want...)
		})
	}
}
