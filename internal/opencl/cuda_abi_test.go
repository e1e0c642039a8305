package opencl

import (
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// The CUDA bindings against NVIDIA's headers (cuda_lib.go names the
// sources: the CUDA 12.6 headers of zspace/system.cuda-12.6 (commit b3d92c8), and
// cudarc@78d9b31's per-version bindgen output, identical for every
// function and constant below from 11.4 through 13.2). Nothing here needs
// a GPU: a wrong symbol, width, order or count, or enum value fails here
// rather than in the one short run on real hardware.

// cudaHeaderPrototypes is every bound function as the headers declare it,
// under the symbol its name expands to (the CUDAAPI/CUBLASWINAPI
// decorations dropped), with its file:line in the 12.6 headers (and the
// line of the #define that renames it).
var cudaHeaderPrototypes = []struct{ where, proto string }{
	// cuda.h
	{"cuda.h:4688", "CUresult cuGetErrorName(CUresult error, const char **pStr)"},
	{"cuda.h:4721", "CUresult cuInit(unsigned int Flags)"},
	{"cuda.h:4759", "CUresult cuDriverGetVersion(int *driverVersion)"},
	{"cuda.h:4802", "CUresult cuDeviceGet(CUdevice *device, int ordinal)"},
	{"cuda.h:4831", "CUresult cuDeviceGetCount(int *count)"},
	{"cuda.h:4863", "CUresult cuDeviceGetName(char *name, int len, CUdevice dev)"},
	{"cuda.h:4983 (#define cuDeviceTotalMem cuDeviceTotalMem_v2, line 89)", "CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)"},
	{"cuda.h:5240", "CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)"},
	{"cuda.h:5596", "CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)"},
	{"cuda.h:5637 (line 144)", "CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)"},
	{"cuda.h:6387", "CUresult cuCtxSetCurrent(CUcontext ctx)"},
	{"cuda.h:7274", "CUresult cuModuleLoadData(CUmodule *module, const void *image)"},
	{"cuda.h:7385", "CUresult cuModuleUnload(CUmodule hmod)"},
	{"cuda.h:7441", "CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)"},
	{"cuda.h:8518 (line 95)", "CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)"},
	{"cuda.h:8617 (line 97)", "CUresult cuMemFree_v2(CUdeviceptr dptr)"},
	{"cuda.h (no _v2 rename)", "CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)"},
	{"cuda.h (no _v2 rename)", "CUresult cuMemFreeHost(void *p)"},
	{"cuda.h:10480 (line 114)", "CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream)"},
	{"cuda.h:10521 (line 115)", "CUresult cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)"},
	{"cuda.h:10562 (line 116)", "CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)"},
	{"cuda.h:11352 (no _v2; _ptsz only with per-thread streams, line 179)", "CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream)"},
	{"cuda.h:14418", "CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)"},
	{"cuda.h:15323", "CUresult cuStreamSynchronize(CUstream hStream)"},
	{"cuda.h:15353 (line 135)", "CUresult cuStreamDestroy_v2(CUstream hStream)"},
	{"cuda.h:16691", "CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)"},
	{"cuda.h:16875 (12.4+)", "CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset, size_t *paramSize)"},
	{"cuda.h:17038", "CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra)"},
	// nvrtc.h
	{"nvrtc.h:69", "const char * nvrtcGetErrorString(nvrtcResult result)"},
	{"nvrtc.h:93", "nvrtcResult nvrtcVersion(int *major, int *minor)"},
	{"nvrtc.h:181", "nvrtcResult nvrtcCreateProgram(nvrtcProgram *prog, const char *src, const char *name, int numHeaders, const char * const *headers, const char * const *includeNames)"},
	{"nvrtc.h:200", "nvrtcResult nvrtcDestroyProgram(nvrtcProgram *prog)"},
	{"nvrtc.h:224", "nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int numOptions, const char * const *options)"},
	{"nvrtc.h:244", "nvrtcResult nvrtcGetPTXSize(nvrtcProgram prog, size_t *ptxSizeRet)"},
	{"nvrtc.h:261", "nvrtcResult nvrtcGetPTX(nvrtcProgram prog, char *ptx)"},
	{"nvrtc.h:280", "nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, size_t *cubinSizeRet)"},
	{"nvrtc.h:299", "nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *cubin)"},
	{"nvrtc.h:424", "nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram prog, size_t *logSizeRet)"},
	{"nvrtc.h:441", "nvrtcResult nvrtcGetProgramLog(nvrtcProgram prog, char *log)"},
	// cublas_api.h (names per cublas_v2.h lines 71-78, 243)
	{"cublas_api.h:226", "cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)"},
	{"cublas_api.h:228", "cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)"},
	{"cublas_api.h:232", "cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value)"},
	{"cublas_api.h:240", "cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId)"},
	{"cublas_api.h:246", "cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode)"},
	{"cublas_api.h:254", "cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)"},
	{"cublas_api.h:3048", "cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k, const float *alpha, const float *A, int lda, const float *B, int ldb, const float *beta, float *C, int ldc)"},
	// cuDNN 8.9–9.2.1 (cudnn_graph.h, cudnn_ops.h, cudnn_cnn.h; the lines
	// of cudarc@78d9b31 src/cudnn/sys/mod.rs, one declaration for every
	// version it binds)
	{"mod.rs:3672", "size_t cudnnGetVersion(void)"},
	{"mod.rs:3284", "const char * cudnnGetErrorString(cudnnStatus_t status)"},
	{"mod.rs:2655", "cudnnStatus_t cudnnCreate(cudnnHandle_t *handle)"},
	{"mod.rs:2734", "cudnnStatus_t cudnnDestroy(cudnnHandle_t handle)"},
	{"mod.rs:4565", "cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t streamId)"},
	{"mod.rs:2718", "cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *tensorDesc)"},
	{"mod.rs:2774", "cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t tensorDesc)"},
	{"mod.rs:4572", "cudnnStatus_t cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t tensorDesc, cudnnTensorFormat_t format, cudnnDataType_t dataType, int n, int c, int h, int w)"},
	{"mod.rs:2678", "cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *filterDesc)"},
	{"mod.rs:2751", "cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t filterDesc)"},
	{"mod.rs:4408", "cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t filterDesc, cudnnDataType_t dataType, cudnnTensorFormat_t format, int k, int c, int h, int w)"},
	{"mod.rs:2672", "cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *convDesc)"},
	{"mod.rs:2747", "cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t convDesc)"},
	{"mod.rs:4368", "cudnnStatus_t cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t convDesc, int pad_h, int pad_w, int u, int v, int dilation_h, int dilation_w, cudnnConvolutionMode_t mode, cudnnDataType_t computeType)"},
	{"mod.rs:4383", "cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t mathType)"},
	{"mod.rs:3228", "cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(cudnnHandle_t handle, cudnnTensorDescriptor_t srcDesc, cudnnFilterDescriptor_t filterDesc, cudnnConvolutionDescriptor_t convDesc, cudnnTensorDescriptor_t destDesc, int requestedAlgoCount, int *returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t *perfResults)"},
	{"mod.rs:3182", "cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(cudnnHandle_t handle, cudnnFilterDescriptor_t filterDesc, cudnnTensorDescriptor_t diffDesc, cudnnConvolutionDescriptor_t convDesc, cudnnTensorDescriptor_t gradDesc, int requestedAlgoCount, int *returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t *perfResults)"},
	{"mod.rs:3205", "cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(cudnnHandle_t handle, cudnnTensorDescriptor_t srcDesc, cudnnTensorDescriptor_t diffDesc, cudnnConvolutionDescriptor_t convDesc, cudnnFilterDescriptor_t gradDesc, int requestedAlgoCount, int *returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t *perfResults)"},
	{"mod.rs:2635", "cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t handle, const void *alpha, cudnnTensorDescriptor_t xDesc, const void *x, cudnnFilterDescriptor_t wDesc, const void *w, cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionFwdAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *beta, cudnnTensorDescriptor_t yDesc, void *y)"},
	{"mod.rs:2585", "cudnnStatus_t cudnnConvolutionBackwardData(cudnnHandle_t handle, const void *alpha, cudnnFilterDescriptor_t wDesc, const void *w, cudnnTensorDescriptor_t dyDesc, const void *dy, cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionBwdDataAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *beta, cudnnTensorDescriptor_t dxDesc, void *dx)"},
	{"mod.rs:2600", "cudnnStatus_t cudnnConvolutionBackwardFilter(cudnnHandle_t handle, const void *alpha, cudnnTensorDescriptor_t xDesc, const void *x, cudnnTensorDescriptor_t dyDesc, const void *dy, cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionBwdFilterAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *beta, cudnnFilterDescriptor_t dwDesc, void *dw)"},
	{"mod.rs:2364", "cudnnStatus_t cudnnAddTensor(cudnnHandle_t handle, const void *alpha, cudnnTensorDescriptor_t aDesc, const void *A, const void *beta, cudnnTensorDescriptor_t cDesc, void *C)"},
}

// cudaDevicePointers are the pointer parameters that point into device
// memory: the Go side passes them as 64-bit device addresses (uint64).
var cudaDevicePointers = map[string]bool{"cublasSgemm_v2.A": true, "cublasSgemm_v2.B": true, "cublasSgemm_v2.C": true,
	"cudnnConvolutionForward.x": true, "cudnnConvolutionForward.w": true, "cudnnConvolutionForward.y": true, "cudnnConvolutionForward.workSpace": true,
	"cudnnConvolutionBackwardData.w": true, "cudnnConvolutionBackwardData.dy": true, "cudnnConvolutionBackwardData.dx": true, "cudnnConvolutionBackwardData.workSpace": true,
	"cudnnConvolutionBackwardFilter.x": true, "cudnnConvolutionBackwardFilter.dy": true, "cudnnConvolutionBackwardFilter.dw": true, "cudnnConvolutionBackwardFilter.workSpace": true,
	"cudnnAddTensor.A": true, "cudnnAddTensor.C": true}

// cTypeSizes are the sizes (bytes, LP64) of the C types the prototypes
// use; every handle is a pointer to an opaque struct (cuda.h 12.6 lines
// 261-279: CUdeviceptr is unsigned long long, CUdevice an int).
var cTypeSizes = map[string]uintptr{
	"int": 4, "unsigned int": 4, "float": 4, "char": 1, "void": 0,
	"size_t": 8, "CUdeviceptr": 8,
	"CUdevice": 4, "CUresult": 4, "CUdevice_attribute": 4, "CUfunction_attribute": 4,
	"nvrtcResult": 4, "cublasStatus_t": 4, "cublasOperation_t": 4, "cublasMath_t": 4,
	"cublasPointerMode_t": 4, "libraryPropertyType": 4,
	"CUcontext": 8, "CUstream": 8, "CUmodule": 8, "CUfunction": 8,
	"nvrtcProgram": 8, "cublasHandle_t": 8, "cudaStream_t": 8,
	"cudnnStatus_t": 4, "cudnnTensorFormat_t": 4, "cudnnDataType_t": 4, "cudnnConvolutionMode_t": 4, "cudnnMathType_t": 4,
	"cudnnConvolutionFwdAlgo_t": 4, "cudnnConvolutionBwdDataAlgo_t": 4, "cudnnConvolutionBwdFilterAlgo_t": 4,
	"cudnnHandle_t": 8, "cudnnTensorDescriptor_t": 8, "cudnnFilterDescriptor_t": 8, "cudnnConvolutionDescriptor_t": 8,
	// the three algorithm perf structs (cudnn_cnn.h: algo, status, time,
	// memory, determinism, mathType, reserved[3]; bindgen's layout test,
	// mod.rs: 48 bytes)
	"cudnnConvolutionFwdAlgoPerf_t": 48, "cudnnConvolutionBwdDataAlgoPerf_t": 48, "cudnnConvolutionBwdFilterAlgoPerf_t": 48,
}

var cHandles = map[string]bool{"CUcontext": true, "CUstream": true, "CUmodule": true, "CUfunction": true, "nvrtcProgram": true, "cublasHandle_t": true, "cudaStream_t": true,
	"cudnnHandle_t": true, "cudnnTensorDescriptor_t": true, "cudnnFilterDescriptor_t": true, "cudnnConvolutionDescriptor_t": true}

// cParam splits a C parameter (or return type) into its base type and its
// pointer depth, dropping const and the name.
func cParam(s string) (base string, ptrs int, name string) {
	s = strings.ReplaceAll(s, "*", " * ")
	var words []string
	for _, w := range strings.Fields(s) {
		switch w {
		case "const":
		case "*":
			ptrs++
		default:
			words = append(words, w)
		}
	}
	if len(words) > 1 && !(len(words) == 2 && words[0] == "unsigned" && words[1] == "int") {
		name, words = words[len(words)-1], words[:len(words)-1]
	}
	return strings.Join(words, " "), ptrs, name
}

// checkCType reports how Go type g fails to carry C type base with ptrs
// levels of indirection through purego ("" when it does).
func checkCType(g reflect.Type, base string, ptrs int, devicePtr bool) string {
	size, known := cTypeSizes[base]
	if !known {
		return "unknown C type " + base
	}
	switch {
	case ptrs == 0 && (base == "int" || base == "CUdevice"):
		if g.Kind() != reflect.Int32 {
			return "want int32"
		}
	case ptrs == 0 && base == "unsigned int":
		if g.Kind() != reflect.Uint32 {
			return "want uint32"
		}
	case ptrs == 0 && base == "char":
		if g.Kind() != reflect.Uint8 && g.Kind() != reflect.Int8 {
			return "want a byte"
		}
	case ptrs == 0 && base == "float":
		if g.Kind() != reflect.Float32 {
			return "want float32"
		}
	case ptrs == 0 && cHandles[base]:
		if g.Kind() != reflect.Uintptr && g.Kind() != reflect.UnsafePointer {
			return "want a pointer-sized handle (uintptr)"
		}
	case ptrs == 0 && size == 48: // a cuDNN perf struct, read through a pointer
		if g != reflect.TypeOf(cudnnAlgoPerf{}) || g.Size() != 48 {
			return "want cudnnAlgoPerf (48 bytes)"
		}
	case ptrs == 0 && base == "void": // what a void * points to: any Go type
	case ptrs == 0 && (base == "size_t" || base == "CUdeviceptr"):
		if (g.Kind() != reflect.Uintptr && g.Kind() != reflect.Uint64) || g.Size() != 8 {
			return "want a 64-bit unsigned integer"
		}
	case ptrs == 0: // a 32-bit enum
		if (g.Kind() != reflect.Int32 && g.Kind() != reflect.Uint32) || g.Size() != size {
			return "want a 32-bit integer (enum)"
		}
	case devicePtr:
		if g.Kind() != reflect.Uint64 {
			return "want a device address (uint64)"
		}
	case g.Kind() == reflect.UnsafePointer:
		// any pointer
	case g.Kind() == reflect.Pointer:
		return checkCType(g.Elem(), base, ptrs-1, false)
	case ptrs == 1 && base == "char" && g.Kind() == reflect.String:
		// purego passes/returns a NUL-terminated copy
	default:
		return "want a pointer"
	}
	return ""
}

func TestCUDABindingsMatchHeaders(t *testing.T) {
	var bound []symbol
	for _, syms := range [][]symbol{cudaSymbols(), cudaOptionalSymbols(), cudaHostSymbols(), nvrtcSymbols(), cublasSymbols(), cudnnSymbols()} {
		bound = append(bound, syms...)
	}
	protos, where := map[string]string{}, map[string]string{}
	var want []string
	for _, p := range cudaHeaderPrototypes {
		name := strings.Fields(strings.ReplaceAll(p.proto[:strings.Index(p.proto, "(")], "*", " * "))
		n := name[len(name)-1]
		protos[n], where[n] = p.proto, p.where
		want = append(want, n)
	}
	var names []string
	for _, s := range bound {
		names = append(names, s.name)
		proto, ok := protos[s.name]
		if !ok {
			t.Errorf("%s is bound but is no symbol the headers declare (a plain name that cuda.h/cublas_v2.h remaps to _v2?)", s.name)
			continue
		}
		open, close := strings.Index(proto, "("), strings.LastIndex(proto, ")")
		retAndName := strings.Fields(strings.ReplaceAll(proto[:open], "*", " * "))
		if retAndName[len(retAndName)-1] != s.name {
			t.Errorf("%s: prototype %q names another function", s.name, proto)
		}
		fn := reflect.TypeOf(s.fn).Elem()
		if fn.Kind() != reflect.Func {
			t.Fatalf("%s: bound to a %v", s.name, fn)
		}
		params := strings.Split(proto[open+1:close], ",")
		if strings.TrimSpace(proto[open+1:close]) == "void" {
			params = nil
		}
		if fn.NumIn() != len(params) {
			t.Errorf("%s: Go binding takes %d arguments, the header (%s) %d: %s", s.name, fn.NumIn(), where[s.name], len(params), proto)
			continue
		}
		for i, p := range params {
			base, ptrs, pname := cParam(p)
			if why := checkCType(fn.In(i), base, ptrs, cudaDevicePointers[s.name+"."+pname]); why != "" {
				t.Errorf("%s argument %d (%s, %s): Go %v: %s", s.name, i, strings.TrimSpace(p), where[s.name], fn.In(i), why)
			}
		}
		rbase, rptrs, _ := cParam(strings.Join(retAndName[:len(retAndName)-1], " ") + " x")
		if fn.NumOut() != 1 {
			t.Errorf("%s: Go binding returns %d values", s.name, fn.NumOut())
		} else if why := checkCType(fn.Out(0), rbase, rptrs, false); why != "" {
			t.Errorf("%s result (%s, %s): Go %v: %s", s.name, rbase, where[s.name], fn.Out(0), why)
		}
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("bound symbols %v, want exactly %v", names, want)
	}
	// The names cuda.h 12.6 (lines 89-144) and CUDA 13 remap: binding the
	// plain one gets the old ABI.
	for _, plain := range []string{"cuDeviceTotalMem", "cuMemAlloc", "cuMemFree", "cuMemcpyHtoDAsync", "cuMemcpyDtoHAsync",
		"cuMemcpyDtoDAsync", "cuStreamDestroy", "cuDevicePrimaryCtxRelease", "cuCtxCreate", "cublasCreate", "cublasDestroy",
		"cublasSetStream", "cublasSetPointerMode", "cublasSgemm"} {
		if slices.Contains(names, plain) {
			t.Errorf("%s is bound under its plain name", plain)
		}
	}
}

// TestCUDAABISizes: the handle types and the Go widths the checks above
// assume (64-bit only: size_t and pointers are 8 bytes).
func TestCUDAABISizes(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the CUDA driver is bound for 64-bit platforms only")
	}
	for _, c := range []struct {
		name string
		got  uintptr
		want uintptr
	}{
		{"cuDevice (CUdevice: int)", unsafe.Sizeof(cuDevice(0)), 4},
		{"cuContext", unsafe.Sizeof(cuContext(0)), 8},
		{"cuStream", unsafe.Sizeof(cuStream(0)), 8},
		{"cuModule", unsafe.Sizeof(cuModule(0)), 8},
		{"cuFunction", unsafe.Sizeof(cuFunction(0)), 8},
		{"nvrtcProg", unsafe.Sizeof(nvrtcProg(0)), 8},
		{"cublasH", unsafe.Sizeof(cublasH(0)), 8},
		{"clMem (CUdeviceptr: unsigned long long)", unsafe.Sizeof(clMem(0)), 8},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d bytes, want %d", c.name, c.got, c.want)
		}
	}
}

