// Glue between programs (ops_glue.go): the steps LLP-VAT would otherwise
// take on the host between its passes, so that its step never waits.

// rows_normalize: one work-group per row of d values: dst's row = scale ·
// src's row / ‖src's row‖ (in acc_t, rounded once), or scale · prev's row
// when that norm is 0, NaN or ±Inf (normalizeRows in training/loss/vat.go;
// prev may be dst).
__kernel void rows_normalize(__global const float *src, __global const float *prev, __global float *dst, int rows, int d, acc_t scale) {
	__local acc_t s[RED_WG];
	int row = get_group_id(0);
	int lid = get_local_id(0), ls = get_local_size(0);
	acc_t sum = 0;
	for (int j = lid; j < d; j += ls) {
		acc_t v = (acc_t)src[row * d + j];
		sum += v * v;
	}
	acc_t n2 = group_sum(sum, s);
	bool bad = n2 == 0 || isnan(n2) || isinf(n2);
	acc_t inv = bad ? 0 : 1 / sqrt(n2);
	for (int j = lid; j < d; j += ls) {
		int k = row * d + j;
		dst[k] = bad ? (float)((acc_t)prev[k] * scale) : (float)((acc_t)src[k] * inv * scale);
	}
}

// tally_scaled: one work item adds scale·loss[0] to the step flag's loss
// sum, or flags the step tagged tag when it is not finite (loss_tally's
// rule).
__kernel void tally_scaled(__global const float *loss, __global int *flag, int tag, acc_t scale) {
	if (get_global_id(0) != 0 || flag[0] != 0) return;
	acc_t v = (acc_t)loss[0] * scale;
	tally_add(flag, tag, v);
}

// tally_neg_entropy: one work item adds scale · Σ_{i<rows} w·Σ_c q·log q
// over the rows of p (c values each; q = 0 adds nothing) to the step flag's
// loss sum, or flags the step when it is not finite: LLP-VAT's entropy
// term of the consistency loss.
__kernel void tally_neg_entropy(__global const float *p, int rows, int c, acc_t w, acc_t scale, __global int *flag, int tag) {
	if (get_global_id(0) != 0 || flag[0] != 0) return;
	acc_t e = 0;
	for (int i = 0; i < rows; i++) {
		for (int k = 0; k < c; k++) {
			acc_t q = (acc_t)p[i * c + k];
			if (q > 0) e += w * q * log(q);
		}
	}
	acc_t v = scale * e;
	tally_add(flag, tag, v);
}
