package sgemm

import (
	"fmt"
	"runtime"
	"sync"
)

// Tile and block sizes: the micro-kernel computes an MR×NR tile; kc values of
// k are packed at a time (a 6×kc A strip and a kc×16 B strip stay in L1:
// (6+16)·256·4 B = 22 KiB of the 32 KiB).
const (
	MR = 6
	NR = 16
	kc = 256
	// nc columns of B are packed at a time (a kc×nc panel: 256·4096·4 B =
	// 4 MiB, shared by the workers), so the packing buffer no longer grows
	// with n: an im2col product of a 32-image minibatch of 32×32 images has
	// n = 32768 and needed a 32 MiB buffer per call before.
	nc = 4096
	// small is the m·n·k below which packing costs more than it saves.
	small = 16 * 16 * 16
)

// useAsm selects the assembly micro-kernel (set at start-up from the CPU's
// features; tests switch it off to check the Go kernel).
var useAsm = haveAsm

// Sgemm computes C = α·op(A)·op(B) + β·C for row-major matrices: op(A) is
// m×k (A itself, m×k with row stride lda, or with tA the transpose of the
// k×m matrix A), op(B) is k×n (B, k×n with stride ldb, or with tB the
// transpose of the n×k matrix B), C is m×n with stride ldc. It panics, as
// BLAS routines do, when a slice is too short for its dimensions.
func Sgemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkArgs(tA, tB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	if m == 0 || n == 0 {
		return
	}
	if beta != 1 {
		for i := 0; i < m; i++ {
			row := c[i*ldc : i*ldc+n]
			if beta == 0 {
				clear(row)
			} else {
				for j := range row {
					row[j] *= beta
				}
			}
		}
	}
	if k == 0 || alpha == 0 {
		return
	}
	if m*n*k <= small {
		naive(tA, tB, m, n, k, alpha, a, lda, b, ldb, c, ldc)
		return
	}
	blocked(tA, tB, m, n, k, alpha, a, lda, b, ldb, c, ldc)
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
	check := func(name string, l, rows, cols, ld int) {
		if ld < max(cols, 1) {
			panic(fmt.Sprintf("sgemm: %s has stride %d, want ≥ %d", name, ld, max(cols, 1)))
		}
		if rows > 0 && cols > 0 && l < (rows-1)*ld+cols {
			panic(fmt.Sprintf("sgemm: %s has %d values, want ≥ %d for %d×%d with stride %d", name, l, (rows-1)*ld+cols, rows, cols, ld))
		}
	}
	check("A", la, ar, ac, lda)
	check("B", lb, br, bc, ldb)
	check("C", lc, m, n, ldc)
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
// nc columns and each kc-slice of k, B's block is packed once into
// NR-column strips, then row blocks of C are shared out to the workers, each
// packing its MR-row strips of A (times α) and running the micro-kernel over
// every (A strip, B strip) pair.
func blocked(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	for jc := 0; jc < n; jc += nc {
		nn := min(nc, n-jc)
		blockedPanel(tA, tB, m, nn, k, alpha, a, lda, b, ldb, jc, c[jc:], ldc)
	}
}

// blockedPanel computes the columns jc:jc+n of C (c starts at column jc).
func blockedPanel(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb, jc int, c []float32, ldc int) {
	nStrips := (n + NR - 1) / NR
	workers := min(runtime.GOMAXPROCS(0), (m+MR-1)/MR)
	// Row blocks: about 4 per worker, a multiple of MR, at most 192 rows.
	mc := (m + 4*workers - 1) / (4 * workers)
	mc = min(max((mc+MR-1)/MR*MR, MR), 192)
	nBlocks := (m + mc - 1) / mc
	bp := getBuf(kc * nStrips * NR)
	defer bufs.Put(bp)
	for pc := 0; pc < k; pc += kc {
		kk := min(kc, k-pc)
		packB(tB, b, ldb, pc, kk, jc, n, *bp)
		var next int
		var mu sync.Mutex
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ap := getBuf(mc * kk)
				defer bufs.Put(ap)
				tile := make([]float32, MR*NR)
				for {
					mu.Lock()
					blk := next
					next++
					mu.Unlock()
					if blk >= nBlocks {
						return
					}
					ic := blk * mc
					rows := min(mc, m-ic)
					packA(tA, a, lda, alpha, ic, rows, pc, kk, *ap)
					for ir := 0; ir < rows; ir += MR {
						mr := min(MR, rows-ir)
						aStrip := (*ap)[ir*kk : ir*kk+MR*kk]
						for js := 0; js < nStrips; js++ {
							nr := min(NR, n-js*NR)
							bStrip := (*bp)[js*kk*NR : (js+1)*kk*NR]
							ci := (ic+ir)*ldc + js*NR
							if mr == MR && nr == NR {
								kernel(kk, aStrip, bStrip, c[ci:], ldc)
								continue
							}
							clear(tile)
							kernel(kk, aStrip, bStrip, tile, NR)
							for i := 0; i < mr; i++ {
								row := c[ci+i*ldc : ci+i*ldc+nr]
								for j := range row {
									row[j] += tile[i*NR+j]
								}
							}
						}
					}
				}
			}()
		}
		wg.Wait()
	}
}

