// Reductions: gorgonia's sumOp and maxOp along any set of axes, softmax
// and its gradient along one axis, and the argmax of each row.

// offset_of returns the offset in x (row-major over dims) of the element
// whose coordinates along the axes in mask (bit k: axis k) come from
// index idx (row-major over those axes only) and are 0 elsewhere.
int offset_of(int idx, int ndim, const int *dims, int mask) {
	int off = 0, stride = 1;
	for (int k = ndim - 1; k >= 0; k--) {
		if (mask & (1 << k)) {
			off += (idx % dims[k]) * stride;
			idx /= dims[k];
		}
		stride *= dims[k];
	}
	return off;
}

// reduce_axes: op 0 sums, op 1 takes gorgonia's max, over the axes in
// redmask of x (shape dims, ndim axes); y holds the kept axes row-major.
// Work-group g reduces part g % nsplit of output g / nsplit (the
// reduction indices part, part+nsplit·L, … in steps of the group); with
// nsplit > 1, y holds nout×nsplit partial results.
__kernel void reduce_axes(__global const float *x, __global float *y, int ndim, int8 dimv, int redmask, int nout, int nred, int nsplit, int op) {
	__local acc_t ssum[RED_WG];
	__local float smax[RED_WG];
	int g = get_group_id(0);
	int out = g / nsplit, part = g % nsplit;
	if (out >= nout) return;
	int dims[8] = {dimv.s0, dimv.s1, dimv.s2, dimv.s3, dimv.s4, dimv.s5, dimv.s6, dimv.s7};
	int keep = ((1 << ndim) - 1) & ~redmask;
	int base = offset_of(out, ndim, dims, keep);
	int lid = get_local_id(0), ls = get_local_size(0);
	if (op == 0) {
		acc_t s = 0;
		for (int r = part * ls + lid; r < nred; r += nsplit * ls) {
			s += x[base + offset_of(r, ndim, dims, redmask)];
		}
		s = group_sum(s, ssum);
		if (lid == 0) y[g] = (float)s;
	} else {
		float m = -INFINITY;
		for (int r = part * ls + lid; r < nred; r += nsplit * ls) {
			m = max_g(m, x[base + offset_of(r, ndim, dims, redmask)]);
		}
		m = group_max(m, smax);
		if (lid == 0) y[g] = m;
	}
}

// softmax_axis: y = softmax of x along an axis, x viewed as
// outer×dim×inner (the axis is dim); one work item per (outer, inner).
// The shift is the maximum over the axis; the sum runs in acc_t and y is
// e^(x−max) times 1/sum (tensor's softMaxLastDimF32 multiplies by the
// inverse).
__kernel void softmax_axis(__global const float *x, __global float *y, int outer, int dim, int inner) {
	int t = get_global_id(0);
	if (t >= outer * inner) return;
	int o = t / inner, i = t % inner;
	int base = o * dim * inner + i;
	float m = x[base];
	for (int j = 1; j < dim; j++) {
		m = max_g(m, x[base + j * inner]);
	}
	acc_t s = 0;
	for (int j = 0; j < dim; j++) {
		float e = exp(x[base + j * inner] - m);
		y[base + j * inner] = e;
		s += e;
	}
	float inv = (float)((acc_t)1 / s);
	for (int j = 0; j < dim; j++) {
		y[base + j * inner] *= inv;
	}
}

// softmax_grad_axis: gorgonia's softmaxDiffOp (tensor.SoftMaxB): from the
// softmax output y and the gradient g, dx = (g − Σ_j y_j·g_j)·y along the
// axis.
__kernel void softmax_grad_axis(__global const float *y, __global const float *g, __global float *dx, int outer, int dim, int inner) {
	int t = get_global_id(0);
	if (t >= outer * inner) return;
	int o = t / inner, i = t % inner;
	int base = o * dim * inner + i;
	acc_t s = 0;
	for (int j = 0; j < dim; j++) {
		s += (acc_t)(y[base + j * inner] * g[base + j * inner]);
	}
	float sf = (float)s;
	for (int j = 0; j < dim; j++) {
		int k = base + j * inner;
		dx[k] = (g[k] - sf) * y[k];
	}
}

// argmax_rows: out[i] = the first column of row i holding a value greater
// than every earlier one (the evaluator's loop: NaN never wins, a NaN in
// column 0 keeps 0).
__kernel void argmax_rows(__global const float *x, __global int *out, int rows, int cols) {
	int i = get_global_id(0);
	if (i >= rows) return;
	__global const float *row = x + i * cols;
	int best = 0;
	for (int c = 1; c < cols; c++) {
		if (row[c] > row[best]) best = c;
	}
	out[i] = best;
}
