package opencl

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"unsafe"
)

// The CUDA driver beneath Context (doc.go, "The CUDA driver"). A context
// on CUDA holds a cudaCtx; queue.go, program.go, clblast.go and context.go
// count every command and wait as for OpenCL and hand the call to the
// methods of this file, each called with the Context's lock held.

// CUDA enum values used here (cuda.h, cublas_api.h).
const (
	cuDevAttrMaxThreadsPerBlock   = 1
	cuDevAttrMaxSharedPerBlock    = 8
	cuDevAttrMultiprocessorCount  = 16
	cuDevAttrComputeCapabilityMaj = 75
	cuDevAttrComputeCapabilityMin = 76
	cuFuncAttrMaxThreadsPerBlock  = 0
	cuErrorInvalidValue           = 1
	cuStreamDefault               = 0
	cublasDefaultMath             = 0 // no TF32: fp32 products as PyTorch with TF32 off
	cublasPointerModeHost         = 0
	nvrtcErrorInvalidOption       = 5
	libPropMajorVersion           = 0   // libraryPropertyType MAJOR_VERSION (cublasGetProperty)
	libPropMinorVersion           = 1   // MINOR_VERSION
	cudaAllocAlign                = 256 // cuMemAlloc's alignment, where a group's buffers start
)

// cudaStickyErrors are the CUresults after which, in cuda.h's words, "the
// process must be terminated and relaunched" (a kernel's fault, a
// device-side assert): every later CUDA call of the process returns the
// same error, whatever it does.
var cudaStickyErrors = map[int32]string{
	700: "CUDA_ERROR_ILLEGAL_ADDRESS", 702: "CUDA_ERROR_LAUNCH_TIMEOUT", 710: "CUDA_ERROR_ASSERT",
	714: "CUDA_ERROR_HARDWARE_STACK_ERROR", 715: "CUDA_ERROR_ILLEGAL_INSTRUCTION", 716: "CUDA_ERROR_MISALIGNED_ADDRESS",
	717: "CUDA_ERROR_INVALID_ADDRESS_SPACE", 718: "CUDA_ERROR_INVALID_PC", 719: "CUDA_ERROR_LAUNCH_FAILED",
}

// cudaStickyDetail is what an *Error of a sticky CUresult adds: launches
// run after the call that queued them returned, so the failing call is
// seldom the faulty kernel, and every later error of the process is this
// one again.
const cudaStickyDetail = "the CUDA context is lost: every later CUDA call in this process fails with the same error, " +
	"so only the first such error counts; a kernel launched before this call faulted (launches run after they return): " +
	"run again with CUDA_LAUNCH_BLOCKING=1 to have the error at the faulty kernel's launch"

// cudaCtx is a context's CUDA state: the device's primary context (the
// one the CUDA runtime, and so cuBLAS, also uses), one stream, one cuBLAS
// handle bound to it, and the page-locked staging of the transfers
// (cuda_pinned.go).
type cudaCtx struct {
	dev    cuDevice
	ctx    cuContext
	stream cuStream
	blas   cublasH
	pinned pinnedArena
	// cudnn: the cuDNN handle and convolution plans, made on the first
	// convolution of the path ConvCuDNN (cuda_dnn.go); nil before.
	cudnn *cudnnState
	// dnnAlgos is how the plans choose their algorithms (SetCuDNNAlgos).
	dnnAlgos CuDNNAlgos
}

// bind makes the context current on this goroutine's OS thread and keeps
// the goroutine there until the returned function runs. CUDA binds a
// context to a thread and Go moves goroutines between threads, so every
// batch of driver calls runs between bind and its release.
func (d *cudaCtx) bind() (func(), error) {
	runtime.LockOSThread()
	if err := cuCheck(cu.CtxSetCurrent(d.ctx), "cuCtxSetCurrent", ""); err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	return runtime.UnlockOSThread, nil
}

// CUDADeviceCount is the number of CUDA devices (an error when the driver
// does not load).
func CUDADeviceCount() (int, error) {
	if err := loadCUDA(); err != nil {
		return 0, err
	}
	var n int32
	if err := cuCheck(cu.DeviceGetCount(&n), "cuDeviceGetCount", ""); err != nil {
		return 0, err
	}
	return int(n), nil
}

