package opencl

import (
	"fmt"
	"maps"
	"unsafe"
)

// The queue wrapper: every command this package enqueues (kernel launches,
// CLBlast calls, copies, fills, transfers), every wait of the host for the
// device and every buffer it allocates goes through the functions of this
// file, which count it in the context's Counts (the step costs that decide
// a GPU's speed and do not depend on the GPU).
// TestQueueWrapperIsTheOnlyWayIn checks that no other file calls the
// OpenCL or CLBlast functions they wrap. Each is called with c.mu held.

// Role says what a buffer holds; the transfers of Counts are summed per
// role, so a test can hold that no parameter crosses the bus in a step.
// The training back end labels its buffers (Buffer.SetRole); the kernel
// library labels its workspaces.
type Role string

// The roles the OpenCL back end and the kernel library give their buffers.
const (
	RoleUnlabelled Role = "unlabelled"
	RoleParam      Role = "parameter"
	RoleGrad       Role = "gradient"
	RoleOptimizer  Role = "optimizer state"
	RoleRunning    Role = "running statistics"
	RoleInput      Role = "input"
	RoleConst      Role = "constant"
	RoleActivation Role = "activation"
	RoleBNState    Role = "batch-norm state"
	RoleWorkspace  Role = "workspace"
	RoleStepFlag   Role = "step flag"
)

// Transfer is the bytes moved between the host and the device, each way.
type Transfer struct {
	HtoD int64 `json:"host_to_device"`
	DtoH int64 `json:"device_to_host"`
}

// Counts is what a context has enqueued and how often the host waited for
// it, since the context was made (Context.Counts). Sub gives the counts of
// a stretch of work, such as one training step.
type Counts struct {
	// Kernels are kernel launches (clEnqueueNDRangeKernel); BLASCalls are
	// CLBlast SGEMM calls, each of which enqueues one or more kernels of
	// CLBlast's own (not counted in Kernels); Copies and Fills are the
	// device-side copy and fill commands.
	Kernels   int64 `json:"kernels"`
	BLASCalls int64 `json:"blas_calls"`
	Copies    int64 `json:"copies"`
	Fills     int64 `json:"fills"`
	// Writes are host-to-device transfers (not blocking: the data are
	// staged on the host until the device has them), Reads device-to-host
	// ones (blocking, but for Buffer.ReadAsync's, delivered at the next
	// wait).
	Writes    int64 `json:"writes"`
	Reads     int64 `json:"reads"`
	BytesHtoD int64 `json:"bytes_host_to_device"`
	BytesDtoH int64 `json:"bytes_device_to_host"`
	// Waits are the times the host waited for the device: each blocking
	// read, each clFinish, and each wait for staged writes when too many
	// bytes were in flight.
	Waits int64 `json:"blocking_waits"`
	// Allocs and AllocBytes are the device buffers allocated (a group of
	// sub-buffers is one allocation).
	Allocs     int64 `json:"allocations"`
	AllocBytes int64 `json:"bytes_allocated"`
	// Transfers are the bytes moved per role of the buffer.
	Transfers map[Role]Transfer `json:"transfers,omitempty"`
}

// Launches is every command that runs on the device: kernels, CLBlast
// calls, copies and fills.
func (c Counts) Launches() int64 { return c.Kernels + c.BLASCalls + c.Copies + c.Fills }

// Sub returns c − b, field by field (the counts of the work between two
// snapshots b and c).
func (c Counts) Sub(b Counts) Counts {
	d := Counts{
		Kernels: c.Kernels - b.Kernels, BLASCalls: c.BLASCalls - b.BLASCalls, Copies: c.Copies - b.Copies, Fills: c.Fills - b.Fills,
		Writes: c.Writes - b.Writes, Reads: c.Reads - b.Reads, BytesHtoD: c.BytesHtoD - b.BytesHtoD, BytesDtoH: c.BytesDtoH - b.BytesDtoH,
		Waits: c.Waits - b.Waits, Allocs: c.Allocs - b.Allocs, AllocBytes: c.AllocBytes - b.AllocBytes,
	}
	for r, t := range c.Transfers {
		u := b.Transfers[r]
		if t != u {
			if d.Transfers == nil {
				d.Transfers = map[Role]Transfer{}
			}
			d.Transfers[r] = Transfer{HtoD: t.HtoD - u.HtoD, DtoH: t.DtoH - u.DtoH}
		}
	}
	return d
}

