package opencl

import "fmt"

// RepeatGeom is gorgonia's repeatOp as Lib.Repeat takes it: x is
// Outer×Dim×Inner, the result Outer×(Dim·Rep)×Inner.
type RepeatGeom struct {
	Outer, Dim, Inner, Rep int
}

// size is the repeated result's number of elements.
func (g RepeatGeom) size() int { return g.Outer * g.Dim * g.Inner * g.Rep }

func (g RepeatGeom) check(op string, b *Buffer) error {
	if err := positive(op, ni("outer", g.Outer), ni("dim", g.Dim), ni("inner", g.Inner), ni("rep", g.Rep)); err != nil {
		return err
	}
	return need(op, g.Outer*g.Dim*g.Inner, nb("b", b))
}

// BiasAdd enqueues y = x + repeat(b) (n = the repeat's size): Repeat and
// Binary's Add in one launch, the repeat read in place.
func (l *Lib) BiasAdd(x, b, y *Buffer, g RepeatGeom) error {
	const op = "bias add"
	if err := g.check(op, b); err != nil {
		return err
	}
	n := g.size()
	if err := need(op, n, nb("x", x), nb("y", y)); err != nil {
		return err
	}
	return l.elem("bias_add", n, x, b, y, n, g.Dim, g.Inner, g.Rep)
}

// ReLUMask enqueues gorgonia's Rectify in one launch: m = (a ≥ 0 ? 1 : 0)
// and y = a·m for a = x (b nil) or a = x + repeat(b) (BiasAdd, not
// stored); n values.
func (l *Lib) ReLUMask(x, b *Buffer, g RepeatGeom, m, y *Buffer, n int) error {
	const op = "relu mask"
	bias := 0
	if b != nil {
		if err := g.check(op, b); err != nil {
			return err
		}
		if g.size() != n {
			return fmt.Errorf("opencl: %s: a bias repeated to %d values for %d", op, g.size(), n)
		}
		bias = 1
	} else {
		b, g = x, RepeatGeom{Outer: 1, Dim: 1, Inner: 1, Rep: 1}
	}
	if err := need(op, n, nb("x", x), nb("m", m), nb("y", y)); err != nil {
		return err
	}
	return l.elem("relu_mask", n, x, b, m, y, n, bias, g.Dim, g.Inner, g.Rep)
}
