package loss

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/llpfc/llpfc/internal/choice"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// VATConfig holds the constants of LLP-VAT's consistency term (Appendix
// `suppsec: exp`, "LLPVAT"; Tsai & Lin 2020 and their code).
type VATConfig struct {
	// Xi is the finite-difference scale ξ of the power iteration
	// (1e-6 in LLP-VAT's code).
	Xi float64
	// Eps is the radius ε of the adversarial perturbation (the paper: 6
	// for CIFAR10, 1 for SVHN and EMNIST).
	Eps float64
	// PowerIters is the number of power iterations (1 in LLP-VAT's code).
	PowerIters int
}

// PaperVATConfig returns the paper's constants for a data set name:
// ε = 6 for "cifar10", ε = 1 otherwise (SVHN, EMNIST); ξ = 1e-6; one power
// iteration.
func PaperVATConfig(dataset string) VATConfig {
	eps := 1.0
	if dataset == "cifar10" {
		eps = 6
	}
	return VATConfig{Xi: 1e-6, Eps: eps, PowerIters: 1}
}

// Validate checks the constants.
func (c VATConfig) Validate() error {
	if !(c.Xi > 0) || math.IsInf(c.Xi, 0) {
		return fmt.Errorf("VAT: ξ = %v, want finite and > 0", c.Xi)
	}
	if !(c.Eps > 0) || math.IsInf(c.Eps, 0) {
		return fmt.Errorf("VAT: ε = %v, want finite and > 0", c.Eps)
	}
	if c.PowerIters < 1 {
		return fmt.Errorf("VAT: %d power iterations, want ≥ 1", c.PowerIters)
	}
	return nil
}

// SigmoidRampup is the ramp-up of LLP-VAT's code (ramps.sigmoid_rampup,
// from Laine & Aila 2017): exp(−5(1 − t/T)²) for t clipped to [0, T], and
// 1 when T = 0.
func SigmoidRampup(t, T float64) float64 {
	if T <= 0 {
		return 1
	}
	t = math.Min(math.Max(t, 0), T)
	p := 1 - t/T
	return math.Exp(-5 * p * p)
}

// VATWeightMax is LLP-VAT's consistency weight after ramp-up (its
// --consistency default 0.05).
const VATWeightMax = 0.05

// VATWeight is the weight w(t) of the consistency term at optimizer step
// (0-based) of a run of totalSteps steps, as in LLP-VAT's code:
// w = 0.05·SigmoidRampup(step, 0.4·totalSteps) (its rampup length is
// 0.4 · epochs · bag-minibatches per epoch, i.e. 40% of all steps, counted
// in steps). Appendix `suppsec: exp`, "LLPVAT": L = L_prop + w(t)·L_cons.
func VATWeight(step, totalSteps int) float64 {
	return VATWeightMax * SigmoidRampup(float64(step), 0.4*float64(totalSteps))
}

// VATRampup selects the schedule of LLP-VAT's consistency weight w(t).
// The LLPFC authors' llpvat.py (llpvatlib/train_fun.py@1d0cbc5, llp_loss_f)
// calls get_rampup_weight(0.05, iteration, -1): with a ramp-up length of −1,
// np.clip(t, 0, −1) = −1, the phase 1 − (−1)/(−1) is 0 and the weight is
// 0.05·exp(0) = 0.05 at every step — no ramp-up. LLP-VAT's own code ramps
// the weight up over the first 40% of the steps (VATWeight). The tables'
// LLP-VAT numbers come from the authors' code, so its constant weight is
// the default (PAPER_MAP.md, "the paper's text vs the authors' runs").
type VATRampup uint16

// The VAT weight schedules; the zero value is not stated, read as
// VATRampupAuthors.
const (
	VATRampupAuthors VATRampup = iota + 1 // constant 0.05, as the LLPFC authors' code
	VATRampupLLPVAT                       // 0.05 · sigmoid ramp-up over 40% of the steps
)

var vatRampups = choice.Set[VATRampup]{What: "VAT weight schedule", Names: []string{"", "authors", "llpvat"},
	Want: "authors (constant 0.05, as the LLPFC authors' llpvat.py) or llpvat (sigmoid ramp-up over 40% of the steps, as LLP-VAT's code)"}

