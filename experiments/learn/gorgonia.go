package learn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/training"
	"github.com/llpfc/llpfc/training/methods"
)

func init() { experiments.RegisterLearner("gorgonia", Gorgonia{}) }

// Gorgonia is the learner "gorgonia": it trains a cell's network (mlp, cnn,
// wrn-16-4, resnet18, vgg16, llpgan-d) with package training — LLPFC
// (Algorithms `algo:LLPFC-uniform`, `algo:LLPFC-approx`, `algo:LLPFC`), KL
// (App. `subsec:KL`), LLP-VAT and LLPGAN (App. `suppsec: exp`) — on the
// cell's bags (LoadProblem: Section 6's protocol) and evaluates on the
// labelled test split, through RunCell, the path `llpfc train` runs its one
// cell through too. Training is float32 on the CPU.
//
// The cell's Hyper maps onto training.Config field by field (TrainingConfig).
type Gorgonia struct{}

// TrainingConfig maps a cell's configuration onto a training.Config (every
// field but Augment, which needs image data and takes its padding values
// from the data's normalization, and the settings of a single run: see
// RunCell). The zero values that mean a default are
// spelled out (uniform group weights, the paper's algorithms, the authors'
// KL scale and VAT schedule, the whole minibatch's batch-norm statistics,
// DefaultChunkSize), so training.RunSettings names what a run did;
// RegroupEvery keeps its meaning (zero: never).
//
// A searched cell (Hyper.Search) has no one configuration: its first
// trial's is returned (the trials differ in the rate and minibatch alone).
func TrainingConfig(c experiments.Config) (training.Config, error) {
	if s := c.Hyper.Search; s != nil && len(s.LR) > 0 {
		batch := 0
		if len(s.BatchSize) > 0 {
			batch = s.BatchSize[0]
		}
		c = trialCell(experiments.Cell{Config: c}, s.LR[0], batch).Config
	}
	h := c.Hyper
	if h.Optimizer == "gd" {
		return training.Config{}, fmt.Errorf("hyper.optimizer: \"gd\" (full-batch gradient descent) is for the logreg learner only; the gorgonia learner takes sgd, nesterov, adam or adamw")
	}
	opt := training.OptimizerConfig{Name: h.Optimizer, LR: h.LR, WeightDecay: h.WeightDecay}
	switch h.Optimizer {
	case "sgd", "nesterov":
		opt.Momentum = h.Momentum // dampening 0 (App. `suppsec: exp`)
	default:
		opt.Beta1, opt.Beta2 = h.Beta1, h.Beta2 // 0 means PyTorch's defaults
	}
	sched, err := h.Schedule.Training()
	if err != nil {
		return training.Config{}, err
	}
	cfg := training.Config{
		Method:       c.Method,
		Model:        training.ModelSpec{Name: c.Model, Dropout: h.Dropout},
		Optimizer:    opt,
		Schedule:     sched,
		BatchSize:    h.BatchSize,
		Epochs:       h.Epochs,
		Steps:        h.Steps,
		RegroupEvery: h.RegroupEvery,
		Seed:         c.Seed,
		KLScale:      training.KLScaleAuthors,
		VATRampup:    training.VATRampupAuthors,
		BNStats:      training.BNStatsMinibatch,
		GroupWeights: estimators.WeightsUniform,
		Compat:       estimators.CompatPaper,
		ChunkSize:    training.DefaultChunkSize,
		ValBags:      h.ValBags,
		Select:       h.Select,
		Flood:        h.Flood,
		Settings:     h.Settings.Clone(), // the method's own settings without a field (validated with the cell)
	}
	if h.KLScale != 0 {
		cfg.KLScale = h.KLScale
	}
	if h.VATRampup != 0 {
		cfg.VATRampup = h.VATRampup
	}
	if h.BNStats != 0 {
		cfg.BNStats = h.BNStats
	}
	if d, ok := experiments.Method(c.Method); ok && d.Reads(methods.SettingPVCLikelihood) {
		cfg.PVCLikelihood = training.PVCFFT // zero: the FFT, as every llppvc cell stored before the exact likelihood was trained
		if h.PVCLikelihood != 0 {
			cfg.PVCLikelihood = h.PVCLikelihood
		}
	}
	if h.ChunkSize > 0 {
		cfg.ChunkSize = h.ChunkSize
	}
	if h.Weights != 0 {
		cfg.GroupWeights = h.Weights
	}
	if h.Compat != 0 {
		cfg.Compat = h.Compat
	}
	if d, ok := experiments.Method(c.Method); ok && d.Reads(methods.SettingVATEps) {
		cfg.VAT = VATConfig(c)
		if err := cfg.VAT.Validate(); err != nil {
			return training.Config{}, fmt.Errorf("hyper: %w", err)
		}
	}
	if err := cfg.Optimizer.Validate(); err != nil {
		return training.Config{}, fmt.Errorf("hyper: %w", err)
	}
	return cfg, nil
}

