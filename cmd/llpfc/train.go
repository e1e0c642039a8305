package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/experiments/learn"
	"github.com/llpfc/llpfc/internal/atomicfile"
	"github.com/llpfc/llpfc/training"
)

func init() {
	register(command{name: "train", summary: "train one LLP method on a data set and report test accuracy", run: runTrain})
}

// trainSynopsis is train's -h text; its list of methods is the registry's
// (methodsList), so a new method shows in it with no edit here.
var trainSynopsis = `Draws bags from the training split of a data set (or reads a bags file, or takes the bags of a
bag-only data set: --data bags:PATH), trains one method and reports the accuracy on the labelled
test split. The methods (llpfc methods describes each, with its default minibatch):
` + methodsList() + `
Bag-level methods are memory-bounded: bags are evaluated in chunks of --chunk-size instances.
Training is float32, on the CPU unless --device names an OpenCL device. Progress goes to standard
error; with --json the last line of standard output is one JSON object with test_accuracy,
epochs, wall_seconds, train_images_per_second, peak_rss_bytes and settings (every setting that
makes two results incomparable, as the checkpoint keys them). With --out DIR the run
writes a checkpoint DIR/checkpoint.gob after every epoch and DIR/result.json at the end (both
atomically); --resume continues from the checkpoint, and is refused when any setting differs. Exit status 2 on bad flags or input, 1 if training fails.`

// trainRun is what `llpfc train` runs once its flags are parsed and checked:
// the run's configuration — a one-cell experiments.Config, the one
// description of a run that a grid cell has too — and the
// settings of the data and the output that only a single run has. parseTrain
// builds it without reading any data, so a test can compare it with the
// table cell a preset names (TestTrainPresetIsTheTableCell).
type trainRun struct {
	cell          experiments.Config
	dsName, dir   string // --data as the messages name it ("fixture", or the set a directory holds) and its directory
	bagsFile      string
	evalEvery     int
	device        string // --device: the compute back end
	saveModel     string // --save-model: where the trained network goes
	resume        bool
	resumedEpochs int // the epochs the checkpoint held when --resume continued it
	out           string
	asJSON, quiet bool
	given         map[string]bool
}

func runTrain(args []string, stdout, stderr io.Writer) (status int) {
	r, status := parseTrain(args, stderr)
	if r == nil {
		return status
	}
	return r.run(args, stdout, stderr)
}

// parseTrain parses and checks train's flags, applies --preset, and
// returns the run (nil and the exit status when the flags are wrong or ask
// for help).
func parseTrain(args []string, stderr io.Writer) (*trainRun, int) {
	fs := newFlagSet("train --data NAME|DIR --method M --model M --bag-size B --num-points N --epochs E [flags]", trainSynopsis, stderr)
	f := defineTrainFlags(fs)
	if ok, status := parseFlags(fs, args); !ok {
		return nil, status
	}
	fail := func(err error) (*trainRun, int) {
		fmt.Fprintf(stderr, "llpfc train: %v\n", err)
		return nil, exitBadUsage
	}
	given := givenFlags(fs)
	if *f.name == "" {
		return fail(errors.New("--data is required (e.g. --data fixture)"))
	}
	dsName, dir := *f.name, *f.dataDir
	if st, err := os.Stat(dsName); err == nil && st.IsDir() {
		if dsName, dir, err = namedSetIn(dsName); err != nil {
			return fail(fmt.Errorf("--data %s: %v", *f.name, err))
		}
	}
	var preset *experiments.Schedule
	if *f.preset != "" {
		var err error
		if preset, err = f.applyPreset(given, dsName); err != nil {
			return fail(err)
		}
	}
	if err := f.check(given); err != nil {
		return fail(err)
	}
	sched, err := f.schedule(preset)
	if err != nil {
		return fail(err)
	}
	r, err := f.build(given, dsName, dir, sched)
	if err != nil {
		return fail(err)
	}
	return r, exitOK
}

