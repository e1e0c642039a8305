package training

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/llpfc/llpfc/training/optim"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Default values of Config fields left at zero.
const (
	// DefaultRegroupEvery is the LLPFC regrouping period of the appendix
	// ("Implementation Details of LLPFC": every 20 epochs; 5 for VGG16).
	DefaultRegroupEvery = 20
	// DefaultChunkSize is the number of instances per forward pass of the
	// memory-bounded bag losses (KLChunked).
	DefaultChunkSize = 256
	// DefaultEvalBatch is the batch size of test-set evaluation.
	DefaultEvalBatch = 256
)

// Config is one training run. As in gonum's optimize.Settings, every
// field whose zero value has a meaning says it (TestZeroValuesDocumented);
// experiments.TrainingConfig builds one from a cell's experiments.Config.
type Config struct {
	// Method is llpfc-uniform, llpfc-approx, llpfc-ideal (Algorithms
	// `algo:LLPFC-uniform`, `algo:LLPFC-approx`, `algo:LLPFC`), kl
	// (App. `subsec:KL`), or a method registered with RegisterMethod
	// (llpvat, llpgan); empty is an error.
	Method string `json:"method"`
	// Model names the architecture and its dropout (zero: none); the input
	// size and the number of classes are taken from the data.
	Model nn.ModelSpec `json:"model"`
	// Optimizer is the optimizer and its constants; a zero constant means
	// none (momentum, dampening, weight decay) or PyTorch's default (Adam's
	// β₁, β₂, ε): see OptimizerConfig.
	Optimizer optim.Config `json:"optimizer"`
	// Schedule scales the learning rate per epoch; nil means constant.
	Schedule optim.Schedule `json:"-"`
	// BatchSize counts instances for LLPFC and bags for kl, llpvat, llpgan;
	// it has no default (0 is an error).
	BatchSize int `json:"batch_size"`
	// Epochs is the number of passes over the training bags (≥ 1; 0 is an
	// error).
	Epochs int `json:"epochs"`
	// RegroupEvery is the LLPFC regrouping period r in epochs: the bags
	// are randomly re-partitioned into groups at epochs 0, r, 2r, …; 0
	// means never (the groups of epoch 0 for the whole run), the meaning
	// experiments.Hyper.RegroupEvery gives it. DefaultRegroupEvery is the
	// appendix's period.
	RegroupEvery int `json:"regroup_every"`
	// GroupWeights is LLPFC's group weighting, passed to estimators.Build;
	// the zero value means uniform weights.
	GroupWeights estimators.WeightScheme `json:"group_weights,omitempty"`
	// Compat is passed to estimators.Build; the zero value means the
	// paper's algorithms (estimators.CompatPaper).
	Compat estimators.Compat `json:"compat,omitempty"`
	// Seed drives every random stream (initialisation, groups, orders,
	// augmentation), each derived with internal/rng from Seed and a name;
	// 0 is a seed like any other.
	Seed int64 `json:"seed"`
	// KLScale is the scale of the KL proportion loss of kl and llpvat: the
	// zero value is KLScaleAuthors (what the authors' code trains), or
	// KLScalePaper (the paper's 1/(CB)).
	KLScale loss.KLScale `json:"kl_scale,omitempty"`
	// VATRampup is llpvat's consistency-weight schedule: the zero value is
	// VATRampupAuthors (constant 0.05), or VATRampupLLPVAT.
	VATRampup loss.VATRampup `json:"vat_rampup,omitempty"`
	// ChunkSize is the number of instances per forward pass of bag losses
	// (0 means DefaultChunkSize); it bounds their memory (KLChunked).
	ChunkSize int `json:"chunk_size"`
	// BNStats is the batch-norm statistics of kl's and llpvat's proportion
	// loss when a minibatch spans several chunks: the zero value is
	// BNStatsMinibatch (the whole minibatch's, as the authors' code; exact,
	// at the cost of extra passes), or BNStatsChunk (each chunk's own).
	BNStats nn.BNStats `json:"bn_stats,omitempty"`
	// EvalBatch is the test-set batch size (0 means DefaultEvalBatch).
	EvalBatch int `json:"eval_batch"`
	// EvalEvery evaluates the test accuracy every that many epochs; 0 means
	// only after the last epoch.
	EvalEvery int `json:"eval_every"`
	// Checkpoint is the path of the checkpoint file (empty means none),
	// written atomically after every CheckpointEvery epochs and after the
	// last.
	Checkpoint string `json:"checkpoint,omitempty"`
	// CheckpointEvery is the checkpoint period in epochs; zero means 1.
	CheckpointEvery int `json:"checkpoint_every"`
	// Resume continues from Checkpoint when it exists; false means start
	// afresh (and overwrite it).
	Resume bool `json:"resume"`
	// RunFields are the caller's settings of the run that Train does not
	// see (data set, bag size, protocol, augmentation, normalization, …;
	// experiments.ConfigFields): a checkpoint records them and a resume
	// with any of them changed is refused naming the field. Nil means none.
	RunFields map[string]string `json:"run_fields,omitempty"`
	// Augment, if not nil, transforms each training minibatch in place (rows
	// instances of the model's input layout in x) with random numbers from
	// r (App. `suppsec: exp`: zero-pad 4, random crop, horizontal flip; see
	// CropFlipAugment). LLPFC draws from the epoch's "augment" stream; kl
	// augments each chunk and replays the draws in its second pass; other
	// methods get it through MethodEnv.Config.
	Augment func(x []float32, rows int, r *rand.Rand) error `json:"-"`
}

