package nn

import "gonum.org/v1/gonum/blas"

// gemmArgsOK reports whether the arguments describe a non-empty product
// whose slices are long enough; otherwise the BLAS wrappers of both builds
// (blas_default.go, blas_openblas.go) hand the call to gonum, which handles
// empty products and panics with its message on misuse (a kernel must never
// read or write past a slice).
func gemmArgsOK(tA, tB blas.Transpose, m, n, k, la, lda, lb, ldb, lc, ldc int) bool {
	if m <= 0 || n <= 0 || k <= 0 {
		return false
	}
	ar, ac := m, k
	if tA != blas.NoTrans {
		ar, ac = k, m
	}
	br, bc := k, n
	if tB != blas.NoTrans {
		br, bc = n, k
	}
	return lda >= ac && ldb >= bc && ldc >= n && la >= (ar-1)*lda+ac && lb >= (br-1)*ldb+bc && lc >= (m-1)*ldc+n
}
