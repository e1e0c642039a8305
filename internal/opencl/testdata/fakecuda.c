// A fake of the CUDA driver API, NVRTC and cuBLAS for the tests of the
// CUDA driver without a GPU (cuda_fake_test.go builds it with a C compiler
// when there is one): "device memory" is host memory, two "kernels" run on
// the host, and every driver call fails with CUDA_ERROR_INVALID_CONTEXT
// unless the calling thread made the context current (the binding bug a
// real driver shows only sometimes). The stream's work (copies, fills,
// launches, products) is queued and runs only when the host waits for the
// stream, as a GPU runs it later than the call: a driver that reuses or
// reads a staging buffer before the copy ran gets the wrong numbers here.
// A host-to-device copy reads its source, a device-to-host copy writes its
// destination, when it runs; the fake counts the async copies whose host
// side is not page-locked memory of cuMemHostAlloc (the driver stages
// every transfer through such memory, so the test wants none).
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
#define STREAM ((void *)0x57)

static __thread void *current;
static int retained;
static int live_allocs;
static int math_mode = -1;
static int compiles;
static int pageable_copies;

#define BOUND() do { if (current != CTX) return 201; } while (0)

// Page-locked host memory: the live allocations, so a copy can tell
// whether its host side lies in one and the test can see one never freed.
#define MAXHOST 4096
static struct { char *p; size_t n; } hosts[MAXHOST];
static int live_host;
static int pinned(const void *p, size_t n) {
	for (int i = 0; i < MAXHOST; i++)
		if (hosts[i].p && (const char *)p >= hosts[i].p && (const char *)p + n <= hosts[i].p + hosts[i].n) return 1;
	return 0;
}

// The stream's queue of work, run in order at a synchronisation.
enum { HTOD, DTOH, DTOD, MEMSET, LAUNCH, SGEMM, DNN };
typedef struct {
	int kind;
	void *dst;
	const void *src, *src2;
	size_t n;
	unsigned v;
	int kernel;
	unsigned long threads, ythreads;
	unsigned char params[5][32];
	int ta, tb, m, nn, k, lda, ldb, ldc;
	float alpha, beta;
	int pass, geo[8]; // DNN: the pass (0 fwd, 1 dx, 2 dw, 3 bias) and N, C, H, W, O, K, pad, stride
} op;
static op *queue;
static size_t queued, queue_cap;
static op *enqueue(int kind) {
	if (queued == queue_cap) {
		queue_cap = queue_cap ? 2 * queue_cap : 64;
		queue = realloc(queue, queue_cap * sizeof(op));
	}
	op *o = &queue[queued++];
	memset(o, 0, sizeof *o);
	o->kind = kind;
	return o;
}
static void run(op *o);
static void drain(void) {
	for (size_t i = 0; i < queued; i++) run(&queue[i]);
	queued = 0;
}

