package learn

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training"
	"gonum.org/v1/gonum/mat"
)

func init() { experiments.RegisterLearner("logreg", LogReg{}) }

// LogReg is a small real learner: multinomial logistic regression f(x) =
// softmax(Wᵀx + b) in float64, trained by (minibatch) gradient descent on
//
//   - the LLPFC objective (Algorithms 2 and 3, line 11) for llpfc-uniform and
//     llpfc-approx: Σ_x w_x ℓ_{T̂_i}(f(x), ỹ_x) with the forward-corrected log
//     loss ℓ_T(q, c) = −log (Tq)_c (Section 2, "forward correction loss"),
//     regrouping every Hyper.RegroupEvery epochs (App. "Implementation Details
//     of LLPFC");
//   - the KL proportion loss (App. `subsec:KL`) for kl: on a minibatch of B
//     bags, −1/(CB) Σ_k Σ_c γ̂_k(c) log((1/m_k) Σ_j f_c(X^k_j)).
//
// Both objectives get +½·weight_decay·‖θ‖² (coupled L2 as in SGD). Model must
// be "linear". Optimizers: gd (one full-batch step per epoch), sgd, nesterov,
// adam, adamw. Parameters start at zero; the minibatch order comes from
// rng.New(seed, "minibatch") and the groups from rng.New(seed,
// estimators.StreamName); the bags from bagproto's stream "bags".
type LogReg struct{}

// logregModel holds θ = (W, b): W is D×C row-major, then b.
type logregModel struct {
	D, C  int
	theta []float64
}

func (m *logregModel) logits(x []float32, z []float64) {
	C := m.C
	copy(z, m.theta[m.D*C:])
	for j, v := range x {
		if v == 0 {
			continue
		}
		row := m.theta[j*C : (j+1)*C]
		for c := range z {
			z[c] += float64(v) * row[c]
		}
	}
}

// softmax overwrites z with softmax(z).
func softmax(z []float64) {
	mx := math.Inf(-1)
	for _, v := range z {
		mx = math.Max(mx, v)
	}
	s := 0.0
	for i, v := range z {
		z[i] = math.Exp(v - mx)
		s += z[i]
	}
	for i := range z {
		z[i] /= s
	}
}

// addOuter adds the gradient of a logit-space gradient dz at input x to grad.
func (m *logregModel) addOuter(grad []float64, x []float32, dz []float64, scale float64) {
	C := m.C
	for j, v := range x {
		if v == 0 {
			continue
		}
		row := grad[j*C : (j+1)*C]
		f := float64(v) * scale
		for c, d := range dz {
			row[c] += f * d
		}
	}
	for c, d := range dz {
		grad[m.D*C+c] += scale * d
	}
}

// fcObjective returns Σ_{x in inst} scale·w_x·ℓ_{T̂}(f(x), ỹ_x) and adds its
// gradient to grad. With p = f(x), r = row ỹ of T̂ and s = r·p, the gradient
// in the logits is ∂(−log s)/∂z_k = p_k − r_k p_k / s.
func (m *logregModel) fcObjective(X *data.Dataset, inst []fcInstance, T []*mat.Dense, scale float64, grad []float64) float64 {
	z := make([]float64, m.C)
	dz := make([]float64, m.C)
	loss := 0.0
	for _, in := range inst {
		x := X.Row(in.Index)
		m.logits(x, z)
		softmax(z)
		r := T[in.Group].RawRowView(in.Noisy)
		s := 0.0
		for k, p := range z {
			s += r[k] * p
		}
		s = math.Max(s, 1e-300)
		loss -= scale * in.Weight * math.Log(s)
		for k, p := range z {
			dz[k] = p - r[k]*p/s
		}
		if grad != nil {
			m.addOuter(grad, x, dz, scale*in.Weight)
		}
	}
	return loss
}

// klObjective returns −1/(C·B) Σ_{bags} Σ_c γ̂(c) log p̄_c, p̄ the bag's mean
// prediction, and adds its gradient to grad: with g_c = −γ̂(c)/(C·B·m·p̄_c),
// the gradient in instance j's logits is p_k (g_k − Σ_c g_c p_c). It is the
// paper's scale; klObjectiveAt gives the authors' (no 1/C).
func (m *logregModel) klObjective(X *data.Dataset, bags []estimators.Bag, grad []float64) float64 {
	return m.klObjectiveAt(X, bags, grad, m.C*len(bags))
}

