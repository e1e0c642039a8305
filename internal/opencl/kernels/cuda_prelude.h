// CUDA prelude of llpfc's kernel library: what makes the OpenCL C of
// kernels/*.cl compile as CUDA C++ under NVRTC (CUDAKernelSource puts it,
// after #define LLPFC_CUDA, ahead of the library). One source then serves
// both back ends, and PoCL on any machine keeps testing the code the GPU
// runs. NVRTC declares CUDA's built-ins (threadIdx, __syncthreads, the
// atomics, the math library) before this text; the options of
// CUDABuildOptions do the rest (with --device-as-default-execution-space,
// functions without an execution space are __device__, as every OpenCL
// function is).
//
// Numerics follow the OpenCL build: the float and double overloads below
// call CUDA's float functions for float arguments (expf, not exp on a
// promoted double), and the classification functions test bits, so no
// option can turn them into assumptions.

// Address spaces and qualifiers. __local declares a kernel's local array
// (CUDA's __shared__); a pointer parameter into local memory is LOCAL_PTR,
// which CUDA needs no qualifier for.
#define __kernel extern "C" __global__
#define __global
#define __local __shared__
#define LOCAL_PTR
#define restrict __restrict__
// A kernel launched with one work-group size: CUDA can only bound it.
#define REQD_WG_SIZE(x, y, z) __launch_bounds__((x) * (y) * (z))

// OpenCL's unsigned types (ulong: 64 bits, as unsigned long on Linux; the
// same types glibc's <sys/types.h> gives these names, should any header
// NVRTC reads define them).
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;

// int8 as a kernel argument: eight int32 by value, 32 bytes aligned as
// OpenCL's int8, the bytes the host sets as the argument.
struct __align__(32) int8 {
	int s0, s1, s2, s3, s4, s5, s6, s7;
};

#define OCL_FN __device__ __forceinline__

// Work-items: global id = group · group size + local id (no global
// offset: the host launches grid = global / local, block = local). A
// dimension past 2 reads as OpenCL's (0, or 1 for sizes).
OCL_FN size_t get_local_id(uint d) { return d == 0 ? threadIdx.x : d == 1 ? threadIdx.y : d == 2 ? threadIdx.z : 0; }
OCL_FN size_t get_group_id(uint d) { return d == 0 ? blockIdx.x : d == 1 ? blockIdx.y : d == 2 ? blockIdx.z : 0; }
OCL_FN size_t get_local_size(uint d) { return d == 0 ? blockDim.x : d == 1 ? blockDim.y : d == 2 ? blockDim.z : 1; }
OCL_FN size_t get_num_groups(uint d) { return d == 0 ? gridDim.x : d == 1 ? gridDim.y : d == 2 ? gridDim.z : 1; }
OCL_FN size_t get_global_id(uint d) { return get_group_id(d) * get_local_size(d) + get_local_id(d); }
OCL_FN size_t get_global_size(uint d) { return get_num_groups(d) * get_local_size(d); }

// barrier: __syncthreads orders both shared and global memory for the block.
#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2
OCL_FN void barrier(uint flags) {
	(void)flags;
	__syncthreads();
}

// Constants of OpenCL C (C's, as floats).
#undef INFINITY
#undef NAN
#undef FLT_MAX
#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fc00000)
#define FLT_MAX 0x1.fffffep127f

// Math: OpenCL's overloaded built-ins, float arguments to CUDA's float
// functions. Each name is a function-like macro over an ocl_ overload set,
// so whatever NVRTC's headers declare under the name is not consulted.
#define OCL_MATH1(name, f, d)                         \
	OCL_FN float ocl_##name(float x) { return f(x); } \
	OCL_FN double ocl_##name(double x) { return d(x); }
OCL_MATH1(exp, expf, ::exp)
OCL_MATH1(log, logf, ::log)
OCL_MATH1(log1p, log1pf, ::log1p)
OCL_MATH1(tanh, tanhf, ::tanh)
OCL_MATH1(sqrt, sqrtf, ::sqrt)
OCL_MATH1(fabs, fabsf, ::fabs)
#undef OCL_MATH1
OCL_FN float ocl_fmax(float a, float b) { return fmaxf(a, b); }
OCL_FN double ocl_fmax(double a, double b) { return ::fmax(a, b); }
OCL_FN float ocl_fmin(float a, float b) { return fminf(a, b); }
OCL_FN double ocl_fmin(double a, double b) { return ::fmin(a, b); }
// fma is fused by definition, whatever --fmad says.
OCL_FN float ocl_fma(float a, float b, float c) { return fmaf(a, b, c); }
OCL_FN double ocl_fma(double a, double b, double c) { return ::fma(a, b, c); }
#undef exp
#undef log
#undef log1p
#undef tanh
#undef sqrt
#undef fabs
#undef fmax
#undef fmin
#undef fma
#define exp(x) ocl_exp(x)
#define log(x) ocl_log(x)
#define log1p(x) ocl_log1p(x)
#define tanh(x) ocl_tanh(x)
#define sqrt(x) ocl_sqrt(x)
#define fabs(x) ocl_fabs(x)
#define fmax(a, b) ocl_fmax(a, b)
#define fmin(a, b) ocl_fmin(a, b)
#define fma(a, b, c) ocl_fma(a, b, c)

