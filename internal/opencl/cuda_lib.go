package opencl

// Provenance of the bindings below (audited 2026-12-02 against NVIDIA's
// headers; cuda_abi_test.go checks every symbol, signature and constant
// against the prototypes quoted from them):
//
//   - cuda.h, nvrtc.h, cublas_api.h, cublas_v2.h, library_types.h of
//     CUDA 12.6: the repository github.com/zspace/system.cuda-12.6 at commit
//     b3d92c837713411301ae5df45b0c7758df7d931e (its include folder, a copy of
//     the toolkit's headers), read 2026-12-02.
//   - CUDA 13.0/13.1/13.2: github.com/chelsea0x3b/cudarc@78d9b3118f6e13c8a0524d34827db5cfe9f7a53d
//     src/driver/sys/mod.rs, src/nvrtc/sys/mod.rs, src/cublas/sys/mod.rs
//     (bindgen output of each toolkit's headers, per version under the
//     cuda-13000/13010/13020 features, so each function appears under the
//     symbol its header's macros expand to), read 2026-12-02. Every bound
//     function and every constant used is present and identical there
//     for 11.4 through 13.2; the CUDA 13 header removed cuCtxCreate_v2/_v3
//     (cuCtxCreate is cuCtxCreate_v4 there), which is not bound.
//   - NVRTC's options: nvrtc.h (12.6) "Supported Compile Options" and
//     NVIDIA/cuda-python@e5b5ea4c7ef2d35ca13d60deb698f3a110a266dd, the
//     cuda.core.experimental._program module of cuda_core (the spellings NVIDIA's
//     own Python API passes to nvrtcCompileProgram), read 2026-12-02.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// The CUDA driver's libraries, opened at run time like OpenCL's (doc.go,
// "The CUDA driver"): the driver API (libcuda.so.1, installed with the
// NVIDIA driver), NVRTC (compiles the kernel library's translated source)
// and cuBLAS (the SGEMM). Each variable overrides its library's file.
const (
	cudaLibEnv    = "LLPFC_CUDA_LIB"
	nvrtcLibEnv   = "LLPFC_NVRTC_LIB"
	cublasLibEnv  = "LLPFC_CUBLAS_LIB"
	cudaLibDir    = "/usr/local/cuda/lib64"
	cudaPackage   = "the NVIDIA driver (libcuda.so.1)"
	nvrtcPackage  = "the CUDA toolkit's NVRTC (libnvrtc.so.13, .12 or .11.2, e.g. under " + cudaLibDir + ")"
	cublasPackage = "the CUDA toolkit's cuBLAS (libcublas.so.13, .12 or .11, e.g. under " + cudaLibDir + ")"
)

// The CUDA handle types. CUdevice is an int; the others are opaque
// pointers, and a device address (CUdeviceptr) is 64 bits.
type (
	cuDevice   int32
	cuContext  uintptr
	cuStream   uintptr
	cuModule   uintptr
	cuFunction uintptr
	nvrtcProg  uintptr
	cublasH    uintptr
)

