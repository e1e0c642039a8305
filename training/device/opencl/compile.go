package opencl

import (
	"fmt"
	"sort"

	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/training/device"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// compiler turns the nodes of a subgraph into a program's steps. Lowering
// (reading every op's fields and shapes) ends before anything is
// allocated on the device; allocs then run in order.
type compiler struct {
	be     *Backend
	p      *program
	nodes  gorgonia.Nodes
	index  map[*gorgonia.Node]int
	params map[*gorgonia.Node]bool
	inputs map[*gorgonia.Node]bool
	values []*value
	// allocs allocate and fill the program's fixed buffers (batch-norm
	// state), after lowering succeeded.
	allocs []func() error
	// bnFwd maps a fused batch-norm forward node to its device state.
	bnFwd map[*gorgonia.Node]*bnNode
	// poolMask maps a max-pool node to its positions' value.
	poolMask poolMasks
	// running: the program's tracked batch norms fold their statistics
	// into running averages kept on the device (Options.RunningOnDevice).
	running bool
	// fus are the fused bias and activation patterns (fuse.go).
	fus *fusions
}

// Compile prepares the part of g that computes outs for the device. An
// operation without a kernel is a *device.MissingOpError, returned before
// anything is allocated.
func (b *Backend) Compile(g *gorgonia.ExprGraph, outs gorgonia.Nodes, opts device.Options) (device.Program, error) {
	if b.isClosed() {
		return nil, errClosed
	}
	if len(outs) == 0 {
		return nil, fmt.Errorf("device opencl: program %q has no output", opts.Name)
	}
	nodes, err := device.Subgraph(g, device.Roots(outs, opts))
	if err != nil {
		return nil, fmt.Errorf("device opencl: program %q: %w", opts.Name, err)
	}
	for _, n := range nodes {
		if n.Op() == nil {
			continue
		}
		if k := device.OpKind(n.Op()); lowererOf(k) == nil {
			return nil, &device.MissingOpError{Backend: Name, Program: opts.Name, Op: k, Node: n.Name()}
		}
	}
	p := &program{be: b, name: opts.Name, ops: device.Kinds(nodes), slots: map[*gorgonia.Node]*slot{},
		outs: map[*gorgonia.Node]bool{}, host: map[*gorgonia.Node]hostValue{}}
	c := &compiler{be: b, p: p, nodes: nodes, index: map[*gorgonia.Node]int{}, params: map[*gorgonia.Node]bool{},
		inputs: map[*gorgonia.Node]bool{}, bnFwd: map[*gorgonia.Node]*bnNode{}, running: opts.RunningOnDevice}
	for _, n := range opts.Params {
		c.params[n] = true
	}
	for _, n := range opts.Inputs {
		c.inputs[n] = true
	}
	for _, n := range outs {
		p.outs[n] = true
	}
	c.findFusions()
	if err := c.lower(); err != nil {
		return nil, err
	}
	c.plan()
	if err := c.allocate(); err != nil {
		p.Close()
		return nil, err
	}
	b.mu.Lock()
	b.progs[p] = struct{}{}
	for _, n := range opts.Inputs {
		b.inputs[n] = true
	}
	b.mu.Unlock()
	return p, nil
}

func (c *compiler) errorf(n *gorgonia.Node, format string, args ...any) error {
	return fmt.Errorf("device opencl: program %q: node %s (%s): %s", c.p.name, n.Name(), device.OpKind(n.Op()), fmt.Sprintf(format, args...))
}

// size is the number of elements of a shape (1 for a scalar).
func size(s tensor.Shape) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

// lower makes every node's slot and step, in program order.
func (c *compiler) lower() error {
	p := c.p
	for i, n := range c.nodes {
		c.index[n] = i
		s := &slot{node: n, shape: n.Shape().Clone(), size: size(n.Shape())}
		p.slots[n] = s
		if n.Op() == nil {
			if err := c.leaf(s); err != nil {
				return err
			}
			continue
		}
		in := []*slot{}
		for _, ch := range device.Children(n) {
			cs, ok := p.slots[ch]
			if !ok {
				return c.errorf(n, "input %s comes after it", ch.Name())
			}
			in = append(in, cs)
		}
		run, fused, err := c.lowerFused(n, s, in, i)
		if !fused && err == nil {
			run, err = lowererOf(device.OpKind(n.Op()))(c, n, s, in)
		}
		if err != nil {
			return err
		}
		if s.kind == slotComputed && s.val == nil {
			s.val = c.newValue(s.size, i)
		}
		for _, x := range in {
			c.read(x, i)
		}
		if run != nil {
			p.steps = append(p.steps, step{node: n, run: run, work: workOf(n)})
		}
	}
	for n := range p.outs {
		if s := p.slots[n]; s != nil {
			c.pin(s)
		}
	}
	return nil
}

// leaf classifies a node without an operation: a parameter, an input or a
// constant.
func (c *compiler) leaf(s *slot) error {
	n := s.node
	switch {
	case c.params[n] || c.be.Holds(n): // a parameter, or state the back end keeps (running averages)
		s.kind = slotParam
	case c.inputs[n]:
		s.kind = slotInput
		c.p.inputs = append(c.p.inputs, s)
	default:
		s.kind = slotConst
		d, err := float32Data(n)
		if err != nil {
			return fmt.Errorf("device opencl: program %q: constant %w", c.p.name, err)
		}
		s.host = d
		c.p.leafConsts = append(c.p.leafConsts, s)
	}
	if s.kind != slotConst {
		if _, err := float32Data(n); err != nil {
			return fmt.Errorf("device opencl: program %q: %w", c.p.name, err)
		}
	}
	return nil
}

// constant makes s a constant slot holding d.
func (c *compiler) constant(s *slot, d []float32) {
	s.kind = slotConst
	s.host = d
}

// alias makes s read the buffer of t.
func (c *compiler) alias(s, t *slot) {
	s.kind = slotAlias
	s.target = t.root()
}

// newValue adds a pooled buffer of n elements defined at step def.
func (c *compiler) newValue(n, def int) *value {
	v := &value{size: n, def: def, last: def}
	c.values = append(c.values, v)
	return v
}

// aux adds a pooled buffer (pool positions, masks) of n elements defined
// by node n, read up to the node's own step until readAux extends it.
func (c *compiler) aux(n *gorgonia.Node, size int) *value {
	return c.newValue(size, c.index[n])
}

// read records that step i reads s.
func (c *compiler) read(s *slot, i int) {
	if r := s.root(); r.kind == slotComputed && r.val != nil && r.val.last < i {
		r.val.last = i
	}
}

// readAux records that node n reads v.
func (c *compiler) readAux(v *value, n *gorgonia.Node) {
	if i := c.index[n]; v.last < i {
		v.last = i
	}
}

// pin keeps s's buffer to the end of the run (outputs, gorgonia.Read).
func (c *compiler) pin(s *slot) {
	if r := s.root(); r.kind == slotComputed && r.val != nil {
		r.val.pinned = true
	}
}

// plan assigns the pooled values to stores: a value takes a free store
// (the smallest that holds it) when its step runs and gives it back after
// its last reader, so activations that are never live together share
// device memory.
func (c *compiler) plan() {
	p := c.p
	byDef := map[int][]*value{}
	byLast := map[int][]*value{}
	for _, v := range c.values {
		byDef[v.def] = append(byDef[v.def], v)
		if !v.pinned {
			byLast[v.last] = append(byLast[v.last], v)
		}
	}
	var free []int // store indices, sorted by size
	for i := range c.nodes {
		for _, v := range byDef[i] {
			k := sort.Search(len(free), func(j int) bool { return p.storeSizes[free[j]] >= v.size })
			if k < len(free) {
				v.store = free[k]
				free = append(free[:k], free[k+1:]...)
				continue
			}
			v.store = len(p.storeSizes)
			p.storeSizes = append(p.storeSizes, max(v.size, 1))
		}
		for _, v := range byLast[i] {
			k := sort.Search(len(free), func(j int) bool { return p.storeSizes[free[j]] >= p.storeSizes[v.store] })
			free = append(free, 0)
			copy(free[k+1:], free[k:])
			free[k] = v.store
		}
	}
}

// allocate uploads the constants, allocates the inputs and the fixed
// buffers and takes the parameters' buffers.
func (c *compiler) allocate() error {
	p, b := c.p, c.be
	for _, n := range c.nodes {
		s := p.slots[n]
		switch s.kind {
		case slotParam:
			b.mu.Lock()
			buf, err := b.param(n)
			b.mu.Unlock()
			if err != nil {
				return err
			}
			if buf.Len() != s.size {
				return fmt.Errorf("device opencl: parameter %s has %d values on the device, the graph %d", n.Name(), buf.Len(), s.size)
			}
			s.buf = buf
		case slotInput:
			buf, err := b.ctx.Alloc(max(s.size, 1))
			if err != nil {
				return fmt.Errorf("device opencl: program %q: input %s: %w", p.name, n.Name(), err)
			}
			buf.SetRole(opencl.RoleInput)
			p.owned = append(p.owned, buf)
			s.buf = buf
		case slotConst:
			if len(s.host) != s.size {
				return fmt.Errorf("device opencl: program %q: constant %s holds %d values for shape %v", p.name, n.Name(), len(s.host), s.shape)
			}
			buf, err := b.ctx.Alloc(max(s.size, 1))
			if err != nil {
				return fmt.Errorf("device opencl: program %q: constant %s: %w", p.name, n.Name(), err)
			}
			buf.SetRole(opencl.RoleConst)
			p.owned = append(p.owned, buf)
			if err := buf.Write(s.host); err != nil {
				return fmt.Errorf("device opencl: program %q: constant %s: %w", p.name, n.Name(), err)
			}
			s.buf, s.host = buf, nil
		}
	}
	for _, f := range c.allocs {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// fixedBuffer returns a handle to a program buffer of n elements allocated
// with the program (zero-filled).
func (c *compiler) fixedBuffer(n int) **opencl.Buffer {
	h := new(*opencl.Buffer)
	c.allocs = append(c.allocs, func() error {
		b, err := c.be.ctx.Alloc(n)
		if err != nil {
			return err
		}
		b.SetRole(opencl.RoleBNState)
		c.p.owned = append(c.p.owned, b)
		*h = b
		return c.be.ctx.Fill(b, 0)
	})
	return h
}

// forwardNode returns the node of the program whose op is op (the forward
// op of a gradient op).
func (c *compiler) forwardNode(n *gorgonia.Node, op gorgonia.Op, what string) (*gorgonia.Node, error) {
	for _, m := range c.nodes {
		if m.Op() == op {
			return m, nil
		}
	}
	return nil, c.errorf(n, "its forward %s is not part of the program", what)
}
