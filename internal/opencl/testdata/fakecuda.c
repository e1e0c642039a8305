// A fake of the CUDA driver API, NVRTC and cuBLAS for the tests of the
// CUDA driver without a GPU (cuda_fake_test.go builds it with a C compiler
// when there is one): "device memory" is host memory, work runs at once,
// two "kernels" run on the host, and every driver call fails with
// CUDA_ERROR_INVALID_CONTEXT unless the calling thread made the context
// current (the binding bug a real driver shows only sometimes).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// The types as cuda.h, nvrtc.h and cublas_api.h declare them (cuda.h 12.6
// lines 261-279; handles are pointers to opaque structs, enums are int).
typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef int CUdevice;
typedef void *CUcontext, *CUstream, *CUmodule, *CUfunction, *cublasHandle_t;
#define CTX ((void *)0x5eed)

static __thread void *current;
static int retained;
static int live_allocs;
static int math_mode = -1;

#define BOUND() do { if (current != CTX) return 201; } while (0)

CUresult cuInit(unsigned f) { return f == 0 ? 0 : 1; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(CUdevice *d, int i) { if (i != 0) return 101; *d = 0; return 0; }
CUresult cuDeviceGetName(char *s, int n, CUdevice d) { strncpy(s, "Fake GPU", n); return 0; }
CUresult cuDeviceTotalMem_v2(size_t *b, CUdevice d) { *b = (size_t)1 << 30; return 0; }
CUresult cuDeviceGetAttribute(int *v, int a, CUdevice d) {
	switch (a) {
	case 1: *v = 1024; return 0;
	case 8: *v = 49152; return 0;
	case 16: *v = 4; return 0;
	case 75: *v = 9; return 0;
	case 76: *v = 0; return 0;
	}
	return 1;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) { retained++; *c = CTX; return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { if (retained == 0) return 1; retained--; return 0; }
CUresult cuCtxSetCurrent(CUcontext c) { current = c; return 0; }
CUresult cuStreamCreate(CUstream *s, unsigned int f) { BOUND(); *s = (void *)0x57; return 0; }
CUresult cuStreamDestroy_v2(CUstream s) { BOUND(); return s == (void *)0x57 ? 0 : 400; }
CUresult cuStreamSynchronize(CUstream s) { BOUND(); return s == (void *)0x57 ? 0 : 400; }
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) { BOUND(); *p = (CUdeviceptr)(uintptr_t)malloc(n); live_allocs++; return 0; }
CUresult cuMemFree_v2(CUdeviceptr p) { BOUND(); free((void *)(uintptr_t)p); live_allocs--; return 0; }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, CUstream st) { BOUND(); memcpy((void *)(uintptr_t)d, s, n); return 0; }
CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, CUstream st) { BOUND(); memcpy(d, (void *)(uintptr_t)s, n); return 0; }
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) { BOUND(); memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n); return 0; }
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, CUstream st) {
	BOUND();
	for (size_t i = 0; i < n; i++) ((unsigned *)(uintptr_t)d)[i] = v;
	return 0;
}
CUresult cuModuleLoadData(CUmodule *m, const void *image) {
	BOUND();
	if (strcmp(image, "FAKECUBIN") != 0 && strcmp(image, "FAKEPTX") != 0) return 200; // CUDA_ERROR_INVALID_IMAGE
	*m = (void *)0x30d;
	return 0;
}
CUresult cuModuleUnload(CUmodule m) { BOUND(); return m == (void *)0x30d ? 0 : 400; }

// The kernels: saxpy(float *y, const float *x, float a, int n): y += a·x;
// dsum(double *out, const float *x, double scale, int n, int8 pad):
// out[0] = scale·Σx + Σpad (one thread).
static const char *names[] = {"saxpy", "dsum"};
static const size_t psizes[2][5] = {{8, 8, 4, 4}, {8, 8, 8, 4, 32}};
static const int nparams[] = {4, 5};
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
	BOUND();
	for (int i = 0; i < 2; i++)
		if (strcmp(name, names[i]) == 0) { *f = (void *)(uintptr_t)(0xf0 + i); return 0; }
	return 500; // CUDA_ERROR_NOT_FOUND
}
CUresult cuFuncGetAttribute(int *v, int a, CUfunction f) { BOUND(); if (a != 0) return 1; *v = 512; return 0; }
CUresult cuFuncGetParamInfo(CUfunction f, size_t i, size_t *off, size_t *size) {
	int k = (int)((uintptr_t)f - 0xf0);
	if (k < 0 || k > 1) return 400;
	if (i >= (size_t)nparams[k]) return 1;
	*off = 8 * i;
	*size = psizes[k][i];
	return 0;
}
CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,
                        unsigned int bz, unsigned int shared, CUstream st, void **p, void **extra) {
	BOUND();
	if (st != (void *)0x57 || extra != NULL || shared != 0) return 1;
	int k = (int)((uintptr_t)f - 0xf0);
	if (k == 0) {
		float *y = *(float **)p[0], *x = *(float **)p[1], a = *(float *)p[2];
		int n = *(int *)p[3];
		unsigned long threads = (unsigned long)gx * bx * gy * by * gz * bz;
		if (gy * by * gz * bz != 1) return 1;
		for (unsigned long i = 0; i < threads; i++)
			if ((long)i < n) y[i] += a * x[i];
		return 0;
	}
	if (k == 1) {
		double *out = *(double **)p[0], scale = *(double *)p[2];
		float *x = *(float **)p[1];
		int n = *(int *)p[3], *pad = (int *)p[4];
		double s = 0;
		for (int i = 0; i < n; i++) s += x[i];
		s *= scale;
		for (int i = 0; i < 8; i++) s += pad[i];
		*out = s;
		return 0;
	}
	return 400;
}
CUresult cuGetErrorName(CUresult e, const char **s) {
	switch (e) {
	case 1: *s = "CUDA_ERROR_INVALID_VALUE"; return 0;
	case 200: *s = "CUDA_ERROR_INVALID_IMAGE"; return 0;
	case 201: *s = "CUDA_ERROR_INVALID_CONTEXT"; return 0;
	case 500: *s = "CUDA_ERROR_NOT_FOUND"; return 0;
	}
	*s = NULL;
	return 1;
}

