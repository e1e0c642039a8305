package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/bagproto"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/internal/atomicfile"
	"github.com/llpfc/llpfc/training"
)

func init() {
	register(command{name: "train", summary: "train one LLP method on a data set and report test accuracy", run: runTrain})
}

const trainSynopsis = `Draws bags from the training split of a data set (or reads a bags file), trains one method
and reports the accuracy on the labelled test split. Methods: llpfc-uniform, llpfc-approx,
llpfc-ideal (Algorithms 1–3 of the paper, FC loss with groups re-drawn every --regroup-every
epochs), kl (the KL proportion loss, App. A "KL Loss", memory-bounded: bags are evaluated in
chunks of --chunk-size instances), llpvat and llpgan (when built in). --batch-size counts
instances for LLPFC and bags for kl, llpvat and llpgan (the paper uses 2, 2 and 1).
Training is float32 on the CPU (no GPU back end in this build). Progress goes to standard
error; with --json the last line of standard output is one JSON object with test_accuracy,
epochs, wall_seconds, train_images_per_second and peak_rss_bytes. With --out DIR the run
writes a checkpoint DIR/checkpoint.gob after every epoch and DIR/result.json at the end (both
atomically); --resume continues from the checkpoint, and is refused when any setting differs. Exit status 2 on bad flags or input, 1 if training fails.`

