package loss

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/llpfc/llpfc/internal/choice"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// KLFloor is the floor ε inside the logarithm of the bag-mean probability in
// the KL proportion loss: log(p̄_c + ε). It keeps the loss finite when a
// class's mean probability underflows; the chunked and whole-bag forms use
// the same ε, so their gradients agree exactly.
const KLFloor = 1e-12

// KLLoss adds the KL proportion loss of a minibatch of B bags
// (App. `subsec:KL`, the minibatch objective L_prop):
//
//	L_prop = −1/(C·B) · Σ_k Σ_c γ̂_k(c) · log( (1/m_k) Σ_j f_c(X^k_j) + ε ),
//
// with f = softmax of the logits z (n×C, the instances of all B bags), avg
// the B×n matrix with avg[k, j] = 1/m_k when instance j belongs to bag k and
// 0 otherwise, and props the B×C label proportions γ̂_k. It keeps the whole
// graph of all n instances, so its memory grows with the bag size: it is the
// reference for KLChunked and the loss for small bags.
func KLLoss(z, avg, props *gorgonia.Node) (*gorgonia.Node, error) {
	zs, as, ps := z.Shape(), avg.Shape(), props.Shape()
	if zs.Dims() != 2 || as.Dims() != 2 || ps.Dims() != 2 || as[1] != zs[0] || as[0] != ps[0] || ps[1] != zs[1] {
		return nil, fmt.Errorf("KLLoss: shapes logits %v, averaging %v, proportions %v; want n×C, B×n, B×C", zs, as, ps)
	}
	p, err := gorgonia.SoftMax(z)
	if err != nil {
		return nil, err
	}
	pbar, err := gorgonia.Mul(avg, p)
	if err != nil {
		return nil, err
	}
	eps := gorgonia.NewConstant(nn.CastScalar(z.Dtype(), KLFloor))
	if pbar, err = gorgonia.Add(pbar, eps); err != nil {
		return nil, err
	}
	lp, err := gorgonia.Log(pbar)
	if err != nil {
		return nil, err
	}
	prod, err := gorgonia.HadamardProd(props, lp)
	if err != nil {
		return nil, err
	}
	s, err := gorgonia.Sum(prod)
	if err != nil {
		return nil, err
	}
	scale := gorgonia.NewConstant(nn.CastScalar(z.Dtype(), -1/float64(ps[0]*ps[1])))
	return gorgonia.Mul(s, scale)
}

// BagRef is one bag of a minibatch of bags: the rows of its instances in the
// training matrix and its label proportions γ̂. Lo and Hi, when set (C
// values each), are a confidence interval of the proportions (MixBag's mixed
// bags, CILoss); nil for a bag whose proportions are exact.
type BagRef struct {
	Indices     []int
	Proportions []float64
	Lo, Hi      []float64
}

