package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/experiments/report"
	"github.com/llpfc/llpfc/training"
)

func init() {
	register(command{
		name:    "reproduce",
		summary: "run the paper's experiment end to end (--quick: the embedded Fashion-MNIST default)",
		run:     runReproduce,
	})
}

// reproduceSpecs are the grids reproduce runs: "quick" and the paper's
// Tables 1–4. Tests replace an entry to run a miniature grid through the same
// code path.
var reproduceSpecs = map[string]func() *grid.Spec{
	"quick":                 builtin("quick"),
	"fashion-mnist":         builtin("fashion-mnist"),
	"fashion-mnist-shuffle": builtin("fashion-mnist-shuffle"),
	"wrn16-4":               builtin("wrn16-4"),
	"resnet18":              builtin("resnet18"),
	"vgg16":                 builtin("vgg16"),
	"llpgan":                builtin("llpgan"),
}

func builtin(name string) func() *grid.Spec {
	return func() *grid.Spec {
		s, ok := grid.BuiltinSpec(name)
		if !ok {
			panic("llpfc: no built-in spec " + name)
		}
		return s
	}
}

// paperTables are the --table choices and what each reproduces; gpu marks
// the paper's GPU-scale tables.
var paperTables = []struct {
	name, table string
	gpu         bool
}{
	{"fashion-mnist", "Section 6 in miniature on full Fashion-MNIST (mlp, CPU-sized)", false},
	{"fashion-mnist-shuffle", "where LLPFC breaks: Fashion-MNIST with near-uniform (shuffle) bags", false},
	{"wrn16-4", "Table 1 (Wide ResNet-16-4)", true},
	{"resnet18", "Table 2 (ResNet18)", true},
	{"vgg16", "Table 3 (VGG16)", true},
	{"llpgan", "Table 4 (LLPGAN discriminator)", true},
}

// gpuTable reports whether grid is one of the paper's GPU-scale tables.
func gpuTable(grid string) bool {
	for _, t := range paperTables {
		if t.name == grid {
			return t.gpu
		}
	}
	return false
}

const gpuStatement = `The paper's runs used a GPU ("All models are trained on a single Nvidia Tesla v100 GPU
with 16GB RAM", Section 6); llpfc trains in float32 on the CPU unless --device opencl names a GPU.`

const reproduceSynopsis = `Runs the paper's experiment end to end: bags drawn by the paper's protocol (Section 6),
LLPFC against the baselines across bag sizes, then a markdown table (test accuracy mean ± std
over seeds, one row per method, one column per bag size), a report and a PNG plot.

--quick (the default) runs the small grid on the embedded Fashion-MNIST fixture: the mlp,
LLPFC-uniform, LLPFC-approx and KL at bag sizes 64, 512 and 2048, two seeds; it needs no data
files and takes a few minutes on two cores.

--table fashion-mnist runs the paper's Section 6 comparison in miniature on the full
Fashion-MNIST (Debian's dataset-fashion-mnist, or --data-dir): KL, LLP-VAT, LLPFC-ideal/uniform/
approx and a supervised ceiling, bag sizes 32…2048, 3 seeds, the mlp, 10 epochs of Adam (a few
CPU-hours). --table fashion-mnist-shuffle runs the same with near-uniform (shuffle) bags, where
LLPFC's noise matrices are nearly singular.

--table T for T = wrn16-4 (Table 1), resnet18 (Table 2), vgg16 (Table 3) or llpgan (Table 4) runs
the grid of one of the paper's tables with the appendix's hyperparameters on CIFAR10, SVHN and
EMNIST letters read from --data-dir (or $LLPFC_DATA). --table binary runs the appendix's kernel
experiment (Table tab:binary exp; see 'llpfc reproduce --table binary --help'). Before it starts,
it prints the number of
runs and an estimate of the compute time from the throughput it measures on this machine.
` + gpuStatement + `

Every finished cell is stored at once (DIR/cells/<key>.json, atomically), so an interrupted run
resumes where it stopped and a second invocation only prints the report. --shard i/n runs a
deterministic part of the grid; merge the shard stores with 'llpfc merge' and render them with
'llpfc report' (or run 'llpfc reproduce' on the merged store: it finds every cell finished).
On a Slurm cluster, --sbatch prints a job script for the table (a job array of --shards tasks
and a merge + report job after it; save it and run it with bash), with a time limit from the
dry run's estimate; inside a job array, --shard auto takes the shard from Slurm's variables.
Progress goes to standard error, the table to standard output. Exit status 1 if a cell failed.`

