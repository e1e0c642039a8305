package sgemm

import (
	"runtime"
	"sync/atomic"

	"github.com/llpfc/llpfc/internal/stepprof"
	"github.com/llpfc/llpfc/internal/vec"
)

// The operand broadcast. The micro-kernels broadcast op(A)'s values one at
// a time and read op(B)'s as vectors of NR/2 or NR lanes. On Intel's
// processors a multiplication that reads or makes a subnormal value takes a
// microcode assist of about a hundred cycles for the whole vector
// instruction, so a subnormal in op(B) slows every instruction whose vector
// holds it, once for each of op(A)'s m rows, where one in op(A) slows only
// the instructions that broadcast it. A network's output gradients are such
// an operand in the first steps of training: in VGG16's classifier at
// batch 32, 0.2–5 % of ∂/∂W's values are subnormal in steps 2–6, and its
// ∂/∂W = Xᵀ·Δ (25088×4096, k = 32) took 73 ms on normal values, 418–439 ms
// with 1 % of Δ subnormal and Δ in op(B)'s place, 117–125 ms the other way
// round (bench/NOTES.md, "The operand broadcast"). So where op(B) holds a
// subnormal and op(A) none, Sgemm computes Cᵀ = op(B)ᵀ·op(A)ᵀ instead and
// writes it back transposed (broadcastB), to the same bits.

// broadcastMinRows is the least m for which Sgemm looks for subnormals: the
// look reads op(B)'s k·n values once, eight a cycle in AVX2, where the
// product makes m·n·k multiply-adds, up to 32 a cycle with AVX-512: under
// 1 % of the product from 512 rows on. The products it is for have as many
// rows as a layer has inputs (∂/∂W of a dense layer: VGG16's classifier's
// 25088 and 4096).
const broadcastMinRows = 512

// broadcastChunk bounds the values of Cᵀ a worker of broadcastB holds at a
// time (512 KiB, in L2 with the packed operand's strips streaming past;
// tests lower it to cut small products into several chunks).
var broadcastChunk = 1 << 17

// broadcastOn lets tests compare the two ways round; broadcastHook, set by
// tests, sees each product broadcastB computes.
var (
	broadcastOn   = true
	broadcastHook func(m, n, k int)
)

// broadcastBFirst reports whether C = α·op(A)·op(B) + β·C is better
// computed the other way round: only for α = 1 and β = 0 (α is folded into
// A's packing and β into C before the product, and either would round
// differently the other way), from broadcastMinRows rows, and where op(B)
// holds a subnormal and op(A) none.
func broadcastBFirst(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32) bool {
	if !broadcastOn || alpha != 1 || beta != 0 || m < broadcastMinRows {
		return false
	}
	br, bc := k, n
	if tB {
		br, bc = n, k
	}
	if !matHasSubnormal(b, br, bc, ldb) {
		return false
	}
	ar, ac := m, k
	if tA {
		ar, ac = k, m
	}
	return !matHasSubnormal(a, ar, ac, lda)
}

// matHasSubnormal reports whether the rows×cols matrix x (row stride ld)
// holds a subnormal value.
func matHasSubnormal(x []float32, rows, cols, ld int) bool {
	if ld == cols {
		return vec.HasSubnormal(x[:rows*cols])
	}
	for i := range rows {
		if vec.HasSubnormal(x[i*ld : i*ld+cols]) {
			return true
		}
	}
	return false
}

// broadcastB computes C = op(A)·op(B) as its transpose Cᵀ = op(B)ᵀ·op(A)ᵀ:
// op(B)ᵀ packed once as the broadcast operand, then C's rows in chunks of
// whole NR-column strips of Cᵀ, taken by the threads as they come free,
// each computed into the thread's buffer (GemmPackedA) and transposed into
// C from L2. Each value of C is the same sum in the same order either way
// round (the micro-kernels' multiply-adds over k from zero, the k-blocks of
// kBlock(k) added in order, α = 1, β = 0), so the bits are blocked's
// (TestBroadcastBKeepsTheBits).
func broadcastB(tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if broadcastHook != nil {
		broadcastHook(m, n, k)
	}
	nr := active.NR
	// Chunks of at most broadcastChunk values of Cᵀ, and at least one a
	// thread.
	threads := runtime.GOMAXPROCS(0)
	rows := min(roundUp((m+threads-1)/threads, nr), max(nr, broadcastChunk/n/nr*nr))
	chunks := (m + rows - 1) / rows
	workers := min(threads, chunks)
	defer stepprof.Parallel(chunks, false).End()
	ap := getBuf(PackedASize(n, k))
	defer bufs.Put(ap)
	pa := PackAOnCores(!tB, n, k, 1, b, ldb, *ap)
	var next atomic.Int64
	work := func() {
		tp := getBuf(n * rows)
		defer bufs.Put(tp)
		for {
			i0 := int(next.Add(1)-1) * rows
			if i0 >= m {
				return
			}
			mm := min(rows, m-i0)
			// op(A)ᵀ's columns i0:i0+mm, the transposed product's B.
			var a0 []float32
			if tA {
				a0 = a[i0:]
			} else {
				a0 = a[i0*lda:]
			}
			t := (*tp)[:n*mm]
			GemmPackedA(pa, mm, !tA, a0, lda, 0, t, mm)
			transposeMat(c[i0*ldc:], ldc, t, mm, n, mm)
		}
	}
	onWorkers(workers, work)
}

// transposeMat writes dst[j*ldd+i] = src[i*lds+j] for i < rows, j < cols:
// 8×8 blocks in AVX registers where the processor has AVX2, sixteen of
// src's rows at a time so that each 64-byte line of dst is written whole
// while it is in L1 (dst's rows are often a power of two apart, and its
// lines would leave L1 between their halves), the edges a value at a time.
func transposeMat(dst []float32, ldd int, src []float32, lds, rows, cols int) {
	if rows == 0 || cols == 0 {
		return
	}
	_ = dst[(cols-1)*ldd+rows-1]
	_ = src[(rows-1)*lds+cols-1]
	i := 0
	if haveAsm {
		for ; i+16 <= rows; i += 16 {
			j := 0
			for ; j+8 <= cols; j += 8 {
				transpose8x8(&dst[j*ldd+i], ldd, &src[i*lds+j], lds)
				transpose8x8(&dst[j*ldd+i+8], ldd, &src[(i+8)*lds+j], lds)
			}
			transposeEdge(dst, ldd, src, lds, i, i+16, j, cols)
		}
	}
	transposeEdge(dst, ldd, src, lds, i, rows, 0, cols)
}

// transposeEdge writes dst[j*ldd+i] = src[i*lds+j] for i0 ≤ i < i1 and
// j0 ≤ j < j1, a value at a time.
func transposeEdge(dst []float32, ldd int, src []float32, lds, i0, i1, j0, j1 int) {
	for j := j0; j < j1; j++ {
		row := dst[j*ldd+i0 : j*ldd+i1]
		for ii := range row {
			row[ii] = src[(i0+ii)*lds+j]
		}
	}
}