// KLChunked computes the exact gradient of the KL proportion loss L_prop
// (App. `subsec:KL`) of a minibatch of bags of any size in memory that does
// not grow with the bag size. The network is evaluated on chunks of a fixed
// number of instances (the graph is built once for that chunk size):
//
//   - pass 1 runs the forward pass only, chunk by chunk, and accumulates the
//     bag means p̄_k = (1/m_k) Σ_j f(X^k_j) in float64; from them it computes
//     L_prop and the fixed coefficients g_kc = ∂L_prop/∂p̄_kc =
//     −γ̂_k(c) / (C·B·(p̄_kc + ε));
//   - pass 2 runs forward and backward on each chunk for the surrogate
//     S = Σ_j Σ_c (g_{k(j),c}/m_{k(j)}) f_c(X_j), whose gradient with respect
//     to the parameters is, summed over the chunks, exactly ∂L_prop/∂θ by the
//     chain rule (p̄ is linear in f).
//
// The passes must evaluate the network identically: every pass uses the
// same chunks (same instances in the same order); for a StochasticModel
// (dropout) the masks of chunk i are drawn from a seed taken once per chunk
// from the stream set by SetRandom and replayed in every pass. The
// augmentation (NewBagChunkedAugmented) is an op of the chunk graph whose
// draws are a function of the step's key, set by the method, and of each
// instance's position in the minibatch (nn.Augmentation.SetFirst before
// each chunk), so every pass sees the same augmented images.
//
// Batch normalization couples the instances of a minibatch. With
// BNStatsMinibatch (the default) every chunk is normalized with the whole
// minibatch's statistics, as one forward pass over the minibatch (the
// authors' code) would: when the minibatch spans several chunks, a bnSweep
// adds K statistics sweeps before pass 1 and K adjoint sweeps before pass 2
// (K batch-norm layers), and the running averages are updated once per
// minibatch. With BNStatsChunk each chunk uses its own statistics (the loss
// of the network as evaluated chunk by chunk; running averages updated
// after each pass-2 chunk). Either way a chunk's zero padding is kept out
// of the statistics.
type KLChunked struct {
	head                Head
	chunk, dim, classes int
	dt                  tensor.Dtype
	x, coef             *gorgonia.Node
	xT, coefT           *tensor.Dense
	probs, surrogate    *gorgonia.Node
	params, grads       gorgonia.Nodes
	fwd, bwd            device.Program
	model               nn.Model
	random              *rand.Rand // seeds of the chunks' dropout masks
	seeds               []uint64
	scale               KLScale
	bnStats             nn.BNStats
	sweep               *nn.BNSweep
	unfusedBN           bool // a batch-norm model whose layers the sweep cannot drive
	// aug is the chunk graph's augmentation of its input (nil: none).
	aug *nn.Augmentation

	// obj, when set, is the objective of the current GradientOf call: pass 1
	// keeps every instance's head output (out), obj turns them into the loss
	// and its gradient (grad, per instance), pass 2 uses those as the
	// surrogate's coefficients.
	obj       BagObjective
	out, grad []float64

	// scratch, reused across calls
	rows   []int // instance row per position in the concatenated minibatch
	bagOf  []int
	pbar   [][]float64
	coefs  [][]float64
	sizes  []int
	probsF []float64
	// chunkOut are the chunks' head outputs of pass 1, read without
	// waiting (device.AsyncReader).
	chunkOut [][]float32
}

// NewKLChunked adds to g (the graph m was built in) the chunk graph: an
// input of chunk instances, m's training-mode forward pass, the softmax and
// the surrogate S; it compiles on be one program for the forward pass and
// one for forward and backward.
func NewKLChunked(be device.Backend, g *gorgonia.ExprGraph, m nn.Model, spec nn.ModelSpec, chunk int) (*KLChunked, error) {
	return NewBagChunked(be, g, m, spec, chunk, HeadSoftmax, "KL")
}

// Head is what the chunked bag losses see of each instance: the softmax of
// the logits (the proportion losses: KL, MixBag's CILoss) or the logits
// themselves (EasyLLP and LLP-PVC, whose losses are computed in float64 on
// the host from the logits).
type Head int

// The heads.
const (
	HeadSoftmax Head = iota
	HeadLogits
)

func (h Head) String() string {
	switch h {
	case HeadSoftmax:
		return "softmax"
	case HeadLogits:
		return "logits"
	}
	return fmt.Sprintf("Head(%d)", int(h))
}

// BagObjective is a loss of a minibatch of bags computed on the host from
// the head outputs of its instances (GradientOf): Loss gets out (n×C,
// row-major, the instances of bags laid out bag by bag in order), fills grad
// (n×C) with ∂L/∂out and returns L.
//
// The objective states the output it reads (Head): the chunk graph computes
// that head for it (a method's engine builds its graph from the objective's
// Head, and GradientOf refuses an objective of another head), so an
// objective written for probabilities never gets logits by a registration's
// mistake, where its loss would still run and its gradient still check.
//
// An objective whose loss compares the outputs with targets it computes from
// them and holds constant (a stop-gradient) is a TargetObjective.
type BagObjective interface {
	Head() Head
	Loss(out []float64, classes int, bags []BagRef, grad []float64) (float64, error)
}

