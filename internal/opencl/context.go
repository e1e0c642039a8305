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

	mu       sync.Mutex // guards the fields below and kernel arguments
	buffers  map[*Buffer]struct{}
	programs []*Program
	bytes    int64
	peak     int64
	usedBLAS bool
	closed   bool

	libOnce sync.Once
	lib     *Lib
	libErr  error
}

// NewContext opens the device that sel names.
func NewContext(sel Selector) (*Context, error) {
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

// Open parses a device string ("opencl" or "opencl:P:D") and opens it.
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
	return &Context{dev: dev, ctx: ctx, queue: q, buffers: map[*Buffer]struct{}{}}, nil
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
	if c.isClosed() {
		return errClosed
	}
	return check(cl.Finish(c.queue), "clFinish", "")
}

// Flush submits the enqueued work to the device without waiting.
func (c *Context) Flush() error {
	if c.isClosed() {
		return errClosed
	}
	return check(cl.Flush(c.queue), "clFlush", "")
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
	errs := []error{check(cl.Finish(c.queue), "clFinish", "")}
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
// the index buffers of pooling and argmax).
type Buffer struct {
	ctx      *Context
	mem      clMem
	n        int
	released bool
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
	var code int32
	const clMemReadWrite = 1
	mem := cl.CreateBuffer(c.ctx, clMemReadWrite, uintptr(size), nil, &code)
	if code != 0 {
		return nil, check(code, "clCreateBuffer", fmt.Sprintf("%d bytes", size))
	}
	liveObjects.Add(1)
	b := &Buffer{ctx: c, mem: mem, n: n}
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
	b.ctx.bytes -= int64(b.n) * 4
	liveObjects.Add(-1)
	return check(cl.ReleaseMemObject(b.mem), "clReleaseMemObject", "")
}

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
	const blocking = 1
	if write {
		return check(cl.EnqueueWriteBuffer(c.queue, b.mem, blocking, uintptr(off)*4, uintptr(n)*4, ptr, 0, nil, nil), "clEnqueueWriteBuffer", "")
	}
	return check(cl.EnqueueReadBuffer(c.queue, b.mem, blocking, uintptr(off)*4, uintptr(n)*4, ptr, 0, nil, nil), "clEnqueueReadBuffer", "")
}

// Write copies src into the buffer's first len(src) elements (blocking).
func (b *Buffer) Write(src []float32) error { return b.WriteAt(src, 0) }

// WriteAt copies src into elements [off, off+len(src)) (blocking).
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
	return check(cl.EnqueueCopyBuffer(c.queue, src.mem, dst.mem, uintptr(srcOff)*4, uintptr(dstOff)*4, uintptr(n)*4, 0, nil, nil), "clEnqueueCopyBuffer", "")
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
	return check(cl.EnqueueFillBuffer(c.queue, b.mem, unsafe.Pointer(&v), 4, uintptr(off)*4, uintptr(n)*4, 0, nil, nil), "clEnqueueFillBuffer", "")
}
