package methods

import (
	"fmt"
	"math/rand/v2"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/nn"
)

// BagSpec is what turns a loss.BagObjective into a method (RegisterBag):
// the objective for a run (which states the network's output it reads,
// loss.BagObjective's Head), and what the method does beside the shared
// minibatch.
type BagSpec struct {
	// Objective returns the objective of the run env describes.
	Objective func(env *Env) (loss.BagObjective, error)
	// Mix replaces each bag of a minibatch, with probability 1/2, by its
	// mixed bag with a bag drawn uniformly (MixBag).
	Mix bool
	// Init, if not nil, prepares the model before the first step (LLP-PVC's
	// output bias).
	Init func(env *Env) error
}

// RegisterBag registers the method d describes, whose loss is the
// objective of b: its family is FamilyBag, its minibatch counts bags, it
// reads the chunk size, and it trains on the shared bag minibatch below (on
// every back end: the objective runs on the host from the head outputs the
// back end computes). A new bag-level method is its loss in training/loss,
// a file here calling RegisterBag, and their tests (ARCHITECTURE.md, "How to
// add a method").
func RegisterBag(d Descriptor, b BagSpec) {
	if b.Objective == nil {
		panic("methods: RegisterBag(" + d.Name + "): a BagSpec needs its objective")
	}
	d.Family, d.Batch = FamilyBag, Bags
	if !d.Reads(SettingChunkSize) {
		d.Settings = append(d.Settings, &ChunkSizeSetting)
	}
	d.Bag = &b
	name := d.Name
	d.New = func(env *Env) (Method, error) { return newBagMethod(env, name, b) }
	Register(d)
}

// bagMethod trains a loss of minibatches of Config.BatchSize bags computed
// on the host from the head outputs of their instances (a
// loss.BagObjective: EasyLLP, MixBag's CILoss, LLP-PVC), by the chunked two
// passes of loss.KLChunked.GradientOf, so that memory does not grow with the
// bag size. The bag order of epoch e comes from the stream
// "NAME-order/epoch-e"; the last minibatch may hold fewer bags, and a
// minibatch larger than the bags there are is all of them (as PyTorch's
// DataLoader, which the authors train with, makes it). With BagSpec.Mix
// (MixBag) each bag of a minibatch is, with probability 1/2, replaced by its
// mixed bag with a bag drawn uniformly (the authors' random.choice and
// randint), from the stream "NAME-mix/epoch-e".
type bagMethod struct {
	env   *Env
	name  string
	k     *loss.KLChunked
	obj   loss.BagObjective
	bags  []loss.BagRef
	order []int
	mb    []loss.BagRef
	mix   bool
	mixR  *rand.Rand
	aug   *nn.Augmentation
	augR  *rand.Rand
}

func newBagMethod(env *Env, name string, b BagSpec) (*bagMethod, error) {
	if b.Init != nil {
		if err := b.Init(env); err != nil {
			return nil, err
		}
	}
	obj, err := b.Objective(env)
	if err != nil {
		return nil, err
	}
	cfg := env.Config
	m := &bagMethod{env: env, name: name, obj: obj, mix: b.Mix}
	var maxBag int
	if m.bags, maxBag, err = bagRefs(env.Data.Bags); err != nil {
		return nil, err
	}
	chunk := min(cfg.ChunkSize, maxBag*cfg.BatchSize)
	if m.aug, err = nn.NewAugmentation(cfg.Augment); err != nil {
		return nil, err
	}
	k, err := loss.NewBagChunkedAugmented(env.Backend, env.Graph, env.Model, env.Spec, chunk, obj.Head(), name, m.aug)
	if err != nil {
		return nil, err
	}
	m.k = k
	return m, nil
}

func (m *bagMethod) Close() { m.k.Close() }

// ObjectiveDiagnostics implements ObjectiveDiagnoser: what the objective's
// Loss calls of this run saw (since the method was built; a resumed run
// counts its own epochs).
func (m *bagMethod) ObjectiveDiagnostics() (loss.BagDiagnostics, bool) {
	d, ok := m.obj.(loss.Diagnosed)
	if !ok {
		return loss.BagDiagnostics{}, false
	}
	return d.Diagnostics(), true
}

// ReleaseBuffers drops the values of the machines' last runs.
func (m *bagMethod) ReleaseBuffers() { m.k.Release() }

func (m *bagMethod) BeginEpoch(e int) (int, error) {
	m.order = m.env.Stream(m.name+"-order", e).Perm(len(m.bags))
	m.k.SetRandom(m.env.Stream("dropout", e))
	if m.mix {
		m.mixR = m.env.Stream(m.name+"-mix", e)
	}
	if m.aug != nil {
		m.augR = m.env.Stream("augment", e)
	}
	B := m.env.Config.BatchSize
	return (len(m.bags) + B - 1) / B, nil
}

func (m *bagMethod) Step(s int, grads device.Grads) (float64, int, error) {
	var err error
	if m.mb, err = minibatchOf(m.mb, m.bags, m.order, s, m.env.Config.BatchSize); err != nil {
		return 0, 0, err
	}
	for i := range m.mb { // bag by bag, in order: the draws of one stream
		if m.mix && m.mixR.IntN(2) == 0 {
			m.mb[i] = loss.MixBagPair(m.mixR, m.mb[i], m.bags[m.mixR.IntN(len(m.bags))], loss.MixBagCI)
		}
	}
	m.aug.Step(m.augR) // after the bags' draws: the step's one augmentation key
	return m.k.GradientOf(m.env.Data.X, m.mb, m.obj, grads)
}

// bagRefs returns the training bags as loss.BagRefs and the largest one's
// size; a bag without instances is an error.
func bagRefs(set *estimators.BagSet) ([]loss.BagRef, int, error) {
	var out []loss.BagRef
	maxBag := 0
	for _, b := range set.Bags {
		if len(b.Indices) == 0 {
			return nil, 0, fmt.Errorf("bag %d has no instance indices", b.ID)
		}
		maxBag = max(maxBag, len(b.Indices))
		out = append(out, loss.BagRef{Indices: b.Indices, Proportions: b.Proportions})
	}
	return out, maxBag, nil
}

// minibatchOf returns dst[:0] with the bags of minibatch s of B in order
// (the last may hold fewer; a B above the bags there are takes all).
func minibatchOf(dst, bags []loss.BagRef, order []int, s, B int) ([]loss.BagRef, error) {
	start, end := s*B, min((s+1)*B, len(order))
	if start >= end {
		return dst, fmt.Errorf("step %d beyond the epoch's %d bags", s, len(order))
	}
	dst = dst[:0]
	for _, i := range order[start:end] {
		dst = append(dst, bags[i])
	}
	return dst, nil
}
