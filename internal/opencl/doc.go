// Package opencl is llpfc's OpenCL compute layer: the runtime binding
// (platforms, devices, one context with one in-order queue, float32 buffers,
// programs and kernels), CLBlast's SGEMM, and the kernel library that the
// OpenCL back end of the device seam maps gorgonia's graphs onto.
//
// # Loading without cgo
//
// The OpenCL ICD loader (libOpenCL.so.1, Debian package ocl-icd-libopencl1)
// and CLBlast (libclblast.so.1, package libclblast1) are opened at run time
// with github.com/ebitengine/purego, so the package builds with
// CGO_ENABLED=0 and a binary without OpenCL installed runs and reports the
// missing file only when a device is asked for. LLPFC_OPENCL_LIB and
// LLPFC_CLBLAST_LIB override the two file names (a path or a soname);
// OCL_ICD_FILENAMES, read by the ICD loader itself, points it at a vendor's
// driver without a vendors file. A machine with a C compiler and the default
// CGO_ENABLED=1 links runtime/cgo instead of purego's fakecgo (purego
// imports it); both work.
//
// # Why a hand-written binding
//
// No well-kept OpenCL binding for Go works without cgo and is served by the
// module proxy: github.com/opencl-pure/pureCL and middleCL (purego-based
// forks of github.com/Zyko0/go-opencl) are small single-author projects,
// neither is served by proxy.golang.org (403 when asked), and none binds
// CLBlast; the older bindings (github.com/samuel/go-opencl/cl and its
// forks) need cgo and the OpenCL headers. The part of the API used here is
// about thirty functions, declared in lib.go with their C signatures.
//
// # The kernel library
//
// The OpenCL C kernels (kernels/*.cl, embedded) are built once per Context
// as one program: PoCL, the CPU implementation CI tests on, compiles every
// program with LLVM on first use (tens of seconds) and caches the result
// under POCL_CACHE_DIR (default ~/.cache/pocl). Every launch uses a fixed
// work-group size (64 for element-wise kernels, 256 or the kernel's maximum
// for reductions), because PoCL also compiles one work-group function per
// kernel and local size. Accumulations run in double where the device has
// cl_khr_fp64 (the CPU engine accumulates in float64) and in float
// otherwise. A reduction with few outputs of many values each (batch
// norm's statistics and gradient sums over 16–256 channels, a
// convolution's bias gradient) runs in two launches: slices of each output
// on about a GPU's wave of work-groups (channelSlices), then their partial
// results merged in a fixed order, so that one work-group an output does
// not leave most of a large GPU idle; floating-point contraction is off, so a·x + b is rounded twice
// as in Go. Lib's methods are typed wrappers, one per operation, each
// checking its shapes before it enqueues anything; they return when the
// work is enqueued (Context.Finish waits), and errors carry the OpenCL
// error's name.
//
// # The same kernels under CUDA
//
// The CUDA back end compiles this library too: CUDAKernelSource is the
// OpenCL C of kernels/*.cl behind a prelude (kernels/cuda_prelude.h) that
// makes it CUDA C++ for NVRTC, so one kernel source serves both back ends
// and PoCL, on any machine, keeps testing the code a CUDA GPU runs. The
// prelude maps __kernel to extern "C" __global__ (cuModuleGetFunction finds
// each kernel by its OpenCL name), __local arrays to __shared__, the
// work-item functions to blockIdx·blockDim + threadIdx (grid = global size /
// local size, block = local size), barrier to __syncthreads, the atomics,
// mul_hi, as_int and vstore4 to CUDA's, int8 to a 32-byte struct, and each
// overloaded math built-in to CUDA's float function for a float argument
// (expf, not exp of the promoted double); isnan and the other tests read
// the bits. The few spellings the two languages share no name for are
// macros the .cl files use and 00_common.cl defines for OpenCL: LOCAL_PTR
// (a pointer parameter into local memory), REQD_WG_SIZE (CUDA's
// __launch_bounds__), make_uint2 and make_uint4 (vector literals).
// CUDABuildOptions keeps the OpenCL build's numerics: LLPFC_FP64's double
// accumulators, no contraction (--fmad=false, as FP_CONTRACT OFF), correctly
// rounded division and square root, no flush to zero; and
// --device-as-default-execution-space makes the unannotated helpers device
// functions. Two compilers check the translation without a GPU:
// TestKernelsCompileAsCUDA compiles it with clang's CUDA mode to PTX and
// checks each kernel's entry, its parameters and those numerics in the
// instructions; TestKernelsCompileWithNVRTC has NVRTC itself (Debian's
// 11.8, which needs no GPU) build the sm_90 CUBIN the H200 would load —
// every option accepted, no kernel spilling or keeping a stack frame —
// and checks its PTX the same way outside libdevice's math functions.
//
// # Which op runs where
//
// gorgonia's element-wise unary ops → Lib.Unary (neg, abs, sign, exp, ln,
// inv, sqrt, square, tanh, sigmoid, softplus, log1p); element-wise binary
// ops and the comparisons with retSame (Rectify is x ⊙ (x ≥ 0)) →
// Lib.Binary; repeatOp (the broadcasts) → Lib.Repeat; transposeOp →
// Lib.Transpose; sumOp, maxOp → Lib.Sum, Lib.Max; softmaxOp, softmaxDiffOp
// → Lib.Softmax, Lib.SoftmaxGrad; matMul and matVecMul → Context.Sgemm;
// im2colOp, col2imOp → Lib.Im2col, Lib.Col2im; maxPoolOp, maxPoolDiffOp →
// Lib.MaxPool, Lib.MaxPoolGrad. The project's fused ops: fcLossOp and its
// gradient → Lib.FCLoss, Lib.FCLossGrad; Conv2dIm2col and its gradients →
// Lib.Conv2d, Conv2dGradInput, Conv2dGradFilter, Conv2dGradBias; batch
// norm (bnOp, bnGradOp, bnEvalOp, the sweep, the running averages) →
// Lib.BNForward, BNForwardFixed, BNBackward, BNCollect, BNStats, BNFoldSplit,
// BNFinishSplit, BNEval, BNRunning; the 2×2 pool → Lib.MaxPool2, MaxPool2Grad;
// the optimizers → Lib.SGDStep, Lib.AdamStep; and for the trainer
// Context.Fill, Context.Copy, Lib.Axpy, Lib.Scale, Lib.NonFinite,
// Lib.ArgmaxRows. Reshape is free (a buffer has no shape).
//
// # What a step costs the device
//
// Every command the package enqueues, every wait of the host and every
// buffer it allocates goes through queue.go, which counts them
// (Context.Counts: kernels, CLBlast calls, copies, fills, bytes each way
// per buffer Role, blocking waits, allocations: the costs of a step that do
// not depend on the GPU). Writes do not
// block: the data are staged on the host until the device has them. A
// StepFlag keeps a training run's NaN checks and loss sum on the device
// (CheckFinite, TallyLoss, the optimizers' Guard), read with one blocking
// read; Buffer.ReadAsync reads without waiting (delivered at the next
// wait); AllocGroup makes one allocation of many buffers so one launch
// covers them all; BiasAdd and ReLUMask are a dense layer's bias and
// ReLU in one launch; RowsNormalize, TallyScaled and TallyNegEntropy are
// LLP-VAT's host steps between its passes (ops_glue.go).
//
// # The products' parameters
//
// CLBlast chooses its SGEMM's tiles from a database by device.
// Context.OverrideGEMM hands it others (CLBlastOverrideParameters, bound
// apart so that an older CLBlast still multiplies; GEMMParams.Validate
// first refuses what breaks its kernels' rules or the device's limits),
// and TuneGEMM searches them on the device for a step's product shapes
// (Context.RecordGEMMs records them), each candidate's products checked
// against float64 references.
//
// # The CUDA driver
//
// A Context may also run on NVIDIA's CUDA driver ("cuda", "cuda:N"):
// the same Context, Buffer, Program, Kernel and Lib, with queue.go,
// program.go, clblast.go and context.go handing each command to cuda.go
// after counting it, so Counts mean the same on both. The reason is
// speed where OpenCL is slowest: the products run on cuBLAS, the vendor's
// SGEMM that PyTorch itself calls (fp32 with TF32 off, CUBLAS_DEFAULT_MATH,
// as PyTorch's fp32 with TF32 disabled; a CUDA result's numerics say so),
// where CLBlast's reach a fraction of it on an H200. The kernels are the
// same OpenCL C sources, translated through a prelude (CUDAKernelSource,
// CUDABuildOptions) and compiled by NVRTC for the device's sm_XY (or
// compute_XY PTX the driver compiles, when NVRTC does not know the GPU),
// so PoCL keeps testing the code that runs on the GPU. libcuda.so.1,
// libnvrtc.so.13 (.12, .11.2) and libcublas.so.13 (.12, .11) are opened
// with purego like OpenCL's libraries, also from /usr/local/cuda/lib64,
// the newest the driver supports first (a toolkit newer than its driver
// fails late); LLPFC_CUDA_LIB, LLPFC_NVRTC_LIB and LLPFC_CUBLAS_LIB
// override them.
//
// CUDA binds a context to the calling OS thread while Go moves goroutines
// between threads: every batch of driver calls locks its goroutine to its
// thread and makes the device's primary context current first
// (cudaCtx.bind). A buffer is a device address (a group's buffer its
// parent's plus its offset); a blocking read and Finish synchronise the
// one stream; a buffer's memory is freed after the stream has run dry, as
// OpenCL frees it after the commands that use it. CLBlast's parameters
// (OverrideGEMM, TuneGEMM, the back end's LLPFC_OPENCL_GEMM) are an error
// on CUDA (ErrCUDAGEMM), never a setting silently ignored.
//
// Every transfer goes through page-locked host memory (cuda_pinned.go:
// an arena of cuMemHostAlloc chunks). A copy between the device and
// pageable memory, Go's, is not asynchronous: the driver stages a
// host-to-device copy itself and may wait for the stream to do it, and a
// device-to-host copy returns only when it is done. A step's upload of
// its batch would then drain the GPU's queue, and each ReadAsync would be
// a hidden blocking wait, so that the host's launches of one step would
// never overlap the device's work on the previous one. A write copies the
// caller's data into the arena (the caller may reuse its slice at once)
// and enqueues the copy from there; a ReadAsync copies into the arena,
// and the values reach the caller's slice at the next wait, as on OpenCL;
// a blocking read copies into the arena, waits, and copies out. The arena
// hands no region out twice until the stream has run dry (the next
// blocking read, Finish or wait for staged writes: queue.go's drained),
// so no copy finds its staging reused before it ran, with no event per
// transfer; it then keeps one chunk (at most 64 MiB) for the next step.
// The counts are those of the OpenCL driver for the same calls.
//
// NVRTC compiles the whole library in seconds, in every process that
// opens a CUDA device, so the image it makes (the CUBIN, or the PTX of
// the fallback) is cached on disk (cuda_cache.go): under
// $LLPFC_CUDA_CACHE ("off" turns the cache off), else llpfc/cuda in the
// user's cache folder (~/.cache/llpfc/cuda), one file per SHA-256 of the
// source, NVRTC's options (the architecture among them), NVRTC's
// version, the driver's version and the image's kind: an image is reused
// only for the compile that made it. A file is written atomically and
// holds the image's own SHA-256; one that fails the check, or that
// cuModuleLoadData refuses, is removed and the source compiled again,
// never trusted. The folder keeps the 8 images used last (a hit marks its
// file used; each image cached past that removes the least recently used:
// every version of the library, NVRTC or the driver makes a new one, and
// nothing else would remove the old), and only files of the cache's own
// name and magic are ever removed, so a folder LLPFC_CUDA_CACHE shares
// loses nothing else; the image's log line says how many it removed.
// A cache that cannot be made or written (a read-only
// home) costs the compile and nothing else, silently: it is no fault of
// the run, and a warning on every process's stderr would only crowd the
// run's own messages; Program.CUDAImage and Lib.CUDAImage say where the
// image came from and why it was not cached, for a log. The cache
// changes no number: the image is the one NVRTC makes for the key.
//
// On CUDA the convolutions may also run on NVIDIA's cuDNN (cuda_dnn.go;
// the path ConvCuDNN, LLPFC_OPENCL_CONV=cudnn), the library PyTorch's own
// convolutions call: one cuDNN call a pass, the bias and its gradient
// ours. libcudnn.so.9 (.8) is opened like the others (LLPFC_CUDNN_LIB; the
// sub-libraries cuDNN 9's shim opens by name are preloaded from its
// folder, so a Python wheel's copy works off the loader's path). Its
// numerics are fixed by rule, not left to cuDNN: FMA math (no TF32), and
// per geometry and pass the first algorithm of cuDNN's heuristic ranking
// that is deterministic, neither an FFT nor the non-fused Winograd (their
// larger transforms round more) and within 1 GiB of workspace; the
// workspace is the library's wsA, a buffer like any other
// (CuDNNDeterministic; Context.SetCuDNNAlgos(CuDNNHeuristic) keeps only FMA
// math and the workspace bound, cuDNN's own pick, for timing what the rule
// costs). A result's numerics say "conv cudnn (cuDNN 9.x.y; …)". The fake of the libraries
// has a cuDNN too (the descriptors, the ranking, the calls computed as
// cuDNN documents them).
//
// What is verified without a GPU: the host logic as pure functions (the
// row-major SGEMM as cuBLAS's column-major call against a BLAS reference,
// the launch geometry, the arguments' bytes), and the whole driver path
// against a fake of the three libraries (testdata/fakecuda.c: host
// memory, host kernels, the stream's work run only when the host waits
// for it, every call refused on a thread where the context is not
// current), with the counts of a sequence of calls held to the OpenCL
// driver's on PoCL. What only a GPU verifies is that the real libraries
// behave as the fake: `llpfc devices --check cuda` runs the op checks and
// the parity cases on the device.
//
// What may import it: the training device seam's OpenCL back end and
// cmd/llpfc (llpfc devices). It imports only internal/atomicfile (the
// CUDA cache's writes).
package opencl
