package grid_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/experiments/internal/gridtest"
	"github.com/llpfc/llpfc/experiments/learn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flaky fails the cells of seed 1 while failing is set.
var failing atomic.Bool

func init() {
	experiments.RegisterLearner("test-flaky", experiments.LearnerFunc(func(ctx context.Context, c experiments.Cell, p experiments.Progress) (experiments.Metrics, error) {
		if failing.Load() && c.Config.Seed == 1 {
			return experiments.Metrics{}, errors.New("grouping at epoch 1: assumption fails |α| < 0\n(second line)")
		}
		return learn.LogReg{}.Train(ctx, c, p)
	}))
}

// A cell that fails leaves its reason in the store (failed/KEY.json) with its
// configuration and provenance; --check's, a report's and merge's readers
// see it; the run that finishes the cell removes it (LLPFC-ideal's
// refusals once lived only in a log).
func TestFailureRecords(t *testing.T) {
	s := gridtest.Tiny(t)
	s.Learner = "test-flaky"
	cells, err := s.Cells()
	require.NoError(t, err)
	want := map[string]experiments.Config{}
	for _, c := range cells {
		if c.Config.Seed == 1 {
			want[c.Key] = c.Config
		}
	}
	require.Len(t, want, 6)

	dir := t.TempDir()
	st, err := grid.OpenStore(dir)
	require.NoError(t, err)
	failing.Store(true)
	sum, err := (&grid.Runner{Store: st}).Run(context.Background(), s)
	require.NoError(t, err)
	require.Len(t, sum.Failed, 6)
	fs, err := st.Failures()
	require.NoError(t, err)
	require.Len(t, fs, 6)
	for _, f := range fs {
		cfg, ok := want[f.Key]
		if assert.True(t, ok, "a record of cell %s, which did not fail", f.Key) {
			assert.Equal(t, cfg, f.Config, f.Key)
		}
		assert.Equal(t, grid.FailureFormat, f.Format)
		assert.Equal(t, s.Name, f.Spec)
		assert.EqualValues(t, 1, f.Seed)
		assert.Contains(t, f.Error, "assumption fails |α| < 0\n(second line)", "the learner's error, whole")
		assert.NotEmpty(t, f.Provenance.CodeVersion)
		assert.False(t, f.Provenance.Start.IsZero())
		assert.False(t, st.Has(f.Key), "a failure is not a finished cell")
	}

	// Collect and merge carry them; a cell finished in any store is left out.
	col, err := grid.Collect(st, st)
	require.NoError(t, err)
	assert.Len(t, col.Failed, 6, "each key once")
	assert.Len(t, col.Results, 6)
	other, _ := grid.OpenStore(t.TempDir())
	require.NoError(t, other.Put(mustFinish(t, s, fs[0].Key)))
	col, err = grid.Collect(st, other)
	require.NoError(t, err)
	assert.Len(t, col.Failed, 5, "the cell other holds finished is not a failure of the collection")
	merged := &grid.Store{Dir: filepath.Join(t.TempDir(), "merged")}
	msum, err := grid.MergeStores(merged, st)
	require.NoError(t, err)
	assert.Equal(t, 6, msum.Failures)
	mf, err := merged.Failures()
	require.NoError(t, err)
	assert.Len(t, mf, 6)
	msum, err = grid.MergeStores(merged, st)
	require.NoError(t, err)
	assert.Zero(t, msum.Failures, "a record the destination holds is not copied again")

	// A record that does not read is an error naming its file.
	bad := filepath.Join(dir, "failed", "0123.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"format": "llpfc-failure/1", "key": "0123", "error": `), 0o644))
	_, err = st.Failures()
	assert.ErrorContains(t, err, bad)
	require.NoError(t, os.Remove(bad))

	// The run that finishes the cells removes their records.
	failing.Store(false)
	sum, err = (&grid.Runner{Store: st}).Run(context.Background(), s)
	require.NoError(t, err)
	assert.Equal(t, 6, sum.Finished)
	fs, err = st.Failures()
	require.NoError(t, err)
	assert.Empty(t, fs)
	left, _ := filepath.Glob(filepath.Join(dir, "failed", "*.json"))
	assert.Empty(t, left, "records of finished cells left in failed/")
}

// mustFinish trains the cell key of s (with the failing learner off) and
// returns its result.
func mustFinish(t *testing.T, s *grid.Spec, key string) *grid.Result {
	t.Helper()
	was := failing.Swap(false)
	defer failing.Store(was)
	st, err := grid.OpenStore(t.TempDir())
	require.NoError(t, err)
	one := *s
	_, err = (&grid.Runner{Store: st}).Run(context.Background(), &one)
	require.NoError(t, err)
	r, err := st.Get(key)
	require.NoError(t, err)
	return r
}
