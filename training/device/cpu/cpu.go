package cpu

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/llpfc/llpfc/internal/par"
	"github.com/llpfc/llpfc/internal/vec"

	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/optim"
	"gorgonia.org/gorgonia"
)

// Name is the back end's registered name.
const Name = "cpu"

func init() {
	device.Register(Name, func(spec string) (device.Backend, error) {
		if spec != "" {
			return nil, fmt.Errorf("device cpu: unexpected %q after cpu (the CPU back end takes no platform or device)", spec)
		}
		return New(), nil
	})
}

// Backend runs graphs on the CPU with gorgonia's tape machine and the
// project's fused operations. Parameters, gradients and optimizer state are
// the nodes' own Go values, so Push and Pull have nothing to copy.
type Backend struct{}

// New returns the CPU back end.
func New() *Backend { return &Backend{} }

// Name returns "cpu".
func (*Backend) Name() string { return Name }

// Compile builds a tape machine for the part of g that computes outs. Every
// operation gorgonia and training/nn define runs on the CPU, so it never
// reports a missing one.
func (*Backend) Compile(g *gorgonia.ExprGraph, outs gorgonia.Nodes, opts device.Options) (device.Program, error) {
	if len(outs) == 0 {
		return nil, fmt.Errorf("device cpu: program %q has no output", opts.Name)
	}
	roots := device.Roots(outs, opts)
	nodes, err := device.Subgraph(g, roots)
	if err != nil {
		return nil, fmt.Errorf("device cpu: program %q: %w", opts.Name, err)
	}
	if ActivationPlan {
		return newPlan(opts.Name, nodes, outs)
	}
	return &program{name: opts.Name, t: newTape(g.SubgraphRoots(roots...)), ops: device.Kinds(nodes)}, nil
}

// Push has nothing to copy: the CPU computes on the nodes' values.
func (*Backend) Push(...*gorgonia.Node) error { return nil }

// Pull has nothing to copy: the CPU computes on the nodes' values.
func (*Backend) Pull(...*gorgonia.Node) error { return nil }

// Close has nothing to release.
func (*Backend) Close() error { return nil }

// Costs are zero: the CPU back end has no device, so nothing is launched,
// transferred or waited for (device.CostCounter).
func (*Backend) Costs() device.Costs { return device.Costs{} }

// CostsNote says why the counts are zero.
func (*Backend) CostsNote() string {
	return "the CPU back end has no device: no launches, transfers or waits (zeros); its memory is the process heap (alloc_bytes_per_step)"
}

// program is a tape that keeps its buffers between runs (tape.Rewind).
type program struct {
	name string
	t    *tape
	ran  bool // the tape ran since its last Rewind or Release
	ops  []string
}

func (p *program) Run() error {
	if p.ran {
		p.t.Rewind()
		p.ran = false
	}
	if err := p.t.RunAll(); err != nil {
		p.t.Reset()
		return err
	}
	p.ran = true
	return nil
}

func (p *program) Value(n *gorgonia.Node) (gorgonia.Value, error) {
	v := n.Value()
	if v == nil {
		return nil, fmt.Errorf("device cpu: program %q: node %s has no value (not computed by the last run)", p.name, n.Name())
	}
	return v, nil
}

func (p *program) Ops() []string { return append([]string(nil), p.ops...) }

func (p *program) Release() {
	p.t.Release()
	p.ran = false
}

func (p *program) Close() error { return p.t.Close() }

// grads holds float32 gradients (what the optimizer reads) and, once a
// minibatch adds a second time or with a scale other than 1, float64
// accumulators: the first Add of a minibatch with scale 1 takes its values
// (bit for bit, as a copy into float32 is), later ones accumulate in float64
// and the float32 gradients are their rounding (as KLChunked and LLP-VAT
// always accumulated). With BorrowGradients, that first Add from an
// activation plan's program reads the program's output memory itself
// instead of a copy, and takes it over when the program runs again or
// releases its memory (VGG16's gradients are 538 MB, once held twice).
type grads struct {
	sizes []int
	// g32 are the float32 gradients: own, or the outputs of a plan's run
	// (lender's last, while lender is set); own is allocated when first
	// needed.
	g32, own [][]float32
	acc      [][]float64
	state    gradState
	lender   *plan
}

