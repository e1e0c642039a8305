package training

import (
	"github.com/llpfc/llpfc/training/loss"
)

func init() {
	RegisterMethod(MethodMixBag, func(env *MethodEnv) (Method, error) { return newMixBag(env) })
}

// newMixBag trains with MixBag: minibatches of Config.BatchSize bags (the
// authors' default 32, arguments.py@ac6ceb9:34-41), each bag replaced with
// probability 1/2 by its mixed bag with a bag drawn uniformly
// (loss.MixBagPair; utils/dataset.py@ac6ceb9:158-193), and the
// confidence-interval loss (loss.CILoss) on the bags' mean softmax outputs:
// the proportion loss −Σ_c t_c log(p̂_c + ε) of the original bags, the
// classes outside their 99% interval of the mixed ones
// (trainer.py@ac6ceb9:53-86).
func newMixBag(env *MethodEnv) (Method, error) {
	m, err := newBagMethod(env, MethodMixBag, loss.HeadSoftmax, &loss.CILoss{})
	if err != nil {
		return nil, err
	}
	m.mix = true
	return m, nil
}
