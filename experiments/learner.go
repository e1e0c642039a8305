package experiments

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/training"
)

// Learner trains and evaluates one cell: it builds the cell's LLP data set
// (data, bag protocol, seed), trains Config.Method with Config.Hyper and
// returns the test metrics. It must honour ctx (return ctx.Err() soon after
// cancellation) and report progress through p. The same cell must give the
// same TestAccuracy on every run (Seed drives every random stream).
type Learner interface {
	Train(ctx context.Context, cell Cell, p Progress) (Metrics, error)
}

// LearnerFunc adapts a function to Learner.
type LearnerFunc func(ctx context.Context, cell Cell, p Progress) (Metrics, error)

// Train calls f.
func (f LearnerFunc) Train(ctx context.Context, cell Cell, p Progress) (Metrics, error) {
	return f(ctx, cell, p)
}

// Progress receives a running cell's progress, in epochs, so that the runner
// can show a per-run ETA.
type Progress interface {
	// Epoch reports that done of total epochs are finished; status is a short
	// note such as "loss 0.532".
	Epoch(done, total int, status string)
}

// NoProgress discards progress reports.
type NoProgress struct{}

// Epoch does nothing.
func (NoProgress) Epoch(int, int, string) {}

// Metrics is what a learner measures for a cell. The first group is the
// outcome (deterministic for a given cell); the second is performance, which
// varies with the machine.
type Metrics struct {
	// TestAccuracy is the accuracy on the TestPoints labelled test
	// instances. A bag-only set without a test split (data.NoTestSplit)
	// records NoTestSplit, TestPoints 0 and TestAccuracy 0, which is no
	// measurement: reports and CSV tables leave every test metric of such a
	// cell out (HasTest).
	TestAccuracy float64 `json:"test_accuracy"`
	Epochs       int     `json:"epochs"`
	// FinalLoss is the training objective in the last epoch, FirstLoss in
	// the first (how far training moved it: a reason the trouble section
	// gives for a cell near chance); FirstLoss is 0 in results
	// written before it.
	FinalLoss float64 `json:"final_loss"`
	FirstLoss float64 `json:"first_loss,omitempty"`
	// TrainPoints are the instances of the bags trained on: with
	// hyper.val_bags, the held-out bags' ValPoints instances (in ValBags
	// bags) are not among them (they were once counted).
	TrainPoints int `json:"train_points"`
	ValBags     int `json:"val_bags,omitempty"`
	ValPoints   int `json:"val_points,omitempty"`
	TestPoints  int `json:"test_points"`
	// NoTestSplit marks a run on data without a labelled test split.
	NoTestSplit bool `json:"no_test_split,omitempty"`
	// Extra holds learner-specific outcome figures (e.g. the number of groups).
	Extra map[string]float64 `json:"extra,omitempty"`
	// Normalization is the input normalization the cell's data got (mode and
	// the training split's constants).
	Normalization *data.Standardization `json:"normalization,omitempty"`
	// StepsPerEpoch is the number of optimizer steps of the first epoch
	// (minibatches of instances for LLPFC, of bags for the baselines), and
	// InstanceEpochs the training instances visited over the run: together
	// they say what budget a method got, which the bag size changes for the
	// bag-level baselines.
	StepsPerEpoch  int   `json:"steps_per_epoch,omitempty"`
	InstanceEpochs int64 `json:"instance_epochs,omitempty"`
	// Steps is the optimizer steps of the whole run (of the chosen trial,
	// with hyper.search): with InstanceEpochs, the budget a method got
	// (methods are compared at equal work); 0 in results written before it.
	Steps int64 `json:"steps,omitempty"`
	// BagsDigest is the SHA-256 of the cell's bags (every bag given to
	// training, held-out ones included: the held-out split is the seed's):
	// cells of one seed that a report compares pair by pair must show
	// equal digests. Empty in results written before it.
	BagsDigest string `json:"bags_digest,omitempty"`
	// Search records a label-free search (hyper.search): every trial with
	// its validation score, and the one chosen; nil without one.
	Search *SearchRecord `json:"search,omitempty"`
	// Objective is what a bag objective's steps saw, the measured reason
	// behind a collapse; nil for the methods whose objective
	// counts nothing and in results written before it.
	Objective *ObjectiveDiagnostics `json:"objective,omitempty"`
	// Regroupings summarizes the LLPFC groups of every regrouping (‖T̂⁻¹‖₁ and
	// condition numbers: where LLPFC breaks); empty for the other methods.
	Regroupings []training.Regrouping `json:"regroupings,omitempty"`

	// Scores are the test split's macro-F1, per-class accuracy, confusion
	// matrix and, for two classes, AUC (Score); BagProportionError is the
	// training bags' mean ‖p̄ − γ‖₁ under the final network.
	// Both are absent from results written before them and from learners
	// that do not compute them.
	Scores             *Scores `json:"scores,omitempty"`
	BagProportionError float64 `json:"bag_proportion_error,omitempty"`
	// SelectedEpoch is the epoch whose network the result reports when
	// hyper.select is best-val, counted from 1 as the progress lines count
	// epochs (it was once 0-based, beside progress's 1-based "epoch 2/4");
	// absent otherwise.
	SelectedEpoch *int `json:"selected_epoch,omitempty"`
	// ValKL is the held-out bags' validation KL of the reported network
	// (hyper.val_bags); absent without held-out bags.
	ValKL *float64 `json:"val_kl,omitempty"`

	// Assumptions are the method's assumptions measured on the cell's bags
	// (experiments/assumptions.go); absent from results written
	// before them and for methods without a measured assumption.
	Assumptions *Assumptions `json:"assumptions,omitempty"`

	WallSeconds          float64 `json:"wall_seconds"`
	TrainImagesPerSecond float64 `json:"train_images_per_second"`
	PeakRSSBytes         int64   `json:"peak_rss_bytes"`
	// Device is the compute back end that trained the cell, with its
	// device's name for OpenCL ("cpu", "opencl:0:0 (…)"); empty in results
	// written before the device seam (the CPU) and for the learners that train
	// without one. Like the wall time it is not an outcome (SameOutcome).
	Device string `json:"device,omitempty"`
	// Numerics is the arithmetic the CPU back end trained the cell with:
	// the matrix product's micro-kernel and the convolutions' algorithms
	// (nn.Numerics, e.g. "sgemm avx512-8x32; conv3x3 winograd F(4x4,3x3)
	// on maps >= 32x32, F(2x2,3x3) below, dx also on 4x4 maps; maps of <= k*k values dense"). Results of other numerics agree to float32 rounding,
	// not to the bit: a rerun that differs from a stored result names both
	// (grid's remodel). Empty in results written before it, for other
	// devices (Device names them) and for learners without a network. Not an
	// outcome (SameOutcome).
	Numerics string `json:"numerics,omitempty"`
}

