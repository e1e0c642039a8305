package nn

import (
	"math"
	"runtime"

	"github.com/llpfc/llpfc/internal/par"
	"github.com/llpfc/llpfc/internal/sgemm"
)

// Convolutions on small maps with the images of a minibatch stacked into
// one product (bench/NOTES.md, "per-image products on 2×2 and 1×1
// maps"). The packed path multiplies one image at a time; on an h·w-value
// output map that product has N = h·w columns (forward, ∂/∂x) or K = h·w
// terms (∂/∂W): on ResNet18's 1×1 map a matrix times a vector, and a rank-1
// update of all of ∂/∂W per image. Here gs images (convStackGroup) share
// one product: their unfoldings stand side by side as gs·h·w columns of B.
//
//   - Forward and ∂/∂x: each output entry is the same sum, in the same order
//     of k-blocks and terms, as in the per-image product (the micro-kernel
//     sums each entry of C on its own), so the result is bit for bit the
//     per-image path's (TestConvStackedMatchesPerImage). Rows of the
//     unfolding that are padding everywhere are left out (unfoldPlan.live):
//     ∂/∂x is unchanged by that, but the forward's sums then have fewer
//     terms and may round differently.
//   - ∂/∂W: a product sums over the group's gs·h·w terms; the images are
//     cut into convStackChunks(n, gs) chunks, each chunk's groups summed in
//     order into its partial, and the partials added in chunk order. The
//     cut depends on n and h·w only, never on the number of threads, so a
//     run gives the same numbers on any machine with the same kernel.
//
// When there are fewer groups (or chunks) than threads, the threads share
// each product by rows of C instead: the rows of a product are independent
// sums, so this does not change the result either. For ∂/∂x the rows are
// cut at channel boundaries, so that no two threads fold onto one channel
// of ∂/∂x (col2im adds the rows of a channel onto one image plane).

// convStackCols is the number of columns a stacked product aims at: with the
// 6×16 and 8×32 kernels, enough strips of B that each packed strip of A is
// reused from L1 many times, and a packed B (c·k·k × 256) that stays in L2
// for the c·k·k ≤ 512 of most late layers.
const convStackCols = 256

// stackConv enables the stacked products (tests switch it off to compare
// them with the per-image path).
var stackConv = true

// convStackGroup is the number of images a stacked product holds: 1 (the
// per-image path) when a map has convStackCols values or more.
func convStackGroup(n, hw int) int {
	if hw >= convStackCols || !stackConv {
		return 1
	}
	return max(1, min(n, convStackCols/hw))
}

// convStackChunks is the number of chunks of ∂/∂W's partial sums for n
// images stacked gs at a time: one per group, at most convChunks.
func convStackChunks(n, gs int) int {
	return min(convChunks, (n+gs-1)/gs)
}

// rowPieces cuts m rows into up to parts ranges whose starts are multiples
// of unit (the last range ends at m).
func rowPieces(m, unit, parts int) [][2]int {
	units := (m + unit - 1) / unit
	parts = max(1, min(parts, units))
	out := make([][2]int, parts)
	for j := range out {
		lo, hi := par.ChunkBounds(j, parts, units)
		out[j] = [2]int{lo * unit, min(hi*unit, m)}
	}
	return out
}

// unfoldTable writes into tab (grown as needed) the unfolding of one image
// as offsets: tab[r·h·w + s] is the offset in the image (c×h×w) of entry s
// of row r of its unfolding, or −1 where the entry is padding. On small maps
// im2colRow and col2imRowAdd would be called once per row and image to move
// a few values each; the stacked paths gather and scatter through the table
// instead (unfoldPlan), moving the same values in the same order.
func unfoldTable(g convGeom, tab []int32) []int32 {
	hw := g.hw()
	if cap(tab) < g.ckk()*hw {
		tab = make([]int32, g.ckk()*hw)
	}
	tab = tab[:g.ckk()*hw]
	for r := 0; r < g.ckk(); r++ {
		c, ki, kj := r/(g.k*g.k), r/g.k%g.k, r%g.k
		for oh := 0; oh < g.ho; oh++ {
			for ow := 0; ow < g.wo; ow++ {
				ih, iw := oh*g.stride-g.pad+ki, ow*g.stride-g.pad+kj
				t := int32(-1)
				if ih >= 0 && ih < g.h && iw >= 0 && iw < g.w {
					t = int32((c*g.h+ih)*g.w + iw)
				}
				tab[r*hw+oh*g.wo+ow] = t
			}
		}
	}
	return tab
}

