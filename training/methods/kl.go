package methods

import (
	"math"
	"math/rand/v2"

	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/nn"
)

// KL is the name of the KL proportion loss (App. `subsec:KL`).
const KL = "kl"

func init() {
	Register(Descriptor{
		Name: KL, Label: "KL", Order: 10, Style: 1,
		Paper: "App. `subsec:KL` (the KL baseline)", Code: "Z-Jianxin/LLPFC@1d0cbc5:kl.py, kllib/train_fun.py",
		Family: FamilyBag, Batch: Bags, DefaultBatch: 2,
		Help:     "the KL divergence between each bag's proportions and its mean predicted distribution (App. subsec:KL)",
		Settings: []*Setting{&KLScaleSetting, &BNStatsSetting, &ChunkSizeSetting},
		Search:   DefaultSearch,
		New:      func(env *Env) (Method, error) { return newKLMethod(env) },
	})
}

// The KL proportion loss's settings, read by kl and llpvat, and the chunk
// size every bag loss reads.
var (
	// KLScaleSetting is the KL loss's scale (Config.KLScale), stated in
	// every cell of a method that reads it (Always).
	KLScaleSetting = Setting{Name: SettingKLScale, Kind: KindChoice, Choices: []string{"authors", "paper"}, Default: "authors", Always: true,
		Help: "scale of the KL proportion loss of a minibatch of B bags over C classes: authors (−1/B·Σ_bags Σ_classes, what the authors' code trains, kllib/train_fun.py) or paper (−1/(C·B)·Σ, the paper's App. A text; under SGD a C-times smaller step)"}
	// BNStatsSetting is the batch-norm statistics of a minibatch of bags
	// spanning several chunks (Config.BNStats).
	BNStatsSetting = Setting{Name: SettingBNStats, Kind: KindChoice, Choices: []string{"minibatch", "chunk"}, Default: "minibatch",
		Help: "with a batch-norm model, when a minibatch of bags spans several chunks: minibatch (every chunk normalized with the whole minibatch's statistics, as the authors' one forward pass; exact, at the cost of about 2 extra passes per batch-norm layer) or chunk (each chunk's own statistics: faster, a different loss)"}
	// ChunkSizeSetting is the instances per forward pass of a bag loss
	// (Config.ChunkSize; every method registered with RegisterBag reads it).
	ChunkSizeSetting = Setting{Name: SettingChunkSize, Kind: KindInt, Default: "256", Min: 0, Max: math.Inf(1), Shared: true,
		Help: "instances per forward pass of a bag loss; bounds memory whatever the bag size (0: 256)"}
)

// klMethod trains with the KL proportion loss over minibatches of
// Config.BatchSize bags (App. `subsec:KL`; the paper uses B = 2), computed
// by KLChunked so that memory does not grow with the bag size. The bag order
// of epoch e comes from the stream "kl-order/epoch-e"; the last minibatch
// may hold fewer bags (its loss is normalised by its own B).
type klMethod struct {
	env   *Env
	k     *loss.KLChunked
	bags  []loss.BagRef
	order []int
	mb    []loss.BagRef
	aug   *nn.Augmentation
	augR  *rand.Rand
}

func newKLMethod(env *Env) (*klMethod, error) {
	cfg := env.Config
	m := &klMethod{env: env}
	var maxBag int
	var err error
	if m.bags, maxBag, err = bagRefs(env.Data.Bags); err != nil {
		return nil, err
	}
	// A chunk never needs to be larger than one minibatch of bags.
	chunk := min(cfg.ChunkSize, maxBag*cfg.BatchSize)
	if m.aug, err = nn.NewAugmentation(cfg.Augment); err != nil {
		return nil, err
	}
	k, err := loss.NewBagChunkedAugmented(env.Backend, env.Graph, env.Model, env.Spec, chunk, loss.HeadSoftmax, "KL", m.aug)
	if err != nil {
		return nil, err
	}
	m.k = k
	k.SetScale(cfg.KLScale)
	k.SetBNStats(cfg.BNStats)
	return m, nil
}

func (m *klMethod) Close() { m.k.Close() }

// ReleaseBuffers drops the values of the machines' last runs.
func (m *klMethod) ReleaseBuffers() { m.k.Release() }

func (m *klMethod) BeginEpoch(e int) (int, error) {
	m.order = m.env.Stream("kl-order", e).Perm(len(m.bags))
	m.k.SetRandom(m.env.Stream("dropout", e))
	if m.aug != nil {
		m.augR = m.env.Stream("augment", e)
	}
	B := m.env.Config.BatchSize
	return (len(m.bags) + B - 1) / B, nil
}

func (m *klMethod) Step(s int, grads device.Grads) (float64, int, error) {
	var err error
	if m.mb, err = minibatchOf(m.mb, m.bags, m.order, s, m.env.Config.BatchSize); err != nil {
		return 0, 0, err
	}
	m.aug.Step(m.augR)
	loss, n, err := m.k.Gradient(m.env.Data.X, m.mb, grads)
	if err != nil {
		return loss, n, err
	}
	return loss, n, nil
}
