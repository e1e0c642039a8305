package grid

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/llpfc/llpfc/experiments"
)

// Shard selects part of a grid: shard Index of Count (1 ≤ Index ≤ Count).
// The zero Shard selects everything.
type Shard struct {
	Index, Count int
}

// ParseShard reads "i/n" with 1 ≤ i ≤ n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want i/n, e.g. 1/4", s)
	}
	if n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("shard %q: want 1 ≤ i ≤ n", s)
	}
	return Shard{Index: i, Count: n}, nil
}

// Slurm's job-array variables, read by ParseShardAuto.
const (
	SlurmArrayTaskID    = "SLURM_ARRAY_TASK_ID"
	SlurmArrayTaskMin   = "SLURM_ARRAY_TASK_MIN"
	SlurmArrayTaskMax   = "SLURM_ARRAY_TASK_MAX"
	SlurmArrayTaskCount = "SLURM_ARRAY_TASK_COUNT"
	SlurmArrayTaskStep  = "SLURM_ARRAY_TASK_STEP"
)

// ParseShardAuto reads the shard of a Slurm array task from its environment
// (getenv, e.g. os.Getenv). s is "auto" or "auto/N":
//
//   - "auto": the array is the grid: the task with ID i of an array with
//     IDs MIN, MIN+STEP, …, MAX (COUNT of them) runs shard
//     (i − MIN)/STEP + 1 of COUNT, so one job line serves any array size
//     (`--array=1-16`, `--array=0-7`, `--array=1-31:2`). The array must be a
//     range: a list such as `--array=1,2,5` is refused, since its COUNT
//     does not say how many shards the grid was cut into.
//   - "auto/N": the task IDs are the shard numbers of a grid cut into N:
//     the task with ID i runs shard i/N (1 ≤ i ≤ N), whatever the array's
//     other tasks. This is the form for running some shards again:
//     `--array=3,7` reruns shards 3 and 7 of N.
//
// A missing, non-numeric or inconsistent variable is an error that names it.
func ParseShardAuto(s string, getenv func(string) string) (Shard, error) {
	num := func(name string) (int, error) {
		v := getenv(name)
		if v == "" {
			return 0, fmt.Errorf("shard %q: $%s is not set (not inside a Slurm job array? submit with sbatch --array, or give --shard i/n)", s, name)
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, fmt.Errorf("shard %q: $%s = %q is not an integer", s, name, v)
		}
		return n, nil
	}
	id, err := num(SlurmArrayTaskID)
	if err != nil {
		return Shard{}, err
	}
	if rest, ok := strings.CutPrefix(s, "auto/"); ok {
		n, err := strconv.Atoi(rest)
		if err != nil || n < 1 {
			return Shard{}, fmt.Errorf("shard %q: want auto/N with N ≥ 1 shards", s)
		}
		if id < 1 || id > n {
			return Shard{}, fmt.Errorf("shard %q: $%s = %d, want a shard number 1 ≤ ID ≤ %d (submit with --array within 1-%d)", s, SlurmArrayTaskID, id, n, n)
		}
		return Shard{Index: id, Count: n}, nil
	}
	if s != "auto" {
		return Shard{}, fmt.Errorf("shard %q: want auto, auto/N or i/n", s)
	}
	lo, err := num(SlurmArrayTaskMin)
	if err != nil {
		return Shard{}, err
	}
	count, err := num(SlurmArrayTaskCount)
	if err != nil {
		return Shard{}, err
	}
	step := 1
	if getenv(SlurmArrayTaskStep) != "" {
		if step, err = num(SlurmArrayTaskStep); err != nil {
			return Shard{}, err
		}
	}
	if step < 1 || count < 1 {
		return Shard{}, fmt.Errorf("shard %q: $%s = %d and $%s = %d, want both ≥ 1", s, SlurmArrayTaskStep, step, SlurmArrayTaskCount, count)
	}
	hi := lo + (count-1)*step
	if v := getenv(SlurmArrayTaskMax); v != "" {
		if hi2, err := num(SlurmArrayTaskMax); err != nil {
			return Shard{}, err
		} else if hi2 != hi {
			return Shard{}, fmt.Errorf("shard %q: the array is not a range (MIN %d, MAX %d, STEP %d, but COUNT %d): with a list of task IDs use --shard auto/N, the task IDs being the shard numbers", s, lo, hi2, step, count)
		}
	}
	if id < lo || id > hi || (id-lo)%step != 0 {
		return Shard{}, fmt.Errorf("shard %q: $%s = %d is not in the array %d-%d:%d", s, SlurmArrayTaskID, id, lo, hi, step)
	}
	return Shard{Index: (id-lo)/step + 1, Count: count}, nil
}

func (s Shard) String() string {
	if s.Count == 0 {
		return "all"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Select returns the cells of shard s, in their original order. Cells are
// ranked by key and dealt round-robin, so the n shards partition the grid,
// differ in size by at most one, and depend only on the set of keys (the same
// on every machine).
func (s Shard) Select(cells []experiments.Cell) []experiments.Cell {
	if s.Count <= 1 {
		return cells
	}
	keys := make([]string, len(cells))
	for i, c := range cells {
		keys[i] = c.Key
	}
	sort.Strings(keys)
	mine := map[string]bool{}
	for r, k := range keys {
		if r%s.Count == s.Index-1 {
			mine[k] = true
		}
	}
	var out []experiments.Cell
	for _, c := range cells {
		if mine[c.Key] {
			out = append(out, c)
		}
	}
	return out
}
