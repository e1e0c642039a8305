package opencl

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"
)

// liveObjects counts the OpenCL objects (contexts, queues, buffers,
// programs, kernels) this package has created and not yet released; the
// leak test checks that it returns to its start.
var liveObjects atomic.Int64

// LiveObjects is the number of OpenCL objects (contexts, queues,
// buffers, programs, kernels) this package has created in the process and
// not released: after every context is closed it is back where it
// started (the leak tests check it).
func LiveObjects() int64 { return liveObjects.Load() }

// Context is one device with one in-order command queue. Its methods may be
// called from several goroutines (launches are serialised); work runs in
// the order it is enqueued. Close releases everything it created.
type Context struct {
	dev   DeviceInfo
	ctx   clContext
	queue clQueue
	// cu is the CUDA driver's state on a CUDA device (cuda.go; ctx and
	// queue are unused then), nil on OpenCL.
	cu *cudaCtx

	mu       sync.Mutex // guards the fields below and kernel arguments
	buffers  map[*Buffer]struct{}
	programs []*Program
	bytes    int64
	peak     int64
	usedBLAS bool
	closed   bool
	// counts, the staged writes in flight and their bytes (queue.go).
	counts      Counts
	pending     []staged
	stagedBytes int64
	reads       []stagedRead // reads that did not block, delivered at the next wait
	// globalMem is the device memory the back end plans against
	// (GlobalMemBytes unless SetGlobalMemory overrode it).
	globalMem uint64
	// gemm are the CLBlast SGEMM parameters this context set
	// (OverrideGEMM), and gemmLog the products it records (RecordGEMMs).
	gemm    GEMMParams
	gemmLog *gemmLog

	libOnce sync.Once
	lib     *Lib
	libErr  error
}

// NewContext opens the device that sel names.
func NewContext(sel Selector) (*Context, error) {
	if sel.CUDA {
		return newCUDAContext(sel.Device)
	}
	ps, err := Platforms()
	if err != nil {
		return nil, err
	}
	dev, err := sel.Resolve(ps)
	if err != nil {
		return nil, err
	}
	return newContext(dev)
}

// Open parses a device string ("opencl", "opencl:P:D", "cuda" or
// "cuda:N") and opens it.
func Open(device string) (*Context, error) {
	sel, err := ParseDevice(device)
	if err != nil {
		return nil, err
	}
	return NewContext(sel)
}

func newContext(dev DeviceInfo) (*Context, error) {
	var code int32
	id := dev.id
	ctx := cl.CreateContext(nil, 1, unsafe.Pointer(&id), 0, 0, &code)
	if code != 0 {
		return nil, check(code, "clCreateContext", dev.Name)
	}
	liveObjects.Add(1)
	q := cl.CreateCommandQueue(ctx, id, 0, &code)
	if code != 0 {
		cl.ReleaseContext(ctx)
		liveObjects.Add(-1)
		return nil, check(code, "clCreateCommandQueue", dev.Name)
	}
	liveObjects.Add(1)
	return &Context{dev: dev, ctx: ctx, queue: q, buffers: map[*Buffer]struct{}{}, globalMem: dev.GlobalMemBytes}, nil
}

// Device describes the context's device.
func (c *Context) Device() DeviceInfo { return c.dev }

// BytesAllocated is the size of the buffers allocated and not released.
func (c *Context) BytesAllocated() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// PeakBytes is the largest BytesAllocated since the context was made.
func (c *Context) PeakBytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.peak
}

// errClosed is returned by every method of a closed context.
var errClosed = errors.New("opencl: the context is closed")

// Finish waits until all enqueued work has run.
func (c *Context) Finish() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	return c.finish()
}

// Flush submits the enqueued work to the device without waiting.
func (c *Context) Flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	return c.flush()
}

