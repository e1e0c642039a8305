// Fused element-wise operations: what a dense layer's graph
// spends several launches on, in one. Each computes exactly what the
// separate kernels compute (the same float operations in the same order).

// bias_index: the element of b (outer×dim×inner) that gorgonia's repeatOp
// (repeat_axis) puts at y's element j (outer×(dim·rep)×inner).
int bias_index(int j, int dim, int inner, int rep) {
	int i = j % inner;
	int t = j / inner;
	int dr = t % (dim * rep);
	int o = t / (dim * rep);
	return (o * dim + dr / rep) * inner + i;
}

// bias_add: y = x + repeat(b), the repeat read in place (no buffer).
__kernel void bias_add(__global const float *x, __global const float *b, __global float *y, int n, int dim, int inner, int rep) {
	int j = get_global_id(0);
	if (j < n) {
		y[j] = x[j] + b[bias_index(j, dim, inner, rep)];
	}
}

// relu_mask: gorgonia's Rectify, m = (x ≥ 0 ? 1 : 0) and y = x·m, in one
// pass; with bias set, x is first x + repeat(b) (bias_add, not stored).
__kernel void relu_mask(__global const float *x, __global const float *b, __global float *m, __global float *y, int n,
		int bias, int dim, int inner, int rep) {
	int j = get_global_id(0);
	if (j >= n) return;
	float a = x[j];
	if (bias) {
		a = a + b[bias_index(j, dim, inner, rep)];
	}
	float k = a >= 0.0f ? 1.0f : 0.0f;
	m[j] = k;
	y[j] = a * k;
}