// Counts returns the context's counts so far.
func (c *Context) Counts() Counts {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.counts
	out.Transfers = maps.Clone(c.counts.Transfers)
	return out
}

// stagingLimit bounds the bytes of staged writes in flight: beyond it a
// write waits for the oldest ones (a counted wait).
const stagingLimit = 256 << 20

// staged is a non-blocking write in flight: its event and the host copy
// of its data, kept until the device has it.
type staged struct {
	ev   clEvent
	data []byte
}

const (
	clEventCommandExecutionStatus = 0x11D3
	clComplete                    = 0
	clBufferCreateTypeRegion      = 0x1220
	clMemReadWrite                = 1
)

func (c *Context) transferred(b *Buffer, htod bool, bytes int64) {
	if c.counts.Transfers == nil {
		c.counts.Transfers = map[Role]Transfer{}
	}
	t := c.counts.Transfers[b.role]
	if htod {
		c.counts.Writes++
		c.counts.BytesHtoD += bytes
		t.HtoD += bytes
	} else {
		c.counts.Reads++
		c.counts.BytesDtoH += bytes
		t.DtoH += bytes
	}
	c.counts.Transfers[b.role] = t
}

// enqueueWrite copies nbytes from ptr into the buffer at byte offset off
// without blocking: the data are copied to a staging slice that is kept
// until the device has them, so the caller may reuse its memory at once.
func (c *Context) enqueueWrite(b *Buffer, off uintptr, ptr unsafe.Pointer, nbytes uintptr) error {
	c.reap(false)
	for c.stagedBytes+int64(nbytes) > stagingLimit && len(c.pending) > 0 {
		c.reap(true)
	}
	if c.cu != nil {
		// CUDA stages in page-locked memory of its own (cuda_pinned.go),
		// reused after the next wait (drained): the driver may still
		// read it after the call returns.
		data, err := c.cu.write(b.mem, off, ptr, nbytes)
		if err != nil {
			return err
		}
		c.pending = append(c.pending, staged{data: data})
		c.stagedBytes += int64(nbytes)
		c.transferred(b, true, int64(nbytes))
		return nil
	}
	data := make([]byte, nbytes)
	copy(data, unsafe.Slice((*byte)(ptr), nbytes))
	var ev clEvent
	const nonBlocking = 0
	if err := check(cl.EnqueueWriteBuffer(c.queue, b.mem, nonBlocking, off, nbytes, unsafe.Pointer(&data[0]), 0, nil, unsafe.Pointer(&ev)), "clEnqueueWriteBuffer", ""); err != nil {
		return err
	}
	c.pending = append(c.pending, staged{ev: ev, data: data})
	c.stagedBytes += int64(nbytes)
	c.transferred(b, true, int64(nbytes))
	return nil
}

// reap drops the staged writes the device has finished, oldest first
// (the queue is in order); with wait set it waits for the oldest one
// first (a counted wait).
func (c *Context) reap(wait bool) {
	if c.cu != nil {
		// CUDA: no event per write; a wait is one for the whole stream.
		if wait && len(c.pending) > 0 {
			c.counts.Waits++
			c.cu.sync() // a failed stream fails the next command too
			c.drained()
		}
		return
	}
	if wait && len(c.pending) > 0 {
		c.counts.Waits++
		cl.WaitForEvents(1, unsafe.Pointer(&c.pending[0].ev))
	}
	k := 0
	for ; k < len(c.pending); k++ {
		var status int32
		if cl.GetEventInfo(c.pending[k].ev, clEventCommandExecutionStatus, 4, unsafe.Pointer(&status), nil) != 0 || status > clComplete {
			break // still queued or running (an error status also ends the write)
		}
		cl.ReleaseEvent(c.pending[k].ev)
		c.stagedBytes -= int64(len(c.pending[k].data))
	}
	c.pending = append(c.pending[:0], c.pending[k:]...)
}