// unfoldPlan is a small map's unfolding of one image as runs, derived from
// its unfoldTable: row r of the unfolding is zero except for the runs
// runs[4·first[r]:4·first[r+1]], each a quadruplet (s, t, n, d) saying that
// entries s:s+n of the row are the image's values t, t+d, …, t+(n−1)·d. A
// same-size 3×3 convolution on an 8×8 map has 8 runs a row, of 7 or 8
// values with d = 1; a stride-2 one from 16×16 to 8×8 has 8 runs of 8
// values with d = 2, where runs of consecutive values alone made 64 runs
// of one (each a loop's turn in unfold and fold: bench/NOTES.md, "strided
// runs"); on a 1×1 map one run of one value, or none.
//
// Rows of runs of a few values (strided, or cut by the padding) are
// gathered instead, value by value through the table (idx, keep: a load,
// a mask and a store a value, no branch), and their gradients scattered
// the same way; rows of long contiguous runs keep their copies
// (bench/NOTES.md, "Lever 23").
//
// A row with no run is padding for every output position: on a 1×1 map
// with a 3×3 kernel, 8 rows of 9. Its products with W are zeros, so the
// stacked paths leave such rows out of every product (live lists the rows
// that remain): the convolutions of ResNet18's last stage then multiply by
// a ninth of W.
type unfoldPlan struct {
	tab     []int32
	first   []int32
	runs    []int32
	live    []int32
	hw, chw int
	ckk, kk int
	wLive   []float32
	geom    convGeom // the geometry the plan was built for (when built)
	built   bool
	// idx and keep are tab as a gather without a branch: idx the offset
	// (for padding, that of the row's channel's first value), keep all
	// ones where tab is an offset and 0 for padding; gather marks the rows
	// that take it (unfoldGather).
	idx    []int32
	keep   []uint32
	gather []bool
}

// build makes the plan of geometry g, reusing p's memory; a plan already
// built for g is kept (a layer's forward, ∂/∂x and ∂/∂W ask for the same).
func (p *unfoldPlan) build(g convGeom) {
	if p.built && p.geom == g {
		return
	}
	p.geom, p.built = g, true
	p.tab = unfoldTable(g, p.tab)
	p.hw, p.chw, p.ckk, p.kk = g.hw(), g.c*g.h*g.w, g.ckk(), g.k*g.k
	p.first, p.runs, p.live = append(p.first[:0], 0), p.runs[:0], p.live[:0]
	for r := 0; r < g.ckk(); r++ {
		row := p.tab[r*p.hw : (r+1)*p.hw]
		for s := 0; s < len(row); {
			if row[s] < 0 {
				s++
				continue
			}
			// The step is the first two entries' (any arithmetic run
			// describes its entries exactly), 1 for a run of one.
			d := int32(1)
			if s+1 < len(row) && row[s+1] > row[s] {
				d = row[s+1] - row[s]
			}
			n := 1
			for s+n < len(row) && row[s+n] == row[s]+int32(n)*d {
				n++
			}
			p.runs = append(p.runs, int32(s), row[s], int32(n), d)
			s += n
		}
		p.first = append(p.first, int32(len(p.runs)/4))
		if p.first[r+1] > p.first[r] {
			p.live = append(p.live, int32(r))
		}
	}
	p.idx, p.keep = grow(p.idx, len(p.tab)), grow(p.keep, len(p.tab))
	for i, t := range p.tab {
		// Padding reads (and fold adds +0 onto) the first value of the
		// row's own channel: ∂x's threads fold disjoint channels, so no
		// other thread writes it meanwhile.
		p.idx[i], p.keep[i] = int32(i/p.hw/p.kk*g.h*g.w), 0
		if t >= 0 {
			p.idx[i], p.keep[i] = t, ^uint32(0)
		}
	}
	p.gather = grow(p.gather, g.ckk())
	for r := range p.gather {
		// Runs of a few values each cost a loop's turn and a call or a
		// strided loop apiece; a gather costs a load, a mask and a store a
		// value. A row of long contiguous runs keeps its copies.
		nr := int(p.first[r+1] - p.first[r])
		contiguous := true
		for k := 4 * p.first[r]; k < 4*p.first[r+1]; k += 4 {
			contiguous = contiguous && (p.runs[k+3] == 1 || p.runs[k+2] == 1)
		}
		p.gather[r] = nr > 0 && !(contiguous && p.hw >= unfoldGatherRun*nr)
	}
	if len(p.live) == 0 {
		// Every output position reads padding only (padding wider than the
		// image's reach): keep row 0, all zeros, so that the products have a
		// k; y is then the bias, ∂/∂x and ∂/∂W zeros, as on the full path.
		p.live = append(p.live, 0)
	}
}

