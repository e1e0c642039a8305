package grid

import (
	"slices"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/training"
	"github.com/llpfc/llpfc/training/methods"
)

// AuthorsHyper returns, for a method with an authors' preset (its
// descriptor's Authors in training/methods, read from their code at the
// pinned commits: PAPER_MAP, "Newer methods"), that preset as a cell's
// optimizer, learning rate, momentum, weight decay, β, minibatch of bags and
// flooding level; ok is false for a method without one.
//
// The schedules are left out: every cell of a table shares one (the
// authors' are per iteration: a quarter cosine, after an 8% linear warm-up
// for LLP-PVC; MixBag's is constant, with early stopping on validation
// bags).
func AuthorsHyper(method string) (h experiments.Hyper, ok bool) {
	d, ok := experiments.Method(method)
	if !ok || d.Authors == nil {
		return experiments.Hyper{}, false
	}
	a := d.Authors
	return experiments.Hyper{Optimizer: a.Optimizer, LR: a.LR, Momentum: a.Momentum, WeightDecay: a.WeightDecay,
		Beta1: a.Beta1, Beta2: a.Beta2, BatchSize: a.BatchSize, Flood: a.Flood}, true
}

// newerOverrides sets each method's authors' preset in a table
// (AuthorsHyper), for every method that has one (with EasyLLP, flooded at
// its authors' level: with the plain loss of easyllp.py, whose line 280 has
// the same flooding commented out, the negative soft labels of the paper
// protocol's bags leave the loss unbounded below and the mlp's logits
// diverge, NaN within 4 epochs at bag sizes 32 and 128, seed 0, in this
// grid's first run). A minibatch larger than the bags there are (MixBag's 32
// at bag size 2048 of 40,960 points, where there are 20) is one minibatch
// of all the bags, as the authors' PyTorch DataLoader makes it; Config
// validation allows it for these methods only. A preset's own settings
// (methods.Preset.Settings: LLP-PVC's FFT product, training.PVCFFT, as the
// committed tables were trained) are set with it.
func newerOverrides() []Override { return authorsOverrides(true) }

// authorsOverrides is newerOverrides; with presetSettings false a preset's
// own settings are left out (the method's defaults: LLP-PVC's exact
// likelihood).
func authorsOverrides(presetSettings bool) []Override {
	var out []Override
	for _, m := range experiments.NewerMethods() {
		h, _ := AuthorsHyper(m)
		set1 := obj{"optimizer": h.Optimizer, "lr": h.LR, "momentum": h.Momentum, "weight_decay": h.WeightDecay,
			"beta1": h.Beta1, "beta2": h.Beta2, "batch_size": h.BatchSize}
		if h.Flood != 0 {
			set1["flood"] = h.Flood
		}
		d, _ := experiments.Method(m)
		for k, v := range d.Authors.Settings {
			if presetSettings {
				set1[string(k)] = v
			}
		}
		out = append(out, Override{When: Match{Methods: []string{m}}, Set: set(obj{"hyper": set1})})
	}
	return out
}

// TunedSeeds are the seeds of the tuned comparison (at least 5, for
// paired intervals).
var TunedSeeds = []int64{0, 1, 2, 3, 4}

// TunedValBags is the share of a tuned cell's bags held out to choose its
// trial by their proportion loss (no instance label).
const TunedValBags = 0.1

// TunedMethods are the methods of the tuned comparisons, named rather than
// read from the registry, so that registering a method changes no committed
// grid (its store would lack the new method's cells and its report, plots
// and counts would change): every method that trains any classifier when the
// comparisons ran (LLP-GAN, which needs its own discriminator, excepted), in
// the tables' row order. A new method joins them by being added here, and
// its cells are then run into the committed stores.
var TunedMethods = []string{training.MethodKL, training.MethodLLPVAT, training.MethodEasyLLP, training.MethodMixBag,
	training.MethodLLPPVC, methods.SqProp, training.MethodLLPFCIdeal, training.MethodLLPFCUniform, training.MethodLLPFCApprox,
	training.Supervised}

