package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
)

// A grid on a Slurm cluster: `run SPEC --sbatch` and `reproduce
// --table T --sbatch` print a job script instead of training, and `--check`
// says whether a store holds every cell of the grid. The script is what
// TestSlurmJobArray submits to a single-node cluster (sbatch_test.go).

// slurmFlags are the flags of --sbatch and --check, on run and reproduce.
type slurmFlags struct {
	sbatch, check                         *bool
	shards, cpus                          *int
	partition, gres, mem, timeLimit, name *string
}

func defineSlurmFlags(fs *flag.FlagSet) *slurmFlags {
	return &slurmFlags{
		sbatch:    fs.Bool("sbatch", false, "print a Slurm job script for the grid instead of running it: a job array of --shards tasks (each runs one shard with --shard auto/N into its own store under --results) and a merge + report job that waits for them (sbatch --dependency=afterok); save it and run it with bash"),
		check:     fs.Bool("check", false, "train nothing: exit 0 when the store --results holds every cell of the grid (this --shard's), else list the missing cells — with --shards N, the shards that hold them — and exit 1"),
		shards:    fs.Int("shards", 8, "with --sbatch: the number of shards (array tasks), at most the number of cells; with --check: name the shards of N that hold the missing cells"),
		cpus:      fs.Int("cpus-per-task", 0, "with --sbatch: cores per array task (default: this machine's, on which the time limit is measured; the limit is scaled by the ratio)"),
		mem:       fs.String("mem", "", "with --sbatch: memory per array task in Slurm's syntax, e.g. 16G (default: 1.5 × the peak memory measured by the dry run, at least 1G)"),
		timeLimit: fs.String("time-limit", "", "with --sbatch: time limit per array task in Slurm's syntax, e.g. 2-00:00:00 (default: twice the dry run's estimate of the slowest shard, plus 10 minutes)"),
		partition: fs.String("partition", "", "with --sbatch: the Slurm partition (default: the cluster's default)"),
		gres:      fs.String("gres", "", "with --sbatch: generic resources per task, e.g. gpu:1 (default gpu:1 when --device names a GPU back end; refused without one, since a CPU run would not use it)"),
		name:      fs.String("job-name", "", "with --sbatch: the jobs' name (default llpfc-<grid>)"),
	}
}

// slurmOnly are the flags a job script does not pass on to its tasks: the
// script's own, and those it sets per task.
var slurmOnly = map[string]bool{
	"sbatch": true, "check": true, "shards": true, "cpus-per-task": true, "mem": true, "time-limit": true,
	"partition": true, "gres": true, "job-name": true, "shard": true, "results": true, "out": true,
	"dry-run": true, "json": true, "list": true, "print-spec": true,
}

// jobScript is what --sbatch prints.
type jobScript struct {
	Grid       string   // the grid's name (job name, comments)
	Command    []string // the grid's command line after "llpfc", without --shard, --results and --out
	Reproduce  bool     // the final report comes from reproduce (a paper table's companions), else from report
	Shards     int
	Cells      []int // cells per shard
	CPUs       int
	Mem        string
	Time       string
	Partition  string
	Gres       string
	Name       string
	Results    string // absolute
	Dir        string // the working directory of every job (absolute): relative paths in Command resolve there
	Binary     string
	Estimate   []string // comment lines: how the limits were reached
	Generation string   // the command that printed the script

	shards [][]experiments.Cell // each shard's cells (place)
}

// gridCommand rebuilds the grid's command line from the flags set on fs
// (all but slurmOnly), after the words head (e.g. "run", SPEC).
func gridCommand(fs *flag.FlagSet, head ...string) []string {
	cmd := append([]string(nil), head...)
	fs.Visit(func(f *flag.Flag) {
		if slurmOnly[f.Name] {
			return
		}
		cmd = append(cmd, "--"+f.Name+"="+f.Value.String()) // --flag=true for a bool

	})
	return cmd
}

