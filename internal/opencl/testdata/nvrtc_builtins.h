// What NVRTC declares before a program's source, for clang's CUDA mode
// without a CUDA installation (-nocudainc -nocudalib): the execution-space
// attributes, the built-in variables, the vector types, and the intrinsics,
// atomics and math functions the CUDA prelude (kernels/cuda_prelude.h)
// calls, with CUDA's names and signatures. TestKernelsCompileAsCUDA
// compiles CUDAKernelSource after it. A name the prelude or the kernels use
// that CUDA lacks is then an error here too.
//
// Instructions whose form the NVRTC options decide are lowered through
// LLVM's generic operations (sqrt: sqrt.rn or .approx by --prec-sqrt, fma
// always fused); the transcendental functions (libdevice's, in NVRTC)
// stay calls, so the PTX shows which precision a kernel asked for.
#pragma once

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __restrict__ __restrict

typedef __SIZE_TYPE__ size_t;

struct __align__(16) uint4 { unsigned int x, y, z, w; };
struct __align__(8) uint2 { unsigned int x, y; };
struct __align__(16) float4 { float x, y, z, w; };
struct uint3 { unsigned int x, y, z; };
struct dim3 { unsigned int x, y, z; };
static __device__ __forceinline__ uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) { return uint4{x, y, z, w}; }
static __device__ __forceinline__ uint2 make_uint2(unsigned int x, unsigned int y) { return uint2{x, y}; }
static __device__ __forceinline__ float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }

#include <__clang_cuda_builtin_vars.h>

// __syncthreads is a clang NVPTX builtin already.
static __device__ __forceinline__ unsigned int __umulhi(unsigned int a, unsigned int b) { return __nvvm_mulhi_ui(a, b); }
static __device__ __forceinline__ int __mulhi(int a, int b) { return __nvvm_mulhi_i(a, b); }
static __device__ __forceinline__ int __float_as_int(float x) { return __nvvm_bitcast_f2i(x); }
static __device__ __forceinline__ unsigned int __float_as_uint(float x) { return (unsigned int)__nvvm_bitcast_f2i(x); }
static __device__ __forceinline__ float __int_as_float(int x) { return __nvvm_bitcast_i2f(x); }
static __device__ __forceinline__ float __uint_as_float(unsigned int x) { return __nvvm_bitcast_i2f((int)x); }
static __device__ __forceinline__ long long __double_as_longlong(double x) { return __nvvm_bitcast_d2ll(x); }

static __device__ __forceinline__ int atomicOr(int *p, int v) { return __nvvm_atom_or_gen_i(p, v); }
static __device__ __forceinline__ unsigned int atomicOr(unsigned int *p, unsigned int v) { return (unsigned int)__nvvm_atom_or_gen_i((int *)p, (int)v); }
static __device__ __forceinline__ int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
static __device__ __forceinline__ unsigned int atomicMin(unsigned int *p, unsigned int v) { return __nvvm_atom_min_gen_ui(p, v); }
static __device__ __forceinline__ int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
static __device__ __forceinline__ int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
static __device__ __forceinline__ int atomicCAS(int *p, int cmp, int v) { return __nvvm_atom_cas_gen_i(p, cmp, v); }
static __device__ __forceinline__ unsigned int atomicCAS(unsigned int *p, unsigned int cmp, unsigned int v) { return (unsigned int)__nvvm_atom_cas_gen_i((int *)p, (int)cmp, (int)v); }

extern "C" {
__device__ float expf(float);
__device__ double exp(double);
__device__ float logf(float);
__device__ double log(double);
__device__ float log1pf(float);
__device__ double log1p(double);
__device__ float tanhf(float);
__device__ double tanh(double);
__device__ float fmaxf(float, float);
__device__ double fmax(double, double);
__device__ float fminf(float, float);
__device__ double fmin(double, double);
}
static __device__ __forceinline__ float sqrtf(float x) { return __builtin_sqrtf(x); }
static __device__ __forceinline__ double sqrt(double x) { return __builtin_sqrt(x); }
static __device__ __forceinline__ float fabsf(float x) { return __builtin_fabsf(x); }
static __device__ __forceinline__ double fabs(double x) { return __builtin_fabs(x); }
static __device__ __forceinline__ float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
static __device__ __forceinline__ double fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