// reproduceFlags are `llpfc reproduce`'s flags (but --table binary's:
// reproduce_binary.go).
type reproduceFlags struct {
	quick, dryRun, asJSON                                    *bool
	table, results, out, dataDir, shard, model, device, data *string
}

// tableNames are the --table choices.
func tableNames() []string {
	var names []string
	for _, t := range paperTables {
		names = append(names, t.name)
	}
	return names
}

func defineReproduceFlags(fs *flag.FlagSet) *reproduceFlags {
	f := &reproduceFlags{}
	f.quick = fs.Bool("quick", false, "run the quick grid on the embedded Fashion-MNIST fixture (the default when --table is not given)")
	f.table = fs.String("table", "", "run one table's grid: "+strings.Join(tableNames(), ", ")+" (fashion-mnist: Section 6 in miniature on full Fashion-MNIST; the others: the paper's Tables 1–4 with the appendix's settings)")
	f.results = fs.String("results", "", "results store directory, created if missing; finished cells are kept there and skipped on the next run (default results/<grid>, e.g. results/quick)")
	f.out = fs.String("out", "", "directory for report.md and the PNG plot (default reports/<grid>, e.g. reports/quick)")
	f.dataDir = fs.String("data-dir", "", "directory holding the data sets' files, or a root with one sub-directory per data set (default $LLPFC_DATA; --quick needs none)")
	f.shard = fs.String("shard", "", "run only shard i of n (1 ≤ i ≤ n, e.g. 3/8): the cells are dealt to shards by key, the same way on every machine; combine the stores with 'llpfc merge'. In a Slurm job array: auto (the shard from $SLURM_ARRAY_TASK_ID, _MIN and _COUNT) or auto/N (the task ID is the shard number of N)")
	f.model = fs.String("model", "", "the network of the Fashion-MNIST tables (--table fashion-mnist or fashion-mnist-shuffle): mlp (their default) or cnn; a cell's model is part of its key, so the two never mix in one store")
	f.dryRun = fs.Bool("dry-run", false, "print the plan (number of runs, the measured throughput and the compute-time estimate) and exit without training")
	f.asJSON = fs.Bool("json", false, "with --dry-run: print every cell of the grid (this shard's) as JSON — its key and full configuration — instead of the plan, without measuring anything")
	f.device = defineDevice(fs)
	f.data = fs.String("data", "", "run the grid's methods on your own data instead (--quick and the Fashion-MNIST tables): a bag-only set bags:PATH (its own bags: one run per seed and method; the supervised ceiling is left out) or a labelled set (the grid's protocol, bag sizes and points); see llpfc train -h for the names. Default results and reports: results/<grid>-data, reports/<grid>-data")
	return f
}

// reproducePlan is what reproduce runs once its flags are checked.
type reproducePlan struct {
	grid                  string
	spec                  *grid.Spec
	shard                 grid.Shard
	results, out, dataDir string
	dryRun                bool
	// custom is set by --data: the grid runs on the user's data set.
	custom bool
}

