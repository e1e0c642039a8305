package opencl

import (
	"errors"
	"fmt"
	"math"

	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/training/device"
	"gorgonia.org/gorgonia"
)

// grads holds one float32 device buffer per parameter. After Reset they
// are zero without being written: the first Add copies (scale 1) or
// scales into them, later Adds are axpys from the program's outputs, so a
// step moves no gradient through the host.
type grads struct {
	be    *Backend
	names []string
	sizes []int
	bufs  []*opencl.Buffer
	flag  *opencl.Buffer // int32: NonFinite's result
	zero  bool           // every gradient is zero; bufs not yet written
}

// NewGrads allocates gradient buffers for params.
func (b *Backend) NewGrads(params gorgonia.Nodes) (device.Grads, error) {
	if b.isClosed() {
		return nil, errClosed
	}
	g := &grads{be: b, zero: true}
	for _, p := range params {
		n := size(p.Shape())
		buf, err := b.ctx.Alloc(n)
		if err != nil {
			g.release()
			return nil, fmt.Errorf("device opencl: gradient of %s: %w", p.Name(), err)
		}
		g.names = append(g.names, p.Name())
		g.sizes = append(g.sizes, n)
		g.bufs = append(g.bufs, buf)
	}
	var err error
	if g.flag, err = b.ctx.Alloc(1); err != nil {
		g.release()
		return nil, err
	}
	return g, nil
}

func (g *grads) release() {
	for _, b := range g.bufs {
		b.Release()
	}
	if g.flag != nil {
		g.flag.Release()
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
	for _, b := range g.bufs {
		if err := g.be.ctx.Fill(b, 0); err != nil {
			return err
		}
	}
	g.zero = false
	return nil
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

// NonFinite reduces every gradient to one flag on the device and
// downloads it; only when it is set are the gradients read, in order, to
// find the first bad value.
func (g *grads) NonFinite() (int, int, float64, bool, error) {
	if g.zero {
		return 0, 0, 0, false, nil
	}
	if err := g.be.ctx.Fill(g.flag, 0); err != nil {
		return 0, 0, 0, false, err
	}
	for i, b := range g.bufs {
		if err := g.be.lib.NonFinite(b, g.sizes[i], g.flag); err != nil {
			return 0, 0, 0, false, err
		}
	}
	var flag [1]int32
	if err := g.flag.ReadInt32(flag[:]); err != nil {
		return 0, 0, 0, false, err
	}
	if flag[0] == 0 {
		return 0, 0, 0, false, nil
	}
	for i, b := range g.bufs {
		d, err := b.Float32s()
		if err != nil {
			return 0, 0, 0, false, err
		}
		for j, v := range d {
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				return i, j, f, true, nil
			}
		}
	}
	return 0, 0, 0, false, errors.New("device opencl: the non-finite flag is set but every gradient is finite")
}

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
