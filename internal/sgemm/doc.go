// Package sgemm is a single-precision matrix product C = α·op(A)·op(B) + β·C
// in pure Go (no cgo) for the training engine's dense layers and
// convolutions (issue 12).
//
// It is hand-written because no Go library reaches this processor without
// cgo: gonum's Sgemm has no packing and no FMA (18–26 GFLOP/s on the models'
// shapes here), vek32's MatMul is row-major only with no transposed forms
// (42–81), and Go's simd/archsimd needs GOEXPERIMENT=simd at build time. The
// design is the Goto/BLIS one (see ../../../shared/notes/sgemm.md beside
// the checkout, when present): B is packed into k-major strips of NR = 16
// columns, A into strips of MR = 6 rows scaled by α, both zero-padded at the
// edges, and a 6×16 micro-kernel in Go assembly (AVX2 + FMA, 12 YMM
// accumulators) multiplies one A strip by one B strip; the transposed forms
// op(X) = Xᵀ that back-propagation needs cost only a different packing. Row
// blocks of C are shared out to GOMAXPROCS goroutines, each with its own
// packing buffer, and each tile of C is summed in a fixed order, so the
// result does not depend on scheduling. A portable Go micro-kernel with the
// same packed layout serves processors without AVX2/FMA and other
// architectures, and the tests check both paths against a float64
// reference.
package sgemm
