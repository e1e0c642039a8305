package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/bagproto"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/experiments/learn"
	"github.com/llpfc/llpfc/training"
	"github.com/llpfc/llpfc/training/methods"
)

// trainFlags are `llpfc train`'s flags (defineTrainFlags); parseTrain turns
// them into a trainRun through applyPreset, check, schedule and build.
type trainFlags struct {
	name, dataDir, bagsFile, method, model, protocol, optimizer, milestones, groupWeights, compat, normalize, augment, out, preset, device, saveModel, sel *string
	dropout, lr, wd, momentum, beta1, beta2, gamma, valBags                                                                                                *float64
	bagSize, numPoints, epochs, batch, regroup, chunk, evalEvery                                                                                           *int
	seed                                                                                                                                                   *int64
	resume, asJSON, quiet                                                                                                                                  *bool
	// own are the flags of the methods' own settings, one per declaration
	// (defineOwnFlags).
	own *ownFlags
	// regroupNever is set by a preset whose cell never regroups
	// (Hyper.RegroupEvery 0), which --regroup-every cannot say.
	regroupNever bool
}

// defineTrainFlags defines train's flags on fs.
func defineTrainFlags(fs *flag.FlagSet) *trainFlags {
	f := &trainFlags{}
	f.name = fs.String("data", "", dataHelp)
	f.dataDir = defineDataDir(fs)
	f.bagsFile = fs.String("bags", "", "read the bags from this `FILE` (written by llpfc bags; indices into the training split) instead of drawing them; the file fixes the bag size, number of points and protocol")
	f.method = fs.String("method", training.MethodLLPFCUniform, methodHelp("training method"))
	f.model = defineModel(fs)
	f.dropout = fs.Float64("dropout", -1, "dropout probability of architectures that have dropout (default: the appendix's value, for wrn-16-4 0.3 on CIFAR10 and 0.4 on SVHN/EMNIST, for vgg16 0.5; else 0)")
	f.bagSize = fs.Int("bag-size", 64, "B, the number of instances in every bag (the paper: 32…2048)")
	f.numPoints = fs.Int("num-points", 0, "N, the number of training instances put in bags, a multiple of --bag-size (default: whole bags covering 3/4 of the training split, since the paper protocol draws without replacement and needs slack in the class pools; the paper: 40960 for CIFAR10/SVHN)")
	f.protocol = fs.String("protocol", "paper", protocolHelp)
	f.epochs = fs.Int("epochs", 10, "number of training epochs")
	f.optimizer = fs.String("optimizer", "adam", "optimizer: sgd, nesterov (SGD with Nesterov momentum), adam or adamw (PyTorch semantics)")
	f.lr = fs.Float64("lr", 1e-3, "base learning rate")
	f.wd = fs.Float64("weight-decay", 0, "weight decay λ (L2 for sgd/nesterov/adam, decoupled for adamw)")
	f.momentum = fs.Float64("momentum", 0.9, "momentum μ of sgd and nesterov (dampening is 0)")
	f.beta1 = fs.Float64("beta1", 0.9, "β₁ of adam/adamw (LLPGAN's setting is 0.5)")
	f.beta2 = fs.Float64("beta2", 0.999, "β₂ of adam/adamw")
	f.milestones = fs.String("milestones", "", "comma-separated epochs at which the learning rate is multiplied by --gamma (e.g. 60,120,160); empty for a constant rate")
	f.gamma = fs.Float64("gamma", 0.1, "learning-rate factor at each milestone (the appendix: 0.2 for WRN on CIFAR10, else 0.1)")
	f.batch = fs.Int("batch-size", 0, batchHelp())
	f.regroup = fs.Int("regroup-every", training.DefaultRegroupEvery, "LLPFC: re-partition the bags into groups every R epochs (the appendix: 20, 5 for VGG16)")
	f.groupWeights = fs.String("group-weights", "uniform", "LLPFC group weights w: uniform, hm (harmonic mean of bag sizes) or chvol (convex-hull volume)")
	f.compat = fs.String("compat", "paper", "paper (Algorithms 1–3) or original (the authors' code at commit 1d0cbc5 where it differs: their grouping, weights and minibatch loss — weights divided by each minibatch's sum, probabilities clamped at 1e-8; see PAPER_MAP.md, \"Paper vs original code\")")
	f.chunk = fs.Int("chunk-size", training.DefaultChunkSize, "bag methods: instances per forward pass; bounds memory whatever the bag size")
	f.own = defineOwnFlags(fs)
	f.normalize = fs.String("normalize", data.Standardize, "input normalization: standardize (each channel, or each tabular feature, to mean 0 and std 1 with the constants of the whole training split, applied to train and test and to the augmentation's padding: what the authors do for every data set) or none (pixels in [0,1])")
	f.augment = fs.String("augment", "none", "training augmentation of image data: none or crop-flip (zero-pad 4, random crop, horizontal flip with probability ½: the appendix's setting)")
	f.evalEvery = fs.Int("eval-every", 0, "evaluate test accuracy every K epochs (0: only after the last)")
	f.seed = fs.Int64("seed", 1, "random seed of the bags, initialisation, groups and minibatch order; the same seed gives the same result")
	f.out = fs.String("out", "", "directory for result.json and checkpoint.gob (created if missing)")
	f.resume = fs.Bool("resume", false, "continue from --out's checkpoint.gob if it exists (the other flags must match the checkpointed run)")
	f.preset = fs.String("preset", "", "run the cell of a built-in table: "+strings.Join(grid.PresetNames(), ", ")+" (the cell of --data, --method and --bag-size; flags given explicitly win): its model, optimizer, learning-rate schedule, epochs, minibatch, regrouping, dropout, augmentation, number of points, protocol, normalization and LLP-VAT constants, exactly as `llpfc reproduce --table T` runs it")
	f.valBags = fs.Float64("val-bags", 0, "hold bags out of training for model selection: a fraction (e.g. 0.1) or a number of bags; after every epoch their validation KL and proportion error are recorded (0: none, as the paper's tables)")
	f.sel = fs.String("select", "last", "the network the result reports: last (the last epoch's, the paper's) or best-val (the epoch with the lowest validation KL of the --val-bags bags)")
	f.device = defineDevice(fs)
	f.saveModel = fs.String("save-model", "", "write the trained network to `FILE`.npz (its parameters and batch-norm statistics as the state_dict of the equivalent PyTorch module: the authors' classes for wrn-16-4, resnet18, vgg16; a documented Sequential for mlp, cnn, cnn-bn) and its manifest (architecture, input shape, classes, the training split's normalization, the cell's key) to FILE.json; 'llpfc predict --model FILE' scores new data with it")
	f.asJSON = defineResultJSON(fs)
	f.quiet = fs.Bool("quiet", false, "no progress lines on standard error")
	return f
}

