package grid

import (
	"strconv"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
)

// slurmEnv is the environment Slurm gives task id of an array of the IDs
// lo, lo+step, …, hi (sbatch --array=lo-hi:step).
func slurmEnv(id, lo, hi, step int) func(string) string {
	env := map[string]string{
		SlurmArrayTaskID:    strconv.Itoa(id),
		SlurmArrayTaskMin:   strconv.Itoa(lo),
		SlurmArrayTaskMax:   strconv.Itoa(hi),
		SlurmArrayTaskCount: strconv.Itoa((hi-lo)/step + 1),
		SlurmArrayTaskStep:  strconv.Itoa(step),
	}
	return func(k string) string { return env[k] }
}

func TestParseShardAuto(t *testing.T) {
	vars := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, tc := range []struct {
		name, spec string
		env        func(string) string
		want       Shard
		err        string // a substring of the error; "" for none
	}{
		{"first of 1-16", "auto", slurmEnv(1, 1, 16, 1), Shard{1, 16}, ""},
		{"last of 1-16", "auto", slurmEnv(16, 1, 16, 1), Shard{16, 16}, ""},
		{"zero-based array", "auto", slurmEnv(0, 0, 7, 1), Shard{1, 8}, ""},
		{"stepped array", "auto", slurmEnv(7, 1, 31, 2), Shard{4, 16}, ""},
		{"no step variable", "auto", vars(SlurmArrayTaskID, "5", SlurmArrayTaskMin, "3", SlurmArrayTaskCount, "4"), Shard{3, 4}, ""},
		{"a list, not a range", "auto", vars(SlurmArrayTaskID, "5", SlurmArrayTaskMin, "1", SlurmArrayTaskMax, "5", SlurmArrayTaskCount, "3", SlurmArrayTaskStep, "1"), Shard{}, "not a range"},
		{"outside the job array", "auto", vars(), Shard{}, "SLURM_ARRAY_TASK_ID is not set"},
		{"count missing", "auto", vars(SlurmArrayTaskID, "2", SlurmArrayTaskMin, "1"), Shard{}, "SLURM_ARRAY_TASK_COUNT is not set"},
		{"not a number", "auto", vars(SlurmArrayTaskID, "x"), Shard{}, "not an integer"},
		{"id off the step", "auto", slurmEnv(2, 1, 31, 2), Shard{}, "not in the array"},
		{"ids are shard numbers", "auto/16", vars(SlurmArrayTaskID, "7"), Shard{7, 16}, ""},
		{"a resubmitted shard", "auto/16", slurmEnv(3, 3, 3, 1), Shard{3, 16}, ""},
		{"id beyond N", "auto/16", vars(SlurmArrayTaskID, "17"), Shard{}, "1 ≤ ID ≤ 16"},
		{"id zero with N", "auto/4", vars(SlurmArrayTaskID, "0"), Shard{}, "1 ≤ ID ≤ 4"},
		{"bad N", "auto/0", vars(SlurmArrayTaskID, "1"), Shard{}, "N ≥ 1"},
		{"bad form", "automatic", vars(SlurmArrayTaskID, "1"), Shard{}, "want auto"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseShardAuto(tc.spec, tc.env)
			if tc.err != "" {
				if assert.Error(t, err) {
					assert.Contains(t, err.Error(), tc.err)
				}
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// Over every task of any array lo-hi:step, --shard auto names each shard
// 1…COUNT exactly once, so the array's tasks partition the grid.
func TestParseShardAutoPartitions(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 300
	properties := gopter.NewProperties(params)
	properties.Property("the tasks of an array are the shards 1…COUNT", prop.ForAll(
		func(lo, n, step int) bool {
			hi := lo + (n-1)*step
			seen := make([]int, n+1)
			for id := lo; id <= hi; id += step {
				s, err := ParseShardAuto("auto", slurmEnv(id, lo, hi, step))
				if err != nil || s.Count != n || s.Index < 1 || s.Index > n {
					return false
				}
				seen[s.Index]++
			}
			for i := 1; i <= n; i++ {
				if seen[i] != 1 {
					return false
				}
			}
			return true
		},
		gen.IntRange(0, 1000), gen.IntRange(1, 64), gen.IntRange(1, 5),
	))
	properties.TestingRun(t)
}
