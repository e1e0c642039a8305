package cpu

import (
	"fmt"
	"math"
	"sort"
	"unsafe"

	"github.com/llpfc/llpfc/internal/stepprof"
	"github.com/llpfc/llpfc/training/device"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// ActivationPlan switches the CPU back end's programs from gorgonia's tape
// machine to the activation plan (the memory lever): gorgonia's
// compiler gives nearly every node a register of its own, and the tape
// keeps them all between runs, so a training step held every forward
// activation and every activation gradient at once (1.34 GB of the 1.42 GB
// live heap of a WRN-16-4 step at batch 128). The plan runs the same
// operations in the same order, but a node's value takes a pooled buffer
// when its operation runs and gives it back after its last reader has run,
// as the OpenCL back end's pool does (training/device/opencl: compiler.plan),
// so values that are never live together share memory. Results are bit for
// bit the tape's (TestPlanMatchesTape). Tests turn it off to compare.
var ActivationPlan = true

// PoisonFreed is for tests: set, the plan fills its arena with NaN when it
// allocates it and each value's range again as soon as the value's last
// reader has run, so an operation that read a value after the plan gave
// its memory away, or that accumulated into memory it did not clear, would
// leave NaN in the results (TestActivationPlanMatchesTape).
var PoisonFreed = false

// pval is a pooled value: the value of one node, defined by step def and
// read last by step last, at offset in its element type's arena; or pinned
// (kept to the end of the run: the program's outputs), in memory of its
// own, which a borrower of the outputs may take over (grads).
type pval struct {
	size      int
	dt        tensor.Dtype
	shape     tensor.Shape
	def, last int
	pinned    bool
	offset    int
}

// pslot is a node of the program.
type pslot struct {
	node *gorgonia.Node
	// val is the pooled buffer the node's operation writes (nil: a leaf, a
	// scalar, a statement, or an operation that allocates its value).
	val *pval
	// roots are the pooled buffers the node's value may live in: its own,
	// or, for an operation that allocates its value and may return a view
	// of an input (gorgonia's reshape), every input's roots, which then
	// live as long as the node is read.
	roots []*pval
	cur   gorgonia.Value // the value in the current run
}

// pstep is one operation of the program.
type pstep struct {
	idx  int // the node's index in the program's order
	op   gorgonia.Op
	in   []*pslot
	out  *pslot
	into *gorgonia.Value // gorgonia.Read's destination
	// free are the values whose last reader is this step.
	free []*pval
	kind string // device.OpKind, the step profile's region
}

// plan is a program run with pooled activation buffers.
type plan struct {
	name   string
	ops    []string
	leaves []*pslot
	steps  []pstep
	slots  map[*gorgonia.Node]*pslot
	outs   map[*gorgonia.Node]bool
	vals   []*pval
	// arenaSizes are the elements of each element type's arena; arenas
	// holds them ([]float32 or []float64), nil until a run (after Release);
	// outMem holds each pinned value's own memory.
	arenaSizes map[tensor.Dtype]int
	arenas     map[tensor.Dtype]any
	outMem     map[*pval]any
	args       []gorgonia.Value
	ran        bool
	// borrower holds gradients in this program's output memory
	// (BorrowGradients): the next run writes its outputs into new memory,
	// leaving the borrower the old (handOver).
	borrower *grads
	// givenAway: a former borrower still reads the outputs' memory.
	givenAway bool
	// pool holds the max pools' positions from their forward to their
	// gradient (pool.go).
	pool poolPositions
}

// lend records that g reads outputs of the last run in place.
func (p *plan) lend(g *grads) {
	if p.borrower != nil && p.borrower != g {
		p.borrower.detach()
		p.givenAway = true
	}
	p.borrower = g
}

// handOver leaves the outputs' memory to its borrowers, which own it from
// now on; the plan takes new memory for its outputs at its next run.
func (p *plan) handOver() {
	if p.borrower == nil && !p.givenAway {
		return
	}
	if p.borrower != nil {
		p.borrower.detach()
	}
	p.borrower, p.givenAway, p.outMem = nil, false, nil
}

// newPlan prepares the nodes (in an order where every node comes after its
// inputs, device.Subgraph's) that compute outs.
func newPlan(name string, nodes, outs gorgonia.Nodes) (*plan, error) {
	p := &plan{name: name, ops: device.Kinds(nodes), slots: map[*gorgonia.Node]*pslot{}, outs: map[*gorgonia.Node]bool{}}
	for i, n := range nodes {
		s := &pslot{node: n}
		p.slots[n] = s
		if isInputOrConstant(n) {
			p.leaves = append(p.leaves, s)
			continue
		}
		st := pstep{idx: i, op: n.Op(), out: s, kind: device.OpKind(n.Op())}
		for _, ch := range device.Children(n) {
			cs, ok := p.slots[ch]
			if !ok {
				return nil, fmt.Errorf("device cpu: program %q: node %s reads %s, which comes after it", name, n.Name(), ch.Name())
			}
			st.in = append(st.in, cs)
		}
		_, prealloc := n.Op().(gorgonia.UsePreallocDoer)
		switch {
		case device.IsReadOp(n.Op()):
			into, err := device.ReadInto(n.Op())
			if err != nil {
				return nil, fmt.Errorf("device cpu: program %q: node %s: %w", name, n.Name(), err)
			}
			st.into = into
		case prealloc && poolable(n):
			s.val = &pval{size: n.Shape().TotalSize(), dt: n.Dtype(), shape: n.Shape().Clone(), def: i, last: i}
			s.roots = []*pval{s.val}
			p.vals = append(p.vals, s.val)
		default:
			for _, in := range st.in {
				s.roots = appendNew(s.roots, in.roots...)
			}
		}
		for _, in := range st.in {
			for _, r := range in.roots {
				r.last = max(r.last, i)
			}
		}
		p.steps = append(p.steps, st)
	}
	for _, n := range outs {
		s, ok := p.slots[n]
		if !ok {
			return nil, fmt.Errorf("device cpu: program %q: output %s is not part of it", name, n.Name())
		}
		p.outs[n] = true
		for _, r := range s.roots {
			r.pinned = true
		}
	}
	p.assign(len(nodes))
	byLast := map[int][]*pval{}
	for _, v := range p.vals {
		if !v.pinned {
			byLast[v.last] = append(byLast[v.last], v)
		}
	}
	for i := range p.steps {
		p.steps[i].free = byLast[p.steps[i].idx]
	}
	return p, nil
}

// poolable reports whether n's value can live in a pooled buffer: a
// float32 or float64 tensor (scalars are values of their own).
func poolable(n *gorgonia.Node) bool {
	if n.IsScalar() || n.Shape().IsScalar() || n.Shape().TotalSize() < 1 {
		return false
	}
	return n.Dtype() == tensor.Float32 || n.Dtype() == tensor.Float64
}

// appendNew appends the values of add that dst does not hold.
func appendNew(dst []*pval, add ...*pval) []*pval {
	for _, v := range add {
		found := false
		for _, d := range dst {
			found = found || d == v
		}
		if !found {
			dst = append(dst, v)
		}
	}
	return dst
}

// align is the granularity, in elements, of a value's place in its arena
// (64 bytes of float32: every value starts on a cache line).
const align = 16

// assign places every pooled value in its element type's arena: values that
// are live at the same time (def to last, pinned ones to the end) get
// disjoint ranges, values that are not may share memory. Greedy by size
// (Pisarchyk and Lee 2020, "Efficient memory management for deep neural
// net inference", the offset calculation TensorFlow Lite uses): the largest
// value first, each at the lowest offset of the smallest gap between the
// values already placed that overlap it in time and that holds it, else
// after them.
func (p *plan) assign(nodes int) {
	var order []*pval
	for _, v := range p.vals {
		if !v.pinned {
			order = append(order, v)
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].size > order[j].size })
	end := func(v *pval) int { return v.last }
	var placed []*pval
	p.arenaSizes = map[tensor.Dtype]int{}
	for _, v := range order {
		var live []*pval
		for _, u := range placed {
			if u.dt == v.dt && u.def <= end(v) && v.def <= end(u) {
				live = append(live, u)
			}
		}
		sort.Slice(live, func(i, j int) bool { return live[i].offset < live[j].offset })
		need := (v.size + align - 1) / align * align
		at, best, prev := -1, 0, 0
		for _, u := range live {
			if gap := u.offset - prev; gap >= need && (at < 0 || gap < best) {
				at, best = prev, gap
			}
			prev = max(prev, u.offset+(u.size+align-1)/align*align)
		}
		if at < 0 {
			at = prev
		}
		v.offset = at
		p.arenaSizes[v.dt] = max(p.arenaSizes[v.dt], at+need)
		placed = append(placed, v)
	}
}

