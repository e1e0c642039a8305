package opencl

import "fmt"

// Repeat enqueues gorgonia's repeatOp (numpy.repeat along one axis): x
// is outer×dim×inner (the axis is dim; outer and inner are the products of
// the axes before and after it), y is outer×(dim·rep)×inner with
// y[o][d·rep + r][i] = x[o][d][i]. A scalar repeated is outer = dim =
// inner = 1.
func (l *Lib) Repeat(x, y *Buffer, outer, dim, inner, rep int) error {
	if err := positive("repeat", ni("outer", outer), ni("dim", dim), ni("inner", inner), ni("rep", rep)); err != nil {
		return err
	}
	n := outer * dim * inner
	if err := need("repeat", n, nb("x", x)); err != nil {
		return err
	}
	if err := need("repeat", n*rep, nb("y", y)); err != nil {
		return err
	}
	return l.elem("repeat_axis", n*rep, x, y, outer, dim, inner, rep)
}

// Transpose enqueues gorgonia's transposeOp: x has shape (row-major, at
// most 8 axes), y has shape (shape[perm[0]], shape[perm[1]], …) and
// y[c_0, c_1, …] = x at the coordinates with c_k on axis perm[k] (as
// numpy.transpose and tensor.Transpose).
func (l *Lib) Transpose(x, y *Buffer, shape, perm []int) error {
	d := len(shape)
	if d == 0 || d > 8 || len(perm) != d {
		return fmt.Errorf("opencl: transpose: shape %v and permutation %v, want 1 to 8 axes each", shape, perm)
	}
	seen := make([]bool, d)
	for _, p := range perm {
		if p < 0 || p >= d || seen[p] {
			return fmt.Errorf("opencl: transpose: %v is not a permutation of 0…%d", perm, d-1)
		}
		seen[p] = true
	}
	n := 1
	for _, s := range shape {
		if s < 1 {
			return fmt.Errorf("opencl: transpose: shape %v has an axis < 1", shape)
		}
		n *= s
	}
	if err := need("transpose", n, nb("x", x), nb("y", y)); err != nil {
		return err
	}
	strides := make([]int, d)
	st := 1
	for k := d - 1; k >= 0; k-- {
		strides[k] = st
		st *= shape[k]
	}
	var ysh, xst Int8
	for k := range d {
		ysh[k] = int32(shape[perm[k]])
		xst[k] = int32(strides[perm[k]])
	}
	return l.elem("transpose_nd", n, x, y, n, d, ysh, xst)
}
