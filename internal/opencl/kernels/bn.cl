// Batch normalisation of training/nn/bnfused.go (bnOp, bnGradOp, bnEvalOp),
// the running averages of training/models/resnet.go (BatchNorm.update) and the
// minibatch statistics folded chunk by chunk (training/nn/bnsweep.go). x is
// n×c×hw; per-channel state (mean, var, invstd, a, b, sums) is c floats.

// range_moments: the mean and the sum of squared deviations (M2) of
// channel ch over the values t0 … t1−1 of its rows·hw (value t at row
// t/hw, position t%hw), two passes in acc_t accumulators by the
// work-group's items; every work item gets both.
void range_moments(__global const float *x, int ch, int c, int hw, int t0, int t1, LOCAL_PTR acc_t *s, acc_t *mu, acc_t *m2) {
	int lid = get_local_id(0), ls = get_local_size(0);
	acc_t sum = 0;
	for (int t = t0 + lid; t < t1; t += ls) {
		sum += x[((t / hw) * c + ch) * hw + t % hw];
	}
	acc_t mean = group_sum(sum, s) / (acc_t)(t1 - t0);
	acc_t ss = 0;
	for (int t = t0 + lid; t < t1; t += ls) {
		acc_t d = (acc_t)x[((t / hw) * c + ch) * hw + t % hw] - mean;
		ss += d * d;
	}
	*mu = mean;
	*m2 = group_sum(ss, s);
}

// channel_moments: the mean and biased variance of this work-group's
// channel (one work-group per channel) over the first rows rows, two passes
// in acc_t accumulators, as channelStats; every work item gets both.
void channel_moments(__global const float *x, int c, int hw, int rows, LOCAL_PTR acc_t *s, acc_t *mu, acc_t *var) {
	acc_t m2;
	range_moments(x, get_group_id(0), c, hw, 0, rows * hw, s, mu, &m2);
	*var = m2 / (acc_t)(rows * hw);
}

// affine_coeffs: invstd = 1/√(var+ε), a = γ·invstd, b = β − mean·a in
// acc_t, the affine map y = a·x + b of batch norm.
void affine_coeffs(acc_t mu, acc_t vr, float gamma, float beta, acc_t eps, acc_t *is, acc_t *a, acc_t *b) {
	*is = (acc_t)1 / sqrt(vr + eps);
	*a = (acc_t)gamma * *is;
	*b = (acc_t)beta - mu * *a;
}

// bn_stats: one work-group per channel: the mean and biased variance over
// the first rows rows (channel_moments), rounded to float.
__kernel void bn_stats(__global const float *x, __global float *mean, __global float *var, int n, int c, int hw, int rows) {
	__local acc_t s[RED_WG];
	acc_t mu, vr;
	channel_moments(x, c, hw, rows, s, &mu, &vr);
	if (get_local_id(0) == 0) {
		mean[get_group_id(0)] = (float)mu;
		var[get_group_id(0)] = (float)vr;
	}
}

// bn_coeffs: per channel, invstd = 1/√(var+ε), a = γ·invstd,
// b = β − mean·a (in acc_t, rounded once), the affine map y = a·x + b.
__kernel void bn_coeffs(__global const float *gamma, __global const float *beta, __global const float *mean, __global const float *var,
		__global float *invstd, __global float *a, __global float *b, int c, acc_t eps) {
	int ch = get_global_id(0);
	if (ch >= c) return;
	acc_t is, sc, sh;
	affine_coeffs((acc_t)mean[ch], (acc_t)var[ch], gamma[ch], beta[ch], eps, &is, &sc, &sh);
	invstd[ch] = (float)is;
	a[ch] = (float)sc;
	b[ch] = (float)sh;
}