// applyPreset sets every flag not given explicitly from the built-in table's
// cell that --preset names for --data, --method and --bag-size, and returns
// the cell's learning-rate schedule (nil when --milestones was given).
func (f *trainFlags) applyPreset(given map[string]bool, dsName string) (*experiments.Schedule, error) {
	if given["bags"] {
		return nil, fmt.Errorf("--preset draws the table cell's bags; it conflicts with --bags")
	}
	cell, err := grid.PresetCell(*f.preset, dsName, *f.method, *f.bagSize, *f.seed)
	if err != nil {
		return nil, fmt.Errorf("--preset: %v", err)
	}
	h := cell.Hyper
	set := func(flagName string, apply func()) {
		if !given[flagName] {
			apply()
		}
	}
	setStr := func(flagName string, dst *string, v string) { // an empty string in a cell means the default
		set(flagName, func() {
			if v != "" {
				*dst = v
			}
		})
	}
	set("model", func() { *f.model = cell.Model })
	set("dropout", func() { *f.dropout = h.Dropout })
	set("optimizer", func() { *f.optimizer = h.Optimizer })
	set("lr", func() { *f.lr = h.LR })
	set("weight-decay", func() { *f.wd = h.WeightDecay })
	set("momentum", func() { *f.momentum = h.Momentum })
	set("beta1", func() { *f.beta1 = h.Beta1 })
	set("beta2", func() { *f.beta2 = h.Beta2 })
	set("epochs", func() { *f.epochs = h.Epochs })
	set("batch-size", func() { *f.batch = h.BatchSize })
	set("regroup-every", func() {
		if *f.regroup = h.RegroupEvery; *f.regroup == 0 {
			*f.regroup, f.regroupNever = h.Epochs, true // 0 in a spec: never regroup
		}
	})
	set("num-points", func() { *f.numPoints = cell.NumPoints })
	set("protocol", func() { *f.protocol = cell.Protocol })
	set("normalize", func() { *f.normalize = cell.Normalize })
	if h.Augment {
		setStr("augment", f.augment, "crop-flip")
	}
	f.own.preset(given, h)
	setStr("group-weights", f.groupWeights, h.Weights.String())
	setStr("compat", f.compat, h.Compat.String())
	if given["milestones"] {
		return nil, nil
	}
	if _, err := h.Schedule.Training(); err != nil {
		return nil, fmt.Errorf("--preset: %v", err)
	}
	return &h.Schedule, nil
}

