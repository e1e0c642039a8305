package loss

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// MixBag (Asanomi et al., "MixBag: Bag-Level Data Augmentation for Learning
// from Label Proportions", ICCV 2023; code asanomitakanori/Mixbag at
// ac6ceb9) trains the proportion loss on bags and on mixed bags: a sub-bag
// sampled from bag i joined to one sampled from bag j, labelled with the
// instance-weighted mixture of their proportions and a confidence interval
// for the mixed bag's true proportions; the confidence-interval loss (CILoss)
// ignores a class whose predicted proportion lies inside its interval.

// MixBagCI is the authors' one-sided level q of the interval (their
// --confidence_interval default 0.005, "99% confidential interval",
// arguments.py@ac6ceb9:58-65).
const MixBagCI = 0.005

// MixBagEps is the authors' ε inside the logarithm of the proportion and
// confidence-interval losses (utils/losses.py@ac6ceb9:10-13, 28-31).
const MixBagEps = 1e-8

// MixBagInterval fills mix with the expected proportions of a mixed bag made
// of ni instances drawn from a bag with proportions pi and nj from one with
// pj, and lo, hi with their confidence interval at one-sided level q, as
// ci_loss_interval (utils/utils.py@ac6ceb9:45-61): with a = ni/(ni+nj),
// b = nj/(ni+nj) and t = Φ⁻¹(1 − q),
//
//	mix = a·pi + b·pj,   mix ± (a·t·√(pi(1−pi)/ni) + b·t·√(pj(1−pj)/nj)).
//
// A proportion a rounding error outside [0, 1] (1 + 2⁻⁵², a sum of 1/m's)
// counts as 0 or 1 in the variance p(1−p): its square root was NaN, and the
// mixed bag lost its interval (found by the coverage claim
// `mixbag: interval coverage`; TestMixBagIntervalProportionsAtTheEnds).
func MixBagInterval(mix, lo, hi, pi, pj []float64, ni, nj int, q float64) {
	a := float64(ni) / float64(ni+nj)
	b := float64(nj) / float64(ni+nj)
	t := distuv.UnitNormal.Quantile(1 - q)
	for c := range mix {
		ci := t * math.Sqrt(math.Max(pi[c]*(1-pi[c]), 0)/float64(ni))
		cj := t * math.Sqrt(math.Max(pj[c]*(1-pj[c]), 0)/float64(nj))
		mix[c] = a*pi[c] + b*pj[c]
		w := a*ci + b*cj
		lo[c], hi[c] = mix[c]-w, mix[c]+w
	}
}

// MixBagPair draws MixBag's mixed bag of bags bi and bj by the authors'
// "uniform" γ-sampling (utils/dataset.py@ac6ceb9:136-156, 169-182): a
// number ni uniform in 1..mi−1 (numpy's randint(1, m)), ni instances of bi
// and nj = mj − round(ni·mj/mi) of bj (mj − ni when the bags are equal, as
// the authors' bags all are), each drawn without replacement; its
// proportions and interval are MixBagInterval's at level q. A bag of one
// instance cannot be split: the result is then bi as it is (no interval).
func MixBagPair(r *rand.Rand, bi, bj BagRef, q float64) BagRef {
	mi, mj := len(bi.Indices), len(bj.Indices)
	if mi < 2 || mj < 1 {
		return BagRef{Indices: bi.Indices, Proportions: bi.Proportions}
	}
	ni := 1 + r.IntN(mi-1)
	nj := min(max(mj-int(math.Round(float64(ni)*float64(mj)/float64(mi))), 1), mj)
	idx := make([]int, 0, ni+nj)
	idx = appendSample(idx, r, bi.Indices, ni)
	idx = appendSample(idx, r, bj.Indices, nj)
	C := len(bi.Proportions)
	out := BagRef{Indices: idx, Proportions: make([]float64, C), Lo: make([]float64, C), Hi: make([]float64, C)}
	MixBagInterval(out.Proportions, out.Lo, out.Hi, bi.Proportions, bj.Proportions, ni, nj, q)
	return out
}

// appendSample appends n of from's elements drawn without replacement.
func appendSample(dst []int, r *rand.Rand, from []int, n int) []int {
	perm := r.Perm(len(from))
	for _, i := range perm[:n] {
		dst = append(dst, from[i])
	}
	return dst
}

// CILoss is MixBag's confidence-interval loss of a minibatch of bags, a
// BagObjective on the softmax outputs (HeadSoftmax), as
// ConfidentialIntervalLoss (utils/losses.py@ac6ceb9:28-38): with p̂_b the
// bag's mean prediction and t_b its proportions,
//
//	L = (1/B) Σ_b Σ_c −t_bc · log(m_bc + ε),   m_bc = t_bc if lo_bc ≤ p̂_bc ≤ hi_bc, else p̂_bc,
//
// so a class inside its interval adds a constant and no gradient. A bag
// without an interval (Lo nil; the authors' −1) is the plain proportion
// loss. Eps is ε (MixBagEps when 0).
type CILoss struct {
	Eps float64

	mean []float64
	diag BagDiagnostics
}

// Diagnostics implements Diagnosed: the calls, the loss (RawLoss the same:
// MixBag has no flooding or floor), the class terms and those inside their
// interval.
func (l *CILoss) Diagnostics() BagDiagnostics { return l.diag }

// ResetDiagnostics implements Diagnosed.
func (l *CILoss) ResetDiagnostics() { l.diag = BagDiagnostics{} }

// Head implements BagObjective: the softmax outputs.
func (*CILoss) Head() Head { return HeadSoftmax }

// Loss implements BagObjective: out holds the softmax outputs.
func (l *CILoss) Loss(out []float64, C int, bags []BagRef, grad []float64) (float64, error) {
	eps := l.Eps
	if eps == 0 {
		eps = MixBagEps
	}
	if len(bags) == 0 || len(grad) != len(out) {
		return 0, fmt.Errorf("MixBag loss: %d bags, %d outputs and %d gradients", len(bags), len(out), len(grad))
	}
	l.mean = growF(l.mean, C)
	invB := 1 / float64(len(bags))
	var loss float64
	start, inside := 0, 0
	for b, bag := range bags {
		m := len(bag.Indices)
		if len(bag.Proportions) != C || (start+m)*C > len(out) || (bag.Lo != nil && (len(bag.Lo) != C || len(bag.Hi) != C)) {
			return 0, fmt.Errorf("MixBag loss: bag %d: %d proportions for %d classes, %d instances from %d of %d outputs", b, len(bag.Proportions), C, m, start, len(out)/C)
		}
		clear(l.mean)
		for i := start; i < start+m; i++ {
			for c := 0; c < C; c++ {
				l.mean[c] += out[i*C+c]
			}
		}
		for c := 0; c < C; c++ {
			pc := l.mean[c] / float64(m)
			t := bag.Proportions[c]
			coef := 0.0
			if bag.Lo != nil && pc >= bag.Lo[c] && pc <= bag.Hi[c] {
				loss -= invB * t * math.Log(t+eps)
				inside++
			} else {
				loss -= invB * t * math.Log(pc+eps)
				coef = -invB * t / (pc + eps) / float64(m)
			}
			for i := start; i < start+m; i++ {
				grad[i*C+c] = coef
			}
		}
		start += m
	}
	if err := bagLossDone("MixBag loss", start, len(out)/C, loss); err != nil {
		return loss, err
	}
	l.diag.Calls++
	l.diag.Loss += loss
	l.diag.RawLoss += loss
	l.diag.Terms += len(bags) * C
	l.diag.Inside += inside
	return loss, nil
}