CUresult cuInit(unsigned int f) { return f == 0 ? 0 : 1; }
// The driver's CUDA version: 13.0, or FAKE_CUDA_DRIVER_VERSION's.
CUresult cuDriverGetVersion(int *v) {
	const char *e = getenv("FAKE_CUDA_DRIVER_VERSION");
	*v = e ? atoi(e) : 13000;
	return 0;
}
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
CUresult cuStreamCreate(CUstream *s, unsigned int f) { BOUND(); *s = STREAM; return 0; }
CUresult cuStreamDestroy_v2(CUstream s) { BOUND(); if (s != STREAM) return 400; drain(); return 0; }
CUresult cuStreamSynchronize(CUstream s) { BOUND(); if (s != STREAM) return 400; drain(); return 0; }
// Device allocations, so that a call can tell whether a range it is given
// lies in one.
#define MAXDEV 4096
static struct { char *p; size_t n; } devs[MAXDEV];
static int on_device(const void *p, size_t n) {
	for (int i = 0; i < MAXDEV; i++)
		if (devs[i].p && (const char *)p >= devs[i].p && (const char *)p + n <= devs[i].p + devs[i].n) return 1;
	return 0;
}
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
	BOUND();
	char *m = malloc(n);
	for (int i = 0; i < MAXDEV; i++)
		if (!devs[i].p) { devs[i].p = m, devs[i].n = n; break; }
	*p = (CUdeviceptr)(uintptr_t)m;
	live_allocs++;
	return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
	BOUND();
	for (int i = 0; i < MAXDEV; i++)
		if (devs[i].p == (char *)(uintptr_t)p) devs[i].p = NULL;
	free((void *)(uintptr_t)p);
	live_allocs--;
	return 0;
}
CUresult cuMemHostAlloc(void **p, size_t n, unsigned int flags) {
	BOUND();
	if (flags != 0 || n == 0) return 1;
	for (int i = 0; i < MAXHOST; i++)
		if (!hosts[i].p) {
			hosts[i].p = malloc(n);
			hosts[i].n = n;
			memset(hosts[i].p, 0xA5, n); // not zero: a read of staging the copy never wrote shows
			*p = hosts[i].p;
			live_host++;
			return 0;
		}
	return 2; // CUDA_ERROR_OUT_OF_MEMORY
}
CUresult cuMemFreeHost(void *p) {
	BOUND();
	for (int i = 0; i < MAXHOST; i++)
		if (hosts[i].p == p) {
			free(p);
			hosts[i].p = NULL;
			live_host--;
			return 0;
		}
	return 1;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, CUstream st) {
	BOUND();
	if (st != STREAM) return 400;
	if (!pinned(s, n)) pageable_copies++;
	op *o = enqueue(HTOD);
	o->dst = (void *)(uintptr_t)d, o->src = s, o->n = n;
	return 0;
}
CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, CUstream st) {
	BOUND();
	if (st != STREAM) return 400;
	if (!pinned(d, n)) pageable_copies++;
	op *o = enqueue(DTOH);
	o->dst = d, o->src = (void *)(uintptr_t)s, o->n = n;
	return 0;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) {
	BOUND();
	if (st != STREAM) return 400;
	op *o = enqueue(DTOD);
	o->dst = (void *)(uintptr_t)d, o->src = (void *)(uintptr_t)s, o->n = n;
	return 0;
}
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned v, size_t n, CUstream st) {
	BOUND();
	if (st != STREAM) return 400;
	op *o = enqueue(MEMSET);
	o->dst = (void *)(uintptr_t)d, o->v = v, o->n = n;
	return 0;
}
CUresult cuModuleLoadData(CUmodule *m, const void *image) {
	BOUND();
	// The images NVRTC "compiles" below, checked whole: anything else
	// (a truncated or garbled cache file) is not an image.
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
	if (st != STREAM || extra != NULL || shared != 0) return 1;
	int k = (int)((uintptr_t)f - 0xf0);
	if (k < 0 || k > 1) return 400;
	if (k == 0 && gy * by * gz * bz != 1) return 1;
	// The arguments' values are copied now, as the driver does: the
	// caller's parameter memory may be gone when the kernel runs.
	op *o = enqueue(LAUNCH);
	o->kernel = k;
	o->threads = (unsigned long)gx * bx * gy * by * gz * bz;
	for (int i = 0; i < nparams[k]; i++) memcpy(o->params[i], p[i], psizes[k][i]);
	return 0;
}
static void launch(op *o) {
	unsigned char (*p)[32] = o->params;
	if (o->kernel == 0) {
		float *y = *(float **)p[0], *x = *(float **)p[1], a = *(float *)p[2];
		int n = *(int *)p[3];
		for (unsigned long i = 0; i < o->threads; i++)
			if ((long)i < n) y[i] += a * x[i];
		return;
	}
	double *out = *(double **)p[0], scale = *(double *)p[2];
	float *x = *(float **)p[1];
	int n = *(int *)p[3], *pad = (int *)p[4];
	double s = 0;
	for (int i = 0; i < n; i++) s += x[i];
	s *= scale;
	for (int i = 0; i < 8; i++) s += pad[i];
	*out = s;
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
	compiles++;
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
	op *o = enqueue(SGEMM); // on the handle's stream; the host scalars read now
	o->ta = ta, o->tb = tb, o->m = m, o->nn = n, o->k = k, o->lda = lda, o->ldb = ldb, o->ldc = ldc;
	o->alpha = *alpha, o->beta = *beta;
	o->src = A, o->src2 = B, o->dst = C;
	return 0;
}
static void sgemm(op *o) {
	const float *A = o->src, *B = o->src2;
	float *C = o->dst;
	int ta = o->ta, tb = o->tb, lda = o->lda, ldb = o->ldb, ldc = o->ldc;
	for (int j = 0; j < o->nn; j++)
		for (int i = 0; i < o->m; i++) {
			double s = 0;
			for (int l = 0; l < o->k; l++) {
				float a = ta ? A[l + i * lda] : A[i + l * lda];
				float b = tb ? B[j + l * ldb] : B[l + j * ldb];
				s += (double)a * b;
			}
			C[i + j * ldc] = o->alpha * (float)s + o->beta * C[i + j * ldc];
		}
}

