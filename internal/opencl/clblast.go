package opencl

import (
	"fmt"
	"time"
)

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
//
// On CUDA the product runs on cuBLAS (cublasSgemm_v2 in fp32, TF32 off;
// cublasArgs maps the row-major call to cuBLAS's column-major one).
func (c *Context) Sgemm(transA, transB bool, m, n, k int, alpha float32, a *Buffer, aOff, lda int, b *Buffer, bOff, ldb int, beta float32, cm *Buffer, cOff, ldc int) error {
	if c.cu == nil {
		if err := loadCLBlast(); err != nil {
			return err
		}
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
	if c.cu == nil {
		c.usedBLAS = true
		blastUsers.Lock()
		defer blastUsers.Unlock()
	}
	return c.recordSgemm(transA, transB, m, n, k, func() error {
		return c.enqueueSgemm(sgemmArgs{transA: ta, transB: tb, m: uintptr(m), n: uintptr(n), k: uintptr(k), alpha: alpha, beta: beta,
			a: a.mem, b: b.mem, cm: cm.mem, aOff: uintptr(aOff), bOff: uintptr(bOff), cOff: uintptr(cOff),
			lda: uintptr(lda), ldb: uintptr(ldb), ldc: uintptr(ldc)})
	})
}

// GEMMCall is one shape of matrix product a context ran through CLBlast
// while it recorded (RecordGEMMs): op(A) m×k times op(B) k×n, how often,
// and with timing on the wall time of those calls (each waited for before
// and after). The tuning pass (TuneGEMM) times the shapes a step runs.
type GEMMCall struct {
	TransA  bool    `json:"ta"`
	TransB  bool    `json:"tb"`
	M       int     `json:"m"`
	N       int     `json:"n"`
	K       int     `json:"k"`
	Calls   int     `json:"calls"`
	Seconds float64 `json:"seconds,omitempty"`
}

// gemmLog records the products of a context (RecordGEMMs).
type gemmLog struct {
	timed bool
	calls map[[5]int]*GEMMCall
	order [][5]int
}

// RecordGEMMs starts recording the shapes of the context's CLBlast calls
// (anew: what was recorded before is dropped); with timed, each call is
// waited for before and after and its wall time summed. StopGEMMs ends it.
func (c *Context) RecordGEMMs(timed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gemmLog = &gemmLog{timed: timed, calls: map[[5]int]*GEMMCall{}}
}

// StopGEMMs stops recording and returns the shapes in the order first
// seen (nil when nothing was recording).
func (c *Context) StopGEMMs() []GEMMCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.gemmLog
	c.gemmLog = nil
	if l == nil {
		return nil
	}
	out := make([]GEMMCall, 0, len(l.order))
	for _, k := range l.order {
		out = append(out, *l.calls[k])
	}
	return out
}

// recordSgemm runs enqueue, an SGEMM of the given shape, recording it when
// the context records (c.mu held).
func (c *Context) recordSgemm(transA, transB bool, m, n, k int, enqueue func() error) error {
	l := c.gemmLog
	if l == nil {
		return enqueue()
	}
	key := [5]int{b2i(transA), b2i(transB), m, n, k}
	r := l.calls[key]
	if r == nil {
		r = &GEMMCall{TransA: transA, TransB: transB, M: m, N: n, K: k}
		l.calls[key] = r
		l.order = append(l.order, key)
	}
	r.Calls++
	if !l.timed {
		return enqueue()
	}
	if err := c.finish(); err != nil {
		return err
	}
	t0 := time.Now()
	if err := enqueue(); err != nil {
		return err
	}
	err := c.finish()
	r.Seconds += time.Since(t0).Seconds()
	return err
}
