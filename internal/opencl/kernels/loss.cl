// The forward-correction (FC) loss of training/nn/fcloss.go (fcLossOp,
// fcLossGradOp): z, r are n×c (logits, rows of T̂), w has n weights; rows
// with w = 0 are skipped (padding), as the CPU op does.

#define FC_FLOOR 1e-12
#define AUTHORS_CLAMP 1e-8

// fc_row returns q = Σ_j r_j·softmax(z)_j and the sum of e^(z_j − max),
// accumulated in acc_t (z_j − max rounded to float first, as in Go).
acc_t fc_row(__global const float *z, __global const float *r, int c, acc_t *sum) {
	float m = z[0];
	for (int j = 1; j < c; j++) {
		if (z[j] > m) m = z[j];
	}
	acc_t s = 0, num = 0;
	for (int j = 0; j < c; j++) {
		acc_t e = exp((acc_t)(z[j] - m));
		s += e;
		num += (acc_t)r[j] * e;
	}
	*sum = s;
	return num / s;
}

// fc_loss: out[0] = −Σ_i w_i·log(q_i + FCFloor), or with clamp
// −Σ_i w_i·log(max(q_i, AuthorsClamp)); one work-group.
__kernel void fc_loss(__global const float *z, __global const float *r, __global const float *w, __global float *out, int n, int c, int clamp) {
	__local acc_t s[RED_WG];
	acc_t loss = 0;
	for (int i = get_local_id(0); i < n; i += get_local_size(0)) {
		if (w[i] == 0.0f) continue;
		acc_t sum;
		acc_t q = fc_row(z + i * c, r + i * c, c, &sum);
		if (clamp) {
			loss -= (acc_t)w[i] * log(fmax(q, (acc_t)AUTHORS_CLAMP));
		} else {
			loss -= (acc_t)w[i] * log(q + (acc_t)FC_FLOOR);
		}
	}
	loss = group_sum(loss, s);
	if (get_local_id(0) == 0) out[0] = (float)loss;
}

// fc_loss_grad: dz = gs·∂loss/∂z with gs = g[0]: row i is
// −gs·w_i/(q_i+FCFloor)·p_ij·(r_ij − q_i) (p rounded to float first, as the
// CPU op's scratch row); with clamp, 0 for q_i < AuthorsClamp and
// −gs·w_i/q_i·p_ij·(r_ij − q_i) otherwise. One work item per row.
__kernel void fc_loss_grad(__global const float *z, __global const float *r, __global const float *w, __global const float *g, __global float *dz, int n, int c, int clamp) {
	int i = get_global_id(0);
	if (i >= n) return;
	__global float *row = dz + i * c;
	__global const float *zr = z + i * c;
	__global const float *rr = r + i * c;
	if (w[i] == 0.0f) {
		for (int j = 0; j < c; j++) row[j] = 0.0f;
		return;
	}
	acc_t sum;
	acc_t q = fc_row(zr, rr, c, &sum);
	acc_t gs = (acc_t)g[0];
	acc_t k = -gs * (acc_t)w[i] / (q + (acc_t)FC_FLOOR);
	if (clamp) {
		if (q < (acc_t)AUTHORS_CLAMP) {
			for (int j = 0; j < c; j++) row[j] = 0.0f;
			return;
		}
		k = -gs * (acc_t)w[i] / q;
	}
	float m = zr[0];
	for (int j = 1; j < c; j++) {
		if (zr[j] > m) m = zr[j];
	}
	acc_t inv = (acc_t)1 / sum;
	for (int j = 0; j < c; j++) {
		float p = (float)exp((acc_t)(zr[j] - m));
		p = (float)((acc_t)p * inv);
		row[j] = (float)(k * (acc_t)p * ((acc_t)rr[j] - q));
	}
}
