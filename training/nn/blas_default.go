//go:build !(openblas && cgo)

package nn

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/gonum"
	"gorgonia.org/gorgonia"

	"github.com/llpfc/llpfc/internal/sgemm"
)

// BLASName names the BLAS behind the matrix products of training: in the
// default pure-Go build, gonum's BLAS with the single-precision matrix
// product replaced by internal/sgemm (packed, AVX2+FMA assembly micro-kernel,
// all cores). Build with -tags openblas (and libopenblas-dev) for
// OpenBLAS; see bench/NOTES.md.
const BLASName = "gonum+sgemm"

// GEMMKernels describes the matrix product's kernel and panel sizes on this
// machine (internal/sgemm: the micro-kernel chosen at start-up, the blocking
// derived from the caches), for benchmark results.
func GEMMKernels() string {
	s := sgemm.Active().Name + ", " + sgemm.ActiveBlocking().String()
	if useWinograd {
		s += "; 3×3 stride-1 convolutions by Winograd " + winoNames("×", "≥") + ", maps of ≤ k² values as one dense product"
	}
	return s
}

// Numerics names the arithmetic that training runs on the CPU: the matrix
// product's micro-kernel and the convolutions' algorithms (Winograd's for
// the 3×3 stride-1 ones, F(4×4, 3×3) on the maps of at least winoF4MinMap
// and F(2×2, 3×3) on the others, or F(2×2, 3×3) alone; and the dense
// product on maps of at most k² values, convdense.go, which come and go
// with Winograd's).
// Results trained with different numerics agree to float32 rounding, not
// to the bit (the two assembly kernels give the same bits; the portable Go
// kernel and the im2col path do not give Winograd's), so every result
// records it (experiments.Metrics.Numerics).
func Numerics() string {
	conv := "im2col"
	if useWinograd {
		conv = "winograd " + winoNames("x", ">=") + "; maps of <= k*k values dense"
	}
	return "sgemm " + sgemm.Active().Name + "; conv3x3 " + conv
}

// pureGoBLAS is gonum's BLAS with Sgemm from internal/sgemm.
type pureGoBLAS struct{ gonum.Implementation }

func init() {
	var b pureGoBLAS
	gorgonia.Use(b) // also sets gorgonia.org/tensor's BLAS
	blas32.Use(b)
	usePackedConv = true
}

// Sgemm computes C = α·op(A)·op(B) + β·C with internal/sgemm; arguments
// that describe no product, or misuse, go to gonum, which handles the empty
// cases and panics with its own message.
func (b pureGoBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, bb []float32, ldb int, beta float32, c []float32, ldc int) {
	if !gemmArgsOK(tA, tB, m, n, k, len(a), lda, len(bb), ldb, len(c), ldc) {
		b.Implementation.Sgemm(tA, tB, m, n, k, alpha, a, lda, bb, ldb, beta, c, ldc)
		return
	}
	sgemm.Sgemm(tA != blas.NoTrans, tB != blas.NoTrans, m, n, k, alpha, a, lda, bb, ldb, beta, c, ldc)
}