// packB writes B(pc:pc+kk, jc:jc+n) as strips of NR columns, k-major within
// a strip (strip s holds kk rows of NR values), zero-padded past n.
func packB(tB bool, b []float32, ldb, pc, kk, jc, n int, dst []float32) {
	nStrips := (n + NR - 1) / NR
	for s := 0; s < nStrips; s++ {
		strip := dst[s*kk*NR : (s+1)*kk*NR]
		j0 := jc + s*NR
		nr := min(NR, n-s*NR)
		for p := 0; p < kk; p++ {
			out := strip[p*NR : (p+1)*NR]
			if tB {
				for j := 0; j < nr; j++ {
					out[j] = b[(j0+j)*ldb+pc+p]
				}
			} else {
				copy(out[:nr], b[(pc+p)*ldb+j0:(pc+p)*ldb+j0+nr])
			}
			clear(out[nr:])
		}
	}
}

// packA writes α·A(ic:ic+rows, pc:pc+kk) as strips of MR rows, k-major
// within a strip (strip r holds kk columns of MR values), zero-padded past
// rows.
func packA(tA bool, a []float32, lda int, alpha float32, ic, rows, pc, kk int, dst []float32) {
	for ir := 0; ir < rows; ir += MR {
		strip := dst[ir*kk : ir*kk+MR*kk]
		mr := min(MR, rows-ir)
		if mr < MR {
			clear(strip) // the padding rows
		}
		if tA { // A is k×m: for each k the strip's mr values are contiguous
			for p := 0; p < kk; p++ {
				src := a[(pc+p)*lda+ic+ir : (pc+p)*lda+ic+ir+mr]
				out := strip[p*MR : p*MR+mr]
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
		for i := 0; i < mr; i++ { // one row of A at a time, written at stride MR
			src := a[(ic+ir+i)*lda+pc : (ic+ir+i)*lda+pc+kk]
			out := strip[i:]
			if alpha == 1 {
				for p, v := range src {
					out[p*MR] = v
				}
				continue
			}
			for p, v := range src {
				out[p*MR] = alpha * v
			}
		}
	}
}

// kernel adds the product of a packed A strip (kk×MR) and a packed B strip
// (kk×NR) into the MR×NR tile of c with row stride ldc.
func kernel(kk int, a, b, c []float32, ldc int) {
	if useAsm {
		_ = a[kk*MR-1]
		_ = b[kk*NR-1]
		_ = c[(MR-1)*ldc+NR-1]
		kernelAsm(kk, &a[0], &b[0], &c[0], ldc)
		return
	}
	kernelGo(kk, a, b, c, ldc)
}

// kernelGo is the portable micro-kernel: the same tile, the same packed
// layout and the same order of summation over k as the assembly one.
func kernelGo(kk int, a, b, c []float32, ldc int) {
	var acc [MR * NR]float32
	for p := 0; p < kk; p++ {
		bs := b[p*NR : p*NR+NR]
		as := a[p*MR : p*MR+MR]
		for i := 0; i < MR; i++ {
			ai := as[i]
			row := acc[i*NR : i*NR+NR]
			for j := range row {
				row[j] += ai * bs[j]
			}
		}
	}
	for i := 0; i < MR; i++ {
		row := c[i*ldc : i*ldc+NR]
		for j := range row {
			row[j] += acc[i*NR+j]
		}
	}
}