static void dnn(op *o);
static void run(op *o) {
	switch (o->kind) {
	case DNN: dnn(o); break;
	case HTOD: case DTOH: memcpy(o->dst, o->src, o->n); break;
	case DTOD: memmove(o->dst, o->src, o->n); break;
	case MEMSET: for (size_t i = 0; i < o->n; i++) ((unsigned *)o->dst)[i] = o->v; break;
	case LAUNCH: launch(o); break;
	case SGEMM: sgemm(o); break;
	}
}

// What the test reads back: the allocations, page-locked host
// allocations and primary-context references still held; NVRTC's
// compiles; the async copies whose host side was not page-locked; the
// work queued and not yet run.
int fake_live_allocs(void) { return live_allocs; }
int fake_live_host(void) { return live_host; }
int fake_retained(void) { return retained; }
int fake_compiles(void) { return compiles; }
int fake_pageable_copies(void) { return pageable_copies; }
int fake_queued(void) { return (int)queued; }


// cuDNN (the legacy convolution API of cudnn_cnn.h, cuDNN 9): descriptors
// that hold what they were set to, a heuristic ranking whose only
// acceptable entry (deterministic, FMA math, no FFT nor non-fused
// Winograd, a workspace that
// fits) is algorithm 1 at the end, and convolutions that run that
// algorithm only, on the stream set with cudnnSetStream, as the documented
// cross-correlation (a convolution descriptor in CUDNN_CONVOLUTION mode
// flips the filter, as cuDNN does) with α, β on host memory. A call before
// CUDNN_FMA_MATH was set on the descriptor, on a thread where the context
// is not current, or with a workspace smaller than the algorithm needs
// fails.
typedef struct { int kind, n, c, h, w, pad_h, pad_w, u, v, dh, dw, mode, math; } ddesc;
static int live_dnn;
static void *dnn_stream;
int fake_live_dnn(void) { return live_dnn; }
typedef struct { int algo, status; float time; size_t memory; int determinism, math, reserved[3]; } perf;
size_t cudnnGetVersion(void) { return 91300; }
const char *cudnnGetErrorString(int s) { return s == 3 ? "CUDNN_STATUS_BAD_PARAM" : s == 9 ? "CUDNN_STATUS_NOT_SUPPORTED" : "CUDNN_STATUS_FAKE"; }
int cudnnCreate(void **h) { if (current != CTX) return 1; *h = (void *)0xd77; live_dnn++; return 0; }
int cudnnDestroy(void *h) { if (h != (void *)0xd77) return 3; live_dnn--; return 0; }
int cudnnSetStream(void *h, void *s) { if (h != (void *)0xd77 || s != STREAM) return 3; dnn_stream = s; return 0; }
static int create(void **d, int kind) { ddesc *x = calloc(1, sizeof *x); x->kind = kind; x->math = -1; *d = x; live_dnn++; return 0; }
static int destroy(void *d, int kind) { if (!d || ((ddesc *)d)->kind != kind) return 3; free(d); live_dnn--; return 0; }
int cudnnCreateTensorDescriptor(void **d) { return create(d, 1); }
int cudnnDestroyTensorDescriptor(void *d) { return destroy(d, 1); }
int cudnnCreateFilterDescriptor(void **d) { return create(d, 2); }
int cudnnDestroyFilterDescriptor(void *d) { return destroy(d, 2); }
int cudnnCreateConvolutionDescriptor(void **d) { return create(d, 3); }
int cudnnDestroyConvolutionDescriptor(void *d) { return destroy(d, 3); }
int cudnnSetTensor4dDescriptor(ddesc *d, int format, int type, int n, int c, int h, int w) {
	if (d->kind != 1 || format != 0 || type != 0 || n < 1 || c < 1 || h < 1 || w < 1) return 3;
	d->n = n, d->c = c, d->h = h, d->w = w;
	return 0;
}
int cudnnSetFilter4dDescriptor(ddesc *d, int type, int format, int k, int c, int h, int w) {
	if (d->kind != 2 || format != 0 || type != 0 || k < 1 || c < 1 || h < 1 || w < 1) return 3;
	d->n = k, d->c = c, d->h = h, d->w = w;
	return 0;
}
int cudnnSetConvolution2dDescriptor(ddesc *d, int ph, int pw, int u, int v, int dh, int dw, int mode, int type) {
	if (d->kind != 3 || ph < 0 || pw < 0 || u < 1 || v < 1 || dh < 1 || dw < 1 || (mode != 0 && mode != 1) || type != 0) return 3;
	d->pad_h = ph, d->pad_w = pw, d->u = u, d->v = v, d->dh = dh, d->dw = dw, d->mode = mode;
	return 0;
}
int cudnnSetConvolutionMathType(ddesc *d, int m) { if (d->kind != 3 || m < 0 || m > 3) return 3; d->math = m; return 0; }