// bn_affine: y = x·a + b per channel (rounded twice), replaced by 0 where
// not > 0 when relu is set (NaN too), as internal/vec's Affine.
__kernel void bn_affine(__global const float *x, __global float *y, __global const float *a, __global const float *b, int n, int c, int hw, int relu) {
	int t = get_global_id(0);
	if (t >= n * c * hw) return;
	int ch = (t / hw) % c;
	float z = x[t] * a[ch] + b[ch];
	if (relu && !(z > 0.0f)) z = 0.0f;
	y[t] = z;
}

// store_split writes channel ch's mean and variance into split's layout
// [mean hi | mean lo | var hi | var lo] (4·c floats): each the float pair
// whose sum is the acc_t value.
void store_split(__global float *split, int c, int ch, acc_t mu, acc_t var) {
	float mh = (float)mu, vh = (float)var;
	split[ch] = mh;
	split[c + ch] = (float)(mu - (acc_t)mh);
	split[2 * c + ch] = vh;
	split[3 * c + ch] = (float)(var - (acc_t)vh);
}

// bn_stats_split: bn_stats with the statistics kept in acc_t: one
// work-group per channel, the mean and biased variance over the first rows
// rows into split = [mean hi | mean lo | var hi | var lo] (4·c floats),
// each value the float pair (hi, lo) whose sum is the acc_t one.
__kernel void bn_stats_split(__global const float *x, __global float *split, int n, int c, int hw, int rows) {
	__local acc_t s[RED_WG];
	acc_t mu, var;
	channel_moments(x, c, hw, rows, s, &mu, &var);
	if (get_local_id(0) == 0) {
		store_split(split, c, get_group_id(0), mu, var);
	}
}

// bn_moments_part: the first stage of the sliced statistics, for
// channels with too many values for one work-group to reduce at a GPU's
// speed: work-group g takes slice g % slices of channel g / slices (values
// s·len … min((s+1)·len, rows·hw) − 1 of the channel, in channel_moments'
// order) and writes its mean and M2 (range_moments) to part[2g], part[2g+1].
__kernel void bn_moments_part(__global const float *x, __global acc_t *part, int c, int hw, int rows, int slices, int len) {
	__local acc_t s[RED_WG];
	int g = get_group_id(0);
	int ch = g / slices, sl = g % slices;
	int t0 = sl * len, t1 = min(t0 + len, rows * hw);
	acc_t mu, m2;
	range_moments(x, ch, c, hw, t0, t1, s, &mu, &m2);
	if (get_local_id(0) == 0) {
		part[2 * g] = mu;
		part[2 * g + 1] = m2;
	}
}

// bn_moments_merge: the second stage, one work item per channel: the
// slices' means and M2s (bn_moments_part) merged in slice order by the
// pairwise rule (Chan, Golub and LeVeque; bnGlobal.fold's), the biased
// variance M2/m; written as bn_stats writes them (out = mean, out2 =
// variance) or, with split set, as bn_stats_split does (out, 4·c floats).
__kernel void bn_moments_merge(__global const acc_t *part, __global float *out, __global float *out2, int c, int slices, int len, int m, int split) {
	int ch = get_global_id(0);
	if (ch >= c) return;
	acc_t mu = part[2 * ch * slices], m2 = part[2 * ch * slices + 1];
	acc_t n = (acc_t)min(len, m);
	for (int sl = 1; sl < slices; sl++) {
		acc_t nb = (acc_t)(min(len, m - sl * len));
		acc_t d = part[2 * (ch * slices + sl)] - mu;
		mu = mu + d * nb / (n + nb);
		m2 = m2 + part[2 * (ch * slices + sl) + 1] + d * d * n * nb / (n + nb);
		n = n + nb;
	}
	acc_t var = m2 / (acc_t)m;
	if (split) {
		store_split(out, c, ch, mu, var);
	} else {
		out[ch] = (float)mu;
		out2[ch] = (float)var;
	}
}