// plan checks the flags and returns the grid they name, with the default
// directories filled in. Every error is a usageError.
func (f *reproduceFlags) plan() (*reproducePlan, error) {
	grid := "quick"
	if *f.table != "" {
		if *f.quick {
			return nil, usagef("--quick and --table are exclusive: --quick runs the small Fashion-MNIST grid, --table one of the paper's")
		}
		if _, ok := reproduceSpecs[*f.table]; !ok || *f.table == "quick" {
			return nil, usagef("--table %q: unknown, want one of %s", *f.table, strings.Join(tableNames(), ", "))
		}
		grid = *f.table
	}
	p := &reproducePlan{grid: grid, spec: reproduceSpecs[grid](), results: *f.results, out: *f.out, dataDir: *f.dataDir, dryRun: *f.dryRun}
	if *f.model != "" {
		switch {
		case grid == "quick": // the message once spoke of the paper's tables, which the quick grid is not
			return nil, usagef("--model applies to --table fashion-mnist and --table fashion-mnist-shuffle; the quick grid trains the mlp (to change its model, print it with 'llpfc run quick --print-spec', edit the JSON and run the file with 'llpfc run')")
		case grid != "fashion-mnist" && grid != "fashion-mnist-shuffle":
			return nil, usagef("--model applies to --table fashion-mnist and --table fashion-mnist-shuffle; the paper's tables (--table %s) fix their networks", grid)
		}
		if *f.model != training.ModelMLP && *f.model != training.ModelCNN {
			return nil, usagef("--model %q: want mlp or cnn", *f.model)
		}
		p.spec.Model = *f.model
	}
	if err := training.CheckDevice(*f.device); err != nil {
		return nil, usagef("--device: %v", err)
	}
	p.spec.Device = *f.device
	if err := p.ownData(*f.data); err != nil {
		return nil, err
	}
	var err error
	if p.shard, err = parseShardFlag(*f.shard); err != nil {
		return nil, err
	}
	suffix := ""
	if p.custom {
		suffix = "-data"
	}
	if p.results == "" {
		p.results = filepath.Join("results", grid+suffix)
	}
	if p.out == "" {
		p.out = filepath.Join("reports", grid+suffix)
	}
	return p, nil
}

func runReproduce(args []string, stdout, stderr io.Writer) int {
	if isBinaryTable(args) { // the kernel experiment: reproduce_binary.go
		return runReproduceBinary(args, stdout, stderr)
	}
	fs := newFlagSet("reproduce [--quick | --table T] [--results DIR] [--out DIR] [--data-dir DIR] [--shard i/n|auto|auto/N] [--dry-run [--json] | --check | --sbatch]", reproduceSynopsis, stderr)
	f := defineReproduceFlags(fs)
	sf := defineSlurmFlags(fs)
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	p, err := f.plan()
	if err != nil {
		return exitWith(stderr, "llpfc reproduce", err)
	}
	cells, err := p.spec.Cells()
	if err != nil {
		return exitWith(stderr, "llpfc reproduce", err)
	}
	if *sf.check || *sf.sbatch {
		return sf.runSlurm(fs, args, stdout, stderr, slurmGrid{
			name: p.grid, head: []string{"reproduce"}, reproduce: true, spec: p.spec, shard: p.shard,
			results: p.results, device: *f.device, dataDir: p.dataDir,
		})
	}
	mine := p.shard.Select(cells)
	if *f.asJSON {
		if !p.dryRun {
			return exitWith(stderr, "llpfc reproduce", usagef("--json goes with --dry-run: it prints the grid's cells instead of running them"))
		}
		return printCells(stdout, mine)
	}
	if !p.dryRun {
		if err := guardIO(p.ioPlan()); err != nil {
			return exitWith(stderr, "llpfc reproduce", err)
		}
	}
	store, err := p.openStore()
	if err != nil {
		return exitWith(stderr, "llpfc reproduce", err)
	}
	todo := pendingCells(mine, store)
	ctx, stop := interruptible("reproduce", stderr)
	defer stop()
	if status, ok := p.announce(ctx, stderr, len(cells), len(mine), todo); !ok || p.dryRun {
		return status
	}
	return p.run(ctx, stdout, stderr, store)
}

// ioPlan is what the grid reads (its data sets) and writes (the store's
// cells and models, the report), for the output guard.
func (p *reproducePlan) ioPlan() ioPlan {
	var plan ioPlan
	for _, d := range p.spec.Datasets {
		flag := "the grid's data set"
		if p.custom {
			flag = "--data"
		}
		plan.readData(flag, d, p.dataDir)
	}
	plan.makeDirAs(storeOut, "--results", p.results, nil, "cells", "models")
	plan.makeDirAs(reportOut, "--out", p.out, []string{"report.md"})
	return plan
}

