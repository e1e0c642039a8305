package methods

import (
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/loss"
)

// KL is the name of the KL proportion loss (App. `subsec:KL`).
const KL = "kl"

func init() {
	Register(Descriptor{
		Name: KL, Label: "KL", Order: 10, Style: 1,
		Paper: "App. `subsec:KL` (the KL baseline)", Code: "Z-Jianxin/LLPFC@1d0cbc5:kl.py, kllib/train_fun.py",
		Family: FamilyBag, Batch: Bags, DefaultBatch: 2,
		Help:     "the KL divergence between each bag's proportions and its mean predicted distribution (App. subsec:KL)",
		Settings: []Setting{SettingKLScale, SettingBNStats, SettingChunkSize},
		Search:   DefaultSearch,
		New:      func(env *Env) (Method, error) { return newKLMethod(env) },
	})
}

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
	k, err := loss.NewKLChunked(env.Backend, env.Graph, env.Model, env.Spec, chunk)
	if err != nil {
		return nil, err
	}
	m.k = k
	k.Augment = cfg.Augment
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
	B := m.env.Config.BatchSize
	return (len(m.bags) + B - 1) / B, nil
}

func (m *klMethod) Step(s int, grads device.Grads) (float64, int, error) {
	var err error
	if m.mb, err = minibatchOf(m.mb, m.bags, m.order, s, m.env.Config.BatchSize); err != nil {
		return 0, 0, err
	}
	loss, n, err := m.k.Gradient(m.env.Data.X, m.mb, grads)
	if err != nil {
		return loss, n, err
	}
	return loss, n, nil
}