// drained releases every staged write after the queue has run dry (a
// blocking read or a finish) and delivers the reads that did not block;
// on CUDA the staging they used is then free for the next transfers.
func (c *Context) drained() {
	for _, s := range c.pending {
		if c.cu == nil {
			cl.ReleaseEvent(s.ev)
		}
	}
	clear(c.pending)
	c.pending = c.pending[:0]
	c.stagedBytes = 0
	for _, r := range c.reads {
		copy(r.dst, unsafe.Slice((*float32)(unsafe.Pointer(&r.data[0])), len(r.dst)))
	}
	clear(c.reads)
	c.reads = c.reads[:0]
	if c.cu != nil {
		// An error (making the context current, freeing surplus staging)
		// leaves at most staging unfreed, and the driver's next call
		// reports what broke.
		c.cu.recycle()
	}
}

// stagedRead is a read that does not block: the device copies into data,
// which is copied into dst when the queue has run dry.
type stagedRead struct {
	data []byte
	dst  []float32
}

// enqueueReadAsync copies nbytes at byte offset off of the buffer into a
// staging slice without waiting; dst gets them at the next wait (drained).
func (c *Context) enqueueReadAsync(b *Buffer, off uintptr, dst []float32) error {
	nbytes := uintptr(len(dst)) * 4
	if c.cu != nil {
		data, err := c.cu.read(b.mem, off, nbytes, nil) // into page-locked staging, delivered by drained
		if err != nil {
			return err
		}
		c.reads = append(c.reads, stagedRead{data: data, dst: dst})
		c.transferred(b, false, int64(nbytes))
		return nil
	}
	data := make([]byte, nbytes)
	const nonBlocking = 0
	if err := check(cl.EnqueueReadBuffer(c.queue, b.mem, nonBlocking, off, nbytes, unsafe.Pointer(&data[0]), 0, nil, nil), "clEnqueueReadBuffer", ""); err != nil {
		return err
	}
	c.reads = append(c.reads, stagedRead{data: data, dst: dst})
	c.transferred(b, false, int64(nbytes))
	return nil
}

// enqueueRead copies nbytes at byte offset off of the buffer into ptr and
// waits for it (and so for all the work enqueued before it).
func (c *Context) enqueueRead(b *Buffer, off uintptr, ptr unsafe.Pointer, nbytes uintptr) error {
	const blocking = 1
	c.counts.Waits++
	c.transferred(b, false, int64(nbytes))
	if c.cu != nil {
		_, err := c.cu.read(b.mem, off, nbytes, ptr)
		if err == nil {
			c.drained()
		}
		return err
	}
	err := check(cl.EnqueueReadBuffer(c.queue, b.mem, blocking, off, nbytes, ptr, 0, nil, nil), "clEnqueueReadBuffer", "")
	if err == nil {
		c.drained()
	}
	return err
}

// finish waits until all enqueued work has run.
func (c *Context) finish() error {
	c.counts.Waits++
	var err error
	if c.cu != nil {
		err = c.cu.sync()
	} else {
		err = check(cl.Finish(c.queue), "clFinish", "")
	}
	if err == nil {
		c.drained()
	}
	return err
}

// flush submits the queue's work; a CUDA stream submits each command
// as it is enqueued.
func (c *Context) flush() error {
	if c.cu != nil {
		return nil
	}
	return check(cl.Flush(c.queue), "clFlush", "")
}

func (c *Context) enqueueCopy(dst, src *Buffer, dstOff, srcOff, nbytes uintptr) error {
	c.counts.Copies++
	if c.cu != nil {
		return c.cu.copy(dst.mem, src.mem, dstOff, srcOff, nbytes)
	}
	return check(cl.EnqueueCopyBuffer(c.queue, src.mem, dst.mem, srcOff, dstOff, nbytes, 0, nil, nil), "clEnqueueCopyBuffer", "")
}

