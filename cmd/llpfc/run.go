package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/training"
)

func init() {
	register(command{
		name:    "run",
		summary: "run an experiment grid (built-in spec or JSON file) into a resumable results store",
		run:     runRun,
	})
}

// runSynopsis is run's -h text; the built-in specs are listed from the grid
// package, so a new one shows without an edit here.
var runSynopsis = `Expands SPEC — a built-in spec (` + strings.Join(grid.BuiltinNames(), ", ") + `) or a JSON spec
file — into cells (settings × seed), each keyed by a hash of its full configuration, and
trains every cell that is not yet in the results store, writing one file per finished cell
(DIR/cells/<key>.json, atomically). Rerunning the same command resumes: finished cells are
skipped, so an interrupted run loses at most the cell in flight. --shard i/n runs only the
i-th of n deterministic parts of the grid (for a Slurm job array or several machines);
combine the shard stores with 'llpfc merge'. Shards may also share one results directory
(their cells are disjoint and every write is atomic). Progress with ETAs goes to standard
error. Exit status 1 if a cell failed or the run was interrupted.

On a Slurm cluster, --sbatch prints a job script (a job array, one task per shard, and a merge +
report job after it; run it with bash); inside any job array --shard auto takes the shard from
$SLURM_ARRAY_TASK_ID, _MIN and _COUNT, so one job line serves any array size:

  llpfc run wrn16-4 --sbatch --shards 16 --results res --data-dir $HOME/data > job.sh && bash job.sh
  sbatch --array=1-8 --wrap 'llpfc run wrn16-4 --shard auto --results res/$SLURM_ARRAY_TASK_ID'
  llpfc merge --out res/all res/*  &&  llpfc run wrn16-4 --results res/all --check  &&  llpfc report --results res/all

To change a built-in grid, print it with --print-spec, edit the JSON and pass the file.`

// runFlags are `llpfc run`'s flags.
type runFlags struct {
	shard, results, dataDir, device *string
	list, printSpec, saveModels     *bool
}

func defineRunFlags(fs *flag.FlagSet) *runFlags {
	return &runFlags{
		shard:      fs.String("shard", "", "run only shard i of n (1 ≤ i ≤ n), e.g. 2/8; cells are dealt to shards by key, the same on every machine. In a Slurm job array: auto (the shard from $SLURM_ARRAY_TASK_ID, _MIN and _COUNT) or auto/N (the task ID is the shard number of N)"),
		results:    fs.String("results", "results", "results store directory (created if missing); finished cells go to DIR/cells/<key>.json"),
		dataDir:    fs.String("data-dir", "", "directory holding the data sets' files, or a root with one sub-directory per data set (default: $LLPFC_DATA; for fashion-mnist then /usr/share/datasets/fashion-mnist); not part of a cell's key"),
		list:       fs.Bool("list", false, "list the cells of the spec (shard) with their keys and whether they are finished, and exit without training"),
		printSpec:  fs.Bool("print-spec", false, "print the spec as JSON (e.g. a built-in one, to copy and edit) and exit"),
		device:     defineDevice(fs),
		saveModels: fs.Bool("save-models", false, "keep every cell's trained network in the store, as DIR/models/KEY.npz (weights PyTorch loads) with its manifest KEY.json, for 'llpfc predict --model DIR/models/KEY'"),
	}
}

func runRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("run SPEC [--shard i/n|auto|auto/N] [--results DIR] [--data-dir DIR] [--list | --print-spec | --check | --sbatch]", runSynopsis, stderr)
	f := defineRunFlags(fs)
	sf := defineSlurmFlags(fs)
	pos, ok, status := parsePositional(fs, args)
	if !ok {
		return status
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "llpfc run: want exactly one SPEC (a built-in name or a JSON file), got %d arguments\n", len(pos))
		fs.Usage()
		return exitBadUsage
	}
	spec, err := grid.LoadSpec(pos[0])
	if err != nil {
		return exitWith(stderr, "llpfc run", usageError{err})
	}
	if *f.printSpec {
		if *f.list { // --print-spec used to win silently
			return exitWith(stderr, "llpfc run", usagef("--list and --print-spec exclude each other: --print-spec prints the spec, --list its cells"))
		}
		return printSpecJSON(stdout, stderr, spec)
	}
	shard, err := parseShardFlag(*f.shard)
	if err != nil {
		return exitWith(stderr, "llpfc run", err)
	}
	if err := training.CheckDevice(*f.device); err != nil {
		return exitWith(stderr, "llpfc run", usagef("--device: %v", err))
	}
	if *f.list {
		return listCells(stdout, stderr, spec, shard, *f.results, *f.dataDir)
	}
	if *sf.check || *sf.sbatch {
		return sf.runSlurm(fs, args, stdout, stderr, slurmGrid{
			name: spec.Name, head: []string{"run", pos[0]}, spec: spec, shard: shard,
			results: *f.results, device: *f.device, dataDir: *f.dataDir,
		})
	}
	if err := guardIO(f.ioPlan(pos[0], spec)); err != nil {
		return exitWith(stderr, "llpfc run", err)
	}
	return f.run(stdout, stderr, spec, shard)
}

