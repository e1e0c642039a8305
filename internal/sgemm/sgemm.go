package sgemm

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/llpfc/llpfc/internal/stepprof"
)

// Block sizes: at most kc values of k are packed at a time (kBlock splits k
// evenly): Sgemm keeps a kc×nr B strip (≤ 24 KiB) in L1 while the mr×kc A
// strips of a row block stream past it from L2 (the packed products keep an
// A strip in L1 and stream B; rowBlock). kc = 384 rather than 256 keeps
// k = 288 (the 3×3 convolutions of 32 channels) in one block: 25088×64×288
// ran at 78–83 GFLOP/s with two blocks of 144 and 120–126 with one
// (bench/NOTES.md). kc is fixed, since it decides the results (Blocking.KC); the
// row blocks (mc) and column panels (nc) come from the caches (blocking.go).
const (
	kc = 384
	// small is the m·n·k below which packing costs more than it saves.
	small = 16 * 16 * 16
	// maxTile bounds mr·nr over the kernels (the edge-tile scratch).
	maxTile = 8 * 32
)

// Kernel is one micro-kernel: it adds the product of a packed A strip
// (kk×MR, k-major) and a packed B strip (kk×NR) into an MR×NR tile of C.
type Kernel struct {
	Name   string
	MR, NR int
	// asm is an assembly kernel for one tile; strips one that runs n
	// consecutive A strips of a packed block against one B strip in one
	// call (rowBlock), a tile with n = 1. Both nil: the portable Go kernel.
	asm    func(kk int, a, b, c *float32, ldc int, load bool)
	strips func(kk int, a, b, c *float32, ldc int, load bool, n int)
}

// The kernels this package has: the AVX-512 8×32 and the AVX2+FMA 6×16 Go
// assembly kernels (amd64), and the portable Go kernel with each tile.
var (
	KernelAVX512 = Kernel{Name: "avx512-8x32", MR: 8, NR: 32, asm: kernelAVX512}
	KernelAVX2   = Kernel{Name: "avx2-6x16", MR: 6, NR: 16, strips: kernelAsmStrips}
	KernelGo     = Kernel{Name: "go-6x16", MR: 6, NR: 16}
	KernelGo8x32 = Kernel{Name: "go-8x32", MR: 8, NR: 32}
	kernels      = []Kernel{KernelAVX512, KernelAVX2, KernelGo, KernelGo8x32}
)

// active is the kernel Sgemm uses: the widest the processor runs, chosen
// at start-up from its features, or the one the environment variable
// LLPFC_SGEMM_KERNEL names (avx512-8x32, avx2-6x16, go-6x16, go-8x32; for
// benchmarks); SetKernel changes it.
var active = fromEnv(os.Getenv(KernelEnv))

// KernelEnv names the environment variable that forces the micro-kernel
// (Kernel.Name), for benchmarks.
const KernelEnv = "LLPFC_SGEMM_KERNEL"

// fromEnv returns the kernel named name, or Best() when name is empty,
// unknown or not supported here (an unknown or unsupported name is reported
// on standard error once).
func fromEnv(name string) Kernel {
	if name == "" {
		return Best()
	}
	for _, k := range kernels {
		if k.Name == name && Supported(k) {
			return k
		}
	}
	fmt.Fprintf(os.Stderr, "sgemm: %s=%q is not a kernel this processor runs; using %s\n", KernelEnv, name, Best().Name)
	return Best()
}

// Best returns the fastest kernel this processor can run: AVX-512 where
// the processor and the operating system support it, else AVX2+FMA, else
// the portable Go kernel.
func Best() Kernel {
	switch {
	case haveAVX512:
		return KernelAVX512
	case haveAsm:
		return KernelAVX2
	}
	return KernelGo
}

// Supported reports whether this processor can run k.
func Supported(k Kernel) bool {
	switch k.Name {
	case KernelAVX512.Name:
		return haveAVX512
	case KernelAVX2.Name:
		return haveAsm
	}
	return true
}