// enqueueFill fills nbytes at byte offset off with a pattern of
// patternSize bytes (the pattern is copied when the call returns).
func (c *Context) enqueueFill(b *Buffer, pattern unsafe.Pointer, patternSize, off, nbytes uintptr) error {
	c.counts.Fills++
	if c.cu != nil {
		if patternSize != 4 {
			return fmt.Errorf("opencl: fill with a %d-byte pattern; CUDA fills 4-byte values", patternSize)
		}
		return c.cu.fill(b.mem, *(*uint32)(pattern), off, nbytes)
	}
	return check(cl.EnqueueFillBuffer(c.queue, b.mem, pattern, patternSize, off, nbytes, 0, nil, nil), "clEnqueueFillBuffer", "")
}

// enqueueKernel launches k, whose arguments are set (OpenCL) or
// marshalled in blob at offs (CUDA, cudaArgs).
func (c *Context) enqueueKernel(k *Kernel, dims int, gs, ls *[3]uintptr, blob []byte, offs []int) error {
	c.counts.Kernels++
	if c.cu != nil {
		return c.cu.launch(cuFunction(k.k), k.name, dims, gs, ls, blob, offs)
	}
	return check(cl.EnqueueNDRangeKernel(c.queue, k.k, uint32(dims), nil, unsafe.Pointer(&gs[0]), unsafe.Pointer(&ls[0]), 0, nil, nil), "clEnqueueNDRangeKernel", k.name)
}

// sgemmArgs are CLBlastSgemm's arguments after the layout.
type sgemmArgs struct {
	transA, transB   int32
	m, n, k          uintptr
	alpha, beta      float32
	a, b, cm         clMem
	aOff, bOff, cOff uintptr
	lda, ldb, ldc    uintptr
}

func (c *Context) enqueueSgemm(s sgemmArgs) error {
	c.counts.BLASCalls++
	if c.cu != nil {
		return c.cu.sgemm(s)
	}
	q := c.queue
	code := blast.Sgemm(clblastRowMajor, s.transA, s.transB, s.m, s.n, s.k, s.alpha,
		s.a, s.aOff, s.lda, s.b, s.bOff, s.ldb, s.beta, s.cm, s.cOff, s.ldc, &q, nil)
	return check(code, "CLBlastSgemm", fmt.Sprintf("%d×%d×%d", s.m, s.n, s.k))
}

// enqueueConvDNN enqueues a pass of a convolution on cuDNN (CUDA only),
// counted as a library call, as a product is.
func (c *Context) enqueueConvDNN(pass ConvPath, g ConvGeom, a, b, bias, out, ws clMem, wsBytes uintptr) error {
	c.counts.BLASCalls++
	return c.cu.convDNN(pass, g, a, b, bias, out, ws, wsBytes)
}

// createBuffer allocates size bytes of device memory.
func (c *Context) createBuffer(size int64) (clMem, error) {
	var mem clMem
	if c.cu != nil {
		var err error
		if mem, err = c.cu.alloc(size); err != nil {
			return 0, err
		}
	} else {
		var code int32
		mem = cl.CreateBuffer(c.ctx, clMemReadWrite, uintptr(size), nil, &code)
		if code != 0 {
			return 0, check(code, "clCreateBuffer", fmt.Sprintf("%d bytes", size))
		}
	}
	c.counts.Allocs++
	c.counts.AllocBytes += size
	return mem, nil
}

// createSubBuffer makes the region [origin, origin+size) bytes of parent a
// buffer of its own (no device memory is allocated).
func (c *Context) createSubBuffer(parent clMem, origin, size uintptr) (clMem, error) {
	if c.cu != nil {
		return cudaSubBuffer(parent, origin), nil
	}
	region := [2]uintptr{origin, size}
	var code int32
	mem := cl.CreateSubBuffer(parent, clMemReadWrite, clBufferCreateTypeRegion, unsafe.Pointer(&region[0]), &code)
	if code != 0 {
		return 0, check(code, "clCreateSubBuffer", fmt.Sprintf("%d bytes at %d", size, origin))
	}
	return mem, nil
}

// releaseMem frees a buffer's memory object (what createBuffer or
// createSubBuffer made; sub marks the latter). On CUDA a group's buffer
// is an address into its parent, and only an allocation is freed.
func (c *Context) releaseMem(m clMem, sub bool, what string) error {
	if c.cu != nil {
		if sub {
			return nil
		}
		return c.cu.free(m)
	}
	return check(cl.ReleaseMemObject(m), "clReleaseMemObject", what)
}