// ObjectiveDiagnostics summarizes what a bag objective's optimizer steps saw
// over a run (training's loss.BagDiagnostics): each field is 0
// where the objective has no such thing.
type ObjectiveDiagnostics struct {
	// Steps are the objective's calls (optimizer steps).
	Steps int `json:"steps"`
	// MeanLoss is the mean per step of the loss trained (flooded for
	// EasyLLP, floored for LLP-PVC's fft variant); MeanRawLoss that of the
	// plain objective (unflooded; LLP-PVC's exact −Σ log P).
	MeanLoss    float64 `json:"mean_loss"`
	MeanRawLoss float64 `json:"mean_raw_loss"`
	// MeanReferenceLoss is the mean per step of the loss that giving every
	// instance its bag's own proportions scores (no classifier: LLP-PVC's
	// binomial likelihood at the bag's counts); 0 where not computed.
	MeanReferenceLoss float64 `json:"mean_reference_loss,omitempty"`
	// FlooredShare is LLP-PVC's share of class terms whose likelihood lies
	// below the floor of the numerics that computed it (round-off: no
	// gradient); TinyShare those below 1e-300.
	FlooredShare float64 `json:"floored_share,omitempty"`
	TinyShare    float64 `json:"tiny_share,omitempty"`
	// InsideShare is MixBag's share of class terms inside their interval
	// (a constant, no gradient).
	InsideShare float64 `json:"inside_share,omitempty"`
	// FloodedShare is EasyLLP's share of steps whose loss fell below the
	// flooding level (the step reversed); SoftMin, SoftMax and SoftStd the
	// spread of its soft labels k·α − (k−1)·p, and SoftNegativeShare the
	// share below 0 (which leave its loss unbounded below).
	FloodedShare      float64 `json:"flooded_share,omitempty"`
	SoftMin           float64 `json:"soft_min,omitempty"`
	SoftMax           float64 `json:"soft_max,omitempty"`
	SoftStd           float64 `json:"soft_std,omitempty"`
	SoftNegativeShare float64 `json:"soft_negative_share,omitempty"`
}

