package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWriteReplacesOrLeavesIntact(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.json")
	require.NoError(t, WriteFile(p, []byte("old")))
	boom := errors.New("boom")
	err := Write(p, func(w io.Writer) error {
		w.Write([]byte("half-written"))
		return boom
	})
	require.ErrorIsf(t, err, boom, "got %v, want the fill error", err)
	got, _ := os.ReadFile(p)
	require.Equalf(t, "old", string(got), "failed write changed the file to %q", got)
	entries, _ := os.ReadDir(dir)
	require.Lenf(t, entries, 1, "temporary file left behind: %v", entries)
	require.NoError(t, WriteFile(p, []byte("new")))
	got, _ = os.ReadFile(p)
	require.Equalf(t, "new", string(got), "got %q, want new", got)
}

// Writing over a directory fails with a message saying so
// (it used to be "rename … file exists") and leaves no temporary file.
func TestWriteOverDirectory(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out")
	require.NoError(t, os.Mkdir(target, 0o755))
	err := WriteFile(target, []byte("x"))
	require.EqualErrorf(t, err, target+" is a directory; name a file to write",
		"got %v, want an error saying the target is a directory", err)
	entries, _ := os.ReadDir(dir)
	require.Lenf(t, entries, 1, "%d entries left in %s, want only the directory", len(entries), dir)
}

// Every output makes its missing folders, as --out and --results always
// did (--save-model, predict --out and bags --out once refused
// them): one rule. A file in the way is still an error.
func TestWriteMakesMissingFolders(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "b", "r.json")
	require.NoError(t, WriteFile(p, []byte("x")))
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, "x", string(got))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f"), nil, 0o644))
	require.Error(t, WriteFile(filepath.Join(dir, "f", "r.json"), []byte("x")), "a file where a folder must be made")
}