// TargetObjective is a BagObjective whose loss compares the outputs with
// targets computed from those same outputs and held constant — a
// stop-gradient, as pseudo-labelling objectives (optimal-transport labels,
// self-training) freeze their labels: Loss(out) is LossAt(Targets(out),
// out), and the gradient it fills is LossAt's at the targets held fixed, not
// the derivative of Loss's value in out (the targets move with the
// outputs). A finite difference of Loss therefore does not check it; one of
// LossAt with the targets frozen where it is taken does (FreezeTargets:
// TestEveryBagObjectiveFiniteDifference does so for every registered
// objective that is one).
type TargetObjective interface {
	BagObjective
	// Targets computes the minibatch's targets from its head outputs (as
	// Loss gets them), in a layout of the objective's own, into a new
	// slice.
	Targets(out []float64, classes int, bags []BagRef) ([]float64, error)
	// LossAt is the loss with the targets held at t, filling grad with its
	// gradient in out (t constant).
	LossAt(t, out []float64, classes int, bags []BagRef, grad []float64) (float64, error)
}

// TargetLoss is the Loss of a TargetObjective: LossAt at the targets
// Targets computes from out (its implementations' Loss calls it).
func TargetLoss(obj TargetObjective, out []float64, classes int, bags []BagRef, grad []float64) (float64, error) {
	t, err := obj.Targets(out, classes, bags)
	if err != nil {
		return 0, err
	}
	return obj.LossAt(t, out, classes, bags, grad)
}

// FreezeTargets returns obj with its targets frozen at its first Loss: that
// call computes them from its outputs (as obj.Loss does) and every later
// call reuses them, so that the loss of a finite difference taken at the
// first call's parameters is LossAt's at fixed targets, whose derivative is
// the gradient the objective fills. Frozen returns the targets, nil before
// the first call.
func FreezeTargets(obj TargetObjective) *FrozenTargets { return &FrozenTargets{obj: obj} }

// FrozenTargets is a TargetObjective's loss at targets held since its first
// call (FreezeTargets).
type FrozenTargets struct {
	obj     TargetObjective
	targets []float64
}

// Head is the objective's.
func (f *FrozenTargets) Head() Head { return f.obj.Head() }

// Loss implements BagObjective: LossAt at the first call's targets.
func (f *FrozenTargets) Loss(out []float64, classes int, bags []BagRef, grad []float64) (float64, error) {
	if f.targets == nil {
		t, err := f.obj.Targets(out, classes, bags)
		if err != nil {
			return 0, err
		}
		f.targets = t
	}
	return f.obj.LossAt(f.targets, out, classes, bags, grad)
}

// Frozen returns the targets held (nil before the first Loss).
func (f *FrozenTargets) Frozen() []float64 { return f.targets }

// NewBagChunked is NewKLChunked with the head and the programs' name
// prefix chosen: the chunk graph's surrogate is S = Σ coef ⊙ head(z), so
// GradientOf computes the exact gradient of any BagObjective of the head
// outputs by the two passes KLChunked's doc describes.
func NewBagChunked(be device.Backend, g *gorgonia.ExprGraph, m nn.Model, spec nn.ModelSpec, chunk int, head Head, name string) (*KLChunked, error) {
	return NewBagChunkedAugmented(be, g, m, spec, chunk, head, name, nil)
}

