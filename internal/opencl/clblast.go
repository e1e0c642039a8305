package opencl

import "fmt"

// CLBlast's enum values (clblast_c.h; the CBLAS values).
const (
	clblastRowMajor  = 101
	clblastNoTrans   = 111
	clblastTranspose = 112
)

// Sgemm enqueues C = α·op(A)·op(B) + β·C with CLBlast on row-major
// matrices: op(A) is m×k (A is m×k, or k×m when transA), op(B) is k×n, C is
// m×n; each matrix starts at its offset (in elements) and has its leading
// dimension (row stride). With β = 0, C's old contents are ignored (NaN
// too). m, n or k of 0 is an error.
func (c *Context) Sgemm(transA, transB bool, m, n, k int, alpha float32, a *Buffer, aOff, lda int, b *Buffer, bOff, ldb int, beta float32, cm *Buffer, cOff, ldc int) error {
	if err := loadCLBlast(); err != nil {
		return err
	}
	if m < 1 || n < 1 || k < 1 {
		return fmt.Errorf("opencl: Sgemm %d×%d×%d: every dimension must be ≥ 1", m, n, k)
	}
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	for _, mat := range []struct {
		name       string
		buf        *Buffer
		off, ld    int
		rows, cols int
		minLD      int
	}{
		{"A", a, aOff, lda, ar, ac, ac},
		{"B", b, bOff, ldb, br, bc, bc},
		{"C", cm, cOff, ldc, m, n, n},
	} {
		if mat.ld < mat.minLD {
			return fmt.Errorf("opencl: Sgemm: leading dimension of %s is %d, want ≥ %d (its columns)", mat.name, mat.ld, mat.minLD)
		}
		if err := mat.buf.span(mat.off, (mat.rows-1)*mat.ld+mat.cols, "Sgemm matrix "+mat.name); err != nil {
			return err
		}
		if mat.buf.ctx != c {
			return fmt.Errorf("opencl: Sgemm: matrix %s belongs to another context", mat.name)
		}
	}
	ta, tb := int32(clblastNoTrans), int32(clblastNoTrans)
	if transA {
		ta = clblastTranspose
	}
	if transB {
		tb = clblastTranspose
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	c.usedBLAS = true
	blastUsers.Lock()
	defer blastUsers.Unlock()
	return c.enqueueSgemm(sgemmArgs{transA: ta, transB: tb, m: uintptr(m), n: uintptr(n), k: uintptr(k), alpha: alpha, beta: beta,
		a: a.mem, b: b.mem, cm: cm.mem, aOff: uintptr(aOff), bOff: uintptr(bOff), cOff: uintptr(cOff),
		lda: uintptr(lda), ldb: uintptr(ldb), ldc: uintptr(ldc)})
}
