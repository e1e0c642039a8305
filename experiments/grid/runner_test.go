package grid_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/experiments/internal/gridtest"
	"github.com/llpfc/llpfc/experiments/learn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run stores every cell once; a rerun skips them all.
func TestRunnerResumes(t *testing.T) {
	dir := t.TempDir()
	sum := gridtest.Run(t, dir, grid.Shard{})
	require.Equalf(t, 12, sum.Cells, "first run: %+v", sum)
	require.Equalf(t, 12, sum.Finished, "first run: %+v", sum)
	require.Equalf(t, 0, sum.Skipped, "first run: %+v", sum)
	st, _ := grid.OpenStore(dir)
	rs, err := st.All()
	require.NoError(t, err)
	cells, _ := gridtest.Tiny(t).Cells()
	require.Lenf(t, rs, len(cells), "%d results, want %d", len(rs), len(cells))
	for _, r := range rs {
		msg := fmt.Sprintf("result %s: incomplete record %+v", r.Key, r)
		assert.NotEmpty(t, r.Provenance.CodeVersion, msg)
		assert.NotEmpty(t, r.Provenance.Host, msg)
		assert.False(t, r.Provenance.End.Before(r.Provenance.Start), msg)
		assert.Positive(t, r.Metrics.PeakRSSBytes, msg)
		assert.Equal(t, "tiny", r.Spec, msg)
		assert.Equal(t, r.Config.Seed, r.Seed, msg)
	}
	sum = gridtest.Run(t, dir, grid.Shard{})
	require.Equalf(t, 0, sum.Finished, "rerun: %+v, want everything skipped", sum)
	require.Equalf(t, 12, sum.Skipped, "rerun: %+v, want everything skipped", sum)
}

// Shards partition the grid, and merging the shard stores gives the store of
// an unsharded run: the same keys and the same outcomes.
func TestShardsMergeEqualsUnsharded(t *testing.T) {
	whole := t.TempDir()
	gridtest.Run(t, whole, grid.Shard{})
	var shards []*grid.Store
	total := 0
	for i := 1; i <= 3; i++ {
		d := t.TempDir()
		sum := gridtest.Run(t, d, grid.Shard{Index: i, Count: 3})
		assert.Equalf(t, 4, sum.InShard, "shard %d/3 has %d cells, want 4", i, sum.InShard)
		total += sum.Finished
		st, _ := grid.OpenStore(d)
		shards = append(shards, st)
	}
	require.Equalf(t, 12, total, "shards ran %d cells in all, want 12", total)
	merged, _ := grid.OpenStore(t.TempDir())
	n, err := grid.Merge(merged, shards...)
	require.NoError(t, err, "merge")
	require.Equal(t, 12, n, "merge")
	a, _ := merged.All()
	ws, _ := grid.OpenStore(whole)
	b, _ := ws.All()
	require.Lenf(t, a, len(b), "merged %d results, unsharded %d", len(a), len(b))
	for i := range a {
		assert.Equalf(t, b[i].Key, a[i].Key, "result %d: merged %s %+v, unsharded %s %+v", i, a[i].Key, a[i].Metrics, b[i].Key, b[i].Metrics)
		assert.Truef(t, a[i].SameOutcome(b[i]), "result %d: merged %s %+v, unsharded %s %+v", i, a[i].Key, a[i].Metrics, b[i].Key, b[i].Metrics)
	}
	// Merging again is a no-op; merging a conflicting result names the key.
	n, err = grid.Merge(merged, shards...)
	assert.NoError(t, err, "second merge")
	assert.Equal(t, 0, n, "second merge")
	bad, _ := grid.OpenStore(t.TempDir())
	r := *a[0]
	r.Metrics.TestAccuracy += 0.01
	require.NoError(t, bad.Put(&r))
	_, err = grid.Merge(merged, bad)
	assert.ErrorContainsf(t, err, r.Key, "conflicting merge: %v, want an error naming %s", err, r.Key)
	assert.ErrorContainsf(t, err, "conflicting", "conflicting merge: %v, want an error naming %s", err, r.Key)
	// An identical outcome with other provenance merges.
	same := *a[0]
	same.Provenance.Host = "elsewhere"
	same.Metrics.WallSeconds *= 2
	ok, _ := grid.OpenStore(t.TempDir())
	ok.Put(&same)
	_, err = grid.Merge(merged, ok)
	assert.NoError(t, err, "identical outcome")
}