// VATConfig returns the cell's LLP-VAT constants: the appendix's for its
// data set (training.PaperVATConfig), with Hyper's ε, ξ and power iterations
// where they are not zero.
func VATConfig(c experiments.Config) training.VATConfig {
	vc := training.PaperVATConfig(c.Dataset)
	if c.Hyper.VATEps > 0 {
		vc.Eps = c.Hyper.VATEps
	}
	if c.Hyper.VATXi > 0 {
		vc.Xi = c.Hyper.VATXi
	}
	if c.Hyper.VATPowerIters > 0 {
		vc.PowerIters = c.Hyper.VATPowerIters
	}
	return vc
}

// ConfigFields returns c's settings as a checkpoint keys them beside
// training's own (training.Config.RunFields): every field of c's canonical
// JSON by its dotted path (Config.Flat: "dataset", "bag_size",
// "hyper.augment", "hyper.schedule.kind", …; strings unquoted), but
// hyper.epochs (a longer run may continue a shorter one). A field left out
// of the JSON at its zero value is absent, which a comparison reads as "".
func ConfigFields(c experiments.Config) map[string]string {
	out := c.Flat()
	delete(out, "hyper.epochs")
	for k, v := range out {
		var s string
		if json.Unmarshal([]byte(v), &s) == nil {
			out[k] = s
		}
	}
	return out
}

// TrainingData wraps a cell's problem as training.TrainData: the whole
// training split (the bags index into it) and the labelled test split.
func TrainingData(p *Problem) *training.TrainData {
	td := &training.TrainData{X: p.Train.X, Bags: &p.Bags, TestX: p.Test.X, TestY: p.Test.Y}
	if p.Train.Channels > 0 && p.Train.Height > 0 && p.Train.Width > 0 {
		td.Channels, td.Height, td.Width = p.Train.Channels, p.Train.Height, p.Train.Width
	} else {
		td.Features = p.Train.D
	}
	return td
}

// Train implements Learner: it loads the cell's problem (LoadProblem) and
// runs it with RunCell, reporting each finished epoch to p.
func (Gorgonia) Train(ctx context.Context, cell experiments.Cell, p experiments.Progress) (experiments.Metrics, error) {
	if p == nil {
		p = experiments.NoProgress{}
	}
	if _, err := TrainingConfig(cell.Config); err != nil {
		return experiments.Metrics{}, err // before reading any data
	}
	prob, err := LoadProblem(cell)
	if err != nil {
		return experiments.Metrics{}, err
	}
	progress := func(ev training.ProgressEvent) {
		if !ev.EpochDone {
			return
		}
		status := fmt.Sprintf("loss %.4f, %.0f img/s", ev.Loss, ev.ImagesPerSecond)
		if ev.TestAccuracy >= 0 {
			status += fmt.Sprintf(", test acc %.4f", ev.TestAccuracy)
		}
		p.Epoch(ev.Epoch+1, ev.Epochs, status)
	}
	keep := cell.ModelPath != "" && training.CanExport(cell.Config.Model) == nil
	run, err := RunCell(ctx, cell, prob, RunOptions{Progress: progress, Device: cell.Device, KeepModel: keep})
	if err != nil {
		return experiments.Metrics{}, err
	}
	if keep {
		if err := os.MkdirAll(filepath.Dir(cell.ModelPath), 0o755); err != nil {
			return experiments.Metrics{}, err
		}
		if err := SaveModel(cell.ModelPath, run.Model, run.Manifest); err != nil {
			return experiments.Metrics{}, err
		}
	}
	return run.Metrics, nil
}