// NVRTC: a source with "#error" fails with a log; with FAKE_REFUSE_SM set,
// an sm_ architecture is an invalid option (the PTX fallback).
typedef struct { char *src; int ptx; } prog;
int nvrtcVersion(int *a, int *b) { *a = 13; *b = 0; return 0; }
int nvrtcCreateProgram(prog **p, const char *src, const char *name, int n, const char *const *h, const char *const *in) {
	*p = calloc(1, sizeof(prog));
	(*p)->src = strdup(src);
	return 0;
}
int nvrtcDestroyProgram(prog **p) { free((*p)->src); free(*p); *p = NULL; return 0; }
int nvrtcCompileProgram(prog *p, int n, const char *const *opts) {
	int arch = 0;
	for (int i = 0; i < n; i++) {
		if (strncmp(opts[i], "--gpu-architecture=sm_", 22) == 0) {
			if (getenv("FAKE_REFUSE_SM")) return 5;
			arch = 1;
		} else if (strncmp(opts[i], "--gpu-architecture=compute_", 27) == 0) {
			arch = 1;
			p->ptx = 1;
		}
	}
	if (!arch) return 5;
	return strstr(p->src, "#error") ? 6 : 0;
}
int nvrtcGetProgramLogSize(prog *p, size_t *n) { *n = 11; return 0; }
int nvrtcGetProgramLog(prog *p, char *s) { memcpy(s, "fake error", 11); return 0; }
int nvrtcGetCUBINSize(prog *p, size_t *n) { if (p->ptx) return 3; *n = 9; return 0; }
int nvrtcGetCUBIN(prog *p, char *s) { memcpy(s, "FAKECUBIN", 9); return 0; }
int nvrtcGetPTXSize(prog *p, size_t *n) { *n = 8; return 0; }
int nvrtcGetPTX(prog *p, char *s) { memcpy(s, "FAKEPTX", 8); return 0; }
const char *nvrtcGetErrorString(int e) {
	switch (e) {
	case 5: return "NVRTC_ERROR_INVALID_OPTION";
	case 6: return "NVRTC_ERROR_COMPILATION";
	}
	return "NVRTC_ERROR_UNKNOWN";
}

// cuBLAS: column-major sgemm with host scalars, as documented.
int cublasCreate_v2(cublasHandle_t *h) { if (current != CTX) return 1; *h = (void *)0xb1a5; return 0; }
int cublasDestroy_v2(cublasHandle_t h) { return h == (void *)0xb1a5 ? 0 : 7; }
int cublasSetStream_v2(cublasHandle_t h, CUstream s) { return s == (void *)0x57 ? 0 : 7; }
int cublasSetMathMode(cublasHandle_t h, int m) { math_mode = m; return 0; }
int cublasSetPointerMode_v2(cublasHandle_t h, int m) { return m == 0 ? 0 : 7; }
int cublasGetProperty(int t, int *v) { *v = t == 0 ? 13 : t == 1 ? 1 : 0; return 0; }
int cublasSgemm_v2(cublasHandle_t h, int ta, int tb, int m, int n, int k, const float *alpha, const float *A, int lda,
                   const float *B, int ldb, const float *beta, float *C, int ldc) {
	if (current != CTX || math_mode != 0) return 14;
	if (lda < (ta ? k : m) || ldb < (tb ? n : k) || ldc < m) return 7;
	for (int j = 0; j < n; j++)
		for (int i = 0; i < m; i++) {
			double s = 0;
			for (int l = 0; l < k; l++) {
				float a = ta ? A[l + i * lda] : A[i + l * lda];
				float b = tb ? B[j + l * ldb] : B[l + j * ldb];
				s += (double)a * b;
			}
			C[i + j * ldc] = *alpha * (float)s + *beta * C[i + j * ldc];
		}
	return 0;
}

// What the test reads back: the allocations and primary-context
// references still held.
int fake_live_allocs(void) { return live_allocs; }
int fake_retained(void) { return retained; }