func (c *Context) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// Close waits for the queue, then releases every buffer, kernel and program
// still held, the queue and the context. It is safe to call twice. If the
// context used CLBlast, CLBlast's program cache is cleared (it holds
// programs of this context; other contexts rebuild theirs on next use).
func (c *Context) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	errs := []error{c.finish()}
	c.drained()
	if c.cu != nil {
		for b := range c.buffers {
			errs = append(errs, b.releaseLocked())
		}
		for _, p := range c.programs {
			errs = append(errs, p.release())
		}
		c.programs = nil
		errs = append(errs, c.cu.close())
		return errors.Join(errs...)
	}
	if c.usedBLAS {
		blastUsers.Lock()
		errs = append(errs, check(blast.ClearCache(), "CLBlastClearCache", ""))
		blastUsers.Unlock()
	}
	for b := range c.buffers {
		errs = append(errs, b.releaseLocked())
	}
	for _, p := range c.programs {
		errs = append(errs, p.release())
	}
	c.programs = nil
	errs = append(errs, check(cl.ReleaseCommandQueue(c.queue), "clReleaseCommandQueue", ""))
	liveObjects.Add(-1)
	errs = append(errs, check(cl.ReleaseContext(c.ctx), "clReleaseContext", ""))
	liveObjects.Add(-1)
	return errors.Join(errs...)
}

// Buffer is device memory of Len 4-byte elements (float32, or int32 for
// the index buffers of pooling and argmax). A buffer of a group
// (AllocGroup) is a sub-buffer of the group's one allocation.
type Buffer struct {
	ctx *Context
	// mem is the cl_mem, or on CUDA the device address of the buffer's
	// first element (a group's buffer: the parent's plus its offset).
	mem      clMem
	n        int
	released bool
	role     Role
	// group and off: the group's parent buffer and this buffer's first
	// element in it (nil for a buffer of its own); parts counts a
	// parent's live sub-buffers.
	group *Buffer
	off   int
	parts int
}

// Alloc allocates a buffer of n ≥ 1 four-byte elements (contents
// undefined; Fill or Write it).
func (c *Context) Alloc(n int) (*Buffer, error) {
	if n < 1 {
		return nil, fmt.Errorf("opencl: buffer of %d elements, want ≥ 1", n)
	}
	size := int64(n) * 4
	if c.dev.MaxAllocBytes > 0 && uint64(size) > c.dev.MaxAllocBytes {
		return nil, fmt.Errorf("opencl: buffer of %d bytes exceeds the device's largest allocation (%d bytes, CL_DEVICE_MAX_MEM_ALLOC_SIZE)", size, c.dev.MaxAllocBytes)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errClosed
	}
	mem, err := c.createBuffer(size)
	if err != nil {
		return nil, err
	}
	liveObjects.Add(1)
	b := &Buffer{ctx: c, mem: mem, n: n, role: RoleUnlabelled}
	c.buffers[b] = struct{}{}
	c.bytes += size
	c.peak = max(c.peak, c.bytes)
	return b, nil
}

// AllocFloat32 allocates a buffer holding a copy of src.
func (c *Context) AllocFloat32(src []float32) (*Buffer, error) {
	b, err := c.Alloc(len(src))
	if err != nil {
		return nil, err
	}
	if err := b.Write(src); err != nil {
		b.Release()
		return nil, err
	}
	return b, nil
}

// Len is the number of elements.
func (b *Buffer) Len() int { return b.n }

// Release frees the buffer; using it afterwards is an error. Releasing
// twice is harmless.
func (b *Buffer) Release() error {
	b.ctx.mu.Lock()
	defer b.ctx.mu.Unlock()
	if b.released || b.ctx.closed {
		return nil
	}
	return b.releaseLocked()
}

func (b *Buffer) releaseLocked() error {
	if b.released {
		return nil
	}
	b.released = true
	delete(b.ctx.buffers, b)
	liveObjects.Add(-1)
	err := b.ctx.releaseMem(b.mem, b.group != nil, "")
	if g := b.group; g != nil {
		if g.parts--; g.parts == 0 {
			g.released = true
			b.ctx.bytes -= int64(g.n) * 4
			liveObjects.Add(-1)
			err = errors.Join(err, b.ctx.releaseMem(g.mem, false, "a group's buffer"))
		}
		return err
	}
	b.ctx.bytes -= int64(b.n) * 4
	return err
}

