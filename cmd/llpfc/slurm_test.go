package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
// README tells a researcher to (issue 32): 'llpfc run SPEC --sbatch' prints
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
