package nn

import (
	"errors"
	"runtime"

	"github.com/llpfc/llpfc/internal/par"
	"github.com/llpfc/llpfc/internal/sgemm"
)

// usePackedConv sends float32 convolutions through internal/sgemm's packed
// products (set in the default build, blas_default.go; the openblas build
// keeps im2col and its BLAS's Sgemm for every product). Tests switch it off
// to compare the two paths.
var usePackedConv = false

// convForwardPacked is convForward's float32 path with operands packed once
// (a speed lever): W is packed once per run instead of once per image, and each
// image is unfolded by im2col straight into the packed layout of B instead
// of into a column buffer that Sgemm then copies again. The images are
// shared out to the cores; each product runs in its worker.
func convForwardPacked(g convGeom, n int, x, w, b, y []float32, sc *scratch[float32]) {
	ckk, hw, chw, ohw := g.ckk(), g.hw(), g.c*g.h*g.w, g.o*g.hw()
	if denseConvOK(g) {
		convForwardDense(g, n, x, w, b, y, sc)
		return
	}
	if winogradOK(g) {
		convForwardWinograd(g, n, x, w, b, y, sc)
		return
	}
	if gs := convStackGroup(n, hw); gs > 1 {
		convForwardStacked(g, n, gs, x, w, b, y, sc)
		return
	}
	nc := convImageChunks(n)
	ph, phased := phasesOf(g)
	bLen, xpLen := sgemm.PackedBSize(ckk, hw), ph.size(g.c)
	sc.ensure(min(runtime.GOMAXPROCS(0), nc), nc, bLen+xpLen, 0, 0)
	pa := sgemm.PackAOnCores(false, g.o, ckk, 1, w, ckk, sc.packedW(sgemm.PackedASize(g.o, ckk)))
	par.ChunksOf(nc, n, func(j, p int) {
		buf, xp := sc.cols[p][:bLen], sc.cols[p][bLen:]
		lo, hi := par.ChunkBounds(j, nc, n)
		for i := lo; i < hi; i++ {
			yi, xi := y[i*ohw:(i+1)*ohw], x[i*chw:(i+1)*chw]
			beta := fillBias(yi, b, hw)
			var pb sgemm.PackedB
			if phased {
				ph.split(xi, 0, g.c, xp)
				pb = sgemm.PackBRows(ckk, hw, buf, func(r int, dst []float32) { ph.row(xp, r, dst) })
			} else {
				pb = sgemm.PackBRows(ckk, hw, buf, func(r int, dst []float32) { im2colRow(g, xi, r, dst) })
			}
			sgemm.GemmPacked(pa, pb, beta, yi, hw)
		}
	})
}