// trainRun is what `llpfc train` runs once its flags are parsed and checked:
// the training configuration and the settings of the data and the output.
// parseTrain builds it without reading any data, so a test can compare it
// with the table cell a preset names (TestTrainPresetIsTheTableCell).
type trainRun struct {
	cfg                training.Config
	vat                training.VATConfig
	name, dataDir      string // --data as given and --data-dir
	dsName, dir        string // the data set's name and directory (a directory --data resolved)
	bagsFile           string
	bagSize, numPoints int
	protocol           bagproto.Protocol
	protocolName       string
	augment, normalize string
	out                string
	asJSON, quiet      bool
	given              map[string]bool
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
	name := fs.String("data", "", "data set: fixture, fashion-mnist, mnist, emnist-letters, cifar10, svhn, csv:TRAIN[,TEST], libsvm:TRAIN[,TEST], or a directory holding one of the named sets' files")
	dataDir := fs.String("data-dir", "", "directory holding the data set's files (default: $LLPFC_DATA, then /usr/share/datasets/fashion-mnist for fashion-mnist)")
	bagsFile := fs.String("bags", "", "read the bags from this `FILE` (written by llpfc bags; indices into the training split) instead of drawing them; the file fixes the bag size, number of points and protocol")
	method := fs.String("method", "llpfc-uniform", "training method: "+strings.Join(training.MethodNames(), ", "))
	model := fs.String("model", "mlp", "architecture: "+strings.Join(training.ModelNames(), ", "))
	dropout := fs.Float64("dropout", -1, "dropout probability of architectures that have dropout (default: the appendix's value, for wrn-16-4 0.3 on CIFAR10 and 0.4 on SVHN/EMNIST, for vgg16 0.5; else 0)")
	bagSize := fs.Int("bag-size", 64, "B, the number of instances in every bag (the paper: 32…2048)")
	numPoints := fs.Int("num-points", 0, "N, the number of training instances put in bags, a multiple of --bag-size (default: whole bags covering 3/4 of the training split, since the paper protocol draws without replacement and needs slack in the class pools; the paper: 40960 for CIFAR10/SVHN)")
	protocol := fs.String("protocol", "paper", "bag protocol: paper (γ ~ uniform on the simplex, counts ~ Multinomial), shuffle or dirichlet:a")
	epochs := fs.Int("epochs", 10, "number of training epochs")
	optimizer := fs.String("optimizer", "adam", "optimizer: sgd, nesterov (SGD with Nesterov momentum), adam or adamw (PyTorch semantics)")
	lr := fs.Float64("lr", 1e-3, "base learning rate")
	wd := fs.Float64("weight-decay", 0, "weight decay λ (L2 for sgd/nesterov/adam, decoupled for adamw)")
	momentum := fs.Float64("momentum", 0.9, "momentum μ of sgd and nesterov (dampening is 0)")
	beta1 := fs.Float64("beta1", 0.9, "β₁ of adam/adamw (LLPGAN's setting is 0.5)")
	beta2 := fs.Float64("beta2", 0.999, "β₂ of adam/adamw")
	milestones := fs.String("milestones", "", "comma-separated epochs at which the learning rate is multiplied by --gamma (e.g. 60,120,160); empty for a constant rate")
	gamma := fs.Float64("gamma", 0.1, "learning-rate factor at each milestone (the appendix: 0.2 for WRN on CIFAR10, else 0.1)")
	batch := fs.Int("batch-size", 0, "minibatch size: instances for LLPFC (default 128), bags for kl/llpvat (default 2) and llpgan (default 1)")
	regroup := fs.Int("regroup-every", training.DefaultRegroupEvery, "LLPFC: re-partition the bags into groups every R epochs (the appendix: 20, 5 for VGG16)")
	groupWeights := fs.String("group-weights", "uniform", "LLPFC group weights w: uniform, hm (harmonic mean of bag sizes) or chvol (convex-hull volume)")
	compat := fs.String("compat", "paper", "paper (Algorithms 1–3) or original (the authors' code at commit 1d0cbc5 where it differs: their grouping, weights and minibatch loss — weights divided by each minibatch's sum, probabilities clamped at 1e-8; see PAPER_MAP.md, \"Paper vs original code\")")
	klScale := fs.String("kl-scale", "authors", "kl and llpvat: scale of the KL proportion loss of a minibatch of B bags over C classes: authors (−1/B·Σ_bags Σ_classes, what the authors' code trains, kllib/train_fun.py) or paper (−1/(C·B)·Σ, the paper's App. A text; under SGD a C-times smaller step)")
	vatRampup := fs.String("vat-rampup", "authors", "llpvat: schedule of the consistency weight: authors (a constant 0.05, what the LLPFC authors' llpvat.py computes) or llpvat (sigmoid ramp-up over the first 40% of the steps, as LLP-VAT's own code)")
	vatEps := fs.Float64("vat-eps", 0, "llpvat: radius ε of the adversarial perturbation (default: the appendix's, 6 for cifar10 and 1 for the other data sets)")
	vatXi := fs.Float64("vat-xi", 0, "llpvat: finite-difference step ξ of the power iteration (default 1e-6, the authors')")
	vatIters := fs.Int("vat-power-iters", 0, "llpvat: power iterations (default 1, the authors')")
	chunk := fs.Int("chunk-size", training.DefaultChunkSize, "bag methods: instances per forward pass; bounds memory whatever the bag size")
	normalize := fs.String("normalize", data.Standardize, "input normalization: standardize (each channel, or each tabular feature, to mean 0 and std 1 with the constants of the whole training split, applied to train and test and to the augmentation's padding: what the authors do for every data set) or none (pixels in [0,1])")
	augment := fs.String("augment", "none", "training augmentation of image data: none or crop-flip (zero-pad 4, random crop, horizontal flip with probability ½: the appendix's setting)")
	evalEvery := fs.Int("eval-every", 0, "evaluate test accuracy every K epochs (0: only after the last)")
	seed := fs.Int64("seed", 1, "random seed of the bags, initialisation, groups and minibatch order; the same seed gives the same result")
	out := fs.String("out", "", "directory for result.json and checkpoint.gob (created if missing)")
	resume := fs.Bool("resume", false, "continue from --out's checkpoint.gob if it exists (the other flags must match the checkpointed run)")
	preset := fs.String("preset", "", "run the cell of a built-in table: "+strings.Join(experiments.PresetNames(), ", ")+" (the cell of --data, --method and --bag-size; flags given explicitly win): its model, optimizer, learning-rate schedule, epochs, minibatch, regrouping, dropout, augmentation, number of points, protocol, normalization and LLP-VAT constants, exactly as `llpfc reproduce --table T` runs it")
	asJSON := fs.Bool("json", false, "print the result as one JSON object on the last line of standard output")
	quiet := fs.Bool("quiet", false, "no progress lines on standard error")
	if ok, status := parseFlags(fs, args); !ok {
		return nil, status
	}
	fail := func(format string, a ...any) (*trainRun, int) {
		fmt.Fprintf(stderr, "llpfc train: "+format+"\n", a...)
		return nil, exitBadUsage
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if *name == "" {
		return fail("--data is required (e.g. --data fixture)")
	}
	dsName, dir := *name, *dataDir
	if st, err := os.Stat(dsName); err == nil && st.IsDir() {
		if dsName, dir, err = namedSetIn(dsName); err != nil {
			return fail("--data %s: %v", *name, err)
		}
	}
	var presetSchedule training.Schedule
	if *preset != "" {
		cell, err := experiments.PresetCell(*preset, dsName, *method, *bagSize, *seed)
		if err != nil {
			return fail("--preset: %v", err)
		}
		h := cell.Hyper
		set := func(flagName string, apply func()) {
			if !given[flagName] {
				apply()
			}
		}
		set("model", func() { *model = cell.Model })
		set("dropout", func() { *dropout = h.Dropout })
		set("optimizer", func() { *optimizer = h.Optimizer })
		set("lr", func() { *lr = h.LR })
		set("weight-decay", func() { *wd = h.WeightDecay })
		set("momentum", func() { *momentum = h.Momentum })
		set("beta1", func() { *beta1 = h.Beta1 })
		set("beta2", func() { *beta2 = h.Beta2 })
		set("epochs", func() { *epochs = h.Epochs })
		set("batch-size", func() { *batch = h.BatchSize })
		set("regroup-every", func() {
			if *regroup = h.RegroupEvery; *regroup == 0 {
				*regroup = h.Epochs // 0 in a spec: never regroup
			}
		})
		set("num-points", func() { *numPoints = cell.NumPoints })
		set("protocol", func() { *protocol = cell.Protocol })
		set("normalize", func() { *normalize = cell.Normalize })
		set("augment", func() {
			if h.Augment {
				*augment = "crop-flip"
			}
		})
		set("vat-eps", func() { *vatEps = h.VATEps })
		set("vat-xi", func() { *vatXi = h.VATXi })
		set("kl-scale", func() {
			if h.KLScale != "" {
				*klScale = h.KLScale
			}
		})
		set("vat-rampup", func() {
			if h.VATRampup != "" {
				*vatRampup = h.VATRampup
			}
		})
		set("group-weights", func() {
			if h.Weights != "" {
				*groupWeights = h.Weights
			}
		})
		set("compat", func() {
			if h.Compat != "" {
				*compat = h.Compat
			}
		})
		if !given["milestones"] {
			if presetSchedule, err = h.Schedule.Training(); err != nil {
				return fail("--preset: %v", err)
			}
		}
		if given["bags"] {
			return fail("--preset draws the table cell's bags; it conflicts with --bags")
		}
	}
	// Every numeric flag is checked before any data is read, and the error
	// names the flag (issue 17, item 7; issue 13: no size, count or rate is
	// silently replaced).
	if given["batch-size"] && *batch < 1 {
		return fail("--batch-size is %d, want ≥ 1 (leave it out for the method's default)", *batch)
	}
	for _, c := range []struct {
		flag string
		ok   bool
		want string
		v    any
	}{
		{"lr", *lr > 0 && !math.IsInf(*lr, 0), "a finite number > 0", *lr},
		{"weight-decay", *wd >= 0 && !math.IsInf(*wd, 0), "a finite number ≥ 0", *wd},
		{"momentum", *momentum >= 0 && *momentum < 1, "in [0, 1)", *momentum},
		{"beta1", *beta1 >= 0 && *beta1 < 1, "in [0, 1)", *beta1},
		{"beta2", *beta2 >= 0 && *beta2 < 1, "in [0, 1)", *beta2},
		{"gamma", *gamma > 0 && *gamma < 1, "in (0, 1)", *gamma},
		{"dropout", *dropout < 1 && (*dropout >= 0 || *dropout == -1), "in [0, 1) (or −1 for the appendix's value)", *dropout},
		{"eval-every", *evalEvery >= 0, "≥ 0 (0: only after the last epoch)", *evalEvery},
		{"num-points", *numPoints >= 0, "≥ 0 (0: 3/4 of the training split)", *numPoints},
		{"bag-size", *bagSize >= 1, "≥ 1", *bagSize},
		{"vat-eps", *vatEps >= 0 && !math.IsInf(*vatEps, 0), "a finite number > 0 (0: the appendix's value)", *vatEps},
		{"vat-xi", *vatXi >= 0 && !math.IsInf(*vatXi, 0), "a finite number > 0 (0: 1e-6)", *vatXi},
		{"vat-power-iters", *vatIters >= 0, "≥ 1 (0: 1)", *vatIters},
	} {
		if !c.ok {
			return fail("--%s is %v, want %s", c.flag, c.v, c.want)
		}
	}
	if *resume && *out == "" {
		return fail("--resume needs --out DIR (the checkpoint is DIR/checkpoint.gob)")
	}
	if !contains(training.MethodNames(), *method) {
		return fail("--method %q: unknown (want one of %s)", *method, strings.Join(training.MethodNames(), ", "))
	}
	if !contains(training.ModelNames(), *model) {
		return fail("--model %q: unknown (want one of %s)", *model, strings.Join(training.ModelNames(), ", "))
	}
	if *batch == 0 {
		switch *method {
		case training.MethodLLPGAN:
			*batch = 1
		case training.MethodKL, training.MethodLLPVAT:
			*batch = 2
		default:
			*batch = 128
		}
	}
	sched := training.Schedule(training.ConstantLR{})
	if presetSchedule != nil {
		sched = presetSchedule
	}
	if *milestones != "" {
		var ms []int
		for _, f := range strings.Split(*milestones, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return fail("--milestones %q: %q is not an integer", *milestones, f)
			}
			ms = append(ms, v)
		}
		m := training.MultiStep{Milestones: ms, Gamma: *gamma}
		if err := m.Validate(); err != nil {
			return fail("--milestones: %v", err)
		}
		sched = m
	}
	proto, err := bagproto.ParseProtocol(*protocol)
	if err != nil {
		return fail("--protocol: %v", err)
	}
	gw, err := estimators.ParseWeights(*groupWeights)
	if err != nil {
		return fail("--group-weights: %v", err)
	}
	cp, err := estimators.ParseCompat(*compat)
	if err != nil {
		return fail("--compat: %v", err)
	}
	ks, err := training.ParseKLScale(*klScale)
	if err != nil {
		return fail("--kl-scale: %v", err)
	}
	vr, err := training.ParseVATRampup(*vatRampup)
	if err != nil {
		return fail("--vat-rampup: %v", err)
	}
	drop := *dropout
	if drop < 0 {
		drop = defaultDropout(*model, dsName)
	}
	r := &trainRun{name: *name, dataDir: *dataDir, dsName: dsName, dir: dir, bagsFile: *bagsFile,
		bagSize: *bagSize, numPoints: *numPoints, protocol: proto, protocolName: *protocol,
		augment: *augment, normalize: *normalize, out: *out, asJSON: *asJSON, quiet: *quiet, given: given}
	r.cfg = training.Config{
		Method: *method,
		Model:  training.ModelSpec{Name: *model, Dropout: drop},
		Optimizer: training.OptimizerConfig{Name: *optimizer, LR: *lr, Momentum: *momentum, WeightDecay: *wd,
			Beta1: *beta1, Beta2: *beta2},
		Schedule:     sched,
		BatchSize:    *batch,
		Epochs:       *epochs,
		RegroupEvery: *regroup,
		GroupWeights: gw,
		Compat:       cp,
		KLScale:      ks,
		VATRampup:    vr,
		Seed:         *seed,
		ChunkSize:    *chunk,
		EvalEvery:    *evalEvery,
		Resume:       *resume,
	}
	if *optimizer == "sgd" || *optimizer == "nesterov" {
		r.cfg.Optimizer.Beta1, r.cfg.Optimizer.Beta2 = 0, 0
	} else {
		r.cfg.Optimizer.Momentum = 0
	}
	if err := r.cfg.Optimizer.Validate(); err != nil {
		return fail("%v", err)
	}
	if *augment != "none" && *augment != "crop-flip" {
		return fail("--augment %q: want none or crop-flip", *augment)
	}
	if *epochs < 1 || *batch < 1 || *regroup < 1 || *chunk < 1 {
		return fail("--epochs %d, --batch-size %d, --regroup-every %d, --chunk-size %d: each must be ≥ 1", *epochs, *batch, *regroup, *chunk)
	}
	r.vat = training.PaperVATConfig(dsName)
	if *vatEps > 0 {
		r.vat.Eps = *vatEps
	}
	if *vatXi > 0 {
		r.vat.Xi = *vatXi
	}
	if *vatIters > 0 {
		r.vat.PowerIters = *vatIters
	}
	return r, exitOK
}