// shellWord quotes s for bash when it needs it.
func shellWord(s string) string {
	if s != "" && safeWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

var safeWord = regexp.MustCompile(`^[A-Za-z0-9_./:=+,@%-]+$`)

// Slurm's own syntax for --time and --mem (sbatch(1)): a time limit is
// minutes, minutes:seconds, hours:minutes:seconds, days-hours,
// days-hours:minutes or days-hours:minutes:seconds, or UNLIMITED; memory is
// a whole number with an optional unit K, M, G or T (megabytes without).
var (
	slurmTime = regexp.MustCompile(`^(\d+(:\d{1,2}){0,2}|\d+-\d{1,2}(:\d{1,2}){0,2}|(?i:unlimited|infinite))$`)
	slurmMem  = regexp.MustCompile(`^\d+[KMGTkmgt]?$`)
)

// checkValues checks the Slurm flags given, in Slurm's syntax, before any
// measurement (--time-limit banana and --mem lots once went into the
// script, --cpus-per-task 0 was replaced by this machine's cores, --check
// --shards 0 was taken): each error names its flag.
func (sf *slurmFlags) checkValues(given map[string]bool) error {
	switch {
	case given["shards"] && *sf.shards < 1:
		return usagef("--shards %d: want at least 1", *sf.shards)
	case given["cpus-per-task"] && *sf.cpus < 1:
		return usagef("--cpus-per-task %d: want at least 1 (leave it out for this machine's %d cores)", *sf.cpus, runtime.NumCPU())
	case *sf.timeLimit != "" && !slurmTime.MatchString(*sf.timeLimit):
		return usagef("--time-limit %q: want Slurm's time syntax: minutes, hours:minutes:seconds or days-hours:minutes:seconds (e.g. 90, 12:00:00, 2-00:00:00)", *sf.timeLimit)
	case *sf.mem != "" && !slurmMem.MatchString(*sf.mem):
		return usagef("--mem %q: want Slurm's memory syntax: a whole number with an optional unit K, M, G or T (e.g. 16G, 4000M)", *sf.mem)
	}
	return nil
}

// planJobScript fills a jobScript for the cells of a grid: it checks the
// flags, deals the cells to shards and, unless --time-limit and --mem are
// both given, measures the grid's throughput on this machine (as --dry-run
// does) for the limits. device is the --device value.
func (sf *slurmFlags) planJobScript(ctx context.Context, js *jobScript, cells []experiments.Cell, results, device string, stderr io.Writer) error {
	if *sf.shards < 1 {
		return usagef("--shards %d: want at least 1", *sf.shards)
	}
	if len(cells) == 0 {
		return usagef("--sbatch: the grid has no cells")
	}
	js.Shards = min(*sf.shards, len(cells))
	if js.Shards < *sf.shards {
		fmt.Fprintf(stderr, "llpfc: --shards %d: the grid has %d cells, so %d shards\n", *sf.shards, len(cells), js.Shards)
	}
	gpu := device != "" && device != "cpu"
	js.Gres = *sf.gres
	switch {
	case js.Gres != "" && !gpu:
		return usagef("--gres %s asks Slurm for a device, but the tasks would train on the CPU: add --device opencl (or drop --gres)", js.Gres)
	case js.Gres == "" && gpu:
		js.Gres = "gpu:1"
	}
	js.CPUs = *sf.cpus
	if js.CPUs == 0 {
		js.CPUs = runtime.NumCPU()
	}
	if js.CPUs < 1 {
		return usagef("--cpus-per-task %d: want at least 1", js.CPUs)
	}
	js.Partition, js.Mem, js.Time = *sf.partition, *sf.mem, *sf.timeLimit
	js.Name = *sf.name
	if js.Name == "" {
		js.Name = "llpfc-" + js.Grid
	}
	for _, v := range []struct{ flag, val string }{{"--partition", js.Partition}, {"--gres", js.Gres}, {"--mem", js.Mem}, {"--time-limit", js.Time}, {"--job-name", js.Name}} {
		if v.val != "" && !safeWord.MatchString(v.val) {
			return usagef("%s %q: want a Slurm value without spaces or quotes", v.flag, v.val)
		}
	}
	if gpu && js.Time == "" {
		return usagef("--device %s: the time limit comes from a throughput measured on this machine's CPU, which says nothing of the cluster's GPU: give --time-limit (e.g. the dry run of one shard on a GPU node: llpfc reproduce ... --shard 1/%d --dry-run --device %s)", device, js.Shards, device)
	}
	if err := js.place(results, cells, stderr); err != nil {
		return err
	}
	if js.Mem != "" && js.Time != "" {
		js.Estimate = append(js.Estimate, "memory and time limit as given on the command line")
		return nil
	}
	return js.limits(ctx, cells, stderr)
}

// place fills the script's paths and binary and counts each shard's cells.
func (js *jobScript) place(results string, cells []experiments.Cell, stderr io.Writer) error {
	var err error
	if js.Results, err = filepath.Abs(results); err != nil {
		return err
	}
	if js.Dir, err = os.Getwd(); err != nil {
		return err
	}
	js.Binary = "llpfc"
	if exe, err := os.Executable(); err == nil && !strings.Contains(exe, "go-build") {
		js.Binary = exe
	} else {
		fmt.Fprintln(stderr, "llpfc: this is a 'go run' build: the script runs llpfc from $PATH; build it (go build ./cmd/llpfc) or set LLPFC=/path/to/llpfc when you submit")
	}
	js.shards, js.Cells = make([][]experiments.Cell, js.Shards), make([]int, js.Shards)
	for i := range js.shards {
		js.shards[i] = grid.Shard{Index: i + 1, Count: js.Shards}.Select(cells)
		js.Cells[i] = len(js.shards[i])
	}
	return nil
}

// limits fills the time limit and the memory not given on the command line
// from the grid's throughput and peak memory measured on this machine.
func (js *jobScript) limits(ctx context.Context, cells []experiments.Cell, stderr io.Writer) error {
	est, err := estimate(ctx, cells)
	if err != nil {
		return fmt.Errorf("measuring the grid's throughput for the limits (give --time-limit and --mem to skip it): %w", err)
	}
	host, _ := os.Hostname()
	here := runtime.NumCPU()
	if js.Time == "" {
		slowest, slowestShard := 0.0, 0
		for i, cs := range js.shards {
			sec := 0.0
			for _, c := range cs {
				sec += est.CellSeconds[c.Key]
			}
			if sec > slowest {
				slowest, slowestShard = sec, i+1
			}
		}
		scaled := slowest * float64(here) / float64(js.CPUs)
		limit := 2*scaled + 600 // seconds
		js.Time = slurmDuration(limit)
		if limit > 7*24*3600 {
			fmt.Fprintf(stderr, "llpfc: the slowest shard needs %s on %d cores; clusters cap jobs at days: more --shards, more --cpus-per-task or a GPU (--device opencl)\n", fmtHours(scaled/3600), js.CPUs)
		}
		js.Estimate = append(js.Estimate,
			fmt.Sprintf("time limit %s: 2 × the slowest shard's estimate (shard %d: %s on %s's %d cores, %s on %d) + 10 minutes;",
				js.Time, slowestShard, fmtHours(slowest/3600), host, here, fmtHours(scaled/3600), js.CPUs),
			"  the estimate is LLPFC's measured throughput (kl and llpvat are slower per instance: a lower bound)")
	}
	if js.Mem == "" {
		var peak int64
		for _, r := range est.Rates {
			peak = max(peak, r.PeakRSS)
		}
		gib := math.Max(1, math.Ceil(1.5*float64(peak)/(1<<30)))
		js.Mem = fmt.Sprintf("%.0fG", gib)
		js.Estimate = append(js.Estimate, fmt.Sprintf("memory %s: 1.5 × the peak RSS of the measurement, %.0f MiB, at least 1G", js.Mem, float64(peak)/(1<<20)))
	}
	for _, f := range est.Failed {
		js.Estimate = append(js.Estimate, "not measured (its cells will fail the same way): "+f)
	}
	return nil
}

// slurmDuration formats sec seconds as Slurm's [days-]hours:minutes:seconds,
// rounded up to the minute.
func slurmDuration(sec float64) string {
	m := int64(math.Ceil(sec / 60))
	days, h, min := m/(24*60), m/60%24, m%60
	if days > 0 {
		return fmt.Sprintf("%d-%02d:%02d:00", days, h, min)
	}
	return fmt.Sprintf("%02d:%02d:00", h, min)
}

// write prints the script. It is a bash script that submits two jobs: the
// array (one task per shard, each with its own store) and, after it, a job
// that merges the stores, checks that every cell is there and writes the
// report. Its argument, when given, is the --array list to submit instead
// of 1-N: the shards to run again.
func (js *jobScript) write(w io.Writer) {
	js.writeHeader(w)
	js.writeJobs(w)
}

// writeHeader writes the script's comment: how to use it and its limits.
func (js *jobScript) writeHeader(w io.Writer) {
	fmt.Fprintf(w, `#!/usr/bin/env bash
# llpfc on a Slurm cluster: the grid %s in %d shards (%s cells per shard),
# printed by: %s
#
#   bash THIS_FILE          submit the job array (shards 1-%d) and the merge + report job after it
#   bash THIS_FILE 3,7      run shards 3 and 7 again (after a cancel, a time-out, a lost node) and a
#                           new merge + report job after them; a shard's store keeps its finished
#                           cells, so a shard run again trains only what it had not finished
#
# Every task runs one shard (--shard auto/%d: the array's task IDs are the shard numbers) into its
# own results store, %s/shards/ID, on the shared file system; logs go to
# %s/logs. The last job merges the stores into %s/merged, checks that every cell
# is there (--check) and writes the report to %s/report.
#
# Per task: %d cores, memory %s, time limit %s.
`, js.Grid, js.Shards, cellCounts(js.Cells), js.Generation, js.Shards, js.Shards, js.Results, js.Results, js.Results, js.Results, js.CPUs, js.Mem, js.Time)
	for _, l := range js.Estimate {
		fmt.Fprintf(w, "#   %s\n", l)
	}
}

// writeJobs writes the two sbatch calls: the array and the merge + report
// job after it.
func (js *jobScript) writeJobs(w io.Writer) {
	q := shellWord
	var grid []string
	for _, a := range js.Command {
		grid = append(grid, q(a))
	}
	gridLine := `"$LLPFC" ` + strings.Join(grid, " ")
	opts := fmt.Sprintf("--chdir=%s", q(js.Dir))
	if js.Partition != "" {
		opts += " --partition=" + js.Partition
	}
	fmt.Fprintf(w, `set -euo pipefail
export LLPFC=${LLPFC:-%s}
export RESULTS=%s
SHARDS=%d
ARRAY=${1:-1-$SHARDS}
mkdir -p "$RESULTS/logs" "$RESULTS/shards"

array=$(sbatch --parsable --job-name=%s --array="$ARRAY" --cpus-per-task=%d --mem=%s --time=%s \
  %s`, q(js.Binary), q(js.Results), js.Shards, js.Name, js.CPUs, js.Mem, js.Time, opts)
	if js.Gres != "" {
		fmt.Fprintf(w, " --gres=%s", js.Gres)
	}
	shardOut := ""
	if js.Reproduce {
		shardOut = ` --out "$RESULTS/shard-reports/$SLURM_ARRAY_TASK_ID"`
	}
	fmt.Fprintf(w, ` --output="$RESULTS/logs/shard-%%a-job-%%A.out" <<'JOB'
#!/usr/bin/env bash
set -euo pipefail
export GOMAXPROCS=${SLURM_CPUS_PER_TASK:-%d}
exec %s --shard auto/%d --results "$RESULTS/shards/$SLURM_ARRAY_TASK_ID"%s
JOB
)
array=${array%%%%;*}

report=$(sbatch --parsable --job-name=%s-report --dependency=afterok:$array --kill-on-invalid-dep=yes \
  --cpus-per-task=1 --mem=%s --time=01:00:00 %s --output="$RESULTS/logs/report-job-%%j.out" <<'JOB'
#!/usr/bin/env bash
set -euo pipefail
"$LLPFC" merge --out "$RESULTS/merged" "$RESULTS"/shards/*
%s --results "$RESULTS/merged" --check --shards %d
`, js.CPUs, gridLine, js.Shards, shardOut, js.Name, js.Mem, opts, gridLine, js.Shards)
	if js.Reproduce {
		fmt.Fprintf(w, "%s --results \"$RESULTS/merged\" --out \"$RESULTS/report\"\n", gridLine)
	} else {
		fmt.Fprintln(w, `"$LLPFC" report --results "$RESULTS/merged" --out "$RESULTS/report"`)
	}
	fmt.Fprintf(w, `JOB
)
report=${report%%%%;*}
echo "submitted: job array $array (shards $ARRAY of $SHARDS) and job $report (merge + report) after it"
echo "watch them with: squeue -j $array,$report    logs: $RESULTS/logs    report: $RESULTS/report/report.md"
`)
}

// cellCounts summarizes the cells per shard: "3" or "2–3".
func cellCounts(n []int) string {
	s := append([]int(nil), n...)
	sort.Ints(s)
	if s[0] == s[len(s)-1] {
		return fmt.Sprint(s[0])
	}
	return fmt.Sprintf("%d–%d", s[0], s[len(s)-1])
}

// checkCells is --check: it prints whether store dir holds every cell of
// cells, each run on its data as it is now, and returns exitOK, or
// exitFailed listing the missing ones (each that failed when last run with
// the reason its store keeps, grid.Failure; with shards > 1, the shards of
// that many that hold them) and the stale ones (grid.Stale: the data
// changed since the cell ran).
func checkCells(stdout, stderr io.Writer, name string, cells []experiments.Cell, dir, dataDir string, shards int) int {
	store := &grid.Store{Dir: dir}
	missing := pendingCells(cells, store)
	stale, _ := grid.Stale(finishedResults(cells, store), dataDir)
	if len(stale) > 0 {
		fmt.Fprintf(stderr, "llpfc: %d of the %d cells of %s in %s are stale: %s\n", len(stale), len(cells), name, dir, grid.StaleNote(stale, dataDir))
	}
	if len(missing) == 0 && len(stale) == 0 {
		fmt.Fprintf(stdout, "llpfc: all %d cells of %s are in %s\n", len(cells), name, dir)
		return exitOK
	}
	if len(missing) == 0 {
		return exitFailed
	}
	fmt.Fprintf(stderr, "llpfc: %d of the %d cells of %s are not in %s:\n", len(missing), len(cells), name, dir)
	failed := failureRecords(store, stderr, "llpfc")
	for _, c := range missing {
		why := ""
		if f, ok := failed[c.Key]; ok {
			why = "  failed when last run: " + brief(f.Error)
		}
		fmt.Fprintf(stderr, "  %s  %s %s bag %d seed %d%s\n", c.Key, c.Config.Dataset, c.Config.Method, c.Config.BagSize, c.Config.Seed, why)
	}
	if shards > 1 {
		// A shard is a function of the whole grid's keys, so deal the grid,
		// not the missing cells.
		var which []string
		for i := 1; i <= shards; i++ {
			if len(pendingCells(grid.Shard{Index: i, Count: shards}.Select(cells), store)) > 0 {
				which = append(which, fmt.Sprint(i))
			}
		}
		fmt.Fprintf(stderr, "llpfc: they belong to shard(s) %s of %d: run those again (with the job script: bash SCRIPT %s)\n", strings.Join(which, ","), shards, strings.Join(which, ","))
	}
	return exitFailed
}

// slurmGrid is what --check and --sbatch need of run's or reproduce's grid.
type slurmGrid struct {
	name      string   // the grid's name
	head      []string // the command words before the flags ("run", SPEC)
	reproduce bool
	spec      *grid.Spec
	shard     grid.Shard
	results   string
	device    string
	dataDir   string
}

// runSlurm is --check or --sbatch for the grid g, whose command's flags are
// parsed in fs from args.
func (sf *slurmFlags) runSlurm(fs *flag.FlagSet, args []string, stdout, stderr io.Writer, g slurmGrid) int {
	cmd := "llpfc " + g.head[0]
	if *sf.check && *sf.sbatch {
		return exitWith(stderr, cmd, usagef("--check and --sbatch exclude each other: --check reads a store, --sbatch prints a job script"))
	}
	cells, err := g.spec.Cells()
	if err != nil {
		return exitWith(stderr, cmd, usageError{err})
	}
	if err := sf.checkValues(givenFlags(fs)); err != nil {
		return exitWith(stderr, cmd, err)
	}
	if err := grid.CheckFits(&grid.Store{Dir: g.results}, g.spec, cells); err != nil {
		if errors.As(err, new(*experiments.InputError)) {
			err = usageError{err} // the spec does not fit the store: bad input, as run says it
		}
		return exitWith(stderr, cmd, err)
	}
	if *sf.check {
		shards := 0
		if givenFlags(fs)["shards"] {
			shards = *sf.shards
		}
		return checkCells(stdout, stderr, g.name, g.shard.Select(cells), g.results, g.dataDir, shards)
	}
	if g.shard.Count > 0 {
		return exitWith(stderr, cmd, usagef("--sbatch deals the grid to --shards N array tasks itself: drop --shard"))
	}
	var words []string
	for _, a := range append([]string{"llpfc", g.head[0]}, args...) {
		words = append(words, shellWord(a))
	}
	js := &jobScript{Grid: g.name, Command: gridCommand(fs, g.head...), Reproduce: g.reproduce, Generation: strings.Join(words, " ")}
	ctx, stop := interruptible(g.head[0], stderr)
	defer stop()
	if err := sf.planJobScript(ctx, js, cells, g.results, g.device, stderr); err != nil {
		return exitWith(stderr, cmd, err)
	}
	js.write(stdout)
	return exitOK
}

// finishedResults returns the results store holds of cells.
func finishedResults(cells []experiments.Cell, store *grid.Store) []*grid.Result {
	var out []*grid.Result
	for _, c := range cells {
		if r, err := store.Get(c.Key); err == nil {
			out = append(out, r)
		}
	}
	return out
}

// failureRecords returns the store's failure records by key (grid.Failure);
// a record that does not read is a warning, not a stop: --check and --list
// still say what the store holds.
func failureRecords(store *grid.Store, stderr io.Writer, who string) map[string]*grid.Failure {
	fs, err := store.Failures()
	if err != nil {
		fmt.Fprintf(stderr, "%s: warning: %v\n", who, err)
	}
	out := make(map[string]*grid.Failure, len(fs))
	for _, f := range fs {
		out[f.Key] = f
	}
	return out
}

// brief is an error's message on one line, cut to 200 characters: the
// whole is in the store's failed/KEY.json and the report.
func brief(msg string) string {
	msg = strings.Join(strings.Fields(msg), " ")
	if r := []rune(msg); len(r) > 200 {
		return string(r[:199]) + "…"
	}
	return msg
}