// openStore opens (creates) the results store; on --dry-run it only looks
// at what the directory already holds and creates nothing.
func (p *reproducePlan) openStore() (*grid.Store, error) {
	if p.dryRun {
		return &grid.Store{Dir: p.results}, nil
	}
	store, err := grid.OpenStore(p.results)
	if err != nil {
		return nil, usagef("--results: %v", err)
	}
	return store, nil
}

// announce prints the plan to stderr: the number of runs, and for the
// paper's tables the GPU statement and any missing data set; before a
// paper table's runs, or on --dry-run, the compute estimate. It returns
// ok=false and the exit status when reproduce must stop.
func (p *reproducePlan) announce(ctx context.Context, stderr io.Writer, total, mine int, todo []experiments.Cell) (status int, ok bool) {
	spec := p.spec
	fmt.Fprintf(stderr, "llpfc reproduce %s: %s\n", p.grid, spec.Description)
	sizes := fmt.Sprintf("%d bag sizes", len(spec.BagSizes))
	if len(spec.BagSizes) == 0 {
		sizes = "its own bags"
	}
	fmt.Fprintf(stderr, "  %d runs (%s × %d seeds × %s × %d methods)", total,
		strings.Join(spec.Datasets, ", "), len(spec.Seeds), sizes, len(spec.Methods))
	if p.shard.Count > 1 {
		fmt.Fprintf(stderr, "; shard %s holds %d", p.shard, mine)
	}
	fmt.Fprintf(stderr, "; %d already in %s, %d to run\n", mine-len(todo), p.results, len(todo))
	if p.grid != "quick" {
		if gpuTable(p.grid) {
			fmt.Fprintln(stderr, "  "+strings.ReplaceAll(gpuStatement, "\n", "\n  "))
		}
		if p.dataMissing(stderr) && !p.dryRun && len(todo) > 0 {
			fmt.Fprintln(stderr, "llpfc reproduce: data sets missing (see above); nothing was run")
			return exitBadUsage, false
		}
	}
	if len(todo) > 0 && (p.grid != "quick" || p.dryRun) {
		est, err := estimate(ctx, todo)
		if err != nil {
			fmt.Fprintf(stderr, "llpfc reproduce: measuring throughput: %v\n", err)
			return exitFailed, false
		}
		est.print(stderr)
	}
	return exitOK, true
}

// dataMissing prints a line for every data set of the grid not found and
// reports whether there was one.
func (p *reproducePlan) dataMissing(stderr io.Writer) bool {
	missing := false
	for _, d := range p.spec.Datasets {
		if _, err := data.Resolve(d, p.dataDir); err != nil {
			fmt.Fprintf(stderr, "  data: %v\n", err)
			missing = true
		}
	}
	return missing
}

// run trains the pending cells into store, then writes and prints the
// report. Exit status 1 if a cell failed.
func (p *reproducePlan) run(ctx context.Context, stdout, stderr io.Writer, store *grid.Store) int {
	r := &grid.Runner{Store: store, Shard: p.shard, DataDir: p.dataDir, Log: stderr}
	sum, status := runGrid(ctx, "reproduce", "runs", r, p.spec, stderr)
	if status != exitOK {
		return status
	}
	for _, f := range sum.Failed {
		fmt.Fprintf(stderr, "llpfc reproduce: %v\n", f)
		status = exitFailed
	}
	fmt.Fprintf(stderr, "llpfc reproduce %s: %d runs now, %d already finished, %d failed\n", p.grid, sum.Finished, sum.Skipped, len(sum.Failed))
	if err := p.report(stdout, store); err != nil {
		return exitWith(stderr, "llpfc reproduce", err)
	}
	return status
}

// report writes the report of store, with the companion stores of the
// grid, and prints it with the paths of its files.
func (p *reproducePlan) report(stdout io.Writer, store *grid.Store) error {
	stores := []*grid.Store{store}
	for _, c := range reportCompanions(p.grid, filepath.Dir(p.results)) {
		if p.custom {
			break // the companions hold the grid's own data set
		}
		stores = append(stores, &grid.Store{Dir: c})
	}
	files, md, err := report.WriteReports(stores, p.out)
	if err != nil {
		return fmt.Errorf("report: %v", err)
	}
	stdout.Write(md)
	if p.shard.Count > 1 {
		fmt.Fprintf(stdout, "This is shard %s only: merge the shard stores with 'llpfc merge --out DIR STORE...' and run 'llpfc report --results DIR'.\n\n", p.shard)
	}
	fmt.Fprintf(stdout, "report: %s\n", files.Markdown)
	for _, pl := range files.Plots {
		fmt.Fprintf(stdout, "plot:   %s\n", pl)
	}
	return nil
}

