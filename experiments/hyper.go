package experiments

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/training/methods"

	"github.com/llpfc/llpfc/training"
)

// Hyper holds the training hyperparameters of a cell (App. `suppsec: exp`,
// "Architecture and Hyperparameters" and "Implementation Details of LLPFC").
// The settings that name a choice are typed (estimators.WeightScheme,
// training.KLScale, …): they are parsed once, where a spec, a result or a
// flag enters (their UnmarshalText), and the layers below take the types
// (a setting is parsed once).
// As in gonum's optimize.Settings, every field whose zero value has a meaning
// says it; a field tagged omitempty is left out of the canonical encoding at
// its zero value, so its zero must be the behaviour cells had before the
// field existed (TestZeroValuesDocumented).
type Hyper struct {
	// Epochs is the number of passes over the bags; 0 is an error
	// (Validate) unless Steps is set.
	Epochs int `json:"epochs"`
	// Steps, when > 0, is the cell's budget in optimizer steps
	// (training.Config.Steps): exactly Steps updates, in as many passes as
	// they take, the last one cut short; Epochs must then be 0. It is how a
	// comparison gives methods whose minibatches count bags and methods whose
	// minibatches count instances the same number of updates. Zero means
	// Epochs passes.
	Steps int `json:"steps,omitempty"`
	// Optimizer is "sgd", "nesterov" (SGD with Nesterov momentum, dampening
	// 0), "adam" or "adamw"; "gd" is full-batch gradient descent (logreg only).
	// Empty is an error.
	Optimizer string `json:"optimizer"`
	// LR is the base learning rate; 0 is an error.
	LR float64 `json:"lr"`
	// Momentum μ of sgd and nesterov; zero means none (plain SGD), and is an
	// error with nesterov. Adam ignores it.
	Momentum float64 `json:"momentum,omitempty"`
	// WeightDecay λ; zero means no weight decay.
	WeightDecay float64 `json:"weight_decay,omitempty"`
	// Beta1 and Beta2 are Adam's and AdamW's β₁, β₂; zero means PyTorch's
	// defaults 0.9 and 0.999 (training.OptimizerConfig).
	Beta1 float64 `json:"beta1,omitempty"`
	Beta2 float64 `json:"beta2,omitempty"`
	// BatchSize counts instances for the LLPFC methods and bags for kl,
	// llpvat and llpgan (the appendix uses 128 or 256 instances; 2, 2 and 1
	// bags); zero in a spec means the method's default (its descriptor's
	// DefaultBatch, filled in when the spec's cells are made), and is an
	// error in a cell.
	BatchSize int `json:"batch_size"`
	// Schedule is the learning-rate schedule; its empty Kind is an error
	// in a spec (see Schedule).
	Schedule Schedule `json:"schedule"`
	// RegroupEvery re-partitions the bags into groups every r epochs for the
	// LLPFC methods (App. "Implementation Details of LLPFC": 20, or 5 for
	// VGG16); zero means never: the groups drawn at epoch 0 serve the whole
	// run (training.Config.RegroupEvery's zero).
	RegroupEvery int `json:"regroup_every,omitempty"`
	// Dropout is the dropout probability of architectures that have dropout;
	// zero means none.
	Dropout float64 `json:"dropout,omitempty"`
	// Augment applies the appendix's augmentation: zero-pad 4, random crop,
	// random horizontal flip; false means none.
	Augment bool `json:"augment,omitempty"`
	// VATEps and VATXi are LLP-VAT's perturbation radius ε and
	// finite-difference step ξ; zero means the appendix's ε (6 for CIFAR10, 1
	// for the other data sets) and the authors' ξ = 1e-6
	// (training.PaperVATConfig).
	VATEps float64 `json:"vat_eps,omitempty"`
	VATXi  float64 `json:"vat_xi,omitempty"`
	// VATPowerIters is LLP-VAT's number of power iterations; zero means the
	// authors' 1.
	VATPowerIters int `json:"vat_power_iters,omitempty"`
	// Weights is the LLPFC group weighting w ∈ Δ^N: "uniform" (w_i = 1/N,
	// Section 6; empty means uniform), "hm" or "chvol" (see
	// estimators.WeightScheme).
	Weights estimators.WeightScheme `json:"weights,omitempty"`
	// Compat is "paper" (Algorithms 1–3; empty means paper) or "original"
	// (the authors' code where it differs; see estimators.Compat).
	Compat estimators.Compat `json:"compat,omitempty"`
	// KLScale is the scale of kl's and llpvat's proportion loss: "authors"
	// (Σ over classes, mean over bags, as the authors' code trains) or
	// "paper" (the paper's 1/(C·B)); see training.KLScale. Empty for the
	// other methods; a spec's empty value is filled with "authors" in every
	// kl and llpvat cell, and TrainingConfig reads empty as "authors".
	KLScale training.KLScale `json:"kl_scale,omitempty"`
	// VATRampup is llpvat's consistency-weight schedule: "authors" (a
	// constant 0.05, what the LLPFC authors' code computes) or "llpvat"
	// (LLP-VAT's ramp-up over 40% of the steps); see training.VATRampup.
	// Empty for the other methods; a spec's empty value is filled with
	// "authors" in every llpvat cell, and TrainingConfig reads empty as
	// "authors".
	VATRampup training.VATRampup `json:"vat_rampup,omitempty"`
	// Flood is easyllp's flooding level b: the loss trained is |L − b| + b
	// (the authors' easyllp_flood.py; training.Config.Flood); zero means none,
	// EasyLLP's plain loss. Zero for the other methods.
	Flood float64 `json:"flood,omitempty"`
	// PVCLikelihood is llppvc's likelihood (training.PVCLikelihood):
	// "exact" (exact at every bag size and target) or "fft" (the authors'
	// FFT product). Zero (empty) means "fft", what every llppvc cell trained
	// before the setting existed ran, so that their keys stay; a spec's
	// empty value is filled with "exact" in every llppvc cell, and its "fft"
	// is written empty (one run, one key). Zero for the other methods.
	PVCLikelihood training.PVCLikelihood `json:"pvc_likelihood,omitempty"`
	// BNStats is the batch-norm statistics of kl's and llpvat's proportion
	// loss when a minibatch of bags spans several chunks: empty means the
	// whole minibatch's (as the authors' code; see training.BNStats), or
	// "chunk" (each chunk's own). Empty for the other methods.
	BNStats training.BNStats `json:"bn_stats,omitempty"`
	// ChunkSize is the number of instances per forward pass of the bag
	// methods' losses (kl, llpvat): it bounds their memory, and it changes
	// the result with BNStats "chunk" (and the order of float32 sums
	// otherwise); zero means training.DefaultChunkSize (256).
	ChunkSize int `json:"chunk_size,omitempty"`
	// ValBags holds bags out of training for model selection
	// (training.Config.ValBags: a fraction in (0, 1) or a number of bags);
	// zero means none, as the paper's tables (the authors' -v defaults to 0).
	ValBags float64 `json:"val_bags,omitempty"`
	// Select chooses the reported network: empty or "last" (the last
	// epoch's, the paper's) or "best-val" (the lowest validation KL of the
	// held-out bags; needs ValBags).
	Select training.Selection `json:"select,omitempty"`
	// Search, when not nil, tunes the cell without a label: every
	// combination of its learning rates and minibatches is one trial,
	// trained on the bags ValBags leaves, and the cell reports the trial
	// whose held-out bags' proportion loss (the validation KL of its last
	// epoch) is lowest; LR (and BatchSize, when Search lists minibatches)
	// are then 0. Nil means no search: LR and BatchSize are the cell's.
	Search *Search `json:"search,omitempty"`
	// Settings are the cell's values of its method's own settings that have
	// no field above (each declared in the method's descriptor,
	// methods.Setting: every setting declared since settings were), by name,
	// as a spec writes them under "settings"; nil, or a setting left out,
	// means its default, which a cell's key never states (StateSettings), so
	// that declaring a setting keeps every key. The settings of before (the
	// KL scale, flooding, …) keep their fields above, and their keys.
	Settings methods.Values `json:"settings,omitempty"`
}

