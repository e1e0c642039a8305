package grid_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/experiments/internal/gridtest"
	"github.com/llpfc/llpfc/experiments/learn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// trainings counts the trainings of each cell by the learner "test-count"
// (logreg, slowed so that two runs overlap).
var trainings = struct {
	sync.Mutex
	of map[string]int
}{of: map[string]int{}}

func init() {
	experiments.RegisterLearner("test-count", experiments.LearnerFunc(func(ctx context.Context, c experiments.Cell, p experiments.Progress) (experiments.Metrics, error) {
		trainings.Lock()
		trainings.of[c.Key]++
		trainings.Unlock()
		time.Sleep(20 * time.Millisecond)
		return learn.LogReg{}.Train(ctx, c, p)
	}))
}

// countedTiny is the tiny grid on the counting learner, and resets the
// counts.
func countedTiny(t *testing.T) *grid.Spec {
	s := gridtest.Tiny(t)
	s.Learner = "test-count"
	trainings.Lock()
	trainings.of = map[string]int{}
	trainings.Unlock()
	return s
}

// Two runs on one store share its cells (both once trained every cell):
// together they train each of the 12 cells exactly once, and
// each ends with the whole grid stored (the cells the other trained
// counted as finished elsewhere).
func TestTwoRunnersShareTheCells(t *testing.T) {
	dir := t.TempDir()
	spec := countedTiny(t)
	var sums [2]grid.Summary
	var errs [2]error
	var wg sync.WaitGroup
	for k := range sums {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := grid.OpenStore(dir)
			if err != nil {
				errs[k] = err
				return
			}
			sums[k], errs[k] = (&grid.Runner{Store: st}).Run(context.Background(), spec)
		}()
	}
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	cells, _ := spec.Cells()
	trainings.Lock()
	defer trainings.Unlock()
	assert.Len(t, trainings.of, len(cells), "cells trained")
	for k, n := range trainings.of {
		assert.Equal(t, 1, n, "cell %s trained %d times", k, n)
	}
	assert.Equal(t, len(cells), sums[0].Finished+sums[1].Finished, "%+v %+v", sums[0], sums[1])
	assert.Positive(t, sums[0].Finished, "the first run trained none: the runs did not overlap")
	assert.Positive(t, sums[1].Finished, "the second run trained none: the runs did not overlap")
	for _, s := range sums {
		assert.Equal(t, len(cells), s.Finished+s.Skipped, "each run ends with the whole grid: %+v", s)
	}
	st, _ := grid.OpenStore(dir)
	rs, err := st.All()
	require.NoError(t, err)
	assert.Len(t, rs, len(cells))
	claims, _ := os.ReadDir(filepath.Join(dir, "claims"))
	assert.Empty(t, claims, "claims left behind")
}

// writeClaim writes a claim of cell key as a run (host, pid) would have,
// written before claims named their process's boot and namespace.
func writeClaim(t *testing.T, dir, key, host string, pid int, age time.Duration) {
	t.Helper()
	writeClaimAs(t, dir, key, map[string]any{"host": host, "pid": pid}, age)
}

// hereClaim is the claim of process pid of this host, boot and PID
// namespace (start: its start time in clock ticks, 0 for unknown).
func hereClaim(pid int, start uint64) map[string]any {
	host, _ := os.Hostname()
	boot, ns, _ := grid.SelfIdentity()
	return map[string]any{"host": host, "pid": pid, "boot_id": boot, "pid_ns": ns, "start_ticks": start}
}

// writeClaimAs writes a claim of cell key with the fields rec (host, pid,
// boot_id, pid_ns, start_ticks), last refreshed age ago.
func writeClaimAs(t *testing.T, dir, key string, rec map[string]any, age time.Duration) {
	t.Helper()
	rec["token"], rec["start"] = "other", time.Now().Add(-age)
	b, _ := json.Marshal(rec)
	p := filepath.Join(dir, "claims", key)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, b, 0o644))
	old := time.Now().Add(-age)
	require.NoError(t, os.Chtimes(p, old, old))
}