// RunOptions are what a single run (`llpfc train`) adds to a grid cell's
// run; none of them changes the result. The zero RunOptions is the grid's.
type RunOptions struct {
	// EvalEvery evaluates the test accuracy every that many epochs; zero
	// means only after the last (training.Config.EvalEvery).
	EvalEvery int
	// Checkpoint is the checkpoint file, written after every epoch; empty
	// means none. With Resume, training continues from it when it exists,
	// and refuses a checkpoint written with any other setting of the cell
	// (ConfigFields), other bags or other inputs, naming the field.
	Checkpoint string
	Resume     bool
	// Progress receives training's progress events; nil means none.
	Progress training.Progress
	// Device is the compute back end (training.Config.Device; "" means
	// cpu). It changes where the arithmetic runs, so the last bits of the
	// numbers, not the experiment; Metrics.Device records it.
	Device string
	// KeepModel makes CellRun.Model hold the trained network, for
	// SaveModel (`train --save-model`); false means none.
	KeepModel bool
}

// CellRun is a run of RunCell.
type CellRun struct {
	// Metrics are what the store keeps of a grid cell (Result.Metrics), and
	// what `llpfc train` prints.
	Metrics experiments.Metrics
	// History holds the statistics of every epoch.
	History []training.EpochStats
	// Settings are the run's settings as its checkpoint keys them
	// (training.RunSettings).
	Settings map[string]string
	// Model is the trained network with the manifest's description of its
	// inputs (RunOptions.KeepModel), else nil.
	Model    *training.SavedModel
	Manifest Manifest
}

// RunCell trains cell on prob — LoadProblem's problem, or LoadSplits' splits
// with the bags of a file — and measures it: the test accuracy, the epochs,
// the last epoch's mean loss, the points, the groups of every regrouping,
// the wall time of training, the training throughput (instances per second
// of optimizer steps) and the process's peak RSS. It is the one path of a
// training run: the learner "gorgonia" runs every grid cell
// through it and `llpfc train` its one cell, so the same Config gives the
// same Metrics.
//
// A cell with a label-free search (Hyper.Search) runs each trial through
// RunCell and reports the chosen one (runSearch).
func RunCell(ctx context.Context, cell experiments.Cell, prob *Problem, opt RunOptions) (*CellRun, error) {
	if cell.Config.Hyper.Search != nil {
		return runSearch(ctx, cell, prob, opt)
	}
	c := cell.Config
	cfg, td, err := cellTraining(c, prob, opt)
	if err != nil {
		return nil, err
	}
	shape := DataShape{Train: prob.Train.N, Test: len(td.TestY), Classes: prob.Bags.NumClasses,
		Channels: td.Channels, Height: td.Height, Width: td.Width, Features: td.Features}
	if err := checkModelInput(c, shape); err != nil {
		return nil, &experiments.InputError{Err: err}
	}
	if err := td.Validate(); err != nil {
		return nil, &experiments.InputError{Err: err} // before counting bags that may not fit the data
	}
	if err := CheckBags(c, prob.Bags.NumClasses, len(prob.Bags.Bags)); err != nil {
		return nil, &experiments.InputError{Err: err}
	}
	if err := CheckModelSize(c.Model, shape, instancesPerPass(c), dataText(c)); err != nil {
		return nil, &experiments.InputError{Err: err}
	}
	res, err := training.Train(ctx, cfg, td, opt.Progress)
	if nf := new(training.NonFiniteError); errors.As(err, &nf) && c.Normalize == data.NoNormalization {
		return nil, fmt.Errorf("%w (the inputs are not standardized, normalize %q: features far from unit scale overflow the network's logits; the default, %q, fits every feature to the training split)", err, c.Normalize, data.Standardize)
	}
	if err != nil {
		return nil, err
	}
	trained, held, err := training.HeldOut(c.Hyper.ValBags, c.Seed, prob.Bags.Bags)
	if err != nil {
		return nil, &experiments.InputError{Err: err}
	}
	m := experiments.Metrics{
		TestAccuracy:         max(res.TestAccuracy, 0), // −1 without a test split: TestPoints 0 says so
		Epochs:               res.Epochs,
		FinalLoss:            res.FinalLoss,
		TrainPoints:          bagInstances(trained),
		ValBags:              len(held),
		ValPoints:            bagInstances(held),
		TestPoints:           len(td.TestY),
		NoTestSplit:          len(td.TestY) == 0,
		Extra:                cellExtra(prob, res.ParamCount),
		Regroupings:          res.Regroupings,
		Normalization:        &prob.Norm,
		StepsPerEpoch:        stepsPerEpoch(res.History),
		InstanceEpochs:       instanceEpochs(res.History),
		Steps:                totalSteps(res.History),
		WallSeconds:          res.WallSeconds,
		TrainImagesPerSecond: res.TrainImagesPerSecond,
		PeakRSSBytes:         experiments.PeakRSSBytes(),
		Device:               res.Device,
		Numerics:             res.Numerics,
		BagProportionError:   res.BagProportionError,
	}
	m.Assumptions = CellAssumptions(c, prob, trained, res.Regroupings) // assumptions.go
	m.Objective = objectiveDiagnostics(res.Objective)
	if len(res.History) > 0 {
		m.FirstLoss = res.History[0].Loss
	}
	if c.Hyper.Select == training.SelectBestVal {
		sel := res.SelectedEpoch + 1 // counted from 1, as progress counts
		m.SelectedEpoch = &sel
	}
	if c.Hyper.ValBags > 0 && res.SelectedEpoch < len(res.History) {
		m.ValKL = res.History[res.SelectedEpoch].ValKL
	}
	if C := prob.Bags.NumClasses; len(res.TestProbs) == len(td.TestY)*C && len(td.TestY) > 0 {
		pred := make([]int, len(td.TestY))
		for i := range pred {
			pred[i] = argmax(res.TestProbs[i*C : (i+1)*C])
		}
		sc := experiments.Score(td.TestY, pred, res.TestProbs, C)
		m.Scores = &sc
	}
	run := &CellRun{Metrics: m, History: res.History, Settings: training.RunSettings(cfg, td), Model: res.Model}
	run.Metrics.BagsDigest = run.Settings["bags"]
	if res.Model != nil {
		rev, _ := experiments.CodeVersion()
		run.Manifest = Manifest{Normalization: prob.Norm, ClassNames: prob.Train.ClassNames, Columns: prob.Train.Columns, Key: c.Key(), Config: c, CodeVersion: rev}
	}
	return run, nil
}

