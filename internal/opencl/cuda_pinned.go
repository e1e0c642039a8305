package opencl

import (
	"fmt"
	"sync"
	"unsafe"
)

// Page-locked staging for the CUDA driver's transfers (doc.go, "The CUDA
// driver"). A copy between the device and pageable host memory (Go's) is
// not asynchronous: the driver stages a host-to-device copy through a
// buffer of its own, which may wait for the stream, and a device-to-host
// copy returns only once it is done, after all the work before it. Every
// step's upload of its batch would then drain the GPU's queue and every
// Buffer.ReadAsync would be a hidden blocking wait, so that the host's
// launches of the next step never overlap the device's work on this one.
// From page-locked memory (cuMemHostAlloc) both copies are truly
// asynchronous, so every transfer goes through an arena of it.

// cudaHostAPI holds the driver's page-locked memory functions (cuda.h),
// bound apart from cudaAPI when a context opens.
type cudaHostAPI struct {
	// CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
	MemHostAlloc func(p *unsafe.Pointer, bytes uintptr, flags uint32) int32
	// CUresult cuMemFreeHost(void *p)
	MemFreeHost func(p unsafe.Pointer) int32
}

var (
	cuHostOnce sync.Once
	cuHost     cudaHostAPI
	cuHostErr  error
)

// loadCUDAHost binds the page-locked memory functions from the driver
// library loadCUDA opened (both exist since CUDA 2.2).
func loadCUDAHost() error {
	if err := loadCUDA(); err != nil {
		return err
	}
	cuHostOnce.Do(func() {
		cuHostErr = bindLibrary(cudaFile, cudaLibEnv, cudaPackage, cudaHostSymbols())
	})
	return cuHostErr
}

// cudaHostSymbols are the page-locked memory functions' symbols
// (TestCUDABindingsMatchHeaders holds them to cuda.h's prototypes).
func cudaHostSymbols() []symbol {
	return []symbol{
		{"cuMemHostAlloc", &cuHost.MemHostAlloc},
		{"cuMemFreeHost", &cuHost.MemFreeHost},
	}
}

const (
	// pinnedChunk is the smallest page-locked allocation: a step's input
	// batch and its few reads fit in one (a WRN's CIFAR batch is 1.5 MiB),
	// so a training run allocates once and reuses it every step.
	pinnedChunk = 4 << 20
	// pinnedKeep bounds the chunk the arena keeps once the stream has run
	// dry (pinnedArena.keeper).
	pinnedKeep = 64 << 20
	// pinnedAlign aligns each transfer's staging (DMA prefers aligned
	// host addresses; 256 is cuMemAlloc's alignment too).
	pinnedAlign = 256
)

// pinnedArena hands out page-locked staging for the transfers enqueued
// since the stream last ran dry. A region is never handed out twice
// before reset, which runs only after a stream synchronisation, so no
// copy can find its staging overwritten by a later transfer before it
// ran. It grows by a chunk when full; reset keeps one chunk, so a run's
// steady demand (a step's batch and reads) settles on one chunk that
// holds it all. It is called with the context's lock held, and take, reset
// (where excess says so) and free with the context current.
type pinnedArena struct {
	chunks []pinnedRegion
	cur    int     // the chunk take allocates from; the ones before are full
	hint   uintptr // the last period's demand (at most pinnedKeep): the least a new chunk holds
}

type pinnedRegion struct {
	p          unsafe.Pointer
	size, used uintptr
}

// take returns n > 0 bytes of staging, valid until reset.
func (a *pinnedArena) take(n uintptr) ([]byte, error) {
	need := (n + pinnedAlign - 1) / pinnedAlign * pinnedAlign
	for ; a.cur < len(a.chunks); a.cur++ {
		c := &a.chunks[a.cur]
		if c.size-c.used >= need {
			s := unsafe.Slice((*byte)(unsafe.Add(c.p, c.used)), n)
			c.used += need
			return s, nil
		}
	}
	// A new chunk at least as large as the others together (a growing
	// demand allocates a logarithmic number of times) and as the last
	// period's demand, in whole MiB.
	size := max(uintptr(pinnedChunk), need, a.hint)
	total := uintptr(0)
	for _, c := range a.chunks {
		total += c.size
	}
	size = (max(size, total) + 1<<20 - 1) >> 20 << 20
	var p unsafe.Pointer
	if err := cuCheck(cuHost.MemHostAlloc(&p, size, 0), "cuMemHostAlloc", fmt.Sprintf("%d bytes of page-locked staging", size)); err != nil {
		return nil, err
	}
	liveObjects.Add(1)
	a.chunks = append(a.chunks, pinnedRegion{p: p, size: size, used: need})
	a.cur = len(a.chunks) - 1
	return unsafe.Slice((*byte)(p), n), nil
}

// keeper is the chunk reset keeps: the largest of at most pinnedKeep
// bytes (a larger one-off transfer, a model's parameters read for a
// checkpoint, is not held page-locked for the rest of the run), or -1.
func (a *pinnedArena) keeper() int {
	k := -1
	for i, c := range a.chunks {
		if c.size <= pinnedKeep && (k < 0 || c.size > a.chunks[k].size) {
			k = i
		}
	}
	return k
}

// excess reports whether reset frees chunks (and so needs the context
// current).
func (a *pinnedArena) excess() bool {
	return len(a.chunks) > 1 || len(a.chunks) == 1 && a.keeper() != 0
}

// reset makes the staging free again: called after the stream has run
// dry (every copy from or into staging has run, and the staged reads
// have been delivered). It keeps one chunk and frees the others,
// remembering the period's demand for the next chunk's size.
func (a *pinnedArena) reset() error {
	var err error
	demand, k := uintptr(0), a.keeper()
	kept := a.chunks[:0:0]
	for i, c := range a.chunks {
		demand += c.used
		if i == k {
			c.used = 0
			kept = append(kept, c)
		} else if e := a.freeRegion(c); e != nil && err == nil {
			err = e
		}
	}
	a.chunks, a.cur, a.hint = kept, 0, min(demand, pinnedKeep)
	return err
}

// free frees every chunk (the context is closing; the stream has run dry).
func (a *pinnedArena) free() error {
	var err error
	for _, c := range a.chunks {
		if e := a.freeRegion(c); e != nil && err == nil {
			err = e
		}
	}
	a.chunks, a.cur = nil, 0
	return err
}

func (a *pinnedArena) freeRegion(c pinnedRegion) error {
	liveObjects.Add(-1)
	return cuCheck(cuHost.MemFreeHost(c.p), "cuMemFreeHost", fmt.Sprintf("%d bytes of page-locked staging", c.size))
}

// recycle makes the staging free for reuse once the stream has run dry
// (queue.go's drained, after a blocking read, a finish or a wait for
// staged writes, with the staged reads delivered).
func (d *cudaCtx) recycle() error {
	if !d.pinned.excess() {
		return d.pinned.reset() // frees nothing: no driver call
	}
	unbind, err := d.bind()
	if err != nil {
		return err
	}
	defer unbind()
	return d.pinned.reset()
}