// check validates the flags before any data is read; each error names its
// flag (no size, count or rate is silently replaced).
func (f *trainFlags) check(given map[string]bool) error {
	if given["batch-size"] && *f.batch < 1 {
		return fmt.Errorf("--batch-size is %d, want ≥ 1 (leave it out for the method's default)", *f.batch)
	}
	if err := checkFlags(
		flagCheck{"lr", *f.lr > 0 && !math.IsInf(*f.lr, 0), "a finite number > 0", *f.lr},
		flagCheck{"weight-decay", *f.wd >= 0 && !math.IsInf(*f.wd, 0), "a finite number ≥ 0", *f.wd},
		flagCheck{"momentum", *f.momentum >= 0 && *f.momentum < 1, "in [0, 1)", *f.momentum},
		flagCheck{"beta1", *f.beta1 >= 0 && *f.beta1 < 1, "in [0, 1)", *f.beta1},
		flagCheck{"beta2", *f.beta2 >= 0 && *f.beta2 < 1, "in [0, 1)", *f.beta2},
		flagCheck{"gamma", *f.gamma > 0 && *f.gamma < 1, "in (0, 1)", *f.gamma},
		flagCheck{"dropout", *f.dropout < 1 && (*f.dropout >= 0 || *f.dropout == -1), "in [0, 1) (or −1 for the appendix's value)", *f.dropout},
		flagCheck{"eval-every", *f.evalEvery >= 0, "≥ 0 (0: only after the last epoch)", *f.evalEvery},
		flagCheck{"num-points", *f.numPoints >= 0, "≥ 0 (0: 3/4 of the training split)", *f.numPoints},
		flagCheck{"bag-size", *f.bagSize >= 1, "≥ 1", *f.bagSize},
		flagCheck{"val-bags", *f.valBags >= 0 && (*f.valBags < 1 || *f.valBags == math.Trunc(*f.valBags)), "a fraction in (0, 1), a whole number of bags, or 0 for none", *f.valBags},
	); err != nil {
		return err
	}
	if err := f.own.check(given, *f.method); err != nil {
		return err
	}
	if *f.resume && *f.out == "" {
		return fmt.Errorf("--resume needs --out DIR (the checkpoint is DIR/checkpoint.gob)")
	}
	if err := training.CheckDevice(*f.device); err != nil {
		return fmt.Errorf("--device: %w", err)
	}
	if *f.saveModel != "" {
		if err := training.CanExport(*f.model); err != nil {
			return fmt.Errorf("--save-model: %w", err)
		}
	}
	if !contains(training.MethodNames(), *f.method) {
		return fmt.Errorf("--method %q: unknown (want one of %s)", *f.method, strings.Join(training.MethodNames(), ", "))
	}
	if !contains(learn.ClassifierModels(), *f.model) {
		return fmt.Errorf("--model %q: unknown (want one of %s)", *f.model, strings.Join(learn.ClassifierModels(), ", "))
	}
	f.defaultBatch()
	return nil
}

// defaultBatch sets the method's minibatch when --batch-size was left out:
// its descriptor's DefaultBatch (training/methods; batchHelp lists them).
func (f *trainFlags) defaultBatch() {
	if *f.batch == 0 {
		*f.batch = training.MustLookupMethod(*f.method).DefaultBatch
	}
}

