package opencl

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"
)

// The OpenCL handle types are opaque pointers.
type (
	clPlatform uintptr
	clDevice   uintptr
	clContext  uintptr
	clQueue    uintptr
	clMem      uintptr
	clProgram  uintptr
	clKernel   uintptr
	clEvent    uintptr
)

// LibraryError reports a shared library that could not be opened or lacks a
// function: the file looked for, the environment variable that overrides
// it, and the Debian package that provides it.
type LibraryError struct {
	File    string // the name or path given to dlopen
	Env     string // the variable that overrides File
	Package string // the Debian package that installs the default File
	Symbol  string // the missing function, empty when the file itself failed
	Err     error  // the loader's message
	// Hint replaces "install the Debian package Package" in the message
	// (CUDA's libraries come with NVIDIA's driver and toolkit, not Debian).
	Hint string
}

func (e *LibraryError) Error() string {
	if e.Symbol != "" {
		return fmt.Sprintf("%s has no function %s (%v); is it the library %s installs?", e.File, e.Symbol, e.Err, e.Package)
	}
	// dlerror's message starts with the file name already
	msg := strings.TrimPrefix(e.Err.Error(), e.File+": ")
	install := "install the Debian package " + e.Package
	if e.Hint != "" {
		install = e.Hint
	}
	return fmt.Sprintf("cannot load %s: %s (%s, or set %s to the library's path)", e.File, msg, install, e.Env)
}

func (e *LibraryError) Unwrap() error { return e.Err }

// Default library names and the variables that override them.
const (
	openCLLibDefault  = "libOpenCL.so.1"
	openCLLibEnv      = "LLPFC_OPENCL_LIB"
	openCLPackage     = "ocl-icd-libopencl1 (and a driver such as pocl-opencl-icd)"
	clblastLibDefault = "libclblast.so.1"
	clblastLibEnv     = "LLPFC_CLBLAST_LIB"
	clblastPackage    = "libclblast1"
)

// libFile returns the library file to open: the environment override or
// the default soname.
func libFile(env, def string) string {
	if v := os.Getenv(env); v != "" {
		return v
	}
	return def
}

