package experiments

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 17, item 3: a truncated result file is not a finished cell. The
// runner names it, moves it aside to DIR/damaged/ (nothing is deleted), runs
// the cell again, and the store then reads whole; a file holding another
// key is damaged too.
func TestRunnerRerunsDamagedCells(t *testing.T) {
	dir := t.TempDir()
	runGrid(t, dir, Shard{})
	st, err := OpenStore(dir)
	require.NoError(t, err)
	rs, err := st.All()
	require.NoError(t, err)
	victim, other := rs[0].Key, rs[1].Key
	path := filepath.Join(dir, "cells", victim+".json")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b[:len(b)/2], 0o644))
	ob, err := os.ReadFile(filepath.Join(dir, "cells", other+".json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cells", other+".json"), bytes.Replace(ob, []byte(other), []byte(victim), 1), 0o644))

	assert.False(t, st.Has(victim), "a truncated file is not a finished cell")
	assert.Error(t, st.Damaged(victim))
	assert.Error(t, st.Damaged(other))
	assert.NoError(t, st.Damaged(rs[2].Key))
	assert.NoError(t, st.Damaged("0123456789abcdef0123456789abcdef"), "absent is not damaged")

	var log bytes.Buffer
	sum, err := (&Runner{Store: st, Log: &log}).Run(context.Background(), gridSpec(t))
	require.NoError(t, err)
	assert.Equal(t, 2, sum.Finished, "the two damaged cells run again")
	assert.Equal(t, 10, sum.Skipped)
	assert.Len(t, sum.Damaged, 2)
	assert.Contains(t, log.String(), "cell "+victim+": damaged result")
	assert.Contains(t, log.String(), "the cell runs again")
	kept, err := os.ReadFile(filepath.Join(dir, "damaged", victim+".json"))
	require.NoError(t, err)
	assert.Equal(t, b[:len(b)/2], kept, "the damaged file is kept as it was")
	again, err := st.All()
	require.NoError(t, err, "the store reads whole again")
	assert.Len(t, again, 12)
}

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
