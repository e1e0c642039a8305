package grid

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 17, item 10: opening a store removes the temporaries that killed
// writers left more than an hour ago, and keeps younger ones (a writer may be
// running) and every result.
func TestOpenStoreRemovesStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	cells := filepath.Join(dir, "cells")
	require.NoError(t, os.MkdirAll(cells, 0o755))
	old := filepath.Join(cells, ".abc.json.tmp-123")
	young := filepath.Join(cells, ".def.json.tmp-456")
	keep := filepath.Join(cells, "abc.json")
	for _, p := range []string{old, young, keep} {
		require.NoError(t, os.WriteFile(p, []byte("{"), 0o644))
	}
	past := time.Now().Add(-2 * staleAfter)
	require.NoError(t, os.Chtimes(old, past, past))
	require.NoError(t, os.Chtimes(keep, past, past))
	_, err := OpenStore(dir)
	require.NoError(t, err)
	_, err = os.Stat(old)
	assert.True(t, os.IsNotExist(err), "stale temporary removed")
	assert.FileExists(t, young)
	assert.FileExists(t, keep)
}