// SearchRecord is what a cell's label-free search did (Hyper.Search): the
// rule, every trial and the index of the one the cell reports.
type SearchRecord struct {
	// Rule says how a trial was chosen: "min val_kl" (the lowest
	// proportion loss of the held-out bags under the last epoch's network).
	Rule   string  `json:"rule"`
	Trials []Trial `json:"trials"`
	// Chosen is the index of the reported trial in Trials; −1 when every
	// trial diverged.
	Chosen int `json:"chosen"`
}

// Trial is one configuration of a search and what it scored.
type Trial struct {
	LR        float64 `json:"lr"`
	BatchSize int     `json:"batch_size"`
	// ValKL and ValPropError are the held-out bags' proportion loss and
	// error under the trial's last network; nil when it diverged.
	ValKL        *float64 `json:"val_kl,omitempty"`
	ValPropError *float64 `json:"val_prop_error,omitempty"`
	// Diverged says where the trial's loss or gradient went non-finite
	// ("epoch 3 step 12: …"); empty when it did not.
	Diverged string `json:"diverged,omitempty"`
	// TestAccuracy is recorded for the reader (how much the label-free
	// choice cost against the best trial in hindsight); the choice never
	// reads it (TestSelectionReadsNoLabel).
	TestAccuracy float64 `json:"test_accuracy"`
	Steps        int64   `json:"steps"`
	WallSeconds  float64 `json:"wall_seconds"`
	// Extended marks a trial past an end of the search's rates
	// (Search.Extend): tried because the choice sat at that end.
	Extended bool `json:"extended,omitempty"`
}

var (
	learnersMu sync.RWMutex
	learners   = map[string]Learner{}
)

// RegisterLearner makes l available to specs under name (the spec's
// "learner" field). It panics if name is empty, l is nil or name is taken,
// like database/sql.Register: registration happens in init functions.
func RegisterLearner(name string, l Learner) {
	learnersMu.Lock()
	defer learnersMu.Unlock()
	if name == "" || l == nil {
		panic("experiments: RegisterLearner needs a name and a learner")
	}
	if _, dup := learners[name]; dup {
		panic("experiments: learner " + name + " registered twice")
	}
	learners[name] = l
}

// LookupLearner returns the learner registered under name, or an error
// listing the registered ones.
func LookupLearner(name string) (Learner, error) {
	learnersMu.RLock()
	defer learnersMu.RUnlock()
	if l, ok := learners[name]; ok {
		return l, nil
	}
	return nil, fmt.Errorf("learner %q is not registered (registered: %s)", name, strings.Join(learnerNames(), ", "))
}

// LearnerNames lists the registered learners.
func LearnerNames() []string {
	learnersMu.RLock()
	defer learnersMu.RUnlock()
	return learnerNames()
}

func learnerNames() []string {
	names := make([]string, 0, len(learners))
	for n := range learners {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// HasTest reports whether the cell was evaluated on labelled test
// instances: TestAccuracy and Scores mean something only then.
func (m Metrics) HasTest() bool { return !m.NoTestSplit }

// ModelSaver is implemented by a Learner that saves a cell's trained
// network when Cell.ModelPath is set: SavesModel reports whether it does
// for c.
type ModelSaver interface {
	SavesModel(c Config) bool
}

// CellChecker is implemented by a Learner that trains only some
// configurations: CheckCell returns an error naming the field of c it
// cannot train. Config.Validate calls it, so a spec naming such a cell
// fails before any cell runs.
type CellChecker interface {
	CheckCell(c Config) error
}