// Search is a cell's label-free search space (Hyper.Search): a spec's
// "tune" fills it from each method's descriptor (training/methods,
// Descriptor.Search), so that every method of a table gets the same number
// of trials over the same rule.
type Search struct {
	// LR are the learning rates tried; empty is an error.
	LR []float64 `json:"lr"`
	// BatchSize are the minibatches tried (in the method's unit); empty
	// means the cell's hyper.batch_size alone.
	BatchSize []int `json:"batch_size,omitempty"`
	// Extend, when not nil, carries the search past an end of LR: while the
	// chosen trial's rate is the lowest (highest) tried, the next rate below
	// (above) it on the ladder {1, 3}×10^k is tried too, within
	// [Extend.Min, Extend.Max] (SearchExtend). A method whose best rate lies
	// beyond the grid has otherwise not been tuned, only cut off. Nil
	// means LR alone.
	Extend *SearchExtend `json:"extend,omitempty"`
}

// SearchExtend is the limits of a search that extends past its ends
// (Search.Extend): no rate below Min or above Max is tried. A cell whose
// chosen rate still sits at the end of what was tried, the next rate
// beyond being past a limit, is flagged by the report.
type SearchExtend struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// LadderStep returns the rate next to lr on the ladder {1, 3}×10^k, below
// it when down, above it otherwise (1e-4 ↓ 3e-5 ↓ 1e-5; 3e-3 ↑ 1e-2 ↑
// 3e-2), written in decimal so that it equals the literal (3e-5, not
// 1e-4/3.33…); ok is false when lr is not on the ladder.
func LadderStep(lr float64, down bool) (next float64, ok bool) {
	if !(lr > 0) || math.IsInf(lr, 0) {
		return 0, false
	}
	k := int(math.Floor(math.Log10(lr) + 1e-9))
	var m int
	for _, c := range []int{1, 3} {
		if v, _ := strconv.ParseFloat(fmt.Sprintf("%de%d", c, k), 64); v == lr {
			m = c
		}
	}
	switch {
	case m == 0:
		return 0, false
	case down && m == 1:
		m, k = 3, k-1
	case down:
		m = 1
	case m == 1:
		m = 3
	default:
		m, k = 1, k+1
	}
	next, _ = strconv.ParseFloat(fmt.Sprintf("%de%d", m, k), 64)
	return next, true
}

