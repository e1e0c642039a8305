package grid

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llpfc/llpfc/experiments"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Opening a store removes the temporaries that killed
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

// SameOutcome compares what a deterministic rerun reproduces: the numerics
// (like the device and the timings) are not an outcome, the accuracy is;
// and remodel's error names two different numerics, which alone change a
// result's last bits.
func TestSameOutcomeAndNumerics(t *testing.T) {
	base := &Result{Key: "k", Metrics: experiments.Metrics{TestAccuracy: 0.9, Numerics: "sgemm avx2-6x16; conv3x3 winograd F(2x2,3x3)", Device: "cpu"}}
	for _, tc := range []struct {
		name string
		edit func(*experiments.Metrics)
		same bool
	}{
		{"identical", func(*experiments.Metrics) {}, true},
		{"other numerics", func(m *experiments.Metrics) { m.Numerics = "sgemm go-6x16; conv3x3 im2col" }, true},
		{"numerics not recorded", func(m *experiments.Metrics) { m.Numerics = "" }, true},
		{"other wall time", func(m *experiments.Metrics) { m.WallSeconds = 3 }, true},
		{"other accuracy", func(m *experiments.Metrics) { m.TestAccuracy = 0.8 }, false},
	} {
		o := *base
		tc.edit(&o.Metrics)
		assert.Equal(t, tc.same, base.SameOutcome(&o), tc.name)
	}
	assert.Empty(t, numericsNote("", "sgemm avx2-6x16; conv3x3 im2col"), "a result from before the record says nothing")
	assert.Empty(t, numericsNote("a", "a"))
	assert.Equal(t, ` with numerics "a", this run with "b"`, numericsNote("a", "b"))
}