// fashionMNISTTunedSpec is the tuned comparison on the paper
// protocol: fashionMNISTSpec's data, model, bag sizes and 10 epochs, but
// TunedMethods (every method that trains any classifier, LLP-GAN excepted), 5 seeds, and
// each cell's learning rate chosen without a label (Spec.Tune: each
// method's search space from its descriptor, the same number of trials for
// every method, scored by the proportion loss of 10% of the bags held out);
// the newer methods keep their authors' optimizer, minibatch and flooding
// (authorsOverrides), LLP-PVC its exact likelihood.
func fashionMNISTTunedSpec() *Spec { return tuned(fashionMNISTSpec(), "fashion-mnist-tuned") }

// tuned is s as the tuned comparison runs it (fashionMNISTTunedSpec), named
// name.
func tuned(s *Spec, name string) *Spec {
	s.Name = name
	s.Description = s.Protocol + " protocol, full Fashion-MNIST, mlp, every method but LLP-GAN, its rate tuned without labels on 10% held-out bags, 5 seeds, 10 epochs"
	s.Methods = slices.Clone(TunedMethods)
	s.Seeds = TunedSeeds
	s.Tune = true
	s.Hyper.ValBags = TunedValBags
	var keep []Override
	for _, o := range s.Overrides {
		if !slices.ContainsFunc(o.When.Methods, experiments.IsNewer) {
			keep = append(keep, o)
		}
	}
	// Every method's own minibatch: its descriptor's default (its authors'
	// for the newer ones, below), not the table's 128 instances.
	for _, m := range s.Methods {
		if d, _ := experiments.Method(m); d.Batch == methods.Bags && d.Authors == nil {
			keep = append(keep, Override{When: Match{Methods: []string{m}}, Set: set(obj{"hyper": obj{"batch_size": d.DefaultBatch}})})
		}
	}
	for _, o := range authorsOverrides(false) {
		keep = append(keep, o.without("lr")) // the rate is searched (tunedAway)
	}
	s.Overrides = keep
	return s
}

// StepMatchedEpochs are the epochs of the step-matched runs:
// with a minibatch of one bag, the 18 training bags of bag size 2048 (20
// less the 2 held out) give 18 steps an epoch, and 89 epochs 1602 steps —
// the 1600 optimizer steps LLPFC-uniform makes in the tuned comparison's
// cell (one group of 10 bags of 2048, the other 8 left out of its
// grouping: 160 minibatches of 128 instances an epoch, 10 epochs).
const StepMatchedEpochs = 89

// stepMatchedSpec is the budget check beside the tuned comparison: at bag
// size 2048, where a minibatch of bags leaves the bag methods
// 10 to 90 optimizer steps in 10 epochs, KL, EasyLLP, MixBag and LLP-PVC
// with a minibatch of one bag and StepMatchedEpochs epochs, so that they make
// as many optimizer steps as LLPFC-uniform; tuned as the comparison, seed 0
// only (each cell is 16 times a comparison cell's work). A reader sets it
// beside the comparison's cell to tell the budget from the method.
func stepMatchedSpec() *Spec {
	return stepMatched(fashionMNISTSpec(), "fashion-mnist-step-matched",
		"paper protocol, Fashion-MNIST, mlp, bag size 2048: KL, EasyLLP, MixBag, LLP-PVC with one bag a step for as many steps as LLPFC-uniform's cell, tuned without labels, seed 0",
		2048, StepMatchedEpochs)
}

// ShuffleStepMatchedEpochs are the epochs of the near-uniform step-matched
// runs: with a minibatch of one bag, the 36 training bags of bag size 1024
// (40 less the 4 held out) give 36 steps an epoch, and 67 epochs 2412 steps
// — the 2400 optimizer steps LLPFC-uniform makes in the near-uniform tuned
// comparison's cell (three groups of 10 bags of 1024, the other 6 left out
// of its grouping: 240 minibatches of 128 instances an epoch, 10 epochs).
const ShuffleStepMatchedEpochs = 67

