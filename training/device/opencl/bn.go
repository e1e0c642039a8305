package opencl

import (
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
	// adjoints uploaded for BNFixedAdjoint; dMean, dVar collect ∂L/∂μ and
	// ∂L/∂σ² of one backward run (BNRun.Collect).
	adjMean, adjVar, dMean, dVar **opencl.Buffer
	// split holds the run's statistics as float pairs (opencl.Lib's
	// BNStatsSplit layout).
	split **opencl.Buffer

	// rm and rv are the layer's running averages kept on the device
	// (Options.RunningOnDevice; nil otherwise), updated with momentum by
	// the forward step itself.
	rm, rv   *opencl.Buffer
	momentum float64

	run       nn.BNRun // this run's, read by the forward step
	ran       bool     // the forward step ran in this run
	folded    bool     // the forward step folded the statistics into rm, rv
	collected bool     // the backward step collected partial derivatives
	gradX     bool     // the program differentiates with respect to x
}

func (b *bnNode) bnGeom() opencl.BNGeom {
	return opencl.BNGeom{N: b.geom.N, C: b.geom.C, HW: b.geom.HW}
}

// f32 converts per-channel float64 values for upload.
func f32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// f64 downloads a per-channel buffer as float64.
func f64(b *opencl.Buffer, n int) ([]float64, error) {
	d := make([]float32, n)
	if err := b.Read(d); err != nil {
		return nil, err
	}
	out := make([]float64, n)
	for i, x := range d {
		out[i] = float64(x)
	}
	return out, nil
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
	for _, h := range []***opencl.Buffer{&bn.adjMean, &bn.adjVar, &bn.dMean, &bn.dVar} {
		*h = c.fixedBuffer(g.C)
	}
	bn.split = c.fixedBuffer(4 * g.C)
	c.bnFwd[n] = bn
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
		bn.run, bn.ran, bn.collected, bn.folded = op.NextRun(), true, false, false
		lib, geom, split := p.be.lib, bn.bnGeom(), *bn.split
		if bn.run.Fixed {
			if len(bn.run.Mean) != g.C || len(bn.run.Variance) != g.C {
				return fmt.Errorf("fixed statistics of %d and %d channels for %d", len(bn.run.Mean), len(bn.run.Variance), g.C)
			}
			host := make([]float32, 4*g.C)
			opencl.SplitPairs(host[:2*g.C], bn.run.Mean)
			opencl.SplitPairs(host[2*g.C:], bn.run.Variance)
			if err := split.Write(host); err != nil {
				return err
			}
		} else if err := lib.BNStatsSplit(p.buf(x), geom, bn.run.Rows, split); err != nil {
			return err
		}
		if err := lib.BNForwardSplit(p.buf(x), p.buf(gamma), p.buf(beta), split, p.buf(out), geom, g.Eps, g.ReLU, bn.st); err != nil {
			return err
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

// after hands the op the statistics of the run (recorded for the running
// averages, or folded into a sweep's) and the partial derivatives a
// backward run collected.
func (bn *bnNode) after(*program) error {
	if !bn.ran {
		return nil
	}
	bn.ran = false
	if bn.run.NeedStats && !bn.folded {
		if bn.run.Fixed {
			if err := bn.op.SetStats(bn.run.Mean, bn.run.Variance); err != nil {
				return err
			}
		} else {
			host := make([]float32, 4*bn.geom.C)
			if err := (*bn.split).Read(host); err != nil {
				return err
			}
			c := bn.geom.C
			if err := bn.op.SetStats(opencl.JoinPairs(host[:2*c], c), opencl.JoinPairs(host[2*c:], c)); err != nil {
				return err
			}
		}
	}
	if bn.collected {
		bn.collected = false
		dMean, err := f64(*bn.dMean, bn.geom.C)
		if err != nil {
			return err
		}
		dVar, err := f64(*bn.dVar, bn.geom.C)
		if err != nil {
			return err
		}
		return bn.op.AddStatGrads(dMean, dVar)
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
			if err := (*bn.adjMean).Write(f32(run.AdjMean)); err != nil {
				return err
			}
			if err := (*bn.adjVar).Write(f32(run.AdjVar)); err != nil {
				return err
			}
			adj = &opencl.BNAdjoint{Mean: *bn.adjMean, Var: *bn.adjVar, Count: run.Count}
		case run.Fixed:
			mode = opencl.BNFixedStats
		}
		lib := p.lib()
		if err := lib.BNBackward(p.buf(x), p.buf(gamma), p.buf(dy), p.buf(out), bn.bnGeom(), run.Rows, g.ReLU, bn.st, mode, adj); err != nil {
			return err
		}
		if run.Fixed && run.Collect {
			for _, b := range []*opencl.Buffer{*bn.dMean, *bn.dVar} {
				if err := p.ctx().Fill(b, 0); err != nil {
					return err
				}
			}
			if err := lib.BNCollect(p.buf(gamma), bn.st, *bn.dMean, *bn.dVar); err != nil {
				return err
			}
			bn.collected = true
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