// CUDADevices describes every CUDA device (the listing of llpfc devices).
func CUDADevices() ([]DeviceInfo, error) {
	n, err := CUDADeviceCount()
	if err != nil {
		return nil, err
	}
	out := make([]DeviceInfo, n)
	for i := range n {
		if out[i], err = cudaDeviceInfo(i); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// cudaDeviceInfo describes CUDA device ordinal i as a DeviceInfo: FP64 and
// correctly rounded division and square root (NVRTC's default
// -prec-div/-prec-sqrt) always hold on CUDA.
func cudaDeviceInfo(i int) (DeviceInfo, error) {
	var dev cuDevice
	if err := cuCheck(cu.DeviceGet(&dev, int32(i)), "cuDeviceGet", strconv.Itoa(i)); err != nil {
		return DeviceInfo{}, err
	}
	name := make([]byte, 256)
	if err := cuCheck(cu.DeviceGetName(&name[0], int32(len(name)), dev), "cuDeviceGetName", ""); err != nil {
		return DeviceInfo{}, err
	}
	d := DeviceInfo{
		CUDA: true, Index: i, PlatformName: "CUDA", Vendor: "NVIDIA", Type: "GPU",
		Name: strings.TrimSpace(cString(&name[0])), BaseAlignBytes: cudaAllocAlign,
		FP64: true, CorrectDivSqrt: true, cuDev: dev,
	}
	if err := cuCheck(cu.DeviceTotalMem(&d.GlobalMemBytes, dev), "cuDeviceTotalMem_v2", d.Name); err != nil {
		return d, err
	}
	d.MaxAllocBytes = d.GlobalMemBytes
	var wg, shared, sms, major, minor int32
	for _, a := range []struct {
		attr int32
		v    *int32
	}{
		{cuDevAttrMaxThreadsPerBlock, &wg}, {cuDevAttrMaxSharedPerBlock, &shared}, {cuDevAttrMultiprocessorCount, &sms},
		{cuDevAttrComputeCapabilityMaj, &major}, {cuDevAttrComputeCapabilityMin, &minor},
	} {
		if err := cuCheck(cu.DeviceGetAttribute(a.v, a.attr, dev), "cuDeviceGetAttribute", fmt.Sprintf("%s, attribute %d", d.Name, a.attr)); err != nil {
			return d, err
		}
	}
	d.MaxWorkGroupSize, d.LocalMemBytes, d.ComputeUnits = int(wg), uint64(shared), int(sms)
	d.ComputeMajor, d.ComputeMinor = int(major), int(minor)
	d.Version = fmt.Sprintf("CUDA compute %d.%d", major, minor)
	var v int32
	if cu.DriverGetVersion(&v) == 0 {
		d.DriverVersion = versionString(v)
	}
	return d, nil
}

// CUDAVersions names the CUDA libraries' versions, e.g. "driver 13.0,
// NVRTC 13.0, cuBLAS 13.1", with what could not be loaded.
func CUDAVersions() string {
	var parts []string
	var v int32
	if loadCUDA() == nil && cu.DriverGetVersion(&v) == 0 {
		parts = append(parts, "driver "+versionString(v))
	}
	if err := loadNVRTC(); err != nil {
		parts = append(parts, "NVRTC not available: "+err.Error())
	} else {
		var major, minor int32
		nvrtc.Version(&major, &minor)
		parts = append(parts, fmt.Sprintf("NVRTC %d.%d", major, minor))
	}
	if err := loadCuBLAS(); err != nil {
		parts = append(parts, "cuBLAS not available: "+err.Error())
	} else {
		var major, minor int32
		cublas.GetProperty(libPropMajorVersion, &major)
		cublas.GetProperty(libPropMinorVersion, &minor)
		parts = append(parts, fmt.Sprintf("cuBLAS %d.%d", major, minor))
	}
	return strings.Join(parts, ", ")
}

// newCUDAContext opens CUDA device ordinal i: its primary context, a
// stream, a cuBLAS handle on it with TF32 off and host scalars.
func newCUDAContext(i int) (*Context, error) {
	if err := cudaUnavailable(i); err != nil {
		return nil, err
	}
	dev, err := cudaDeviceInfo(i)
	if err != nil {
		return nil, err
	}
	d := &cudaCtx{dev: dev.cuDev}
	if err := cuCheck(cu.PrimaryCtxRetain(&d.ctx, d.dev), "cuDevicePrimaryCtxRetain", dev.Name); err != nil {
		return nil, err
	}
	liveObjects.Add(1)
	if err := d.open(); err != nil {
		d.close()
		return nil, err
	}
	return &Context{dev: dev, cu: d, buffers: map[*Buffer]struct{}{}, globalMem: dev.GlobalMemBytes}, nil
}

// open makes the stream and the cuBLAS handle (the primary context is
// retained).
func (d *cudaCtx) open() error {
	unbind, err := d.bind()
	if err != nil {
		return err
	}
	defer unbind()
	if err := cuCheck(cu.StreamCreate(&d.stream, cuStreamDefault), "cuStreamCreate", ""); err != nil {
		return err
	}
	liveObjects.Add(1)
	if err := cublasCheck(cublas.Create(&d.blas), "cublasCreate_v2", ""); err != nil {
		return err
	}
	liveObjects.Add(1)
	return errors.Join(
		cublasCheck(cublas.SetStream(d.blas, d.stream), "cublasSetStream_v2", ""),
		cublasCheck(cublas.SetMathMode(d.blas, cublasDefaultMath), "cublasSetMathMode", "CUBLAS_DEFAULT_MATH"),
		cublasCheck(cublas.SetPointerMode(d.blas, cublasPointerModeHost), "cublasSetPointerMode_v2", "CUBLAS_POINTER_MODE_HOST"),
	)
}

// close releases what open made and the primary context (after the
// stream has run dry).
func (d *cudaCtx) close() error {
	var errs []error
	if unbind, err := d.bind(); err != nil {
		errs = append(errs, err)
	} else {
		errs = append(errs, d.pinned.free())
		if d.cudnn != nil {
			errs = append(errs, d.cudnn.release())
			d.cudnn = nil
		}
		if d.blas != 0 {
			errs = append(errs, cublasCheck(cublas.Destroy(d.blas), "cublasDestroy_v2", ""))
			d.blas = 0
			liveObjects.Add(-1)
		}
		if d.stream != 0 {
			errs = append(errs, cuCheck(cu.StreamDestroy(d.stream), "cuStreamDestroy_v2", ""))
			d.stream = 0
			liveObjects.Add(-1)
		}
		unbind()
	}
	if d.ctx != 0 {
		errs = append(errs, cuCheck(cu.PrimaryCtxRelease(d.dev), "cuDevicePrimaryCtxRelease_v2", ""))
		d.ctx = 0
		liveObjects.Add(-1)
	}
	return errors.Join(errs...)
}

// alloc allocates size bytes of device memory.
func (d *cudaCtx) alloc(size int64) (clMem, error) {
	unbind, err := d.bind()
	if err != nil {
		return 0, err
	}
	defer unbind()
	var p uint64
	if err := cuCheck(cu.MemAlloc(&p, uintptr(size)), "cuMemAlloc_v2", fmt.Sprintf("%d bytes", size)); err != nil {
		return 0, err
	}
	return clMem(p), nil
}

// free frees an allocation after the stream has run dry: OpenCL frees a
// released buffer only when the commands using it are done, and the
// callers rely on it (a workspace released while a kernel still reads
// it), so the wait is explicit here rather than left to cuMemFree's own
// synchronisation.
func (d *cudaCtx) free(m clMem) error {
	unbind, err := d.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return errors.Join(
		cuCheck(cu.StreamSynchronize(d.stream), "cuStreamSynchronize", "before cuMemFree_v2"),
		cuCheck(cu.MemFree(uint64(m)), "cuMemFree_v2", ""),
	)
}

// write copies nbytes at src into page-locked staging and enqueues its
// copy to the device at m+off: the caller may reuse src at once, and the
// copy does not wait for the stream (cuda_pinned.go). The staging is
// returned for queue.go's bookkeeping; it stays untouched until the
// stream has run dry (recycle).
func (d *cudaCtx) write(m clMem, off uintptr, src unsafe.Pointer, nbytes uintptr) ([]byte, error) {
	unbind, err := d.bind()
	if err != nil {
		return nil, err
	}
	defer unbind()
	staging, err := d.pinned.take(nbytes)
	if err != nil {
		return nil, err
	}
	copy(staging, unsafe.Slice((*byte)(src), nbytes))
	return staging, cuCheck(cu.MemcpyHtoDAsync(uint64(m)+uint64(off), unsafe.Pointer(&staging[0]), nbytes, d.stream), "cuMemcpyHtoDAsync_v2", fmt.Sprintf("%d bytes", nbytes))
}

// read enqueues the copy of nbytes at m+off into page-locked staging.
// With dst nil it returns without waiting, and the staging holds the
// bytes once the stream has run dry (queue.go copies them out then);
// otherwise it waits for the stream (and so for the copy) and copies
// them to dst before it returns.
func (d *cudaCtx) read(m clMem, off, nbytes uintptr, dst unsafe.Pointer) ([]byte, error) {
	unbind, err := d.bind()
	if err != nil {
		return nil, err
	}
	defer unbind()
	staging, err := d.pinned.take(nbytes)
	if err != nil {
		return nil, err
	}
	if err := cuCheck(cu.MemcpyDtoHAsync(unsafe.Pointer(&staging[0]), uint64(m)+uint64(off), nbytes, d.stream), "cuMemcpyDtoHAsync_v2", fmt.Sprintf("%d bytes", nbytes)); err != nil {
		return nil, err
	}
	if dst == nil {
		return staging, nil
	}
	if err := cuCheck(cu.StreamSynchronize(d.stream), "cuStreamSynchronize", "a read"); err != nil {
		return nil, err
	}
	copy(unsafe.Slice((*byte)(dst), nbytes), staging)
	return staging, nil
}

// sync waits for everything enqueued on the stream.
func (d *cudaCtx) sync() error {
	unbind, err := d.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return cuCheck(cu.StreamSynchronize(d.stream), "cuStreamSynchronize", "")
}

// copy enqueues a device-to-device copy.
func (d *cudaCtx) copy(dst, src clMem, dstOff, srcOff, nbytes uintptr) error {
	unbind, err := d.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return cuCheck(cu.MemcpyDtoDAsync(uint64(dst)+uint64(dstOff), uint64(src)+uint64(srcOff), nbytes, d.stream), "cuMemcpyDtoDAsync_v2", fmt.Sprintf("%d bytes", nbytes))
}

// fill enqueues nbytes at m+off set to a 4-byte pattern.
func (d *cudaCtx) fill(m clMem, pattern uint32, off, nbytes uintptr) error {
	unbind, err := d.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return cuCheck(cu.MemsetD32Async(uint64(m)+uint64(off), pattern, nbytes/4, d.stream), "cuMemsetD32Async", fmt.Sprintf("%d values", nbytes/4))
}

// launch enqueues kernel f over the NDRange with the marshalled arguments
// (cudaArgs).
func (d *cudaCtx) launch(f cuFunction, name string, dims int, gs, ls *[3]uintptr, blob []byte, offs []int) error {
	grid, block, err := cudaGeometry(dims, *gs, *ls)
	if err != nil {
		return fmt.Errorf("opencl: launch %s: %w", name, err)
	}
	// kernelParams: one address per argument, into blob. Both live in Go
	// memory, which does not move, and stay reachable until the call
	// returns (the driver has copied the values by then).
	var params []uintptr
	var pp unsafe.Pointer
	if len(offs) > 0 {
		params = make([]uintptr, len(offs))
		for i, o := range offs {
			params[i] = uintptr(unsafe.Pointer(&blob[o]))
		}
		pp = unsafe.Pointer(&params[0])
	}
	unbind, err := d.bind()
	if err != nil {
		return err
	}
	defer unbind()
	err = cuCheck(cu.LaunchKernel(f, grid[0], grid[1], grid[2], block[0], block[1], block[2], 0, d.stream, pp, nil), "cuLaunchKernel",
		fmt.Sprintf("%s, grid %v, block %v", name, grid, block))
	runtime.KeepAlive(blob)
	runtime.KeepAlive(params)
	return err
}

// sgemm runs the row-major product on cuBLAS (cublasArgs).
func (d *cudaCtx) sgemm(s sgemmArgs) error {
	g, err := cublasArgs(s.transA == clblastTranspose, s.transB == clblastTranspose, int(s.m), int(s.n), int(s.k),
		int(s.aOff), int(s.lda), int(s.bOff), int(s.ldb), int(s.cOff), int(s.ldc))
	if err != nil {
		return err
	}
	first, second := s.b, s.a // cuBLAS's A is the row-major B (g.A == 'B')
	unbind, err := d.bind()
	if err != nil {
		return err
	}
	defer unbind()
	alpha, beta := s.alpha, s.beta
	return cublasCheck(cublas.Sgemm(d.blas, g.TransA, g.TransB, g.M, g.N, g.K, &alpha,
		uint64(first)+4*uint64(g.AOff), int32(g.LDA), uint64(second)+4*uint64(g.BOff), int32(g.LDB), &beta,
		uint64(s.cm)+4*uint64(g.COff), int32(g.LDC)), "cublasSgemm_v2", fmt.Sprintf("%d×%d×%d", s.m, s.n, s.k))
}

// build compiles src with NVRTC for the device (options plus its
// architecture: sm_XY, or compute_XY when NVRTC refuses sm_XY) and loads
// the image as a module, through the disk cache (cuda_cache.go): an image
// cached under the compile's key is loaded instead, and a compiled one is
// cached. A cache that cannot be read or written only costs the compile
// (the image says why). A compile error carries NVRTC's log.
func (d *cudaCtx) build(dev DeviceInfo, src string, options []string) (cuModule, CUDAImage, error) {
	type try struct {
		ptx        bool
		kind, path string
		opts       []string
	}
	tries := []try{{kind: "cubin"}, {ptx: true, kind: "ptx"}}
	dir := cudaCacheDir()
	nv, drv := cudaVersions()
	if nv == "" || drv == "" {
		dir = "" // a key without the versions could name another compiler's image
	}
	for i := range tries {
		t := &tries[i]
		t.opts = append(options[:len(options):len(options)], cudaArch(dev.ComputeMajor, dev.ComputeMinor, t.ptx))
		if dir != "" {
			t.path = filepath.Join(dir, cudaCacheKey(src, t.opts, nv, drv, t.kind)+"."+t.kind)
		}
	}
	// The CUBIN, else the PTX: a PTX is cached only once this very NVRTC
	// refused the device's sm_XY, so it would refuse it again.
	var notes []string
	for _, t := range tries {
		if t.path == "" {
			continue
		}
		m, ok, why := d.loadCached(t.path)
		if ok {
			return m, CUDAImage{Kind: t.kind, Cached: true, Path: t.path}, nil
		}
		if why != "" {
			notes = append(notes, why)
		}
	}
	t := tries[0]
	image, err := nvrtcCompile(src, t.opts, false)
	var ce *Error
	if errors.As(err, &ce) && (ce.Code == nvrtcErrorInvalidOption || strings.Contains(ce.Detail, "gpu-architecture")) {
		t = tries[1]
		image, err = nvrtcCompile(src, t.opts, true)
	}
	if err != nil {
		return 0, CUDAImage{}, err
	}
	m, err := d.load(image)
	if err != nil {
		return 0, CUDAImage{}, err
	}
	img := CUDAImage{Kind: t.kind, Path: t.path}
	if t.path != "" {
		if err := writeCUDACache(t.path, image); err != nil {
			img.Path = ""
			notes = append(notes, "not cached: "+err.Error())
		} else {
			img.Pruned = pruneCUDACache(dir, cudaCacheKeep, t.path)
		}
	}
	img.CacheErr = strings.Join(notes, "; ")
	return m, img, nil
}

// nvrtcCompile compiles src and returns the CUBIN (or with ptx the PTX,
// NUL-terminated).
func nvrtcCompile(src string, options []string, ptx bool) ([]byte, error) {
	image, _, err := nvrtcCompileLog(src, options, ptx)
	return image, err
}

// nvrtcCompileLog is nvrtcCompile that also returns NVRTC's log of a
// successful compile (its warnings; with --ptxas-options=-v, the
// assembler's registers, spills and shared memory of every kernel).
func nvrtcCompileLog(src string, options []string, ptx bool) ([]byte, string, error) {
	csrc := append([]byte(src), 0)
	cname := append([]byte("llpfc_kernels.cu"), 0)
	var p nvrtcProg
	if err := nvrtcCheck(nvrtc.CreateProgram(&p, &csrc[0], &cname[0], 0, nil, nil), "nvrtcCreateProgram", ""); err != nil {
		return nil, "", err
	}
	defer nvrtc.DestroyProgram(&p)
	copts := make([][]byte, len(options))
	ptrs := make([]uintptr, len(options)+1)
	for i, o := range options {
		copts[i] = append([]byte(o), 0)
		ptrs[i] = uintptr(unsafe.Pointer(&copts[i][0]))
	}
	code := nvrtc.CompileProgram(p, int32(len(options)), unsafe.Pointer(&ptrs[0]))
	runtime.KeepAlive(copts)
	if code != 0 {
		e := nvrtcCheck(code, "nvrtcCompileProgram", "options "+strings.Join(options, " ")).(*Error)
		e.Detail = "NVRTC log:\n" + nvrtcLog(p)
		return nil, "", e
	}
	size, get, call := nvrtc.GetCUBINSize, nvrtc.GetCUBIN, "nvrtcGetCUBIN"
	if ptx {
		size, get, call = nvrtc.GetPTXSize, nvrtc.GetPTX, "nvrtcGetPTX"
	}
	var n uintptr
	if err := nvrtcCheck(size(p, &n), call+"Size", ""); err != nil {
		return nil, "", err
	}
	if n == 0 {
		return nil, "", fmt.Errorf("opencl: %sSize: NVRTC produced an empty image", call)
	}
	out := make([]byte, n+1) // PTX must end in NUL; a CUBIN ignores the extra byte
	if err := nvrtcCheck(get(p, &out[0]), call, ""); err != nil {
		return nil, "", err
	}
	return out, nvrtcLog(p), nil
}

// nvrtcLog is the program's compile log.
func nvrtcLog(p nvrtcProg) string {
	var n uintptr
	if nvrtc.GetProgramLogSize(p, &n) != 0 || n == 0 {
		return "(no log)"
	}
	b := make([]byte, n)
	if nvrtc.GetProgramLog(p, &b[0]) != 0 {
		return "(no log)"
	}
	return strings.TrimSpace(strings.TrimRight(string(b), "\x00"))
}

// unload frees a module.
func (d *cudaCtx) unload(m cuModule) error {
	unbind, err := d.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return cuCheck(cu.ModuleUnload(m), "cuModuleUnload", "")
}

// function looks up a kernel: its handle, the largest block it runs with,
// and its parameters' sizes (nil where the driver cannot tell: before
// CUDA 12.4).
func (d *cudaCtx) function(m cuModule, name string) (cuFunction, int, []int, error) {
	unbind, err := d.bind()
	if err != nil {
		return 0, 0, nil, err
	}
	defer unbind()
	cname := append([]byte(name), 0)
	var f cuFunction
	if err := cuCheck(cu.ModuleGetFunction(&f, m, &cname[0]), "cuModuleGetFunction", name); err != nil {
		return 0, 0, nil, err
	}
	var wg int32
	if err := cuCheck(cu.FuncGetAttribute(&wg, cuFuncAttrMaxThreadsPerBlock, f), "cuFuncGetAttribute", name+", MAX_THREADS_PER_BLOCK"); err != nil {
		return 0, 0, nil, err
	}
	if cu.FuncGetParamInfo == nil {
		return f, int(wg), nil, nil
	}
	return f, int(wg), paramSizes(f), nil
}

// paramSizes are the sizes of f's parameters (cuFuncGetParamInfo, which
// answers CUDA_ERROR_INVALID_VALUE past the last one), or nil when the
// driver cannot tell: the launches then go unchecked rather than the
// library failing on a driver that does not answer.
func paramSizes(f cuFunction) []int {
	sizes := []int{}
	for i := uintptr(0); i <= 256; i++ {
		var off, size uintptr
		switch code := cu.FuncGetParamInfo(f, i, &off, &size); code {
		case 0:
			sizes = append(sizes, int(size))
		case cuErrorInvalidValue:
			return sizes
		default:
			return nil
		}
	}
	return nil
}

// cudaUnavailable reports why CUDA device i cannot be used: the driver,
// NVRTC or cuBLAS does not load, or there is no such device.
func cudaUnavailable(i int) error {
	for _, load := range []func() error{loadCUDA, loadCUDAHost, loadNVRTC, loadCuBLAS} {
		if err := load(); err != nil {
			return err
		}
	}
	n, err := CUDADeviceCount()
	if err != nil {
		return err
	}
	if i >= n {
		return fmt.Errorf("device cuda:%d: there is no CUDA device %d; %d device(s)", i, i, n)
	}
	return nil
}