// reportCompanions returns the other result stores under root whose cells a
// grid's report reads too: a shuffle-protocol table (the near-uniform
// bags where LLPFC breaks, and the tuned comparison's) is set beside its paper-protocol one when that
// store exists, so that its trouble plot shows both protocols, and the
// step-matched runs beside the tuned comparison they check.
func reportCompanions(grid, root string) []string {
	companion, ok := map[string]string{
		"fashion-mnist-shuffle":              "fashion-mnist",
		"fashion-mnist-shuffle-tuned":        "fashion-mnist-tuned",
		"fashion-mnist-step-matched":         "fashion-mnist-tuned",
		"fashion-mnist-shuffle-step-matched": "fashion-mnist-shuffle-tuned",
		"fashion-mnist-steps":                "fashion-mnist-tuned",
		"fashion-mnist-shuffle-steps":        "fashion-mnist-shuffle-tuned",
	}[grid]
	if !ok {
		return nil
	}
	dir := filepath.Join(root, companion)
	if st, err := os.Stat(filepath.Join(dir, "cells")); err != nil || !st.IsDir() {
		return nil
	}
	return []string{dir}
}

// printCells writes cells as an indented JSON array of {"key", "config"}:
// every setting of every run, so a table cell can be checked against the
// paper and the authors' code before any training.
func printCells(w io.Writer, cells []experiments.Cell) int {
	type cellJSON struct {
		Key    string             `json:"key"`
		Config experiments.Config `json:"config"`
	}
	out := make([]cellJSON, len(cells))
	for i, c := range cells {
		out[i] = cellJSON{c.Key, c.Config}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return exitFailed
	}
	return exitOK
}

// ownData points the plan's grid at the data set --data names (nothing
// when empty): a bag-only set is trained on its own bags (no bag sizes or
// points; the supervised ceiling, which needs labels, left out), a
// labelled set with the grid's protocol, bag sizes and points.
func (p *reproducePlan) ownData(name string) error {
	if name == "" {
		return nil
	}
	if gpuTable(p.grid) {
		return usagef("--data applies to --quick and the Fashion-MNIST tables; the paper's tables (--table %s) fix their data sets", p.grid)
	}
	p.custom = true
	s := p.spec
	s.Datasets = []string{name}
	if experiments.IsBagOnly(name) {
		s.Protocol, s.BagSizes, s.NumPoints, s.Shortfall = experiments.GivenProtocol, nil, 0, ""
		var methods []string
		for _, m := range s.Methods {
			if !experiments.UsesLabels(m) {
				methods = append(methods, m)
			}
		}
		s.Methods = methods
	}
	s.Description = ownDataDescription(p.grid, s)
	return nil
}

// ownDataDescription describes a grid put on the user's data (--data) from
// the spec itself: the grid's name stands for its methods and settings,
// never for its own data set (reproduce --quick --data bags:… once
// announced the Fashion-MNIST fixture and its bag sizes).
func ownDataDescription(grid string, s *grid.Spec) string {
	bags := "its own bags (protocol given)"
	if len(s.BagSizes) > 0 {
		sizes := make([]string, len(s.BagSizes))
		for i, b := range s.BagSizes {
			sizes[i] = fmt.Sprint(b)
		}
		bags = fmt.Sprintf("bags of %s by protocol %s", strings.Join(sizes, ", "), s.Protocol)
	}
	return fmt.Sprintf("the %s grid's methods on %s: %s, %s, %s, %d seeds, %d epochs of %s",
		grid, s.Datasets[0], s.Model, strings.Join(s.Methods, ", "), bags, len(s.Seeds), s.Hyper.Epochs, s.Hyper.Optimizer)
}
