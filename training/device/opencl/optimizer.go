package opencl

import (
	"errors"
	"fmt"

	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/optim"
	"gorgonia.org/gorgonia"
)

// optimizer is optim.Optimizer's rules with the parameters, gradients and
// state (SGD's momentum buffers, Adam's moments) in device buffers; the
// step count lives on the host. The kernels round as optim.Optimizer.Step
// does (the hyper-parameters to float32, Adam's bias corrections in
// float64), so a step gives the CPU's parameters up to the kernels'
// float32 arithmetic.
type optimizer struct {
	be     *Backend
	cfg    optim.Config // with defaults
	params []*opencl.Buffer
	sizes  []int
	grads  *grads
	step   int64
	buf    []*opencl.Buffer // SGD momentum
	m, v   []*opencl.Buffer // Adam moments
	// fused: the parameters, gradients and state are groups of one
	// layout, so a step is one launch over the groups' parents.
	fused bool
}

// NewOptimizer makes cfg's optimizer over params with its state on the
// device.
func (b *Backend) NewOptimizer(cfg optim.Config, params gorgonia.Nodes, gr device.Grads) (device.Optimizer, error) {
	g, ok := gr.(*grads)
	if !ok || g.be != b {
		return nil, errors.New("device opencl: gradients from another back end")
	}
	if len(params) != len(g.sizes) {
		return nil, fmt.Errorf("device opencl: %d parameters for %d gradients", len(params), len(g.sizes))
	}
	sizes := make([]int, len(params))
	for i, p := range params {
		sizes[i] = size(p.Shape())
	}
	host, err := optim.New(cfg, sizes) // validates and fills the defaults
	if err != nil {
		return nil, err
	}
	o := &optimizer{be: b, cfg: host.Config(), sizes: sizes, grads: g}
	b.mu.Lock()
	for i, p := range params {
		buf, err := b.param(p)
		if err == nil && buf.Len() != sizes[i] {
			err = fmt.Errorf("device opencl: parameter %s has %d values on the device, %d in the graph", p.Name(), buf.Len(), sizes[i])
		}
		if err == nil && sizes[i] != g.sizes[i] {
			err = fmt.Errorf("device opencl: parameter %s has %d values, its gradient %d", p.Name(), sizes[i], g.sizes[i])
		}
		if err != nil {
			b.mu.Unlock()
			return nil, err
		}
		o.params = append(o.params, buf)
	}
	b.mu.Unlock()
	st := host.State()
	if o.buf, err = o.allocState(len(st.Buf)); err != nil {
		return nil, err
	}
	if o.m, err = o.allocState(len(st.M)); err != nil {
		return nil, err
	}
	if o.v, err = o.allocState(len(st.V)); err != nil {
		return nil, err
	}
	o.fused = o.sameLayout()
	return o, nil
}

// allocState allocates n zeroed state buffers of the parameters' sizes: a
// group when the gradients are one, else one by one.
func (o *optimizer) allocState(n int) ([]*opencl.Buffer, error) {
	if n == 0 {
		return nil, nil
	}
	ctx := o.be.ctx
	if o.grads.group != nil {
		if bufs, err := ctx.AllocGroup(o.sizes[:n], opencl.RoleOptimizer); err == nil {
			return bufs, nil
		}
	}
	out := make([]*opencl.Buffer, n)
	for i := range out {
		buf, err := ctx.Alloc(o.sizes[i])
		if err != nil {
			return nil, err
		}
		buf.SetRole(opencl.RoleOptimizer)
		if err := ctx.Fill(buf, 0); err != nil {
			return nil, err
		}
		out[i] = buf
	}
	return out, nil
}

// sameLayout reports whether the parameters, gradients and every state
// tensor are groups of one layout (the same offsets, parents of one
// length): then one launch over the parents updates them all, the gaps
// being zeros that stay zero.
func (o *optimizer) sameLayout() bool {
	if o.grads.group == nil || len(o.params) == 0 {
		return false
	}
	for _, set := range [][]*opencl.Buffer{o.params, o.buf, o.m, o.v} {
		if set == nil {
			continue
		}
		var parent *opencl.Buffer
		for i, b := range set {
			p, off := b.Group()
			if p == nil || off != o.grads.offs[i] || (parent != nil && p != parent) {
				return false
			}
			parent = p
		}
		if parent.Len() != o.grads.group.Len() {
			return false
		}
	}
	return true
}

// parentOf returns the group parent of a set of buffers (nil for nil).
func parentOf(set []*opencl.Buffer) *opencl.Buffer {
	if set == nil {
		return nil
	}
	p, _ := set[0].Group()
	return p
}

