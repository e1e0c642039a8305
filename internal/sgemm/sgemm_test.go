package sgemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reference computes α·op(A)·op(B) + β·C in float64, the obvious way.
func reference(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) []float64 {
	out := make([]float64, len(c))
	for i := range c {
		out[i] = float64(c[i])
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for p := 0; p < k; p++ {
				var av, bv float32
				if tA {
					av = a[p*lda+i]
				} else {
					av = a[i*lda+p]
				}
				if tB {
					bv = b[j*ldb+p]
				} else {
					bv = b[p*ldb+j]
				}
				s += float64(av) * float64(bv)
			}
			out[i*ldc+j] = float64(alpha)*s + float64(beta)*float64(c[i*ldc+j])
		}
	}
	return out
}

func randSlice(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(2*r.Float64() - 1)
	}
	return s
}

// checkCase runs Sgemm on one random case and compares with the float64
// reference: every entry within a float32 rounding bound that grows with k.
func checkCase(t *testing.T, r *rand.Rand, tA, tB bool, m, n, k, pad int, alpha, beta float32) {
	t.Helper()
	ar, ac := m, k
	if tA {
		ar, ac = k, m
	}
	br, bc := k, n
	if tB {
		br, bc = n, k
	}
	lda, ldb, ldc := max(ac+pad, 1), max(bc+pad, 1), max(n+pad, 1)
	a := randSlice(r, max(ar*lda, 1))
	b := randSlice(r, max(br*ldb, 1))
	c := randSlice(r, max(m*ldc, 1))
	want := reference(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	tol := 1e-5 * float64(k+2)
	for i := range c {
		// The check before the call: testify's per-call t.Helper would triple the test's time over
		// the millions of entries.
		if d := math.Abs(float64(c[i]) - want[i]); d > tol {
			require.Failf(t, "entry out of tolerance", "tA=%v tB=%v m=%d n=%d k=%d pad=%d α=%v β=%v: c[%d] = %v, want %v (diff %.3g > %.3g)",
				tA, tB, m, n, k, pad, alpha, beta, i, c[i], want[i], d, tol)
		}
	}
}

// allKernels returns every kernel this processor runs: the assembly ones
// it supports and the portable Go kernel with each tile.
func allKernels(t testing.TB) []Kernel {
	var ks []Kernel
	for _, k := range kernels {
		if Supported(k) {
			ks = append(ks, k)
		} else {
			t.Logf("kernel %s not supported here: not checked", k.Name)
		}
	}
	return ks
}

// Every micro-kernel (AVX-512 and AVX2+FMA assembly where the processor has
// them, and the portable Go one with both tiles) agrees with the float64
// reference on every transposed form, on edge shapes (1×1, k = 1, sizes that
// are not multiples of either tile or of the k-block, strides wider than
// the rows), large enough to take the packed path, the row blocks of
// several workers and the column split, with α and β.
func TestSgemmMatchesReference(t *testing.T) {
	defer SetKernel(Active())
	shapes := [][3]int{{1, 1, 1}, {1, 17, 3}, {7, 1, 5}, {6, 16, 1}, {5, 15, 2}, {8, 32, 3}, {9, 33, 40}, {13, 33, 257}, {48, 64, 64},
		{97, 31, 300}, {128, 100, 513}, {200, 17, 40}, {33, 160, 1}, {70, 200, 300}, {64, 1024, 30}, {17, 65, 800},
		{7, ncMax + 37, 20}, {13, 2*ncMax + 5, 300}} // the last two span several panels of NC ≤ 4096 columns
	// At least 4 goroutines, so that the row split over workers runs here whatever the number of CPUs.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(4, runtime.GOMAXPROCS(0))))
	for _, kern := range allKernels(t) {
		SetKernel(kern)
		r := rand.New(rand.NewPCG(1, 2))
		for _, s := range shapes {
			for _, tA := range []bool{false, true} {
				for _, tB := range []bool{false, true} {
					for _, pad := range []int{0, 3} {
						t.Run(fmt.Sprintf("%s/%dx%dx%d/tA=%v/tB=%v/pad=%d", kern.Name, s[0], s[1], s[2], tA, tB, pad), func(t *testing.T) {
							checkCase(t, r, tA, tB, s[0], s[1], s[2], pad, 1, 0)
							checkCase(t, r, tA, tB, s[0], s[1], s[2], pad, 0.5, 1)
							checkCase(t, r, tA, tB, s[0], s[1], s[2], pad, -2, 0.25)
						})
					}
				}
			}
		}
	}
}

// TestBestKernel: the kernel chosen at start-up is the widest the processor
// runs (on this project's machine, an AMD EPYC with AVX-512, the 8×32 one).
func TestBestKernel(t *testing.T) {
	want := KernelGo.Name
	switch {
	case haveAVX512:
		want = KernelAVX512.Name
	case haveAsm:
		want = KernelAVX2.Name
	}
	assert.Equal(t, want, Best().Name)
	assert.Equal(t, want, Active().Name)
	if !haveAVX512 {
		assert.Panics(t, func() { SetKernel(KernelAVX512) })
	}
}

// The same inputs give the same bits every time (each tile of C is summed by
// one goroutine in a fixed order), and α = 0 or k = 0 only scales C by β.
func TestSgemmDeterministicAndDegenerate(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	m, n, k := 150, 70, 600
	a, b := randSlice(r, m*k), randSlice(r, k*n)
	first := make([]float32, m*n)
	Sgemm(false, false, m, n, k, 1, a, k, b, n, 0, first, n)
	for i := 0; i < 5; i++ {
		again := make([]float32, m*n)
		Sgemm(false, false, m, n, k, 1, a, k, b, n, 0, again, n)
		require.Equal(t, first, again)
	}
	c := []float32{1, 2, 3, 4}
	Sgemm(false, false, 2, 2, 0, 1, nil, 1, nil, 2, 3, c, 2)
	assert.Equal(t, []float32{3, 6, 9, 12}, c)
	Sgemm(false, false, 2, 2, 2, 0, []float32{1, 1, 1, 1}, 2, []float32{1, 1, 1, 1}, 2, 0, c, 2)
	assert.Equal(t, []float32{0, 0, 0, 0}, c, "β = 0 clears C (NaN-free even if C held NaN)")
	assert.Panics(t, func() {
		Sgemm(false, false, 2, 2, 2, 1, make([]float32, 3), 2, make([]float32, 4), 2, 0, make([]float32, 4), 2)
	})
	assert.Panics(t, func() {
		Sgemm(false, false, 2, 2, 2, 1, make([]float32, 4), 1, make([]float32, 4), 2, 0, make([]float32, 4), 2)
	})
}

// FuzzSgemm draws shapes, forms and strides and checks against the reference.
func FuzzSgemm(f *testing.F) {
	f.Add(uint8(7), uint8(19), uint16(33), uint8(0), uint8(1))
	f.Add(uint8(64), uint8(64), uint16(300), uint8(3), uint8(2))
	f.Fuzz(func(t *testing.T, m, n uint8, k uint16, form, pad uint8) {
		r := rand.New(rand.NewPCG(uint64(m), uint64(k)))
		checkCase(t, r, form&1 == 1, form&2 == 2, int(m)%80+1, int(n)%80+1, int(k)%700, int(pad)%4, 1.5, 0.5)
	})
}

// The AVX-512 and AVX2 kernels give the same bits (docs/speed.md, bench/NOTES.md):
// every entry of C is summed over k in the same order by fused
// multiply-adds whatever the tile, and an edge tile is added to C with one
// rounding as a full tile is; so are the packed products.
func TestAssemblyKernelsBitIdentical(t *testing.T) {
	if !Supported(KernelAVX512) || !Supported(KernelAVX2) {
		t.Skip("needs both AVX-512 and AVX2 (this project's machine has both)")
	}
	defer SetKernel(Active())
	r := rand.New(rand.NewPCG(7, 8))
	for _, s := range [][3]int{{37, 70, 500}, {128, 512, 784}, {9, 33, 1000}, {200, 17, 40}} {
		m, n, k := s[0], s[1], s[2]
		for _, tr := range []bool{false, true} {
			a, b, c0 := randSlice(r, m*k), randSlice(r, k*n), randSlice(r, m*n)
			lda, ldb := k, n
			if tr {
				lda, ldb = m, k
			}
			run := func(kern Kernel, beta float32) ([]float32, []float32) {
				SetKernel(kern)
				c := append([]float32(nil), c0...)
				Sgemm(tr, tr, m, n, k, 1.5, a, lda, b, ldb, beta, c, n)
				pc := append([]float32(nil), c0...)
				pa := PackA(tr, m, k, 1.5, a, lda, make([]float32, PackedASize(m, k)))
				GemmPackedA(pa, n, tr, b, ldb, beta, pc, n)
				return c, pc
			}
			for _, beta := range []float32{0, 0.5} {
				c512, p512 := run(KernelAVX512, beta)
				c2, p2 := run(KernelAVX2, beta)
				require.Equal(t, c2, c512, "Sgemm %v t=%v β=%v", s, tr, beta)
				require.Equal(t, p2, p512, "GemmPackedA %v t=%v β=%v", s, tr, beta)
			}
		}
	}
}

// rowBlock's two orders (A strips outer for the packed products, B strips
// outer for Sgemm's row blocks) compute every tile, edge tiles included,
// and give the same bits: each tile is one kernel call either way.
func TestRowBlockOrdersAgree(t *testing.T) {
	kern := Active()
	r := rand.New(rand.NewPCG(5, 6))
	for _, s := range [][3]int{{1, 1, 1}, {kern.MR, kern.NR, 7}, {3*kern.MR + 2, 4*kern.NR + 5, 40}, {50, 3, 100}, {2, 90, 9}} {
		rows, n, kk := s[0], s[1], s[2]
		ap := randSlice(r, roundUp(rows, kern.MR)*kk)
		bp := randSlice(r, roundUp(n, kern.NR)*kk)
		c0 := randSlice(r, rows*(n+3))
		for _, load := range []bool{false, true} {
			var got [2][]float32
			for i, bOuter := range []bool{false, true} {
				got[i] = append([]float32(nil), c0...)
				rowBlock(kern, rows, n, kk, ap, bp, load, got[i], n+3, make([]float32, kern.MR*kern.NR), bOuter)
			}
			require.Equal(t, got[0], got[1], "%v load=%v", s, load)
			// every entry of C is the product's (edge tiles and padding included)
			for i := 0; i < rows; i++ {
				for j := 0; j < n+3; j++ {
					want := float64(c0[i*(n+3)+j])
					if j < n {
						s := 0.0
						for p := 0; p < kk; p++ {
							s += float64(ap[(i/kern.MR)*kern.MR*kk+p*kern.MR+i%kern.MR]) * float64(bp[(j/kern.NR)*kern.NR*kk+p*kern.NR+j%kern.NR])
						}
						if load {
							want += s
						} else {
							want = s
						}
					}
					require.InDelta(t, want, float64(got[1][i*(n+3)+j]), 1e-4*float64(kk+2), "%v load=%v (%d,%d)", s, load, i, j)
				}
			}
		}
	}
}

// packB's AVX paths for full strips (dealRow for B, 8×8 transposes for its
// transpose) write what its loops write, padding included, for every
// kernel's strip width, column offset and stride.
func TestPackBAsmMatchesLoops(t *testing.T) {
	if !usePackAsm {
		t.Skip("no AVX2 here: packB runs its loops only")
	}
	defer func() { usePackAsm = true }()
	r := rand.New(rand.NewPCG(11, 12))
	for _, nr := range []int{16, 32} {
		for _, s := range [][4]int{{1, 1, 0, 0}, {7, 16, 0, 0}, {9, 40, 3, 5}, {33, 100, 17, 2}, {8, 64, 0, 1}, {300, 70, 1, 9}} {
			kk, n, jc, pad := s[0], s[1], s[2], s[3]
			for _, tB := range []bool{false, true} {
				pc := 2
				rows, cols := pc+kk, jc+n // B is k×n; its transpose n×k
				if tB {
					rows, cols = jc+n, pc+kk
				}
				ldb := cols + pad
				b := randSlice(r, rows*ldb)
				size := roundUp(n, nr) * kk
				var got [2][]float32
				for i, asm := range []bool{true, false} {
					usePackAsm = asm
					got[i] = randSlice(r, size+5) // stale values must be overwritten, the tail left alone
					tail := append([]float32(nil), got[i][size:]...)
					packB(nr, tB, b, ldb, pc, kk, jc, n, got[i][:size])
					require.Equal(t, tail, got[i][size:], "packB wrote past its strips")
				}
				require.Equal(t, got[1][:size], got[0][:size], "nr=%d %v tB=%v", nr, s, tB)
			}
		}
	}
}

// The pipeline of k-blocks (several workers, no barrier between k-blocks)
// gives the bits of the loop one worker runs, and keeps its three orders
// when one task is held up while the other workers run ahead: a row block
// after the packing of its B block, k-block p+1 of a row block after p
// (p = 0 writes C, the rest add), and the packing of k-block p+2 into the
// buffer of p after p's last row block has read it. Each case delays one
// task by 20 ms with four workers; without the order it guards, the
// others overtake it and C differs from one worker's.
func TestPipelineKeepsOrder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer func() { pipelineHook = nil }()
	r := rand.New(rand.NewPCG(9, 10))
	for _, s := range [][3]int{{200, 64, 5 * kc}, {97, 40, 3*kc + 7}, {60, 33, kc + 1}, {30, 20, 50}} {
		m, n, k := s[0], s[1], s[2]
		nP := (k + kc - 1) / kc
		for _, tr := range []bool{false, true} {
			a, b, c0 := randSlice(r, m*k), randSlice(r, k*n), randSlice(r, m*n)
			lda, ldb := k, n
			if tr {
				lda, ldb = m, k
			}
			product := func(workers int, hook func(pack bool, p, i int, last bool)) []float32 {
				runtime.GOMAXPROCS(workers)
				pipelineHook = hook
				defer func() { pipelineHook = nil; runtime.GOMAXPROCS(4) }()
				c := append([]float32(nil), c0...)
				Sgemm(tr, tr, m, n, k, 1.5, a, lda, b, ldb, 0.5, c, n)
				return c
			}
			one := product(1, nil)
			want := reference(tr, tr, m, n, k, 1.5, a, lda, b, ldb, 0.5, c0, n)
			for i := range one {
				require.InDelta(t, want[i], float64(one[i]), 1e-5*float64(k+2), "%v tr=%v entry %d", s, tr, i)
			}
			delays := map[string]func(pack bool, p, i int, last bool) bool{
				"none":                        func(bool, int, int, bool) bool { return false },
				"k-block 0's first packing":   func(pack bool, p, i int, _ bool) bool { return pack && p == 0 && i == 0 },
				"the last k-block's packing":  func(pack bool, p, _ int, last bool) bool { return pack && p == nP-1 && last },
				"k-block 0's first row block": func(pack bool, p, i int, _ bool) bool { return !pack && p == 0 && i == 0 },
				"k-block 0's last row block":  func(pack bool, p, _ int, last bool) bool { return !pack && p == 0 && last },
			}
			for name, delay := range delays {
				got := product(4, func(pack bool, p, i int, last bool) {
					if delay(pack, p, i, last) {
						time.Sleep(20 * time.Millisecond)
					}
				})
				require.Equal(t, one, got, "%v tr=%v: four workers, %s delayed", s, tr, name)
			}
		}
	}
}
