package grid

import (
	"github.com/llpfc/llpfc/experiments"
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
// committed tables were trained, issue 50) are set with it.
func newerOverrides() []Override {
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
			set1[string(k)] = v
		}
		out = append(out, Override{When: Match{Methods: []string{m}}, Set: set(obj{"hyper": set1})})
	}
	return out
}