// schedule returns the learning-rate schedule as a table cell states it:
// --milestones and --gamma when given, else the preset's, else constant.
func (f *trainFlags) schedule(preset *experiments.Schedule) (experiments.Schedule, error) {
	sched := experiments.Schedule{Kind: "constant"}
	if preset != nil {
		sched = *preset
	}
	if *f.milestones != "" {
		var ms []int
		for _, part := range strings.Split(*f.milestones, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(part))
			if err != nil {
				return sched, fmt.Errorf("--milestones %q: %q is not an integer", *f.milestones, part)
			}
			ms = append(ms, v)
		}
		if err := (training.MultiStep{Milestones: ms, Gamma: *f.gamma}).Validate(); err != nil {
			return sched, fmt.Errorf("--milestones: %v", err)
		}
		sched = experiments.Schedule{Kind: "multistep", Milestones: ms, Factor: *f.gamma}
	}
	return sched, nil
}

// names are the flags that name a choice, parsed (the methods' own
// settings' are parsed by their declarations: ownFlags).
type trainNames struct {
	gw estimators.WeightScheme
	cp estimators.Compat
	sl training.Selection
}

// parseNames parses the flags that name a choice; each error names its flag.
func (f *trainFlags) parseNames() (n trainNames, err error) {
	if _, err = bagproto.ParseProtocol(*f.protocol); err != nil && *f.protocol != experiments.GivenProtocol {
		return n, fmt.Errorf("--protocol: %v", err)
	}
	if _, err = data.ParseNormalize(*f.normalize); err != nil {
		return n, fmt.Errorf("--normalize: %v", err)
	}
	if n.gw, err = estimators.ParseWeights(*f.groupWeights); err != nil {
		return n, fmt.Errorf("--group-weights: %v", err)
	}
	if n.cp, err = estimators.ParseCompat(*f.compat); err != nil {
		return n, fmt.Errorf("--compat: %v", err)
	}
	if n.sl, err = training.ParseSelection(*f.sel); err != nil {
		return n, fmt.Errorf("--select: %v", err)
	}
	switch *f.optimizer {
	case "sgd", "nesterov", "adam", "adamw":
	default:
		return n, fmt.Errorf("--optimizer %q: want sgd, nesterov, adam or adamw", *f.optimizer)
	}
	return n, nil
}

// build returns the run the flags describe, for the data set dsName in dir.
// The flags state a one-cell experiments.Config, which `llpfc train` runs
// through learn.RunCell exactly as the grid runs a cell (one description
// of a run); only what does not change the result — the
// evaluation period, --out, --resume — is set beside it.
func (f *trainFlags) build(given map[string]bool, dsName, dir string, sched experiments.Schedule) (*trainRun, error) {
	nm, err := f.parseNames()
	if err != nil {
		return nil, err
	}
	if nm.sl == training.SelectBestVal && *f.valBags == 0 {
		return nil, errors.New("--select best-val chooses the epoch by the validation KL of held-out bags, and none are held out: add --val-bags (e.g. --val-bags 0.1), or leave --select out")
	}
	if err := f.finishChecks(); err != nil {
		return nil, err
	}
	protocol, bagSize, numPoints, err := f.bagShape(given, dsName)
	if err != nil {
		return nil, err
	}
	drop := *f.dropout
	if drop < 0 {
		drop = defaultDropout(*f.model, dsName)
	}
	cellSet := dsName
	if cellSet == "fixture" {
		cellSet = experiments.FashionFixture // one name, one key: the built-in specs' name of the fixture
	}
	r := &trainRun{dsName: dsName, dir: dir, bagsFile: *f.bagsFile, evalEvery: *f.evalEvery, resume: *f.resume,
		out: *f.out, asJSON: *f.asJSON, quiet: *f.quiet, given: given, device: *f.device, saveModel: *f.saveModel}
	r.cell = experiments.Config{Learner: "gorgonia", Dataset: cellSet, Model: *f.model, Method: *f.method,
		Protocol: protocol, BagSize: bagSize, NumPoints: numPoints, Normalize: *f.normalize, Seed: *f.seed,
		Hyper: f.hyper(nm, drop, sched)}
	if err := f.own.apply(&r.cell); err != nil {
		return nil, err
	}
	if _, err := learn.TrainingConfig(r.cell); err != nil {
		return nil, err
	}
	// What the learner cannot train fails here, naming the flag (llpgan
	// with the mlp, llpgan or cnn on feature vectors once exited 1 after
	// loading the data, or printed a Go struct).
	if err := (learn.Gorgonia{}).CheckCell(r.cell); err != nil {
		return nil, flagNamed(err, given)
	}
	return r, nil
}

