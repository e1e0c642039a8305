package opencl

import (
	"errors"
	"fmt"
	"math"

	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/training/device"
	"gorgonia.org/gorgonia"
)

// grads holds one float32 device buffer per parameter, allocated as one
// group where the device allows (so a fill, a check or an optimizer update
// covers them all in one launch). After Reset they are zero without being
// written: the first Add copies (scale 1) or scales into them, later Adds
// are axpys from the program's outputs, so a step moves no gradient
// through the host. Flat indices (the step flag's) are the group's
// offsets, or the parameters laid end to end.
type grads struct {
	be    *Backend
	names []string
	sizes []int
	bufs  []*opencl.Buffer
	group *opencl.Buffer // the group's parent, nil when allocated one by one
	offs  []int          // each gradient's first flat index
	zero  bool           // every gradient is zero; bufs not yet written
	// flag is the deferred steps' step flag (device.Deferred), eager
	// NonFinite's own; tag and lossAdded are the current step's.
	flag, eager *opencl.StepFlag
	tag         int
	lossAdded   bool
}

// NewGrads allocates gradient buffers for params.
func (b *Backend) NewGrads(params gorgonia.Nodes) (device.Grads, error) {
	if b.isClosed() {
		return nil, errClosed
	}
	g := &grads{be: b, zero: true}
	for _, p := range params {
		g.names = append(g.names, p.Name())
		g.sizes = append(g.sizes, size(p.Shape()))
	}
	if err := g.alloc(); err != nil {
		g.release()
		return nil, err
	}
	return g, nil
}

// alloc allocates the gradients (a group, else one by one) and the flags.
func (g *grads) alloc() error {
	ctx, lib := g.be.ctx, g.be.lib
	if len(g.sizes) > 0 {
		if bufs, err := ctx.AllocGroup(g.sizes, opencl.RoleGrad); err == nil {
			g.bufs = bufs
			g.group, _ = bufs[0].Group()
			for _, b := range bufs {
				_, off := b.Group()
				g.offs = append(g.offs, off)
			}
		}
	}
	if g.group == nil {
		off := 0
		for i, n := range g.sizes {
			buf, err := ctx.Alloc(n)
			if err != nil {
				return fmt.Errorf("device opencl: gradient of %s: %w", g.names[i], err)
			}
			buf.SetRole(opencl.RoleGrad)
			g.bufs = append(g.bufs, buf)
			g.offs = append(g.offs, off)
			off += n
		}
	}
	var err error
	if g.flag, err = lib.NewStepFlag(); err != nil {
		return err
	}
	g.eager, err = lib.NewStepFlag()
	return err
}

func (g *grads) release() {
	for _, b := range g.bufs {
		b.Release()
	}
	for _, f := range []*opencl.StepFlag{g.flag, g.eager} {
		if f != nil {
			f.Release()
		}
	}
}

func (g *grads) Reset() error {
	g.zero = true
	return nil
}

// materialize writes the zeros a Reset left implicit.
func (g *grads) materialize() error {
	if !g.zero {
		return nil
	}
	if g.group != nil {
		if err := g.be.ctx.Fill(g.group, 0); err != nil {
			return err
		}
	} else {
		for _, b := range g.bufs {
			if err := g.be.ctx.Fill(b, 0); err != nil {
				return err
			}
		}
	}
	g.zero = false
	return nil
}

// checkAll enqueues the finite check of every gradient into f for step
// tag: one launch over the group, else one per gradient.
func (g *grads) checkAll(f *opencl.StepFlag, tag int) error {
	if g.group != nil {
		return g.be.lib.CheckFinite(g.group, g.group.Len(), 0, f, tag)
	}
	for i, b := range g.bufs {
		if err := g.be.lib.CheckFinite(b, g.sizes[i], g.offs[i], f, tag); err != nil {
			return err
		}
	}
	return nil
}

// locate maps a flat index to its gradient and entry.
func (g *grads) locate(idx int) (int, int, bool) {
	for i, off := range g.offs {
		if idx >= off && idx < off+g.sizes[i] {
			return i, idx - off, true
		}
	}
	return 0, 0, false
}

func (g *grads) Add(pr device.Program, nodes gorgonia.Nodes, scale float64) error {
	p, ok := pr.(*program)
	if !ok || p.be != g.be {
		return errors.New("device opencl: gradients added from a program of another back end")
	}
	if len(nodes) != len(g.sizes) {
		return fmt.Errorf("device opencl: %d gradient nodes for %d parameters", len(nodes), len(g.sizes))
	}
	src := make([]*opencl.Buffer, len(nodes))
	for i, n := range nodes {
		b, sz, err := p.outBuffer(n)
		if err != nil {
			return err
		}
		if sz != g.sizes[i] {
			return fmt.Errorf("device opencl: gradient %s has %d values, parameter %s %d", n.Name(), sz, g.names[i], g.sizes[i])
		}
		src[i] = b
	}
	var words int64
	for _, sz := range g.sizes {
		words += 3 * int64(sz)
	}
	return g.be.timed(opWork{cat: device.CatGradients, kind: "gradients added", byts: 4 * words}, func() error { return g.add(src, nodes, scale) })
}