// NewBagChunkedAugmented is NewBagChunked with the model reading aug's
// augmented images of each chunk's input (App. `suppsec: exp`'s crop and
// flip, drawn and applied where the program runs); aug nil is
// NewBagChunked. The method sets aug's key once per step (Step); Gradient
// sets each chunk's first row.
func NewBagChunkedAugmented(be device.Backend, g *gorgonia.ExprGraph, m nn.Model, spec nn.ModelSpec, chunk int, head Head, name string,
	aug *nn.Augmentation) (*KLChunked, error) {
	if chunk < 1 {
		return nil, fmt.Errorf("%s chunk size %d, want ≥ 1", name, chunk)
	}
	dt := spec.DType()
	k := &KLChunked{head: head, chunk: chunk, dim: spec.InputDim(), classes: spec.NumClasses, dt: dt, params: m.Learnables(), model: m,
		random: rand.New(rand.NewPCG(0, 0)), aug: aug}
	prefix := strings.ToLower(name)
	k.x, k.xT = nn.NewInputNode(g, dt, prefix+".x", spec.InputShape(chunk))
	k.coef, k.coefT = nn.NewInputNode(g, dt, prefix+".coef", tensor.Shape{chunk, spec.NumClasses})
	xa, err := aug.Input(k.x)
	if err != nil {
		return nil, err
	}
	z, err := m.Forward(xa, true)
	if err != nil {
		return nil, err
	}
	k.probs = z
	if head == HeadSoftmax {
		if k.probs, err = gorgonia.SoftMax(z); err != nil {
			return nil, err
		}
	}
	prod, err := gorgonia.HadamardProd(k.coef, k.probs)
	if err != nil {
		return nil, err
	}
	if k.surrogate, err = gorgonia.Sum(prod); err != nil {
		return nil, err
	}
	if k.grads, err = nn.Grad(k.surrogate, k.params...); err != nil {
		return nil, err
	}
	if k.sweep, err = nn.NewBNSweep(g, k.probs); err != nil {
		return nil, err
	}
	if k.fwd, err = be.Compile(g, gorgonia.Nodes{k.probs}, device.Options{Name: name + " forward", Params: k.params, Inputs: nn.Inputs(m, k.x)}); err != nil {
		return nil, err
	}
	roots := append(gorgonia.Nodes{k.surrogate}, k.grads...)
	bwdOpts := device.Options{Name: name + " backward", Params: k.params, Inputs: nn.Inputs(m, k.x, k.coef)}
	if bn, ok := m.(nn.BatchNormModel); ok {
		bwdOpts.Effects = bn.RunningStatRoots()
		k.unfusedBN = k.sweep.Layers() == 0 && len(bn.RunningStats()) > 0
	}
	if k.bwd, err = be.Compile(g, roots, bwdOpts); err != nil {
		k.fwd.Close()
		return nil, err
	}
	return k, nil
}

// KLScale selects the scale of the KL proportion loss of a minibatch of B
// bags over C classes. The paper (App. `subsec:KL`) writes −1/(CB)·Σ_k Σ_c
// γ̂_k(c) log p̄_k(c); the authors' code (kllib/train_fun.py@1d0cbc5,
// compute_kl_loss_on_bagbatch) sums over the classes and averages over the
// bags, −1/B·Σ_k Σ_c, a loss C times larger. Under SGD the factor C is a
// C-fold learning rate, so the tables' baselines were trained at the
// authors' scale; it is the default (the zero value), the paper's text an
// option (PAPER_MAP.md, "the paper's text vs the authors' runs").
type KLScale uint16

// The KL scales; the zero value is not stated, read as KLScaleAuthors.
const (
	KLScaleAuthors KLScale = iota + 1
	KLScalePaper
)

var klScales = choice.Set[KLScale]{What: "KL scale", Names: []string{"", "authors", "paper"},
	Want: "authors (Σ over classes, mean over bags, as the authors' code) or paper (1/(C·B), as the paper's text)"}

// ParseKLScale parses a KL scale name; "" is the default, authors.
func ParseKLScale(s string) (KLScale, error) {
	if s == "" {
		return KLScaleAuthors, nil
	}
	return klScales.Parse(s)
}

func (s KLScale) String() string { return klScales.String(s) }

// UnmarshalText parses a KL scale where it enters (a spec, a result, a
// flag); empty is the zero value, read as authors.
func (s *KLScale) UnmarshalText(b []byte) error { return klScales.Unmarshal(s, b) }

// MarshalText writes the scale's name.
func (s KLScale) MarshalText() ([]byte, error) { return klScales.Marshal(s) }

// SetScale sets the loss's scale (KLScaleAuthors when never called).
func (k *KLChunked) SetScale(s KLScale) { k.scale = s }

// SetBNStats sets the batch-norm statistics (BNStatsMinibatch when never
// called).
func (k *KLChunked) SetBNStats(s nn.BNStats) { k.bnStats = s }

// SetRandom sets the stream from which the per-chunk dropout-mask seeds of
// a StochasticModel are drawn (one Uint64 per chunk per call of Gradient).
func (k *KLChunked) SetRandom(r *rand.Rand) { k.random = r }