// bn_coeffs_split: bn_coeffs from the statistics in split (bn_stats_split's
// layout), as bnForward computes them from float64 statistics: the affine
// map decides the forward ReLU and its backward mask, so a and b must round
// as the CPU's do. Also the float mean and variance, for the backward pass.
__kernel void bn_coeffs_split(__global const float *gamma, __global const float *beta, __global const float *split,
		__global float *mean, __global float *var, __global float *invstd, __global float *a, __global float *b, int c, acc_t eps) {
	int ch = get_global_id(0);
	if (ch >= c) return;
	acc_t mu = (acc_t)split[ch] + (acc_t)split[c + ch];
	acc_t vr = (acc_t)split[2 * c + ch] + (acc_t)split[3 * c + ch];
	acc_t is, sc, sh;
	affine_coeffs(mu, vr, gamma[ch], beta[ch], eps, &is, &sc, &sh);
	mean[ch] = (float)mu;
	var[ch] = (float)vr;
	invstd[ch] = (float)is;
	a[ch] = (float)sc;
	b[ch] = (float)sh;
}

// bn_fold_split: folds a chunk's statistics (split, bn_stats_split's
// layout, over m values) into the minibatch's acc = [mean hi | mean lo |
// m2 hi | m2 lo] over n values before it, in acc_t: bnGlobal.fold on the
// device, so a sweep downloads nothing.
__kernel void bn_fold_split(__global float *acc, __global const float *split, int c, acc_t n, acc_t m) {
	int ch = get_global_id(0);
	if (ch >= c) return;
	acc_t gm = (acc_t)acc[ch] + (acc_t)acc[c + ch];
	acc_t g2 = (acc_t)acc[2 * c + ch] + (acc_t)acc[3 * c + ch];
	acc_t mu = (acc_t)split[ch] + (acc_t)split[c + ch];
	acc_t v = (acc_t)split[2 * c + ch] + (acc_t)split[3 * c + ch];
	acc_t d = mu - gm;
	gm = gm + d * m / (n + m);
	g2 = g2 + v * m + d * d * n * m / (n + m);
	float h = (float)gm;
	acc[ch] = h;
	acc[c + ch] = (float)(gm - (acc_t)h);
	h = (float)g2;
	acc[2 * c + ch] = h;
	acc[3 * c + ch] = (float)(g2 - (acc_t)h);
}

// bn_finish_split: the minibatch's statistics from acc (bn_fold_split's)
// over count values, in bn_stats_split's layout: the mean as it is, the
// biased variance m2/count.
__kernel void bn_finish_split(__global const float *acc, __global float *fixed, int c, acc_t count) {
	int ch = get_global_id(0);
	if (ch >= c) return;
	fixed[ch] = acc[ch];
	fixed[c + ch] = acc[c + ch];
	acc_t v = ((acc_t)acc[2 * c + ch] + (acc_t)acc[3 * c + ch]) / count;
	float h = (float)v;
	fixed[2 * c + ch] = h;
	fixed[3 * c + ch] = (float)(v - (acc_t)h);
}

// range_grad_sums: Σ g and Σ g·(x − mean) over values t0 … t1−1 of
// channel ch (all n rows: value t at row t/hw), g = dy masked by the
// forward's ReLU (x·a + b > 0) when relu is set, in acc_t by the
// work-group's items; every work item gets both.
void range_grad_sums(__global const float *x, __global const float *dy, __global const float *a, __global const float *b,
		__global const float *mean, int ch, int c, int hw, int t0, int t1, int relu, LOCAL_PTR acc_t *s, acc_t *sum0, acc_t *sum1) {
	int lid = get_local_id(0), ls = get_local_size(0);
	float ac = a[ch], bc = b[ch];
	acc_t mu = (acc_t)mean[ch];
	acc_t s0 = 0, s1 = 0;
	for (int t = t0 + lid; t < t1; t += ls) {
		int k = ((t / hw) * c + ch) * hw + t % hw;
		float v = x[k];
		float g = dy[k];
		if (relu && !(v * ac + bc > 0.0f)) g = 0.0f;
		s0 += (acc_t)g;
		s1 += (acc_t)g * ((acc_t)v - mu);
	}
	*sum0 = group_sum(s0, s);
	*sum1 = group_sum(s1, s);
}