// ParseVATRampup parses a schedule name; "" is the default, authors.
func ParseVATRampup(s string) (VATRampup, error) {
	if s == "" {
		return VATRampupAuthors, nil
	}
	return vatRampups.Parse(s)
}

func (r VATRampup) String() string { return vatRampups.String(r) }

// UnmarshalText parses a VAT weight schedule where it enters (a spec, a
// result, a flag); empty is the zero value, read as authors.
func (r *VATRampup) UnmarshalText(b []byte) error { return vatRampups.Unmarshal(r, b) }

// MarshalText writes the schedule's name.
func (r VATRampup) MarshalText() ([]byte, error) { return vatRampups.Marshal(r) }

// Weight returns w(t) at optimizer step (0-based) of a run of totalSteps.
func (r VATRampup) Weight(step, totalSteps int) float64 {
	if r == VATRampupLLPVAT {
		return VATWeight(step, totalSteps)
	}
	return VATWeightMax
}

// VATConsistency adds the cross-entropy part of the consistency term for
// one batch of instances:
//
//	−Σ_i w_i Σ_c p_ic · log softmax(zAdv)_ic,
//
// with p the fixed predictions f(x) (n×C, an input), zAdv the logits of
// x + r_adv (n×C) and w (n×1) the instance weights. It differs from
// Σ_i w_i·D_KL(p_i ‖ softmax(zAdv)_i) by the constant Σ_i w_i Σ_c p_ic log
// p_ic, so its gradient is the gradient of the KL term (App. "LLPVAT").
func VATConsistency(zAdv, p, w *gorgonia.Node) (*gorgonia.Node, error) {
	zs, ps, ws := zAdv.Shape(), p.Shape(), w.Shape()
	if zs.Dims() != 2 || !ps.Eq(zs) || ws.Dims() != 2 || ws[0] != zs[0] || ws[1] != 1 {
		return nil, fmt.Errorf("VAT consistency: shapes logits %v, predictions %v, weights %v; want n×C, n×C, n×1", zs, ps, ws)
	}
	lsm, err := logSoftmaxRows(zAdv)
	if err != nil {
		return nil, err
	}
	pl, err := gorgonia.HadamardProd(p, lsm) // n×C
	if err != nil {
		return nil, err
	}
	// Σ_i w_i Σ_c (p ⊙ log q)_ic = sum(wᵀ·(p ⊙ log q)).
	wt, err := gorgonia.Transpose(w)
	if err != nil {
		return nil, err
	}
	s, err := gorgonia.Mul(wt, pl) // 1×C
	if err != nil {
		return nil, err
	}
	tot, err := gorgonia.Sum(s)
	if err != nil {
		return nil, err
	}
	return gorgonia.Neg(tot)
}

// VAT computes LLP-VAT's consistency term and its gradient for a model, in
// chunks of a fixed number of instances (App. "LLPVAT"):
//
//  1. p = softmax(f(x)) from a training-mode forward pass (kept fixed; its
//     batch statistics update the running averages, as in LLP-VAT's code);
//  2. d ~ N(0, I), normalized per instance to unit L2 norm; PowerIters
//     times: d ← ∇_d Σ_i w_i D_KL(p_i ‖ f(x_i + ξ d_i)), normalized per
//     instance (exactly; see normalizeRows for the reference's norm + 1e-8);
//  3. r_adv = ε·d and L_cons = Σ_i w_i D_KL(p_i ‖ f(x_i + r_adv,i)), whose
//     gradient with respect to the parameters (p and r_adv fixed) is
//     returned.
//
// The weights w_i are 1/n for a minibatch of n instances (the reference's
// F.kl_div(..., reduction='batchmean') over the concatenated bags); the
// paper's formula Σ_k (1/|b_k|) Σ_{x∈b_k} is B times that for B bags of
// equal size (see the paper map). The perturbed passes run with batch-norm
// tracking off (the reference's _disable_tracking_bn_stats). All machines
// share the model's parameters.
type VAT struct {
	cfg            VATConfig
	chunk, classes int
	dim            int
	shape          tensor.Shape
	dt             tensor.Dtype
	model          nn.Model
	params         gorgonia.Nodes
	be             device.Backend

	x, d, r, p, w      *gorgonia.Node
	xT, dT, rT, pT, wT *tensor.Dense
	probs              *gorgonia.Node
	gradD              *gorgonia.Node
	cons               *gorgonia.Node
	grads              gorgonia.Nodes
	clean, probe, adv  device.Program

	// Batch-norm statistics of the three passes (see SetBNStats).
	bnStats                 nn.BNStats
	cleanBN, probeBN, advBN *nn.BNSweep
	unfusedBN               bool

	// aug is the augmentation of the input x (nil: none): the three
	// passes read the augmented images, and the perturbations are added
	// to them.
	aug *nn.Augmentation
}

