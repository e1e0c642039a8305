package training

import (
	"time"

	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/models"
)

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
	// ValKL and ValPropError are the held-out bags' mean KL(γ ‖ p̄) and
	// mean ‖p̄ − γ‖₁ after the epoch (Config.ValBags); absent without
	// held-out bags.
	ValKL        *float64 `json:"val_kl,omitempty"`
	ValPropError *float64 `json:"val_prop_error,omitempty"`
}

// Result is the outcome of Train.
type Result struct {
	TestAccuracy float64 `json:"test_accuracy"` // −1 without a test split (TrainData.TestY empty)
	Epochs       int     `json:"epochs"`
	FinalLoss    float64 `json:"final_loss"`
	// WallSeconds is the time of this call (a resumed run counts only its
	// own epochs); TrainImagesPerSecond is instances per second of training
	// steps (evaluation excluded).
	WallSeconds          float64      `json:"wall_seconds"`
	TrainImagesPerSecond float64      `json:"train_images_per_second"`
	ParamCount           int          `json:"param_count"`
	History              []EpochStats `json:"history"`
	// Objective is what the method's objective counted over the run (a
	// methods.ObjectiveDiagnoser: the bag objectives), nil for the
	// others.
	Objective *loss.BagDiagnostics `json:"objective,omitempty"`
	// Regroupings summarizes the groups of every regrouping of the LLPFC
	// methods (see GroupingReporter); empty for the other methods.
	Regroupings []Regrouping `json:"regroupings,omitempty"`
	// Device is the compute back end that trained (device.Backend.Name:
	// "cpu", or "opencl:P:D (device name)").
	Device string `json:"device"`
	// Numerics is the arithmetic the back end trained with: on the CPU
	// nn.Numerics (the matrix product's micro-kernel, the 3×3
	// convolutions' algorithm), on the OpenCL device its kernel variants
	// (device.NumericsNamer: the products' CLBlast parameters, the
	// convolutions' path).
	Numerics string `json:"numerics,omitempty"`
	// TestProbs are the class probabilities (N×C, row-major) the final
	// network gives the test split's rows, whose argmax TestAccuracy scores.
	TestProbs []float64 `json:"-"`
	// BagProportionError is the mean over the training bags of ‖p̄ − γ‖₁,
	// p̄ the final network's mean predicted probabilities over a bag's
	// instances (evaluation mode) and γ its label proportions.
	BagProportionError float64 `json:"bag_proportion_error"`
	// SelectedEpoch is the epoch whose network the result reports: the
	// last, or with Config.Select best-val the one with the lowest
	// validation KL.
	SelectedEpoch int `json:"selected_epoch"`
	// ValBagIDs are the ids of the bags held out (Config.ValBags), in the
	// order given; empty without.
	ValBagIDs []int `json:"val_bag_ids,omitempty"`
	// Model is the trained network when Config.KeepModel is set, else nil.
	Model *SavedModel `json:"-"`
	// Params are the final parameters (Learnables order).
	Params [][]float32 `json:"-"`
}

// InputError is an error of Train's input — its configuration or its data
// — rather than of training itself: callers report it as bad input (the
// command's exit status 2). errors.As finds it, and estimators.InputError
// (bags that cannot be grouped) likewise.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }

func (e *InputError) Unwrap() error { return e.Err }

// SavedModel is a trained network as it leaves training: the
// spec it was built from (architecture, input shape, classes) and its
// parameters and batch-norm buffers as the state dict of the equivalent
// PyTorch module (models.StateDict). NewPredictor runs it.
type SavedModel struct {
	Spec  ModelSpec
	State []models.StateTensor
}