// Close releases the machines.
func (k *KLChunked) Close() {
	k.fwd.Close()
	k.bwd.Close()
}

// Release drops the values of the machines' last runs (tape.Release).
func (k *KLChunked) Release() {
	k.fwd.Release()
	k.bwd.Release()
}

// Chunk returns the number of instances per forward pass.
func (k *KLChunked) Chunk() int { return k.chunk }

// Gradient computes L_prop of the minibatch bags (rows of x, an N×D
// row-major matrix) and adds ∂L_prop/∂θ to grads (the model's Learnables,
// in order). It returns L_prop and the number of instances.
func (k *KLChunked) Gradient(x []float32, bags []BagRef, grads device.Grads) (float64, int, error) {
	if k.head != HeadSoftmax {
		return 0, 0, fmt.Errorf("KL gradient: the chunk graph's head is not the softmax")
	}
	return k.gradient(x, bags, nil, grads)
}

// GradientOf computes obj's loss of the minibatch bags from the head outputs
// of their instances and adds its gradient ∂L/∂θ to grads, by the two passes
// of Gradient: pass 1 keeps every instance's head output, obj gives the loss
// and ∂L/∂out, pass 2 backpropagates the surrogate Σ (∂L/∂out) ⊙ head(z).
func (k *KLChunked) GradientOf(x []float32, bags []BagRef, obj BagObjective, grads device.Grads) (float64, int, error) {
	if obj == nil {
		return 0, 0, fmt.Errorf("bag gradient: no objective")
	}
	if obj.Head() != k.head {
		return 0, 0, fmt.Errorf("bag gradient: the objective reads the %s, the chunk graph computes the %s", obj.Head(), k.head)
	}
	return k.gradient(x, bags, obj, grads)
}

func (k *KLChunked) gradient(x []float32, bags []BagRef, obj BagObjective, grads device.Grads) (float64, int, error) {
	k.obj = obj
	defer func() { k.obj = nil }()
	total, err := k.layout(x, bags)
	if err != nil {
		return 0, 0, err
	}
	k.drawSeeds(total)
	exact := k.bnStats != nn.BNStatsChunk && total > k.chunk
	if exact && k.unfusedBN {
		return 0, 0, nn.ErrUnfusedBatchNorm
	}
	exact = exact && k.sweep.Layers() > 0
	defer k.sweep.Release()
	if exact {
		if err := k.sweep.Statistics(func() error { return k.forEachChunk(x, total, k.forward, nil) }); err != nil {
			return 0, 0, fmt.Errorf("KL batch-norm statistics: %w", err)
		}
	}
	if err := k.pass1(x, total); err != nil {
		return 0, 0, fmt.Errorf("KL pass 1: %w", err)
	}
	var loss float64
	if obj != nil {
		loss, err = obj.Loss(k.out, k.classes, bags, k.grad)
	} else {
		loss, err = k.coefficients(bags)
	}
	if err != nil {
		return loss, total, err
	}
	if exact {
		if err := k.sweep.Adjoints(func() error { return k.forEachChunk(x, total, k.backward, nil) }); err != nil {
			return 0, 0, fmt.Errorf("KL batch-norm adjoints: %w", err)
		}
	}
	bn, hasBN := k.model.(nn.BatchNormModel)
	err = k.forEachChunk(x, total, k.backward, func(start, end int) error {
		if err := grads.Add(k.bwd, k.grads, 1); err != nil {
			return err
		}
		if hasBN && !exact { // per chunk: each chunk's own statistics
			return bn.UpdateRunningStats()
		}
		return nil
	})
	if err == nil && hasBN && exact { // once: the minibatch's statistics
		err = bn.UpdateRunningStats()
	}
	if err != nil {
		return 0, 0, fmt.Errorf("KL pass 2: %w", err)
	}
	return loss, total, nil
}