// SetKernel makes Sgemm use k and returns the kernel it used before; it
// panics if the processor cannot run k. It is not safe to call while
// products run.
func SetKernel(k Kernel) Kernel {
	if !Supported(k) {
		panic(fmt.Sprintf("sgemm: kernel %s is not supported by this processor", k.Name))
	}
	old := active
	active = k
	return old
}

// Active returns the kernel Sgemm uses.
func Active() Kernel { return active }

// Sgemm computes C = α·op(A)·op(B) + β·C for row-major matrices: op(A) is
// m×k (A itself, m×k with row stride lda, or with tA the transpose of the
// k×m matrix A), op(B) is k×n (B, k×n with stride ldb, or with tB the
// transpose of the n×k matrix B), C is m×n with stride ldc. It panics, as
// BLAS routines do, when a slice is too short for its dimensions. A product
// whose op(B) holds subnormal values is computed the other way round, to
// the same bits (broadcast.go).
func Sgemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkArgs(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || alpha == 0 || m*n*k <= small {
		scale(m, n, beta, c, ldc)
		if k > 0 && alpha != 0 {
			naive(tA, tB, m, n, k, alpha, a, lda, b, ldb, c, ldc)
		}
		return
	}
	if broadcastBFirst(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta) {
		broadcastB(tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
		return
	}
	if beta != 0 {
		scale(m, n, beta, c, ldc)
	}
	blocked(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta != 0, c, ldc)
}

func checkArgs(tA, tB bool, m, n, k, la, lda, lb, ldb, lc, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic(fmt.Sprintf("sgemm: negative dimension m=%d n=%d k=%d", m, n, k))
	}
	ar, ac := m, k
	if tA {
		ar, ac = k, m
	}
	br, bc := k, n
	if tB {
		br, bc = n, k
	}
	checkOperand("A", la, ar, ac, lda)
	checkOperand("B", lb, br, bc, ldb)
	checkOperand("C", lc, m, n, ldc)
}

