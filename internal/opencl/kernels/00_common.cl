// Common definitions of llpfc's OpenCL kernel library (built as one
// program; the files are concatenated in name order).

// The same source also builds as CUDA C++ (cuda_prelude.h, which defines
// LLPFC_CUDA and maps OpenCL's names onto CUDA's). What has no name common to
// both is spelled here for OpenCL: LOCAL_PTR, a pointer parameter into local
// memory; REQD_WG_SIZE, a kernel's one work-group size; make_uint2 and
// make_uint4, vector literals. The OpenCL pragmas are options there.
#ifndef LLPFC_CUDA
#define LOCAL_PTR __local
#define REQD_WG_SIZE(x, y, z) __attribute__((reqd_work_group_size(x, y, z)))
#define make_uint2(a, b) ((uint2)(a, b))
#define make_uint4(a, b, c, d) ((uint4)(a, b, c, d))

// Go rounds every product and sum separately: no fused multiply-add.
#pragma OPENCL FP_CONTRACT OFF
#endif

// Accumulators: double where the device has it (the CPU engine
// accumulates in float64), float otherwise.
#ifdef LLPFC_FP64
#ifndef LLPFC_CUDA
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
typedef double acc_t;
#else
typedef float acc_t;
#endif

// The largest work-group of the reduction kernels (a power of two; the
// host launches them with a power of two no larger).
#define RED_WG 256

// group_sum returns the sum of v over the work-group (a power-of-two
// size); every work item gets the result.
acc_t group_sum(acc_t v, LOCAL_PTR acc_t *s) {
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

// gorgonia's max of two values (tensor's MaxF32): a if a > b, else b.
float max_g(float a, float b) { return a > b ? a : b; }

// group_max returns max_g over the work-group.
float group_max(float v, LOCAL_PTR float *s) {
	int lid = get_local_id(0);
	s[lid] = v;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int k = get_local_size(0) / 2; k > 0; k >>= 1) {
		if (lid < k) {
			s[lid] = max_g(s[lid], s[lid + k]);
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	float r = s[0];
	barrier(CLK_LOCAL_MEM_FENCE);
	return r;
}

// Go's built-in max for floats: NaN if either is NaN; +0 over -0.
float max_go(float a, float b) {
	if (isnan(a)) return a;
	if (isnan(b)) return b;
	if (a > b) return a;
	if (b > a) return b;
	return signbit(a) ? b : a;
}

// floor_div and ceil_div divide by d > 0 rounding down and up (n may be
// negative).
int floor_div(int n, int d) { return n >= 0 ? n / d : -((-n + d - 1) / d); }
int ceil_div(int n, int d) { return n >= 0 ? (n + d - 1) / d : -((-n) / d); }

// tally_add adds v to the step flag's loss sum (flag[4…], a double where
// the device has one), or, when v is NaN or ±Inf, flags the step tagged tag
// and keeps v's bits in flag[3]: the one rule of every kernel that tallies
// a loss on the device (loss_tally, tally_scaled, tally_neg_entropy).
void tally_add(__global int *flag, int tag, acc_t v) {
	if (!isfinite(v)) {
		flag[0] = 2 * (tag + 1);
		flag[3] = as_int((float)v);
		return;
	}
#ifdef LLPFC_FP64
	__global double *s = (__global double *)(flag + 4);
	*s += v;
#else
	__global float *s = (__global float *)(flag + 4);
	*s += v;
#endif
}
