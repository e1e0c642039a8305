package training

import (
	"fmt"

	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/loss"
)

func init() {
	RegisterMethod(MethodKL, func(env *MethodEnv) (Method, error) { return newKLMethod(env) })
}

// klMethod trains with the KL proportion loss over minibatches of
// Config.BatchSize bags (App. `subsec:KL`; the paper uses B = 2), computed
// by KLChunked so that memory does not grow with the bag size. The bag order
// of epoch e comes from the stream "kl-order/epoch-e"; the last minibatch
// may hold fewer bags (its loss is normalised by its own B).
type klMethod struct {
	env   *MethodEnv
	k     *loss.KLChunked
	bags  []loss.BagRef
	order []int
	mb    []loss.BagRef
}

func newKLMethod(env *MethodEnv) (*klMethod, error) {
	cfg := env.Config
	set := env.Data.Bags
	maxBag := 0
	m := &klMethod{env: env}
	for _, b := range set.Bags {
		if len(b.Indices) == 0 {
			return nil, fmt.Errorf("bag %d has no instance indices", b.ID)
		}
		maxBag = max(maxBag, len(b.Indices))
		m.bags = append(m.bags, loss.BagRef{Indices: b.Indices, Proportions: b.Proportions})
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
	B := m.env.Config.BatchSize
	start, end := s*B, min((s+1)*B, len(m.order))
	if start >= end {
		return 0, 0, fmt.Errorf("step %d beyond the epoch's %d bags", s, len(m.order))
	}
	m.mb = m.mb[:0]
	for _, i := range m.order[start:end] {
		m.mb = append(m.mb, m.bags[i])
	}
	loss, n, err := m.k.Gradient(m.env.Data.X, m.mb, grads)
	if err != nil {
		return loss, n, err
	}
	return loss, n, nil
}
