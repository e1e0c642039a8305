package loss

import (
	"fmt"
	"math"
)

// EasyLLPSoftLabels fills dst with EasyLLP's debiased soft label of an
// instance of a bag of k instances whose label proportions are alpha, under
// the class prior p (Busa-Fekete et al., "Easy Learning from Label
// Proportions", NeurIPS 2023; the multi-class form of the authors'
// easyllp.py@fe11a00:226):
//
//	ỹ_c = k·α_c − (k−1)·p_c.
//
// For bags of k instances drawn i.i.d. from the distribution whose class
// prior is p, E[Σ_c ỹ_c ℓ(f(x_i), c)] = E[ℓ(f(x), y)] for any loss ℓ: the
// soft labels make the instance-level loss an unbiased estimate of the
// supervised one (TestEasyLLPUnbiasedByEnumeration). ỹ may be negative.
func EasyLLPSoftLabels(dst, alpha, p []float64, k int) {
	for c := range dst {
		dst[c] = float64(k)*alpha[c] - float64(k-1)*p[c]
	}
}

// EasyLLP is EasyLLP's loss of a minibatch of bags, a BagObjective on the
// logits (HeadLogits): the cross-entropy of every instance against its
// bag's soft label (EasyLLPSoftLabels, k the bag's size), averaged over the
// n instances of the minibatch,
//
//	L = (1/n) Σ_i Σ_c −ỹ_{b(i),c} · log softmax(z_i)_c,
//
// which is what easyllp.py@fe11a00:276 computes with PyTorch's
// CrossEntropyLoss and probability targets. Prior is the class prior p; nil
// means the mean of the minibatch's bag proportions, as the authors' code
// estimates it (easyllp.py@fe11a00:225); the method passes the prior of all
// the training bags instead (see training's easyllp).
type EasyLLP struct {
	Prior []float64
	// Flood, when positive, is the flooding level b of the authors'
	// easyllp_flood.py@fe11a00:280-281: the loss returned is |L − b| + b and
	// its gradient sign(L − b)·∂L (below b the step climbs back).
	Flood float64

	soft, prior, lsm []float64
	diag             BagDiagnostics
}

// Diagnostics implements Diagnosed: the calls, the flooded (reversed) ones,
// the unflooded loss beside the trained one, and the soft labels' spread.
func (e *EasyLLP) Diagnostics() BagDiagnostics { return e.diag }

// ResetDiagnostics implements Diagnosed.
func (e *EasyLLP) ResetDiagnostics() { e.diag = BagDiagnostics{} }

// Head implements BagObjective: the logits.
func (*EasyLLP) Head() Head { return HeadLogits }

// Loss implements BagObjective: out holds the logits.
func (e *EasyLLP) Loss(out []float64, C int, bags []BagRef, grad []float64) (float64, error) {
	n := len(out) / C
	if n == 0 || len(grad) != len(out) {
		return 0, fmt.Errorf("EasyLLP loss: %d outputs and %d gradients for %d classes", len(out), len(grad), C)
	}
	p, err := e.priorOf(C, bags)
	if err != nil {
		return 0, err
	}
	e.soft = growF(e.soft, C)
	e.lsm = growF(e.lsm, C)
	var loss float64
	i := 0
	inv := 1 / float64(n)
	d := e.diag
	for b, bag := range bags {
		if len(bag.Proportions) != C {
			return 0, fmt.Errorf("EasyLLP loss: bag %d has %d proportions, want %d", b, len(bag.Proportions), C)
		}
		EasyLLPSoftLabels(e.soft, bag.Proportions, p, len(bag.Indices))
		d.soft(e.soft)
		var total float64
		for _, v := range e.soft {
			total += v
		}
		for range bag.Indices {
			if i >= n {
				return 0, fmt.Errorf("EasyLLP loss: the bags hold more than the %d outputs", n)
			}
			logSoftmax(e.lsm, out[i*C:(i+1)*C])
			g := grad[i*C : (i+1)*C]
			for c := 0; c < C; c++ {
				loss -= inv * e.soft[c] * e.lsm[c]
				// ∂/∂z_c of −Σ_j ỹ_j log softmax_j(z) = softmax_c·Σ_j ỹ_j − ỹ_c
				g[c] = inv * (math.Exp(e.lsm[c])*total - e.soft[c])
			}
			i++
		}
	}
	if err := bagLossDone("EasyLLP loss", i, n, loss); err != nil {
		return loss, err
	}
	d.Calls++
	d.RawLoss += loss
	if e.Flood > 0 && loss < e.Flood {
		for i := range grad {
			grad[i] = -grad[i]
		}
		loss = 2*e.Flood - loss
		d.Flooded++
	}
	d.Loss += loss
	e.diag = d
	return loss, nil
}

// priorOf returns e.Prior, or the mean of the bags' proportions.
func (e *EasyLLP) priorOf(C int, bags []BagRef) ([]float64, error) {
	if e.Prior != nil {
		if len(e.Prior) != C {
			return nil, fmt.Errorf("EasyLLP loss: prior of %d classes, want %d", len(e.Prior), C)
		}
		return e.Prior, nil
	}
	e.prior = growF(e.prior, C)
	clear(e.prior)
	for _, bag := range bags {
		for c := range e.prior {
			if c < len(bag.Proportions) {
				e.prior[c] += bag.Proportions[c] / float64(len(bags))
			}
		}
	}
	return e.prior, nil
}

// logSoftmax writes log softmax(z) into dst, shifted by the maximum.
func logSoftmax(dst, z []float64) {
	m := math.Inf(-1)
	for _, v := range z {
		m = max(m, v)
	}
	var s float64
	for _, v := range z {
		s += math.Exp(v - m)
	}
	ls := m + math.Log(s)
	for c, v := range z {
		dst[c] = v - ls
	}
}

// growF returns v with length n (contents unspecified), reusing its storage.
func growF(v []float64, n int) []float64 {
	if cap(v) < n {
		return make([]float64, n)
	}
	return v[:n]
}

// nonFiniteF reports whether v is NaN or ±Inf.
func nonFiniteF(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

// bagLossDone checks a bag objective's end: its bags held as many
// instances (seen) as there are outputs (n), and its loss is finite (a
// NonFiniteError naming what otherwise).
func bagLossDone(what string, seen, n int, loss float64) error {
	if seen != n {
		return fmt.Errorf("%s: the bags hold %d instances, the outputs %d", what, seen, n)
	}
	if nonFiniteF(loss) {
		return &NonFiniteError{What: what, Value: loss}
	}
	return nil
}
