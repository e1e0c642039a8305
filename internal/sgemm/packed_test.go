package sgemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The products with packed operands (GemmPacked, GemmPackedA, GemmPackedB)
// equal the float64 reference for every kernel, transposed form and β, on
// shapes with edges against both tiles and several k-blocks; PackBRows,
// PackBCols and PackBTrans build the same packed B as rows or columns of
// the matrix or from its transpose in memory.
func TestPackedProductsMatchReference(t *testing.T) {
	defer SetKernel(Active())
	shapes := [][3]int{{1, 1, 1}, {8, 32, 7}, {9, 33, 40}, {64, 1024, 27}, {70, 50, 800}, {13, 5, 385}}
	for _, kern := range allKernels(t) {
		SetKernel(kern)
		r := rand.New(rand.NewPCG(5, 6))
		for _, s := range shapes {
			m, n, k := s[0], s[1], s[2]
			for _, tr := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%dx%dx%d/t=%v", kern.Name, m, n, k, tr), func(t *testing.T) {
					a := randSlice(r, m*k) // A m×k (tr: stored k×m)
					b := randSlice(r, k*n) // B k×n (tr: stored n×k)
					lda, ldb := k, n
					if tr {
						lda, ldb = m, k
					}
					at := func(i, p int) float32 {
						if tr {
							return a[p*lda+i]
						}
						return a[i*lda+p]
					}
					bt := func(p, j int) float32 {
						if tr {
							return b[j*ldb+p]
						}
						return b[p*ldb+j]
					}
					pa := PackA(tr, m, k, 0.5, a, lda, make([]float32, PackedASize(m, k)))
					rows := PackBRows(k, n, make([]float32, PackedBSize(k, n)), func(p int, dst []float32) {
						for j := range dst {
							dst[j] = bt(p, j)
						}
					})
					cols := PackBCols(k, n, make([]float32, PackedBSize(k, n)), func(j int, dst []float32) {
						for p := range dst {
							dst[p] = bt(p, j)
						}
					})
					require.Equal(t, rows.data, cols.data, "PackBRows and PackBCols pack the same B")
					lds := k + 5 // S = Bᵀ, n×k, with a stride of its own
					st := make([]float32, (n-1)*lds+k)
					for j := 0; j < n; j++ {
						for p := 0; p < k; p++ {
							st[j*lds+p] = bt(p, j)
						}
					}
					trans := PackBTrans(k, n, make([]float32, PackedBSize(k, n)), st, lds)
					require.Equal(t, rows.data, trans.data, "PackBTrans packs the same B from its transpose")
					c0 := randSlice(r, m*n)
					want := make([]float64, m*n)
					for i := 0; i < m; i++ {
						for j := 0; j < n; j++ {
							var sum float64
							for p := 0; p < k; p++ {
								sum += float64(at(i, p)) * float64(bt(p, j))
							}
							want[i*n+j] = 0.5*sum + 0.25*float64(c0[i*n+j])
						}
					}
					tol := 1e-5 * float64(k+2)
					for name, run := range map[string]func(c []float32){
						"GemmPacked":  func(c []float32) { GemmPacked(pa, rows, 0.25, c, n) },
						"GemmPackedA": func(c []float32) { GemmPackedA(pa, n, tr, b, ldb, 0.25, c, n) },
						"GemmPackedB": func(c []float32) { GemmPackedB(tr, m, 0.5, a, lda, cols, 0.25, c, n) },
					} {
						c := append([]float32(nil), c0...)
						run(c)
						for i := range c {
							if d := math.Abs(float64(c[i]) - want[i]); d > tol {
								require.Failf(t, "entry out of tolerance", "%s: c[%d] = %v, want %v", name, i, c[i], want[i])
							}
						}
					}
				})
			}
		}
	}
}

// Packed operands refuse a kernel change and mismatched shapes.
func TestPackedRefusesMismatch(t *testing.T) {
	defer SetKernel(Active())
	pa := PackA(false, 4, 3, 1, make([]float32, 12), 3, make([]float32, PackedASize(4, 3)))
	pb := PackBRows(5, 2, make([]float32, PackedBSize(5, 2)), func(int, []float32) {})
	assert.Panics(t, func() { GemmPacked(pa, pb, 0, make([]float32, 8), 2) }, "k differs")
	assert.Panics(t, func() { PackA(false, 4, 3, 1, make([]float32, 12), 3, make([]float32, 3)) }, "short buffer")
	if Supported(KernelAVX2) && Supported(KernelAVX512) {
		SetKernel(KernelAVX512)
		pa := PackA(false, 4, 3, 1, make([]float32, 12), 3, make([]float32, PackedASize(4, 3)))
		SetKernel(KernelAVX2)
		pb := PackBRows(3, 2, make([]float32, PackedBSize(3, 2)), func(int, []float32) {})
		assert.Panics(t, func() { GemmPacked(pa, pb, 0, make([]float32, 8), 2) }, "operands packed for different kernels")
	}
}