// run loads the data, draws or reads the bags, trains and reports.
func (r *trainRun) run(args []string, stdout, stderr io.Writer) (status int) {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "llpfc train: "+format+"\n", a...)
		return exitBadUsage
	}
	cfg, given := r.cfg, r.given
	method, model, seed := cfg.Method, cfg.Model.Name, cfg.Seed
	bagMethod := method == training.MethodKL || method == training.MethodLLPVAT || method == training.MethodLLPGAN
	// Data.
	dsName := r.dsName
	resolved, err := data.Resolve(dsName, r.dir)
	if err != nil {
		return fail("%v", err)
	}
	train, err := data.Load(dsName, resolved, data.Train)
	if err != nil {
		return fail("%v", err)
	}
	test, err := data.Load(dsName, resolved, data.Test)
	if err != nil {
		return fail("%v", err)
	}
	if train.D != test.D || train.NumClasses != test.NumClasses {
		// Name the files' place, not an internal count (issue 17, item 10).
		return fail("%s in %s: the training split has %s inputs and %d classes, the test split %s and %d: they must match",
			dsName, resolved, shapeText(train), train.NumClasses, shapeText(test), test.NumClasses)
	}
	norm, err := data.Fit(r.normalize, train)
	if err != nil {
		return fail("--normalize: %v", err)
	}
	if train, err = norm.Apply(train); err != nil {
		return fail("--normalize: %v", err)
	}
	if test, err = norm.Apply(test); err != nil {
		return fail("--normalize: %v", err)
	}
	var bags *estimators.BagSet
	if r.bagsFile != "" {
		// The file fixes the bags: flags that would describe other bags
		// conflict with it (issue 17, item 4).
		for _, f := range []string{"bag-size", "num-points", "protocol"} {
			if given[f] {
				return fail("--%s conflicts with --bags: the bags file fixes the bags (their sizes, number and protocol); drop --%s", f, f)
			}
		}
		if bags, err = estimators.ReadBagSetFile(r.bagsFile); err != nil {
			return fail("--bags: %v", err)
		}
		r.bagSize = fileBagSize(bags)
		r.protocolName = "bags-file"
	} else {
		np := r.numPoints
		if np == 0 {
			np = train.N * 3 / 4 / r.bagSize * r.bagSize // the paper protocol needs slack in the class pools
		}
		res, err := bagproto.Make(train.Y, train.NumClasses, bagproto.Config{Protocol: r.protocol, BagSize: r.bagSize, NumPoints: np, Seed: seed})
		if err != nil {
			return fail("bags from %s (%d training points): %v", dsName, train.N, err)
		}
		bags = res.Bags
	}
	if bags.NumClasses != train.NumClasses {
		return fail("bags have %d classes, %s has %d", bags.NumClasses, dsName, train.NumClasses)
	}
	td := &training.TrainData{X: train.X, Channels: train.Channels, Height: train.Height, Width: train.Width,
		Bags: bags, TestX: test.X, TestY: test.Y}
	if train.Channels == 0 {
		td.Features = train.D
	}
	if method == training.Supervised {
		td.Labels = train.Y // the fully supervised ceiling; LLP methods never see labels
	}
	if H, W := experiments.InputSide(model, td.Height, td.Width); td.Channels > 0 && (H != td.Height || W != td.Width) {
		// vgg16 takes EMNIST's 28×28 images resized to 32×32, as the authors'
		// code and the table's cells do.
		td.X = experiments.ResizeBilinear(td.X, td.Channels, td.Height, td.Width, H, W)
		td.TestX = experiments.ResizeBilinear(td.TestX, td.Channels, td.Height, td.Width, H, W)
		td.Height, td.Width = H, W
	}
	if r.augment == "crop-flip" {
		if train.Channels == 0 {
			return fail("--augment crop-flip needs image data; %s is tabular", dsName)
		}
		aug := training.PaperCropFlip
		aug.PadValues = norm.PadValues() // a raw 0 pixel, normalized
		cfg.Augment = training.CropFlipAugment(aug, td.Channels, td.Height, td.Width)
	}
	if method == training.MethodLLPVAT {
		if err := r.vat.Validate(); err != nil {
			return fail("%v", err)
		}
		old := training.LLPVATConfig
		training.LLPVATConfig = r.vat
		defer func() { training.LLPVATConfig = old }()
	}
	if r.out != "" {
		if _, err := os.Stat(r.out); os.IsNotExist(err) {
			// A run that fails leaves no empty --out behind (issue 17, item 10).
			defer func() {
				if status != exitOK {
					os.Remove(r.out) // only if still empty
				}
			}()
		}
		if err := os.MkdirAll(r.out, 0o755); err != nil {
			return fail("--out: %v", err)
		}
		// Fail before the first step, not after an epoch (issue 17, item 8).
		probe, err := os.CreateTemp(r.out, ".llpfc-write-probe-*")
		if err != nil {
			return fail("--out %s: cannot write there: %v", r.out, err)
		}
		probe.Close()
		os.Remove(probe.Name())
		cfg.Checkpoint = filepath.Join(r.out, "checkpoint.gob")
	}
	instances := 0
	for _, b := range bags.Bags {
		instances += b.Size
	}
	// Every setting that enters the result must match on resume (issue 17,
	// item 1); Train adds the training settings and hashes of the bags and
	// the inputs.
	cfg.RunFields = map[string]string{"data": dsName, "bag_size": fmt.Sprint(r.bagSize), "num_points": fmt.Sprint(instances),
		"protocol": r.protocolName, "augment": r.augment, "normalize": r.normalize}
	if method == training.MethodLLPVAT {
		cfg.RunFields["vat"] = fmt.Sprintf("eps=%g xi=%g power_iters=%d", r.vat.Eps, r.vat.Xi, r.vat.PowerIters)
	} // a bags file counts by its content (Train hashes the bags), not its path
	unit := "instances"
	if bagMethod {
		unit = "bags"
	}
	if !r.quiet {
		fmt.Fprintf(stderr, "llpfc train: %s on %s: %d bags (%d instances), %d test points; model %s; %s lr %g; batch %d %s; %d epochs; seed %d (CPU, float32)\n",
			method, dsName, len(bags.Bags), instances, test.N, model, cfg.Optimizer.Name, cfg.Optimizer.LR, cfg.BatchSize, unit, cfg.Epochs, seed)
	}

	ctx, stop := interruptible("train", stderr)
	defer stop()
	var progress training.Progress
	if !r.quiet {
		progress = func(ev training.ProgressEvent) {
			acc := ""
			if ev.EpochDone && ev.TestAccuracy >= 0 {
				acc = fmt.Sprintf(" test acc %.4f", ev.TestAccuracy)
			}
			mark := ""
			if ev.EpochDone {
				mark = " done"
			}
			fmt.Fprintf(stderr, "epoch %d/%d step %d/%d%s: loss %.5f lr %.3g %.0f img/s ETA %s%s\n",
				ev.Epoch+1, ev.Epochs, ev.Step, ev.Steps, mark, ev.Loss, ev.LR, ev.ImagesPerSecond, ev.ETA.Round(time.Second), acc)
		}
	}
	res, err := training.Train(ctx, cfg, td, progress)
	if err != nil {
		return trainFailure(stderr, err, args, r.out)
	}
	summary := trainSummary{
		Method: method, Model: model, Data: dsName, BagSize: r.bagSize, NumBags: len(bags.Bags), NumPoints: instances,
		Seed: seed, BatchSize: cfg.BatchSize, Optimizer: cfg.Optimizer.Name, LR: cfg.Optimizer.LR, Normalization: norm,
		TestAccuracy: res.TestAccuracy, Epochs: res.Epochs, FinalLoss: res.FinalLoss,
		WallSeconds: res.WallSeconds, TrainImagesPerSecond: res.TrainImagesPerSecond,
		PeakRSSBytes: peakRSS(), ParamCount: res.ParamCount,
	}
	if r.out != "" {
		full := struct {
			trainSummary
			History []training.EpochStats `json:"history"`
		}{summary, res.History}
		b, _ := json.MarshalIndent(full, "", "  ")
		if err := atomicfile.WriteFile(filepath.Join(r.out, "result.json"), append(b, '\n')); err != nil {
			fmt.Fprintf(stderr, "llpfc train: %v\n", err)
			return exitFailed
		}
	}
	if r.asJSON {
		b, _ := json.Marshal(summary)
		fmt.Fprintln(stdout, string(b))
	} else {
		fmt.Fprintf(stdout, "%s %s on %s (bag size %d, %d points, seed %d): test accuracy %.4f after %d epochs; %.1f s, %.0f train img/s, peak RSS %.0f MiB\n",
			method, model, dsName, r.bagSize, instances, seed, res.TestAccuracy, res.Epochs, res.WallSeconds, res.TrainImagesPerSecond, float64(summary.PeakRSSBytes)/(1<<20))
	}
	return exitOK
}