// bn_grad_sums: one work-group per channel over all n rows: sg = Σ g and
// sgx = invstd·Σ g·(x − mean), g = dy masked by the forward's ReLU
// (x·a + b > 0) when relu is set (MaskedSums).
__kernel void bn_grad_sums(__global const float *x, __global const float *dy, __global const float *a, __global const float *b,
		__global const float *mean, __global const float *invstd, __global float *sg, __global float *sgx, int n, int c, int hw, int relu) {
	__local acc_t s[RED_WG];
	int ch = get_group_id(0);
	acc_t s0, s1;
	range_grad_sums(x, dy, a, b, mean, ch, c, hw, 0, n * hw, relu, s, &s0, &s1);
	if (get_local_id(0) == 0) {
		sg[ch] = (float)s0;
		sgx[ch] = (float)(s1 * (acc_t)invstd[ch]);
	}
}

// bn_grad_sums_part: bn_grad_sums' first stage for channels of many
// values: work-group g sums slice g % slices of channel g / slices (values
// s·len … min((s+1)·len, n·hw) − 1) into part[2g] (Σ g) and part[2g+1]
// (Σ g·(x − mean)).
__kernel void bn_grad_sums_part(__global const float *x, __global const float *dy, __global const float *a, __global const float *b,
		__global const float *mean, __global acc_t *part, int n, int c, int hw, int relu, int slices, int len) {
	__local acc_t s[RED_WG];
	int g = get_group_id(0);
	int ch = g / slices, t0 = (g % slices) * len;
	acc_t s0, s1;
	range_grad_sums(x, dy, a, b, mean, ch, c, hw, t0, min(t0 + len, n * hw), relu, s, &s0, &s1);
	if (get_local_id(0) == 0) {
		part[2 * g] = s0;
		part[2 * g + 1] = s1;
	}
}

// bn_grad_sums_merge: the second stage, one work item per channel: the
// slices' sums added in slice order, sg = Σ g, sgx = invstd·Σ g·(x − mean).
__kernel void bn_grad_sums_merge(__global const acc_t *part, __global const float *invstd, __global float *sg, __global float *sgx, int c, int slices) {
	int ch = get_global_id(0);
	if (ch >= c) return;
	acc_t s0 = 0, s1 = 0;
	for (int sl = 0; sl < slices; sl++) {
		s0 += part[2 * (ch * slices + sl)];
		s1 += part[2 * (ch * slices + sl) + 1];
	}
	sg[ch] = (float)s0;
	sgx[ch] = (float)(s1 * (acc_t)invstd[ch]);
}

// bn_grad_dx: dx = (k·g + q·(x − mean)) + r per value (each operation
// rounded in float, as internal/vec's Grad), with k = γ·invstd and, by
// mode: 0 (the batch's own statistics) r = −k·Σg/m, q = −k·invstd·Σg·x̂/m;
// 1 (fixed statistics) q = r = 0; 2 (fixed, with the adjoints of the
// minibatch statistics) r = adj_mean/count, q = 2·adj_var/count. Rows at
// or after rows (a chunk's padding) take q = r = 0.
__kernel void bn_grad_dx(__global const float *x, __global const float *dy, __global const float *a, __global const float *b,
		__global const float *gamma, __global const float *mean, __global const float *invstd,
		__global const float *sg, __global const float *sgx, __global const float *adj_mean, __global const float *adj_var,
		__global float *dx, int n, int c, int hw, int rows, int relu, int mode, acc_t m, acc_t count) {
	int t = get_global_id(0);
	if (t >= n * c * hw) return;
	int ch = (t / hw) % c, i = t / (hw * c);
	acc_t is = (acc_t)invstd[ch];
	acc_t k0 = (acc_t)gamma[ch] * is;
	acc_t q = 0, r = 0;
	if (mode == 0) {
		r = -k0 * (acc_t)sg[ch] / m;
		q = -k0 * is * (acc_t)sgx[ch] / m;
	} else if (mode == 2) {
		r = (acc_t)adj_mean[ch] / count;
		q = 2 * (acc_t)adj_var[ch] / count;
	}
	if (i >= rows) {
		q = 0;
		r = 0;
	}
	float kf = (float)k0, qf = (float)q, rf = (float)r, mf = mean[ch];
	float v = x[t];
	float g = dy[t];
	if (relu && !(v * a[ch] + b[ch] > 0.0f)) g = 0.0f;
	dx[t] = kf * g + qf * (v - mf) + rf;
}

