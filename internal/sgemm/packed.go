package sgemm

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/llpfc/llpfc/internal/stepprof"
)

// Products with operands packed by the caller (the convolutions' lever):
// a convolution multiplies the same weights by every image of a
// minibatch, and its other operand is an image unfolded by im2col, which
// can be written straight into the packed layout. Sgemm would pack the
// weights again for each image and copy each unfolded image a second time;
// these functions take the packed operands instead and run in the calling
// goroutine (the convolution already shares its images out to the cores).
//
// The packed layout is the one Sgemm uses internally: k is split into
// kBlock(k)-long blocks; within a block starting at pc of length kk, A is
// stored as strips of MR rows (strip r: kk columns of MR values, k-major)
// and B as strips of NR columns (strip s: kk rows of NR values), both
// zero-padded to whole strips; block pc starts at pc·(rows rounded up to
// MR) for A and pc·(columns rounded up to NR) for B.

// PackedA is α·op(A) (m×k) packed for one kernel, or rows r0:r0+m of such
// a matrix (Rows).
type PackedA struct {
	kern     Kernel
	m, k     int
	mPad, r0 int // the packed matrix's rows rounded up to MR; the first row of this view
	data     []float32
}

// Rows returns the rows r0:r1 of a as a packed operand of r1 − r0 rows,
// sharing a's data; r0 must be a multiple of the kernel's MR.
func (a PackedA) Rows(r0, r1 int) PackedA {
	if r0%a.kern.MR != 0 || r0 < 0 || r1 < r0 || r1 > a.m {
		panic(fmt.Sprintf("sgemm: rows %d:%d of a packed %d-row operand with MR = %d", r0, r1, a.m, a.kern.MR))
	}
	a.r0 += r0
	a.m = r1 - r0
	return a
}

// block returns the packed rows of the view in the k-block starting at pc,
// of length kk.
func (a PackedA) block(pc, kk int) []float32 {
	start := pc*a.mPad + a.r0*kk
	return a.data[start : start+roundUp(a.m, a.kern.MR)*kk]
}

// PackedB is op(B) (k×n) packed for one kernel.
type PackedB struct {
	kern Kernel
	k, n int
	data []float32
}

func roundUp(x, to int) int { return (x + to - 1) / to * to }

// PackedASize is the length of the buffer PackA needs for an m×k operand
// with the active kernel.
func PackedASize(m, k int) int { return roundUp(m, active.MR) * k }

// PackedBSize is the length of the buffer PackBRows and PackBCols need for a
// k×n operand with the active kernel.
func PackedBSize(k, n int) int { return roundUp(n, active.NR) * k }

// PackA packs α·op(A) (op(A) = A, m×k with stride lda, or with tA the
// transpose of the k×m matrix A) into buf for the active kernel.
func PackA(tA bool, m, k int, alpha float32, a []float32, lda int, buf []float32) PackedA {
	kern := active
	mPad, kb, size := packAShape(kern, tA, m, k, a, lda, buf)
	for pc := 0; pc < k; pc += kb {
		packA(kern.MR, tA, a, lda, alpha, 0, m, pc, min(kb, k-pc), buf[pc*mPad:])
	}
	return PackedA{kern: kern, m: m, k: k, mPad: mPad, data: buf[:size]}
}

// packAShape checks op(A) (m×k, or with tA the transpose of the k×m matrix
// A, stride lda) and buf, and returns the packed operand's padded rows, its
// k-block and its length: what PackA and PackAOnCores share.
func packAShape(kern Kernel, tA bool, m, k int, a []float32, lda int, buf []float32) (mPad, kb, size int) {
	ar, ac := m, k
	if tA {
		ar, ac = k, m
	}
	checkOperand("A", len(a), ar, ac, lda)
	mPad, kb = roundUp(m, kern.MR), kBlock(k)
	size = mPad * k
	if len(buf) < size {
		panic(fmt.Sprintf("sgemm: PackA buffer of %d values, want %d", len(buf), size))
	}
	return mPad, kb, size
}