// cudaAPI holds the driver API's functions (cuda.h). The versioned names
// (_v2) are the ones cuda.h maps the plain names to since CUDA 4 (memory)
// and 11 (the primary context's release); libcuda exports both, and the
// plain ones are the deprecated ABI, so only the _v2 ones are bound.
type cudaAPI struct {
	Init               func(flags uint32) int32
	DriverGetVersion   func(v *int32) int32
	DeviceGetCount     func(n *int32) int32
	DeviceGet          func(d *cuDevice, ordinal int32) int32
	DeviceGetName      func(name *byte, n int32, d cuDevice) int32
	DeviceTotalMem     func(bytes *uint64, d cuDevice) int32
	DeviceGetAttribute func(v *int32, attr int32, d cuDevice) int32
	PrimaryCtxRetain   func(c *cuContext, d cuDevice) int32
	PrimaryCtxRelease  func(d cuDevice) int32
	CtxSetCurrent      func(c cuContext) int32
	StreamCreate       func(s *cuStream, flags uint32) int32
	StreamDestroy      func(s cuStream) int32
	StreamSynchronize  func(s cuStream) int32
	MemAlloc           func(p *uint64, bytes uintptr) int32
	MemFree            func(p uint64) int32
	MemcpyHtoDAsync    func(dst uint64, src unsafe.Pointer, bytes uintptr, s cuStream) int32
	MemcpyDtoHAsync    func(dst unsafe.Pointer, src uint64, bytes uintptr, s cuStream) int32
	MemcpyDtoDAsync    func(dst, src uint64, bytes uintptr, s cuStream) int32
	MemsetD32Async     func(dst uint64, v uint32, n uintptr, s cuStream) int32
	ModuleLoadData     func(m *cuModule, image unsafe.Pointer) int32
	ModuleUnload       func(m cuModule) int32
	ModuleGetFunction  func(f *cuFunction, m cuModule, name *byte) int32
	FuncGetAttribute   func(v *int32, attr int32, f cuFunction) int32
	LaunchKernel       func(f cuFunction, gx, gy, gz, bx, by, bz, shared uint32, s cuStream, params unsafe.Pointer, extra unsafe.Pointer) int32
	GetErrorName       func(code int32, name **byte) int32
	// FuncGetParamInfo (CUDA 12.4 and later) is bound apart: without it a
	// launch's arguments are not checked against the kernel's parameters.
	FuncGetParamInfo func(f cuFunction, index uintptr, offset, size *uintptr) int32
}

// nvrtcAPI holds NVRTC's functions (nvrtc.h).
type nvrtcAPI struct {
	Version           func(major, minor *int32) int32
	CreateProgram     func(p *nvrtcProg, src, name *byte, nHeaders int32, headers, includeNames unsafe.Pointer) int32
	DestroyProgram    func(p *nvrtcProg) int32
	CompileProgram    func(p nvrtcProg, nOptions int32, options unsafe.Pointer) int32
	GetProgramLogSize func(p nvrtcProg, n *uintptr) int32
	GetProgramLog     func(p nvrtcProg, log *byte) int32
	GetCUBINSize      func(p nvrtcProg, n *uintptr) int32
	GetCUBIN          func(p nvrtcProg, out *byte) int32
	GetPTXSize        func(p nvrtcProg, n *uintptr) int32
	GetPTX            func(p nvrtcProg, out *byte) int32
	GetErrorString    func(code int32) string
}

// cublasAPI holds cuBLAS's functions (cublas_api.h, the _v2 API).
type cublasAPI struct {
	Create         func(h *cublasH) int32
	Destroy        func(h cublasH) int32
	SetStream      func(h cublasH, s cuStream) int32
	SetMathMode    func(h cublasH, mode int32) int32
	SetPointerMode func(h cublasH, mode int32) int32
	GetProperty    func(typ int32, v *int32) int32
	Sgemm          func(h cublasH, transa, transb int32, m, n, k int32, alpha *float32, a uint64, lda int32, b uint64, ldb int32, beta *float32, c uint64, ldc int32) int32
}

var (
	cudaOnce   sync.Once
	cu         cudaAPI
	cudaErr    error
	cudaFile   string
	nvrtcOnce  sync.Once
	nvrtc      nvrtcAPI
	nvrtcErr   error
	nvrtcFile  string
	cublasOnce sync.Once
	cublas     cublasAPI
	cublasErr  error
	cublasFile string
)

// libCandidates are the files tried for a library: the environment
// variable's alone when it is set, else each soname as the loader finds it
// and then under /usr/local/cuda/lib64 (where the toolkit installs them,
// often not on the loader's path).
func libCandidates(env string, sonames ...string) []string {
	if v := os.Getenv(env); v != "" {
		return []string{v}
	}
	out := append([]string(nil), sonames...)
	for _, s := range sonames {
		out = append(out, filepath.Join(cudaLibDir, s))
	}
	return out
}