// bn_collect: the partial derivatives of the loss with respect to the
// layer's fixed mean and variance, added to dmean, dvar:
// −γ·invstd·Σg and −½·γ·invstd²·Σg·x̂ (bnBackward with collect set).
__kernel void bn_collect(__global const float *gamma, __global const float *invstd, __global const float *sg, __global const float *sgx,
		__global float *dmean, __global float *dvar, int c) {
	int ch = get_global_id(0);
	if (ch >= c) return;
	acc_t is = (acc_t)invstd[ch];
	acc_t k0 = (acc_t)gamma[ch] * is;
	dmean[ch] = (float)((acc_t)dmean[ch] - k0 * (acc_t)sg[ch]);
	dvar[ch] = (float)((acc_t)dvar[ch] - 0.5 * k0 * is * (acc_t)sgx[ch]);
}

// bn_running: the running averages, PyTorch's rule as BatchNorm.update:
// rm = (1−mom)·rm + mom·mean, rv = (1−mom)·rv + mom·var·unbias.
__kernel void bn_running(__global float *rm, __global float *rv, __global const float *mean, __global const float *var, int c, acc_t mom, acc_t unbias) {
	int ch = get_global_id(0);
	if (ch >= c) return;
	rm[ch] = (float)((1 - mom) * (acc_t)rm[ch] + mom * (acc_t)mean[ch]);
	rv[ch] = (float)((1 - mom) * (acc_t)rv[ch] + mom * (acc_t)var[ch] * unbias);
}

// bn_running_split: bn_running with the statistics of a BNStatsSplit
// buffer (the float mean in split[0:c], the float variance in
// split[2c:3c]): the running averages updated on the device, from the
// float statistics the host would record.
__kernel void bn_running_split(__global float *rm, __global float *rv, __global const float *split, int c, acc_t mom, acc_t unbias) {
	int ch = get_global_id(0);
	if (ch >= c) return;
	rm[ch] = (float)((1 - mom) * (acc_t)rm[ch] + mom * (acc_t)split[ch]);
	rv[ch] = (float)((1 - mom) * (acc_t)rv[ch] + mom * (acc_t)split[2 * c + ch] * unbias);
}

// bn_eval: evaluation mode (bnEval): y = x·s + t per channel with
// s = γ/√(rv + ε), t = β − rm·s (acc_t, rounded once), replaced by 0 where
// not > 0 when relu is set.
__kernel void bn_eval(__global const float *x, __global float *y, __global const float *gamma, __global const float *beta,
		__global const float *rm, __global const float *rv, int n, int c, int hw, int relu, acc_t eps) {
	int t = get_global_id(0);
	if (t >= n * c * hw) return;
	int ch = (t / hw) % c;
	acc_t sc = (acc_t)gamma[ch] / sqrt((acc_t)rv[ch] + eps);
	float a = (float)sc, b = (float)((acc_t)beta[ch] - (acc_t)rm[ch] * sc);
	float z = x[t] * a + b;
	if (relu && !(z > 0.0f)) z = 0.0f;
	y[t] = z;
}