// PackAOnCores is PackA with A's MR-row strips shared out to up to
// GOMAXPROCS goroutines, for an operand a caller packs once while nothing
// else runs (a convolution's weights, up to 512×4608 values each run): the
// same packed values, written in parallel. Small operands are packed by the
// caller's goroutine.
func PackAOnCores(tA bool, m, k int, alpha float32, a []float32, lda int, buf []float32) PackedA {
	kern := active
	strips := (m + kern.MR - 1) / kern.MR
	workers := min(runtime.GOMAXPROCS(0), strips, m*k/(1<<15))
	if workers <= 1 {
		return PackA(tA, m, k, alpha, a, lda, buf)
	}
	mPad, kb, size := packAShape(kern, tA, m, k, a, lda, buf)
	defer stepprof.Parallel(strips, false).End()
	var wg sync.WaitGroup
	for w := range workers {
		r0, r1 := w*strips/workers*kern.MR, min((w+1)*strips/workers*kern.MR, m)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for pc := 0; pc < k; pc += kb {
				kk := min(kb, k-pc)
				packA(kern.MR, tA, a, lda, alpha, r0, r1-r0, pc, kk, buf[pc*mPad+r0*kk:])
			}
		}()
	}
	wg.Wait()
	return PackedA{kern: kern, m: m, k: k, mPad: mPad, data: buf[:size]}
}

// PackBRows packs the k×n matrix B into buf for the active kernel; row(p,
// dst) writes row p of B (n values) into dst, a scratch row that the call
// reuses.
func PackBRows(k, n int, buf []float32, row func(p int, dst []float32)) PackedB {
	kern := active
	nr, nPad, kb := kern.NR, roundUp(n, kern.NR), kBlock(k)
	b := newPackedB(kern, k, n, buf)
	tmp := getBuf(nPad)
	defer bufs.Put(tmp)
	r := *tmp
	clear(r[n:])
	for pc := 0; pc < k; pc += kb {
		kk := min(kb, k-pc)
		blk := buf[pc*nPad : pc*nPad+kk*nPad]
		for p := 0; p < kk; p++ {
			row(pc+p, r[:n])
			for s := 0; s < nPad/nr; s++ {
				copy(blk[s*kk*nr+p*nr:s*kk*nr+(p+1)*nr], r[s*nr:(s+1)*nr])
			}
		}
	}
	return b
}

// PackedBRow locates row p of a k×n operand B in the packed layout of the
// active kernel: B(p, j) lies at base + (j/nr)·stripStride + j%nr. A caller
// that computes B row by row can write it there itself and wrap the buffer
// with PackedBFrom (the Winograd convolution's transforms do: no copy).
func PackedBRow(k, n, p int) (base, stripStride, nr int) {
	nr, nPad, kb := active.NR, roundUp(n, active.NR), kBlock(k)
	pc := p / kb * kb
	return pc*nPad + (p-pc)*nr, min(kb, k-pc) * nr, nr
}

// PackedBFrom wraps buf, which holds a k×n operand written in the packed
// layout of the active kernel (PackedBRow; the columns past n are read by
// the micro-kernel but reach no entry of C), as a PackedB.
func PackedBFrom(k, n int, buf []float32) PackedB { return newPackedB(active, k, n, buf) }

// PackBCols packs the k×n matrix B into buf for the active kernel; col(j,
// dst) writes column j of B (k values) into dst. A strip's NR columns are
// gathered into scratch rows, then interleaved by 8×8 transposes
// (transposeInto): writing each column at stride NR touched a new cache line
// per value (bench/NOTES.md).
func PackBCols(k, n int, buf []float32, col func(j int, dst []float32)) PackedB {
	kern := active
	nr, nPad, kb := kern.NR, roundUp(n, kern.NR), kBlock(k)
	b := newPackedB(kern, k, n, buf)
	ld := k + 16 // not a multiple of 4 KiB: nr rows read together would share L1 sets
	tmp := getBuf(nr * ld)
	defer bufs.Put(tmp)
	cols := *tmp
	for s := 0; s < nPad/nr; s++ {
		for jj := 0; jj < nr; jj++ {
			if j := s*nr + jj; j < n {
				col(j, cols[jj*ld:jj*ld+k])
			} else {
				clear(cols[jj*ld : jj*ld+k])
			}
		}
		interleaveStrip(buf, k, nPad, kb, nr, s, cols, ld)
	}
	return b
}