// NewVAT adds the three passes for chunks of chunk instances to g (the
// graph m was built in) and compiles their programs on be.
func NewVAT(be device.Backend, g *gorgonia.ExprGraph, m nn.Model, spec nn.ModelSpec, chunk int, cfg VATConfig) (*VAT, error) {
	return NewVATAugmented(be, g, m, spec, chunk, cfg, nil)
}

// NewVATAugmented is NewVAT with the passes reading aug's augmented
// images of x (App. `suppsec: exp`'s crop and flip, an op of the graph),
// the perturbations ξd and r_adv added after the augmentation, as the
// authors' data loader augments the images LLP-VAT then perturbs; aug nil
// is NewVAT. The method sets aug's key once per step; Gradient sets each
// chunk's first row, so the three passes see the same images.
func NewVATAugmented(be device.Backend, g *gorgonia.ExprGraph, m nn.Model, spec nn.ModelSpec, chunk int, cfg VATConfig,
	aug *nn.Augmentation) (*VAT, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if chunk < 1 {
		return nil, fmt.Errorf("VAT: chunk size %d, want ≥ 1", chunk)
	}
	dt := spec.DType()
	v := &VAT{cfg: cfg, chunk: chunk, classes: spec.NumClasses, dim: spec.InputDim(), shape: spec.InputShape(chunk), dt: dt, model: m, params: m.Learnables(), be: be,
		aug: aug}
	v.x, v.xT = nn.NewInputNode(g, dt, "vat.x", v.shape)
	v.d, v.dT = nn.NewInputNode(g, dt, "vat.d", v.shape)
	v.r, v.rT = nn.NewInputNode(g, dt, "vat.r", v.shape)
	v.p, v.pT = nn.NewInputNode(g, dt, "vat.p", tensor.Shape{chunk, spec.NumClasses})
	v.w, v.wT = nn.NewInputNode(g, dt, "vat.w", tensor.Shape{chunk, 1})

	bnm, hasBN := m.(nn.BatchNormModel)
	var before int
	if hasBN {
		before = len(bnm.RunningStatRoots())
	}
	x, err := aug.Input(v.x)
	if err != nil {
		return nil, err
	}
	z, err := m.Forward(x, true)
	if err != nil {
		return nil, err
	}
	if v.probs, err = gorgonia.SoftMax(z); err != nil {
		return nil, err
	}
	var cleanStats gorgonia.Nodes
	if hasBN {
		cleanStats = bnm.RunningStatRoots()[before:]
		bnm.SetTrackRunningStats(false)
		defer bnm.SetTrackRunningStats(true)
	}

	// Probe: ∇_d of the KL at x + ξd.
	xid, err := gorgonia.Mul(v.d, nn.ScalarConst(dt, cfg.Xi))
	if err != nil {
		return nil, err
	}
	xp, err := gorgonia.Add(x, xid)
	if err != nil {
		return nil, err
	}
	zp, err := m.Forward(xp, true)
	if err != nil {
		return nil, err
	}
	probeCost, err := VATConsistency(zp, v.p, v.w)
	if err != nil {
		return nil, err
	}
	gd, err := nn.Grad(probeCost, v.d)
	if err != nil {
		return nil, fmt.Errorf("VAT: gradient with respect to the direction: %w", err)
	}
	v.gradD = gd[0]

	// Adversarial pass.
	xa, err := gorgonia.Add(x, v.r)
	if err != nil {
		return nil, err
	}
	za, err := m.Forward(xa, true)
	if err != nil {
		return nil, err
	}
	if v.cons, err = VATConsistency(za, v.p, v.w); err != nil {
		return nil, err
	}
	if v.grads, err = nn.Grad(v.cons, v.params...); err != nil {
		return nil, fmt.Errorf("VAT: gradient with respect to the parameters: %w", err)
	}
	if v.cleanBN, err = nn.NewBNSweep(g, v.probs); err != nil {
		return nil, err
	}
	if v.probeBN, err = nn.NewBNSweep(g, v.gradD); err != nil {
		return nil, err
	}
	if v.advBN, err = nn.NewBNSweep(g, v.cons); err != nil {
		return nil, err
	}
	v.unfusedBN = hasBN && v.cleanBN.Layers() == 0 && len(bnm.RunningStats()) > 0
	in := nn.Inputs(m, v.x, v.d, v.r, v.p, v.w)
	if v.clean, err = be.Compile(g, gorgonia.Nodes{v.probs}, device.Options{Name: "VAT clean pass", Params: v.params, Inputs: in, Effects: cleanStats}); err != nil {
		return nil, err
	}
	if v.probe, err = be.Compile(g, gorgonia.Nodes{v.gradD}, device.Options{Name: "VAT power iteration", Params: v.params, Inputs: in}); err != nil {
		v.clean.Close()
		return nil, err
	}
	if v.adv, err = be.Compile(g, append(gorgonia.Nodes{v.cons}, v.grads...), device.Options{Name: "VAT adversarial pass", Params: v.params, Inputs: in}); err != nil {
		v.clean.Close()
		v.probe.Close()
		return nil, err
	}
	return v, nil
}