// convBackwardPacked is convBackward's float32 path for ∂/∂x (wrt 0: Wᵀ
// packed once, times each image's output gradient, folded by col2im) and
// ∂/∂W (wrt 1: each image's output gradient times its unfolding, written by
// im2col straight into the packed layout of the transposed B).
func convBackwardPacked(g convGeom, wrt, n int, in, dy, out []float32, sc *scratch[float32]) error {
	ckk, hw, chw, ohw := g.ckk(), g.hw(), g.c*g.h*g.w, g.o*g.hw()
	if wrt == 0 {
		if len(in) != g.o*ckk || len(out) != n*chw {
			return errors.New("Conv2dIm2colGrad: sizes do not match the geometry")
		}
		if denseConvOK(g) {
			convGradXDense(g, n, in, dy, out, sc)
			return nil
		}
		if winogradGradXOK(g) {
			convGradXWinograd(g, n, in, dy, out, sc)
			return nil
		}
		if gs := convStackGroup(n, hw); gs > 1 {
			convGradXStacked(g, n, gs, in, dy, out, sc)
			return nil
		}
		// The unfolding's gradient is made and folded back a block of rows at
		// a time (about 64 Ki values, in L2), not whole (up to 2.4 MB for
		// WRN-16-4, written to memory and read back by col2im).
		rows := convRowBlock(ckk, hw)
		nc := convImageChunks(n)
		ph, phased := phasesOf(g)
		bLen, xpLen := sgemm.PackedBSize(g.o, hw), ph.size(g.c)
		sc.ensure(min(runtime.GOMAXPROCS(0), nc), nc, rows*hw+bLen+xpLen, 0, 0)
		pa := sgemm.PackAOnCores(true, ckk, g.o, 1, in, ckk, sc.packedW(sgemm.PackedASize(ckk, g.o)))
		par.ChunksOf(nc, n, func(j, p int) {
			col, buf, dxp := sc.cols[p][:rows*hw], sc.cols[p][rows*hw:rows*hw+bLen], sc.cols[p][rows*hw+bLen:]
			lo, hi := par.ChunkBounds(j, nc, n)
			for i := lo; i < hi; i++ {
				dx, dyi := out[i*chw:(i+1)*chw], dy[i*ohw:(i+1)*ohw]
				if phased {
					clear(dxp)
				} else {
					clear(dx)
				}
				pb := sgemm.PackBRows(g.o, hw, buf, func(r int, dst []float32) { copy(dst, dyi[r*hw:(r+1)*hw]) })
				for r0 := 0; r0 < ckk; r0 += rows {
					r1 := min(r0+rows, ckk)
					sgemm.GemmPacked(pa.Rows(r0, r1), pb, 0, col, hw)
					for r := r0; r < r1; r++ {
						if phased {
							ph.foldRow(col[(r-r0)*hw:(r-r0+1)*hw], r, dxp)
						} else {
							col2imRowAdd(g, r, col[(r-r0)*hw:(r-r0+1)*hw], dx)
						}
					}
				}
				if phased {
					ph.merge(dxp, dx)
				}
			}
		})
		return nil
	}
	if len(in) != n*chw || len(out) != g.o*ckk {
		return errors.New("Conv2dIm2colGrad: sizes do not match the geometry")
	}
	if denseConvOK(g) {
		convGradWDense(g, n, in, dy, out, sc)
		return nil
	}
	if winogradOK(g) {
		convGradWWinograd(g, n, in, dy, out, sc)
		return nil
	}
	if gs := convStackGroup(n, hw); gs > 1 {
		convGradWStacked(g, n, gs, in, dy, out, sc)
		return nil
	}
	// The convChunks partial sums of the images' products, each shared by
	// column pieces among the threads when there are more threads than
	// chunks (each piece packs only its own columns of the unfolding).
	nc := min(n, convChunks)
	pieces := rowPieces(ckk, sgemm.Active().NR, convFilterPieces(nc))
	tasks := nc * len(pieces)
	ph, phased := phasesOf(g)
	bLen, xpLen := sgemm.PackedBSize(hw, ckk), ph.size(g.c)
	sc.ensure(min(runtime.GOMAXPROCS(0), tasks), nc, bLen+xpLen, g.o*ckk, 0)
	kk := g.k * g.k
	par.ChunksOf(tasks, nc*colStrips(ckk), func(t, p int) {
		j, c0, c1 := t/len(pieces), pieces[t%len(pieces)][0], pieces[t%len(pieces)][1]
		buf, xp, part := sc.cols[p][:bLen], sc.cols[p][bLen:], sc.partW[j]
		for o := 0; o < g.o; o++ {
			clear(part[o*ckk+c0 : o*ckk+c1])
		}
		lo, hi := par.ChunkBounds(j, nc, n)
		for i := lo; i < hi; i++ {
			xi := in[i*chw : (i+1)*chw]
			var pb sgemm.PackedB
			if phased {
				// Only the channels of this piece's rows.
				ph.split(xi, c0/kk, (c1+kk-1)/kk, xp)
				pb = sgemm.PackBCols(hw, c1-c0, buf, func(r int, dst []float32) { ph.row(xp, c0+r, dst) })
			} else {
				pb = sgemm.PackBCols(hw, c1-c0, buf, func(r int, dst []float32) { im2colRow(g, xi, c0+r, dst) })
			}
			sgemm.GemmPackedB(false, g.o, 1, dy[i*ohw:(i+1)*ohw], hw, pb, 1, part[c0:], ckk)
		}
	})
	sumPartials(out, sc.partW[:nc])
	return nil
}

// packedW returns the scratch's buffer for packed weights, at least size
// values long.
func (s *scratch[F]) packedW(size int) []F {
	if cap(s.packW) < size {
		s.packW = make([]F, size)
	}
	return s.packW[:size]
}

// convRowBlock is the number of rows of an unfolding (of hw columns) made
// at a time for ∂/∂x: about 64 Ki values, a multiple of 24 (so of every
// kernel's MR), at least 24 and at most ckk.
func convRowBlock(ckk, hw int) int {
	rows := max(24, (1<<16)/max(hw, 1)/24*24)
	return min(rows, ckk)
}
