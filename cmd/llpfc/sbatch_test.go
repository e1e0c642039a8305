package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		putFinished(t, store, spec.Name, c)
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
			putFinished(t, store, spec.Name, c)
		}
	}
	out.Reset()
	errb.Reset()
	assert.Equal(t, exitOK, runRun([]string{"quick", "--check", "--shards", "4", "--results", dir}, &out, &errb), errb.String())
	assert.Contains(t, out.String(), "all 18 cells of quick are in")
}

// putFinished stores a finished result of cell c of the spec named spec
// (test accuracy 0.5), as though a run had trained it.
func putFinished(t *testing.T, store *grid.Store, spec string, c experiments.Cell) {
	t.Helper()
	require.NoError(t, store.Put(&grid.Result{Format: grid.ResultFormat, Key: c.Key, Spec: spec, Seed: c.Config.Seed, Config: c.Config,
		Metrics: experiments.Metrics{TestAccuracy: 0.5, Epochs: c.Config.Hyper.Epochs}}))
}

// slurmSpec is the Slurm test's grid: 8 cells of about 2 s each on the
// fixture, dealt to 3 shards of 3, 3 and 2 cells.
const slurmSpec = `{
  "name": "slurm-tiny",
  "description": "fixture, mlp, LLPFC-uniform and LLPFC-approx, 2 bag sizes, 2 seeds, 2 epochs (the Slurm test's grid)",
  "learner": "gorgonia",
  "model": "mlp",
  "datasets": ["fashion-mnist-fixture"],
  "methods": ["llpfc-uniform", "llpfc-approx"],
  "bag_sizes": [64, 256],
  "seeds": [0, 1],
  "protocol": "paper",
  "num_points": 8192,
  "hyper": {"epochs": 2, "optimizer": "adam", "lr": 0.001, "batch_size": 128,
            "schedule": {"kind": "constant"}, "regroup_every": 1}
}`

// requireSlurm skips the test without root (the daemons run as root) and,
// unless CI=true, without Slurm and munge; with CI=true a missing piece
// fails it (.ci/run installs them).
func requireSlurm(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the single-node Slurm cluster needs root (slurmctld and slurmd run as SlurmUser=root); run as root, as CI does")
	}
	var missing []string
	for _, b := range []string{"munged", "munge", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "scontrol", "sinfo"} {
		if _, err := exec.LookPath(b); err != nil {
			missing = append(missing, b)
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := fmt.Sprintf("%s not found: apt-get install slurm-wlm munge (.ci/run does)", strings.Join(missing, ", "))
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + "; with CI=true the Slurm test is required")
	}
	t.Skip(msg)
}

// freePorts returns n distinct TCP ports nothing listens on now (all n
// held open together, so none is handed out twice).
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// upCluster starts the single-node cluster in dir (scripts/slurm-cluster.sh)
// and returns its SLURM_CONF; the cluster goes down when the test ends, and
// the script's watchdog takes it down if this process dies first.
func upCluster(t *testing.T, dir string) string {
	t.Helper()
	script, err := filepath.Abs("../../scripts/slurm-cluster.sh")
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	t.Cleanup(func() {
		if out, err := exec.Command("bash", script, "down", dir).CombinedOutput(); err != nil {
			t.Errorf("slurm-cluster.sh down: %v\n%s", err, out)
		}
	})
	start := time.Now()
	ports := freePorts(t, 2)
	out, err := exec.Command("bash", script, "up", dir, fmt.Sprint(ports[0]), fmt.Sprint(ports[1]), fmt.Sprint(os.Getpid())).CombinedOutput()
	require.NoError(t, err, "starting the single-node cluster (a failure, not a skip: Slurm is installed):\n%s", out)
	t.Logf("cluster up in %v", time.Since(start).Round(time.Millisecond))
	return filepath.Join(dir, "slurm.conf")
}

// slurmCmd runs a command with the cluster's configuration in dir and
// returns its combined output.
func slurmCmd(t *testing.T, conf, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SLURM_CONF="+conf)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %s:\n%s", name, strings.Join(args, " "), out)
	return string(out)
}