// poolBytes returns the bytes of the program's arenas and outputs.
func (p *plan) poolBytes() int64 {
	var b int64
	for dt, n := range p.arenaSizes {
		b += int64(n) * int64(dt.Size())
	}
	for _, v := range p.vals {
		if v.pinned {
			b += int64(v.size) * int64(v.dt.Size())
		}
	}
	return b
}

// newMem allocates n elements of dt.
func newMem(dt tensor.Dtype, n int) any {
	if dt == tensor.Float64 {
		return make([]float64, n)
	}
	return make([]float32, n)
}

func (p *plan) allocate() {
	p.arenas = map[tensor.Dtype]any{}
	for dt, n := range p.arenaSizes {
		p.arenas[dt] = newMem(dt, n)
	}
}

// allocateOutputs gives every pinned value memory of its own.
func (p *plan) allocateOutputs() {
	p.outMem = map[*pval]any{}
	for _, v := range p.vals {
		if v.pinned {
			p.outMem[v] = newMem(v.dt, v.size)
		}
	}
}

// mem returns v's memory: its range of the arena, or its own.
func (p *plan) mem(v *pval) any {
	if v.pinned {
		return p.outMem[v]
	}
	switch a := p.arenas[v.dt].(type) {
	case []float32:
		return a[v.offset : v.offset+v.size : v.offset+v.size]
	case []float64:
		return a[v.offset : v.offset+v.size : v.offset+v.size]
	}
	return nil
}