// SetRole labels what the buffer holds (the transfers of Counts are
// summed per role).
func (b *Buffer) SetRole(r Role) {
	b.ctx.mu.Lock()
	defer b.ctx.mu.Unlock()
	b.role = r
}

// Role is the buffer's label.
func (b *Buffer) Role() Role {
	b.ctx.mu.Lock()
	defer b.ctx.mu.Unlock()
	return b.role
}

// Group returns the parent buffer of a buffer made by AllocGroup and the
// buffer's first element in it, or nil and 0.
func (b *Buffer) Group() (*Buffer, int) { return b.group, b.off }

// span checks that [off, off+n) lies in the buffer and that it is usable.
func (b *Buffer) span(off, n int, what string) error {
	if b == nil {
		return fmt.Errorf("opencl: %s: nil buffer", what)
	}
	if b.released {
		return fmt.Errorf("opencl: %s: buffer already released", what)
	}
	if off < 0 || n < 0 || off+n > b.n {
		return fmt.Errorf("opencl: %s: elements [%d, %d) outside a buffer of %d", what, off, off+n, b.n)
	}
	return nil
}

func (b *Buffer) transfer(write bool, off int, ptr unsafe.Pointer, n int) error {
	what := "read"
	if write {
		what = "write"
	}
	if err := b.span(off, n, what); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	c := b.ctx
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	if write {
		return c.enqueueWrite(b, uintptr(off)*4, ptr, uintptr(n)*4)
	}
	return c.enqueueRead(b, uintptr(off)*4, ptr, uintptr(n)*4)
}

// Write enqueues the copy of src into the buffer's first len(src)
// elements. It does not wait: src is copied to the host memory the
// transfer reads, so the caller may change it at once.
func (b *Buffer) Write(src []float32) error { return b.WriteAt(src, 0) }

// WriteAt enqueues the copy of src into elements [off, off+len(src)), as
// Write.
func (b *Buffer) WriteAt(src []float32, off int) error {
	if len(src) == 0 {
		return b.span(off, 0, "write")
	}
	return b.transfer(true, off, unsafe.Pointer(&src[0]), len(src))
}

// Read copies the buffer's first len(dst) elements into dst, after all
// enqueued work (blocking).
func (b *Buffer) Read(dst []float32) error { return b.ReadAt(dst, 0) }

// ReadAt copies elements [off, off+len(dst)) into dst (blocking).
func (b *Buffer) ReadAt(dst []float32, off int) error {
	if len(dst) == 0 {
		return b.span(off, 0, "read")
	}
	return b.transfer(false, off, unsafe.Pointer(&dst[0]), len(dst))
}

// ReadAsync enqueues the copy of elements [off, off+len(dst)) into dst
// without waiting: dst holds them once the host next waits for the device
// (Context.Finish, a blocking read), not before. Many reads then cost one
// wait (KL's pass over the chunks of a minibatch reads each chunk's
// outputs so).
func (b *Buffer) ReadAsync(dst []float32, off int) error {
	if err := b.span(off, len(dst), "read"); err != nil {
		return err
	}
	if len(dst) == 0 {
		return nil
	}
	c := b.ctx
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	return c.enqueueReadAsync(b, uintptr(off)*4, dst)
}

// WriteInt32 copies src into the buffer's first len(src) elements.
func (b *Buffer) WriteInt32(src []int32) error {
	if len(src) == 0 {
		return b.span(0, 0, "write")
	}
	return b.transfer(true, 0, unsafe.Pointer(&src[0]), len(src))
}

// ReadInt32 copies the buffer's first len(dst) elements into dst.
func (b *Buffer) ReadInt32(dst []int32) error {
	if len(dst) == 0 {
		return b.span(0, 0, "read")
	}
	return b.transfer(false, 0, unsafe.Pointer(&dst[0]), len(dst))
}