// layout checks the minibatch and lays its instances out in order, bag by
// bag; it returns the number of instances.
func (k *KLChunked) layout(x []float32, bags []BagRef) (int, error) {
	if len(bags) == 0 {
		return 0, fmt.Errorf("KL gradient: empty minibatch of bags")
	}
	C := k.classes
	k.rows, k.bagOf, k.sizes = k.rows[:0], k.bagOf[:0], k.sizes[:0]
	n := len(x) / k.dim
	for b, bag := range bags {
		if len(bag.Indices) == 0 {
			return 0, fmt.Errorf("KL gradient: bag %d of the minibatch is empty", b)
		}
		if len(bag.Proportions) != C {
			return 0, fmt.Errorf("KL gradient: bag %d has %d proportions, want %d", b, len(bag.Proportions), C)
		}
		for _, r := range bag.Indices {
			if r < 0 || r >= n {
				return 0, fmt.Errorf("KL gradient: bag %d: instance %d outside the %d training rows", b, r, n)
			}
			k.rows = append(k.rows, r)
			k.bagOf = append(k.bagOf, b)
		}
		k.sizes = append(k.sizes, len(bag.Indices))
	}
	k.pbar = resize2(k.pbar, len(bags), C)
	k.coefs = resize2(k.coefs, len(bags), C)
	if k.obj != nil {
		k.out = resize1(k.out, len(k.rows)*C)
		k.grad = resize1(k.grad, len(k.rows)*C)
	}
	return len(k.rows), nil
}

// drawSeeds takes one seed per chunk for the dropout masks, which every
// pass replays.
func (k *KLChunked) drawSeeds(total int) {
	k.seeds = k.seeds[:0]
	if _, ok := k.model.(nn.StochasticModel); ok {
		for start := 0; start < total; start += k.chunk {
			k.seeds = append(k.seeds, k.random.Uint64())
		}
	}
}

// forEachChunk loads every chunk of the minibatch in turn (inputs, dropout
// masks, the augmentation's first row, instance rows), runs run on it, then after (if set)
// with the chunk's range.
func (k *KLChunked) forEachChunk(x []float32, total int, run func() error, after func(start, end int) error) error {
	for start := 0; start < total; start += k.chunk {
		end := min(start+k.chunk, total)
		i := start / k.chunk
		if sm, ok := k.model.(nn.StochasticModel); ok {
			sm.Resample(rand.New(rand.NewPCG(k.seeds[i], 0x6b6c2d6d61736b73)))
		}
		k.fillX(x, start, end)
		k.aug.SetFirst(start)
		k.fillCoef(start, end)
		k.sweep.SetValid(end - start)
		if err := run(); err != nil {
			return err
		}
		if after != nil {
			if err := after(start, end); err != nil {
				return err
			}
		}
	}
	return nil
}

// forward runs the chunk's forward pass (the bag-mean probabilities).
func (k *KLChunked) forward() error { return k.fwd.Run() }

// backward runs the chunk's forward and backward pass of the surrogate.
func (k *KLChunked) backward() error { return k.bwd.Run() }

// pass1 runs the forward pass over every chunk and adds each chunk's head
// outputs to its bags' sums (or keeps them for the objective). A program
// whose outputs can be read without waiting (device.AsyncReader: a device
// that runs ahead) has each chunk's copied as the chunks run, and the host
// waits once, at the end; the sums are the same, in the same order.
func (k *KLChunked) pass1(x []float32, total int) error {
	ar, ok := k.fwd.(device.AsyncReader)
	if !ok {
		return k.forEachChunk(x, total, k.forward, func(start, end int) error {
			v, err := k.fwd.Value(k.probs)
			if err != nil {
				return err
			}
			return k.addMeans(start, end, nn.ValuesF64(v, &k.probsF))
		})
	}
	n := (total + k.chunk - 1) / k.chunk
	for len(k.chunkOut) < n {
		k.chunkOut = append(k.chunkOut, make([]float32, k.chunk*k.classes))
	}
	err := k.forEachChunk(x, total, k.forward, func(start, end int) error {
		return ar.ReadAsync(k.probs, k.chunkOut[start/k.chunk])
	})
	if err != nil {
		return err
	}
	if err := ar.Wait(); err != nil {
		return err
	}
	for start := 0; start < total; start += k.chunk {
		out := k.chunkOut[start/k.chunk]
		k.probsF = resize1(k.probsF, len(out))
		for i, v := range out {
			k.probsF[i] = float64(v)
		}
		if err := k.addMeans(start, min(start+k.chunk, total), k.probsF); err != nil {
			return err
		}
	}
	return nil
}

