package opencl

import (
	"errors"
	"fmt"

	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/training/device"
	"gorgonia.org/gorgonia"
)

// The glue between programs (device.Glue): LLP-VAT's host steps between
// its passes, on the device.

// programOf returns p as this back end's program.
func (b *Backend) programOf(p device.Program, what string) (*program, error) {
	q, ok := p.(*program)
	if !ok || q.be != b {
		return nil, fmt.Errorf("device opencl: %s is a program of another back end", what)
	}
	return q, nil
}

// inputBuffer returns input in's buffer of p.
func (p *program) inputBuffer(in *gorgonia.Node) (*opencl.Buffer, int, error) {
	s, ok := p.slots[in]
	if !ok || s.kind != slotInput {
		return nil, 0, p.errorf("node %s is not an input of the program", in.Name())
	}
	return s.buf, s.size, nil
}

// valueBuffer returns the buffer of n in p: an output after p's last run,
// or an input.
func (p *program) valueBuffer(n *gorgonia.Node) (*opencl.Buffer, int, error) {
	if s, ok := p.slots[n]; ok && s.kind == slotInput {
		return s.buf, s.size, nil
	}
	return p.outBuffer(n)
}

// deviceInput marks input in of p as set on the device.
func (p *program) deviceInput(in *gorgonia.Node) {
	if p.devInputs == nil {
		p.devInputs = map[*gorgonia.Node]bool{}
	}
	p.devInputs[in] = true
}

// glueEnd is one end of a value passed between programs: its program, the
// buffer and the number of values.
type glueEnd struct {
	p   *program
	buf *opencl.Buffer
	n   int
}

// pair looks up both ends of a value passed on the device: dst's input in
// and src's value of out (after src's last run).
func (b *Backend) pair(dst device.Program, in *gorgonia.Node, src device.Program, out *gorgonia.Node) (d, s glueEnd, err error) {
	if d.p, err = b.programOf(dst, "the destination"); err != nil {
		return d, s, err
	}
	if s.p, err = b.programOf(src, "the source"); err != nil {
		return d, s, err
	}
	if d.buf, d.n, err = d.p.inputBuffer(in); err != nil {
		return d, s, err
	}
	s.buf, s.n, err = s.p.valueBuffer(out)
	return d, s, err
}

// SetInput sets dst's input in to src's value of out (device.Glue).
func (b *Backend) SetInput(dst device.Program, in *gorgonia.Node, src device.Program, out *gorgonia.Node) error {
	d, s, err := b.pair(dst, in, src, out)
	if err != nil {
		return err
	}
	db, dn, sb, sn := d.buf, d.n, s.buf, s.n
	if dn != sn {
		return d.p.errorf("input %s has %d values, %s of %q %d", in.Name(), dn, out.Name(), s.p.name, sn)
	}
	d.p.deviceInput(in)
	return b.timed(opWork{cat: device.CatTransfers, kind: "value between programs", byts: 8 * int64(dn)}, func() error { return b.ctx.Copy(db, 0, sb, 0, dn) })
}

// NormalizeRows sets dst's input in to scale times src's rows of out,
// normalized, with prev's rows of prevIn where a norm is 0 or not finite.
func (b *Backend) NormalizeRows(dst device.Program, in *gorgonia.Node, src device.Program, out *gorgonia.Node, prev device.Program, prevIn *gorgonia.Node, rowLen int, scale float64) error {
	d, s, err := b.pair(dst, in, src, out)
	if err != nil {
		return err
	}
	pv, err := b.programOf(prev, "the previous values' program")
	if err != nil {
		return err
	}
	pb, pn, err := pv.valueBuffer(prevIn)
	if err != nil {
		return err
	}
	db, dn, sb, sn := d.buf, d.n, s.buf, s.n
	if rowLen < 1 || dn != sn || pn != sn || sn%rowLen != 0 {
		return d.p.errorf("rows of %d from %d values into %d, the previous %d", rowLen, sn, dn, pn)
	}
	d.p.deviceInput(in)
	return b.timed(opWork{cat: device.CatElementwise, kind: "rows normalized", byts: 12 * int64(dn)}, func() error {
		return b.lib.RowsNormalize(sb, pb, db, sn/rowLen, rowLen, scale)
	})
}

// HostInput makes dst upload input in from its Go value again.
func (b *Backend) HostInput(dst device.Program, in *gorgonia.Node) {
	if d, err := b.programOf(dst, "the destination"); err == nil {
		delete(d.devInputs, in)
	}
}

// deferredGrads returns g as this back end's gradients, for a tally.
func (b *Backend) deferredGrads(g device.Grads) (*grads, error) {
	gr, ok := g.(*grads)
	if !ok || gr.be != b {
		return nil, errors.New("device opencl: a tally into the gradients of another back end")
	}
	return gr, nil
}

// TallyScaled adds scale times p's scalar output loss to the step's loss sum.
func (b *Backend) TallyScaled(g device.Grads, p device.Program, loss *gorgonia.Node, scale float64) error {
	gr, err := b.deferredGrads(g)
	if err != nil {
		return err
	}
	q, err := b.programOf(p, "the loss's program")
	if err != nil {
		return err
	}
	buf, n, err := q.outBuffer(loss)
	if err != nil {
		return err
	}
	if n != 1 {
		return fmt.Errorf("device opencl: loss %s has %d values, want a scalar", loss.Name(), n)
	}
	gr.lossAdded = true
	return b.timed(opWork{cat: device.CatChecks, kind: "loss tally", byts: 4}, func() error { return b.lib.TallyScaled(buf, gr.flag, gr.tag, scale) })
}

// TallyNegEntropy adds scale·Σ w·q·log q over p's first rows rows of probs.
func (b *Backend) TallyNegEntropy(g device.Grads, p device.Program, probs *gorgonia.Node, rows int, w, scale float64) error {
	gr, err := b.deferredGrads(g)
	if err != nil {
		return err
	}
	q, err := b.programOf(p, "the predictions' program")
	if err != nil {
		return err
	}
	buf, n, err := q.outBuffer(probs)
	if err != nil {
		return err
	}
	sh := probs.Shape()
	if sh.Dims() != 2 || rows < 1 || rows > sh[0] || n != sh[0]*sh[1] {
		return fmt.Errorf("device opencl: entropy of %d rows of %s, shape %v", rows, probs.Name(), sh)
	}
	gr.lossAdded = true
	return b.timed(opWork{cat: device.CatChecks, kind: "entropy tally", byts: 4 * int64(rows*sh[1])}, func() error {
		return b.lib.TallyNegEntropy(buf, rows, sh[1], w, scale, gr.flag, gr.tag)
	})
}