// weights returns W (o × c·k·k) with only the columns of the live rows
// (o × len(live)): w itself when every row is live.
func (p *unfoldPlan) weights(w []float32, o int) []float32 {
	if len(p.live) == p.ckk {
		return w
	}
	if cap(p.wLive) < o*len(p.live) {
		p.wLive = make([]float32, o*len(p.live))
	}
	wl := p.wLive[:o*len(p.live)]
	gather := func(o0, o1 int) {
		for i := o0; i < o1; i++ {
			row, dst := w[i*p.ckk:(i+1)*p.ckk], wl[i*len(p.live):(i+1)*len(p.live)]
			for j, r := range p.live {
				dst[j] = row[r]
			}
		}
	}
	if o*len(p.live) < 1<<16 {
		gather(0, o)
		return wl
	}
	par.Channels(o, gather) // once a run, while nothing else runs
	return wl
}

// foldPieces cuts the live rows into up to parts ranges, each starting at a
// channel's first live row and at a multiple of mr: no two ranges fold onto
// one channel of ∂/∂x, and each starts on a strip of the packed A.
func (p *unfoldPlan) foldPieces(mr, parts int) [][2]int {
	var starts []int
	for i, r := range p.live {
		if i%mr == 0 && (i == 0 || int(r)/p.kk != int(p.live[i-1])/p.kk) {
			starts = append(starts, i)
		}
	}
	if len(starts) == 0 {
		return [][2]int{{0, len(p.live)}}
	}
	parts = max(1, min(parts, len(starts)))
	out := make([][2]int, parts)
	for j := range out {
		lo, hi := par.ChunkBounds(j, parts, len(starts))
		out[j] = [2]int{starts[lo], len(p.live)}
		if hi < len(starts) {
			out[j][1] = starts[hi]
		}
	}
	return out
}

// unfoldGather enables the gathers and scatters of unfoldPlan (tests
// switch it off to compare them with the runs).
var unfoldGather = true

// unfoldGatherRun is the mean length of a row's contiguous runs from which
// copying them beats a gather.
const unfoldGatherRun = 16

// grow returns s resized to n, reallocated only when its capacity is short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// unfold writes row r of the unfoldings of images lo:hi side by side into
// dst ((hi − lo)·h·w values).
func (p *unfoldPlan) unfold(x []float32, lo, hi, r int, dst []float32) {
	if unfoldGather && p.gather[r] {
		idx, keep := p.idx[r*p.hw:(r+1)*p.hw], p.keep[r*p.hw:(r+1)*p.hw]
		for i := lo; i < hi; i++ {
			gatherKeep(dst[(i-lo)*p.hw:(i-lo+1)*p.hw], x[i*p.chw:(i+1)*p.chw], idx, keep)
		}
		return
	}
	runs := p.runs[4*p.first[r] : 4*p.first[r+1]]
	for i := lo; i < hi; i++ {
		xi, d := x[i*p.chw:(i+1)*p.chw], dst[(i-lo)*p.hw:(i-lo+1)*p.hw]
		if len(runs) != 4 || int(runs[2]) != p.hw {
			clear(d)
		}
		for k := 0; k+3 < len(runs); k += 4 {
			s, t, n, step := runs[k], runs[k+1], runs[k+2], runs[k+3]
			switch {
			case n == 1:
				d[s] = xi[t]
			case step == 1:
				copy(d[s:s+n], xi[t:t+n])
			default:
				ds := d[s : s+n]
				for j := range ds {
					ds[j] = xi[t+int32(j)*step]
				}
			}
		}
	}
}