// hyper returns the cell's hyperparameters but the method's own settings
// (ownFlags.apply). A setting whose default a cell states by its zero value
// (uniform weights, the paper's algorithms, the default chunk size) stays
// zero, as in a spec's cells, so that a run and the table cell of the same
// settings are one Config with one key.
func (f *trainFlags) hyper(nm trainNames, dropout float64, sched experiments.Schedule) experiments.Hyper {
	h := experiments.Hyper{Epochs: *f.epochs, Optimizer: *f.optimizer, LR: *f.lr, Momentum: *f.momentum,
		WeightDecay: *f.wd, Beta1: *f.beta1, Beta2: *f.beta2, BatchSize: *f.batch, Schedule: sched,
		RegroupEvery: *f.regroup, Dropout: dropout, Augment: *f.augment == "crop-flip"}
	if f.regroupNever {
		h.RegroupEvery = 0
	}
	h.ValBags = *f.valBags
	if nm.sl != training.SelectLast {
		h.Select = nm.sl
	}
	if nm.gw != estimators.WeightsUniform {
		h.Weights = nm.gw
	}
	if nm.cp != estimators.CompatPaper {
		h.Compat = nm.cp
	}
	if *f.chunk != training.DefaultChunkSize {
		h.ChunkSize = *f.chunk
	}
	return h
}

// finishChecks checks the last flags, each error naming its flag.
func (f *trainFlags) finishChecks() error {
	if *f.augment != "none" && *f.augment != "crop-flip" {
		return fmt.Errorf("--augment %q: want none or crop-flip", *f.augment)
	}
	return checkFlags(atLeast("epochs", *f.epochs, 1), atLeast("batch-size", *f.batch, 1),
		atLeast("regroup-every", *f.regroup, 1), atLeast("chunk-size", *f.chunk, 1))
}

// Bag-only data sets and the protocols of bags of varying sizes
// on the command line: `llpfc train --data bags:PATH` trains on the bags a
// bag-only set gives (protocol "given"); --protocol feature:… and kmeans:K
// make bags of varying sizes from a labelled set. Their cells have bag size
// 0 and NumPoints the instances the protocol takes (0: all).

// bagShape settles the protocol, bag size and points of the cell: the
// flags', or for a bag-only data set its own bags (protocol given, bag
// size and points 0), or for a protocol of bags of varying sizes bag size
// 0. A flag that would describe other bags conflicts, naming it; a method
// that needs instance labels refuses a bag-only set.
func (f *trainFlags) bagShape(given map[string]bool, dsName string) (protocol string, bagSize, numPoints int, err error) {
	switch {
	case experiments.IsBagOnly(dsName):
		for _, fl := range []string{"bags", "bag-size", "num-points", "protocol"} {
			if given[fl] && !(fl == "protocol" && *f.protocol == experiments.GivenProtocol) {
				return "", 0, 0, fmt.Errorf("--%s conflicts with --data %s: a bag-only data set gives its own bags (their ids, sizes and proportions); drop --%s", fl, dsName, fl)
			}
		}
		if *f.method == training.Supervised {
			return "", 0, 0, fmt.Errorf("--method %s trains on instance labels, and --data %s is bag-only (no instance labels, only its bags' proportions): choose an LLP method", training.Supervised, dsName)
		}
		return experiments.GivenProtocol, 0, 0, nil
	case *f.protocol == experiments.GivenProtocol:
		return "", 0, 0, fmt.Errorf("--protocol %s takes the bags of a bag-only data set (--data bags:…); %s is labelled", experiments.GivenProtocol, dsName)
	case experiments.VariableBags(*f.protocol):
		if given["bag-size"] {
			return "", 0, 0, fmt.Errorf("--bag-size conflicts with --protocol %s, which makes bags of varying sizes; drop --bag-size", *f.protocol)
		}
		return *f.protocol, 0, *f.numPoints, nil
	}
	return *f.protocol, *f.bagSize, *f.numPoints, nil
}

