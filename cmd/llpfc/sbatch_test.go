package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
)

// The job script --sbatch prints: its array, its per-task limits, the
// shard each task runs, the grid's own flags passed on, and the merge +
// report job after the array. TestSlurmJobArray submits such a script to a
// real cluster; this test pins what it must hold without one.
func TestSbatchScript(t *testing.T) {
	results := filepath.Join(t.TempDir(), "res")
	for _, tc := range []struct {
		name string
		cmd  func([]string, *bytes.Buffer, *bytes.Buffer) int
		args []string
		want []string // lines or fragments the script holds
		not  []string
	}{
		{"run, CPU", func(a []string, o, e *bytes.Buffer) int { return runRun(a, o, e) },
			[]string{"quick", "--sbatch", "--shards", "4", "--cpus-per-task", "8", "--mem", "6G", "--time-limit", "1-00:00:00", "--results", results, "--data-dir", "/data", "--partition", "long"},
			[]string{
				"SHARDS=4\n", "ARRAY=${1:-1-$SHARDS}\n",
				`--array="$ARRAY" --cpus-per-task=8 --mem=6G --time=1-00:00:00`,
				"--partition=long",
				`exec "$LLPFC" run quick --data-dir=/data --shard auto/4 --results "$RESULTS/shards/$SLURM_ARRAY_TASK_ID"`,
				"--dependency=afterok:$array --kill-on-invalid-dep=yes",
				`"$LLPFC" merge --out "$RESULTS/merged" "$RESULTS"/shards/*`,
				`"$LLPFC" run quick --data-dir=/data --results "$RESULTS/merged" --check --shards 4`,
				`"$LLPFC" report --results "$RESULTS/merged" --out "$RESULTS/report"`,
				"export RESULTS=" + results + "\n",
				"the grid quick in 4 shards (4–5 cells per shard)",
			},
			[]string{"--gres", "--sbatch", "--shards=", "--time-limit=", "--cpus-per-task", "--mem", "--partition", "--results=", "--shard=", "--job-name"}},
		{"reproduce on a GPU", func(a []string, o, e *bytes.Buffer) int { return runReproduce(a, o, e) },
			[]string{"--table", "wrn16-4", "--sbatch", "--shards", "16", "--device", "opencl", "--time-limit", "2-00:00:00", "--mem", "24G", "--results", results},
			[]string{
				"--gres=gpu:1",
				`exec "$LLPFC" reproduce --device=opencl --table=wrn16-4 --shard auto/16 --results "$RESULTS/shards/$SLURM_ARRAY_TASK_ID" --out "$RESULTS/shard-reports/$SLURM_ARRAY_TASK_ID"`,
				`"$LLPFC" reproduce --device=opencl --table=wrn16-4 --results "$RESULTS/merged" --out "$RESULTS/report"`,
				"(26–27 cells per shard)",
			},
			[]string{`"$LLPFC" report`}},
		{"reproduce, own gres", func(a []string, o, e *bytes.Buffer) int { return runReproduce(a, o, e) },
			[]string{"--quick", "--sbatch", "--shards", "2", "--device", "opencl:0:1", "--gres", "gpu:a100:1", "--time-limit", "30:00", "--mem", "2G", "--results", results},
			[]string{"--gres=gpu:a100:1", "--device=opencl:0:1", "--quick=true", "--shard auto/2"},
			[]string{"--gres=gpu:1 "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			require.Equal(t, exitOK, tc.cmd(tc.args, &out, &errb), "stderr:\n%s", errb.String())
			s := out.String()
			for _, w := range tc.want {
				assert.Contains(t, s, w)
			}
			var llpfcLines []string // the lines that run llpfc: slurm-only flags stay out of them
			for _, l := range strings.Split(s, "\n") {
				if strings.Contains(l, `"$LLPFC" `) {
					llpfcLines = append(llpfcLines, l)
				}
			}
			require.Len(t, llpfcLines, 4, "the task's line, merge, --check and the report")
			for _, n := range tc.not {
				assert.NotContains(t, strings.Join(llpfcLines, "\n"), n)
			}
			// It is a bash script that parses.
			f := filepath.Join(t.TempDir(), "job.sh")
			require.NoError(t, os.WriteFile(f, out.Bytes(), 0o644))
			msg, err := exec.Command("bash", "-n", f).CombinedOutput()
			assert.NoError(t, err, "bash -n: %s", msg)
		})
	}
}

// Without --time-limit the limit comes from the dry run's measured
// throughput: twice the slowest shard plus ten minutes, which for the quick
// grid on this machine is more than ten minutes and below a day.
func TestSbatchTimeLimitFromEstimate(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, exitOK, runRun([]string{"quick", "--sbatch", "--shards", "3", "--results", t.TempDir()}, &out, &errb), "stderr:\n%s", errb.String())
	s := out.String()
	assert.Contains(t, s, "2 × the slowest shard's estimate (shard ")
	assert.Contains(t, s, "1.5 × the peak RSS of the measurement")
	i := strings.Index(s, " --time=")
	require.Positive(t, i)
	limit := strings.Fields(s[i+len(" --time="):])[0]
	d, err := time.ParseDuration(strings.Replace(strings.Replace(limit, ":", "h", 1), ":", "m", 1) + "s")
	require.NoError(t, err, "limit %q", limit)
	assert.Greater(t, d, 10*time.Minute, "limit %s", limit)
	assert.Less(t, d, 24*time.Hour, "limit %s", limit)
}

func TestSlurmDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{10 * time.Minute, "00:10:00"},
		{10*time.Minute + time.Second, "00:11:00"},
		{25*time.Hour + 30*time.Minute, "1-01:30:00"},
		{72 * time.Hour, "3-00:00:00"},
	} {
		assert.Equal(t, tc.want, slurmDuration(tc.d.Seconds()), "%v", tc.d)
	}
}

// Usage errors: each a clear message and exit 2, nothing printed on stdout.
func TestSbatchRefusals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"quick", "--sbatch", "--gres", "gpu:1", "--time-limit", "1:00:00", "--mem", "1G"}, "add --device opencl"},
		{[]string{"quick", "--sbatch", "--device", "opencl", "--mem", "1G"}, "give --time-limit"},
		{[]string{"quick", "--sbatch", "--check"}, "exclude each other"},
		{[]string{"quick", "--sbatch", "--shard", "1/2"}, "drop --shard"},
		{[]string{"quick", "--sbatch", "--shards", "0"}, "--shards 0"},
		{[]string{"quick", "--sbatch", "--partition", "a b", "--time-limit", "1:00:00", "--mem", "1G"}, "without spaces"},
		{[]string{"quick", "--shard", "auto"}, "SLURM_ARRAY_TASK_ID is not set"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Setenv(grid.SlurmArrayTaskID, "")
			var out, errb bytes.Buffer
			assert.Equal(t, exitBadUsage, runRun(tc.args, &out, &errb))
			assert.Contains(t, errb.String(), tc.want)
			assert.Empty(t, out.String())
		})
	}
}

// --check: exit 0 on a complete store; on an incomplete one exit 1, every
// missing cell named and, with --shards N, the shards that hold them — the
// shards of the whole grid (a shard is a function of all the grid's keys),
// not of the missing cells alone.
func TestCheckNamesTheMissingShards(t *testing.T) {
	spec, ok := grid.BuiltinSpec("quick")
	require.True(t, ok)
	cells, err := spec.Cells()
	require.NoError(t, err)
	dir := t.TempDir()
	store, err := grid.OpenStore(dir)
	require.NoError(t, err)
	lost := map[string]bool{}
	for _, c := range (grid.Shard{Index: 3, Count: 4}).Select(cells) {
		lost[c.Key] = true
	}
	for _, c := range cells {
		if lost[c.Key] {
			continue
		}
		require.NoError(t, store.Put(&grid.Result{Format: grid.ResultFormat, Key: c.Key, Spec: spec.Name, Seed: c.Config.Seed, Config: c.Config,
			Metrics: experiments.Metrics{TestAccuracy: 0.5, Epochs: c.Config.Hyper.Epochs}}))
	}
	var out, errb bytes.Buffer
	assert.Equal(t, exitFailed, runRun([]string{"quick", "--check", "--shards", "4", "--results", dir}, &out, &errb))
	assert.Contains(t, errb.String(), "they belong to shard(s) 3 of 4")
	for k := range lost {
		assert.Contains(t, errb.String(), k)
	}
	assert.Equal(t, len(lost)+2, strings.Count(errb.String(), "\n"), "a header, one line per missing cell, the shards:\n%s", errb.String())

	// Shard 3's cells alone are exactly what is missing.
	out.Reset()
	errb.Reset()
	assert.Equal(t, exitFailed, runRun([]string{"quick", "--check", "--shard", "3/4", "--results", dir}, &out, &errb))
	assert.Contains(t, errb.String(), fmt.Sprintf("%d of the %d cells of quick", len(lost), len(lost)))
	for _, s := range []string{"1/4", "2/4", "4/4"} {
		out.Reset()
		errb.Reset()
		assert.Equal(t, exitOK, runRun([]string{"quick", "--check", "--shard", s, "--results", dir}, &out, &errb), "shard %s: %s", s, errb.String())
	}
	for _, c := range cells {
		if lost[c.Key] {
			require.NoError(t, store.Put(&grid.Result{Format: grid.ResultFormat, Key: c.Key, Spec: spec.Name, Seed: c.Config.Seed, Config: c.Config,
				Metrics: experiments.Metrics{TestAccuracy: 0.5, Epochs: c.Config.Hyper.Epochs}}))
		}
	}
	out.Reset()
	errb.Reset()
	assert.Equal(t, exitOK, runRun([]string{"quick", "--check", "--shards", "4", "--results", dir}, &out, &errb), errb.String())
	assert.Contains(t, out.String(), "all 18 cells of quick are in")
}
