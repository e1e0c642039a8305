package opencl

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"
)

// Program is a built OpenCL program and the kernels looked up in it (on
// CUDA: a module NVRTC compiled).
type Program struct {
	ctx     *Context
	prog    clProgram // on CUDA, the CUmodule
	kernels map[string]*Kernel
	image   CUDAImage // on CUDA, where the module's image came from
}

// CUDAImage says where a CUDA program's image came from (NVRTC in this
// process, or the disk cache); the zero value on OpenCL.
func (p *Program) CUDAImage() CUDAImage { return p.image }

const (
	clProgramBuildLog       = 0x1183
	clKernelWorkGroupSize   = 0x11B0
	clKernelNumArgs         = 0x1191
	clBuildProgramFailure   = -11
	clInvalidBuildOptions   = -43
	clCompileProgramFailure = -15
)

// BuildProgram compiles src with the given options for the context's
// device. A compile error is an *Error whose Detail holds the build log.
// On CUDA src is CUDA C++ for NVRTC (CUDAKernelSource for the library)
// and options are NVRTC's, separated by spaces; the device's architecture
// is added.
func (c *Context) BuildProgram(src, options string) (*Program, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errClosed
	}
	if src == "" {
		return nil, errors.New("opencl: empty program source")
	}
	if c.cu != nil {
		return c.buildCUDA(src, strings.Fields(options))
	}
	csrc := append([]byte(src), 0)
	strs := unsafe.Pointer(&csrc[0])
	var code int32
	prog := cl.CreateProgramWithSource(c.ctx, 1, unsafe.Pointer(&strs), nil, &code)
	if code != 0 {
		return nil, check(code, "clCreateProgramWithSource", "")
	}
	liveObjects.Add(1)
	p := &Program{ctx: c, prog: prog, kernels: map[string]*Kernel{}}
	copts := append([]byte(options), 0)
	id := c.dev.id
	if code := cl.BuildProgram(prog, 1, unsafe.Pointer(&id), unsafe.Pointer(&copts[0]), 0, 0); code != 0 {
		log := p.buildLog()
		p.release()
		return nil, &Error{Call: "clBuildProgram", What: "options " + fmt.Sprintf("%q", options), Code: code, Detail: "build log:\n" + log}
	}
	c.programs = append(c.programs, p)
	return p, nil
}

// buildLog returns the device's build log (empty if none).
func (p *Program) buildLog() string {
	id := p.ctx.dev.id
	s, err := infoString(func(size uintptr, v unsafe.Pointer, r *uintptr) int32 {
		return cl.GetProgramBuildInfo(p.prog, id, clProgramBuildLog, size, v, r)
	}, "clGetProgramBuildInfo", "")
	if err != nil {
		return "(no build log: " + err.Error() + ")"
	}
	return strings.TrimSpace(s)
}

// release frees the program's kernels and the program (the context's lock
// is held, or the program was never registered).
func (p *Program) release() error {
	if p.ctx.cu != nil {
		liveObjects.Add(-int64(len(p.kernels)) - 1)
		p.kernels = nil
		return p.ctx.cu.unload(cuModule(p.prog))
	}
	var errs []error
	for _, k := range p.kernels {
		errs = append(errs, check(cl.ReleaseKernel(k.k), "clReleaseKernel", k.name))
		liveObjects.Add(-1)
	}
	p.kernels = nil
	errs = append(errs, check(cl.ReleaseProgram(p.prog), "clReleaseProgram", ""))
	liveObjects.Add(-1)
	return errors.Join(errs...)
}

// Kernel is one kernel of a program. Its arguments are set and it is
// enqueued under the context's lock, so one Kernel may be launched from
// several goroutines.
type Kernel struct {
	p     *Program
	k     clKernel // on CUDA, the CUfunction
	name  string
	maxWG int // CL_KERNEL_WORK_GROUP_SIZE on the context's device (CUDA: the function's MAX_THREADS_PER_BLOCK)
	nargs int // CL_KERNEL_NUM_ARGS (CUDA: the parameters' count, -1 when the driver cannot tell)
	// params are the sizes of a CUDA kernel's parameters
	// (cuFuncGetParamInfo), which each launch's arguments must match; nil
	// on OpenCL, or where the driver cannot tell.
	params []int
}

// Kernel looks up a kernel by name (once; later calls return the same).
func (p *Program) Kernel(name string) (*Kernel, error) {
	c := p.ctx
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errClosed
	}
	if k, ok := p.kernels[name]; ok {
		return k, nil
	}
	if c.cu != nil {
		f, wg, params, err := c.cu.function(cuModule(p.prog), name)
		if err != nil {
			return nil, err
		}
		liveObjects.Add(1)
		kn := &Kernel{p: p, k: clKernel(f), name: name, maxWG: wg, nargs: len(params), params: params}
		if params == nil {
			kn.nargs = -1
		}
		p.kernels[name] = kn
		return kn, nil
	}
	cname := append([]byte(name), 0)
	var code int32
	k := cl.CreateKernel(p.prog, unsafe.Pointer(&cname[0]), &code)
	if code != 0 {
		return nil, check(code, "clCreateKernel", name)
	}
	liveObjects.Add(1)
	var wg uintptr
	var nargs uint32
	err := check(cl.GetKernelWorkGroupInfo(k, c.dev.id, clKernelWorkGroupSize, unsafe.Sizeof(wg), unsafe.Pointer(&wg), nil), "clGetKernelWorkGroupInfo", name)
	if err == nil {
		err = check(cl.GetKernelInfo(k, clKernelNumArgs, 4, unsafe.Pointer(&nargs), nil), "clGetKernelInfo", name)
	}
	if err != nil {
		cl.ReleaseKernel(k)
		liveObjects.Add(-1)
		return nil, err
	}
	kn := &Kernel{p: p, k: k, name: name, maxWG: int(wg), nargs: int(nargs)}
	p.kernels[name] = kn
	return kn, nil
}

