package opencl

import (
	"errors"
	"fmt"

	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
)

// bnNode is a fused training-mode batch-norm node's state in a program:
// the per-channel state its gradient ops read (opencl.BNState) and the
// buffers of the chunked sweep's statistics adjoints. The op's host-side
// state (the statistics recorded for the running averages, a BNSweep's
// minibatch statistics and adjoints) is kept by the op itself through
// nn.BatchNormOp's hooks, after every run, as its CPU Do keeps it.
type bnNode struct {
	op   nn.BatchNormOp
	geom nn.BNGeometry
	st   *opencl.BNState
	// dev is the op's statistics kept on the device, shared by every
	// program that runs the op (a sweep's minibatch statistics and
	// adjoints, the recorded statistics).
	dev *bnDev
	// split holds the run's statistics as float pairs (opencl.Lib's
	// BNStatsSplit layout).
	split **opencl.Buffer

	// rm and rv are the layer's running averages kept on the device
	// (Options.RunningOnDevice; nil otherwise), updated with momentum by
	// the forward step itself.
	rm, rv   *opencl.Buffer
	momentum float64

	run    nn.BNRun // this run's, read by the forward step
	ran    bool     // the forward step ran in this run
	folded bool     // the forward step folded the statistics into rm, rv
	gradX  bool     // the program differentiates with respect to x
}

// bnDev is one fused batch-norm op's statistics on the device
// (nn.BNDevice), allocated with the first program that runs the op: a
// sweep's minibatch statistics as they accumulate (acc: mean and m2 as
// float pairs) and once fixed (fixed: BNStatsSplit's layout), the
// partial derivatives a collection sweep adds up and the adjoints they
// become, the layer's running averages held on the device, and a copy of
// the last recorded run's statistics. So KL's and LLP-VAT's
// chunked sweeps and the running averages' update download nothing.
type bnDev struct {
	be                           *Backend
	c                            int
	acc, fixed                   *opencl.Buffer
	dMean, dVar, adjMean, adjVar *opencl.Buffer
	rm, rv                       *opencl.Buffer // nil when the op does not track
	record                       *opencl.Buffer // the last recorded run's statistics (BNStatsSplit's layout)
}

// bnDevice returns op's device state, making it (and holding its running
// averages on the device) the first time. The caller holds no lock.
func (b *Backend) bnDevice(op nn.BatchNormOp, c int) (*bnDev, error) {
	b.mu.Lock()
	d := b.bnDevs[op]
	b.mu.Unlock()
	if d != nil {
		return d, nil
	}
	d = &bnDev{be: b, c: c}
	for _, h := range []struct {
		buf **opencl.Buffer
		n   int
	}{{&d.acc, 4 * c}, {&d.fixed, 4 * c}, {&d.record, 4 * c}, {&d.dMean, c}, {&d.dVar, c}, {&d.adjMean, c}, {&d.adjVar, c}} {
		buf, err := b.ctx.Alloc(h.n)
		if err != nil {
			return nil, err
		}
		buf.SetRole(opencl.RoleBNState)
		if err := b.ctx.Fill(buf, 0); err != nil {
			return nil, err
		}
		*h.buf = buf
	}
	if rm, rv, _, ok := op.RunningAverages(); ok {
		b.mu.Lock()
		var err error
		if d.rm, err = b.held(rm, opencl.RoleRunning); err == nil {
			d.rv, err = b.held(rv, opencl.RoleRunning)
		}
		b.mu.Unlock()
		if err != nil {
			return nil, err
		}
		if d.rm.Len() != c || d.rv.Len() != c {
			return nil, fmt.Errorf("running averages %s, %s of %d and %d values for %d channels", rm.Name(), rv.Name(), d.rm.Len(), d.rv.Len(), c)
		}
	}
	b.mu.Lock()
	b.bnDevs[op] = d
	b.mu.Unlock()
	op.KeepOnDevice(d)
	return d, nil
}

// StartAccumulate zeroes the accumulating statistics (nn.BNDevice).
func (d *bnDev) StartAccumulate() error { return d.be.ctx.Fill(d.acc, 0) }

// FinishAccumulate fixes the minibatch statistics over count values.
func (d *bnDev) FinishAccumulate(count float64) error {
	return d.be.lib.BNFinishSplit(d.acc, d.fixed, count, d.c)
}

// StartCollect zeroes the collected partial derivatives.
func (d *bnDev) StartCollect() error {
	if err := d.be.ctx.Fill(d.dMean, 0); err != nil {
		return err
	}
	return d.be.ctx.Fill(d.dVar, 0)
}