// transposeInto (8×8 register blocks where AVX2 is there, the rest one value
// at a time) equals the definition out[p·nr+jj] = cols[jj·ld+p] on every
// block count and remainder, with both paths.
func TestTransposeInto(t *testing.T) {
	defer func(v bool) { haveAsm = v }(haveAsm)
	r := rand.New(rand.NewPCG(9, 9))
	for _, asm := range []bool{false, true} {
		if asm && !Supported(KernelAVX2) {
			continue
		}
		haveAsm = asm
		for _, nr := range []int{8, 16, 32} {
			for _, kk := range []int{1, 7, 8, 9, 24, 37} {
				ld := kk + 5
				cols := randSlice(r, nr*ld)
				out := make([]float32, kk*nr)
				transposeInto(out, nr, cols, ld, kk)
				for p := 0; p < kk; p++ {
					for jj := 0; jj < nr; jj++ {
						require.Equal(t, cols[jj*ld+p], out[p*nr+jj], "asm=%v nr=%d kk=%d p=%d jj=%d", asm, nr, kk, p, jj)
					}
				}
			}
		}
	}
}

// packA of a non-transposed A for the 6-row and the 8-row kernels (eight
// columns of a full strip at a time by pack6x8 or transpose8x8 where AVX is
// there, the rest one value at a time) equals the definition
// strip[p·mr+i] = A(ir+i, pc+p) on strips full and short, blocks of k with
// and without a remainder of eight, with both paths, and writes nothing
// past the strips it packs.
func TestPackAStrips(t *testing.T) {
	defer func(v bool) { usePack6x8 = v }(usePack6x8)
	r := rand.New(rand.NewPCG(10, 10))
	for _, asm := range []bool{false, true} {
		if asm && !Supported(KernelAVX2) {
			continue
		}
		usePack6x8 = asm
		for _, mr := range []int{6, 8} {
			for _, rows := range []int{mr, 2 * mr, 2*mr + 1, 17} {
				for _, kk := range []int{1, 8, 15, 16, 37} {
					lda, pc := kk+11, 3
					a := randSlice(r, (rows+2)*lda)
					pad := (rows + mr - 1) / mr * mr
					dst := randSlice(r, pad*kk+8)
					tail := append([]float32(nil), dst[pad*kk:]...)
					packA(mr, false, a, lda, 1, 2, rows, pc, kk, dst)
					for ir := 0; ir < pad; ir += mr {
						for p := 0; p < kk; p++ {
							for i := 0; i < mr; i++ {
								var want float32
								if ir+i < rows {
									want = a[(2+ir+i)*lda+pc+p]
								}
								require.Equal(t, want, dst[ir*kk+p*mr+i], "asm=%v mr=%d rows=%d kk=%d strip %d p=%d i=%d", asm, mr, rows, kk, ir/mr, p, i)
							}
						}
					}
					require.Equal(t, tail, dst[pad*kk:], "asm=%v mr=%d rows=%d kk=%d: written past the strips", asm, mr, rows, kk)
				}
			}
		}
	}
}

// A B written row by row where PackedBRow puts it and wrapped by
// PackedBFrom is PackBRows's packing (one k-block and several, n off NR),
// for every kernel the machine runs.
func TestPackedBRowMatchesPackBRows(t *testing.T) {
	defer SetKernel(Active())
	r := rand.New(rand.NewPCG(11, 11))
	for _, kern := range []Kernel{KernelAVX512, KernelAVX2, KernelGo} {
		if !Supported(kern) {
			continue
		}
		SetKernel(kern)
		for _, kn := range [][2]int{{5, 3}, {64, 40}, {384, 17}, {700, 33}, {1000, 64}} {
			k, n := kn[0], kn[1]
			b := randSlice(r, k*n)
			want := PackBRows(k, n, make([]float32, PackedBSize(k, n)), func(p int, dst []float32) { copy(dst, b[p*n:(p+1)*n]) })
			buf := make([]float32, PackedBSize(k, n))
			for p := 0; p < k; p++ {
				base, ss, nr := PackedBRow(k, n, p)
				for j := 0; j < n; j++ {
					buf[base+j/nr*ss+j%nr] = b[p*n+j]
				}
			}
			got := PackedBFrom(k, n, buf)
			require.Equal(t, want.data, got.data, "%s k=%d n=%d", kern.Name, k, n)
			require.Equal(t, want.k, got.k)
			require.Equal(t, want.n, got.n)
		}
	}
}

// TestPackAOnCoresIsPackA: the parallel packing writes PackA's values, bit
// for bit and nothing past them, for both forms, α 1 and not, shapes off MR
// and over several k-blocks, at 1 to 16 threads, with every kernel.
func TestPackAOnCoresIsPackA(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	defer SetKernel(Active())
	r := rand.New(rand.NewPCG(58, 58))
	for _, kern := range allKernels(t) {
		SetKernel(kern)
		for _, sh := range [][2]int{{7, 5}, {64, 600}, {257, 300}, {512, 1153}, {1000, 70}} {
			m, k := sh[0], sh[1]
			for _, tA := range []bool{false, true} {
				for _, alpha := range []float32{1, -0.5} {
					lda := k + 3
					if tA {
						lda = m + 3
					}
					a := randSlice(r, max(m, k)*lda)
					size := PackedASize(m, k)
					want := randSlice(r, size+9)
					PackA(tA, m, k, alpha, a, lda, want)
					for _, procs := range []int{1, 3, 16} {
						runtime.GOMAXPROCS(procs)
						got := append([]float32(nil), want...)
						for i := range got[:size] {
							got[i] = float32(math.NaN())
						}
						p := PackAOnCores(tA, m, k, alpha, a, lda, got)
						require.Equal(t, m, p.m)
						for i := range want {
							if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
								require.Failf(t, "differs from PackA", "%s %d×%d tA=%v α=%v at %d threads: value %d = %v, PackA %v", kern.Name, m, k, tA, alpha, procs, i, got[i], want[i])
							}
						}
					}
				}
			}
		}
	}
}
