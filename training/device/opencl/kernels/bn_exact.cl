// Batch-norm coefficients computed from the statistics in double, as the
// CPU's bnForward (training/nn/bnfused.go) computes them: the affine map
// y = a·x + b decides the forward ReLU and its backward mask, so a and b
// must round as the CPU's do for a device to give the CPU's gradients.
// The statistics travel between the kernels and the host as float pairs
// (hi, lo) whose sum is the double value.

#pragma OPENCL FP_CONTRACT OFF
#ifdef LLPFC_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double acc_t;
#else
typedef float acc_t;
#endif

#define EXACT_WG 256

acc_t exact_sum(acc_t v, __local acc_t *s) {
	int lid = get_local_id(0);
	s[lid] = v;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int k = get_local_size(0) / 2; k > 0; k >>= 1) {
		if (lid < k) {
			s[lid] += s[lid + k];
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	acc_t r = s[0];
	barrier(CLK_LOCAL_MEM_FENCE);
	return r;
}

// bn_stats_split: one work-group per channel: the mean and biased
// variance over the first rows rows of x (n×c×hw), two passes in acc_t,
// into split = [mean hi | mean lo | var hi | var lo] (4·c floats).
__kernel void bn_stats_split(__global const float *x, __global float *split, int n, int c, int hw, int rows) {
	__local acc_t s[EXACT_WG];
	int ch = get_group_id(0);
	int lid = get_local_id(0), ls = get_local_size(0);
	int m = rows * hw;
	acc_t sum = 0;
	for (int t = lid; t < m; t += ls) {
		sum += x[((t / hw) * c + ch) * hw + t % hw];
	}
	acc_t mu = exact_sum(sum, s) / (acc_t)m;
	acc_t ss = 0;
	for (int t = lid; t < m; t += ls) {
		acc_t d = (acc_t)x[((t / hw) * c + ch) * hw + t % hw] - mu;
		ss += d * d;
	}
	acc_t var = exact_sum(ss, s) / (acc_t)m;
	if (lid == 0) {
		float mh = (float)mu, vh = (float)var;
		split[ch] = mh;
		split[c + ch] = (float)(mu - (acc_t)mh);
		split[2 * c + ch] = vh;
		split[3 * c + ch] = (float)(var - (acc_t)vh);
	}
}

// bn_coeffs_split: per channel, from the statistics in split: invstd =
// 1/√(var + ε), sc = γ·invstd, a = sc and b = β − mean·sc (each rounded
// once to float, as bnForward), and the float mean and variance.
__kernel void bn_coeffs_split(__global const float *gamma, __global const float *beta, __global const float *split,
		__global float *mean, __global float *var, __global float *invstd, __global float *a, __global float *b, int c, acc_t eps) {
	int ch = get_global_id(0);
	if (ch >= c) return;
	acc_t mu = (acc_t)split[ch] + (acc_t)split[c + ch];
	acc_t vr = (acc_t)split[2 * c + ch] + (acc_t)split[3 * c + ch];
	acc_t is = (acc_t)1 / sqrt(vr + eps);
	acc_t sc = (acc_t)gamma[ch] * is;
	mean[ch] = (float)mu;
	var[ch] = (float)vr;
	invstd[ch] = (float)is;
	a[ch] = (float)sc;
	b[ch] = (float)((acc_t)beta[ch] - mu * sc);
}

// bn_apply: y = x·a + b per channel (the product and the sum each
// rounded), 0 where not > 0 when relu is set (NaN too).
__kernel void bn_apply(__global const float *x, __global float *y, __global const float *a, __global const float *b, int n, int c, int hw, int relu) {
	int t = get_global_id(0);
	if (t >= n * c * hw) return;
	int ch = (t / hw) % c;
	float z = x[t] * a[ch] + b[ch];
	if (relu && !(z > 0.0f)) z = 0.0f;
	y[t] = z;
}