func (o *optimizer) Step(lr float64) error {
	if o.be.isClosed() {
		return errClosed
	}
	if err := o.grads.materialize(); err != nil {
		return err
	}
	var n int64
	for _, sz := range o.sizes {
		n += int64(sz)
	}
	// parameters and gradients read, parameters written, each state buffer read and written
	words := 3 * n
	if o.buf != nil {
		words += 2 * n
	}
	if o.m != nil {
		words += 4 * n
	}
	return o.be.timed(opWork{cat: device.CatOptimizer, kind: "optimizer " + o.cfg.Name, byts: 4 * words}, func() error { return o.step1(lr) })
}

// step1 enqueues one guarded update.
func (o *optimizer) step1(lr float64) error {
	o.step++
	if o.fused {
		g := o.grads.group
		return o.update(parentOf(o.params), g, parentOf(o.buf), parentOf(o.m), parentOf(o.v), g.Len(), 0, lr)
	}
	at := func(set []*opencl.Buffer, k int) *opencl.Buffer {
		if set == nil {
			return nil
		}
		return set[k]
	}
	for k, p := range o.params {
		if err := o.update(p, o.grads.bufs[k], at(o.buf, k), at(o.m, k), at(o.v, k), o.sizes[k], o.grads.offs[k], lr); err != nil {
			return err
		}
	}
	return nil
}

// update enqueues the rule's update of n values from flat index base,
// guarded by the gradients' step flag.
func (o *optimizer) update(p, g, buf, m, v *opencl.Buffer, n, base int, lr float64) error {
	c, lib := o.cfg, o.be.lib
	guard := &opencl.Guard{Flag: o.grads.flag, Tag: o.grads.tag, Base: base}
	var err error
	switch c.Name {
	case "sgd", "nesterov":
		err = lib.SGDStep(p, g, buf, n, opencl.SGD{LR: lr, WeightDecay: c.WeightDecay, Momentum: c.Momentum,
			Dampening: c.Dampening, Nesterov: c.Name == "nesterov", First: o.step == 1, Guard: guard})
	default:
		err = lib.AdamStep(p, g, m, v, n, opencl.Adam{LR: lr, WeightDecay: c.WeightDecay, Beta1: c.Beta1,
			Beta2: c.Beta2, Eps: c.Eps, Decoupled: c.Name == "adamw", Step: o.step, Guard: guard})
	}
	if err != nil {
		return fmt.Errorf("device opencl: optimizer step: %w", err)
	}
	return nil
}

// State downloads the optimizer's state (checkpoints).
func (o *optimizer) State() (optim.State, error) {
	st := optim.State{Step: o.step}
	read := func(bufs []*opencl.Buffer) ([][]float32, error) {
		if bufs == nil {
			return nil, nil
		}
		out := make([][]float32, len(bufs))
		for i, b := range bufs {
			d, err := b.Float32s()
			if err != nil {
				return nil, err
			}
			out[i] = d
		}
		return out, nil
	}
	var err error
	if st.Buf, err = read(o.buf); err != nil {
		return st, err
	}
	if st.M, err = read(o.m); err != nil {
		return st, err
	}
	st.V, err = read(o.v)
	return st, err
}

// SetState checks s's shape as optim.Optimizer.SetState does and uploads
// it.
func (o *optimizer) SetState(s optim.State) error {
	check := func(name string, dst []*opencl.Buffer, src [][]float32) error {
		if len(dst) != len(src) {
			return fmt.Errorf("optimizer state: %s has %d tensors, want %d", name, len(src), len(dst))
		}
		for i := range dst {
			if len(src[i]) != dst[i].Len() {
				return fmt.Errorf("optimizer state: %s[%d] has %d entries, want %d", name, i, len(src[i]), dst[i].Len())
			}
		}
		return nil
	}
	for _, c := range []struct {
		n   string
		dst []*opencl.Buffer
		src [][]float32
	}{{"momentum buffer", o.buf, s.Buf}, {"first moment", o.m, s.M}, {"second moment", o.v, s.V}} {
		if err := check(c.n, c.dst, c.src); err != nil {
			return err
		}
	}
	if s.Step < 0 {
		return fmt.Errorf("optimizer state: step %d, want ≥ 0", s.Step)
	}
	for _, c := range []struct {
		dst []*opencl.Buffer
		src [][]float32
	}{{o.buf, s.Buf}, {o.m, s.M}, {o.v, s.V}} {
		for i, b := range c.dst {
			if err := b.Write(c.src[i]); err != nil {
				return err
			}
		}
	}
	o.step = s.Step
	return nil
}