// interleaveStrip writes strip st of a packed k×n operand B (nPad padded
// columns, k-blocks of kb) into buf from its NR columns, the rows of cols
// with stride ld: each k-block by 8×8 transposes (transposeInto).
func interleaveStrip(buf []float32, k, nPad, kb, nr, st int, cols []float32, ld int) {
	for pc := 0; pc < k; pc += kb {
		kk := min(kb, k-pc)
		transposeInto(buf[pc*nPad+st*kk*nr:pc*nPad+(st+1)*kk*nr], nr, cols[pc:], ld, kk)
	}
}

// PackBTrans packs B = Sᵀ into buf for the active kernel, where S is the
// n×k matrix with stride lds: B's column j is S's row j, already in
// memory, so each full strip of NR columns is interleaved straight from S
// by the 8×8 transposes (PackBCols would copy each row out first; the last,
// partial strip still goes through PackBCols' zero-padded scratch). The
// packed values are PackBCols'. A stride that is a multiple of 1024 values
// makes S's rows share L1 sets; Winograd's ∂/∂W gives T + 16.
func PackBTrans(k, n int, buf []float32, s []float32, lds int) PackedB {
	kern := active
	nr, nPad, kb := kern.NR, roundUp(n, kern.NR), kBlock(k)
	checkOperand("S", len(s), n, k, lds)
	b := newPackedB(kern, k, n, buf)
	full := n / nr
	for st := 0; st < full; st++ {
		interleaveStrip(buf, k, nPad, kb, nr, st, s[st*nr*lds:], lds)
	}
	if rest := n - full*nr; rest > 0 {
		ld := k + 16
		tmp := getBuf(nr * ld)
		defer bufs.Put(tmp)
		cols := *tmp
		for jj := 0; jj < nr; jj++ {
			if jj < rest {
				j := full*nr + jj
				copy(cols[jj*ld:jj*ld+k], s[j*lds:j*lds+k])
			} else {
				clear(cols[jj*ld : jj*ld+k])
			}
		}
		interleaveStrip(buf, k, nPad, kb, nr, full, cols, ld)
	}
	return b
}

// transposeInto writes out[p*nr+jj] = cols[jj*ld+p] for p < kk, jj < nr:
// by 8×8 blocks in AVX registers where the processor has AVX2, the rest
// one value at a time.
func transposeInto(out []float32, nr int, cols []float32, ld, kk int) {
	p0 := 0
	if haveAsm && nr%8 == 0 {
		_ = out[kk*nr-1]
		_ = cols[(nr-1)*ld+kk-1]
		for ; p0+8 <= kk; p0 += 8 {
			for j0 := 0; j0 < nr; j0 += 8 {
				transpose8x8(&out[p0*nr+j0], nr, &cols[j0*ld+p0], ld)
			}
		}
	}
	for p := p0; p < kk; p++ {
		row := out[p*nr : (p+1)*nr]
		for jj := range row {
			row[jj] = cols[jj*ld+p]
		}
	}
}

func newPackedB(kern Kernel, k, n int, buf []float32) PackedB {
	size := roundUp(n, kern.NR) * k
	if len(buf) < size {
		panic(fmt.Sprintf("sgemm: packed B buffer of %d values, want %d", len(buf), size))
	}
	return PackedB{kern: kern, k: k, n: n, data: buf[:size]}
}