var submittedRE = regexp.MustCompile(`submitted: job array (\d+) \(shards (\S+) of (\d+)\) and job (\d+) \(merge \+ report\)`)

// submit runs the job script (with args, e.g. the shards to run again) and
// returns the array's and the report job's IDs.
func submit(t *testing.T, conf, dir, script string, args ...string) (array, report string) {
	t.Helper()
	out := slurmCmd(t, conf, dir, "bash", append([]string{script}, args...)...)
	m := submittedRE.FindStringSubmatch(out)
	require.NotNil(t, m, "the script's output names its jobs:\n%s", out)
	return m[1], m[4]
}

// waitJobs waits until squeue lists none of the jobs ids.
func waitJobs(t *testing.T, conf, dir string, ids ...string) {
	t.Helper()
	deadline := time.Now().Add(150 * time.Second)
	for time.Now().Before(deadline) {
		out := slurmCmd(t, conf, dir, "squeue", "-h", "-o", "%i %T %r", "-j", strings.Join(ids, ","))
		if strings.TrimSpace(out) == "" {
			return
		}
		if strings.Contains(out, "DependencyNeverSatisfied") {
			t.Fatalf("a job waits for a failed dependency:\n%s", out)
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("jobs %v still queued after 150 s:\n%s", ids, slurmCmd(t, conf, dir, "squeue"))
}

// jobState is a finished job's state (COMPLETED, CANCELLED, FAILED, …), as
// scontrol keeps it for MinJobAge (300 s in the test's slurm.conf).
func jobState(t *testing.T, conf, dir, id string) string {
	t.Helper()
	out := slurmCmd(t, conf, dir, "scontrol", "show", "job", id)
	m := regexp.MustCompile(`JobState=(\S+)`).FindStringSubmatch(out)
	require.NotNil(t, m, "scontrol show job %s:\n%s", id, out)
	return m[1]
}

// storeFiles reads every cell file of a store: key → bytes.
func storeFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for _, k := range storeKeys(t, dir) {
		b, err := os.ReadFile(filepath.Join(dir, "cells", k+".json"))
		require.NoError(t, err)
		files[k] = b
	}
	return files
}

// sameOutcomes checks that store got holds exactly the cells of want, each with
// the same outcome (all but timing, memory and host: Result.SameOutcome).
func sameOutcomes(t *testing.T, want, got string) {
	t.Helper()
	w, err := (&grid.Store{Dir: want}).All()
	require.NoError(t, err)
	g, err := (&grid.Store{Dir: got}).All()
	require.NoError(t, err)
	require.Len(t, g, len(w), "cells in %s", got)
	byKey := map[string]*grid.Result{}
	for _, r := range g {
		byKey[r.Key] = r
	}
	for _, r := range w {
		o := byKey[r.Key]
		if assert.NotNil(t, o, "cell %s missing from %s", r.Key, got) {
			assert.True(t, r.SameOutcome(o), "cell %s: %s differs from the one-machine run (accuracy %v vs %v)", r.Key, got, o.Metrics.TestAccuracy, r.Metrics.TestAccuracy)
		}
	}
}

// TestSlurmJobArray runs a grid on a single-node Slurm cluster the way the
// guide docs/gpu-and-cluster.md tells a researcher to: 'llpfc run SPEC --sbatch' prints
// the job script, bash submits it — a job array with one task per shard
// (--shard auto/N) and a merge + report job after it (afterok) — and every
// merged cell must equal the same grid run on one machine, but for timing
// and host. Then a task is cancelled while it trains (scancel) and its shard
// submitted again with the same script: the cell it had finished is kept
// byte for byte, the rest of its cells run once, and the merged grid is
// again the one-machine grid. Finally --shard auto reads the shard from a
// real array's variables.
func TestSlurmJobArray(t *testing.T) {
	requireSlurm(t)
	start := time.Now()
	bin := buildLLPFC(t)
	dir := t.TempDir()
	conf := upCluster(t, filepath.Join(dir, "cluster"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tiny.json"), []byte(slurmSpec), 0o644))
	llpfc := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		require.NoError(t, err, "llpfc %s:\n%s", strings.Join(args, " "), stderr.String())
		return string(out)
	}
	script := func(results string) string {
		t.Helper()
		path := filepath.Join(dir, results+".sh")
		js := llpfc("run", "tiny.json", "--sbatch", "--shards", "3", "--cpus-per-task", "1", "--results", results)
		require.NoError(t, os.WriteFile(path, []byte(js), 0o755))
		return path
	}
	llpfc("run", "tiny.json", "--results", "one-machine")
	ref := filepath.Join(dir, "one-machine")

	t.Run("array", func(t *testing.T) {
		array, report := submit(t, conf, dir, script("array"))
		waitJobs(t, conf, dir, array, report)
		assert.Equal(t, "COMPLETED", jobState(t, conf, dir, report), "the merge + report job")
		for i := 1; i <= 3; i++ {
			assert.Equal(t, "COMPLETED", jobState(t, conf, dir, fmt.Sprintf("%s_%d", array, i)), "array task %d", i)
		}
		sameOutcomes(t, ref, filepath.Join(dir, "array", "merged"))
		assert.FileExists(t, filepath.Join(dir, "array", "report", "report.md"))
	})

	t.Run("cancel and resubmit", func(t *testing.T) {
		js := script("cancel")
		array, report := submit(t, conf, dir, js)
		shard2 := filepath.Join(dir, "cancel", "shards", "2")
		// Wait until task 2 has finished its first cell, then cancel it
		// while it trains the next.
		deadline := time.Now().Add(90 * time.Second)
		for len(storeKeysIfAny(shard2)) == 0 {
			require.True(t, time.Now().Before(deadline), "shard 2 finished no cell in 90 s")
			time.Sleep(50 * time.Millisecond)
		}
		slurmCmd(t, conf, dir, "scancel", array+"_2")
		waitJobs(t, conf, dir, array, report)
		require.Equal(t, "CANCELLED", jobState(t, conf, dir, array+"_2"), "task 2")
		before := storeFiles(t, shard2)
		require.Less(t, len(before), 3, "task 2 finished its shard before the cancel: the test's cells are too short")
		assert.NoFileExists(t, filepath.Join(dir, "cancel", "report", "report.md"), "the report job ran without shard 2")

		array2, report2 := submit(t, conf, dir, js, "2")
		waitJobs(t, conf, dir, array2, report2)
		assert.Equal(t, "COMPLETED", jobState(t, conf, dir, report2), "the new merge + report job")
		after := storeFiles(t, shard2)
		assert.Len(t, after, 3, "shard 2's cells")
		for k, b := range before {
			assert.Equal(t, string(b), string(after[k]), "cell %s, finished before the cancel, was written again", k)
		}
		logs, err := filepath.Glob(filepath.Join(dir, "cancel", "logs", "shard-2-job-"+array2+".out"))
		require.NoError(t, err)
		require.Len(t, logs, 1, "the resubmitted task's log")
		log, err := os.ReadFile(logs[0])
		require.NoError(t, err)
		assert.Contains(t, string(log), fmt.Sprintf("%d run now, %d already finished, 0 failed", 3-len(before), len(before)))
		// No cell ran in two shards: the stores are disjoint.
		seen := map[string]int{}
		for i := 1; i <= 3; i++ {
			for _, k := range storeKeysIfAny(filepath.Join(dir, "cancel", "shards", fmt.Sprint(i))) {
				seen[k]++
			}
		}
		assert.Len(t, seen, 8)
		for k, n := range seen {
			assert.Equal(t, 1, n, "cell %s is in %d shards' stores", k, n)
		}
		sameOutcomes(t, ref, filepath.Join(dir, "cancel", "merged"))
		assert.FileExists(t, filepath.Join(dir, "cancel", "report", "report.md"))
	})

	t.Run("shard auto", func(t *testing.T) {
		// --list prints a shard's cells without training: each task of a
		// real array must list what --shard i/3 lists.
		out := slurmCmd(t, conf, dir, "sbatch", "--parsable", "--array=1-3", "--cpus-per-task=1", "--mem=200M",
			"--output="+filepath.Join(dir, "auto-%a.out"),
			"--wrap", bin+" run tiny.json --shard auto --list --results one-machine")
		id := strings.TrimSpace(strings.Split(out, ";")[0])
		waitJobs(t, conf, dir, id)
		for i := 1; i <= 3; i++ {
			got, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("auto-%d.out", i)))
			require.NoError(t, err)
			assert.Equal(t, llpfc("run", "tiny.json", "--shard", fmt.Sprintf("%d/3", i), "--list", "--results", "one-machine"), string(got), "task %d", i)
		}
	})
	t.Logf("the Slurm test took %v", time.Since(start).Round(time.Second))
}