// gatherKeep writes d[s] = x[idx[s]] where keep[s] is all ones and +0
// where it is 0 (padding), with no branch on the pattern.
func gatherKeep(d, x []float32, idx []int32, keep []uint32) {
	d, keep = d[:len(idx)], keep[:len(idx)]
	for s, t := range idx {
		d[s] = math.Float32frombits(math.Float32bits(x[t]) & keep[s])
	}
}

// scatterKeep adds src[s] onto dx[idx[s]] where keep[s] is all ones, and +0
// there where it is 0 (padding: the row's channel's first value), with no
// branch on the pattern. The +0 leaves every sum as it is: ∂x's sums start
// at +0 and are never −0.
func scatterKeep(dx, src []float32, idx []int32, keep []uint32) {
	src, keep = src[:len(idx)], keep[:len(idx)]
	for s, t := range idx {
		dx[t] += math.Float32frombits(math.Float32bits(src[s]) & keep[s])
	}
}

// fold adds row r of the unfoldings' gradient of images lo:hi, side by side
// in src, onto their gradients dx: col2imRowAdd's sums, each entry of dx
// receiving at most one value of a row.
func (p *unfoldPlan) fold(src []float32, lo, hi, r int, dx []float32) {
	if unfoldGather && p.gather[r] {
		idx, keep := p.idx[r*p.hw:(r+1)*p.hw], p.keep[r*p.hw:(r+1)*p.hw]
		for i := lo; i < hi; i++ {
			scatterKeep(dx[i*p.chw:(i+1)*p.chw], src[(i-lo)*p.hw:(i-lo+1)*p.hw], idx, keep)
		}
		return
	}
	runs := p.runs[4*p.first[r] : 4*p.first[r+1]]
	for i := lo; i < hi; i++ {
		di, si := dx[i*p.chw:(i+1)*p.chw], src[(i-lo)*p.hw:(i-lo+1)*p.hw]
		for k := 0; k+3 < len(runs); k += 4 {
			s, t, n, step := runs[k], runs[k+1], runs[k+2], runs[k+3]
			v := si[s : s+n]
			if step == 1 {
				d := di[t : t+n]
				for j := range d {
					d[j] += v[j]
				}
				continue
			}
			for j, u := range v {
				di[t+int32(j)*step] += u
			}
		}
	}
}

