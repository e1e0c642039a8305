package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/internal/rng"
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
var reproduceSpecs = map[string]func() *experiments.Spec{
	"quick":                 builtin("quick"),
	"fashion-mnist":         builtin("fashion-mnist"),
	"fashion-mnist-shuffle": builtin("fashion-mnist-shuffle"),
	"wrn16-4":               builtin("wrn16-4"),
	"resnet18":              builtin("resnet18"),
	"vgg16":                 builtin("vgg16"),
	"llpgan":                builtin("llpgan"),
}

func builtin(name string) func() *experiments.Spec {
	return func() *experiments.Spec {
		s, ok := experiments.BuiltinSpec(name)
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
	spec                  *experiments.Spec
	shard                 experiments.Shard
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
		case grid == "quick": // issue 27: the message spoke of the paper's tables
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
			results: p.results, device: *f.device,
		})
	}
	mine := p.shard.Select(cells)
	if *f.asJSON {
		if !p.dryRun {
			return exitWith(stderr, "llpfc reproduce", usagef("--json goes with --dry-run: it prints the grid's cells instead of running them"))
		}
		return printCells(stdout, mine)
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

// openStore opens (creates) the results store; on --dry-run it only looks
// at what the directory already holds and creates nothing.
func (p *reproducePlan) openStore() (*experiments.Store, error) {
	if p.dryRun {
		return &experiments.Store{Dir: p.results}, nil
	}
	store, err := experiments.OpenStore(p.results)
	if err != nil {
		return nil, usagef("--results: %v", err)
	}
	return store, nil
}

// pendingCells returns the cells store does not hold yet.
func pendingCells(cells []experiments.Cell, store *experiments.Store) []experiments.Cell {
	var todo []experiments.Cell
	for _, c := range cells {
		if !store.Has(c.Key) {
			todo = append(todo, c)
		}
	}
	return todo
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
func (p *reproducePlan) run(ctx context.Context, stdout, stderr io.Writer, store *experiments.Store) int {
	r := &experiments.Runner{Store: store, Shard: p.shard, DataDir: p.dataDir, Log: stderr}
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
func (p *reproducePlan) report(stdout io.Writer, store *experiments.Store) error {
	stores := []*experiments.Store{store}
	for _, c := range reportCompanions(p.grid, filepath.Dir(p.results)) {
		if p.custom {
			break // the companions hold the grid's own data set
		}
		stores = append(stores, &experiments.Store{Dir: c})
	}
	files, md, err := experiments.WriteReports(stores, p.out)
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

// planEstimate is the compute estimate of a grid's pending cells.
type planEstimate struct {
	// InstanceEpochs is Σ over the pending cells of epochs × training points,
	// times exactBNFactor.
	InstanceEpochs int64
	// Rates holds one measured throughput per (model, input shape).
	Rates []measuredRate
	// Seconds is the estimated training time on this machine.
	Seconds float64
	// Failed lists the (model, shape) groups whose measurement failed; their
	// cells are not in Seconds.
	Failed []string
	// CellSeconds is each measured cell's share of Seconds, by key (the
	// Slurm job script's time limit is its slowest shard's sum: sbatch.go).
	CellSeconds map[string]float64
}

type measuredRate struct {
	Model, Shape   string
	BatchSize      int
	ImagesPerSec   float64
	PeakRSS        int64
	InstanceEpochs int64
}

func (e planEstimate) print(w io.Writer) {
	fmt.Fprintf(w, "  work: %d instance-epochs (Σ over the runs of epochs × training points; kl and llpvat with K batch-norm layers and a bag minibatch larger than a chunk count K + 1 times: exact whole-minibatch statistics)\n", e.InstanceEpochs)
	for _, r := range e.Rates {
		fmt.Fprintf(w, "  measured on this machine: %s on %s inputs, LLPFC minibatch %d: %.1f training images/s, process peak RSS %.0f MiB (%d instance-epochs)\n",
			r.Model, r.Shape, r.BatchSize, r.ImagesPerSec, float64(r.PeakRSS)/(1<<20), r.InstanceEpochs)
	}
	for _, f := range e.Failed {
		fmt.Fprintf(w, "  cannot train %s; those runs are left out of the estimate and will fail\n", f)
	}
	h := e.Seconds / 3600
	cores := runtime.NumCPU()
	fmt.Fprintf(w, "  estimate: %s of this machine (%d cores), i.e. %.3g CPU-hours; KL and LLP-VAT take more time per instance than LLPFC, so read it as a lower bound\n",
		fmtHours(h), cores, h*float64(cores))
}

func fmtHours(h float64) string {
	switch {
	case h < 1.0/60:
		return fmt.Sprintf("%.0f seconds", h*3600)
	case h < 1:
		return fmt.Sprintf("%.1f minutes", h*60)
	case h < 48:
		return fmt.Sprintf("%.1f hours", h)
	case h < 24*365:
		return fmt.Sprintf("%.0f hours (%.1f days)", h, h/24)
	}
	return fmt.Sprintf("%.0f hours (%.1f years)", h, h/24/365)
}

// estimate measures, for every model and input shape of the pending cells,
// the training throughput of a few LLPFC minibatches on this machine
// (measureRate) and divides each cell's instance-epochs by it.
func estimate(ctx context.Context, todo []experiments.Cell) (planEstimate, error) {
	type group struct {
		cell  experiments.Cell // a representative cell
		shape inputShape
		work  int64
		cells map[string]int64 // each cell's instance-epochs, by key
	}
	groups := map[string]*group{}
	bnLayers := map[string]int{}
	var order []string
	var est planEstimate
	for _, c := range todo {
		shape, err := shapeOf(c.Config.Dataset, c.DataDir)
		if err != nil {
			return est, err
		}
		k := c.Config.Model + "\x00" + shape.String()
		g := groups[k]
		if g == nil {
			g = &group{cell: c, shape: shape, cells: map[string]int64{}}
			groups[k] = g
			order = append(order, k)
		}
		// Prefer an LLPFC cell as the representative: its batch size counts
		// instances.
		if !experiments.CountsInstances(g.cell.Config.Method) && experiments.CountsInstances(c.Config.Method) {
			g.cell = c
		}
		f, err := exactBNFactor(c.Config, shape, bnLayers)
		if err != nil {
			return est, err
		}
		w := f * int64(c.Config.Hyper.Epochs) * int64(c.Config.NumPoints)
		g.work += w
		g.cells[c.Key] += w
		est.InstanceEpochs += w
	}
	sort.Strings(order)
	est.CellSeconds = map[string]float64{}
	for _, k := range order {
		g := groups[k]
		ips, batch, err := measureRate(ctx, g.cell.Config, g.shape)
		if err != nil {
			if ctx.Err() != nil {
				return est, err
			}
			// The plan goes on: the cells of this group will fail the same way.
			est.Failed = append(est.Failed, fmt.Sprintf("%s on %s inputs (%d instance-epochs): %v", g.cell.Config.Model, g.shape, g.work, err))
			continue
		}
		est.Rates = append(est.Rates, measuredRate{Model: g.cell.Config.Model, Shape: fedShape(g.cell.Config.Model, g.shape),
			BatchSize: batch, ImagesPerSec: ips, PeakRSS: experiments.PeakRSSBytes(), InstanceEpochs: g.work})
		est.Seconds += float64(g.work) / ips
		for key, w := range g.cells {
			est.CellSeconds[key] += float64(w) / ips
		}
	}
	return est, nil
}

// fedShape names the shape the model is fed: s, or s resized to what the
// model takes (experiments.InputSide).
func fedShape(model string, s inputShape) string {
	fed := s
	fed.H, fed.W = experiments.InputSide(model, fed.H, fed.W)
	if fed != s {
		return s.String() + " resized to " + fed.String()
	}
	return fed.String()
}

// exactBNFactor is the cost of a cell's training relative to LLPFC's per
// instance-epoch as the estimate counts it: K + 1 for kl and llpvat with a
// model of K batch-norm layers when a minibatch of bags spans several chunks
// and the statistics are the minibatch's (training.BatchNormLayers: the
// statistics and adjoint sweeps), else 1. cache holds K per model and shape.
func exactBNFactor(c experiments.Config, s inputShape, cache map[string]int) (int64, error) {
	if !experiments.UsesKL(c.Method) || c.Hyper.BNStats == string(training.BNStatsChunk) ||
		c.BagSize*c.Hyper.BatchSize <= training.DefaultChunkSize || s.C == 0 {
		return 1, nil
	}
	key := c.Model + "\x00" + s.String()
	k, ok := cache[key]
	if !ok {
		h, w := experiments.InputSide(c.Model, s.H, s.W)
		var err error
		k, err = training.BatchNormLayers(training.ModelSpec{Name: c.Model, Channels: s.C, Height: h, Width: w, NumClasses: s.Classes})
		if err != nil {
			return 0, fmt.Errorf("estimate for %s: %w", c.Model, err)
		}
		cache[key] = k
	}
	return int64(k + 1), nil
}

// inputShape is a data set's instance shape and number of classes.
type inputShape struct{ C, H, W, Features, Classes int }

func (s inputShape) String() string {
	if s.C > 0 {
		return fmt.Sprintf("%d×%d×%d", s.C, s.H, s.W)
	}
	return fmt.Sprintf("%d-feature", s.Features)
}

// knownShapes are the shapes of the named data sets, so that a plan can be
// estimated before the data are downloaded.
var knownShapes = map[string]inputShape{
	"cifar10":               {C: 3, H: 32, W: 32, Classes: 10},
	"svhn":                  {C: 3, H: 32, W: 32, Classes: 10},
	"emnist-letters":        {C: 1, H: 28, W: 28, Classes: 26},
	"fashion-mnist":         {C: 1, H: 28, W: 28, Classes: 10},
	"mnist":                 {C: 1, H: 28, W: 28, Classes: 10},
	"fixture":               {C: 1, H: 28, W: 28, Classes: 10},
	"fashion-mnist-fixture": {C: 1, H: 28, W: 28, Classes: 10},
}

// shapeOf returns the input shape of a data set: known for the named sets,
// else read from the data.
func shapeOf(name, dataDir string) (inputShape, error) {
	if s, ok := knownShapes[name]; ok {
		return s, nil
	}
	dir, err := data.Resolve(name, dataDir)
	if err != nil {
		return inputShape{}, err
	}
	d, err := data.Load(name, dir, data.Test)
	if err != nil {
		return inputShape{}, err
	}
	s := inputShape{C: d.Channels, H: d.Height, W: d.Width, Classes: d.NumClasses}
	if d.Channels == 0 {
		s.Features = d.D
	}
	return s, nil
}

// measureBatch caps the minibatch of measureRate for the deep networks
// (the small mlp and cnn are timed at the cell's own minibatch, where the
// per-step overhead would dominate a tiny one).
const measureBatch = 8

// measureRate trains cell c's model with llpfc-uniform and c's
// hyperparameters for one epoch of two minibatches (of at most measureBatch
// instances for the deep networks) on random inputs of the given shape, and returns the measured training throughput (instances per
// second of optimizer steps, as training.Result reports it) and the
// minibatch size. The numbers are random: only the time counts.
func measureRate(ctx context.Context, c experiments.Config, s inputShape) (float64, int, error) {
	if !experiments.CountsInstances(c.Method) {
		c.Hyper.BatchSize = 128 // a baseline's batch counts bags; LLPFC's (App.) is 128 instances
	}
	c.Method = training.MethodLLPFCUniform
	c.Hyper.Epochs = 1
	c.Hyper.Schedule = experiments.Schedule{Kind: "constant"}
	c.Hyper.Augment = false
	cfg, err := experiments.TrainingConfig(c)
	if err != nil {
		return 0, 0, err
	}
	// The time of a step is linear in the minibatch size, but gorgonia's
	// memory for a deep network at the appendix's 128 or 256 images is tens
	// of GB: measure with at most measureBatch images per step, and
	// evaluate in batches as small.
	batch := cfg.BatchSize
	if c.Model != training.ModelMLP && c.Model != training.ModelCNN {
		batch = min(batch, measureBatch)
	}
	cfg.BatchSize, cfg.EvalBatch = batch, batch
	s.H, s.W = experiments.InputSide(c.Model, s.H, s.W)
	res, err := training.Train(ctx, cfg, throughputData(s, batch), nil)
	if err != nil {
		return 0, 0, err
	}
	if !(res.TrainImagesPerSecond > 0) {
		return 0, 0, fmt.Errorf("no throughput measured (%v images/s)", res.TrainImagesPerSecond)
	}
	return res.TrainImagesPerSecond, batch, nil
}

// throughputData returns measureRate's random training data of shape s:
// Classes bags (one LLPFC group) of equal size covering two minibatches of
// batch instances.
func throughputData(s inputShape, batch int) *training.TrainData {
	per := (2*batch + s.Classes - 1) / s.Classes
	n := per * s.Classes
	dim := s.Features
	if s.C > 0 {
		dim = s.C * s.H * s.W
	}
	r := rng.New(0, "reproduce/throughput")
	td := &training.TrainData{X: make([]float32, n*dim), Channels: s.C, Height: s.H, Width: s.W, Features: s.Features,
		TestX: make([]float32, dim), TestY: []int{0}}
	for i := range td.X {
		td.X[i] = r.Float32()
	}
	td.Bags = &estimators.BagSet{NumClasses: s.Classes}
	for k := 0; k < s.Classes; k++ {
		// Bag k is 1/2 class k and 1/2 uniform, so the bags' proportion
		// matrix is invertible.
		p := make([]float64, s.Classes)
		for j := range p {
			p[j] = 0.5 / float64(s.Classes)
		}
		p[k] += 0.5
		idx := make([]int, per)
		for i := range idx {
			idx[i] = k*per + i
		}
		td.Bags.Bags = append(td.Bags.Bags, estimators.Bag{ID: k, Size: per, Proportions: p, Indices: idx})
	}
	return td
}

// reportCompanions returns the other result stores under root whose cells a
// grid's report reads too: the shuffle-protocol table of issue 16 is set
// beside the paper-protocol one (results/fashion-mnist) when that store
// exists, so that its trouble plot shows both protocols.
func reportCompanions(grid, root string) []string {
	if grid != "fashion-mnist-shuffle" {
		return nil
	}
	dir := filepath.Join(root, "fashion-mnist")
	if st, err := os.Stat(filepath.Join(dir, "cells")); err != nil || !st.IsDir() {
		return nil
	}
	return []string{dir}
}

// printCells writes cells as an indented JSON array of {"key", "config"}:
// every setting of every run, so a table cell can be checked against the
// paper and the authors' code before any training (issue 20).
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