// TrainData is an LLP training set and its labelled test split.
type TrainData struct {
	// X holds the N training instances row-major, each of Spec's input size.
	X []float32
	// Channels, Height, Width describe image inputs; Features flat ones.
	Channels, Height, Width, Features int
	// Bags are the LLP bags over the rows of X (Indices required).
	Bags *estimators.BagSet
	// TestX (row-major) and TestY are the labelled test split.
	TestX []float32
	TestY []int
	// Labels are the true classes of the rows of X. Only the method
	// "supervised" (the fully supervised ceiling) reads them; the LLP methods
	// see the bags' proportions only, so callers leave Labels nil for them.
	Labels []int
}

// dim returns the input size per instance.
func (d *TrainData) dim() int {
	if d.Channels > 0 && d.Height > 0 && d.Width > 0 {
		return d.Channels * d.Height * d.Width
	}
	return d.Features
}

// Validate checks the data and names the rule broken.
func (d *TrainData) Validate() error {
	if d == nil {
		return errors.New("training data: nil")
	}
	D := d.dim()
	if D <= 0 {
		return errors.New("training data: no input size (set Channels, Height, Width or Features)")
	}
	if len(d.X) == 0 || len(d.X)%D != 0 {
		return fmt.Errorf("training data: %d values in X, want a positive multiple of the input size %d", len(d.X), D)
	}
	if d.Bags == nil {
		return errors.New("training data: no bags")
	}
	if err := d.Bags.Validate(); err != nil {
		return fmt.Errorf("training data: %w", err)
	}
	n := len(d.X) / D
	for _, b := range d.Bags.Bags {
		if len(b.Indices) != b.Size {
			return fmt.Errorf("training data: bag %d has %d instance indices, want its size %d", b.ID, len(b.Indices), b.Size)
		}
		for _, ix := range b.Indices {
			if ix < 0 || ix >= n {
				return fmt.Errorf("training data: bag %d: instance %d outside the %d rows of X", b.ID, ix, n)
			}
		}
	}
	if len(d.TestX)%D != 0 || len(d.TestX)/D != len(d.TestY) {
		return fmt.Errorf("training data: %d test values for %d labels of size %d", len(d.TestX), len(d.TestY), D)
	}
	for i, y := range d.TestY {
		if y < 0 || y >= d.Bags.NumClasses {
			return fmt.Errorf("training data: test label %d at row %d outside 0..%d", y, i, d.Bags.NumClasses-1)
		}
	}
	return nil
}

// Method is a training objective (LLPFC, KL, LLP-VAT, LLPGAN): it owns its
// inputs and loss nodes in the model's graph and computes minibatch
// gradients; the trainer owns the parameters, optimizer, schedule,
// evaluation and checkpoints.
type Method interface {
	// BeginEpoch prepares epoch e (0-based): regrouping, shuffling. It
	// returns the number of optimizer steps of the epoch. Everything random
	// must come from MethodEnv.Stream(name, e) (or a stream keyed by a
	// function of e), so that a run resumed at epoch e repeats the draws of
	// the uninterrupted run.
	BeginEpoch(e int) (steps int, err error)
	// Step computes the gradient of minibatch s of the current epoch into
	// grads (one slice per learnable, Learnables order, overwritten) and
	// returns the minibatch loss and the number of training instances used.
	Step(s int, grads [][]float32) (loss float64, images int, err error)
	// Close releases the method's machines.
	Close()
}