// header returns a tensor of v's shape over its range of the arena.
func (p *plan) header(v *pval) *tensor.Dense {
	return tensor.New(tensor.WithShape(v.shape.Clone()...), tensor.WithBacking(p.mem(v)))
}

// Run executes the program once on the current inputs and parameters.
func (p *plan) Run() error {
	p.handOver()
	p.ran = false
	if p.arenas == nil {
		p.allocate()
	} else if PoisonFreed {
		for _, a := range p.arenas {
			poison(a)
		}
	}
	if p.outMem == nil {
		p.allocateOutputs()
	} else if PoisonFreed {
		for _, m := range p.outMem {
			poison(m) // the last run's outputs: no operation may read what it did not write
		}
	}
	for _, s := range p.leaves {
		if s.cur = s.node.Value(); s.cur == nil {
			v, err := s.node.Op().Do() // a constant op without a bound value
			if s.node.Op() == nil || err != nil {
				return fmt.Errorf("device cpu: program %q: input %s has no value", p.name, s.node.Name())
			}
			s.cur = v
		}
	}
	for i := range p.steps {
		if err := p.exec(&p.steps[i]); err != nil {
			p.clearRun()
			return fmt.Errorf("device cpu: program %q: node %s (%s): %w", p.name, p.steps[i].out.node.Name(), device.OpKind(p.steps[i].op), err)
		}
	}
	for n := range p.outs {
		s := p.slots[n]
		if s.cur == nil {
			continue // a statement
		}
		if err := gorgonia.UnsafeLet(n, s.cur); err != nil {
			p.clearRun()
			return fmt.Errorf("device cpu: program %q: output %s: %w", p.name, n.Name(), err)
		}
	}
	p.clearRun()
	p.ran = true
	return nil
}

// clearRun drops the run's values of every node but the outputs, so that
// values the operations allocated themselves are garbage after the run.
func (p *plan) clearRun() {
	for n, s := range p.slots {
		if !p.outs[n] {
			s.cur = nil
		}
	}
}

