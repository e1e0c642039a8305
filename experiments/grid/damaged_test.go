package grid_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/experiments/internal/gridtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A truncated result file is not a finished cell. The
// runner names it, moves it aside to DIR/damaged/ (nothing is deleted), runs
// the cell again, and the store then reads whole; a file holding another
// key is damaged too.
func TestRunnerRerunsDamagedCells(t *testing.T) {
	dir := t.TempDir()
	gridtest.Run(t, dir, grid.Shard{})
	st, err := grid.OpenStore(dir)
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
	sum, err := (&grid.Runner{Store: st, Log: &log}).Run(context.Background(), gridtest.Tiny(t))
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

// A run whose binary cannot name its code version says so before its cells
// train (they would record "unknown" and a store could not be traced to its
// code); a run with a known version, or with nothing to train, says nothing.
func TestRunnerNamesAnUnknownCodeVersion(t *testing.T) {
	const note = "this binary's code version is unknown"
	for _, tc := range []struct {
		name, rev string
		again     bool // the grid run a second time: nothing to train
		want      bool
	}{
		{"unknown", "unknown", false, true},
		{"known", "0123456789abcdef0123456789abcdef01234567", false, false},
		{"unknown, nothing to train", "unknown", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.again {
				gridtest.Run(t, dir, grid.Shard{})
			}
			restore := grid.SetCodeVersion(tc.rev)
			defer restore()
			st, err := grid.OpenStore(dir)
			require.NoError(t, err)
			var log bytes.Buffer
			_, err = (&grid.Runner{Store: st, Log: &log}).Run(context.Background(), gridtest.Tiny(t))
			require.NoError(t, err)
			assert.Equal(t, tc.want, strings.Contains(log.String(), note), log.String())
		})
	}
}
