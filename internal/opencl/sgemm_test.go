package opencl_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/opencl"
)

// gemmRef computes α·op(A)·op(B) + β·C on row-major matrices with leading
// dimensions, in float64, and the magnitude Σ|α·a·b| + |β·c| of each
// result. When ignoreTransA is set it reads A as if not transposed (a
// realistic bug, for the negative check).
func gemmRef(tA, tB bool, m, n, k int, alpha float64, a []float32, lda int, b []float32, ldb int, beta float64, c []float32, ldc int, ignoreTransA bool) (want, scale []float64) {
	at := func(i, p int) float64 {
		if tA && !ignoreTransA {
			return float64(a[p*lda+i])
		}
		return float64(a[i*lda+p])
	}
	bt := func(p, j int) float64 {
		if tB {
			return float64(b[j*ldb+p])
		}
		return float64(b[p*ldb+j])
	}
	want, scale = make([]float64, m*n), make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			s, sa := 0.0, 0.0
			for p := 0; p < k; p++ {
				s += at(i, p) * bt(p, j)
				sa += math.Abs(at(i, p) * bt(p, j))
			}
			cv := 0.0
			if beta != 0 {
				cv = beta * float64(c[i*ldc+j])
			}
			want[i*n+j] = alpha*s + cv
			scale[i*n+j] = math.Abs(alpha)*sa + math.Abs(cv)
		}
	}
	return want, scale
}

// TestSgemm: CLBlast's SGEMM on every transpose pair, odd sizes, offsets,
// leading dimensions larger than the rows, α and β (β = 0 ignores a NaN
// in C).
func TestSgemm(t *testing.T) { sgemmProducts(t, testLib(t)) }

// sgemmProducts is TestSgemm's check on l's context (also run with CLBlast's
// parameters overridden, TestGEMMOverrides).
func sgemmProducts(t *testing.T, l *opencl.Lib) {
	ctx := l.Context()
	rng := newRNG(t)
	sizes := [][3]int{{1, 1, 1}, {3, 17, 5}, {17, 3, 33}, {33, 65, 17}, {64, 64, 64}, {65, 1, 130}}
	for _, s := range sizes {
		m, n, k := s[0], s[1], s[2]
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				for _, ab := range [][2]float64{{1, 0}, {-0.5, 1.25}} {
					alpha, beta := ab[0], ab[1]
					ar, ac := m, k
					if tA {
						ar, ac = k, m
					}
					br, bc := k, n
					if tB {
						br, bc = n, k
					}
					lda, ldb, ldc := ac+3, bc+1, n+2
					aOff, bOff, cOff := 5, 2, 7
					a := randn(rng, aOff+ar*lda, -1, 1)
					b := randn(rng, bOff+br*ldb, -1, 1)
					c := randn(rng, cOff+m*ldc, -1, 1)
					if beta == 0 {
						c[cOff] = float32(math.NaN())
					}
					cb := upload(t, l, c)
					must(t, ctx.Sgemm(tA, tB, m, n, k, float32(alpha), upload(t, l, a), aOff, lda, upload(t, l, b), bOff, ldb, float32(beta), cb, cOff, ldc))
					all := download(t, cb, len(c))
					got := make([]float32, 0, m*n)
					for i := 0; i < m; i++ {
						got = append(got, all[cOff+i*ldc:cOff+i*ldc+n]...)
					}
					name := fmt.Sprintf("sgemm %d×%d×%d tA=%t tB=%t α=%v β=%v", m, n, k, tA, tB, alpha, beta)
					want, scale := gemmRef(tA, tB, m, n, k, alpha, a[aOff:], lda, b[bOff:], ldb, beta, c[cOff:], ldc, false)
					checkClose(t, name, got, want, scale)
					// untouched: the padding columns of C and what precedes it
					for i := 0; i < m; i++ {
						for j := n; j < ldc && cOff+i*ldc+j < len(c); j++ {
							if p := cOff + i*ldc + j; all[p] != c[p] {
								t.Errorf("%s: C's padding element %d changed", name, p)
							}
						}
					}
					if tA && m > 1 && k > 1 && m == k {
						wrong, _ := gemmRef(tA, tB, m, n, k, alpha, a[aOff:], lda, b[bOff:], ldb, beta, c[cOff:], ldc, true)
						detects(t, "a transposed A read as not transposed", got, wrong, scale)
					}
				}
			}
		}
	}
	bad := upload(t, l, make([]float32, 4))
	for name, err := range map[string]error{
		"k = 0":          ctx.Sgemm(false, false, 2, 2, 0, 1, bad, 0, 2, bad, 0, 2, 0, bad, 0, 2),
		"short buffer":   ctx.Sgemm(false, false, 3, 2, 2, 1, bad, 0, 2, bad, 0, 2, 0, bad, 0, 2),
		"ld below cols":  ctx.Sgemm(false, false, 2, 2, 2, 1, bad, 0, 1, bad, 0, 2, 0, bad, 0, 2),
		"offset too far": ctx.Sgemm(false, false, 2, 2, 2, 1, bad, 1, 2, bad, 0, 2, 0, bad, 0, 2),
	} {
		if err == nil {
			t.Errorf("Sgemm with %s: no error", name)
		}
	}
}