// exec runs one step.
func (p *plan) exec(st *pstep) error {
	args := p.args[:0]
	for _, in := range st.in {
		if in.cur == nil {
			return fmt.Errorf("input %s has no value", in.node.Name())
		}
		args = append(args, in.cur)
	}
	p.args = args
	if stepprof.On() {
		defer stepprof.Begin(st.kind, valueBytes(st.out.node, args)).End()
	}
	var v gorgonia.Value
	var err error
	switch {
	case st.into != nil:
		if *st.into != nil {
			_, err = gorgonia.Copy(*st.into, args[0])
		} else {
			*st.into, err = gorgonia.CloneValue(args[0])
		}
	case st.out.val != nil:
		hdr := p.header(st.out.val)
		var ok bool
		if v, ok = parallelElementwise(st.kind, hdr, args); ok {
			break
		}
		if v, ok = parallelRepeat0(st.kind, hdr, args); ok {
			break
		}
		if p.pool == nil {
			p.pool = poolPositions{}
		}
		if v, ok = p.pool.parallelMaxPool(st.kind, st.op, hdr, args); ok {
			break
		}
		if v, err = st.op.(gorgonia.UsePreallocDoer).UsePreallocDo(hdr, args...); err != nil {
			v, err = st.op.Do(args...)
		}
		if err == nil && !within(v, p.mem(st.out.val)) {
			err = p.checkOwnMemory(v)
		}
	default:
		var ok bool
		if v, ok = parallelSum0(st.kind, st.out.node.Shape(), args); !ok {
			v, err = st.op.Do(args...)
		}
	}
	if err != nil {
		return err
	}
	st.out.cur = v
	if PoisonFreed {
		for _, f := range st.free {
			poison(p.mem(f))
		}
	}
	return nil
}

// checkOwnMemory fails when v, the value of an operation that did not use
// its range of the arena, lies in the arena: the plan would not know how
// long that memory must live.
func (p *plan) checkOwnMemory(v gorgonia.Value) error {
	for _, a := range p.arenas {
		if overlaps(v, a) {
			return fmt.Errorf("the operation returned a value in another node's pooled memory (a view of an input), which the activation plan cannot hold")
		}
	}
	for _, a := range p.outMem {
		if overlaps(v, a) {
			return fmt.Errorf("the operation returned a value in another node's pooled memory (a view of an input), which the activation plan cannot hold")
		}
	}
	return nil
}

// span returns the address range of a value's or a store's memory.
func span(x any) (uintptr, uintptr) {
	switch d := x.(type) {
	case []float32:
		if len(d) == 0 {
			return 0, 0
		}
		a := uintptr(unsafe.Pointer(&d[0]))
		return a, a + uintptr(len(d))*4
	case []float64:
		if len(d) == 0 {
			return 0, 0
		}
		a := uintptr(unsafe.Pointer(&d[0]))
		return a, a + uintptr(len(d))*8
	case tensor.Memory:
		a := d.Uintptr()
		return a, a + uintptr(d.MemSize())
	}
	return 0, 0
}

// within reports whether v's memory lies inside store.
func within(v gorgonia.Value, store any) bool {
	a, b := span(v)
	c, d := span(store)
	return a != 0 && c <= a && b <= d
}

func overlaps(v gorgonia.Value, store any) bool {
	a, b := span(v)
	c, d := span(store)
	return a != 0 && a < d && c < b
}

func poison(store any) {
	switch s := store.(type) {
	case []float32:
		nan := float32(math.NaN())
		for i := range s {
			s[i] = nan
		}
	case []float64:
		for i := range s {
			s[i] = math.NaN()
		}
	}
}

// Value returns n's value after the last run: an output the program was
// compiled for, or one of its inputs.
func (p *plan) Value(n *gorgonia.Node) (gorgonia.Value, error) {
	s, ok := p.slots[n]
	switch {
	case !ok:
		return nil, fmt.Errorf("device cpu: program %q: node %s is not part of it", p.name, n.Name())
	case isInputOrConstant(n):
		return n.Value(), nil
	case !p.outs[n]:
		return nil, fmt.Errorf("device cpu: program %q: node %s is not an output (the activation plan keeps only the outputs it was compiled for)", p.name, n.Name())
	case !p.ran || s.cur == nil:
		return nil, fmt.Errorf("device cpu: program %q: node %s has no value (not computed by the last run)", p.name, n.Name())
	}
	return s.cur, nil
}

func (p *plan) Ops() []string { return append([]string(nil), p.ops...) }

// Release drops the pooled buffers and the outputs' values; the next run
// allocates the pool again.
func (p *plan) Release() {
	p.handOver()
	p.arenas, p.outMem, p.pool = nil, nil, nil
	p.ran = false
	for n, s := range p.slots {
		s.cur = nil
		if p.outs[n] {
			unbind(n)
		}
	}
}

func (p *plan) Close() error {
	p.Release()
	return nil
}