// GemmPacked computes C = A·B + β·C for packed A (m×k) and B (k×n), C m×n
// with stride ldc, in the calling goroutine.
func GemmPacked(a PackedA, b PackedB, beta float32, c []float32, ldc int) {
	if a.kern.Name != b.kern.Name || a.k != b.k {
		panic(fmt.Sprintf("sgemm: packed operands %s %d×%d and %s %d×%d do not match", a.kern.Name, a.m, a.k, b.kern.Name, b.k, b.n))
	}
	m, n, k := a.m, b.n, a.k
	checkOperand("C", len(c), m, n, ldc)
	nPad := roundUp(n, b.kern.NR)
	packedProduct(a.kern, m, n, k, beta, c, ldc, a.block,
		func(pc, kk int) []float32 { return b.data[pc*nPad : pc*nPad+kk*nPad] })
}

// GemmPackedA computes C = A·op(B) + β·C for packed A (m×k) and op(B) = B
// (k×n with stride ldb) or with tB the transpose of the n×k matrix B,
// packing B block by block, in the calling goroutine.
func GemmPackedA(a PackedA, n int, tB bool, b []float32, ldb int, beta float32, c []float32, ldc int) {
	m, k := a.m, a.k
	br, bc := k, n
	if tB {
		br, bc = n, k
	}
	checkOperand("B", len(b), br, bc, ldb)
	checkOperand("C", len(c), m, n, ldc)
	nr := a.kern.NR
	bp := getBuf(kBlock(k) * roundUp(n, nr))
	defer bufs.Put(bp)
	packedProduct(a.kern, m, n, k, beta, c, ldc, a.block,
		func(pc, kk int) []float32 { packB(nr, tB, b, ldb, pc, kk, 0, n, *bp); return *bp })
}

// GemmPackedB computes C = α·op(A)·B + β·C for op(A) = A (m×k with stride
// lda) or with tA the transpose of the k×m matrix A, and packed B (k×n),
// packing A block by block, in the calling goroutine.
func GemmPackedB(tA bool, m int, alpha float32, a []float32, lda int, b PackedB, beta float32, c []float32, ldc int) {
	n, k := b.n, b.k
	ar, ac := m, k
	if tA {
		ar, ac = k, m
	}
	checkOperand("A", len(a), ar, ac, lda)
	checkOperand("C", len(c), m, n, ldc)
	nPad, mr := roundUp(n, b.kern.NR), b.kern.MR
	ap := getBuf(kBlock(k) * roundUp(m, mr))
	defer bufs.Put(ap)
	packedProduct(b.kern, m, n, k, beta, c, ldc,
		func(pc, kk int) []float32 { packA(mr, tA, a, lda, alpha, 0, m, pc, kk, *ap); return *ap },
		func(pc, kk int) []float32 { return b.data[pc*nPad : pc*nPad+kk*nPad] })
}

// packedProduct computes C = A·B + β·C block by block of k, taking each
// block's packed A and B from the two functions; with β = 0 the first block
// writes C without reading it.
func packedProduct(kern Kernel, m, n, k int, beta float32, c []float32, ldc int, aBlock, bBlock func(pc, kk int) []float32) {
	if kern.Name != active.Name {
		panic(fmt.Sprintf("sgemm: operands packed for %s, the active kernel is %s", kern.Name, active.Name))
	}
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || beta != 0 {
		scale(m, n, beta, c, ldc)
	}
	var tile [maxTile]float32
	kb := kBlock(k)
	for pc := 0; pc < k; pc += kb {
		kk := min(kb, k-pc)
		rowBlock(kern, m, n, kk, aBlock(pc, kk), bBlock(pc, kk), beta != 0 || pc > 0, c, ldc, tile[:kern.MR*kern.NR], false)
	}
}

// checkOperand panics, as BLAS routines do, when a slice is too short for a
// rows×cols matrix with stride ld.
func checkOperand(name string, l, rows, cols, ld int) {
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("sgemm: %s has negative dimensions %d×%d", name, rows, cols))
	}
	if ld < max(cols, 1) {
		panic(fmt.Sprintf("sgemm: %s has stride %d, want ≥ %d", name, ld, max(cols, 1)))
	}
	if rows > 0 && cols > 0 && l < (rows-1)*ld+cols {
		panic(fmt.Sprintf("sgemm: %s has %d values, want ≥ %d for %d×%d with stride %d", name, l, (rows-1)*ld+cols, rows, cols, ld))
	}
}