// convForwardStacked is convForwardPacked for gs > 1 images a product.
func convForwardStacked(g convGeom, n, gs int, x, w, b, y []float32, sc *scratch[float32]) {
	hw, ohw := g.hw(), g.o*g.hw()
	gs = convStackRegroup(n, gs, hw)
	ng := (n + gs - 1) / gs
	threads := runtime.GOMAXPROCS(0)
	workers := min(threads, ng)
	cols := gs * hw
	sc.unfold.build(g)
	plan := &sc.unfold
	nl := len(plan.live)
	bLen := sgemm.PackedBSize(nl, cols)
	sc.ensure(workers, 0, bLen+g.o*cols, 0, 0)
	pa := sgemm.PackAOnCores(false, g.o, nl, 1, plan.weights(w, g.o), nl, sc.packedW(sgemm.PackedASize(g.o, nl)))
	// group packs the live rows of images lo:hi into buf and returns B and
	// C's stride.
	group := func(lo, hi int, buf []float32) (sgemm.PackedB, int) {
		nc := (hi - lo) * hw
		return sgemm.PackBRows(nl, nc, buf, func(j int, dst []float32) {
			plan.unfold(x, lo, hi, int(plan.live[j]), dst)
		}), nc
	}
	// rows computes rows o0:o1 of C = bias + W·B and scatters them to y.
	rows := func(pb sgemm.PackedB, lo, hi, ldc, o0, o1 int, c []float32) {
		var beta float32
		if b != nil {
			beta = 1
			for o := o0; o < o1; o++ {
				row := c[o*ldc : (o+1)*ldc]
				for k := range row {
					row[k] = b[o]
				}
			}
		}
		sgemm.GemmPacked(pa.Rows(o0, o1), pb, beta, c[o0*ldc:], ldc)
		for o := o0; o < o1; o++ {
			for i := lo; i < hi; i++ {
				copy(y[i*ohw+o*hw:i*ohw+(o+1)*hw], c[o*ldc+(i-lo)*hw:])
			}
		}
	}
	if ng >= threads {
		par.ChunksOf(ng, convStackWidth(n, hw), func(j, p int) {
			lo, hi := j*gs, min(n, (j+1)*gs)
			buf := sc.cols[p]
			pb, ldc := group(lo, hi, buf[:bLen])
			rows(pb, lo, hi, ldc, 0, g.o, buf[bLen:])
		})
		return
	}
	pieces := rowPieces(g.o, sgemm.Active().MR, threads)
	buf := sc.cols[0]
	for lo := 0; lo < n; lo += gs {
		hi := min(n, lo+gs)
		pb, ldc := group(lo, hi, buf[:bLen])
		par.Chunks(len(pieces), func(j, _ int) {
			rows(pb, lo, hi, ldc, pieces[j][0], pieces[j][1], buf[bLen:])
		})
	}
}

// convGradXStacked is convBackwardPacked's ∂/∂x for gs > 1 images a
// product: Wᵀ times the group's output gradients side by side, folded back
// a block of rows at a time.
func convGradXStacked(g convGeom, n, gs int, w, dy, out []float32, sc *scratch[float32]) {
	hw, chw, ohw := g.hw(), g.c*g.h*g.w, g.o*g.hw()
	gs = convStackRegroup(n, gs, hw)
	ng := (n + gs - 1) / gs
	threads := runtime.GOMAXPROCS(0)
	cols := gs * hw
	sc.unfold.build(g)
	plan := &sc.unfold
	nl := len(plan.live)
	block := convRowBlock(nl, cols)
	bLen := sgemm.PackedBSize(g.o, cols)
	pa := sgemm.PackAOnCores(true, nl, g.o, 1, plan.weights(w, g.o), nl, sc.packedW(sgemm.PackedASize(nl, g.o)))
	group := func(lo, hi int, buf []float32) (sgemm.PackedB, int) {
		nc := (hi - lo) * hw
		return sgemm.PackBRows(g.o, nc, buf, func(r int, dst []float32) {
			for i := lo; i < hi; i++ {
				copy(dst[(i-lo)*hw:(i-lo+1)*hw], dy[i*ohw+r*hw:i*ohw+(r+1)*hw])
			}
		}), nc
	}
	// fold computes the live rows j0:j1 of the unfoldings' gradient, a
	// block at a time, and adds them onto ∂/∂x of images lo:hi (the other
	// rows would fold onto padding only).
	fold := func(pb sgemm.PackedB, lo, hi, ldc, j0, j1 int, col []float32) {
		for a := j0; a < j1; a += block {
			z := min(a+block, j1)
			sgemm.GemmPacked(pa.Rows(a, z), pb, 0, col, ldc)
			for j := a; j < z; j++ {
				plan.fold(col[(j-a)*ldc:(j-a+1)*ldc], lo, hi, int(plan.live[j]), out)
			}
		}
	}
	if ng >= threads {
		sc.ensure(min(threads, ng), 0, bLen+block*cols, 0, 0)
		par.ChunksOf(ng, convStackWidth(n, hw), func(j, p int) {
			lo, hi := j*gs, min(n, (j+1)*gs)
			clear(out[lo*chw : hi*chw])
			buf := sc.cols[p]
			pb, ldc := group(lo, hi, buf[:bLen])
			fold(pb, lo, hi, ldc, 0, nl, buf[bLen:])
		})
		return
	}
	pieces := plan.foldPieces(sgemm.Active().MR, threads)
	sc.ensure(len(pieces), 0, bLen+block*cols, 0, 0)
	clear(out[:n*chw])
	for lo := 0; lo < n; lo += gs {
		hi := min(n, lo+gs)
		pb, ldc := group(lo, hi, sc.cols[0][:bLen])
		par.Chunks(len(pieces), func(j, p int) {
			fold(pb, lo, hi, ldc, pieces[j][0], pieces[j][1], sc.cols[p][bLen:])
		})
	}
}