// Float32s reads the whole buffer into a new slice.
func (b *Buffer) Float32s() ([]float32, error) {
	out := make([]float32, b.n)
	return out, b.Read(out)
}

// Copy enqueues dst[dstOff:dstOff+n] = src[srcOff:srcOff+n] (the ranges
// must not overlap if dst and src are the same buffer).
func (c *Context) Copy(dst *Buffer, dstOff int, src *Buffer, srcOff, n int) error {
	if err := dst.span(dstOff, n, "copy destination"); err != nil {
		return err
	}
	if err := src.span(srcOff, n, "copy source"); err != nil {
		return err
	}
	if dst == src && dstOff < srcOff+n && srcOff < dstOff+n {
		return fmt.Errorf("opencl: copy: overlapping ranges [%d, %d) and [%d, %d) of one buffer", srcOff, srcOff+n, dstOff, dstOff+n)
	}
	if n == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	return c.enqueueCopy(dst, src, uintptr(dstOff)*4, uintptr(srcOff)*4, uintptr(n)*4)
}

// Fill enqueues b[i] = v for every element.
func (c *Context) Fill(b *Buffer, v float32) error { return c.FillRange(b, 0, b.Len(), v) }

// FillRange enqueues b[off:off+n] = v.
func (c *Context) FillRange(b *Buffer, off, n int, v float32) error {
	if err := b.span(off, n, "fill"); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	return c.enqueueFill(b, unsafe.Pointer(&v), 4, uintptr(off)*4, uintptr(n)*4)
}

// AllocGroup allocates buffers of the given sizes (elements, each ≥ 1) as
// sub-buffers of one allocation, each starting at the device's base
// alignment, zero-filled (the gaps too), labelled role. A kernel may then
// run over the whole group at once (the parent, Buffer.Group) where the
// sizes would take a launch each. The group's memory is freed when its
// last buffer is released. A group larger than the device's largest
// allocation is an error (allocate the buffers one by one instead).
func (c *Context) AllocGroup(sizes []int, role Role) ([]*Buffer, error) {
	if len(sizes) == 0 {
		return nil, errors.New("opencl: a group of no buffers")
	}
	align := max(c.dev.BaseAlignBytes/4, 1)
	offs := make([]int, len(sizes))
	total := 0
	for i, n := range sizes {
		if n < 1 {
			return nil, fmt.Errorf("opencl: buffer %d of a group has %d elements, want ≥ 1", i, n)
		}
		offs[i] = total
		total += (n + align - 1) / align * align
	}
	parent, err := c.Alloc(total)
	if err != nil {
		return nil, err
	}
	if err := c.Fill(parent, 0); err != nil {
		parent.Release()
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.buffers, parent) // freed with its last part
	parent.role = role
	parts := make([]*Buffer, len(sizes))
	for i, n := range sizes {
		mem, err := c.createSubBuffer(parent.mem, uintptr(offs[i])*4, uintptr(n)*4)
		if err != nil {
			for _, p := range parts[:i] {
				p.releaseLocked()
			}
			if !parent.released {
				parent.released = true
				c.bytes -= int64(total) * 4
				liveObjects.Add(-1)
				c.releaseMem(parent.mem, false, "a group's buffer")
			}
			return nil, err
		}
		liveObjects.Add(1)
		parts[i] = &Buffer{ctx: c, mem: mem, n: n, role: role, group: parent, off: offs[i]}
		parent.parts++
		c.buffers[parts[i]] = struct{}{}
	}
	return parts, nil
}

// GlobalMemory is the device memory the back end plans against:
// CL_DEVICE_GLOBAL_MEM_SIZE unless SetGlobalMemory lowered it.
func (c *Context) GlobalMemory() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.globalMem
}

// SetGlobalMemory makes the context plan against bytes of device memory
// instead of the device's own (tests give a small limit to see a model
// refused; LLPFC_OPENCL_GLOBAL_MEM sets it for a whole process). It never
// raises the limit above the device's.
func (c *Context) SetGlobalMemory(bytes uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.globalMem = min(bytes, c.dev.GlobalMemBytes)
}
