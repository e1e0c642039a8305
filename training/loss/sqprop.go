package loss

import "fmt"

// SqProp is the squared-error proportion loss of a minibatch of bags, a
// BagObjective on the softmax outputs (HeadSoftmax): with p̄_b the mean
// prediction of bag b's m_b instances and α_b its proportions,
//
//	L = (1/B) Σ_b Σ_c (p̄_bc − α_bc)²,   ∂L/∂p_ic = (2/B)(p̄_bc − α_bc)/m_b for i in b,
//
// the L2 counterpart of the KL proportion loss (App. `subsec:KL`): bounded,
// and zero exactly when every bag's mean prediction is its proportions
// (the example of a method added as a loss, its test and one
// registration).
type SqProp struct {
	mean []float64
}

// Head implements BagObjective: the softmax outputs.
func (*SqProp) Head() Head { return HeadSoftmax }

// Loss implements BagObjective: out holds the softmax outputs.
func (l *SqProp) Loss(out []float64, C int, bags []BagRef, grad []float64) (float64, error) {
	if len(bags) == 0 || len(grad) != len(out) {
		return 0, fmt.Errorf("squared proportion loss: %d bags, %d outputs and %d gradients", len(bags), len(out), len(grad))
	}
	l.mean = growF(l.mean, C)
	invB := 1 / float64(len(bags))
	var loss float64
	start := 0
	for b, bag := range bags {
		m := len(bag.Indices)
		if len(bag.Proportions) != C || m == 0 || (start+m)*C > len(out) {
			return 0, fmt.Errorf("squared proportion loss: bag %d: %d proportions for %d classes, %d instances from %d of %d outputs", b, len(bag.Proportions), C, m, start, len(out)/C)
		}
		clear(l.mean)
		for i := start; i < start+m; i++ {
			for c := 0; c < C; c++ {
				l.mean[c] += out[i*C+c]
			}
		}
		for c := 0; c < C; c++ {
			d := l.mean[c]/float64(m) - bag.Proportions[c]
			loss += invB * d * d
			coef := 2 * invB * d / float64(m)
			for i := start; i < start+m; i++ {
				grad[i*C+c] = coef
			}
		}
		start += m
	}
	return loss, bagLossDone("squared proportion loss", start, len(out)/C, loss)
}