// geometry checks x (N×C×H×W), w (O×C×K×K, square), conv and y (the
// output size cuDNN's formula gives) agree, and fills geo.
static int geometry(ddesc *x, ddesc *w, ddesc *c, ddesc *y, int *geo) {
	if (!x || !w || !c || !y || x->kind != 1 || w->kind != 2 || c->kind != 3 || y->kind != 1) return 3;
	if (w->c != x->c || w->h != w->w || c->pad_h != c->pad_w || c->u != c->v || c->dh != 1 || c->dw != 1) return 9;
	int oh = (x->h + 2 * c->pad_h - w->h) / c->u + 1, ow = (x->w + 2 * c->pad_w - w->w) / c->v + 1;
	if (y->n != x->n || y->c != w->n || y->h != oh || y->w != ow) return 3;
	int g[8] = {x->n, x->c, x->h, x->w, w->n, w->h, c->pad_h, c->u};
	memcpy(geo, g, sizeof g);
	return 0;
}
static int rank(int pass, perf *p, int req, int *ret) {
	// a non-deterministic entry; a tensor-op one; fwd's FFT is 4, dx's and
	// dw's 2; the non-fused Winograd, fwd's 7, dx's and dw's 5; one whose
	// workspace does not fit; then the one to take
	perf r[6] = {
		{0, 0, 0.1f, 0, 0, 3, {0}},
		{1, 0, 0.2f, 64, 1, 1, {0}},
		{pass == 0 ? 4 : 2, 0, 0.3f, 0, 1, 3, {0}},
		{pass == 0 ? 7 : 5, 0, 0.35f, 128, 1, 3, {0}},
		{3, 0, 0.4f, (size_t)1 << 40, 1, 3, {0}},
		{1, 0, 0.5f, 4096 * (pass + 1), 1, 3, {0}},
	};
	int n = req < 6 ? req : 6;
	memcpy(p, r, n * sizeof(perf));
	*ret = n;
	return 0;
}
int cudnnGetConvolutionForwardAlgorithm_v7(void *h, ddesc *x, ddesc *w, ddesc *c, ddesc *y, int req, int *ret, perf *p) {
	int geo[8];
	if (current != CTX) return 1;
	return geometry(x, w, c, y, geo) ? 3 : rank(0, p, req, ret);
}
int cudnnGetConvolutionBackwardDataAlgorithm_v7(void *h, ddesc *w, ddesc *dy, ddesc *c, ddesc *dx, int req, int *ret, perf *p) {
	int geo[8];
	if (current != CTX) return 1;
	return geometry(dx, w, c, dy, geo) ? 3 : rank(1, p, req, ret);
}
int cudnnGetConvolutionBackwardFilterAlgorithm_v7(void *h, ddesc *x, ddesc *dy, ddesc *c, ddesc *dw, int req, int *ret, perf *p) {
	int geo[8];
	if (current != CTX) return 1;
	return geometry(x, dw, c, dy, geo) ? 3 : rank(2, p, req, ret);
}
static int conv(int pass, void *h, const float *alpha, ddesc *x, ddesc *w, ddesc *c, ddesc *y, int algo, void *ws, size_t wsb,
                const float *beta, const void *a, const void *b, void *out) {
	op o = {0};
	if (current != CTX || h != (void *)0xd77 || dnn_stream != STREAM) return 1;
	if (c->math != 3) return 9; // CUDNN_FMA_MATH, set before any call
	if (geometry(x, w, c, y, o.geo)) return 3;
	// algorithm 1 needs rank's workspace; 0 (the non-deterministic one) none
	if (algo != 0 && algo != 1) return 9;
	if (algo == 1 && (wsb < (size_t)(4096 * (pass + 1)) || ws == NULL || !on_device(ws, wsb))) return 3;
	op *q = enqueue(DNN);
	memcpy(q->geo, o.geo, sizeof o.geo);
	q->pass = pass, q->alpha = *alpha, q->beta = *beta, q->src = a, q->src2 = b, q->dst = out, q->v = c->mode;
	return 0;
}
int cudnnConvolutionForward(void *h, const float *alpha, ddesc *xd, const void *x, ddesc *wd, const void *w, ddesc *c, int algo,
                            void *ws, size_t wsb, const float *beta, ddesc *yd, void *y) {
	return conv(0, h, alpha, xd, wd, c, yd, algo, ws, wsb, beta, x, w, y);
}
int cudnnConvolutionBackwardData(void *h, const float *alpha, ddesc *wd, const void *w, ddesc *dyd, const void *dy, ddesc *c, int algo,
                                 void *ws, size_t wsb, const float *beta, ddesc *dxd, void *dx) {
	return conv(1, h, alpha, dxd, wd, c, dyd, algo, ws, wsb, beta, w, dy, dx);
}
int cudnnConvolutionBackwardFilter(void *h, const float *alpha, ddesc *xd, const void *x, ddesc *dyd, const void *dy, ddesc *c, int algo,
                                   void *ws, size_t wsb, const float *beta, ddesc *dwd, void *dw) {
	return conv(2, h, alpha, xd, dwd, c, dyd, algo, ws, wsb, beta, x, dy, dw);
}
int cudnnAddTensor(void *h, const float *alpha, ddesc *ad, const void *a, const float *beta, ddesc *cd, void *c) {
	if (current != CTX || h != (void *)0xd77 || dnn_stream != STREAM) return 1;
	if (!ad || !cd || ad->kind != 1 || cd->kind != 1 || ad->n != 1 || ad->c != cd->c || ad->h != 1 || ad->w != 1) return 3;
	op *q = enqueue(DNN);
	int g[8] = {cd->n, cd->c, cd->h, cd->w, 0, 0, 0, 0};
	memcpy(q->geo, g, sizeof g);
	q->pass = 3, q->alpha = *alpha, q->beta = *beta, q->src = a, q->dst = c;
	return 0;
}