// StatefulMethod is a Method with state of its own (for example LLPGAN's
// generator and its optimizer) that checkpoints must carry.
type StatefulMethod interface {
	Method
	SaveState() ([]byte, error)
	LoadState([]byte) error
}

// The built-in methods' names (issue 19: one spelling, not literals in
// several files); Supervised is in train_supervised.go.
const (
	MethodLLPFCIdeal   = "llpfc-ideal"   // Algorithm 1
	MethodLLPFCUniform = "llpfc-uniform" // Algorithm 2
	MethodLLPFCApprox  = "llpfc-approx"  // Algorithm 3
	MethodKL           = "kl"            // App. `subsec:KL`
	MethodLLPVAT       = "llpvat"        // App. "LLPVAT"
	MethodLLPGAN       = "llpgan"        // App. "LLPGAN"
)

// MethodEnv is what a method factory gets.
type MethodEnv struct {
	Config *Config
	Data   *TrainData
	// Spec is the model spec completed with the data's input size and C.
	Spec  nn.ModelSpec
	Graph *gorgonia.ExprGraph
	Model nn.Model
}

// Stream returns the random stream name for epoch e:
// internal/rng.New(seed, name+"/epoch-"+e). Streams keyed by epoch have no
// position to save: a run resumed at epoch e draws what the uninterrupted
// run drew.
func (env *MethodEnv) Stream(name string, e int) *rand.Rand {
	return rng.New(env.Config.Seed, fmt.Sprintf("%s/epoch-%d", name, e))
}

// MethodFactory builds a method in env.Graph.
type MethodFactory func(env *MethodEnv) (Method, error)

var (
	methodsMu sync.RWMutex
	methods   = map[string]MethodFactory{}
)

// RegisterMethod makes a training method available to Train by name.
func RegisterMethod(name string, f MethodFactory) {
	methodsMu.Lock()
	defer methodsMu.Unlock()
	if _, dup := methods[name]; dup {
		panic("training: method " + name + " registered twice")
	}
	methods[name] = f
}

