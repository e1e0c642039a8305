package data

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The CSV label column can be chosen, as the error for a
// header without a default label name says: csv:TRAIN[,TEST]@COLUMN, by name
// or 0-based index.
func TestLoadCSVLabelColumn(t *testing.T) {
	dir := t.TempDir()
	tr, te := filepath.Join(dir, "tr.csv"), filepath.Join(dir, "te.csv")
	require.NoError(t, os.WriteFile(tr, []byte("a,income,b\n1,x,2\n3,y,4\n5,x,6\n"), 0o644))
	require.NoError(t, os.WriteFile(te, []byte("a,income,b\n7,y,8\n"), 0o644))
	_, err := Load("csv:"+tr+","+te, "", Train)
	assert.ErrorContains(t, err, "csv:TRAIN[,TEST]@COLUMN")
	for _, col := range []string{"income", "1"} {
		d, err := Load("csv:"+tr+","+te+"@"+col, "", Train)
		require.NoError(t, err, col)
		assert.Equal(t, 2, d.D, "two feature columns")
		assert.Equal(t, []float32{1, 2, 3, 4, 5, 6}, d.X)
		assert.Equal(t, []string{"x", "y"}, d.ClassNames)
		test, err := Load("csv:"+tr+","+te+"@"+col, "", Test)
		require.NoError(t, err, col)
		assert.Equal(t, []int{1}, test.Y)
	}
	_, err = Load("csv:"+tr+"@", "", Train)
	assert.ErrorContains(t, err, "empty label column")
}