// ioPlan is what a grid run reads (the spec file, its data sets) and
// writes (the store's cells and models), for the output guard.
func (f *runFlags) ioPlan(specArg string, spec *grid.Spec) ioPlan {
	var p ioPlan
	if _, builtin := grid.BuiltinSpec(specArg); !builtin {
		p.read("SPEC", specArg)
	}
	for _, d := range spec.Datasets {
		p.readData("the spec's data set", d, *f.dataDir)
	}
	p.makeDirAs(storeOut, "--results", *f.results, nil, "cells", "models")
	return p
}

// printSpecJSON prints spec as indented JSON (--print-spec).
func printSpecJSON(stdout, stderr io.Writer, spec *grid.Spec) int {
	b, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return exitWith(stderr, "llpfc run", err)
	}
	fmt.Fprintf(stdout, "%s\n", b)
	return exitOK
}

// listCells prints the shard's cells of spec with their keys and status in
// the store at dir (--list). Listing only reads the store: it creates nothing
// (a refused or listed run leaves nothing behind). It first checks the spec against its data
// (Spec.CheckData), so that what would fail every cell fails here, as bad
// input; a named data set not found in dataDir is only noted, since a grid
// can be listed without its data.
func listCells(stdout, stderr io.Writer, spec *grid.Spec, shard grid.Shard, dir, dataDir string) int {
	store := &grid.Store{Dir: dir}
	cells, err := spec.Cells()
	if err != nil {
		return exitWith(stderr, "llpfc run", usageError{err})
	}
	missing, err := spec.CheckData(dataDir)
	if err != nil {
		return exitWith(stderr, "llpfc run", usageError{err})
	}
	for _, m := range missing {
		fmt.Fprintf(stderr, "llpfc run: note: %v (running the grid needs it)\n", m)
	}
	mine := shard.Select(cells)
	staleRs, _ := grid.Stale(finishedResults(mine, store), dataDir)
	stale := grid.StaleKeys(staleRs)
	if len(staleRs) > 0 {
		fmt.Fprintf(stderr, "llpfc run: note: %s\n", grid.StaleNote(staleRs, dataDir))
	}
	failed := failureRecords(store, stderr, "llpfc run")
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "key\tdataset\tmethod\tbag size\tseed\tstatus")
	for _, c := range mine {
		st := "todo"
		if stale[c.Key] {
			st = "stale (ran on other contents of its data: run refuses the store)"
		} else if store.Has(c.Key) {
			st = "done"
		} else if store.Damaged(c.Key) != nil {
			st = "damaged (set aside and rerun by the next run)"
		} else if f, ok := failed[c.Key]; ok {
			st = "failed when last run (tried again by the next run): " + brief(f.Error)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\n", c.Key, c.Config.Dataset, c.Config.Method, c.Config.BagSize, c.Config.Seed, st)
	}
	tw.Flush()
	return exitOK
}

// run trains the shard's pending cells of spec into --results and prints the
// summary.
func (f *runFlags) run(stdout, stderr io.Writer, spec *grid.Spec, shard grid.Shard) int {
	store, err := grid.OpenStore(*f.results)
	if err != nil {
		// As reproduce: a results directory that cannot be made is bad input.
		return exitWith(stderr, "llpfc run", usagef("--results: %v", err))
	}
	ctx, stop := interruptible("run", stderr)
	defer stop()
	r := &grid.Runner{Store: store, Shard: shard, DataDir: *f.dataDir, Log: stderr, Device: *f.device, SaveModels: *f.saveModels}
	sum, status := runGrid(ctx, "run", "cells", r, spec, stderr)
	if status != exitOK {
		return status
	}
	fmt.Fprintf(stdout, "spec %s, shard %s: %d of %d cells in this shard; %d run now, %d already finished, %d failed; results in %s\n",
		spec.Name, shard, sum.InShard, sum.Cells, sum.Finished, sum.Skipped, len(sum.Failed), *f.results)
	if sum.Remodelled > 0 {
		fmt.Fprintf(stdout, "--save-models: %d finished cells had no saved model and were trained again to save it (their stored results unchanged); models in %s\n",
			sum.Remodelled, filepath.Join(*f.results, "models"))
	}
	if sum.Unsaved > 0 {
		fmt.Fprintf(stderr, "llpfc run: note: --save-models keeps no model of %d of the cells: their learner or network has no PyTorch state dict to save (the logreg learner's linear model, llpgan-d)\n", sum.Unsaved)
	}
	if len(sum.Failed) > 0 {
		for _, e := range sum.Failed {
			fmt.Fprintf(stderr, "llpfc run: %v\n", e)
		}
		return exitFailed
	}
	return exitOK
}