// ownFlags are llpfc train's flags of the methods' own settings (each
// methods.Setting a descriptor declares, but the Shared ones, whose flags
// are defined above): one flag a declaration, --NAME with dashes, of the
// setting's kind, default and help, so that a setting declared in a
// descriptor is a flag with nothing written here.
type ownFlags struct {
	fs *flag.FlagSet
	// text returns a flag's value as the setting's text, by setting name.
	text map[string]func() string
}

// defineOwnFlags defines the flags of every registered method's own
// settings on fs.
func defineOwnFlags(fs *flag.FlagSet) *ownFlags {
	o := &ownFlags{fs: fs, text: map[string]func() string{}}
	for _, s := range methods.AllSettings() {
		if s.Shared {
			continue
		}
		help := strings.Join(methods.Readers(s.Name), ", ") + ": " + s.Help
		def := s.DefaultValue()
		switch s.Kind {
		case methods.KindFloat:
			p := fs.Float64(s.FlagName(), def.Num, help+"; "+s.Want())
			o.text[s.Name] = func() string { return strconv.FormatFloat(*p, 'g', -1, 64) }
		case methods.KindInt:
			p := fs.Int(s.FlagName(), int(def.Num), help+"; "+s.Want())
			o.text[s.Name] = func() string { return strconv.Itoa(*p) }
		default:
			p := fs.String(s.FlagName(), def.Name, help)
			o.text[s.Name] = func() string { return *p }
		}
	}
	return o
}

// settings are the declarations of the flags' settings, in their order.
func (o *ownFlags) settings() []*methods.Setting {
	var out []*methods.Setting
	for _, s := range methods.AllSettings() {
		if _, ok := o.text[s.Name]; ok {
			out = append(out, s)
		}
	}
	return out
}

// preset sets every flag not given explicitly to the value the preset's
// cell trains with (stated, or the setting's value when unstated: LLP-PVC's
// FFT for a cell that leaves its likelihood out).
func (o *ownFlags) preset(given map[string]bool, h experiments.Hyper) {
	for _, s := range o.settings() {
		if !given[s.FlagName()] {
			_ = o.fs.Set(s.FlagName(), h.SettingValue(s).String()) // a cell's value parses
		}
	}
}

// check refuses a flag whose value is not one of its setting's, and one
// given for a method that does not read its setting; each error names the
// flag.
func (o *ownFlags) check(given map[string]bool, method string) error {
	for _, s := range o.settings() {
		text := o.text[s.Name]()
		if _, err := s.Parse(text); err != nil {
			return fmt.Errorf("--%s %w", s.FlagName(), err)
		}
		if d, ok := methods.Lookup(method); ok && given[s.FlagName()] && !d.Reads(s.Name) {
			return fmt.Errorf("--%s: method %s does not read it (%s do)", s.FlagName(), method, strings.Join(methods.Readers(s.Name), ", "))
		}
	}
	return nil
}

// apply states, in cell c, the flags' values of its method's own settings,
// then writes them as the cell's key states them (Config.StateSettings: a
// default left out, the KL scale stated, LLP-PVC's FFT left out), so that a
// run and the table cell of the same settings are one Config with one key.
func (o *ownFlags) apply(c *experiments.Config) error {
	d, ok := methods.Lookup(c.Method)
	if !ok {
		return methods.UnknownError(c.Method)
	}
	for _, s := range d.Settings {
		text, ok := o.text[s.Name]
		if !ok {
			continue // a shared setting: its own flag
		}
		v, err := s.Parse(text())
		if err != nil {
			return fmt.Errorf("--%s %w", s.FlagName(), err)
		}
		if err := c.Hyper.SetSetting(s, v); err != nil {
			return fmt.Errorf("--%s: %w", s.FlagName(), err)
		}
	}
	c.StateSettings()
	return nil
}