// storeKeysIfAny is storeKeys of a store that may not exist yet.
func storeKeysIfAny(dir string) []string {
	ents, err := os.ReadDir(filepath.Join(dir, "cells"))
	if err != nil {
		return nil
	}
	var keys []string
	for _, e := range ents {
		if n := e.Name(); !strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".json") {
			keys = append(keys, strings.TrimSuffix(n, ".json"))
		}
	}
	return keys
}

// The dry run's estimate of a step-budgeted, searched cell: the budget's
// passes over the data (Config.Passes) times the search's trials, each
// trial training the cell again; the throughput measured, not refused
// (a step budget beside the measurement's one epoch once failed it).
func TestEstimateCountsStepsAndTrials(t *testing.T) {
	spec, ok := grid.BuiltinSpec("quick")
	require.True(t, ok)
	cells, err := spec.Cells()
	require.NoError(t, err)
	c := cells[0]
	c.Config.Hyper.Epochs, c.Config.Hyper.Steps = 0, 50
	c.Config.Hyper.LR, c.Config.Hyper.ValBags = 0, 0.1
	c.Config.Hyper.Search = &experiments.Search{LR: []float64{1e-4, 1e-3, 1e-2}}
	require.NoError(t, c.Config.Validate())
	est, err := estimate(context.Background(), []experiments.Cell{c})
	require.NoError(t, err)
	require.Empty(t, est.Failed)
	shape, err := shapeOf(c.Config.Dataset, c.DataDir)
	require.NoError(t, err)
	tp := trainingPoints(c.Config, shape)
	assert.Equal(t, 3*int64(c.Config.Passes(tp))*int64(tp), est.InstanceEpochs)
	assert.Positive(t, est.Seconds)
}