// bindFirst binds syms from the first candidate that opens; the error of
// the last one names every file tried.
func bindFirst(files []string, env, pkg string, syms []symbol, before func(file string)) (string, error) {
	var msgs []string
	for _, f := range files {
		if before != nil {
			before(f)
		}
		err := bindLibrary(f, env, pkg, syms)
		if err == nil {
			return f, nil
		}
		var le *LibraryError
		if errors.As(err, &le) && le.Symbol != "" {
			le.Hint = "install " + pkg
			return f, le // it opened: a library without the function is the answer
		}
		msg := err.Error()
		if le != nil {
			msg = le.Err.Error()
		}
		// dlerror's message starts with the file; it may be empty when
		// the goroutine changed threads between dlopen and dlerror.
		if msg = strings.TrimPrefix(msg, f+": "); msg == "" {
			msg = "cannot be opened"
		}
		msgs = append(msgs, fmt.Sprintf("%s (%s)", f, msg))
	}
	why := "tried " + strings.Join(msgs, ", ")
	if len(files) == 1 {
		why = strings.TrimSuffix(strings.TrimPrefix(msgs[0], files[0]+" ("), ")")
	}
	return "", &LibraryError{File: files[0], Env: env, Package: pkg, Hint: "install " + pkg, Err: errors.New(why)}
}

// cudaSymbols are the driver API's functions, each under the symbol that
// cuda.h's macros map its name to (cuda.h 12.6 lines 89-201: cuMemAlloc →
// cuMemAlloc_v2, cuStreamDestroy → cuStreamDestroy_v2, …; the names that
// are not remapped are exported as they are). libcuda also exports the
// remapped plain names with their old ABI (cuMemAlloc, cuDeviceTotalMem
// and the copies take 32-bit sizes and addresses: cuda.h 12.6 lines
// 24839-24864), so a plain name bound by mistake corrupts memory quietly.
func cudaSymbols() []symbol {
	return []symbol{
		{"cuInit", &cu.Init},
		{"cuDriverGetVersion", &cu.DriverGetVersion},
		{"cuDeviceGetCount", &cu.DeviceGetCount},
		{"cuDeviceGet", &cu.DeviceGet},
		{"cuDeviceGetName", &cu.DeviceGetName},
		{"cuDeviceTotalMem_v2", &cu.DeviceTotalMem},
		{"cuDeviceGetAttribute", &cu.DeviceGetAttribute},
		{"cuDevicePrimaryCtxRetain", &cu.PrimaryCtxRetain},
		{"cuDevicePrimaryCtxRelease_v2", &cu.PrimaryCtxRelease},
		{"cuCtxSetCurrent", &cu.CtxSetCurrent},
		{"cuStreamCreate", &cu.StreamCreate},
		{"cuStreamDestroy_v2", &cu.StreamDestroy},
		{"cuStreamSynchronize", &cu.StreamSynchronize},
		{"cuMemAlloc_v2", &cu.MemAlloc},
		{"cuMemFree_v2", &cu.MemFree},
		{"cuMemcpyHtoDAsync_v2", &cu.MemcpyHtoDAsync},
		{"cuMemcpyDtoHAsync_v2", &cu.MemcpyDtoHAsync},
		{"cuMemcpyDtoDAsync_v2", &cu.MemcpyDtoDAsync},
		{"cuMemsetD32Async", &cu.MemsetD32Async},
		{"cuModuleLoadData", &cu.ModuleLoadData},
		{"cuModuleUnload", &cu.ModuleUnload},
		{"cuModuleGetFunction", &cu.ModuleGetFunction},
		{"cuFuncGetAttribute", &cu.FuncGetAttribute},
		{"cuLaunchKernel", &cu.LaunchKernel},
		{"cuGetErrorName", &cu.GetErrorName},
	}
}

// cudaOptionalSymbols are bound when the driver has them (CUDA 12.4+).
func cudaOptionalSymbols() []symbol {
	return []symbol{{"cuFuncGetParamInfo", &cu.FuncGetParamInfo}}
}