// addMeans adds the chunk's head outputs p to its bags' sums.
func (k *KLChunked) addMeans(start, end int, p []float64) error {
	C := k.classes
	if k.obj != nil { // keep every instance's output for the objective
		copy(k.out[start*C:end*C], p[:(end-start)*C])
		return nil
	}
	for i := start; i < end; i++ {
		pb := k.pbar[k.bagOf[i]]
		for c, v := range p[(i-start)*C : (i-start+1)*C] {
			pb[c] += v
		}
	}
	return nil
}

// coefficients computes L_prop from the bag sums and the surrogate's
// coefficients g_kc/m_k.
func (k *KLChunked) coefficients(bags []BagRef) (float64, error) {
	C, B := k.classes, len(bags)
	var loss float64
	scale := 1 / float64(C*B) // the paper's −1/(CB)·Σ_k Σ_c
	if k.scale != KLScalePaper {
		scale = 1 / float64(B) // the authors' code: Σ over classes, mean over bags
	}
	for b, bag := range bags {
		inv := 1 / float64(k.sizes[b])
		for c := 0; c < C; c++ {
			pb := k.pbar[b][c]*inv + KLFloor
			loss -= scale * bag.Proportions[c] * math.Log(pb)
			// coefficient of f_c(X_j) for each instance j of bag b: g_bc / m_b
			k.coefs[b][c] = -scale * bag.Proportions[c] / pb * inv
		}
	}
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return loss, &NonFiniteError{What: "KL loss", Value: loss}
	}
	return loss, nil
}

func (k *KLChunked) fillX(x []float32, start, end int) {
	d := k.dim
	switch buf := k.xT.Data().(type) {
	case []float32:
		for i := start; i < end; i++ {
			r := k.rows[i]
			copy(buf[(i-start)*d:(i-start+1)*d], x[r*d:(r+1)*d])
		}
		clear(buf[(end-start)*d:])
	case []float64:
		for i := start; i < end; i++ {
			r := k.rows[i]
			dst := buf[(i-start)*d : (i-start+1)*d]
			for j, v := range x[r*d : (r+1)*d] {
				dst[j] = float64(v)
			}
		}
		clear(buf[(end-start)*d:])
	}
}

func (k *KLChunked) fillCoef(start, end int) {
	C := k.classes
	if k.obj != nil {
		k.fillInstanceCoef(start, end)
		return
	}
	switch buf := k.coefT.Data().(type) {
	case []float32:
		for i := start; i < end; i++ {
			for c, v := range k.coefs[k.bagOf[i]] {
				buf[(i-start)*C+c] = float32(v)
			}
		}
		clear(buf[(end-start)*C:])
	case []float64:
		for i := start; i < end; i++ {
			copy(buf[(i-start)*C:(i-start+1)*C], k.coefs[k.bagOf[i]])
		}
		clear(buf[(end-start)*C:])
	}
}

// fillInstanceCoef loads the objective's per-instance gradient rows of the
// chunk as the surrogate's coefficients.
func (k *KLChunked) fillInstanceCoef(start, end int) {
	C := k.classes
	src := k.grad[start*C : end*C]
	switch buf := k.coefT.Data().(type) {
	case []float32:
		for i, v := range src {
			buf[i] = float32(v)
		}
		clear(buf[len(src):])
	case []float64:
		copy(buf, src)
		clear(buf[len(src):])
	}
}

// resize1 returns v with length n, zeroed, reusing its storage.
func resize1(v []float64, n int) []float64 {
	if cap(v) < n {
		return make([]float64, n)
	}
	v = v[:n]
	clear(v)
	return v
}

func resize2(m [][]float64, r, c int) [][]float64 {
	if cap(m) < r {
		m = make([][]float64, r)
	}
	m = m[:r]
	for i := range m {
		if cap(m[i]) < c {
			m[i] = make([]float64, c)
		}
		m[i] = m[i][:c]
		clear(m[i])
	}
	return m
}