// run loads the data, draws or reads the bags, trains the cell through
// learn.RunCell — the path every grid cell takes — and reports.
func (r *trainRun) run(args []string, stdout, stderr io.Writer) (status int) {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "llpfc train: %v\n", err)
		return exitBadUsage
	}
	if err := guardIO(r.ioPlan()); err != nil {
		return fail(err)
	}
	prob, err := r.problem()
	if err != nil {
		return fail(err)
	}
	opt := learn.RunOptions{EvalEvery: r.evalEvery, Resume: r.resume, Progress: r.progress(stderr), Device: r.device, KeepModel: r.saveModel != ""}
	if r.out != "" {
		done, err := r.checkOut(prob)
		if err != nil {
			return fail(err)
		}
		if done != nil {
			return r.reportFinished(stdout, stderr, done)
		}
		if _, err := os.Stat(r.out); os.IsNotExist(err) {
			// A run that fails leaves no empty --out behind.
			defer func() {
				if status != exitOK {
					os.Remove(r.out) // only if still empty
				}
			}()
		}
		if opt.Checkpoint, err = r.prepareOut(); err != nil {
			return fail(err)
		}
	}
	if !r.quiet {
		r.announce(stderr, prob)
	}
	r.warnTrouble(stderr, prob)
	cell := experiments.Cell{Key: r.cell.Key(), Config: r.cell, DataDir: r.dir}
	ctx, stop := interruptible("train", stderr)
	defer stop()
	run, err := learn.RunCell(ctx, cell, prob, opt)
	if err != nil {
		return r.failure(stderr, err, args)
	}
	if r.saveModel != "" {
		if err := learn.SaveModel(r.saveModel, run.Model, run.Manifest); err != nil {
			fmt.Fprintf(stderr, "llpfc train: %v\n", err)
			return exitFailed
		}
		if !r.quiet {
			fmt.Fprintf(stderr, "llpfc train: model saved to %s (weights PyTorch loads, with its manifest beside them; 'llpfc predict --model %s' scores new data)\n", r.saveModel, r.saveModel)
		}
	}
	res := trainResult{Key: cell.Key, Config: cell.Config, Metrics: run.Metrics, NumBags: len(prob.Bags.Bags) - run.Metrics.ValBags, Settings: run.Settings}
	r.resumedTiming(&res.Metrics, run.History)
	return lateInterrupt(ctx, stderr, "train", "the run finished and its result is the one reported", r.report(stdout, stderr, res, run.History))
}

// announce prints the run's one-line plan to stderr.
func (r *trainRun) announce(stderr io.Writer, prob *learn.Problem) {
	c := r.cell
	unit := "instances"
	if !experiments.CountsInstances(c.Method) {
		unit = "bags"
	}
	dev := r.device
	if dev == "" {
		dev = "cpu"
	}
	fmt.Fprintf(stderr, "llpfc train: %s on %s: %s, %d test points; model %s; %s lr %g; batch %d %s; %d epochs; seed %d (%s, float32)\n",
		c.Method, r.dsName, bagsText(c, prob), prob.Test.N, c.Model, c.Hyper.Optimizer, c.Hyper.LR, c.Hyper.BatchSize, unit, c.Hyper.Epochs, c.Seed, dev)
}

// problem loads the splits and draws the bags exactly as a grid cell does
// (learn.LoadProblem), or reads the bags file, and settles what the
// flags leave to the data: the default number of points, and a bags file's
// bag size and points (recorded in the cell).
func (r *trainRun) problem() (*learn.Problem, error) {
	c := &r.cell
	splits, err := learn.LoadSplits(experiments.Cell{Config: *c, DataDir: r.dir})
	if err != nil {
		return nil, err
	}
	train := splits.Train
	if c.Hyper.Augment && train.Channels == 0 {
		return nil, fmt.Errorf("--augment crop-flip needs image data; %s is tabular", r.dsName)
	}
	if r.bagsFile != "" {
		return r.fileProblem(splits)
	}
	if c.NumPoints == 0 && c.BagSize > 0 {
		c.NumPoints = train.N * 3 / 4 / c.BagSize * c.BagSize // the paper protocol needs slack in the class pools
	}
	prob, err := learn.LoadProblem(experiments.Cell{Config: *c, DataDir: r.dir})
	if err != nil {
		return nil, fmt.Errorf("bags from %s (%d training points): %v", r.dsName, train.N, err)
	}
	return prob, nil
}

// fileProblem is the problem of the bags file on the loaded splits; the
// cell records the file's bag size (0 when the sizes differ), its points
// and the protocol "bags-file" (the checkpoint also keys the bags' hash).
func (r *trainRun) fileProblem(splits *learn.Problem) (*learn.Problem, error) {
	// The file fixes the bags: flags that would describe other bags
	// conflict with it.
	for _, f := range []string{"bag-size", "num-points", "protocol"} {
		if r.given[f] {
			return nil, fmt.Errorf("--%s conflicts with --bags: the bags file fixes the bags (their sizes, number and protocol); drop --%s", f, f)
		}
	}
	bags, err := estimators.ReadBagSetFile(r.bagsFile)
	if err != nil {
		return nil, fmt.Errorf("--bags: %v", err)
	}
	if bags.NumClasses != splits.Train.NumClasses {
		return nil, fmt.Errorf("bags have %d classes, %s has %d", bags.NumClasses, r.dsName, splits.Train.NumClasses)
	}
	r.cell.BagSize, r.cell.Protocol, r.cell.NumPoints = fileBagSize(bags), "bags-file", 0
	for _, b := range bags.Bags {
		r.cell.NumPoints += b.Size
	}
	p := *splits
	p.Bags = *bags
	return &p, nil
}