// TestCUDAConstantsMatchHeaders: every enum value the driver passes or
// compares, against the headers (CUDA 12.6 file:line; the same values in
// cudarc's bindings of 13.0, 13.1 and 13.2).
func TestCUDAConstantsMatchHeaders(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want int64
		where     string
	}{
		{"CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK", cuDevAttrMaxThreadsPerBlock, 1, "cuda.h:702"},
		{"CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK", cuDevAttrMaxSharedPerBlock, 8, "cuda.h:709"},
		{"CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT", cuDevAttrMultiprocessorCount, 16, "cuda.h:719"},
		{"CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR", cuDevAttrComputeCapabilityMaj, 75, "cuda.h:781"},
		{"CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR", cuDevAttrComputeCapabilityMin, 76, "cuda.h:782"},
		{"CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK", cuFuncAttrMaxThreadsPerBlock, 0, "cuda.h:898"},
		{"CU_STREAM_DEFAULT", cuStreamDefault, 0, "cuda.h:415"},
		{"CUDA_ERROR_INVALID_VALUE", cuErrorInvalidValue, 1, "cuda.h:2354"},
		{"NVRTC_ERROR_INVALID_OPTION", nvrtcErrorInvalidOption, 5, "nvrtc.h:47"},
		{"CUBLAS_OP_N", cublasOpN, 0, "cublas_api.h:113"},
		{"CUBLAS_OP_T", cublasOpT, 1, "cublas_api.h:114"},
		{"CUBLAS_POINTER_MODE_HOST", cublasPointerModeHost, 0, "cublas_api.h:120"},
		// DEFAULT_MATH (0) is not CUBLAS_TF32_TENSOR_OP_MATH (3, line 184):
		// no TF32 for cublasSgemm.
		{"CUBLAS_DEFAULT_MATH", cublasDefaultMath, 0, "cublas_api.h:174"},
		{"MAJOR_VERSION", libPropMajorVersion, 0, "library_types.h:94"},
		{"MINOR_VERSION", libPropMinorVersion, 1, "library_types.h:95"},
		// cuDNN (cudarc@78d9b31 src/cudnn/sys/mod.rs, 8.9 to 9.2.1)
		{"CUDNN_TENSOR_NCHW", cudnnTensorNCHW, 0, "mod.rs:2088"},
		{"CUDNN_DATA_FLOAT", cudnnDataFloat, 0, "mod.rs:1426"},
		{"CUDNN_CROSS_CORRELATION", cudnnCrossCorrelation, 1, "mod.rs:1420"},
		{"CUDNN_DEFAULT_MATH", cudnnDefaultMath, 0, "mod.rs:1647"},
		{"CUDNN_TENSOR_OP_MATH", cudnnTensorOpMath, 1, "mod.rs:1648"},
		{"CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION", cudnnTensorOpMathAllow, 2, "mod.rs:1649"},
		{"CUDNN_FMA_MATH", cudnnFMAMath, 3, "mod.rs:1650"},
		{"CUDNN_DETERMINISTIC", cudnnDeterministic, 1, "mod.rs:1495"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, the header (%s) says %d", c.name, c.got, c.where, c.want)
		}
	}
	// cublasStatus_t, cublas_api.h:94-103: the whole enum.
	wantStatus := map[int32]string{
		0: "CUBLAS_STATUS_SUCCESS", 1: "CUBLAS_STATUS_NOT_INITIALIZED", 3: "CUBLAS_STATUS_ALLOC_FAILED",
		7: "CUBLAS_STATUS_INVALID_VALUE", 8: "CUBLAS_STATUS_ARCH_MISMATCH", 11: "CUBLAS_STATUS_MAPPING_ERROR",
		13: "CUBLAS_STATUS_EXECUTION_FAILED", 14: "CUBLAS_STATUS_INTERNAL_ERROR", 15: "CUBLAS_STATUS_NOT_SUPPORTED",
		16: "CUBLAS_STATUS_LICENSE_ERROR",
	}
	// Each pass's FFT and non-fused Winograd algorithms (mod.rs:1382-1417:
	// fwd FFT 4, FFT_TILING 5, WINOGRAD_NONFUSED 7; bwd data FFT 2,
	// FFT_TILING 3, WINOGRAD_NONFUSED 5; bwd filter FFT 2, WINOGRAD_NONFUSED
	// 5, FFT_TILING 6).
	wantExcluded := map[ConvPath][]int32{ConvImplicitForward: {4, 5, 7}, ConvImplicitInput: {2, 3, 5}, ConvImplicitFilter: {2, 5, 6}}
	if !reflect.DeepEqual(cudnnExcluded, wantExcluded) {
		t.Errorf("cudnnExcluded = %v, want %v", cudnnExcluded, wantExcluded)
	}
	if !reflect.DeepEqual(cublasStatusNames, wantStatus) {
		t.Errorf("cublasStatusNames = %v, want %v", cublasStatusNames, wantStatus)
	}
	// The CUresults cuda.h says leave the process "in an inconsistent state"
	// ("the process must be terminated and relaunched"; 710: "the context
	// cannot be used anymore"), cuda.h:2649-2786 — and only those.
	wantSticky := map[int32]string{
		700: "CUDA_ERROR_ILLEGAL_ADDRESS",       // cuda.h:2649
		702: "CUDA_ERROR_LAUNCH_TIMEOUT",        // cuda.h:2670
		710: "CUDA_ERROR_ASSERT",                // cuda.h:2711
		714: "CUDA_ERROR_HARDWARE_STACK_ERROR",  // cuda.h:2739
		715: "CUDA_ERROR_ILLEGAL_INSTRUCTION",   // cuda.h:2747
		716: "CUDA_ERROR_MISALIGNED_ADDRESS",    // cuda.h:2756
		717: "CUDA_ERROR_INVALID_ADDRESS_SPACE", // cuda.h:2767
		718: "CUDA_ERROR_INVALID_PC",            // cuda.h:2775
		719: "CUDA_ERROR_LAUNCH_FAILED",         // cuda.h:2786
	}
	if !reflect.DeepEqual(cudaStickyErrors, wantSticky) {
		t.Errorf("cudaStickyErrors = %v, want %v", cudaStickyErrors, wantSticky)
	}
}