// Release drops the values of the machines' last runs (tape.Release).
func (v *VAT) Release() {
	v.clean.Release()
	v.probe.Release()
	v.adv.Release()
}

// Close releases the machines.
func (v *VAT) Close() {
	v.clean.Close()
	v.probe.Close()
	v.adv.Close()
}

// SetBNStats sets the batch-norm statistics of the three passes when the
// instances span several chunks (BNStatsMinibatch when never called): the
// whole minibatch's, as LLP-VAT's code computes them over the concatenated
// bags (exactGradient), or each chunk's own.
func (v *VAT) SetBNStats(s nn.BNStats) { v.bnStats = s }

// Gradient computes L_cons for the n instances in x (n×D row-major, with
// weights 1/n each) and adds weight·∂L_cons/∂θ to grads (the model's
// Learnables, in order). The random directions come from rng (one
// N(0,1) draw per input coordinate, instance by instance). It returns
// L_cons. A StochasticModel's masks must be resampled by the caller before
// the call.
func (v *VAT) Gradient(x []float32, weight float64, rng *rand.Rand, grads device.Grads) (float64, error) {
	if len(x) == 0 || len(x)%v.dim != 0 {
		return 0, fmt.Errorf("VAT: %d input values, want a positive multiple of the instance size %d", len(x), v.dim)
	}
	n := len(x) / v.dim
	if v.bnStats != nn.BNStatsChunk && n > v.chunk {
		if v.unfusedBN {
			return 0, nn.ErrUnfusedBatchNorm
		}
		if v.cleanBN.Layers() > 0 {
			return v.exactGradient(x, weight, rng, grads)
		}
	}
	var total float64
	for start := 0; start < n; start += v.chunk {
		end := min(start+v.chunk, n)
		v.aug.SetFirst(start)
		l, err := v.chunkGradient(x[start*v.dim:end*v.dim], end-start, 1/float64(n), weight, rng, grads)
		if err != nil {
			return 0, err
		}
		total += l
	}
	return total, nil
}