// Name is the kernel's name.
func (k *Kernel) Name() string { return k.name }

// MaxWorkGroupSize is the largest work-group the kernel can run with on
// the context's device.
func (k *Kernel) MaxWorkGroupSize() int { return k.maxWG }

// Local is a __local memory argument of the given size in bytes.
type Local int

// Int8 is an OpenCL int8 vector argument (eight 32-bit integers).
type Int8 [8]int32

// Launch sets the kernel's arguments and enqueues it over global work
// items in work-groups of local (one size per dimension, 1 to 3
// dimensions; every argument must be given (OpenCL keeps the last
// launch's otherwise); each global size is rounded up to a multiple of its local
// size, so kernels check their bounds). Arguments may be *Buffer, int
// (passed as a 32-bit int), int32, uint32, float32, float64 (a double
// parameter), Local or Int8.
func (k *Kernel) Launch(global, local []int, args ...any) error {
	if k.nargs >= 0 && len(args) != k.nargs {
		return fmt.Errorf("opencl: launch %s: %d arguments, the kernel takes %d", k.name, len(args), k.nargs)
	}
	if len(global) == 0 || len(global) > 3 || len(local) != len(global) {
		return fmt.Errorf("opencl: launch %s: %d global and %d local sizes, want 1 to 3 of each", k.name, len(global), len(local))
	}
	var gs, ls [3]uintptr
	wg := 1
	for i := range global {
		if global[i] < 0 || local[i] < 1 {
			return fmt.Errorf("opencl: launch %s: global %v, local %v", k.name, global, local)
		}
		ls[i] = uintptr(local[i])
		gs[i] = uintptr((global[i] + local[i] - 1) / local[i] * local[i])
		wg *= local[i]
		if gs[i] == 0 {
			return nil // nothing to do
		}
	}
	if wg > k.maxWG {
		return fmt.Errorf("opencl: launch %s: work-group of %d items exceeds the kernel's maximum %d on this device", k.name, wg, k.maxWG)
	}
	c := k.p.ctx
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	if c.cu != nil {
		blob, offs, sizes, err := cudaArgs(k.name, args, func(i int, b *Buffer) error { return k.bufferArg(uint32(i), b) })
		if err != nil {
			return err
		}
		if k.params != nil {
			if err := checkParamSizes(k.name, sizes, k.params); err != nil {
				return err
			}
		}
		return c.enqueueKernel(k, len(global), &gs, &ls, blob, offs)
	}
	for i, a := range args {
		if err := k.setArg(uint32(i), a); err != nil {
			return err
		}
	}
	return c.enqueueKernel(k, len(global), &gs, &ls, nil, nil)
}

// bufferArg checks a buffer argument: live, and of the kernel's context.
func (k *Kernel) bufferArg(i uint32, v *Buffer) error {
	if v == nil || v.released {
		return fmt.Errorf("opencl: launch %s: argument %d is a nil or released buffer", k.name, i)
	}
	if v.ctx != k.p.ctx {
		return fmt.Errorf("opencl: launch %s: argument %d is a buffer of another context", k.name, i)
	}
	return nil
}

func (k *Kernel) setArg(i uint32, a any) error {
	var size uintptr
	var ptr unsafe.Pointer
	switch v := a.(type) {
	case *Buffer:
		if err := k.bufferArg(i, v); err != nil {
			return err
		}
		size, ptr = unsafe.Sizeof(v.mem), unsafe.Pointer(&v.mem)
	case int:
		if v != int(int32(v)) {
			return fmt.Errorf("opencl: launch %s: argument %d = %d does not fit in 32 bits", k.name, i, v)
		}
		x := int32(v)
		size, ptr = 4, unsafe.Pointer(&x)
	case int32:
		size, ptr = 4, unsafe.Pointer(&v)
	case uint32:
		size, ptr = 4, unsafe.Pointer(&v)
	case float32:
		size, ptr = 4, unsafe.Pointer(&v)
	case float64:
		size, ptr = 8, unsafe.Pointer(&v)
	case Local:
		size = uintptr(v)
	case Int8:
		size, ptr = 32, unsafe.Pointer(&v)
	default:
		return fmt.Errorf("opencl: launch %s: argument %d has unsupported type %T", k.name, i, a)
	}
	return check(cl.SetKernelArg(k.k, i, size, ptr), "clSetKernelArg", fmt.Sprintf("%s, argument %d", k.name, i))
}

// buildCUDA compiles src with NVRTC for the context's CUDA device and
// loads it (cudaCtx.build); BuildProgram holds the context's lock.
func (c *Context) buildCUDA(src string, options []string) (*Program, error) {
	m, img, err := c.cu.build(c.dev, src, options)
	if err != nil {
		return nil, err
	}
	liveObjects.Add(1)
	p := &Program{ctx: c, prog: clProgram(m), kernels: map[string]*Kernel{}, image: img}
	c.programs = append(c.programs, p)
	return p, nil
}