// min and max of integers (and floats: y if y < x, as OpenCL's min).
OCL_FN int ocl_min(int a, int b) { return b < a ? b : a; }
OCL_FN int ocl_max(int a, int b) { return a < b ? b : a; }
OCL_FN uint ocl_min(uint a, uint b) { return b < a ? b : a; }
OCL_FN uint ocl_max(uint a, uint b) { return a < b ? b : a; }
OCL_FN float ocl_min(float a, float b) { return b < a ? b : a; }
OCL_FN float ocl_max(float a, float b) { return a < b ? b : a; }
#undef min
#undef max
#define min(a, b) ocl_min(a, b)
#define max(a, b) ocl_max(a, b)

// Classification from the bits (OpenCL's scalar forms return int).
OCL_FN uint ocl_fbits(float x) { return __float_as_uint(x) & 0x7fffffffu; }
OCL_FN unsigned long long ocl_dbits(double x) { return (unsigned long long)__double_as_longlong(x) & 0x7fffffffffffffffull; }
OCL_FN int ocl_isnan(float x) { return ocl_fbits(x) > 0x7f800000u; }
OCL_FN int ocl_isnan(double x) { return ocl_dbits(x) > 0x7ff0000000000000ull; }
OCL_FN int ocl_isinf(float x) { return ocl_fbits(x) == 0x7f800000u; }
OCL_FN int ocl_isinf(double x) { return ocl_dbits(x) == 0x7ff0000000000000ull; }
OCL_FN int ocl_isfinite(float x) { return ocl_fbits(x) < 0x7f800000u; }
OCL_FN int ocl_isfinite(double x) { return ocl_dbits(x) < 0x7ff0000000000000ull; }
OCL_FN int ocl_signbit(float x) { return (int)(__float_as_uint(x) >> 31); }
OCL_FN int ocl_signbit(double x) { return (int)((unsigned long long)__double_as_longlong(x) >> 63); }
#undef isnan
#undef isinf
#undef isfinite
#undef signbit
#define isnan(x) ocl_isnan(x)
#define isinf(x) ocl_isinf(x)
#define isfinite(x) ocl_isfinite(x)
#define signbit(x) ocl_signbit(x)

// Integers and reinterpretation.
OCL_FN uint mul_hi(uint a, uint b) { return __umulhi(a, b); }
OCL_FN int mul_hi(int a, int b) { return __mulhi(a, b); }
OCL_FN int as_int(float x) { return __float_as_int(x); }
OCL_FN uint as_uint(float x) { return __float_as_uint(x); }
OCL_FN float as_float(int x) { return __int_as_float(x); }
OCL_FN float as_float(uint x) { return __uint_as_float(x); }

// Atomics on global ints (OpenCL 1.1's atomic_*, each returning the old
// value).
OCL_FN int atomic_or(int *p, int v) { return atomicOr(p, v); }
OCL_FN uint atomic_or(uint *p, uint v) { return atomicOr(p, v); }
OCL_FN int atomic_min(int *p, int v) { return atomicMin(p, v); }
OCL_FN uint atomic_min(uint *p, uint v) { return atomicMin(p, v); }
OCL_FN int atomic_max(int *p, int v) { return atomicMax(p, v); }
OCL_FN int atomic_add(int *p, int v) { return atomicAdd(p, v); }
OCL_FN int atomic_cmpxchg(int *p, int cmp, int v) { return atomicCAS(p, cmp, v); }
OCL_FN uint atomic_cmpxchg(uint *p, uint cmp, uint v) { return atomicCAS(p, cmp, v); }

// vstore4: the four components at p + 4·i (CUDA's vector types have
// OpenCL's .x … .w; their literals are make_uint4 and friends).
OCL_FN void vstore4(uint4 v, size_t i, uint *p) {
	p[4 * i] = v.x;
	p[4 * i + 1] = v.y;
	p[4 * i + 2] = v.z;
	p[4 * i + 3] = v.w;
}
OCL_FN void vstore4(float4 v, size_t i, float *p) {
	p[4 * i] = v.x;
	p[4 * i + 1] = v.y;
	p[4 * i + 2] = v.z;
	p[4 * i + 3] = v.w;
}