func (v *VAT) chunkGradient(x []float32, rows int, wi, weight float64, rng *rand.Rand, grads device.Grads) (float64, error) {
	D, C := v.dim, v.classes
	xs := vatData(v.xT)
	for i := range xs {
		xs[i] = 0
	}
	for i, val := range x {
		xs[i] = float64(val)
	}
	nn.StoreFloat64(v.xT, xs)
	ws := make([]float64, v.chunk)
	for i := 0; i < rows; i++ {
		ws[i] = wi
	}
	nn.StoreFloat64(v.wT, ws)
	v.cleanBN.SetValid(rows) // the chunk's own statistics, over its instance rows
	v.probeBN.SetValid(rows)
	v.advBN.SetValid(rows)
	if glue, ok := v.be.(device.Glue); ok {
		if _, deferred := grads.(device.Deferred); deferred {
			return 0, v.chunkOnDevice(glue, rows, wi, weight, rng, grads)
		}
	}

	// 1. Fixed predictions.
	p, err := runRead(v.clean, v.probs)
	if err != nil {
		return 0, fmt.Errorf("VAT clean pass: %w", err)
	}
	nn.StoreFloat64(v.pT, p)
	var negEntropy float64 // Σ_i w_i Σ_c p log p
	for i := 0; i < rows; i++ {
		for c := 0; c < C; c++ {
			if q := p[i*C+c]; q > 0 {
				negEntropy += wi * q * math.Log(q)
			}
		}
	}

	// 2. Power iteration.
	d := make([]float64, v.chunk*D)
	for i := 0; i < rows*D; i++ {
		d[i] = rng.NormFloat64()
	}
	normalizeRows(d, nil, D)
	for it := 0; it < v.cfg.PowerIters; it++ {
		nn.StoreFloat64(v.dT, d)
		next, err := runRead(v.probe, v.gradD)
		if err != nil {
			return 0, fmt.Errorf("VAT power iteration %d: %w", it, err)
		}
		normalizeRows(next, d, D)
		d = next
	}

	// 3. Adversarial pass.
	for i := range d {
		d[i] *= v.cfg.Eps
	}
	nn.StoreFloat64(v.rT, d)
	defer v.adv.Release()
	if err := v.adv.Run(); err != nil {
		return 0, fmt.Errorf("VAT adversarial pass: %w", err)
	}
	cons, err := v.adv.Value(v.cons)
	if err != nil {
		return 0, err
	}
	if err := grads.Add(v.adv, v.grads, weight); err != nil {
		return 0, err
	}
	return nn.ValueData(cons)[0] + negEntropy, nil
}

// chunkOnDevice is chunkGradient's three steps on a device that runs ahead
// (device.Glue, device.Deferred), with nothing read back: the clean
// pass's predictions go to the other passes on the device, their entropy
// and the consistency loss are tallied there (scaled by weight, the
// loss's contribution the host would return), the first direction is drawn
// and normalized on the host as chunkGradient draws it, and each power
// iteration's next direction, and r_adv = ε·d, are normalized on the
// device (normalizeRows' rule). The step's loss sum holds the chunk's
// weight·L_cons; the device checks it.
func (v *VAT) chunkOnDevice(glue device.Glue, rows int, wi, weight float64, rng *rand.Rand, grads device.Grads) error {
	D := v.dim
	defer func() { // the next host-driven run uploads every input again
		glue.HostInput(v.probe, v.p)
		glue.HostInput(v.adv, v.p)
		glue.HostInput(v.probe, v.d)
		glue.HostInput(v.adv, v.r)
	}()
	// 1. Fixed predictions, left on the device.
	if err := v.clean.Run(); err != nil {
		return fmt.Errorf("VAT clean pass: %w", err)
	}
	for _, dst := range []device.Program{v.probe, v.adv} {
		if err := glue.SetInput(dst, v.p, v.clean, v.probs); err != nil {
			return err
		}
	}
	if err := glue.TallyNegEntropy(grads, v.clean, v.probs, rows, wi, weight); err != nil {
		return err
	}
	v.clean.Release()

	// 2. Power iteration.
	d := make([]float64, v.chunk*D)
	for i := 0; i < rows*D; i++ {
		d[i] = rng.NormFloat64()
	}
	normalizeRows(d, nil, D)
	if v.cfg.PowerIters == 0 {
		for i := range d {
			d[i] *= v.cfg.Eps
		}
		nn.StoreFloat64(v.rT, d)
	} else {
		nn.StoreFloat64(v.dT, d)
	}
	for it := 0; it < v.cfg.PowerIters; it++ {
		if err := v.probe.Run(); err != nil {
			return fmt.Errorf("VAT power iteration %d: %w", it, err)
		}
		dst, in, scale := v.probe, v.d, 1.0 // the next direction, in place
		if it+1 == v.cfg.PowerIters {
			dst, in, scale = v.adv, v.r, v.cfg.Eps // r_adv = ε·d
		}
		if err := glue.NormalizeRows(dst, in, v.probe, v.gradD, v.probe, v.d, D, scale); err != nil {
			return fmt.Errorf("VAT power iteration %d: %w", it, err)
		}
	}
	v.probe.Release()

	// 3. Adversarial pass.
	defer v.adv.Release()
	if err := v.adv.Run(); err != nil {
		return fmt.Errorf("VAT adversarial pass: %w", err)
	}
	if err := glue.TallyScaled(grads, v.adv, v.cons, weight); err != nil {
		return err
	}
	return grads.Add(v.adv, v.grads, weight)
}