// deadPID returns the process id of a process that has exited (and been
// reaped).
func deadPID(t *testing.T) int {
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	return cmd.Process.Pid
}

// A claim left by a killed run is taken over: one whose process is gone
// (this host) at once, one of another host once it is older than
// ClaimStaleAfter; a fresh claim of a live run is waited for until it is
// released, then the cell is trained here.
func TestStaleClaimsAreTakenOver(t *testing.T) {
	defer func(beat, stale time.Duration) { grid.ClaimBeat, grid.ClaimStaleAfter = beat, stale }(grid.ClaimBeat, grid.ClaimStaleAfter)
	// An hour: a claim not taken over at once (its process gone, or older
	// than this) holds the run past the test's 60 s.
	grid.ClaimBeat, grid.ClaimStaleAfter = 50*time.Millisecond, time.Hour
	dir := t.TempDir()
	spec := countedTiny(t)
	cells, _ := spec.Cells()
	host, _ := os.Hostname()
	writeClaimAs(t, dir, cells[0].Key, hereClaim(deadPID(t), 0), 0)  // killed here
	writeClaim(t, dir, cells[1].Key, "elsewhere", 1, 2*time.Hour)    // silent for longer than ClaimStaleAfter
	writeClaim(t, dir, cells[2].Key, "elsewhere", 1, 0)              // live: waited for
	writeClaim(t, dir, cells[3].Key, host, os.Getpid(), 2*time.Hour) // this process, but silent: stale
	go func() {
		time.Sleep(500 * time.Millisecond)
		os.Remove(filepath.Join(dir, "claims", cells[2].Key)) // the live run releases it unfinished
	}()
	st, err := grid.OpenStore(dir)
	require.NoError(t, err)
	var log bytes.Buffer
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sum, err := (&grid.Runner{Store: st, Log: &log}).Run(ctx, spec)
	require.NoError(t, err, log.String())
	assert.Equal(t, len(cells), sum.Finished, "%+v\n%s", sum, log.String())
	assert.GreaterOrEqual(t, time.Since(t0), 500*time.Millisecond, "the live claim was not waited for")
	assert.Contains(t, log.String(), "waiting for 1 cells that another run on the store is training (process 1 on elsewhere")
	assert.Contains(t, log.String(), "on another host: its process cannot be checked from here; taken over at ")
	trainings.Lock()
	defer trainings.Unlock()
	for _, c := range cells[:4] {
		assert.Equal(t, 1, trainings.of[c.Key], "cell %s", c.Key)
	}
}

// A cell another run finished while this one waited for its claim is
// counted as finished elsewhere, not trained again.
func TestClaimedCellFinishedElsewhere(t *testing.T) {
	dir := t.TempDir()
	spec := countedTiny(t)
	cells, _ := spec.Cells()
	other := t.TempDir()
	ost, err := grid.OpenStore(other)
	require.NoError(t, err)
	_, err = (&grid.Runner{Store: ost}).Run(context.Background(), spec) // the other run's results
	require.NoError(t, err)
	trainings.Lock()
	trainings.of = map[string]int{}
	trainings.Unlock()
	writeClaim(t, dir, cells[0].Key, "elsewhere", 1, 0)
	go func() {
		time.Sleep(300 * time.Millisecond) // the other run stores the cell, then releases its claim
		b, _ := os.ReadFile(filepath.Join(other, "cells", cells[0].Key+".json"))
		os.WriteFile(filepath.Join(dir, "cells", cells[0].Key+".json"), b, 0o644)
		os.Remove(filepath.Join(dir, "claims", cells[0].Key))
	}()
	st, err := grid.OpenStore(dir)
	require.NoError(t, err)
	var log bytes.Buffer
	sum, err := (&grid.Runner{Store: st, Log: &log}).Run(context.Background(), spec)
	require.NoError(t, err, log.String())
	assert.Equal(t, len(cells)-1, sum.Finished)
	assert.Equal(t, 1, sum.Elsewhere)
	assert.Contains(t, log.String(), "finished by another run on the store")
	trainings.Lock()
	defer trainings.Unlock()
	assert.Zero(t, trainings.of[cells[0].Key])
}