// clAPI holds the OpenCL functions, bound once per process. Pointer
// arguments are unsafe.Pointer; handles are the opaque types above.
type clAPI struct {
	GetPlatformIDs          func(n uint32, platforms unsafe.Pointer, num *uint32) int32
	GetPlatformInfo         func(p clPlatform, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	GetDeviceIDs            func(p clPlatform, typ uint64, n uint32, devices unsafe.Pointer, num *uint32) int32
	GetDeviceInfo           func(d clDevice, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	CreateContext           func(props unsafe.Pointer, n uint32, devices unsafe.Pointer, notify uintptr, user uintptr, errcode *int32) clContext
	ReleaseContext          func(c clContext) int32
	CreateCommandQueue      func(c clContext, d clDevice, props uint64, errcode *int32) clQueue
	ReleaseCommandQueue     func(q clQueue) int32
	Finish                  func(q clQueue) int32
	Flush                   func(q clQueue) int32
	CreateBuffer            func(c clContext, flags uint64, size uintptr, host unsafe.Pointer, errcode *int32) clMem
	ReleaseMemObject        func(m clMem) int32
	EnqueueReadBuffer       func(q clQueue, m clMem, blocking uint32, offset, size uintptr, ptr unsafe.Pointer, nEvents uint32, events unsafe.Pointer, event unsafe.Pointer) int32
	EnqueueWriteBuffer      func(q clQueue, m clMem, blocking uint32, offset, size uintptr, ptr unsafe.Pointer, nEvents uint32, events unsafe.Pointer, event unsafe.Pointer) int32
	EnqueueCopyBuffer       func(q clQueue, src, dst clMem, srcOff, dstOff, size uintptr, nEvents uint32, events unsafe.Pointer, event unsafe.Pointer) int32
	EnqueueFillBuffer       func(q clQueue, m clMem, pattern unsafe.Pointer, patternSize, offset, size uintptr, nEvents uint32, events unsafe.Pointer, event unsafe.Pointer) int32
	CreateProgramWithSource func(c clContext, n uint32, strings unsafe.Pointer, lengths unsafe.Pointer, errcode *int32) clProgram
	BuildProgram            func(p clProgram, n uint32, devices unsafe.Pointer, options unsafe.Pointer, notify uintptr, user uintptr) int32
	GetProgramBuildInfo     func(p clProgram, d clDevice, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	ReleaseProgram          func(p clProgram) int32
	CreateKernel            func(p clProgram, name unsafe.Pointer, errcode *int32) clKernel
	ReleaseKernel           func(k clKernel) int32
	GetKernelInfo           func(k clKernel, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	GetKernelWorkGroupInfo  func(k clKernel, d clDevice, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	SetKernelArg            func(k clKernel, index uint32, size uintptr, value unsafe.Pointer) int32
	EnqueueNDRangeKernel    func(q clQueue, k clKernel, dims uint32, offset, global, local unsafe.Pointer, nEvents uint32, events unsafe.Pointer, event unsafe.Pointer) int32
	CreateSubBuffer         func(m clMem, flags uint64, typ uint32, info unsafe.Pointer, errcode *int32) clMem
	GetEventInfo            func(e clEvent, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	WaitForEvents           func(n uint32, events unsafe.Pointer) int32
	ReleaseEvent            func(e clEvent) int32
}

// clblastAPI holds CLBlast's functions.
type clblastAPI struct {
	Sgemm func(layout, transA, transB int32, m, n, k uintptr, alpha float32,
		a clMem, aOff, lda uintptr, b clMem, bOff, ldb uintptr, beta float32,
		c clMem, cOff, ldc uintptr, queue *clQueue, event unsafe.Pointer) int32
	ClearCache func() int32
}

var (
	clOnce     sync.Once
	cl         clAPI
	clErr      error
	blastOnce  sync.Once
	blast      clblastAPI
	blastErr   error
	blastUsers sync.Mutex // serialises ClearCache against calls (see Context.Close)
)

// symbol binds one function of an open library.
type symbol struct {
	name string
	fn   any // pointer to a func field
}

// loadOpenCL opens the OpenCL ICD loader once per process.
func loadOpenCL() error {
	clOnce.Do(func() {
		file := libFile(openCLLibEnv, openCLLibDefault)
		syms := []symbol{
			{"clGetPlatformIDs", &cl.GetPlatformIDs},
			{"clGetPlatformInfo", &cl.GetPlatformInfo},
			{"clGetDeviceIDs", &cl.GetDeviceIDs},
			{"clGetDeviceInfo", &cl.GetDeviceInfo},
			{"clCreateContext", &cl.CreateContext},
			{"clReleaseContext", &cl.ReleaseContext},
			{"clCreateCommandQueue", &cl.CreateCommandQueue},
			{"clReleaseCommandQueue", &cl.ReleaseCommandQueue},
			{"clFinish", &cl.Finish},
			{"clFlush", &cl.Flush},
			{"clCreateBuffer", &cl.CreateBuffer},
			{"clReleaseMemObject", &cl.ReleaseMemObject},
			{"clEnqueueReadBuffer", &cl.EnqueueReadBuffer},
			{"clEnqueueWriteBuffer", &cl.EnqueueWriteBuffer},
			{"clEnqueueCopyBuffer", &cl.EnqueueCopyBuffer},
			{"clEnqueueFillBuffer", &cl.EnqueueFillBuffer},
			{"clCreateProgramWithSource", &cl.CreateProgramWithSource},
			{"clBuildProgram", &cl.BuildProgram},
			{"clGetProgramBuildInfo", &cl.GetProgramBuildInfo},
			{"clReleaseProgram", &cl.ReleaseProgram},
			{"clCreateKernel", &cl.CreateKernel},
			{"clReleaseKernel", &cl.ReleaseKernel},
			{"clGetKernelInfo", &cl.GetKernelInfo},
			{"clGetKernelWorkGroupInfo", &cl.GetKernelWorkGroupInfo},
			{"clSetKernelArg", &cl.SetKernelArg},
			{"clEnqueueNDRangeKernel", &cl.EnqueueNDRangeKernel},
			{"clCreateSubBuffer", &cl.CreateSubBuffer},
			{"clGetEventInfo", &cl.GetEventInfo},
			{"clWaitForEvents", &cl.WaitForEvents},
			{"clReleaseEvent", &cl.ReleaseEvent},
		}
		clErr = bindLibrary(file, openCLLibEnv, openCLPackage, syms)
	})
	return clErr
}

// loadCLBlast opens CLBlast once per process.
func loadCLBlast() error {
	blastOnce.Do(func() {
		file := libFile(clblastLibEnv, clblastLibDefault)
		blastErr = bindLibrary(file, clblastLibEnv, clblastPackage, []symbol{
			{"CLBlastSgemm", &blast.Sgemm},
			{"CLBlastClearCache", &blast.ClearCache},
		})
	})
	return blastErr
}

// CLBlastOverrideParameters, bound apart from the SGEMM (loadCLBlast) so
// that a CLBlast without it still multiplies.
var (
	overrideOnce  sync.Once
	overrideErr   error
	blastOverride func(dev clDevice, kernel unsafe.Pointer, precision int32, n uintptr, names, values unsafe.Pointer) int32
)

// loadCLBlastOverride binds CLBlastOverrideParameters once per process.
func loadCLBlastOverride() error {
	if err := loadCLBlast(); err != nil {
		return err
	}
	overrideOnce.Do(func() {
		file := libFile(clblastLibEnv, clblastLibDefault)
		overrideErr = bindLibrary(file, clblastLibEnv, clblastPackage+" 1.5 or later", []symbol{{"CLBlastOverrideParameters", &blastOverride}})
	})
	return overrideErr
}

// Available reports whether the OpenCL loader can be opened (it does not
// ask for platforms); the error names the file and the package.
func Available() error { return loadOpenCL() }

// CLBlastAvailable reports whether CLBlast can be opened.
func CLBlastAvailable() error { return loadCLBlast() }