// AdversarialDirection runs steps 1–2 of Gradient for one chunk and returns
// the unit direction d (per instance) that r_adv = ε·d uses, for tests and
// diagnostics.
func (v *VAT) AdversarialDirection(x []float32, rng *rand.Rand) ([]float64, error) {
	if len(x) != v.chunk*v.dim {
		return nil, fmt.Errorf("VAT: %d input values, want one full chunk of %d", len(x), v.chunk*v.dim)
	}
	xs := make([]float64, len(x))
	for i, val := range x {
		xs[i] = float64(val)
	}
	nn.StoreFloat64(v.xT, xs)
	v.aug.SetFirst(0)
	ws := make([]float64, v.chunk)
	for i := range ws {
		ws[i] = 1 / float64(v.chunk)
	}
	nn.StoreFloat64(v.wT, ws)
	p, err := runRead(v.clean, v.probs)
	if err != nil {
		return nil, err
	}
	nn.StoreFloat64(v.pT, p)
	d := make([]float64, len(x))
	for i := range d {
		d[i] = rng.NormFloat64()
	}
	normalizeRows(d, nil, v.dim)
	for it := 0; it < v.cfg.PowerIters; it++ {
		nn.StoreFloat64(v.dT, d)
		next, err := runRead(v.probe, v.gradD)
		if err != nil {
			return nil, err
		}
		normalizeRows(next, d, v.dim)
		d = next
	}
	return d, nil
}

// runRead runs p, copies n's value out as float64 and releases p's values
// (the three passes are never resident together).
func runRead(p device.Program, n *gorgonia.Node) ([]float64, error) {
	defer p.Release()
	if err := p.Run(); err != nil {
		return nil, err
	}
	v, err := p.Value(n)
	if err != nil {
		return nil, err
	}
	return nn.ValueData(v), nil
}

// normalizeRows divides each length-D row of d by its L2 norm; a row of
// zeros is replaced by the same row of prev (or left zero when prev is
// nil). LLP-VAT's _l2_normalize divides by norm + 1e-8 instead, which
// shrinks the direction whenever the gradient's norm is below ~1e-8 — the
// usual case with ξ = 1e-6, where the gradient is O(ξ²) without dropout
// noise — so its r_adv is then far shorter than ε. Here ‖r_adv‖ = ε, the
// maximizer's norm in the appendix's definition.
func normalizeRows(d, prev []float64, D int) {
	for i := 0; i+D <= len(d); i += D {
		var s float64
		for _, v := range d[i : i+D] {
			s += v * v
		}
		if s == 0 || math.IsNaN(s) || math.IsInf(s, 0) {
			if prev != nil {
				copy(d[i:i+D], prev[i:i+D])
			}
			continue
		}
		inv := 1 / math.Sqrt(s)
		for j := i; j < i+D; j++ {
			d[j] *= inv
		}
	}
}

// vatData copies a float32 or float64 tensor's values into a new []float64.
func vatData(t *tensor.Dense) []float64 { return nn.ValueData(t) }
