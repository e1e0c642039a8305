package methods

import (
	"github.com/llpfc/llpfc/training/loss"
)

// MixBag is MixBag's name (Asanomi et al., "MixBag: Bag-Level Data
// Augmentation for Learning from Label Proportions", ICCV 2023).
const MixBag = "mixbag"

func init() {
	RegisterBag(Descriptor{
		Name: MixBag, Label: "MixBag", Order: 50, Style: 5,
		Paper:        "Asanomi et al., MixBag: Bag-Level Data Augmentation for Learning from Label Proportions, ICCV 2023",
		Code:         "asanomitakanori/Mixbag@ac6ceb9",
		DefaultBatch: 32,
		Help:         "MixBag: bags mixed pairwise with probability ½, trained by the confidence-interval proportion loss",
		Authors: &Preset{Optimizer: "adam", LR: 3e-4, Beta1: 0.9, Beta2: 0.999, BatchSize: 32,
			Source: "trainer.py@ac6ceb9:24, arguments.py@ac6ceb9:34-57"},
		Search: DefaultSearch,
	}, BagSpec{Mix: true, Objective: newMixBag})
}

// newMixBag trains with MixBag: minibatches of Config.BatchSize bags (the
// authors' default 32, arguments.py@ac6ceb9:34-41), each bag replaced with
// probability 1/2 by its mixed bag with a bag drawn uniformly
// (loss.MixBagPair; utils/dataset.py@ac6ceb9:158-193), and the
// confidence-interval loss (loss.CILoss) on the bags' mean softmax outputs:
// the proportion loss −Σ_c t_c log(p̂_c + ε) of the original bags, the
// classes outside their 99% interval of the mixed ones
// (trainer.py@ac6ceb9:53-86).
func newMixBag(*Env) (loss.BagObjective, error) { return &loss.CILoss{}, nil }