// BorrowGradients switches the lever of grads: a minibatch's first
// gradient, from an activation plan's program, is read in the program's
// memory rather than copied; tests turn it off to compare.
var BorrowGradients = true

type gradState int

const (
	gradsZero gradState = iota // every gradient is zero
	gradsF32                   // g32 holds them exactly
	gradsAcc                   // acc holds them; g32 is stale
)

// NewGrads makes gradient storage for params; the float32 buffers are
// allocated when first needed.
func (*Backend) NewGrads(params gorgonia.Nodes) (device.Grads, error) {
	g := &grads{}
	for _, p := range params {
		g.sizes = append(g.sizes, p.Shape().TotalSize())
	}
	g.g32 = make([][]float32, len(g.sizes))
	return g, nil
}

func (g *grads) Reset() error {
	g.unborrow()
	clear(g.g32) // lets taken-over output memory go
	g.state = gradsZero
	return nil
}

// ensureOwn allocates the owned float32 buffers.
func (g *grads) ensureOwn() {
	if g.own == nil {
		for _, n := range g.sizes {
			g.own = append(g.own, make([]float32, n))
		}
	}
}

// unborrow forgets the lender's memory (its gradients no longer needed).
func (g *grads) unborrow() {
	if g.lender != nil {
		g.lender.borrower = nil
		g.lender = nil
	}
}

// detach makes the memory the gradients were read in theirs: the lender
// leaves it to them (plan.handOver) and takes new memory for its outputs.
func (g *grads) detach() { g.lender = nil }

func (g *grads) Add(p device.Program, nodes gorgonia.Nodes, scale float64) error {
	if len(nodes) != len(g.sizes) {
		return fmt.Errorf("device cpu: %d gradient nodes for %d parameters", len(nodes), len(g.sizes))
	}
	for i, n := range nodes {
		v := n.Value()
		if v == nil || v.Shape().TotalSize() != g.sizes[i] {
			return fmt.Errorf("device cpu: gradient %s: no value of %d entries", n.Name(), g.sizes[i])
		}
	}
	if g.state == gradsZero && scale == 1 {
		all32 := true
		for _, n := range nodes {
			if _, ok := n.Value().Data().([]float32); !ok {
				all32 = false
			}
		}
		if all32 {
			g.take(p, nodes)
			return nil
		}
	}
	g.toAcc()
	for i, n := range nodes {
		a := g.acc[i]
		switch d := n.Value().Data().(type) {
		case []float32:
			for j, x := range d {
				a[j] += scale * float64(x)
			}
		case []float64:
			for j, x := range d {
				a[j] += scale * x
			}
		default:
			return fmt.Errorf("device cpu: gradient %s: element type %T", n.Name(), d)
		}
	}
	return nil
}

// take makes the float32 values of nodes, outputs of p's last run, the
// gradients: borrowed from an activation plan, copied otherwise.
func (g *grads) take(p device.Program, nodes gorgonia.Nodes) {
	g.unborrow()
	if pl, ok := p.(*plan); ok && BorrowGradients {
		for i, n := range nodes {
			g.g32[i] = n.Value().Data().([]float32)
		}
		pl.lend(g)
		g.lender = pl
	} else {
		g.ensureOwn()
		for i, n := range nodes {
			copy(g.own[i], n.Value().Data().([]float32))
			g.g32[i] = g.own[i]
		}
	}
	g.state = gradsF32
}

// toAcc moves the gradients into the float64 accumulators.
func (g *grads) toAcc() {
	if g.acc == nil {
		for _, n := range g.sizes {
			g.acc = append(g.acc, make([]float64, n))
		}
	}
	switch g.state {
	case gradsZero:
		for _, a := range g.acc {
			clear(a)
		}
	case gradsF32:
		for i, s := range g.g32 {
			for j, x := range s {
				g.acc[i][j] = float64(x)
			}
		}
	}
	g.unborrow()
	g.state = gradsAcc
}