// nvrtcSymbols are NVRTC's functions (nvrtc.h: no versioned names).
func nvrtcSymbols() []symbol {
	return []symbol{
		{"nvrtcVersion", &nvrtc.Version},
		{"nvrtcCreateProgram", &nvrtc.CreateProgram},
		{"nvrtcDestroyProgram", &nvrtc.DestroyProgram},
		{"nvrtcCompileProgram", &nvrtc.CompileProgram},
		{"nvrtcGetProgramLogSize", &nvrtc.GetProgramLogSize},
		{"nvrtcGetProgramLog", &nvrtc.GetProgramLog},
		{"nvrtcGetCUBINSize", &nvrtc.GetCUBINSize},
		{"nvrtcGetCUBIN", &nvrtc.GetCUBIN},
		{"nvrtcGetPTXSize", &nvrtc.GetPTXSize},
		{"nvrtcGetPTX", &nvrtc.GetPTX},
		{"nvrtcGetErrorString", &nvrtc.GetErrorString},
	}
}

// cublasSymbols are cuBLAS's functions under the names cublas_v2.h maps
// them to (cublas_v2.h 12.6 lines 71-78, 243: cublasCreate →
// cublasCreate_v2, …); cublasSetMathMode and cublasGetProperty have no
// _v2 form.
func cublasSymbols() []symbol {
	return []symbol{
		{"cublasCreate_v2", &cublas.Create},
		{"cublasDestroy_v2", &cublas.Destroy},
		{"cublasSetStream_v2", &cublas.SetStream},
		{"cublasSetMathMode", &cublas.SetMathMode},
		{"cublasSetPointerMode_v2", &cublas.SetPointerMode},
		{"cublasGetProperty", &cublas.GetProperty},
		{"cublasSgemm_v2", &cublas.Sgemm},
	}
}

// loadCUDA opens the driver API once per process and initialises it.
func loadCUDA() error {
	cudaOnce.Do(func() {
		cudaFile, cudaErr = bindFirst(libCandidates(cudaLibEnv, "libcuda.so.1"), cudaLibEnv, cudaPackage, cudaSymbols(), nil)
		if cudaErr != nil {
			return
		}
		if bindLibrary(cudaFile, cudaLibEnv, cudaPackage, cudaOptionalSymbols()) != nil {
			cu.FuncGetParamInfo = nil
		}
		cudaErr = cuCheck(cu.Init(0), "cuInit", "")
	})
	return cudaErr
}

// preload opens a library that file depends on from file's own folder
// (libcublasLt beside libcublas, libnvrtc-builtins beside libnvrtc), so
// that a library found by path, outside the loader's path, finds it; a
// failure is left to the library's own load to report.
func preload(file string, patterns ...string) {
	dir := filepath.Dir(file)
	if dir == "." {
		return
	}
	for _, p := range patterns {
		matches, _ := filepath.Glob(filepath.Join(dir, p))
		for _, m := range matches {
			bindLibrary(m, "", "", nil) //nolint:errcheck // best effort
		}
	}
}

// forDriver orders a toolkit library's sonames for the driver of CUDA
// major version driverMajor: the newest the driver supports first, then
// the ones newer than the driver, nearest first (a toolkit newer than its
// driver fails late: cuBLAS 13 at its first call on a CUDA 12 driver, and
// NVRTC 13's images use a PTX ISA an older driver cannot load), then the
// names without a version. driverMajor 0 (no driver loaded) keeps the
// order given, newest first.
func forDriver(driverMajor int, sonames ...string) []string {
	if driverMajor <= 0 {
		return sonames
	}
	major := func(s string) int {
		_, v, ok := strings.Cut(s, ".so.")
		if !ok {
			return -1
		}
		m, err := strconv.Atoi(strings.SplitN(v, ".", 2)[0])
		if err != nil {
			return -1
		}
		return m
	}
	out := append([]string(nil), sonames...)
	rank := func(s string) (group, key int) {
		switch m := major(s); {
		case m < 0:
			return 2, 0
		case m <= driverMajor:
			return 0, -m
		default:
			return 1, m
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		gi, ki := rank(out[i])
		gj, kj := rank(out[j])
		return gi < gj || gi == gj && ki < kj
	})
	return out
}

// driverMajor is the loaded driver's CUDA major version (13 for 13.0), or
// 0 when no driver loads.
func driverMajor() int {
	var v int32
	if loadCUDA() != nil || cu.DriverGetVersion(&v) != 0 {
		return 0
	}
	return int(v) / 1000
}