// prepareOut creates --out, checks that it can be written before the first
// step rather than after an epoch, and returns the
// checkpoint's path.
func (r *trainRun) prepareOut() (string, error) {
	if err := os.MkdirAll(r.out, 0o755); err != nil {
		return "", fmt.Errorf("--out: %v", err)
	}
	probe, err := os.CreateTemp(r.out, ".llpfc-write-probe-*")
	if err != nil {
		return "", fmt.Errorf("--out %s: cannot write there: %v", r.out, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return filepath.Join(r.out, "checkpoint.gob"), nil
}

// progress prints one line per progress event on stderr (nil with --quiet).
func (r *trainRun) progress(stderr io.Writer) training.Progress {
	if r.quiet {
		return nil
	}
	return func(ev training.ProgressEvent) {
		acc, mark := "", ""
		if ev.EpochDone && ev.TestAccuracy >= 0 {
			acc = fmt.Sprintf(" test acc %.4f", ev.TestAccuracy)
		}
		if ev.EpochDone {
			mark = " done"
		}
		fmt.Fprintf(stderr, "epoch %d/%d step %d/%d%s: loss %.5f lr %.3g %.0f img/s ETA %s%s\n",
			ev.Epoch+1, ev.Epochs, ev.Step, ev.Steps, mark, ev.Loss, ev.LR, ev.ImagesPerSecond, ev.ETA.Round(time.Second), acc)
	}
}

// report writes --out's result.json (atomically) and prints the result.
func (r *trainRun) report(stdout, stderr io.Writer, res trainResult, history []training.EpochStats) int {
	if r.out != "" {
		full := struct {
			trainResult
			History []training.EpochStats `json:"history"`
		}{res, history}
		b, _ := json.MarshalIndent(full, "", "  ")
		if err := atomicfile.WriteFile(filepath.Join(r.out, "result.json"), append(b, '\n')); err != nil {
			fmt.Fprintf(stderr, "llpfc train: %v\n", err)
			return exitFailed
		}
	}
	if r.asJSON {
		b, _ := json.Marshal(res)
		fmt.Fprintln(stdout, string(b))
		return exitOK
	}
	c := res.Config
	outcome := fmt.Sprintf("test accuracy %.4f", res.TestAccuracy)
	if !res.HasTest() {
		outcome = fmt.Sprintf("no labelled test split; training bags' proportion error %.4f", res.BagProportionError)
	}
	epochs := fmt.Sprintf("after %d epochs", res.Epochs)
	if res.SelectedEpoch != nil { // "after 4 epochs" was once printed for the epoch-1 network
		epochs = fmt.Sprintf("of the epoch-%d network, the lowest validation KL of %d epochs", *res.SelectedEpoch, res.Epochs)
	}
	fmt.Fprintf(stdout, "%s %s on %s (bag size %s, %d points, seed %d): %s %s; %.1f s, %.0f train img/s, peak RSS %.0f MiB\n",
		c.Method, c.Model, r.dsName, bagSizeText(c.BagSize), res.TrainPoints, c.Seed, outcome, epochs,
		res.WallSeconds, res.TrainImagesPerSecond, float64(res.PeakRSSBytes)/(1<<20))
	return exitOK
}

// trainResult is the JSON result of `llpfc train`. Its key, configuration
// and metrics are what a grid cell with the same settings stores
// (grid.Result's Key, Config and Metrics, made by the same code:
// learn.RunCell; TestTrainResultIsTheGridCellResult); the metrics sit
// at the top level (test_accuracy, epochs, final_loss, wall_seconds,
// train_images_per_second, peak_rss_bytes, …). A single run adds the number
// of bags (a bags file's bags may differ in size) and its settings as the
// checkpoint keys them.
type trainResult struct {
	Key    string             `json:"key"`
	Config experiments.Config `json:"config"`
	experiments.Metrics
	NumBags int `json:"num_bags"`
	// Settings are every setting that makes two results incomparable
	// (training.RunSettings: the checkpoint's key).
	Settings map[string]string `json:"settings"`
}

// defaultDropout is the dropout of the table cell of the architecture and
// data set (App. "Wide ResNet-16-4": 0.3 on CIFAR10, 0.4 on SVHN and EMNIST;
// "VGG16": 0.5, stated once in experiments' built-in specs), 0 for
// architectures without dropout.
func defaultDropout(model, dataName string) float64 {
	spec := map[string]string{training.ModelWRN164: "wrn16-4", training.ModelVGG16: "vgg16"}[model]
	if spec == "" {
		return 0
	}
	ds := experiments.CIFAR10
	switch {
	case strings.Contains(dataName, "svhn"):
		ds = experiments.SVHN
	case strings.Contains(dataName, "emnist"):
		ds = experiments.EMNISTLetters
	}
	c, err := grid.PresetCell(spec, ds, training.MethodKL, grid.PaperBagSizes[0], 0)
	if err != nil {
		return 0 // unreachable: the built-in tables have these cells (TestTrainPresetIsTheTableCell)
	}
	return c.Hyper.Dropout
}

// fileBagSize returns the size of the bags of a bags file when they all have
// one, else 0 (the result then records bag_size 0 and the file's sizes stand
// in num_bags and num_points).
func fileBagSize(set *estimators.BagSet) int {
	size := 0
	for i, b := range set.Bags {
		if i > 0 && b.Size != size {
			return 0
		}
		size = b.Size
	}
	return size
}

// failure reports a failed training run and returns the exit status: 2
// for bad input (the configuration or the data: training.InputError,
// estimators.InputError, experiments.InputError — a model larger than the
// memory allows), 1 otherwise. An interrupted run says what was kept
// and the command that resumes it.
func (r *trainRun) failure(stderr io.Writer, err error, args []string) int {
	out := r.out
	var tin *training.InputError
	var ein *estimators.InputError
	var changed *training.SettingsError
	switch {
	case errors.As(err, &changed) && changed.Data():
		fmt.Fprintf(stderr, "llpfc train: --resume: %v; %s\n", err, r.dataChanged(changed.Diff))
		return exitBadUsage
	case errors.As(err, &tin) || errors.As(err, &ein) || errors.As(err, new(*experiments.InputError)):
		fmt.Fprintf(stderr, "llpfc train: %v\n", flagNamed(err, r.given))
		return exitBadUsage
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "llpfc train: interrupted")
		if out == "" {
			fmt.Fprintln(stderr, "llpfc train: nothing was kept (no --out); run with --out DIR to keep checkpoints")
			return exitFailed
		}
		ckPath := filepath.Join(out, "checkpoint.gob")
		if ck, cerr := training.ReadCheckpoint(ckPath); cerr == nil {
			fmt.Fprintf(stderr, "llpfc train: %s keeps the first %d epoch(s); resume with:\n  llpfc train %s\n", ckPath, ck.NextEpoch, resumeArgs(args))
		} else {
			fmt.Fprintf(stderr, "llpfc train: no epoch finished, nothing was kept in %s\n", out)
		}
		return exitFailed
	}
	fmt.Fprintf(stderr, "llpfc train: %v\n", err)
	return exitFailed
}

// resumeArgs returns args with --resume, shell-quoted where needed.
func resumeArgs(args []string) string {
	out := make([]string, 0, len(args)+1)
	has := false
	for _, a := range args {
		has = has || a == "--resume" || a == "-resume" || strings.HasPrefix(a, "--resume=")
		if strings.ContainsAny(a, " \t'\"$") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out = append(out, a)
	}
	if !has {
		out = append(out, "--resume")
	}
	return strings.Join(out, " ")
}

// bagsText describes the bags a run trains on for its plan: the bags and
// instances trained on, and those held out for validation (it once said
// "20 bags (600 instances)" for a run that trained on 15 bags and 451).
func bagsText(c experiments.Config, prob *learn.Problem) string {
	count := func(bags []estimators.Bag) (int, int) {
		n := 0
		for _, b := range bags {
			n += b.Size
		}
		return len(bags), n
	}
	trained, held, err := training.HeldOut(c.Hyper.ValBags, c.Seed, prob.Bags.Bags)
	if err != nil {
		trained = prob.Bags.Bags // training refuses it, naming --val-bags
	}
	k, n := count(trained)
	text := fmt.Sprintf("%d bags (%d instances)", k, n)
	if len(held) > 0 {
		hk, hn := count(held)
		text += fmt.Sprintf(" to train on and %d held out for validation (%d instances)", hk, hn)
	}
	return text
}

// bagSizeText describes a cell's bag size for a message: the size, or
// "varying".
func bagSizeText(b int) string {
	if b == 0 {
		return "varying"
	}
	return fmt.Sprint(b)
}
