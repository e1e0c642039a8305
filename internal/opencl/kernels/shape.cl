// Shape operations: gorgonia's repeatOp (numpy.repeat along one axis) and
// transposeOp (an N-d permutation, N ≤ 8).

// repeat: x is outer×dim×inner, y is outer×(dim·rep)×inner with
// y[o][d·rep + r][i] = x[o][d][i].
__kernel void repeat_axis(__global const float *x, __global float *y, int outer, int dim, int inner, int rep) {
	int j = get_global_id(0);
	int n = outer * dim * rep * inner;
	if (j >= n) return;
	int i = j % inner;
	int t = j / inner;
	int dr = t % (dim * rep);
	int o = t / (dim * rep);
	y[j] = x[(o * dim + dr / rep) * inner + i];
}

// transpose: y has shape yshape (ndim axes, row-major); y at coordinates
// (c_0 … c_{ndim-1}) is x at Σ c_k·xstride[k], where xstride[k] is x's
// stride of the axis that becomes y's axis k.
__kernel void transpose_nd(__global const float *x, __global float *y, int n, int ndim, int8 yshape, int8 xstride) {
	int j = get_global_id(0);
	if (j >= n) return;
	int sh[8] = {yshape.s0, yshape.s1, yshape.s2, yshape.s3, yshape.s4, yshape.s5, yshape.s6, yshape.s7};
	int st[8] = {xstride.s0, xstride.s1, xstride.s2, xstride.s3, xstride.s4, xstride.s5, xstride.s6, xstride.s7};
	int rem = j, off = 0;
	for (int k = ndim - 1; k >= 0; k--) {
		int c = rem % sh[k];
		rem /= sh[k];
		off += c * st[k];
	}
	y[j] = x[off];
}
