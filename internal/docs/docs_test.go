package docs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the repository root, seen from this package's folder.
const root = "../.."

// writeTree writes files (path → text) under a new temporary folder.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, s := range files {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644))
	}
	return dir
}

// Find returns the one block, Replace rewrites it in place; a block that is
// nowhere or in two places is an error naming where.
func TestFindBlock(t *testing.T) {
	const begin, end = "<!-- b -->", "<!-- /b -->"
	dir := writeTree(t, map[string]string{
		"README.md": "# R\n",
		"docs/a.md": "# A\n\nbefore\n" + begin + "\nold\n" + end + "\nafter\n",
	})
	b, err := Find(dir, begin, end)
	require.NoError(t, err)
	assert.Equal(t, "docs/a.md", b.Path)
	assert.Equal(t, "\nold\n", b.Body)
	require.NoError(t, b.Replace("\nnew\nlines\n"))
	s, err := os.ReadFile(filepath.Join(dir, "docs/a.md"))
	require.NoError(t, err)
	assert.Equal(t, "# A\n\nbefore\n"+begin+"\nnew\nlines\n"+end+"\nafter\n", string(s))
	assert.Error(t, b.Replace("again"), "a block read before the file changed is not written")

	_, err = Find(dir, "<!-- c -->", "<!-- /c -->")
	assert.ErrorContains(t, err, "no file of the documentation (README.md, docs/a.md)")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("# R\n"+begin+"\nx\n"+end+"\n"), 0o644))
	_, err = Find(dir, begin, end)
	assert.ErrorContains(t, err, "more than one place: README.md (1), docs/a.md (1)")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("# R\n"+begin+"\nno end\n"), 0o644))
	_, err = Find(dir, begin, end)
	assert.ErrorContains(t, err, "has no")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("# R\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "docs/a.md"), []byte(begin+"1"+end+begin+"2"+end), 0o644))
	_, err = Find(dir, begin, end)
	assert.ErrorContains(t, err, "more than one place: docs/a.md (2)")
}

func TestTextHoldsEveryFile(t *testing.T) {
	dir := writeTree(t, map[string]string{"README.md": "r", "docs/b.md": "b", "docs/a.md": "a", "docs/x.txt": "x"})
	files, err := Files(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"README.md", "docs/a.md", "docs/b.md"}, files)
	s, err := Text(dir)
	require.NoError(t, err)
	assert.Equal(t, "r\na\nb\n", s)
}