// MethodNames returns the registered method names, sorted.
func MethodNames() []string {
	methodsMu.RLock()
	defer methodsMu.RUnlock()
	var ns []string
	for n := range methods {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// ProgressEvent reports training progress.
type ProgressEvent struct {
	Epoch, Epochs int // current epoch (0-based) and total
	Step, Steps   int // steps done in this epoch and its total
	// Loss is the mean minibatch loss of the epoch so far.
	Loss float64
	LR   float64
	// ImagesPerSecond is the training throughput of the epoch so far.
	ImagesPerSecond float64
	// ETA estimates the time to the end of training.
	ETA time.Duration
	// EpochDone marks the end-of-epoch event; TestAccuracy is set (≥ 0) when
	// the epoch was evaluated, −1 otherwise.
	EpochDone    bool
	TestAccuracy float64
}

// Progress receives progress events (at most about one per second within an
// epoch, and one at the end of every epoch). It may be nil.
type Progress func(ProgressEvent)

// EpochStats summarises one epoch.
type EpochStats struct {
	Epoch   int     `json:"epoch"`
	Loss    float64 `json:"loss"`
	LR      float64 `json:"lr"`
	Seconds float64 `json:"seconds"`
	// Steps is the number of optimizer steps of the epoch; Images the
	// training instances they used.
	Steps        int     `json:"steps"`
	Images       int     `json:"images"`
	TestAccuracy float64 `json:"test_accuracy"` // −1 if not evaluated
}

// Result is the outcome of Train.
type Result struct {
	TestAccuracy float64 `json:"test_accuracy"`
	Epochs       int     `json:"epochs"`
	FinalLoss    float64 `json:"final_loss"`
	// WallSeconds is the time of this call (a resumed run counts only its
	// own epochs); TrainImagesPerSecond is instances per second of training
	// steps (evaluation excluded).
	WallSeconds          float64      `json:"wall_seconds"`
	TrainImagesPerSecond float64      `json:"train_images_per_second"`
	ParamCount           int          `json:"param_count"`
	History              []EpochStats `json:"history"`
	// Regroupings summarizes the groups of every regrouping of the LLPFC
	// methods (see GroupingReporter); empty for the other methods.
	Regroupings []Regrouping `json:"regroupings,omitempty"`
	// Params are the final parameters (Learnables order).
	Params [][]float32 `json:"-"`
}

// saveCheckpoint writes the state after epoch next−1 to cfg.Checkpoint.
func saveCheckpoint(cfg Config, fields map[string]string, next int, params, buffers [][]float32, opt *optim.Optimizer, hist []EpochStats, method Method) error {
	ck := newCheckpoint(fields, next, params, buffers, opt, hist)
	if sm, ok := method.(StatefulMethod); ok {
		var err error
		if ck.MethodState, err = sm.SaveState(); err != nil {
			return fmt.Errorf("epoch %d: method state: %w", next-1, err)
		}
	}
	return ck.Write(cfg.Checkpoint)
}

// InputError is an error of Train's input — its configuration or its data
// — rather than of training itself: callers report it as bad input (the
// command's exit status 2). errors.As finds it, and estimators.InputError
// (bags that cannot be grouped) likewise.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Train trains cfg.Method on data and evaluates on its test split. The
// graph is built once with fixed batch shapes and reused for every step;
// the last partial minibatch is padded with zero-weight rows. Training is
// float32 on the CPU. A non-finite loss or gradient stops training with an
// error naming the epoch and step before it reaches the parameters.
func Train(ctx context.Context, cfg Config, data *TrainData, progress Progress) (*Result, error) {
	start := time.Now()
	if err := data.Validate(); err != nil {
		return nil, &InputError{err}
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, &InputError{err}
	}
	spec := cfg.Model
	spec.Channels, spec.Height, spec.Width, spec.Features = data.Channels, data.Height, data.Width, data.Features
	if data.Channels > 0 && data.Height > 0 && data.Width > 0 {
		spec.Features = 0
	}
	spec.NumClasses = data.Bags.NumClasses
	spec.Dtype = tensor.Float32
	if err := spec.Validate(); err != nil {
		return nil, &InputError{err}
	}
	st, err := newStepper(&cfg, data, spec)
	if err != nil {
		return nil, err
	}
	defer st.method.Close()
	g, model, method := st.graph, st.model, st.method
	ev, err := newEvaluator(g, model, spec, cfg.EvalBatch)
	if err != nil {
		return nil, err
	}
	defer ev.Close()

	learn, params, grads, sizes := st.learn, st.params, st.grads, st.sizes
	var buffers [][]float32
	if bn, ok := model.(nn.BatchNormModel); ok {
		for _, n := range bn.RunningStats() {
			d, ok := n.Value().Data().([]float32)
			if !ok {
				return nil, fmt.Errorf("model %s: running statistic %s is not float32", spec.Name, n.Name())
			}
			buffers = append(buffers, d)
		}
	}
	opt, err := optim.New(cfg.Optimizer, sizes)
	if err != nil {
		return nil, err
	}
	res := &Result{ParamCount: nn.ParamCount(model)}
	first := 0
	var fields map[string]string
	if cfg.Checkpoint != "" {
		fields = runFields(cfg, data)
	}
	if cfg.Resume && cfg.Checkpoint != "" {
		if _, statErr := os.Stat(cfg.Checkpoint); statErr == nil {
			ck, err := ReadCheckpoint(cfg.Checkpoint)
			if err != nil {
				return nil, err
			}
			if err := ck.restore(cfg, fields, params, buffers, opt, method); err != nil {
				return nil, fmt.Errorf("checkpoint %s: %w", cfg.Checkpoint, err)
			}
			first = ck.NextEpoch
			res.History = ck.History
		}
	}

	var trainImages int
	var trainTime time.Duration
	for e := first; e < cfg.Epochs; e++ {
		lr := cfg.Schedule.LR(cfg.Optimizer.LR, e)
		steps, err := method.BeginEpoch(e)
		if err != nil {
			return nil, fmt.Errorf("epoch %d: %w", e, err)
		}
		if steps < 1 {
			return nil, fmt.Errorf("epoch %d: method %s has no minibatch (batch size %d)", e, cfg.Method, cfg.BatchSize)
		}
		epochStart := time.Now()
		lastReport := epochStart
		var lossSum float64
		var images int
		for s := 0; s < steps; s++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			loss, n, err := method.Step(s, grads)
			if err != nil {
				return nil, fmt.Errorf("epoch %d step %d: %w", e, s, err)
			}
			if math.IsNaN(loss) || math.IsInf(loss, 0) {
				return nil, fmt.Errorf("epoch %d step %d: loss is %v; stopped before updating the parameters", e, s, loss)
			}
			if i, j, bad := firstNonFinite(grads); bad {
				return nil, fmt.Errorf("epoch %d step %d: gradient of %s[%d] is %v; stopped before updating the parameters", e, s, learn[i].Name(), j, grads[i][j])
			}
			if err := opt.Step(params, grads, lr); err != nil {
				return nil, err
			}
			lossSum += loss
			images += n
			if progress != nil && time.Since(lastReport) >= time.Second && s+1 < steps {
				lastReport = time.Now()
				progress(progressAt(e, s+1, steps, cfg.Epochs, first, lossSum, images, lr, epochStart, trainTime, trainImages))
			}
		}
		dt := time.Since(epochStart)
		trainTime += dt
		trainImages += images
		st := EpochStats{Epoch: e, Loss: lossSum / float64(steps), LR: lr, Seconds: dt.Seconds(), Steps: steps, Images: images, TestAccuracy: -1}
		last := e == cfg.Epochs-1
		if last || (cfg.EvalEvery > 0 && (e+1)%cfg.EvalEvery == 0) {
			if r, ok := method.(bufferReleaser); ok {
				r.ReleaseBuffers() // the step's activations are not needed while evaluating
			}
			acc, err := ev.Accuracy(ctx, data.TestX, data.TestY)
			if err != nil {
				if ctx.Err() != nil && cfg.Checkpoint != "" {
					// Interrupted while evaluating: keep the epoch just trained
					// (its accuracy unknown); a resume evaluates it.
					if werr := saveCheckpoint(cfg, fields, e+1, params, buffers, opt, append(res.History, st), method); werr != nil {
						return nil, werr
					}
				}
				return nil, fmt.Errorf("epoch %d: evaluation: %w", e, err)
			}
			st.TestAccuracy = acc
		}
		res.History = append(res.History, st)
		if progress != nil {
			ev := progressAt(e, steps, steps, cfg.Epochs, first, lossSum, images, lr, epochStart, trainTime-dt, trainImages-images)
			ev.EpochDone, ev.TestAccuracy = true, st.TestAccuracy
			progress(ev)
		}
		if cfg.Checkpoint != "" && (last || (e+1-first)%cfg.CheckpointEvery == 0) {
			if err := saveCheckpoint(cfg, fields, e+1, params, buffers, opt, res.History, method); err != nil {
				return nil, err
			}
		}
	}
	res.Epochs = cfg.Epochs
	if gr, ok := method.(GroupingReporter); ok {
		if res.Regroupings, err = gr.Regroupings(cfg.Epochs); err != nil {
			return nil, err
		}
	}
	if n := len(res.History); n > 0 {
		res.FinalLoss = res.History[n-1].Loss
		res.TestAccuracy = res.History[n-1].TestAccuracy
	}
	if res.TestAccuracy < 0 || first >= cfg.Epochs { // nothing left to train: evaluate the restored state
		if res.TestAccuracy, err = ev.Accuracy(ctx, data.TestX, data.TestY); err != nil {
			return nil, err
		}
	}
	res.WallSeconds = time.Since(start).Seconds()
	if trainTime > 0 {
		res.TrainImagesPerSecond = float64(trainImages) / trainTime.Seconds()
	}
	res.Params = make([][]float32, len(params))
	for i, p := range params {
		res.Params[i] = append([]float32(nil), p...)
	}
	return res, nil
}

func progressAt(e, s, steps, epochs, first int, lossSum float64, images int, lr float64, epochStart time.Time, prevTime time.Duration, prevImages int) ProgressEvent {
	el := time.Since(epochStart)
	ev := ProgressEvent{Epoch: e, Epochs: epochs, Step: s, Steps: steps, Loss: lossSum / float64(s), LR: lr, TestAccuracy: -1}
	if el > 0 {
		ev.ImagesPerSecond = float64(images) / el.Seconds()
	}
	// ETA: the epoch's remaining steps at its pace plus the remaining epochs
	// at the mean epoch time so far (this one extrapolated).
	perStep := el / time.Duration(s)
	epochTime := perStep * time.Duration(steps)
	if done := e - first; done > 0 {
		epochTime = (prevTime + epochTime) / time.Duration(done+1)
	}
	ev.ETA = perStep*time.Duration(steps-s) + epochTime*time.Duration(epochs-e-1)
	return ev
}

func firstNonFinite(gs [][]float32) (int, int, bool) {
	for i, g := range gs {
		var s float32
		for _, v := range g {
			s += v * 0 // NaN·0 = NaN, ±Inf·0 = NaN, finite·0 = 0
		}
		if s != 0 || s != s {
			for j, v := range g {
				if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
					return i, j, true
				}
			}
		}
	}
	return 0, 0, false
}

