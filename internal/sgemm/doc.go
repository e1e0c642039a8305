// Package sgemm is a single-precision matrix product C = α·op(A)·op(B) + β·C
// in pure Go (no cgo) for the training engine's dense layers and
// convolutions, at the hardware's limit.
//
// It is hand-written because no Go library reaches this processor without
// cgo: gonum's Sgemm has no packing and no FMA (18–26 GFLOP/s on the models'
// shapes here), vek32's MatMul is row-major only with no transposed forms
// (42–81), and Go's simd/archsimd needs GOEXPERIMENT=simd at build time. The
// design is the Goto/BLIS one (see ../../../shared/notes/sgemm.md beside
// the checkout, when present): B is packed into k-major strips of NR
// columns, A into strips of MR rows scaled by α, both zero-padded at the
// edges, and a micro-kernel in Go assembly multiplies one A strip by one B
// strip: 8×32 with AVX-512 (16 ZMM accumulators) or 6×16 with AVX2 + FMA
// (12 YMM accumulators), chosen at start-up from the processor's features
// (Best; LLPFC_SGEMM_KERNEL or SetKernel force one). The transposed forms
// op(X) = Xᵀ that back-propagation needs cost only a different packing. k
// is cut into equal blocks of at most 384 (fixed: it decides the order of
// the sums); B is packed in panels of at most NC columns and A in row blocks
// of at most MC rows, both derived at start-up from the caches Linux reports
// (blocking.go, DeriveBlocking). Within a row block, each B strip stays in
// L1 while the block's A strips stream past it from L2 where both strips
// fit in L1 (rowBlock, bStripsOuter); elsewhere each A strip stays in L1
// and sweeps the panel, which is then sized to L2 (NCA) rather than L3.
// B's panels are packed by all the workers (AVX row dealing and 8×8
// transposes), and A's full strips by AVX transposes for either tile. Row blocks of C, or runs of
// its columns when C is wider than tall, are shared out to GOMAXPROCS
// goroutines, each with its own packing buffer; a row block takes the
// k-blocks in order while the workers run on without a barrier between
// k-blocks (pipeline, B's blocks in two buffers), and each tile of C is
// summed in a fixed order, so the result does not depend on scheduling —
// nor on the kernel's tile, since every entry is summed over k in the same
// order by fused multiply-adds (the portable Go kernel, a separate multiply
// and add, differs in the last bits).
//
// Where op(B) holds subnormal values and op(A) none (α = 1, β = 0, from 512
// rows: a dense layer's ∂/∂W in the first steps of training), Sgemm
// computes the transposed product and writes it back transposed
// (broadcast.go): the kernels broadcast op(A)'s values and read op(B)'s as
// vectors, and on Intel's processors each vector instruction that meets a
// subnormal takes a microcode assist, so the operand that holds them is
// better broadcast. Every value is the same sum in the same order either
// way round, so the bits do not change.
//
// A caller that multiplies the same operand many times, or can write an
// operand straight into the packed layout, packs it itself (PackA,
// PackBRows, PackBCols) and calls GemmPacked, GemmPackedA or GemmPackedB,
// which run in the calling goroutine: the convolutions pack their weights
// once per run and write im2col into the packed B. A portable Go
// micro-kernel with either tile serves processors without AVX2/FMA, and the
// tests check every kernel against a float64 reference.
package sgemm