// klObjectiveAt is klObjective with the normalizer den in place of C·B: the
// authors' scale (training.KLScaleAuthors) is den = B.
func (m *logregModel) klObjectiveAt(X *data.Dataset, bags []estimators.Bag, grad []float64, den int) float64 {
	C := m.C
	loss := 0.0
	g := make([]float64, C)
	dz := make([]float64, C)
	for _, b := range bags {
		probs := make([]float64, len(b.Indices)*C)
		pbar := make([]float64, C)
		for j, ix := range b.Indices {
			p := probs[j*C : (j+1)*C]
			m.logits(X.Row(ix), p)
			softmax(p)
			for c := range pbar {
				pbar[c] += p[c] / float64(len(b.Indices))
			}
		}
		for c, gam := range b.Proportions {
			if gam == 0 {
				g[c] = 0
				continue
			}
			pc := math.Max(pbar[c], 1e-300)
			loss -= gam * math.Log(pc) / float64(den)
			g[c] = -gam / (float64(den*len(b.Indices)) * pc)
		}
		if grad == nil {
			continue
		}
		for j, ix := range b.Indices {
			p := probs[j*C : (j+1)*C]
			gp := 0.0
			for c := range p {
				gp += g[c] * p[c]
			}
			for k := range dz {
				dz[k] = p[k] * (g[k] - gp)
			}
			m.addOuter(grad, X.Row(ix), dz, 1)
		}
	}
	return loss
}

// decay adds ½·wd·‖θ‖² to the loss and wd·θ to grad.
func (m *logregModel) decay(wd float64, grad []float64) float64 {
	if wd == 0 {
		return 0
	}
	s := 0.0
	for i, t := range m.theta {
		s += t * t
		if grad != nil {
			grad[i] += wd * t
		}
	}
	return 0.5 * wd * s
}

// accuracy is the fraction of d classified correctly by argmax.
func (m *logregModel) accuracy(d *data.Dataset) float64 {
	z := make([]float64, m.C)
	right := 0
	for i := 0; i < d.N; i++ {
		m.logits(d.Row(i), z)
		best := 0
		for c := range z {
			if z[c] > z[best] {
				best = c
			}
		}
		if best == d.Y[i] {
			right++
		}
	}
	return float64(right) / float64(d.N)
}

// optimizer applies one step to θ given the gradient.
type optimizer struct {
	h    experiments.Hyper
	v, s []float64 // momentum / Adam moments
	t    int
}

func (o *optimizer) step(theta, grad []float64, lr float64) {
	h := o.h
	if o.v == nil {
		o.v = make([]float64, len(theta))
		o.s = make([]float64, len(theta))
	}
	switch h.Optimizer {
	case "gd":
		for i := range theta {
			theta[i] -= lr * grad[i]
		}
	case "sgd", "nesterov": // PyTorch SGD with dampening 0
		for i, g := range grad {
			o.v[i] = h.Momentum*o.v[i] + g
			d := o.v[i]
			if h.Optimizer == "nesterov" {
				d = g + h.Momentum*o.v[i]
			}
			theta[i] -= lr * d
		}
	case "adam", "adamw":
		b1, b2 := h.Beta1, h.Beta2
		if b1 == 0 {
			b1 = 0.9
		}
		if b2 == 0 {
			b2 = 0.999
		}
		o.t++
		c1, c2 := 1-math.Pow(b1, float64(o.t)), 1-math.Pow(b2, float64(o.t))
		for i, g := range grad {
			o.v[i] = b1*o.v[i] + (1-b1)*g
			o.s[i] = b2*o.s[i] + (1-b2)*g*g
			if h.Optimizer == "adamw" {
				theta[i] -= lr * h.WeightDecay * theta[i]
			}
			theta[i] -= lr * (o.v[i] / c1) / (math.Sqrt(o.s[i]/c2) + 1e-8)
		}
	}
}