// shuffleStepMatchedSpec is stepMatchedSpec beside the near-uniform tuned
// comparison (fashion-mnist-shuffle-tuned), at its largest bag size, 1024,
// where the bag methods make 20 to 180 optimizer steps in 10 epochs.
func shuffleStepMatchedSpec() *Spec {
	return stepMatched(fashionMNISTShuffleSpec(), "fashion-mnist-shuffle-step-matched",
		"shuffle protocol (near-uniform bags), Fashion-MNIST, mlp, bag size 1024: KL, EasyLLP, MixBag, LLP-PVC with one bag a step for as many steps as LLPFC-uniform's cell, tuned without labels, seed 0",
		1024, ShuffleStepMatchedEpochs)
}

// stepMatched is base tuned as the comparison (tuned), named name, cut to
// KL, EasyLLP, MixBag and LLP-PVC at one bag size and seed 0, with a
// minibatch of one bag for epochs epochs.
func stepMatched(base *Spec, name, description string, bagSize, epochs int) *Spec {
	s := tuned(base, name)
	s.Description = description
	s.Methods = []string{training.MethodKL, training.MethodEasyLLP, training.MethodMixBag, training.MethodLLPPVC}
	s.BagSizes = []int{bagSize}
	s.Seeds = []int64{0}
	s.Hyper.Epochs = epochs
	s.Overrides = append(s.Overrides, Override{When: Match{Methods: s.Methods}, Set: set(obj{"hyper": obj{"batch_size": 1}})})
	return s
}

// StepBudget is the optimizer steps of every cell of the step-matched
// comparisons (fashion-mnist-steps, fashion-mnist-shuffle-steps): ten passes
// over the 36,864 training points (40,960 less the 10% of bags held out) in
// minibatches of StepInstances — what the supervised ceiling and LLPFC-uniform
// make in ten epochs where no bag is left out of LLPFC's groups.
const StepBudget = 2880

// StepInstances is the instances a step of the step-matched comparisons
// sees: LLPFC's and the ceiling's minibatch of 128, and as many bags as
// hold 128 instances for a method whose minibatch counts bags — one bag
// where a bag is larger, the least a bag-level loss can take. With the
// same steps every method then makes the same updates on the same data
// at bag sizes up to 128; above, a bag method sees bagSize/128 times the
// instances of LLPFC's step, which the report prints beside the steps.
const StepInstances = 128

// StepSearchLimits are the limits of the step-matched comparisons'
// searches (Spec.Extend): from each method's grid {1e-4, …, 3e-3} the
// search extends down to 1e-6 and up to 0.1, a rung at a time.
var StepSearchLimits = experiments.SearchExtend{Min: 1e-6, Max: 0.1}

// StepsBagSizes and ShuffleStepsBagSizes are the bag sizes of the
// step-matched comparisons: of the equal-epoch comparison's, those this
// project's 2-core machine regenerates in a sitting (the rest are a Slurm
// job array: docs/comparison.md).
var (
	StepsBagSizes        = []int{128, 512}
	ShuffleStepsBagSizes = []int{64, 256}
)

// stepsSpec is base tuned as the comparison (tuned), named name, with
// every cell trained for StepBudget optimizer steps instead of 10 epochs,
// every bag method's minibatch the bags of StepInstances instances (at
// least one), and every search extending within StepSearchLimits — the
// comparison at equal optimizer steps.
func stepsSpec(base *Spec, name string, bagSizes []int) *Spec {
	s := tuned(base, name)
	s.Description = s.Protocol + " protocol, full Fashion-MNIST, mlp, every method but LLP-GAN at 2880 optimizer steps (bag methods one step = 128 instances or one bag), its rate tuned without labels on 10% held-out bags by a search that extends past its ends, 5 seeds"
	s.BagSizes = append([]int(nil), bagSizes...)
	s.Hyper.Epochs, s.Hyper.Steps = 0, StepBudget
	ext := StepSearchLimits
	s.Extend = &ext
	var bagMethods []string
	for _, m := range s.Methods {
		if !experiments.CountsInstances(m) {
			bagMethods = append(bagMethods, m)
		}
	}
	for _, b := range s.BagSizes {
		s.Overrides = append(s.Overrides, Override{When: Match{Methods: bagMethods, BagSizes: []int{b}},
			Set: set(obj{"hyper": obj{"batch_size": max(1, StepInstances/b)}})})
	}
	return s
}
