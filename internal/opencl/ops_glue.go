package opencl

import (
	"errors"
	"fmt"
)

// The glue between programs: what a method computes on the host between
// its programs, run on the device instead (LLP-VAT's power iteration and
// its consistency loss), so that its step need not wait.

// RowsNormalize enqueues dst's first rows rows of d values = scale · src's
// rows, each divided by its L2 norm (accumulated in the kernels'
// accumulator type); a row whose norm is 0, NaN or ±Inf takes scale ·
// prev's row instead. prev may be dst (the previous direction, in place).
func (l *Lib) RowsNormalize(src, prev, dst *Buffer, rows, d int, scale float64) error {
	const op = "rows normalized"
	if err := positive(op, ni("rows", rows), ni("d", d)); err != nil {
		return err
	}
	if err := need(op, rows*d, nb("src", src), nb("prev", prev), nb("dst", dst)); err != nil {
		return err
	}
	return l.groups("rows_normalize", rows, src, prev, dst, rows, d, l.acc(scale))
}

// TallyScaled enqueues the addition of scale·loss[0] to the flag's loss
// sum, or the flagging of step tag when it is not finite.
func (l *Lib) TallyScaled(loss *Buffer, f *StepFlag, tag int, scale float64) error {
	const op = "loss tally (scaled)"
	if err := need(op, 1, nb("loss", loss)); err != nil {
		return err
	}
	if f == nil || tag < 0 {
		return errors.New("opencl: loss tally: no flag or a negative tag")
	}
	return l.elem("tally_scaled", 1, loss, f.buf, tag, l.acc(scale))
}

// TallyNegEntropy enqueues the addition of scale · Σ_{i<rows} w·Σ_c
// q·log q over the rows of p (c values each, q = 0 adding nothing) to the
// flag's loss sum, or the flagging of step tag when it is not finite.
func (l *Lib) TallyNegEntropy(p *Buffer, rows, c int, w, scale float64, f *StepFlag, tag int) error {
	const op = "negative entropy tally"
	if err := positive(op, ni("rows", rows), ni("c", c)); err != nil {
		return err
	}
	if err := need(op, rows*c, nb("p", p)); err != nil {
		return err
	}
	if f == nil || tag < 0 {
		return fmt.Errorf("opencl: %s: no flag or a negative tag", op)
	}
	return l.elem("tally_neg_entropy", 1, p, rows, c, l.acc(w), l.acc(scale), f.buf, tag)
}