// add enqueues the sums of Add.
func (g *grads) add(src []*opencl.Buffer, nodes gorgonia.Nodes, scale float64) error {
	lib, ctx := g.be.lib, g.be.ctx
	first := g.zero
	g.zero = false
	for i, s := range src {
		var err error
		switch {
		case first && scale == 1:
			err = ctx.Copy(g.bufs[i], 0, s, 0, g.sizes[i])
		case first:
			err = lib.Scale(float32(scale), s, g.bufs[i], g.sizes[i])
		default:
			err = lib.Axpy(float32(scale), s, g.bufs[i], g.sizes[i])
		}
		if err != nil {
			return fmt.Errorf("device opencl: adding gradient %s: %w", nodes[i].Name(), err)
		}
	}
	return nil
}

// NonFinite checks every gradient on the device (one launch where they
// form a group) and downloads the flag; only when it is set is the first
// bad value read.
func (g *grads) NonFinite() (int, int, float64, bool, error) {
	if g.zero {
		return 0, 0, 0, false, nil
	}
	if err := g.eager.Clear(); err != nil {
		return 0, 0, 0, false, err
	}
	if err := g.checkAll(g.eager, 0); err != nil {
		return 0, 0, 0, false, err
	}
	st, err := g.eager.Read()
	if err != nil || !st.Flagged {
		return 0, 0, 0, false, err
	}
	i, j, ok := g.locate(st.Index)
	if !ok {
		return 0, 0, 0, false, fmt.Errorf("device opencl: the non-finite flag names index %d, outside the gradients", st.Index)
	}
	var v [1]float32
	if err := g.bufs[i].ReadAt(v[:], j); err != nil {
		return 0, 0, 0, false, err
	}
	if !nonFinite32(v[0]) {
		return 0, 0, 0, false, errors.New("device opencl: the non-finite flag is set but the value it names is finite")
	}
	return i, j, float64(v[0]), true, nil
}

func nonFinite32(v float32) bool {
	f := float64(v)
	return math.IsNaN(f) || math.IsInf(f, 0)
}

// BeginStep starts the deferred step tagged tag (device.Deferred).
func (g *grads) BeginStep(tag int) { g.tag, g.lossAdded = tag, false }

// AddLoss tallies the scalar output loss of p's last run on the device.
func (g *grads) AddLoss(pr device.Program, loss *gorgonia.Node) error {
	p, ok := pr.(*program)
	if !ok || p.be != g.be {
		return errors.New("device opencl: a loss from a program of another back end")
	}
	b, n, err := p.outBuffer(loss)
	if err != nil {
		return err
	}
	if n != 1 {
		return fmt.Errorf("device opencl: loss %s has %d values, want a scalar", loss.Name(), n)
	}
	if err := g.be.timed(opWork{cat: device.CatChecks, kind: "loss tally", byts: 4}, func() error { return g.be.lib.TallyLoss(b, g.flag, g.tag) }); err != nil {
		return err
	}
	g.lossAdded = true
	return nil
}

// LossAdded reports whether the step's loss was tallied on the device.
func (g *grads) LossAdded() bool { return g.lossAdded }

// Check enqueues the step's gradient check.
func (g *grads) Check() error {
	if g.zero {
		return nil
	}
	var words int64
	for _, sz := range g.sizes {
		words += int64(sz)
	}
	return g.be.timed(opWork{cat: device.CatChecks, kind: "gradient check", byts: 4 * words}, func() error { return g.checkAll(g.flag, g.tag) })
}

// Sync reads the step flag (one blocking read).
func (g *grads) Sync() (device.Tally, error) {
	st, err := g.flag.Read()
	if err != nil {
		return device.Tally{}, err
	}
	t := device.Tally{LossSum: st.LossSum, Flagged: st.Flagged, Tag: st.Tag, Loss: st.Loss, Value: st.Value}
	if st.Flagged && !st.Loss {
		var ok bool
		if t.Param, t.Index, ok = g.locate(st.Index); !ok {
			return t, fmt.Errorf("device opencl: the step flag names gradient index %d, outside the gradients", st.Index)
		}
	}
	return t, nil
}

// ClearTally zeroes the loss sum and clears the flag.
func (g *grads) ClearTally() error { return g.flag.Clear() }

func (g *grads) Read(dst [][]float64) error {
	if len(dst) != len(g.sizes) {
		return fmt.Errorf("device opencl: %d slices for %d gradients", len(dst), len(g.sizes))
	}
	for i := range dst {
		if len(dst[i]) != g.sizes[i] {
			return fmt.Errorf("device opencl: gradient %d has %d entries, the slice %d", i, g.sizes[i], len(dst[i]))
		}
		if g.zero {
			clear(dst[i])
			continue
		}
		d, err := g.bufs[i].Float32s()
		if err != nil {
			return err
		}
		for j, v := range d {
			dst[i][j] = float64(v)
		}
	}
	return nil
}