// withDefaults fills zero fields and validates the configuration.
func (c Config) withDefaults() (Config, error) {
	if c.ChunkSize == 0 {
		c.ChunkSize = DefaultChunkSize
	}
	if c.EvalBatch == 0 {
		c.EvalBatch = DefaultEvalBatch
	}
	if c.CheckpointEvery == 0 {
		c.CheckpointEvery = 1
	}
	if c.Schedule == nil {
		c.Schedule = optim.ConstantLR{}
	}
	scale, err := loss.ParseKLScale(string(c.KLScale))
	if err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	c.KLScale = scale
	if c.VATRampup, err = loss.ParseVATRampup(string(c.VATRampup)); err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	if c.BNStats, err = nn.ParseBNStats(string(c.BNStats)); err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	if c.Model.Dtype == tensor.Float64 {
		return c, errors.New("config: training runs in float32 (Model.Dtype float64 is for gradient checks only)")
	}
	switch {
	case c.BatchSize < 1:
		return c, fmt.Errorf("config: batch size %d, want ≥ 1", c.BatchSize)
	case c.Epochs < 1:
		return c, fmt.Errorf("config: epochs %d, want ≥ 1", c.Epochs)
	case c.RegroupEvery < 0:
		return c, fmt.Errorf("config: regroup every %d epochs, want ≥ 1, or 0 for never", c.RegroupEvery)
	case c.ChunkSize < 1:
		return c, fmt.Errorf("config: chunk size %d, want ≥ 1", c.ChunkSize)
	case c.EvalBatch < 1:
		return c, fmt.Errorf("config: eval batch %d, want ≥ 1", c.EvalBatch)
	case c.EvalEvery < 0:
		return c, fmt.Errorf("config: eval every %d epochs, want ≥ 0", c.EvalEvery)
	case c.CheckpointEvery < 1:
		return c, fmt.Errorf("config: checkpoint every %d epochs, want ≥ 1", c.CheckpointEvery)
	}
	if ms, ok := c.Schedule.(optim.MultiStep); ok {
		if err := ms.Validate(); err != nil {
			return c, err
		}
	}
	if err := c.Optimizer.Validate(); err != nil {
		return c, err
	}
	return c, nil
}

