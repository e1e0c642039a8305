//go:build openblas && cgo

package nn

/*
#cgo LDFLAGS: -lopenblas
enum llpfc_order { llpfcRowMajor = 101 };
enum llpfc_trans { llpfcNoTrans = 111, llpfcTrans = 112 };
void cblas_sgemm(const int order, const int ta, const int tb, const int m, const int n, const int k,
	const float alpha, const float *a, const int lda, const float *b, const int ldb,
	const float beta, float *c, const int ldc);
void cblas_dgemm(const int order, const int ta, const int tb, const int m, const int n, const int k,
	const double alpha, const double *a, const int lda, const double *b, const int ldb,
	const double beta, double *c, const int ldc);
void openblas_set_num_threads(int);
*/
import "C"

import (
	"os"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gorgonia.org/gorgonia"
)

// BLASName names the BLAS behind the matrix products of training: this
// build (tag openblas) sends Sgemm and Dgemm to OpenBLAS through cgo
// (`apt-get install libopenblas-dev`); every other routine stays gonum's.
// The lever "BLAS choice" (bench/NOTES.md); the default build
// is pure Go.
const BLASName = "openblas"

// GEMMKernels describes the matrix product's kernels: OpenBLAS's choice.
func GEMMKernels() string { return "OpenBLAS (its own kernel choice)" }

// Numerics names the arithmetic that training runs on the CPU (see the
// default build's Numerics): OpenBLAS's products, im2col convolutions.
func Numerics() string { return "openblas; conv3x3 im2col" }

// openBLAS is gonum's pure-Go BLAS with the matrix products replaced by
// OpenBLAS's cblas_sgemm and cblas_dgemm.
type openBLAS struct{ gonum.Implementation }

func init() {
	// One OpenBLAS thread per call: training parallelises over images with
	// goroutines (Conv2dIm2col); OpenBLAS's own threads would compete with
	// them and spin (measured in bench/NOTES.md). OPENBLAS_NUM_THREADS
	// overrides this.
	if os.Getenv("OPENBLAS_NUM_THREADS") == "" {
		C.openblas_set_num_threads(1)
	}
	var b openBLAS
	gorgonia.Use(b) // also sets gorgonia.org/tensor's BLAS
	blas32.Use(b)
	blas64.Use(b)
}

func cblasTrans(t blas.Transpose) C.int {
	if t == blas.NoTrans {
		return C.llpfcNoTrans
	}
	return C.llpfcTrans
}

func (b openBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, bb []float32, ldb int, beta float32, c []float32, ldc int) {
	if !gemmArgsOK(tA, tB, m, n, k, len(a), lda, len(bb), ldb, len(c), ldc) {
		b.Implementation.Sgemm(tA, tB, m, n, k, alpha, a, lda, bb, ldb, beta, c, ldc)
		return
	}
	C.cblas_sgemm(C.llpfcRowMajor, cblasTrans(tA), cblasTrans(tB), C.int(m), C.int(n), C.int(k), C.float(alpha),
		(*C.float)(&a[0]), C.int(lda), (*C.float)(&bb[0]), C.int(ldb), C.float(beta), (*C.float)(&c[0]), C.int(ldc))
}

func (b openBLAS) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, bb []float64, ldb int, beta float64, c []float64, ldc int) {
	if !gemmArgsOK(tA, tB, m, n, k, len(a), lda, len(bb), ldb, len(c), ldc) {
		b.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, bb, ldb, beta, c, ldc)
		return
	}
	C.cblas_dgemm(C.llpfcRowMajor, cblasTrans(tA), cblasTrans(tB), C.int(m), C.int(n), C.int(k), C.double(alpha),
		(*C.double)(&a[0]), C.int(lda), (*C.double)(&bb[0]), C.int(ldb), C.double(beta), (*C.double)(&c[0]), C.int(ldc))
}
