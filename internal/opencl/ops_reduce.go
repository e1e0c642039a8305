package opencl

import "fmt"

// Sum enqueues gorgonia's sumOp: y = the sum of x (shape, row-major, at
// most 8 axes) over the given axes, the kept axes in order (y holds their
// product of elements; every axis reduced, or none given, is the full sum
// to one element). Sums run in acc_t (double where the device has it).
func (l *Lib) Sum(x, y *Buffer, shape, axes []int) error {
	return l.reduce(0, "sum", x, y, shape, axes)
}

// Max enqueues gorgonia's maxOp (MaxAlong): y = the maximum of x over the
// axes, as Sum. Values compare with tensor's MaxF32 (a > b ? a : b); the
// order of comparisons differs from the CPU's, which matters only for NaN
// and the sign of zero.
func (l *Lib) Max(x, y *Buffer, shape, axes []int) error {
	return l.reduce(1, "max", x, y, shape, axes)
}

// reduceShape merges adjacent axes that are both reduced or both kept and
// drops axes of size 1, returning the merged sizes, the mask of reduced
// merged axes, and the output and reduction sizes.
func reduceShape(shape, axes []int) (dims []int, mask, nout, nred int, err error) {
	if len(shape) == 0 || len(shape) > 8 {
		return nil, 0, 0, 0, fmt.Errorf("shape %v: want 1 to 8 axes", shape)
	}
	red := make([]bool, len(shape))
	for _, a := range axes {
		if a < 0 || a >= len(shape) {
			return nil, 0, 0, 0, fmt.Errorf("axis %d of a %d-axis shape", a, len(shape))
		}
		red[a] = true
	}
	if len(axes) == 0 {
		for i := range red {
			red[i] = true
		}
	}
	nout, nred = 1, 1
	var status []bool
	for i, s := range shape {
		if s < 1 {
			return nil, 0, 0, 0, fmt.Errorf("shape %v has an axis < 1", shape)
		}
		if red[i] {
			nred *= s
		} else {
			nout *= s
		}
		if s == 1 {
			continue
		}
		if len(dims) > 0 && status[len(status)-1] == red[i] {
			dims[len(dims)-1] *= s
			continue
		}
		dims = append(dims, s)
		status = append(status, red[i])
	}
	if len(dims) == 0 { // a single element
		dims, status = []int{1}, []bool{true}
	}
	for i, r := range status {
		if r {
			mask |= 1 << i
		}
	}
	return dims, mask, nout, nred, nil
}

func (l *Lib) reduce(op int, name string, x, y *Buffer, shape, axes []int) error {
	dims, mask, nout, nred, err := reduceShape(shape, axes)
	if err != nil {
		return fmt.Errorf("opencl: %s: %w", name, err)
	}
	if err := need(name, nout*nred, nb("x", x)); err != nil {
		return err
	}
	if err := need(name, nout, nb("y", y)); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.reduceLocked(op, x, y, dims, mask, nout, nred)
}

// reduceLocked launches the reduction, in two stages when fewer outputs
// than about a GPU's wave of work-groups (sliceGroups) each reduce many
// values — a convolution's bias gradient: 16–512 channels of up to
// 131,072 values each — (the first stage's partial results in the
// workspace wsR). The caller holds l.mu.
func (l *Lib) reduceLocked(op int, x, y *Buffer, dims []int, mask, nout, nred int) error {
	var dv Int8
	for i, d := range dims {
		dv[i] = int32(d)
	}
	g := l.groupSize("reduce_axes")
	split := 1
	switch {
	case nred <= 16*g:
	case l.GroupPerChannel && nout < 64: // the rule before the sliced reductions
		split = min((nred+8*g-1)/(8*g), 256/max(nout, 1)+1, 128)
	case !l.GroupPerChannel && nout < sliceGroups:
		split = min((nred+8*g-1)/(8*g), (sliceGroups+nout-1)/nout, 128)
	}
	if split == 1 {
		return l.groups("reduce_axes", nout, x, y, len(dims), dv, mask, nout, nred, 1, op)
	}
	part, err := l.workspace(&l.wsR, nout*split)
	if err != nil {
		return err
	}
	if err := l.groups("reduce_axes", nout*split, x, part, len(dims), dv, mask, nout, nred, split, op); err != nil {
		return err
	}
	return l.groups("reduce_axes", nout, part, y, 2, Int8{int32(nout), int32(split)}, 2, nout, split, 1, op)
}

// axisGeom checks an outer×dim×inner view.
func axisGeom(op string, outer, dim, inner int) error {
	return positive(op, ni("outer", outer), ni("dim", dim), ni("inner", inner))
}

// Softmax enqueues y = softmax of x along one axis, x viewed as
// outer×dim×inner (the last axis: inner = 1), shifted by the maximum
// along the axis. (gorgonia v0.9.18's last-axis softmax shifts every row
// by max(x[0], row[1:]) instead, the same value unless a row lies ~88
// below x[0], where it underflows to NaN.)
func (l *Lib) Softmax(x, y *Buffer, outer, dim, inner int) error {
	if err := axisGeom("softmax", outer, dim, inner); err != nil {
		return err
	}
	if err := need("softmax", outer*dim*inner, nb("x", x), nb("y", y)); err != nil {
		return err
	}
	return l.elem("softmax_axis", outer*inner, x, y, outer, dim, inner)
}

// SoftmaxGrad enqueues gorgonia's softmaxDiffOp: from the softmax output
// y and the gradient g, dx = (g − Σ y⊙g)⊙y along the axis (viewed as in
// Softmax).
func (l *Lib) SoftmaxGrad(y, g, dx *Buffer, outer, dim, inner int) error {
	if err := axisGeom("softmax gradient", outer, dim, inner); err != nil {
		return err
	}
	if err := need("softmax gradient", outer*dim*inner, nb("y", y), nb("g", g), nb("dx", dx)); err != nil {
		return err
	}
	return l.elem("softmax_grad_axis", outer*inner, y, g, dx, outer, dim, inner)
}

// ArgmaxRows enqueues out[i] = the index of the largest value of row i of
// the rows×cols matrix x (the first one on ties; the evaluator's rule:
// column c wins only if x[c] > the best so far), into the int32 buffer out.
func (l *Lib) ArgmaxRows(x, out *Buffer, rows, cols int) error {
	if err := positive("argmax", ni("rows", rows), ni("cols", cols)); err != nil {
		return err
	}
	if err := need("argmax", rows*cols, nb("x", x)); err != nil {
		return err
	}
	if err := need("argmax", rows, nb("out", out)); err != nil {
		return err
	}
	return l.elem("argmax_rows", rows, x, out, rows, cols)
}