// batchSizes are the minibatches a cell trains with: its own, or its
// search's.
func (h Hyper) batchSizes() []int {
	if h.Search != nil && len(h.Search.BatchSize) > 0 {
		return h.Search.BatchSize
	}
	return []int{h.BatchSize}
}

// Trials is the number of configurations s holds.
func (s Search) Trials() int { return max(len(s.LR), 1) * max(len(s.BatchSize), 1) }

// Each calls f with every configuration of s, learning rates outer, and
// batch the cell's when s lists none (0 here).
func (s Search) Each(f func(lr float64, batch int)) {
	batches := s.BatchSize
	if len(batches) == 0 {
		batches = []int{0}
	}
	for _, lr := range s.LR {
		for _, b := range batches {
			f(lr, b)
		}
	}
}

// Schedule is a learning-rate schedule: "constant"; "multistep" (multiply by
// Factor at each epoch in Milestones); "cosine" (cosine annealing with warm
// restarts, first period Period epochs, each next period ×Mult; zero Mult
// means 1). An empty Kind is an error in a spec (Validate); Training reads
// it as constant. The fields a kind does not use must be zero.
type Schedule struct {
	// Kind is "constant", "multistep" or "cosine"; empty is an error in a
	// spec, and constant for Training.
	Kind string `json:"kind"`
	// Milestones and Factor are multistep's; zero (empty) for the others.
	Milestones []int   `json:"milestones,omitempty"`
	Factor     float64 `json:"factor,omitempty"`
	// Period is cosine's first period in epochs (zero for the others), and
	// Mult the factor of each next period; zero Mult means 1.
	Period int `json:"period,omitempty"`
	Mult   int `json:"mult,omitempty"`
}

// LR returns the learning rate of epoch e (0-based) for base rate base: the
// rate of the training package's schedule (Training), so the grid and the
// engine share one implementation; an invalid schedule, which
// Validate refuses, keeps the base rate.
func (s Schedule) LR(base float64, e int) float64 {
	ts, err := s.Training()
	if err != nil {
		return base
	}
	return ts.LR(base, e)
}

// Training returns the schedule as package training implements it:
// constant, training.MultiStep (Factor is its Gamma) or
// training.CosineWarmRestarts (Period its T0, Mult its TMult, 0 meaning 1).
func (s Schedule) Training() (training.Schedule, error) {
	switch s.Kind {
	case "", "constant":
		return training.ConstantLR{}, nil
	case "multistep":
		ms := training.MultiStep{Milestones: append([]int(nil), s.Milestones...), Gamma: s.Factor}
		if err := ms.Validate(); err != nil {
			return nil, fmt.Errorf("hyper.schedule: %w", err)
		}
		return ms, nil
	case "cosine":
		return training.CosineWarmRestarts{T0: s.Period, TMult: max(s.Mult, 1)}, nil
	}
	return nil, fmt.Errorf("hyper.schedule.kind: is %q, want constant, multistep or cosine", s.Kind)
}

func (s Schedule) validate(epochs int) error {
	switch s.Kind {
	case "constant":
		if len(s.Milestones) > 0 || s.Factor != 0 || s.Period != 0 || s.Mult != 0 {
			return errors.New("hyper.schedule: kind constant takes no milestones, factor, period or mult")
		}
	case "multistep":
		if len(s.Milestones) == 0 {
			return errors.New("hyper.schedule.milestones: is empty, want the epochs at which the rate drops")
		}
		for i, m := range s.Milestones {
			if m <= 0 || m >= epochs {
				return fmt.Errorf("hyper.schedule.milestones[%d]: is %d, want in 1..epochs-1=%d", i, m, epochs-1)
			}
			if i > 0 && m <= s.Milestones[i-1] {
				return fmt.Errorf("hyper.schedule.milestones[%d]: is %d, want > milestones[%d]=%d (increasing)", i, m, i-1, s.Milestones[i-1])
			}
		}
		if !(s.Factor > 0 && s.Factor < 1) {
			return fmt.Errorf("hyper.schedule.factor: is %v, want in (0, 1)", s.Factor)
		}
	case "cosine":
		if s.Period <= 0 {
			return fmt.Errorf("hyper.schedule.period: is %d, want > 0 epochs", s.Period)
		}
		if s.Mult < 0 {
			return fmt.Errorf("hyper.schedule.mult: is %d, want ≥ 1 (or 0 = 1)", s.Mult)
		}
	default:
		return fmt.Errorf("hyper.schedule.kind: is %q, want constant, multistep or cosine", s.Kind)
	}
	return nil
}