// totalSteps is the optimizer steps of every epoch of h.
func totalSteps(h []training.EpochStats) int64 {
	var n int64
	for _, e := range h {
		n += int64(e.Steps)
	}
	return n
}

// bagInstances is the number of instances of bags.
func bagInstances(bags []estimators.Bag) int {
	n := 0
	for _, b := range bags {
		n += b.Size
	}
	return n
}

// cellTraining is training's configuration and input for cell c on prob
// with the options of a single run.
func cellTraining(c experiments.Config, prob *Problem, opt RunOptions) (training.Config, *training.TrainData, error) {
	cfg, err := TrainingConfig(c)
	if err != nil {
		return cfg, nil, err
	}
	cfg.EvalEvery, cfg.Checkpoint, cfg.Resume, cfg.Device, cfg.KeepModel = opt.EvalEvery, opt.Checkpoint, opt.Resume, opt.Device, opt.KeepModel
	cfg.RunFields = ConfigFields(c)
	td, err := cellData(c, prob, &cfg)
	return cfg, td, err
}

// CellSettings returns the settings a run of cell c on prob records
// (CellRun.Settings: training.RunSettings, hashes of its bags, inputs and
// test split included), without training: what a finished run's result
// must match to be this run's (a finished run was once served after its
// test split changed).
func CellSettings(c experiments.Config, prob *Problem) (map[string]string, error) {
	cfg, td, err := cellTraining(c, prob, RunOptions{})
	if err != nil {
		return nil, err
	}
	return training.RunSettings(cfg, td), nil
}