// float32s returns the float32 gradients, rounding the accumulators when
// they hold the gradients.
func (g *grads) float32s() [][]float32 {
	switch g.state {
	case gradsAcc:
		g.ensureOwn()
		for i, a := range g.acc {
			s := g.own[i]
			for j, x := range a {
				s[j] = float32(x)
			}
			g.g32[i] = s
		}
		g.state = gradsF32
	case gradsZero:
		g.ensureOwn()
		for i, s := range g.own {
			clear(s)
			g.g32[i] = s
		}
	}
	return g.g32
}

func (g *grads) NonFinite() (int, int, float64, bool, error) {
	i, j, bad := firstNonFinite(g.float32s())
	if !bad {
		return 0, 0, 0, false, nil
	}
	return i, j, float64(g.g32[i][j]), true, nil
}

func (g *grads) Read(dst [][]float64) error {
	if len(dst) != len(g.sizes) {
		return fmt.Errorf("device cpu: %d slices for %d gradients", len(dst), len(g.sizes))
	}
	for i := range dst {
		if len(dst[i]) != g.sizes[i] {
			return fmt.Errorf("device cpu: gradient %d has %d entries, the slice %d", i, g.sizes[i], len(dst[i]))
		}
	}
	if g.state == gradsAcc {
		for i := range dst {
			copy(dst[i], g.acc[i])
		}
		return nil
	}
	for i, s := range g.float32s() {
		for j, x := range s {
			dst[i][j] = float64(x)
		}
	}
	return nil
}

// firstNonFinite returns the first (slice, index) holding NaN or ±Inf.
func firstNonFinite(gs [][]float32) (int, int, bool) {
	sizes := make([]int, len(gs))
	for i, g := range gs {
		sizes[i] = len(g)
	}
	// Whether any value is non-finite, on every core (par.Ranges), by
	// vec.AllFinite on the bits at the speed memory streams (it runs over
	// every gradient before each update); then, only if one is, the first
	// of them in order, as one loop would find it.
	var any atomic.Bool
	par.Ranges(sizes, func(i, lo, hi int) {
		if !vec.AllFinite(gs[i][lo:hi]) {
			any.Store(true)
		}
	})
	if !any.Load() {
		return 0, 0, false
	}
	for i, g := range gs {
		for j, v := range g {
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

// optimizer is optim.Optimizer on the parameters' Go values.
type optimizer struct {
	opt    *optim.Optimizer
	params [][]float32
	grads  *grads
}

// NewOptimizer makes cfg's optimizer over the float32 values of params.
func (*Backend) NewOptimizer(cfg optim.Config, params gorgonia.Nodes, gr device.Grads) (device.Optimizer, error) {
	g, ok := gr.(*grads)
	if !ok {
		return nil, errors.New("device cpu: gradients from another back end")
	}
	o := &optimizer{grads: g}
	var sizes []int
	for _, p := range params {
		d, ok := p.Value().Data().([]float32)
		if !ok {
			return nil, fmt.Errorf("device cpu: parameter %s is not float32 (training runs in float32)", p.Name())
		}
		o.params = append(o.params, d)
		sizes = append(sizes, len(d))
	}
	if len(sizes) != len(g.sizes) {
		return nil, fmt.Errorf("device cpu: %d parameters for %d gradients", len(sizes), len(g.sizes))
	}
	var err error
	if o.opt, err = optim.New(cfg, sizes); err != nil {
		return nil, err
	}
	return o, nil
}

func (o *optimizer) Step(lr float64) error { return o.opt.Step(o.params, o.grads.float32s(), lr) }

func (o *optimizer) State() (optim.State, error) { return *o.opt.State(), nil }

func (o *optimizer) SetState(s optim.State) error { return o.opt.SetState(s) }