// A failing cell is recorded as failed, not stored, and does not stop the
// grid; an unknown learner is an error before anything runs.
func TestRunnerFailuresAndUnknownLearner(t *testing.T) {
	var calls atomic.Int32
	experiments.RegisterLearner("test-failing", experiments.LearnerFunc(func(ctx context.Context, c experiments.Cell, p experiments.Progress) (experiments.Metrics, error) {
		calls.Add(1)
		if c.Config.Seed == 1 {
			return experiments.Metrics{}, errors.New("boom")
		}
		return learn.LogReg{}.Train(ctx, c, p)
	}))
	s := gridtest.Tiny(t)
	s.Learner = "test-failing"
	st, _ := grid.OpenStore(t.TempDir())
	sum, err := (&grid.Runner{Store: st}).Run(context.Background(), s)
	require.NoError(t, err)
	assert.Lenf(t, sum.Failed, 6, "summary %+v, %d calls; want 6 failed, 6 finished, 12 calls", sum, calls.Load())
	assert.Equalf(t, 6, sum.Finished, "summary %+v, %d calls; want 6 failed, 6 finished, 12 calls", sum, calls.Load())
	assert.Equalf(t, int32(12), calls.Load(), "summary %+v, %d calls; want 6 failed, 6 finished, 12 calls", sum, calls.Load())
	s.Learner = "no-such-learner"
	_, err = (&grid.Runner{Store: st}).Run(context.Background(), s)
	assert.ErrorContainsf(t, err, `learner "no-such-learner" is not registered`, "unknown learner: %v", err)
}

// A cancelled context stops the grid and stores nothing for the cell in
// flight.
func TestRunnerCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	experiments.RegisterLearner("test-cancel", experiments.LearnerFunc(func(ctx context.Context, c experiments.Cell, p experiments.Progress) (experiments.Metrics, error) {
		cancel()
		return experiments.Metrics{}, ctx.Err()
	}))
	s := gridtest.Tiny(t)
	s.Learner = "test-cancel"
	st, _ := grid.OpenStore(t.TempDir())
	_, err := (&grid.Runner{Store: st}).Run(ctx, s)
	assert.ErrorIsf(t, err, context.Canceled, "err %v, want context.Canceled", err)
	rs, _ := st.All()
	assert.Emptyf(t, rs, "%d results stored after cancel", len(rs))
}

// The store ignores temporary files and rejects tampered results.
func TestStoreReadsOnlyWholeValidFiles(t *testing.T) {
	dir := t.TempDir()
	gridtest.Run(t, dir, grid.Shard{Index: 1, Count: 4})
	st, _ := grid.OpenStore(dir)
	rs, _ := st.All()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cells", ".x.json.tmp-123"), []byte(`{"torn`), 0o644))
	rs2, err := st.All()
	require.NoError(t, err, "temporary file not ignored")
	require.Len(t, rs2, len(rs), "temporary file not ignored")
	p := filepath.Join(dir, "cells", rs[0].Key+".json")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, bytes.Replace(b, []byte(`"bag_size": `), []byte(`"bag_size": 1`), 1), 0o644)
	_, err = st.All()
	assert.ErrorContainsf(t, err, "config hashes to", "tampered result: %v", err)
}

// The code version recorded in results is the checkout's commit (the test
// binary carries no VCS stamp, so this exercises the git fallback).
func TestCodeVersion(t *testing.T) {
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("git rev-parse HEAD: %v (not in a git checkout)", err)
	}
	rev, _ := experiments.CodeVersion()
	assert.Equal(t, strings.TrimSpace(string(out)), rev, "CodeVersion, want HEAD")
}