// convGradWStacked is convBackwardPacked's ∂/∂W for gs > 1 images a
// product: the group's output gradients side by side (o × gs·h·w) times the
// transpose of their unfoldings side by side.
func convGradWStacked(g convGeom, n, gs int, x, dy, out []float32, sc *scratch[float32]) {
	ckk, hw, ohw := g.ckk(), g.hw(), g.o*g.hw()
	nc := convStackChunks(n, gs)
	threads := runtime.GOMAXPROCS(0)
	cols := gs * hw
	sc.unfold.build(g)
	plan := &sc.unfold
	nl := len(plan.live)
	bLen := sgemm.PackedBSize(cols, nl)
	// group gathers the output gradients of images lo:hi side by side into
	// a (o × k) and packs the live columns c0:c1 of their unfoldings' transpose
	// into pb (k × (c1 − c0)); their product, added to a chunk's partial sums
	// with β 0 on its first group, is ∂/∂W's columns c0:c1 of the live rows.
	group := func(lo, hi, c0, c1 int, buf []float32) (pb sgemm.PackedB, a []float32, k int) {
		k = (hi - lo) * hw
		a = buf[bLen : bLen+g.o*k]
		for o := 0; o < g.o; o++ {
			for i := lo; i < hi; i++ {
				copy(a[o*k+(i-lo)*hw:o*k+(i-lo+1)*hw], dy[i*ohw+o*hw:i*ohw+(o+1)*hw])
			}
		}
		pb = sgemm.PackBCols(k, c1-c0, buf[:bLen], func(j int, dst []float32) {
			plan.unfold(x, lo, hi, int(plan.live[c0+j]), dst)
		})
		return pb, a, k
	}
	// The chunks' partial sums, each shared by column pieces (live rows of
	// the unfolding) among the threads when there are more threads than
	// chunks: each piece packs only its own columns. The same sums as one
	// worker a chunk, or as the rows shared out.
	pieces := rowPieces(nl, sgemm.Active().NR, convFilterPieces(nc))
	tasks := nc * len(pieces)
	sc.ensure(min(threads, tasks), nc, bLen+g.o*cols, g.o*nl, 0)
	par.ChunksOf(tasks, nc*colStrips(nl), func(t, p int) {
		j, c0, c1 := t/len(pieces), pieces[t%len(pieces)][0], pieces[t%len(pieces)][1]
		lo, hi := par.ChunkBounds(j, nc, n)
		for s := lo; s < hi; s += gs {
			pb, a, k := group(s, min(hi, s+gs), c0, c1, sc.cols[p])
			sgemm.GemmPackedB(false, g.o, 1, a, k, pb, float32(min(1, s-lo)), sc.partW[j][c0:], nl)
		}
	})
	if nl == ckk {
		sumPartials(out, sc.partW[:nc])
		return
	}
	// The partials in the same order, each live column to its place; the
	// columns of padding rows are sums of zeros: 0.
	par.Channels(g.o, func(o0, o1 int) {
		clear(out[o0*ckk : o1*ckk])
		for o := o0; o < o1; o++ {
			for j, r := range plan.live {
				v := sc.partW[0][o*nl+j]
				for c := 1; c < nc; c++ {
					v += sc.partW[c][o*nl+j]
				}
				out[o*ckk+int(r)] = v
			}
		}
	})
}

// convStackWidth is the most groups n images of hw values make (a group
// at least one NR strip wide): the stacked passes' width in the step
// profile.
func convStackWidth(n, hw int) int {
	return max(1, n/((sgemm.Active().NR+hw-1)/hw))
}