// evaluator computes test accuracy with the model's evaluation-mode forward
// pass on fixed-size batches (the last one padded).
type evaluator struct {
	batch, dim int
	xT         *tensor.Dense
	logits     *gorgonia.Node
	vm         *device.Tape
}

func newEvaluator(g *gorgonia.ExprGraph, m nn.Model, spec nn.ModelSpec, batch int) (*evaluator, error) {
	x, xT := nn.NewInputNode(g, spec.DType(), "eval.x", spec.InputShape(batch))
	z, err := m.Forward(x, false)
	if err != nil {
		return nil, err
	}
	return &evaluator{batch: batch, dim: spec.InputDim(), xT: xT, logits: z, vm: device.NewTape(g.SubgraphRoots(z))}, nil
}

func (e *evaluator) Close() { e.vm.Close() }

// Predict writes the argmax class of each row of x into out.
func (e *evaluator) Predict(ctx context.Context, x []float32, out []int) error {
	n := len(x) / e.dim
	buf := e.xT.Data().([]float32)
	for start := 0; start < n; start += e.batch {
		if err := ctx.Err(); err != nil { // an interrupt stops evaluation too (issue 17, item 5)
			return err
		}
		end := min(start+e.batch, n)
		copy(buf, x[start*e.dim:end*e.dim])
		clear(buf[(end-start)*e.dim:])
		if err := e.vm.RunAll(); err != nil {
			e.vm.Reset()
			return err
		}
		z := e.logits.Value().Data().([]float32)
		C := len(z) / e.batch
		for i := start; i < end; i++ {
			row := z[(i-start)*C : (i-start+1)*C]
			best := 0
			for c, v := range row {
				if v > row[best] {
					best = c
				}
			}
			out[i] = best
		}
		e.vm.Rewind()
	}
	return nil
}