// --sbatch and --check refuse, as run does before any cell trains, a spec
// whose name the store holds with other settings: the job script's shards
// would be merged into a store its report refuses, and --check would call
// complete a store that mixes two settings. The spec as it ran passes.
func TestSlurmRefusesAnEditedSpec(t *testing.T) {
	dir := t.TempDir()
	spec := `{"name": "fits", "learner": "logreg", "model": "linear",
  "datasets": ["gmm:classes=3,dim=4,train=600,test=100,sep=3"],
  "methods": ["llpfc-uniform"], "bag_sizes": [8], "seeds": [1], "protocol": "paper", "num_points": 192,
  "hyper": {"epochs": EPOCHS, "optimizer": "adam", "lr": 0.05, "batch_size": 32, "schedule": {"kind": "constant"}}}`
	write := func(name, epochs string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(strings.ReplaceAll(spec, "EPOCHS", epochs)), 0o644))
		return p
	}
	ran, edited, store := write("ran.json", "1"), write("edited.json", "2"), filepath.Join(dir, "store")
	var out, errb bytes.Buffer
	require.Equal(t, exitOK, runRun([]string{ran, "--results", store}, &out, &errb), errb.String())
	slurm := []string{"--sbatch", "--time-limit", "1:00:00", "--mem", "1G"}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{append([]string{ran, "--results", store}, slurm...), exitOK},
		{[]string{ran, "--results", store, "--check"}, exitOK},
		{append([]string{edited, "--results", store}, slurm...), exitBadUsage},
		{[]string{edited, "--results", store, "--check"}, exitBadUsage},
	} {
		out.Reset()
		errb.Reset()
		code := runRun(tc.args, &out, &errb)
		require.Equal(t, tc.code, code, "%v: %s", tc.args, errb.String())
		if tc.code == exitBadUsage {
			assert.Contains(t, errb.String(), "hyper.epochs", tc.args)
			assert.Contains(t, errb.String(), "another --results", tc.args)
			assert.Empty(t, out.String(), tc.args)
		}
	}
}
