package training

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/llpfc/llpfc/training/optim"
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
	// Device is the compute back end that runs the graphs (training/device):
	// "cpu", the meaning of the zero value, or "opencl" (the first OpenCL
	// device) or "opencl:P:D" (platform P, device D, as `llpfc devices`
	// lists them).
	Device string `json:"device,omitempty"`
	// KLScale is the scale of the KL proportion loss of kl and llpvat: the
	// zero value is KLScaleAuthors (what the authors' code trains), or
	// KLScalePaper (the paper's 1/(CB)).
	KLScale loss.KLScale `json:"kl_scale,omitempty"`
	// VATRampup is llpvat's consistency-weight schedule: the zero value is
	// VATRampupAuthors (constant 0.05), or VATRampupLLPVAT.
	VATRampup loss.VATRampup `json:"vat_rampup,omitempty"`
	// Flood is easyllp's flooding level b (Ishida et al., ICML 2020): the
	// loss trained is |L − b| + b, as the authors' easyllp_flood.py
	// (easyllp_flood.py@fe11a00:280-281) bounds EasyLLP's loss, which
	// negative soft labels leave unbounded below; the zero value means none
	// (EasyLLP's plain loss).
	Flood float64 `json:"flood,omitempty"`
	// PVCLikelihood is llppvc's likelihood (issue 50): the zero value is
	// PVCExact (exact at every bag size and target), or PVCFFT (the
	// authors' FFT product, what llppvc trained before; loss.PVC). Empty
	// for the other methods.
	PVCLikelihood loss.PVCLikelihood `json:"pvc_likelihood,omitempty"`
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
	// ValBags holds training bags out of training for model selection
	// (issue 29): a fraction of the bags when in (0, 1), a number of bags
	// when ≥ 1 (a whole number); zero means none. The held-out bags are
	// drawn with the stream "val-bags" and never trained on; after every
	// epoch their validation KL and proportion error are recorded in the
	// history (EpochStats.ValKL, ValPropError).
	ValBags float64 `json:"val_bags,omitempty"`
	// Select chooses the reported network: "last", also what empty means
	// (the last epoch's, what the paper's tables report), or "best-val"
	// (the epoch with the lowest validation KL; needs ValBags).
	Select string `json:"select,omitempty"`
	// KeepModel makes Result.Model hold the trained network (its spec and
	// PyTorch-style state dict) for export (issue 29); false means none.
	KeepModel bool `json:"-"`
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
	// TestX (row-major) and TestY are the labelled test split. Both may be
	// empty (a bag-only set without one): nothing is then evaluated on
	// instances, Result.TestAccuracy is −1 and TestProbs nil.
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
	if err := c.checkPVCLikelihood(); err != nil {
		return c, err
	}
	if err := c.checkSelection(); err != nil {
		return c, err
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
	case !(c.Flood >= 0) || math.IsInf(c.Flood, 0) || (c.Flood != 0 && c.Method != MethodEasyLLP):
		return c, fmt.Errorf("config: flood %v, want a finite level ≥ 0, and only for easyllp (method %s)", c.Flood, c.Method)
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
	if err := device.ParseName(c.Device); err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	return c, nil
}

// The model selections of Config.Select.
const (
	SelectLast    = "last"
	SelectBestVal = "best-val"
)

// checkSelection validates ValBags and Select.
func (c Config) checkSelection() error {
	switch {
	case c.ValBags < 0 || math.IsNaN(c.ValBags) || math.IsInf(c.ValBags, 0):
		return fmt.Errorf("config: val bags %v, want a fraction in (0, 1), a number of bags ≥ 1, or 0 for none", c.ValBags)
	case c.ValBags >= 1 && c.ValBags != math.Trunc(c.ValBags):
		return fmt.Errorf("config: val bags %v, want a whole number of bags (or a fraction below 1)", c.ValBags)
	case c.Select != "" && c.Select != SelectLast && c.Select != SelectBestVal:
		return fmt.Errorf("config: select %q, want %s or %s", c.Select, SelectLast, SelectBestVal)
	case c.Select == SelectBestVal && c.ValBags == 0:
		return fmt.Errorf("config: select %s needs held-out bags (val bags > 0) to select on", SelectBestVal)
	}
	return nil
}

// HeldOut splits bags as Config.ValBags holds them out of training (stream
// "val-bags" of seed): the bags trained on and the held-out ones, each in
// their original order. valBags is a fraction below 1 or a number of bags;
// 0 holds none out. Callers that count what a run trains on (its points,
// its bags) use it, so that the counts are training's.
func HeldOut(valBags float64, seed int64, bags []estimators.Bag) (train, val []estimators.Bag, err error) {
	if valBags == 0 {
		return bags, nil, nil
	}
	k, err := HeldOutCount(valBags, len(bags))
	if err != nil {
		return nil, nil, err
	}
	held := map[int]bool{}
	for _, i := range rng.New(seed, "val-bags").Perm(len(bags))[:k] {
		held[i] = true
	}
	for i, b := range bags {
		if held[i] {
			val = append(val, b)
		} else {
			train = append(train, b)
		}
	}
	return train, val, nil
}

// HeldOutCount is the number of bags of n that valBags holds out (HeldOut),
// or an error when it holds none or all of them.
func HeldOutCount(valBags float64, n int) (int, error) {
	k := int(valBags)
	if valBags < 1 {
		k = int(math.Round(valBags * float64(n)))
	}
	if k < 1 || k >= n {
		return 0, fmt.Errorf("val bags %v of %d bags: want at least one bag held out and one left to train on", valBags, n)
	}
	return k, nil
}

// splitValidation draws the held-out bags of cfg.ValBags from data's bags
// (HeldOut) and returns the training data without them and the held-out
// bags.
func splitValidation(cfg Config, data *TrainData) (*TrainData, []estimators.Bag, error) {
	if cfg.ValBags == 0 {
		return data, nil, nil
	}
	trainBags, val, err := HeldOut(cfg.ValBags, cfg.Seed, data.Bags.Bags)
	if err != nil {
		return nil, nil, err
	}
	train := *data
	set := *data.Bags
	set.Bags = trainBags
	train.Bags = &set
	return &train, val, nil
}

// checkPVCLikelihood checks PVCLikelihood: a name loss.ParsePVCLikelihood
// knows, set only for llppvc (issue 50).
func (c *Config) checkPVCLikelihood() error {
	if c.PVCLikelihood == "" {
		return nil
	}
	if c.Method != MethodLLPPVC {
		return fmt.Errorf("config: pvc likelihood %q, but method %s is not llppvc", c.PVCLikelihood, c.Method)
	}
	_, err := loss.ParsePVCLikelihood(string(c.PVCLikelihood))
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}
