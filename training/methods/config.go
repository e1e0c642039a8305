package methods

import (
	"errors"
	"fmt"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/internal/choice"
	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/llpfc/llpfc/training/optim"
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
	// Epochs is the number of passes over the training bags (≥ 1); 0 is
	// an error unless Steps is set.
	Epochs int `json:"epochs"`
	// Steps, when > 0, is the run's budget in optimizer steps: it makes
	// exactly Steps steps, in as many passes as that takes, the last one cut
	// short, and Epochs must be 0. A comparison of methods whose minibatches
	// count different things (bags or instances) gives each the same number
	// of updates this way; 0 means Epochs passes.
	Steps int `json:"steps,omitempty"`
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
	// VAT is llpvat's constants ε, ξ and power iterations; the zero value
	// means the appendix's for SVHN and EMNIST (loss.PaperVATConfig("")):
	// ε = 1, ξ = 1e-6, one iteration.
	VAT loss.VATConfig `json:"vat,omitempty"`
	// VATRampup is llpvat's consistency-weight schedule: the zero value is
	// VATRampupAuthors (constant 0.05), or VATRampupLLPVAT.
	VATRampup loss.VATRampup `json:"vat_rampup,omitempty"`
	// Flood is easyllp's flooding level b (Ishida et al., ICML 2020): the
	// loss trained is |L − b| + b, as the authors' easyllp_flood.py
	// (easyllp_flood.py@fe11a00:280-281) bounds EasyLLP's loss, which
	// negative soft labels leave unbounded below; the zero value means none
	// (EasyLLP's plain loss).
	Flood float64 `json:"flood,omitempty"`
	// PVCLikelihood is llppvc's likelihood: the zero value is
	// PVCExact (exact at every bag size and target), or PVCFFT (the
	// authors' FFT product, what llppvc trained before; loss.PVC). Zero for
	// the other methods.
	PVCLikelihood loss.PVCLikelihood `json:"pvc_likelihood,omitempty"`
	// Settings are the values of the method's own settings declared without
	// a field of their own here (every setting declared since settings were:
	// Setting, read by the method with Config.Setting), by name; nil, or a
	// setting left out, means its default. Each is one its method declares,
	// and a value of it (checked before training).
	Settings Values `json:"settings,omitempty"`
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
	// without labels: a fraction of the bags when in (0, 1), a number of bags
	// when ≥ 1 (a whole number); zero means none. The held-out bags are
	// drawn with the stream "val-bags" and never trained on; after every
	// epoch their validation KL and proportion error are recorded in the
	// history (EpochStats.ValKL, ValPropError).
	ValBags float64 `json:"val_bags,omitempty"`
	// Select chooses the reported network: "last", also what empty means
	// (the last epoch's, what the paper's tables report), or "best-val"
	// (the epoch with the lowest validation KL; needs ValBags).
	Select Selection `json:"select,omitempty"`
	// KeepModel makes Result.Model hold the trained network (its spec and
	// PyTorch-style state dict) for export; false means none.
	KeepModel bool `json:"-"`
	// RunFields are the caller's settings of the run that Train does not
	// see (data set, bag size, protocol, augmentation, normalization, …;
	// experiments.ConfigFields): a checkpoint records them and a resume
	// with any of them changed is refused naming the field. Nil means none.
	RunFields map[string]string `json:"run_fields,omitempty"`
	// Augment, if not nil, is the crop-and-flip augmentation of each
	// training minibatch (App. `suppsec: exp`: pad 4, random crop,
	// horizontal flip; nn.CropFlip) of the model's N×C×H×W input images,
	// an op of every training graph drawn and applied where the program
	// runs. The host draws one 64-bit key per step from the method's
	// named stream ("augment"; LLP-VAT's "llpvat-augment", LLP-GAN's
	// "llpgan-augment"; per epoch), so the same seed augments the same way; every program of
	// the step (KL's two passes, LLP-VAT's three, LLP-GAN's) sees the same
	// augmented images.
	Augment *nn.CropFlip `json:"-"`
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

// Selection chooses the network a run reports (Config.Select); the zero
// value is not stated, read as SelectLast.
type Selection uint16

// The selections.
const (
	// SelectLast reports the last epoch's network (the paper's tables).
	SelectLast Selection = iota + 1
	// SelectBestVal reports the network of the epoch with the lowest
	// validation KL of the held-out bags (Config.ValBags).
	SelectBestVal
)

var selections = choice.Set[Selection]{What: "select", Names: []string{"", "last", "best-val"},
	Want: "last (the last epoch's network) or best-val (the lowest validation KL of the held-out bags)"}

// ParseSelection parses last or best-val.
func ParseSelection(s string) (Selection, error) { return selections.Parse(s) }

func (s Selection) String() string { return selections.String(s) }

// UnmarshalText parses a selection where it enters (a spec, a result, a
// flag); empty is the zero value, read as last.
func (s *Selection) UnmarshalText(b []byte) error { return selections.Unmarshal(s, b) }

// MarshalText writes the selection's name.
func (s Selection) MarshalText() ([]byte, error) { return selections.Marshal(s) }