// Train implements Learner.
func (LogReg) Train(ctx context.Context, cell experiments.Cell, p experiments.Progress) (experiments.Metrics, error) {
	c := cell.Config
	h := c.Hyper
	if c.Model != "linear" {
		return experiments.Metrics{}, fmt.Errorf("model %q: the logreg learner trains only model \"linear\"", c.Model)
	}
	if c.Method != training.MethodKL && !experiments.IsLLPFC(c.Method) {
		return experiments.Metrics{}, fmt.Errorf("method %q: the logreg learner implements llpfc-ideal, llpfc-uniform, llpfc-approx and kl", c.Method)
	}
	if p == nil {
		p = experiments.NoProgress{}
	}
	prob, err := LoadProblem(cell)
	if err != nil {
		return experiments.Metrics{}, err
	}
	X := prob.Train
	shape := DataShape{Train: X.N, Test: prob.Test.N, Classes: prob.Bags.NumClasses, Features: X.D}
	if err := CheckModelSize(c.Model, shape, 1, "data set "+c.Dataset); err != nil {
		return experiments.Metrics{}, &experiments.InputError{Err: err}
	}
	m := &logregModel{D: X.D, C: prob.Bags.NumClasses}
	m.theta = make([]float64, (m.D+1)*m.C)
	grad := make([]float64, len(m.theta))
	opt := &optimizer{h: h}
	// With adamw the decay is decoupled: it is not part of the gradient.
	wd := h.WeightDecay
	if h.Optimizer == "adamw" {
		wd = 0
	}
	order := rng.New(c.Seed, "minibatch")
	groups := rng.New(c.Seed, estimators.StreamName)
	var red *FCProblem
	met := experiments.Metrics{TrainPoints: c.NumPoints, Normalization: &prob.Norm}
	seen := 0
	t0 := time.Now()
	for e := 0; e < h.Epochs; e++ {
		lr := h.Schedule.LR(h.LR, e)
		if experiments.IsLLPFC(c.Method) && (red == nil || (h.RegroupEvery > 0 && e%h.RegroupEvery == 0)) {
			if red, err = Reduce(&prob.Bags, c, groups); err != nil {
				return experiments.Metrics{}, fmt.Errorf("epoch %d: %w", e+1, err)
			}
		}
		epochLoss := 0.0
		steps := 0
		zero := func() {
			for i := range grad {
				grad[i] = 0
			}
		}
		if experiments.IsLLPFC(c.Method) {
			n := len(red.Inst)
			bs := h.BatchSize
			if h.Optimizer == "gd" {
				bs = n
			}
			perm := order.Perm(n)
			batch := make([]fcInstance, 0, bs)
			for lo := 0; lo < n; lo += bs {
				batch = batch[:0]
				for _, k := range perm[lo:min(lo+bs, n)] {
					batch = append(batch, red.Inst[k])
				}
				zero()
				scale := float64(n) / float64(len(batch))
				epochLoss += m.fcObjective(X, batch, red.T, scale, grad) + m.decay(wd, grad)
				opt.step(m.theta, grad, lr)
				steps++
				seen += len(batch)
			}
		} else {
			K := len(prob.Bags.Bags)
			bs := h.BatchSize
			if h.Optimizer == "gd" {
				bs = K
			}
			perm := order.Perm(K)
			batch := make([]estimators.Bag, 0, bs)
			for lo := 0; lo < K; lo += bs {
				batch = batch[:0]
				for _, k := range perm[lo:min(lo+bs, K)] {
					batch = append(batch, prob.Bags.Bags[k])
					seen += prob.Bags.Bags[k].Size
				}
				zero()
				den := m.C * len(batch) // the paper's 1/(C·B)
				if h.KLScale != training.KLScalePaper {
					den = len(batch) // the authors' scale: Σ over classes, mean over bags
				}
				epochLoss += m.klObjectiveAt(X, batch, grad, den) + m.decay(wd, grad)
				opt.step(m.theta, grad, lr)
				steps++
			}
		}
		if steps == 0 {
			return experiments.Metrics{}, fmt.Errorf("epoch %d: no training instance has positive weight", e+1)
		}
		met.FinalLoss = epochLoss / float64(steps)
		if math.IsNaN(met.FinalLoss) || math.IsInf(met.FinalLoss, 0) {
			return experiments.Metrics{}, fmt.Errorf("epoch %d: the training loss is %v (lr %g too large?)", e+1, met.FinalLoss, lr)
		}
		met.Epochs = e + 1
		p.Epoch(e+1, h.Epochs, fmt.Sprintf("loss %.4f", met.FinalLoss))
		if err := ctx.Err(); err != nil {
			return experiments.Metrics{}, err
		}
	}
	train := time.Since(t0).Seconds()
	if train > 0 {
		met.TrainImagesPerSecond = float64(seen) / train
	}
	met.Extra = map[string]float64{"bag_redraws": float64(prob.BagRedraws)}
	if red != nil {
		met.Extra["groups"], met.Extra["leftover_bags"] = float64(len(red.T)), float64(red.Leftover)
	}
	if prob.Test.N > 0 { // a bag-only set may have no test split
		met.TestAccuracy = m.accuracy(prob.Test)
	}
	met.TestPoints, met.NoTestSplit = prob.Test.N, prob.Test.N == 0
	return met, nil
}
