package experiments

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
)

// gridSpec is a small grid for the logistic learner: 3 methods × 2 bag
// sizes × 2 seeds = 12 cells.
func gridSpec(t *testing.T) *Spec {
	t.Helper()
	return mustParse(t, tinySpecJSON)
}

func runGrid(t *testing.T, dir string, shard Shard) Summary {
	t.Helper()
	st, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	sum, err := (&Runner{Store: st, Shard: shard, Log: &log}).Run(context.Background(), gridSpec(t))
	if err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	if len(sum.Failed) > 0 {
		t.Fatalf("failed cells: %v", sum.Failed)
	}
	return sum
}

// A run stores every cell once; a rerun skips them all.
func TestRunnerResumes(t *testing.T) {
	dir := t.TempDir()
	sum := runGrid(t, dir, Shard{})
	if sum.Cells != 12 || sum.Finished != 12 || sum.Skipped != 0 {
		t.Fatalf("first run: %+v", sum)
	}
	st, _ := OpenStore(dir)
	rs, err := st.All()
	if err != nil {
		t.Fatal(err)
	}
	cells, _ := gridSpec(t).Cells()
	if len(rs) != len(cells) {
		t.Fatalf("%d results, want %d", len(rs), len(cells))
	}
	for _, r := range rs {
		if r.Provenance.CodeVersion == "" || r.Provenance.Host == "" || r.Provenance.End.Before(r.Provenance.Start) ||
			r.Metrics.PeakRSSBytes <= 0 || r.Spec != "tiny" || r.Seed != r.Config.Seed {
			t.Errorf("result %s: incomplete record %+v", r.Key, r)
		}
	}
	sum = runGrid(t, dir, Shard{})
	if sum.Finished != 0 || sum.Skipped != 12 {
		t.Fatalf("rerun: %+v, want everything skipped", sum)
	}
}

// Shards partition the grid, and merging the shard stores gives the store of
// an unsharded run: the same keys and the same outcomes.
func TestShardsMergeEqualsUnsharded(t *testing.T) {
	whole := t.TempDir()
	runGrid(t, whole, Shard{})
	var shards []*Store
	total := 0
	for i := 1; i <= 3; i++ {
		d := t.TempDir()
		sum := runGrid(t, d, Shard{Index: i, Count: 3})
		if sum.InShard != 4 {
			t.Errorf("shard %d/3 has %d cells, want 4", i, sum.InShard)
		}
		total += sum.Finished
		st, _ := OpenStore(d)
		shards = append(shards, st)
	}
	if total != 12 {
		t.Fatalf("shards ran %d cells in all, want 12", total)
	}
	merged, _ := OpenStore(t.TempDir())
	n, err := Merge(merged, shards...)
	if err != nil || n != 12 {
		t.Fatalf("merge: %d, %v", n, err)
	}
	a, _ := merged.All()
	ws, _ := OpenStore(whole)
	b, _ := ws.All()
	if len(a) != len(b) {
		t.Fatalf("merged %d results, unsharded %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Key != b[i].Key || !a[i].SameOutcome(b[i]) {
			t.Errorf("result %d: merged %s %+v, unsharded %s %+v", i, a[i].Key, a[i].Metrics, b[i].Key, b[i].Metrics)
		}
	}
	// Merging again is a no-op; merging a conflicting result names the key.
	if n, err := Merge(merged, shards...); err != nil || n != 0 {
		t.Errorf("second merge: %d, %v", n, err)
	}
	bad, _ := OpenStore(t.TempDir())
	r := *a[0]
	r.Metrics.TestAccuracy += 0.01
	if err := bad.Put(&r); err != nil {
		t.Fatal(err)
	}
	_, err = Merge(merged, bad)
	if err == nil || !strings.Contains(err.Error(), r.Key) || !strings.Contains(err.Error(), "conflicting") {
		t.Errorf("conflicting merge: %v, want an error naming %s", err, r.Key)
	}
	// An identical outcome with other provenance merges.
	same := *a[0]
	same.Provenance.Host = "elsewhere"
	same.Metrics.WallSeconds *= 2
	ok, _ := OpenStore(t.TempDir())
	ok.Put(&same)
	if _, err := Merge(merged, ok); err != nil {
		t.Errorf("identical outcome: %v", err)
	}
}

// A failing cell is recorded as failed, not stored, and does not stop the
// grid; an unknown learner is an error before anything runs.
func TestRunnerFailuresAndUnknownLearner(t *testing.T) {
	var calls atomic.Int32
	RegisterLearner("test-failing", LearnerFunc(func(ctx context.Context, c Cell, p Progress) (Metrics, error) {
		calls.Add(1)
		if c.Config.Seed == 1 {
			return Metrics{}, errors.New("boom")
		}
		return LogReg{}.Train(ctx, c, p)
	}))
	s := gridSpec(t)
	s.Learner = "test-failing"
	st, _ := OpenStore(t.TempDir())
	sum, err := (&Runner{Store: st}).Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Failed) != 6 || sum.Finished != 6 || calls.Load() != 12 {
		t.Errorf("summary %+v, %d calls; want 6 failed, 6 finished, 12 calls", sum, calls.Load())
	}
	s.Learner = "no-such-learner"
	_, err = (&Runner{Store: st}).Run(context.Background(), s)
	if err == nil || !strings.Contains(err.Error(), `learner "no-such-learner" is not registered`) {
		t.Errorf("unknown learner: %v", err)
	}
}

// A cancelled context stops the grid and stores nothing for the cell in
// flight.
func TestRunnerCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	RegisterLearner("test-cancel", LearnerFunc(func(ctx context.Context, c Cell, p Progress) (Metrics, error) {
		cancel()
		return Metrics{}, ctx.Err()
	}))
	s := gridSpec(t)
	s.Learner = "test-cancel"
	st, _ := OpenStore(t.TempDir())
	_, err := (&Runner{Store: st}).Run(ctx, s)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
	if rs, _ := st.All(); len(rs) != 0 {
		t.Errorf("%d results stored after cancel", len(rs))
	}
}

// The store ignores temporary files and rejects tampered results.
func TestStoreReadsOnlyWholeValidFiles(t *testing.T) {
	dir := t.TempDir()
	runGrid(t, dir, Shard{Index: 1, Count: 4})
	st, _ := OpenStore(dir)
	rs, _ := st.All()
	if err := os.WriteFile(filepath.Join(dir, "cells", ".x.json.tmp-123"), []byte(`{"torn`), 0o644); err != nil {
		t.Fatal(err)
	}
	rs2, err := st.All()
	if err != nil || !reflect.DeepEqual(len(rs), len(rs2)) {
		t.Fatalf("temporary file not ignored: %v", err)
	}
	p := filepath.Join(dir, "cells", rs[0].Key+".json")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, bytes.Replace(b, []byte(`"bag_size": `), []byte(`"bag_size": 1`), 1), 0o644)
	if _, err := st.All(); err == nil || !strings.Contains(err.Error(), "config hashes to") {
		t.Errorf("tampered result: %v", err)
	}
}

// The code version recorded in results is the checkout's commit (the test
// binary carries no VCS stamp, so this exercises the git fallback).
func TestCodeVersion(t *testing.T) {
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("git rev-parse HEAD: %v (not in a git checkout)", err)
	}
	rev, _ := CodeVersion()
	if want := strings.TrimSpace(string(out)); rev != want {
		t.Errorf("CodeVersion %q, want HEAD %q", rev, want)
	}
}