// cellData is training's input for cell c on prob: the splits and bags
// (TrainingData), the labels for the supervised ceiling only, vgg16's resize
// and the augmentation (set in cfg).
func cellData(c experiments.Config, prob *Problem, cfg *training.Config) (*training.TrainData, error) {
	td := TrainingData(prob)
	if experiments.UsesLabels(c.Method) {
		if !prob.Train.Labelled() {
			return nil, &experiments.InputError{Err: fmt.Errorf("method %s needs instance labels; data set %s is bag-only", c.Method, c.Dataset)}
		}
		td.Labels = prob.Train.Y // the ceiling only: the LLP methods never see labels
	}
	if H, W := InputSide(c.Model, td.Height, td.Width); td.Channels > 0 && (H != td.Height || W != td.Width) {
		// A copy: prob's splits are the cached data set's, shared by cells.
		// vgg16 takes EMNIST's 28×28 images resized to 32×32, as the authors'
		// code does.
		td.X = ResizeBilinear(td.X, td.Channels, td.Height, td.Width, H, W)
		td.TestX = ResizeBilinear(td.TestX, td.Channels, td.Height, td.Width, H, W)
		td.Height, td.Width = H, W
	}
	if c.Hyper.Augment {
		if td.Channels == 0 {
			return nil, fmt.Errorf("hyper.augment: data set %s has no image shape to crop and flip", c.Dataset)
		}
		// The appendix's augmentation (zero-pad 4, random crop, horizontal
		// flip); the padding is a raw 0 pixel, normalized.
		aug := training.PaperCropFlip
		aug.PadValues = prob.Norm.PadValues()
		cfg.Augment = aug.Op()
	}
	return td, nil
}

// dataText names the data of cell c for messages.
func dataText(c experiments.Config) string {
	if c.Protocol == "bags-file" {
		return "data set " + c.Dataset + " (bags from a file)"
	}
	return "data set " + c.Dataset
}

// vggMinSide is the smallest image side vgg16 takes (five 2×2 max-pools).
const vggMinSide = 32

// InputSide returns the image size the learner feeds model for h×w images:
// vgg16 needs at least 32×32, so smaller images (EMNIST's 28×28) are resized
// to 32×32 as the authors' code does for VGG (torchvision Resize(32));
// every other model takes the images as they are.
func InputSide(model string, h, w int) (int, int) {
	if model == training.ModelVGG16 && h > 0 && w > 0 && (h < vggMinSide || w < vggMinSide) {
		return max(h, vggMinSide), max(w, vggMinSide)
	}
	return h, w
}

// ResizeBilinear resizes row-major C×h×w images in x to C×H×W by bilinear
// interpolation with half-pixel centres (output pixel X samples source
// coordinate (X+½)·w/W − ½, clamped to the image: PyTorch's
// align_corners=False and PIL's bilinear upsampling). It returns a new slice.
func ResizeBilinear(x []float32, c, h, w, H, W int) []float32 {
	n := len(x) / (c * h * w)
	out := make([]float32, n*c*H*W)
	type tap struct {
		i0, i1 int
		f      float32
	}
	taps := func(dst, src int) []tap {
		t := make([]tap, dst)
		scale := float64(src) / float64(dst)
		for X := range t {
			s := (float64(X)+0.5)*scale - 0.5
			s = min(max(s, 0), float64(src-1))
			i0 := int(s)
			i1 := min(i0+1, src-1)
			t[X] = tap{i0, i1, float32(s - float64(i0))}
		}
		return t
	}
	ty, tx := taps(H, h), taps(W, w)
	for p := 0; p < n*c; p++ {
		src := x[p*h*w : (p+1)*h*w]
		dst := out[p*H*W : (p+1)*H*W]
		for Y, a := range ty {
			r0, r1 := src[a.i0*w:(a.i0+1)*w], src[a.i1*w:(a.i1+1)*w]
			for X, b := range tx {
				top := r0[b.i0] + b.f*(r0[b.i1]-r0[b.i0])
				bot := r1[b.i0] + b.f*(r1[b.i1]-r1[b.i0])
				dst[Y*W+X] = top + a.f*(bot-top)
			}
		}
	}
	return out
}

// stepsPerEpoch returns the optimizer steps of the first epoch of h.
func stepsPerEpoch(h []training.EpochStats) int {
	if len(h) == 0 {
		return 0
	}
	return h[0].Steps
}

// instanceEpochs returns the training instances visited over h.
func instanceEpochs(h []training.EpochStats) int64 {
	var n int64
	for _, e := range h {
		n += int64(e.Images)
	}
	return n
}

// SavesModel implements ModelSaver: every network that exports a state
// dict (training.CanExport).
func (Gorgonia) SavesModel(c experiments.Config) bool { return training.CanExport(c.Model) == nil }