// trainSummary is the JSON result of `llpfc train`.
type trainSummary struct {
	Method    string  `json:"method"`
	Model     string  `json:"model"`
	Data      string  `json:"data"`
	BagSize   int     `json:"bag_size"`
	NumBags   int     `json:"num_bags"`
	NumPoints int     `json:"num_points"`
	Seed      int64   `json:"seed"`
	BatchSize int     `json:"batch_size"`
	Optimizer string  `json:"optimizer"`
	LR        float64 `json:"lr"`
	// Normalization is the input normalization and its constants.
	Normalization        data.Standardization `json:"normalization"`
	TestAccuracy         float64              `json:"test_accuracy"`
	Epochs               int                  `json:"epochs"`
	FinalLoss            float64              `json:"final_loss"`
	WallSeconds          float64              `json:"wall_seconds"`
	TrainImagesPerSecond float64              `json:"train_images_per_second"`
	PeakRSSBytes         int64                `json:"peak_rss_bytes"`
	ParamCount           int                  `json:"param_count"`
}

// defaultDropout is the dropout of the table cell of the architecture and
// data set (App. "Wide ResNet-16-4": 0.3 on CIFAR10, 0.4 on SVHN and EMNIST;
// "VGG16": 0.5, stated once in experiments' built-in specs), 0 for
// architectures without dropout.
func defaultDropout(model, dataName string) float64 {
	spec := map[string]string{"wrn-16-4": "wrn16-4", "vgg16": "vgg16"}[model]
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
	c, err := experiments.PresetCell(spec, ds, training.MethodKL, experiments.PaperBagSizes[0], 0)
	if err != nil {
		return 0 // unreachable: the built-in tables have these cells (TestTrainPresetIsTheTableCell)
	}
	return c.Hyper.Dropout
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// namedSetIn finds which named data set has its files in dir.
//
// MNIST and Fashion-MNIST have the same file names, so when several named sets
// fit, the directory's own name decides (one containing "fashion" is
// Fashion-MNIST, another containing "mnist" is MNIST); otherwise the caller
// must name the set (issue 17, item 10: an MNIST directory was reported as
// fashion-mnist).
func namedSetIn(dir string) (name, resolvedDir string, err error) {
	var names, dirs []string
	for _, n := range data.Names {
		if strings.Contains(n, "fixture") {
			continue
		}
		if d, err := data.Resolve(n, dir); err == nil {
			names, dirs = append(names, n), append(dirs, d)
		}
	}
	if len(names) == 0 {
		return "", "", fmt.Errorf("holds the files of none of %s", strings.Join(data.Names, ", "))
	}
	if len(names) == 1 {
		return names[0], dirs[0], nil
	}
	base := strings.ToLower(filepath.Base(filepath.Clean(dir)))
	for i, n := range names {
		if (n == "fashion-mnist" && strings.Contains(base, "fashion")) || (n == "mnist" && strings.Contains(base, "mnist") && !strings.Contains(base, "fashion")) {
			return n, dirs[i], nil
		}
	}
	return "", "", fmt.Errorf("holds files that fit %s alike (the same file names); name the set: --data %s --data-dir %s",
		strings.Join(names, " and "), names[0], dir)
}

// peakRSS returns the process's peak resident set size in bytes (Linux
// getrusage reports kilobytes), or 0 if unavailable.
func peakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return int64(ru.Maxrss) * 1024
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

// trainFailure reports a failed training run and returns the exit status: 2
// for bad input (the configuration or the data: training.InputError,
// estimators.InputError), 1 otherwise. An interrupted run says what was kept
// and the command that resumes it (issue 17, items 5 and 7).
func trainFailure(stderr io.Writer, err error, args []string, out string) int {
	var tin *training.InputError
	var ein *estimators.InputError
	switch {
	case errors.As(err, &tin) || errors.As(err, &ein):
		fmt.Fprintf(stderr, "llpfc train: %v\n", err)
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

// shapeText describes a split's inputs: C×H×W for images, D features else.
func shapeText(d *data.Dataset) string {
	if d.Channels > 0 {
		return fmt.Sprintf("%d×%d×%d", d.Channels, d.Height, d.Width)
	}
	return fmt.Sprintf("%d-feature", d.D)
}