// loadNVRTC opens NVRTC once per process, the newest the driver supports
// first (forDriver).
func loadNVRTC() error {
	nvrtcOnce.Do(func() {
		files := libCandidates(nvrtcLibEnv, forDriver(driverMajor(), "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so")...)
		nvrtcFile, nvrtcErr = bindFirst(files, nvrtcLibEnv, nvrtcPackage, nvrtcSymbols(), func(f string) { preload(f, "libnvrtc-builtins.so*") })
	})
	return nvrtcErr
}

// loadCuBLAS opens cuBLAS once per process, the newest the driver
// supports first (forDriver).
func loadCuBLAS() error {
	cublasOnce.Do(func() {
		files := libCandidates(cublasLibEnv, forDriver(driverMajor(), "libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so")...)
		cublasFile, cublasErr = bindFirst(files, cublasLibEnv, cublasPackage, cublasSymbols(), func(f string) {
			preload(f, strings.Replace(filepath.Base(f), "libcublas", "libcublasLt", 1))
		})
	})
	return cublasErr
}

// CUDAAvailable reports whether the CUDA driver API loads and initialises
// (it does not look for devices); the error names the library and the
// variable that overrides it.
func CUDAAvailable() error { return loadCUDA() }

// cudaErrorName is a CUresult's name as the driver gives it
// (cuGetErrorName), e.g. "CUDA_ERROR_OUT_OF_MEMORY".
func cudaErrorName(code int32) string {
	if cu.GetErrorName != nil {
		var p *byte
		if cu.GetErrorName(code, &p) == 0 && p != nil {
			return cString(p)
		}
	}
	return "unknown CUresult"
}

// cString copies a NUL-terminated C string.
func cString(p *byte) string {
	if p == nil {
		return ""
	}
	var b []byte
	for q := unsafe.Pointer(p); *(*byte)(q) != 0; q = unsafe.Add(q, 1) {
		b = append(b, *(*byte)(q))
	}
	return string(b)
}

// cuCheck wraps a failed CUDA driver call in an *Error naming the call
// and the CUresult.
func cuCheck(code int32, call, what string) error {
	if code == 0 {
		return nil
	}
	e := &Error{Call: call, What: what, Code: code, Name: cudaErrorName(code)}
	if _, sticky := cudaStickyErrors[code]; sticky {
		e.Detail = cudaStickyDetail
	}
	return e
}

// nvrtcCheck wraps a failed NVRTC call.
func nvrtcCheck(code int32, call, what string) error {
	if code == 0 {
		return nil
	}
	name := "unknown nvrtcResult"
	if nvrtc.GetErrorString != nil {
		name = nvrtc.GetErrorString(code)
	}
	return &Error{Call: call, What: what, Code: code, Name: name}
}

// cublasStatusNames are cuBLAS's status codes (cublas_api.h).
var cublasStatusNames = map[int32]string{
	0: "CUBLAS_STATUS_SUCCESS", 1: "CUBLAS_STATUS_NOT_INITIALIZED", 3: "CUBLAS_STATUS_ALLOC_FAILED",
	7: "CUBLAS_STATUS_INVALID_VALUE", 8: "CUBLAS_STATUS_ARCH_MISMATCH", 11: "CUBLAS_STATUS_MAPPING_ERROR",
	13: "CUBLAS_STATUS_EXECUTION_FAILED", 14: "CUBLAS_STATUS_INTERNAL_ERROR", 15: "CUBLAS_STATUS_NOT_SUPPORTED",
	16: "CUBLAS_STATUS_LICENSE_ERROR",
}

// cublasCheck wraps a failed cuBLAS call.
func cublasCheck(code int32, call, what string) error {
	if code == 0 {
		return nil
	}
	name, ok := cublasStatusNames[code]
	if !ok {
		name = "unknown cublasStatus_t"
	}
	return &Error{Call: call, What: what, Code: code, Name: name}
}

// versionString formats CUDA's encoded versions (1000·major + 10·minor).
func versionString(v int32) string { return fmt.Sprintf("%d.%d", v/1000, v%1000/10) }