// FinishCollect copies the collected partial derivatives to the adjoints.
func (d *bnDev) FinishCollect() error {
	if err := d.be.ctx.Copy(d.adjMean, 0, d.dMean, 0, d.c); err != nil {
		return err
	}
	return d.be.ctx.Copy(d.adjVar, 0, d.dVar, 0, d.c)
}

// FoldRecord folds the last recorded run's statistics into the running
// averages held on the device.
func (d *bnDev) FoldRecord(momentum float64, count int) error {
	if d.rm == nil {
		return errors.New("device opencl: a batch-norm record to fold without running averages on the device")
	}
	return d.be.lib.BNRunningSplit(d.rm, d.rv, d.record, d.c, momentum, count)
}

func (b *bnNode) be() *Backend { return b.dev.be }

func (b *bnNode) bnGeom() opencl.BNGeom {
	return opencl.BNGeom{N: b.geom.N, C: b.geom.C, HW: b.geom.HW}
}

func lowerBN(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	if err := arity(c, n, in, 3); err != nil {
		return nil, err
	}
	op, ok := n.Op().(nn.BatchNormOp)
	if !ok {
		return nil, c.errorf(n, "op of type %T is not an nn.BatchNormOp", n.Op())
	}
	g := op.BNGeometry()
	x, gamma, beta := in[0], in[1], in[2]
	if x.size != g.N*g.C*g.HW || out.size != x.size || gamma.size != g.C || beta.size != g.C {
		return nil, c.errorf(n, "geometry %+v for shapes %v, %v, %v", g, x.shape, gamma.shape, beta.shape)
	}
	bn := &bnNode{op: op, geom: g}
	bn.split = c.fixedBuffer(4 * g.C)
	c.bnFwd[n] = bn
	c.allocs = append(c.allocs, func() error {
		var err error
		bn.dev, err = c.be.bnDevice(op, g.C)
		return err
	})
	if c.running {
		if rm, rv, mom, ok := op.RunningAverages(); ok {
			bn.momentum = mom
			c.allocs = append(c.allocs, func() error { return bn.holdRunning(c.be, rm, rv) })
		}
	}
	c.allocs = append(c.allocs, func() error {
		st, err := c.be.lib.NewBNState(g.C)
		if err != nil {
			return err
		}
		c.p.bn = append(c.p.bn, st)
		bn.st = st
		return nil
	})
	out.kind = slotComputed
	c.p.post = append(c.p.post, bn.after)
	return func(p *program) error {
		bn.run, bn.ran, bn.folded = op.NextRun(), true, false
		lib, geom, split := p.be.lib, bn.bnGeom(), *bn.split
		if bn.run.Fixed { // the sweep's minibatch statistics, fixed on the device
			split = bn.dev.fixed
		} else if err := lib.BNStatsSplit(p.buf(x), geom, bn.run.Rows, split); err != nil {
			return err
		}
		if err := lib.BNForwardSplit(p.buf(x), p.buf(gamma), p.buf(beta), split, p.buf(out), geom, g.Eps, g.ReLU, bn.st); err != nil {
			return err
		}
		if bn.run.Accumulate {
			if err := lib.BNFoldSplit(bn.dev.acc, split, g.C, bn.run.Folded, float64(bn.run.Rows*g.HW)); err != nil {
				return err
			}
		}
		if bn.rm != nil && bn.run.Running && !bn.run.Fixed {
			bn.folded = true
			return lib.BNRunningSplit(bn.rm, bn.rv, split, g.C, bn.momentum, bn.run.RunningCount)
		}
		return nil
	}, nil
}

// holdRunning makes the layer's running averages device state of the back
// end (uploaded once; Pull and Push move them).
func (bn *bnNode) holdRunning(be *Backend, rm, rv *gorgonia.Node) error {
	be.mu.Lock()
	defer be.mu.Unlock()
	var err error
	if bn.rm, err = be.held(rm, opencl.RoleRunning); err != nil {
		return err
	}
	if bn.rv, err = be.held(rv, opencl.RoleRunning); err != nil {
		return err
	}
	if bn.rm.Len() != bn.geom.C || bn.rv.Len() != bn.geom.C {
		return fmt.Errorf("running averages %s, %s of %d and %d values for %d channels", rm.Name(), rv.Name(), bn.rm.Len(), bn.rv.Len(), bn.geom.C)
	}
	return nil
}