// dnn runs a queued cuDNN call on the host: out = α·f(a, b) + β·out, f
// the pass's sum over the cross-correlation's taps (the filter flipped in
// CUDNN_CONVOLUTION mode, o->v == 0).
static void dnn(op *o) {
	int N = o->geo[0], C = o->geo[1], H = o->geo[2], W = o->geo[3], O = o->geo[4], K = o->geo[5], P = o->geo[6], S = o->geo[7];
	float *out = o->dst;
	if (o->pass == 3) {
		const float *b = o->src;
		for (long i = 0; i < (long)N * C * H * W; i++) out[i] = o->alpha * b[(i / (H * W)) % C] + o->beta * out[i];
		return;
	}
	int OH = (H + 2 * P - K) / S + 1, OW = (W + 2 * P - K) / S + 1;
	long outN = o->pass == 0 ? (long)N * O * OH * OW : o->pass == 1 ? (long)N * C * H * W : (long)O * C * K * K;
	double *acc = calloc(outN, sizeof(double));
	const float *a = o->src, *b = o->src2;
	for (int n = 0; n < N; n++)
		for (int oc = 0; oc < O; oc++)
			for (int oy = 0; oy < OH; oy++)
				for (int ox = 0; ox < OW; ox++)
					for (int c = 0; c < C; c++)
						for (int ky = 0; ky < K; ky++)
							for (int kx = 0; kx < K; kx++) {
								int iy = oy * S - P + ky, ix = ox * S - P + kx;
								if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
								int fy = o->v ? ky : K - 1 - ky, fx = o->v ? kx : K - 1 - kx;
								long xi = (((long)n * C + c) * H + iy) * W + ix, wi = (((long)oc * C + c) * K + fy) * K + fx;
								long yi = (((long)n * O + oc) * OH + oy) * OW + ox;
								if (o->pass == 0) acc[yi] += (double)a[xi] * b[wi];      // a = x, b = w
								else if (o->pass == 1) acc[xi] += (double)a[wi] * b[yi]; // a = w, b = dy
								else acc[wi] += (double)a[xi] * b[yi];                   // a = x, b = dy
							}
	for (long i = 0; i < outN; i++) out[i] = o->alpha * (float)acc[i] + o->beta * out[i];
	free(acc);
}