// scale multiplies C (m×n, stride ldc) by β; β = 0 clears it (NaN-free).
func scale(m, n int, beta float32, c []float32, ldc int) {
	if beta == 1 {
		return
	}
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// naive is the plain triple loop, for small products.
func naive(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	for i := 0; i < m; i++ {
		for p := 0; p < k; p++ {
			var av float32
			if tA {
				av = a[p*lda+i]
			} else {
				av = a[i*lda+p]
			}
			av *= alpha
			if av == 0 {
				continue
			}
			row := c[i*ldc : i*ldc+n]
			if tB {
				for j := range row {
					row[j] += av * b[j*ldb+p]
				}
			} else {
				brow := b[p*ldb : p*ldb+n]
				for j := range row {
					row[j] += av * brow[j]
				}
			}
		}
	}
}

// panelHook, set by tests, sees each panel's columns and row-block height.
var panelHook func(cols, mc int)

var bufs = sync.Pool{New: func() any { s := make([]float32, 0); return &s }}

func getBuf(n int) *[]float32 {
	p := bufs.Get().(*[]float32)
	if cap(*p) < n {
		*p = make([]float32, n)
	}
	*p = (*p)[:n]
	return p
}

// blocked is the packed product (the GotoBLAS loop order): for each panel of
// nc columns and each k-block, B's block is packed once into NR-column
// strips, then row blocks of C are shared out to the workers, each packing
// its MR-row strips of A (times α) and running the micro-kernel over every
// (A strip, B strip) pair; with several workers the k-blocks follow one
// another with no barrier between them (pipeline). When C is wider than
// tall, the columns are split instead (splitCols): each worker packs only
// its own strips of B and all of A, so no worker waits while another packs
// B.
func blocked(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, load bool, c []float32, ldc int) {
	kern := active
	workers := runtime.GOMAXPROCS(0)
	nStrips := (n + kern.NR - 1) / kern.NR
	// The step profile's width: C's column strips when they are split,
	// else its row strips (the row blocks the workers share).
	width := (m + kern.MR - 1) / kern.MR
	if n > m && nStrips > 1 {
		width = nStrips
	}
	defer stepprof.Parallel(width, false).End()
	if workers > 1 && n > m && nStrips > 1 {
		splitCols(kern, tA, tB, m, n, k, alpha, a, lda, b, ldb, load, c, ldc, min(workers, nStrips))
		return
	}
	panels(kern, tA, tB, m, 0, n, k, alpha, a, lda, b, ldb, load, c, ldc, min(workers, (m+kern.MR-1)/kern.MR))
}

// splitCols gives each of w goroutines a contiguous run of B's NR-column
// strips; each computes its columns of C alone.
func splitCols(kern Kernel, tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, load bool, c []float32, ldc, w int) {
	nStrips := (n + kern.NR - 1) / kern.NR
	var wg sync.WaitGroup
	for i := 0; i < w; i++ {
		j0, j1 := i*nStrips/w*kern.NR, min((i+1)*nStrips/w*kern.NR, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			panels(kern, tA, tB, m, j0, j1, k, alpha, a, lda, b, ldb, load, c, ldc, 1)
		}()
	}
	wg.Wait()
}

// panels computes the columns j0:j1 of C in panels of at most NC columns
// (NCA where rowBlock keeps A strips outer), each with the given number of
// workers over its row blocks.
func panels(kern Kernel, tA, tB bool, m, j0, j1, k int, alpha float32, a []float32, lda int, b []float32, ldb int, load bool, c []float32, ldc, workers int) {
	nc := blocking.NC
	if !bStripsOuter(kern, kBlock(k)) {
		nc = blocking.ncA() // each A strip sweeps the panel: keep it in L2
	}
	for jc := j0; jc < j1; jc += nc {
		nn := min(nc, j1-jc)
		blockedPanel(kern, tA, tB, m, nn, k, alpha, a, lda, b, ldb, jc, load, c[jc:], ldc, workers)
	}
}

// kBlock returns the k-block length: k split into ⌈k/kc⌉ blocks of equal
// length (a multiple of 4), so that no block is a short remainder (k = 288
// is two blocks of 144, not 256 + 32: a short block costs a full pass of
// loads and stores over C for few multiply-adds).
func kBlock(k int) int {
	nb := (k + kc - 1) / kc
	return min(kc, ((k+nb-1)/nb+3)/4*4)
}

// blockedPanel adds (load) or writes (!load: β = 0, C not read) the columns
// jc:jc+n of the product into C (c starts at column jc), with the given
// number of workers sharing its row blocks (1: this goroutine alone).
func blockedPanel(kern Kernel, tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb, jc int, load bool, c []float32, ldc, workers int) {
	mr, nr := kern.MR, kern.NR
	nStrips := (n + nr - 1) / nr
	// Row blocks: about 4 per worker, of at most the blocking's MC rows (an
	// A block in half of L2), their number a multiple of the workers', each
	// a run of whole mr-row strips, the runs' lengths differing by one strip
	// at most: blocks of equal rows left the worker with the short last one
	// idle at each k-block's end, 3 % of 2048³ on two cores (lever 9).
	mc := (m + 4*workers - 1) / (4 * workers)
	mc = min(max((mc+mr-1)/mr*mr, mr), max(blocking.MC/mr*mr, mr))
	rowStrips := (m + mr - 1) / mr
	nBlocks := min((m+mc-1)/mc, rowStrips)
	if nBlocks > workers {
		nBlocks = min((nBlocks+workers-1)/workers*workers, rowStrips)
	}
	mc = (rowStrips + nBlocks - 1) / nBlocks * mr // the longest block
	if panelHook != nil {
		panelHook(n, mc)
	}
	kb := kBlock(k)
	bOuter := bStripsOuter(kern, kb)
	block := func(blk, pc, kk int, ap, bp []float32, tile []float32) {
		ic := blk * rowStrips / nBlocks * mr
		rows := min((blk+1)*rowStrips/nBlocks*mr, m) - ic
		packA(mr, tA, a, lda, alpha, ic, rows, pc, kk, ap)
		rowBlock(kern, rows, n, kk, ap, bp, load || pc > 0, c[ic*ldc:], ldc, tile[:mr*nr], bOuter)
	}
	if workers == 1 {
		bp, ap := getBuf(kb*nStrips*nr), getBuf(mc*kb)
		defer bufs.Put(bp)
		defer bufs.Put(ap)
		var tile [maxTile]float32
		for pc := 0; pc < k; pc += kb {
			kk := min(kb, k-pc)
			packB(nr, tB, b, ldb, pc, kk, jc, n, *bp)
			for blk := range nBlocks {
				block(blk, pc, kk, *ap, *bp, tile[:])
			}
		}
		return
	}
	pieces := min(2*workers, nStrips)
	pipeline(workers, (k+kb-1)/kb, nBlocks, pieces, kb*nStrips*nr, mc*kb,
		func(p, piece int, bp []float32) {
			pc := p * kb
			kk := min(kb, k-pc)
			s0, s1 := piece*nStrips/pieces, (piece+1)*nStrips/pieces
			packB(nr, tB, b, ldb, pc, kk, jc+s0*nr, min(n, s1*nr)-s0*nr, bp[s0*kk*nr:s1*kk*nr])
		},
		func(p, blk int, ap, bp, tile []float32) {
			pc := p * kb
			block(blk, pc, min(kb, k-pc), ap, bp, tile)
		})
}

// pipeline runs a panel's nP k-blocks on the given number of workers with
// no barrier between k-blocks (bench/NOTES.md, "Lever 10"). The
// work is one sequence of tasks, taken in order by whichever worker is
// free: for each k-block p, the pieces of the packing of its B block, then
// its nBlocks row blocks. Row block blk of k-block p waits for p's B block
// to be packed and for blk of k-block p−1 (C's rows take the k-blocks in
// order, so the sums, and the bits, are those of the loop one worker
// runs); the packing of p waits until the buffer it reuses, that of p−2,
// has been read by all of p−2's row blocks. Each task waits only on tasks
// before it in the sequence, all taken by running workers, so the
// pipeline cannot deadlock. A worker that ends its last row block of p
// early packs p+1's B and goes on with p+1's first row blocks: a barrier
// per k-block left it idle for 4 % of a 2048³ product on two cores.
func pipeline(workers, nP, nBlocks, pieces, bLen, aLen int, pack func(p, piece int, bp []float32), compute func(p, blk int, ap, bp, tile []float32)) {
	bps := make([]*[]float32, min(2, nP)) // B blocks p, p+1
	for i := range bps {
		bps[i] = getBuf(bLen)
		defer bufs.Put(bps[i])
	}
	var (
		mu        sync.Mutex
		cond      = sync.NewCond(&mu)
		packed    = make([]int, nP)      // pieces of p's B block packed
		computed  = make([]int, nP)      // row blocks of p done
		blockDone = make([]int, nBlocks) // k-blocks done in each row block
		next      atomic.Int64
	)
	wait := func(ready func() bool) {
		mu.Lock()
		for !ready() {
			cond.Wait()
		}
		mu.Unlock()
	}
	done := func(update func()) {
		mu.Lock()
		update()
		mu.Unlock()
		cond.Broadcast()
	}
	perP := pieces + nBlocks
	work := func() {
		ap := getBuf(aLen)
		defer bufs.Put(ap)
		var tile [maxTile]float32
		for {
			t := int(next.Add(1) - 1)
			if t >= nP*perP {
				return
			}
			p, i := t/perP, t%perP
			bp := *bps[p%len(bps)]
			if pipelineHook != nil {
				if i < pieces {
					pipelineHook(true, p, i, i == pieces-1)
				} else {
					pipelineHook(false, p, i-pieces, i == perP-1)
				}
			}
			if i < pieces {
				if p >= len(bps) {
					wait(func() bool { return computed[p-len(bps)] == nBlocks })
				}
				pack(p, i, bp)
				done(func() { packed[p]++ })
				continue
			}
			blk := i - pieces
			wait(func() bool { return packed[p] == pieces && blockDone[blk] == p })
			compute(p, blk, *ap, bp, tile[:])
			done(func() { computed[p]++; blockDone[blk]++ })
		}
	}
	onWorkers(workers, work)
}

// onWorkers runs work on the given number of goroutines (the caller's
// alone for one) and returns when all have returned.
func onWorkers(workers int, work func()) {
	if workers == 1 {
		work()
		return
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	wg.Wait()
}

// pipelineHook, set by tests, runs before each of pipeline's tasks: the
// packing of piece i of k-block p's B (pack) or row block i of p, the last
// piece or row block of p when last.
var pipelineHook func(pack bool, p, i int, last bool)

// rowBlock multiplies a packed block of A (rows × kk, in MR-row strips) by
// the packed B block (kk × n, in NR-column strips) and adds the product to
// C's rows (load) or writes it there (!load), tile by tile; edge tiles go
// through tile. With bOuter false it takes each A strip against every B
// strip (the A strip stays in L1 while the B strips stream from L2: the
// packed products' callers size B for it). With bOuter true, for Sgemm's
// row blocks whose strips fit in L1 (bStripsOuter), it takes each B strip
// against every A strip: the block (at most MC rows, half of L2) streams
// from L2 past the B strip in L1, and the B panel (up to NC columns, in L3)
// is read once per block, where A strip by A strip each would sweep the
// panel from L3 (bench/NOTES.md, "Lever 9"). Each tile is the same
// product in either order, so the results are the same.
func rowBlock(kern Kernel, rows, n, kk int, ap, bp []float32, load bool, c []float32, ldc int, tile []float32, bOuter bool) {
	nA, nB := (rows+kern.MR-1)/kern.MR, (n+kern.NR-1)/kern.NR
	if full := rows / kern.MR; bOuter && kern.strips != nil && full > 0 {
		// A B strip against the block's full A strips in one call (a Go
		// call a tile was 3 % of 2048³), the partial strip and the edge
		// columns' tiles through tileProduct.
		for jb := range nB {
			ia0 := 0
			if jb*kern.NR+kern.NR <= n {
				kern.runStrips(kk, ap, bp[jb*kk*kern.NR:(jb+1)*kk*kern.NR], c[jb*kern.NR:], ldc, load, full)
				ia0 = full
			}
			for ia := ia0; ia < nA; ia++ {
				tileProduct(kern, rows, n, kk, ia*kern.MR, jb, ap, bp, load, c, ldc, tile)
			}
		}
		return
	}
	for t := range nA * nB {
		ia, jb := t/nB, t%nB
		if bOuter {
			ia, jb = t%nA, t/nA
		}
		tileProduct(kern, rows, n, kk, ia*kern.MR, jb, ap, bp, load, c, ldc, tile)
	}
}

// bStripsOuter reports whether Sgemm's row blocks take their B strips
// outer (rowBlock): where a B strip and an A strip of kb values of k fit in
// L1d together, as the AVX2 kernel's (22 + 8 KiB at kb = 344 in 32 KiB)
// do. The AVX-512 kernel's B strip (48 KiB at kb = 384) does not fit, and
// keeps A strips outer, as before lever 9 (not measured on such a machine).
func bStripsOuter(kern Kernel, kb int) bool {
	return stripsFit(kern, kb, blocking.Caches.L1d)
}

// stripsFit reports whether a B strip and an A strip of kb values of k fit
// in an L1d of l1d bytes together.
func stripsFit(kern Kernel, kb, l1d int) bool {
	return (kern.MR+kern.NR)*kb*4 <= l1d
}

// tileProduct adds (or writes) the product of A strip ir/mr and B strip js
// to C's tile (ir, js·nr), through tile where the C tile is cut by an edge.
func tileProduct(kern Kernel, rows, n, kk, ir, js int, ap, bp []float32, load bool, c []float32, ldc int, tile []float32) {
	mr, nr := kern.MR, kern.NR
	h, w := min(mr, rows-ir), min(nr, n-js*nr)
	aStrip := ap[ir*kk : ir*kk+mr*kk]
	bStrip := bp[js*kk*nr : (js+1)*kk*nr]
	ci := ir*ldc + js*nr
	if h == mr && w == nr {
		kern.run(kk, aStrip, bStrip, c[ci:], ldc, load)
		return
	}
	kern.run(kk, aStrip, bStrip, tile, nr, false)
	for i := 0; i < h; i++ {
		row, t := c[ci+i*ldc:ci+i*ldc+w], tile[i*nr:i*nr+w]
		if !load {
			copy(row, t)
			continue
		}
		for j := range row {
			row[j] += t[j]
		}
	}
}

// packB writes B(pc:pc+kk, jc:jc+n) as strips of nr columns, k-major within
// a strip (strip s holds kk rows of nr values), zero-padded past n.
func packB(nr int, tB bool, b []float32, ldb, pc, kk, jc, n int, dst []float32) {
	nStrips := (n + nr - 1) / nr
	full := n / nr // strips without padding
	if !usePackAsm {
		full = 0
	}
	if !tB {
		// Row by row of B (read in order), each row dealt out to the
		// strips: strip by strip read each strip's kk rows 4·ldb bytes
		// apart, a cache line each (bench/NOTES.md, "Lever 4: a strip's row of B").
		// The full strips take a row's values eight at a time (dealRow; a
		// copy call per strip and row was a sixth of 128×512×784, lever 9).
		if full > 0 {
			_ = dst[(full-1)*kk*nr+kk*nr-1]
			_ = b[(pc+kk-1)*ldb+jc+full*nr-1]
		}
		for p := 0; p < kk; p++ {
			row := b[(pc+p)*ldb+jc : (pc+p)*ldb+jc+n]
			if full > 0 {
				dealRow(&dst[p*nr], &row[0], full, nr, kk*nr)
			}
			for s := full; s < nStrips; s++ {
				out := dst[s*kk*nr+p*nr : s*kk*nr+(p+1)*nr]
				w := min(nr, n-s*nr)
				copy(out[:w], row[s*nr:s*nr+w])
				clear(out[w:])
			}
		}
		return
	}
	for s := 0; s < nStrips; s++ {
		strip := dst[s*kk*nr : (s+1)*kk*nr]
		j0 := jc + s*nr
		if s < full {
			// B's columns are rows of the transpose: 8×8 blocks in AVX
			// registers (a value at a time this was most of the pack).
			transposeInto(strip, nr, b[j0*ldb+pc:], ldb, kk)
			continue
		}
		w := min(nr, n-s*nr)
		for p := 0; p < kk; p++ {
			out := strip[p*nr : (p+1)*nr]
			for j := 0; j < w; j++ {
				out[j] = b[(j0+j)*ldb+pc+p]
			}
			clear(out[w:])
		}
	}
}

// usePackAsm selects the AVX packing of B's full strips (tests switch it off
// to compare it with the loops).
var usePackAsm = haveAsm

// usePack6x8 selects the AVX transposes for full strips of a non-transposed
// A: pack6x8 for six-row strips (the AVX2 kernel's), transpose8x8 for
// eight-row ones (the AVX-512 kernel's). Tests switch it off to compare
// them with the loop.
var usePack6x8 = haveAsm

// packA writes α·A(ic:ic+rows, pc:pc+kk) as strips of mr rows, k-major
// within a strip (strip r holds kk columns of mr values), zero-padded past
// rows.
func packA(mr int, tA bool, a []float32, lda int, alpha float32, ic, rows, pc, kk int, dst []float32) {
	for ir := 0; ir < rows; ir += mr {
		strip := dst[ir*kk : ir*kk+mr*kk]
		h := min(mr, rows-ir)
		if h < mr {
			clear(strip) // the padding rows
		}
		if tA { // A is k×m: for each k the strip's h values are contiguous
			for p := 0; p < kk; p++ {
				src := a[(pc+p)*lda+ic+ir : (pc+p)*lda+ic+ir+h]
				out := strip[p*mr : p*mr+h]
				if alpha == 1 {
					copy(out, src)
					continue
				}
				for i, v := range src {
					out[i] = alpha * v
				}
			}
			continue
		}
		p0 := 0
		if usePack6x8 && mr == 6 && h == 6 && alpha == 1 {
			// Eight columns of the six rows at a time, transposed in AVX
			// registers (the Winograd convolution's ∂/∂W packs a K×T
			// operand per product: by single values this took a twelfth
			// of WRN-16-4's step).
			_ = a[(ic+ir+5)*lda+pc+kk-1]
			for ; p0+8 <= kk; p0 += 8 {
				pack6x8(&strip[p0*6], &a[(ic+ir)*lda+pc+p0], lda)
			}
		}
		if usePack6x8 && mr == 8 && h == 8 && alpha == 1 {
			// The 8-row strip's eight columns are an 8×8 transpose (a
			// value at a time this was 9.5 % of WRN-16-4's step on an
			// AVX-512 machine, bench/NOTES.md).
			_ = a[(ic+ir+7)*lda+pc+kk-1]
			for ; p0+8 <= kk; p0 += 8 {
				transpose8x8(&strip[p0*8], 8, &a[(ic+ir)*lda+pc+p0], lda)
			}
		}
		for i := 0; i < h && p0 < kk; i++ { // one row of A at a time, written at stride mr
			src := a[(ic+ir+i)*lda+pc+p0 : (ic+ir+i)*lda+pc+kk]
			out := strip[p0*mr+i:]
			if alpha == 1 {
				for p, v := range src {
					out[p*mr] = v
				}
				continue
			}
			for p, v := range src {
				out[p*mr] = alpha * v
			}
		}
	}
}

// run adds the product of a packed A strip (kk×MR) and a packed B strip
// (kk×NR) into the MR×NR tile of c with row stride ldc (load), or writes it
// there without reading c (!load).
func (kern Kernel) run(kk int, a, b, c []float32, ldc int, load bool) {
	_ = a[kk*kern.MR-1]
	_ = b[kk*kern.NR-1]
	_ = c[(kern.MR-1)*ldc+kern.NR-1]
	switch {
	case kern.strips != nil:
		kern.strips(kk, &a[0], &b[0], &c[0], ldc, load, 1)
		return
	case kern.asm != nil:
		kern.asm(kk, &a[0], &b[0], &c[0], ldc, load)
		return
	}
	kernelGo(kern.MR, kern.NR, kk, a, b, c, ldc, load)
}

// runStrips runs the kernel's strips function over the first n A strips of
// the packed block a (n·MR·kk values) against the B strip b, into the n
// tiles of c below one another.
func (kern Kernel) runStrips(kk int, a, b, c []float32, ldc int, load bool, n int) {
	_ = a[n*kk*kern.MR-1]
	_ = b[kk*kern.NR-1]
	_ = c[(n*kern.MR-1)*ldc+kern.NR-1]
	kern.strips(kk, &a[0], &b[0], &c[0], ldc, load, n)
}

// kernelGo is the portable micro-kernel for any tile: the same packed
// layout and the same order of summation over k as the assembly ones.
func kernelGo(mr, nr, kk int, a, b, c []float32, ldc int, load bool) {
	var acc [maxTile]float32
	for p := 0; p < kk; p++ {
		bs := b[p*nr : p*nr+nr]
		as := a[p*mr : p*mr+mr]
		for i, ai := range as {
			row := acc[i*nr : i*nr+nr]
			for j, bv := range bs {
				row[j] += ai * bv
			}
		}
	}
	for i := 0; i < mr; i++ {
		row := c[i*ldc : i*ldc+nr]
		if !load {
			copy(row, acc[i*nr:i*nr+nr])
			continue
		}
		for j := range row {
			row[j] += acc[i*nr+j]
		}
	}
}
