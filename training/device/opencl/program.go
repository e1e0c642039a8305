package opencl

import (
	"errors"
	"fmt"

	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/training/device"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// slotKind is where a node's value lives.
type slotKind int

const (
	slotParam    slotKind = iota // the back end's parameter buffer
	slotInput                    // a program buffer uploaded before every run
	slotConst                    // a program buffer uploaded once, at compile
	slotComputed                 // a pooled activation buffer (value.store)
	slotAlias                    // another slot's buffer (a reshape)
	slotStmt                     // no value (gorgonia.Read)
	slotFused                    // no buffer: computed inside another node's kernel (fuse.go)
)

// slot is a node's value in a program.
type slot struct {
	node  *gorgonia.Node
	kind  slotKind
	size  int // elements
	shape tensor.Shape
	buf   *opencl.Buffer // param, input, const
	val   *value         // computed
	// target is the slot an alias reads (never itself an alias).
	target *slot
	// host holds a constant's values until the program is allocated.
	host []float32
}

// root returns the slot that owns the buffer.
func (s *slot) root() *slot {
	if s.kind == slotAlias {
		return s.target
	}
	return s
}

// value is a device buffer of the activation pool: defined by step def,
// last read by step last (pinned: kept to the end of the run), stored in
// the program's store.
type value struct {
	size      int
	def, last int
	pinned    bool
	store     int
}

// step is one node's kernels and their work (the per-op profile).
type step struct {
	node *gorgonia.Node
	run  func(p *program) error
	work opWork
}

// program is a compiled part of a graph on the device.
type program struct {
	be     *Backend
	name   string
	ops    []string
	slots  map[*gorgonia.Node]*slot
	outs   map[*gorgonia.Node]bool
	inputs []*slot
	// leafConsts are the constants that are nodes without an operation:
	// one another program declares as an input is uploaded before every
	// run (Backend.inputs).
	leafConsts []*slot
	owned      []*opencl.Buffer // inputs, constants, batch-norm state
	bn         []*opencl.BNState
	steps      []step
	// post runs after the steps: downloads to the host (gorgonia.Read,
	// the batch-norm statistics) in program order.
	post       []func(p *program) error
	storeSizes []int
	stores     []*opencl.Buffer // nil until a run (after Release)
	// convs are the geometries of the program's convolutions (for the
	// workspaces, CheckMemory).
	convs []opencl.ConvGeom

	// devInputs are the inputs set on the device (device.Glue): not
	// uploaded from their Go values until HostInput.
	devInputs map[*gorgonia.Node]bool

	// per run
	ran     bool
	version int
	host    map[*gorgonia.Node]hostValue
	closed  bool
}

// hostValue is a value downloaded in run version.
type hostValue struct {
	v       gorgonia.Value
	version int
}

func (p *program) lib() *opencl.Lib     { return p.be.lib }
func (p *program) ctx() *opencl.Context { return p.be.ctx }
func (p *program) buf(s *slot) *opencl.Buffer {
	s = s.root()
	if s.kind == slotComputed {
		return p.stores[s.val.store]
	}
	return s.buf
}

// activationBytes is the device memory the program's activations take
// while it runs.
func (p *program) activationBytes() int64 {
	var n int64
	for _, s := range p.storeSizes {
		n += 4 * int64(s)
	}
	return n
}

// store returns the pooled buffer of an auxiliary value.
func (p *program) store(v *value) *opencl.Buffer { return p.stores[v.store] }

func (p *program) errorf(format string, args ...any) error {
	return fmt.Errorf("device opencl: program %q: "+format, append([]any{p.name}, args...)...)
}

// Run executes the program once on the current inputs and parameters.
func (p *program) Run() error {
	if p.closed {
		return p.errorf("closed")
	}
	if p.be.isClosed() {
		return errClosed
	}
	p.ran = false
	if p.stores == nil {
		p.stores = make([]*opencl.Buffer, len(p.storeSizes))
		for i, n := range p.storeSizes {
			b, err := p.ctx().Alloc(n)
			if err != nil {
				p.Release()
				return p.errorf("activations: %w", err)
			}
			b.SetRole(opencl.RoleActivation)
			p.stores[i] = b
		}
	}
	var ups []*slot // the leaf constants another program declares as inputs, then the inputs
	for _, s := range p.leafConsts {
		if p.be.declaredInput(s.node) {
			ups = append(ups, s)
		}
	}
	for _, s := range p.inputs {
		if !p.devInputs[s.node] {
			ups = append(ups, s)
		}
	}
	var up int64
	for _, s := range ups {
		up += 4 * int64(s.size)
	}
	uploads := func() error {
		for _, s := range ups {
			if err := p.upload(s); err != nil {
				return err
			}
		}
		return nil
	}
	if err := p.be.timed(opWork{cat: device.CatTransfers, kind: "inputs to the device", byts: up}, uploads); err != nil {
		return err
	}
	p.version++
	for _, st := range p.steps {
		if err := p.be.timed(st.work, func() error { return st.run(p) }); err != nil {
			return p.errorf("node %s (%s): %w", st.node.Name(), device.OpKind(st.node.Op()), err)
		}
	}
	post := func() error {
		for _, f := range p.post {
			if err := f(p); err != nil {
				return p.errorf("%w", err)
			}
		}
		return nil
	}
	if len(p.post) > 0 {
		if err := p.be.timed(opWork{cat: device.CatTransfers, kind: "values to the host"}, post); err != nil {
			return err
		}
	}
	p.ran = true
	return nil
}

// upload copies an input's Go value to its buffer.
func (p *program) upload(s *slot) error {
	d, err := float32Data(s.node)
	if err != nil {
		return err
	}
	if len(d) != s.size {
		return p.errorf("input %s holds %d values, compiled for %d", s.node.Name(), len(d), s.size)
	}
	if err := s.buf.Write(d); err != nil {
		return p.errorf("input %s: %w", s.node.Name(), err)
	}
	return nil
}

// Value downloads n's value after the last run: an output the program was
// compiled for, or one of its inputs (its Go value).
func (p *program) Value(n *gorgonia.Node) (gorgonia.Value, error) {
	s, ok := p.slots[n]
	if !ok {
		return nil, p.errorf("node %s is not part of the program", n.Name())
	}
	if s.kind == slotInput {
		return n.Value(), nil
	}
	if !p.outs[n] {
		return nil, p.errorf("node %s is not an output of the program (the device keeps only the outputs it was compiled for)", n.Name())
	}
	if s.kind == slotStmt {
		return nil, p.errorf("node %s has no value", n.Name())
	}
	if !p.ran {
		return nil, p.errorf("node %s has no value (the program has not run since it was compiled or released)", n.Name())
	}
	if h, ok := p.host[n]; ok && h.version == p.version {
		return h.v, nil
	}
	data := make([]float32, s.size)
	if err := p.buf(s).Read(data); err != nil {
		return nil, p.errorf("reading %s: %w", n.Name(), err)
	}
	var v gorgonia.Value
	if s.shape.IsScalar() {
		v = gorgonia.NewF32(data[0])
	} else {
		v = tensor.New(tensor.WithShape(s.shape.Clone()...), tensor.WithBacking(data))
	}
	p.host[n] = hostValue{v: v, version: p.version}
	return v, nil
}

// outBuffer returns the device buffer holding output n after the last run.
func (p *program) outBuffer(n *gorgonia.Node) (*opencl.Buffer, int, error) {
	s, ok := p.slots[n]
	if !ok || !p.outs[n] || s.kind == slotStmt {
		return nil, 0, p.errorf("node %s is not an output of the program", n.Name())
	}
	if !p.ran {
		return nil, 0, p.errorf("node %s has no value (the program has not run since it was compiled or released)", n.Name())
	}
	return p.buf(s), s.size, nil
}

// ReadAsync enqueues the copy of output n after the last run into dst
// without waiting (device.AsyncReader): dst holds it after Wait.
func (p *program) ReadAsync(n *gorgonia.Node, dst []float32) error {
	b, size, err := p.outBuffer(n)
	if err != nil {
		return err
	}
	if len(dst) != size {
		return p.errorf("output %s has %d values, the destination %d", n.Name(), size, len(dst))
	}
	return b.ReadAsync(dst, 0)
}

// Wait waits once for the device: every ReadAsync before it has arrived.
func (p *program) Wait() error { return p.ctx().Finish() }

func (p *program) Ops() []string { return append([]string(nil), p.ops...) }

// Release frees the activation buffers; the next run allocates them again.
func (p *program) Release() {
	for _, b := range p.stores {
		if b != nil {
			b.Release()
		}
	}
	p.stores = nil
	p.ran = false
	clear(p.host)
}

// Close frees everything the program holds.
func (p *program) Close() error {
	if p.closed {
		return nil
	}
	p.Release()
	p.closed = true
	var errs []error
	for _, b := range p.owned {
		errs = append(errs, b.Release())
	}
	for _, st := range p.bn {
		errs = append(errs, st.Release())
	}
	p.owned, p.bn = nil, nil
	p.be.mu.Lock()
	delete(p.be.progs, p)
	p.be.mu.Unlock()
	return errors.Join(errs...)
}