// TestNVRTCOptionsAreDocumented: every option the driver gives NVRTC is
// spelled as nvrtc.h's "Supported Compile Options" (12.6 lines 496-700;
// the same spellings cuda-python's ProgramOptions passes), and the
// architecture of an H100/H200 (sm_90) is one NVRTC 13 still targets (13.0
// dropped sm_50 to sm_72 only).
func TestNVRTCOptionsAreDocumented(t *testing.T) {
	documented := []*regexp.Regexp{
		regexp.MustCompile(`^--gpu-architecture=(sm|compute)_(75|80|86|87|89|90|90a|100|100a|103|110|120|121)$`), // line 519, 13.x's list
		regexp.MustCompile(`^--fmad=(true|false)$`),                                                              // 607
		regexp.MustCompile(`^--prec-div=(true|false)$`),                                                          // 602
		regexp.MustCompile(`^--prec-sqrt=(true|false)$`),                                                         // 597
		regexp.MustCompile(`^--ftz=(true|false)$`),                                                               // 592
		regexp.MustCompile(`^--std=c\+\+(03|11|14|17|20)$`),                                                      // 668
		regexp.MustCompile(`^--device-as-default-execution-space$`),                                              // 687
		regexp.MustCompile(`^-D[A-Za-z_][A-Za-z0-9_]*(=\S*)?$`),                                                  // 646 and 509-514: "-D<def>"
	}
	opts := append(CUDAOptionsFromCL("-DLLPFC_FP64 -D CONV_TM=64 -cl-fp32-correctly-rounded-divide-sqrt -Werror"),
		cudaArch(9, 0, false), cudaArch(9, 0, true), cudaArch(8, 0, false))
	for _, o := range opts {
		ok := false
		for _, re := range documented {
			ok = ok || re.MatchString(o)
		}
		if !ok {
			t.Errorf("NVRTC option %q is not spelled as nvrtc.h documents it", o)
		}
	}
	if got := cudaArch(9, 0, false); got != "--gpu-architecture=sm_90" {
		t.Errorf("H200's target = %q", got)
	}
}