// bufferReleaser is implemented by methods whose machines can drop the
// values of their last run (tape.Release); Train calls it before each
// evaluation, so that the step's and the evaluator's activations are never
// resident together (issue 12).
type bufferReleaser interface {
	ReleaseBuffers()
}

// Accuracy returns the fraction of rows of x whose predicted class is y;
// the evaluator's machine drops its values afterwards (tape.Release).
func (e *evaluator) Accuracy(ctx context.Context, x []float32, y []int) (float64, error) {
	if len(y) == 0 {
		return 0, errors.New("evaluation: empty test split")
	}
	defer e.vm.Release()
	pred := make([]int, len(y))
	if err := e.Predict(ctx, x, pred); err != nil {
		return 0, err
	}
	right := 0
	for i := range y {
		if pred[i] == y[i] {
			right++
		}
	}
	return float64(right) / float64(len(y)), nil
}

// CropFlipAugment adapts a CropFlip augmentation of c×h×w images to
// Config.Augment. It keeps one scratch buffer (not safe for concurrent use).
func CropFlipAugment(a CropFlip, c, h, w int) func(x []float32, rows int, r *rand.Rand) error {
	var scratch []float32
	return func(x []float32, rows int, r *rand.Rand) error {
		n := rows * c * h * w
		if rows == 0 {
			return nil
		}
		if n > len(x) {
			return fmt.Errorf("augmentation: %d rows of %d×%d×%d need %d values, the batch has %d", rows, c, h, w, n, len(x))
		}
		scratch = append(scratch[:0], x[:n]...)
		_, err := a.Apply(Batch{N: rows, C: c, H: h, W: w, Data: x[:n]}, Batch{N: rows, C: c, H: h, W: w, Data: scratch}, r)
		return err
	}
}

// stepper is what Train and RunStepBenchmark share: one graph holding the
// model and the method's loss, and float32 views of the parameters with
// gradient buffers of the same shapes.
type stepper struct {
	graph  *gorgonia.ExprGraph
	model  nn.Model
	method Method
	learn  gorgonia.Nodes
	params [][]float32 // views of the learnables' values
	grads  [][]float32 // the method's Step writes the gradients here
	sizes  []int
}

// newStepper builds the model of spec and the loss of cfg.Method on one new
// graph. The caller closes st.method.
func newStepper(cfg *Config, data *TrainData, spec nn.ModelSpec) (*stepper, error) {
	methodsMu.RLock()
	factory, ok := methods[cfg.Method]
	methodsMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("method %q: unknown (known: %v)", cfg.Method, MethodNames())
	}
	g := gorgonia.NewGraph()
	model, err := models.NewModel(g, spec, rng.New(cfg.Seed, "init"))
	if err != nil {
		return nil, err
	}
	method, err := factory(&MethodEnv{Config: cfg, Data: data, Spec: spec, Graph: g, Model: model})
	if err != nil {
		return nil, fmt.Errorf("method %s: %w", cfg.Method, err)
	}
	st := &stepper{graph: g, model: model, method: method, learn: model.Learnables()}
	st.params = make([][]float32, len(st.learn))
	st.grads = make([][]float32, len(st.learn))
	st.sizes = make([]int, len(st.learn))
	for i, p := range st.learn {
		st.params[i] = p.Value().Data().([]float32)
		st.grads[i] = make([]float32, len(st.params[i]))
		st.sizes[i] = len(st.params[i])
	}
	return st, nil
}