// after records the run's statistics (the sweep's fixed ones, or the
// run's own) for the running averages of a tracked op: a copy on the
// device, which the next UpdateRunningStats folds there
// (nn.BNDevice.FoldRecord), the program's buffers free to change or go. A
// run whose statistics the forward step folded already records nothing.
func (bn *bnNode) after(*program) error {
	if !bn.ran {
		return nil
	}
	bn.ran = false
	if bn.run.NeedStats && !bn.folded && bn.dev.rm != nil {
		src := *bn.split
		if bn.run.Fixed {
			src = bn.dev.fixed
		}
		if err := bn.be().ctx.Copy(bn.dev.record, 0, src, 0, 4*bn.geom.C); err != nil {
			return err
		}
		bn.op.DeviceRecorded()
	}
	return nil
}

// lowerBNGrad: ∂L/∂x from x, γ, ∂L/∂y with the forward run's state (also
// leaving Σg and Σg·x̂ in it); ∂L/∂γ and ∂L/∂β (inputs x, γ, ∂L/∂y, ∂L/∂x)
// are those sums.
func lowerBNGrad(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	op, ok := n.Op().(interface{ BNGrad() (nn.BatchNormOp, int) })
	if !ok {
		return nil, c.errorf(n, "op of type %T has no BNGrad", n.Op())
	}
	fwdOp, wrt := op.BNGrad()
	fwd, err := c.forwardNode(n, fwdOp, "batch norm")
	if err != nil {
		return nil, err
	}
	bn := c.bnFwd[fwd]
	if bn == nil {
		return nil, c.errorf(n, "its forward node %s was not lowered", fwd.Name())
	}
	out.kind = slotComputed
	if wrt != 0 {
		if err := arity(c, n, in, 4); err != nil {
			return nil, err
		}
		if out.size != bn.geom.C {
			return nil, c.errorf(n, "%d values for %d channels", out.size, bn.geom.C)
		}
		return func(p *program) error {
			src := bn.st.SumGX
			if wrt == 2 {
				src = bn.st.SumG
			}
			return p.ctx().Copy(p.buf(out), 0, src, 0, bn.geom.C)
		}, nil
	}
	if err := arity(c, n, in, 3); err != nil {
		return nil, err
	}
	if bn.gradX {
		return nil, c.errorf(n, "a second gradient with respect to the input of %s in one program", fwd.Name())
	}
	bn.gradX = true
	x, gamma, dy := in[0], in[1], in[2]
	g := bn.geom
	if x.size != g.N*g.C*g.HW || dy.size != x.size || out.size != x.size {
		return nil, c.errorf(n, "geometry %+v for shapes %v, %v", g, x.shape, dy.shape)
	}
	return func(p *program) error {
		run := bn.run
		mode := opencl.BNOwnStats
		var adj *opencl.BNAdjoint
		switch {
		case run.Fixed && run.Adjoint:
			mode = opencl.BNFixedAdjoint
			adj = &opencl.BNAdjoint{Mean: bn.dev.adjMean, Var: bn.dev.adjVar, Count: run.Count}
		case run.Fixed:
			mode = opencl.BNFixedStats
		}
		lib := p.lib()
		if err := lib.BNBackward(p.buf(x), p.buf(gamma), p.buf(dy), p.buf(out), bn.bnGeom(), run.Rows, g.ReLU, bn.st, mode, adj); err != nil {
			return err
		}
		if run.Fixed && run.Collect { // added up over the sweep's chunks on the device
			return lib.BNCollect(p.buf(gamma), bn.st, bn.dev.dMean, bn.dev.dVar)
		}
		return nil
	}, nil
}

func lowerBNEval(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	if err := arity(c, n, in, 5); err != nil {
		return nil, err
	}
	op, ok := n.Op().(interface{ BNGeometry() nn.BNGeometry })
	if !ok {
		return nil, c.errorf(n, "op of type %T has no BNGeometry", n.Op())
	}
	g := op.BNGeometry()
	x, gamma, beta, rm, rv := in[0], in[1], in[2], in[3], in[4]
	if x.size != g.N*g.C*g.HW || out.size != x.size || gamma.size != g.C || beta.size != g.C || rm.size != g.C || rv.size != g.C {
		return nil, c.errorf(n, "geometry %+v for shapes %v, %v", g, x.shape, gamma.shape)
	}
	geom := opencl.BNGeom{N: g.N, C: g.C, HW: g.HW}
	out.kind = slotComputed
	return func(p *program) error {
		return p.lib().BNEval(p.buf(x), p.buf(gamma), p.buf(beta), p.buf(rm), p.buf(rv), p.buf(out), geom, g.Eps, g.ReLU)
	}, nil
}
