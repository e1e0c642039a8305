package methods

import (
	"fmt"
	"math/rand/v2"

	"github.com/llpfc/llpfc/training/device"
)

// Supervised is the name of the fully supervised method: the ceiling row of
// a table, trained on the same instances as the LLP methods (those in the
// bags) with their true labels.
const Supervised = "supervised"

func init() {
	Register(Descriptor{
		Name: Supervised, Label: "Supervised (ceiling)", Order: 1000, Style: 11,
		Paper:  "Section 6: the fully supervised ceiling on the same instances",
		Family: FamilyInstance, Batch: Instances, DefaultBatch: 128,
		Help:   "the fully supervised ceiling: cross-entropy on the bagged instances' true labels (not an LLP method)",
		Search: DefaultSearch,
		New:    func(env *Env) (Method, error) { return newSupervised(env) },
	})
}

// supervisedMethod minimizes the cross-entropy −log q_y(x) over the bagged
// instances with their labels (TrainData.Labels), in shuffled minibatches of
// Config.BatchSize instances. It is the FC loss with the identity as T̂: the
// row of the noisy label is the one-hot vector of the true label, every weight
// 1, so it shares FCLoss with LLPFC and differs from it only in the labels.
type supervisedMethod struct {
	env        *Env
	batch, dim int
	classes    int
	*fcGraph
	index   []int // the bagged rows of X
	order   []int
	augRNG  *rand.Rand
	dropRNG *rand.Rand
}

func newSupervised(env *Env) (*supervisedMethod, error) {
	d, spec := env.Data, env.Spec
	N := len(d.X) / spec.InputDim()
	if len(d.Labels) != N {
		return nil, fmt.Errorf("method %s needs the true label of each of the %d training rows, got %d labels", Supervised, N, len(d.Labels))
	}
	m := &supervisedMethod{env: env, batch: env.Config.BatchSize, dim: spec.InputDim(), classes: spec.NumClasses}
	for _, b := range d.Bags.Bags {
		m.index = append(m.index, b.Indices...)
	}
	for _, i := range m.index {
		if y := d.Labels[i]; y < 0 || y >= m.classes {
			return nil, fmt.Errorf("method %s: row %d has label %d, want 0…%d", Supervised, i, y, m.classes-1)
		}
	}
	var err error
	if m.fcGraph, err = newFCGraph(env, "sup", false); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *supervisedMethod) BeginEpoch(e int) (int, error) {
	m.order = append(m.order[:0], m.index...)
	ord := m.env.Stream("supervised-order", e)
	ord.Shuffle(len(m.order), func(i, j int) { m.order[i], m.order[j] = m.order[j], m.order[i] })
	if m.env.Config.Augment != nil {
		m.augRNG = m.env.Stream("augment", e)
	}
	m.dropRNG = m.env.Stream("dropout", e)
	return (len(m.order) + m.batch - 1) / m.batch, nil
}

func (m *supervisedMethod) Step(s int, grads device.Grads) (float64, int, error) {
	start := s * m.batch
	end := min(start+m.batch, len(m.order))
	if start >= end {
		return 0, 0, fmt.Errorf("step %d beyond the epoch's %d instances", s, len(m.order))
	}
	x, d, C := m.env.Data.X, m.dim, m.classes
	xb, rb, wb := m.xT.Data().([]float32), m.rT.Data().([]float32), m.wT.Data().([]float32)
	clear(rb)
	n := end - start
	for k := 0; k < n; k++ {
		i := m.order[start+k]
		copy(xb[k*d:(k+1)*d], x[i*d:(i+1)*d])
		rb[k*C+m.env.Data.Labels[i]] = 1
		wb[k] = 1 / float32(n) // FCLoss sums: the minibatch loss is the mean over its n rows
	}
	clear(xb[n*d:])
	clear(wb[n:])
	loss, err := m.run(m.env, n, m.augRNG, m.dropRNG, grads)
	return loss, n, err
}
