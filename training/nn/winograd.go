package nn

import (
	"fmt"
	"os"
	"runtime"

	"github.com/llpfc/llpfc/internal/par"
	"github.com/llpfc/llpfc/internal/sgemm"
	"github.com/llpfc/llpfc/internal/wino"
)

// Winograd's minimal filtering F(2×2, 3×3) for the 3×3, stride-1, padding-1
// convolutions that make up most of WRN-16-4, ResNet18 and VGG16 (Lavin
// and Gray, "Fast Algorithms for Convolutional Neural Networks", CVPR
// 2016). The output is cut into 2×2 tiles; tile t of channel k is
//
//	Y_t = Aᵀ [ Σ_c U_{k,c} ⊙ V_{c,t} ] A,  U = G g Gᵀ,  V = Bᵀ d B,
//
// with g the 3×3 kernel, d the 4×4 input patch the tile reads and A, B, G the
// fixed 4×2, 4×4 and 4×3 matrices below (entries 0, ±1 and ½, so the
// transforms are additions and halvings). For each of the 16 positions ξ of
// the 4×4 transformed tile, Σ_c U_ξ[k,c]·V_ξ[c,t] is one matrix product
// (K×C times C×T, T tiles): 16 products of 16·K·C·T multiply-adds where
// im2col's one product has 36·K·C·T, 2.25× fewer.
//
// The two gradients are the same computation transposed (the forward is
// linear in g and in d), so they too are 16 products each:
//
//	∂/∂d of a tile = B [ Σ_k U_ξ[k,c]·D̂_ξ[k,t] ] Bᵀ, D̂ = A ∂Y Aᵀ,
//	                 added onto the 4×4 patch the tile read;
//	∂/∂g           = Gᵀ [ Σ_t D̂_ξ[k,t]·V_ξ[c,t] ] G.
//
// They are therefore the exact gradients of the function the forward
// computes, which is the convolution in exact arithmetic; in float32 the
// sums are grouped differently from im2col's, and the results agree with it
// to rounding (TestWinogradMatchesDirect, against a float64 direct
// convolution).
//
// On the larger maps (winoF4MinMap) the same passes run F(4×4, 3×3) (the
// same paper): 4×4 output tiles read 6×6 patches, so there are 36 products
// of K·C·T/4 multiply-adds per 16 outputs, where F(2×2, 3×3) has 64 — 1.78×
// fewer again, for transforms four times the size per tile (4× fewer tiles).
// Its matrices have entries up to 8 and 5 and G's ⅙, so it rounds more:
// its error is bounded by the same expression evaluated on absolute values
// (TestWinogradF4MatchesDirect holds it to that bound).
//
// The images are taken in groups (winoTiles: about 2¹⁴ values of the
// larger transformed matrix), each on one core from its transforms through
// its 16 products to its inverse transforms, so that its buffers stay in
// that core's caches. A forward or ∂/∂x value is one product's sum over the
// channels, whatever the group. ∂/∂g sums the groups of a chunk in order
// into the chunk's partial sums (the chunks fixed by the geometry and the
// batch: winoGradWChunks) and then the chunks in order. No two threads write
// one value, and the results do not depend on the number of threads
// (TestWinogradMatchesDirect runs 1, 2 and 3).

// useWinograd sends eligible float32 convolutions through Winograd's
// minimal filtering (tests switch it off to compare the other paths bit for
// bit), and useWinoF4 those on maps of at least winoF4MinMap by F(4×4, 3×3)
// (winoF4) rather than F(2×2, 3×3) (winoF2). They start as the environment
// variable Conv3x3Env says: "im2col" turns both off, "winograd2" leaves
// F(2×2, 3×3) alone, "winograd" or nothing turns both on.
var useWinograd, useWinoF4 = winogradFromEnv(os.Getenv(Conv3x3Env))

// useWinoDx4 sends ∂/∂x of the 4×4 maps through F(2×2, 3×3) too
// (winogradGradXOK). It came after F(4×4, 3×3) and is on with it from the
// environment, so that "winograd2" keeps the numbers from before both
// (tests set it apart).
var useWinoDx4 = useWinoF4

// Conv3x3Env names the environment variable that chooses the 3×3 stride-1
// convolutions' algorithm at start-up: "winograd" (the default: F(4×4, 3×3)
// on the larger maps, F(2×2, 3×3) on the others, ∂/∂x of the 4×4 maps
// included), "winograd2" (F(2×2, 3×3) on every map and ∂/∂x of the 4×4 maps
// by im2col: the numbers before F(4×4, 3×3)) or "im2col" (the path before
// Winograd, whose numbers it reproduces).
const Conv3x3Env = "LLPFC_CONV3X3"

// winogradFromEnv reads Conv3x3Env's value (Winograd on, F(4×4, 3×3) on);
// any other value than the three names is reported on standard error once
// and leaves the default.
func winogradFromEnv(v string) (on, f4 bool) {
	switch v {
	case "", "winograd":
		return true, true
	case "winograd2":
		return true, false
	case "im2col":
		return false, false
	}
	fmt.Fprintf(os.Stderr, "nn: %s=%q is none of winograd, winograd2 and im2col; using winograd\n", Conv3x3Env, v)
	return true, true
}

// winoF4MinMap is the least height and width of the maps that take
// F(4×4, 3×3) (bench/NOTES.md, "Lever 17"): at 32×32 it took 20–27 % off
// the three passes of WRN-16-4's layers (35–40 % off the forward); at
// 16×16 (four tiles a row, so the transforms' XMM kernels, and group
// buffers of 36 matrices that either outgrow the caches or leave the
// products too few columns) its ∂x lost 20–50 % and the three passes
// together did not gain; at 8×8 it lost on every pass. Tests lower it to
// run F(4×4, 3×3) on small and odd maps.
var winoF4MinMap = 32

// SetWinogradF4 turns F(4×4, 3×3) on the larger maps and Winograd's ∂/∂x
// of the 4×4 maps on (the default) or off (F(2×2, 3×3) on every map, as
// before them: "winograd2"'s numbers) and returns the previous setting; it
// matters only with SetWinograd's path on. Call it between runs, not during
// one.
func SetWinogradF4(on bool) bool {
	was := useWinoF4
	useWinoF4, useWinoDx4 = on, on
	return was
}

// winoAlg is one of the two Winograd algorithms: its output tile side m,
// its α² = (m+2)² transformed values a tile (and products), and internal/wino's
// transforms.
type winoAlg struct {
	m, n       int
	input      func(src []float32, h, w int, pad, v []float32, stride int, cols wino.Cols)
	outGrad    func(dy []float32, h, w int, dh []float32, stride int, cols wino.Cols)
	output     func(m []float32, stride int, h, w int, bias float32, pad, y []float32)
	inputGrad  func(z []float32, stride int, h, w int, pad, dx []float32)
	weights    func(w []float32, K, C, k0, k1 int, u []float32, stride int)
	weightGrad func(du []float32, stride, K, C, k0, k1 int, dw []float32)
	padSize    func(h, w int) int

	// The transforms of n planes of one channel (n images of a group) in
	// one call, with the bits of the one-plane functions, and the scratch
	// they need (at least padSize's): F(2×2, 3×3)'s own (wino's *Planes),
	// F(4×4, 3×3)'s a plane at a time (planesOf).
	inputPlanes   func(src []float32, ss, n, h, w int, pad, v []float32, stride int, cols wino.Cols)
	outGradPlanes func(dy []float32, ys, n, h, w int, pad, dh []float32, stride int, cols wino.Cols)
	outputPlanes  func(m []float32, stride, n, h, w int, bias float32, pad, y []float32, ys int)
	planesScratch func(n, h, w int) int
}

var (
	winoF2 = &winoAlg{m: 2, n: 16, input: wino.Input, outGrad: wino.OutGrad, output: wino.Output,
		inputGrad: wino.InputGrad, weights: wino.Weights, weightGrad: wino.WeightGrad, padSize: wino.PadSize,
		inputPlanes: wino.InputPlanes, outGradPlanes: wino.OutGradPlanes, outputPlanes: wino.OutputPlanes,
		planesScratch: wino.PlanesScratch}
	winoF4 = planesOf(&winoAlg{m: 4, n: 36, input: wino.F4Input, outGrad: wino.F4OutGrad, output: wino.F4Output,
		inputGrad: wino.F4InputGrad, weights: wino.F4Weights, weightGrad: wino.F4WeightGrad, padSize: wino.F4PadSize})
)

// planesOf gives alg the *Planes transforms as its one-plane ones plane by
// plane.
func planesOf(alg *winoAlg) *winoAlg {
	tiles := alg.tiles
	alg.inputPlanes = func(src []float32, ss, n, h, w int, pad, v []float32, stride int, cols wino.Cols) {
		first := cols.First
		for i := 0; i < n; i++ {
			cols.First = first + i*tiles(h, w)
			alg.input(src[i*ss:], h, w, pad, v, stride, cols)
		}
	}
	alg.outGradPlanes = func(dy []float32, ys, n, h, w int, pad, dh []float32, stride int, cols wino.Cols) {
		first := cols.First
		for i := 0; i < n; i++ {
			cols.First = first + i*tiles(h, w)
			alg.outGrad(dy[i*ys:], h, w, dh, stride, cols)
		}
	}
	alg.outputPlanes = func(m []float32, stride, n, h, w int, bias float32, pad, y []float32, ys int) {
		for i := 0; i < n; i++ {
			alg.output(m[i*tiles(h, w):], stride, h, w, bias, pad, y[i*ys:])
		}
	}
	alg.planesScratch = func(_, h, w int) int { return alg.padSize(h, w) }
	return alg
}

// tiles is the number of tiles of an h×w plane.
func (alg *winoAlg) tiles(h, w int) int { return ((h + alg.m - 1) / alg.m) * ((w + alg.m - 1) / alg.m) }

// winoNames names the Winograd algorithms the 3×3 convolutions take, with
// the given times and at-least signs: "F(4x4,3x3) on maps >= 32x32,
// F(2x2,3x3) below", or "F(2x2,3x3)" with F(4×4, 3×3) off; then ", dx also
// on 4x4 maps" with useWinoDx4 (∂/∂x is otherwise Winograd's on the maps of
// at least 8×8 only).
func winoNames(times, atLeast string) string {
	s := "F(2" + times + "2,3" + times + "3)"
	if useWinoF4 {
		s = fmt.Sprintf("F(4%s4,3%s3) on maps %s %d%s%d, %s below", times, times, atLeast, winoF4MinMap, times, winoF4MinMap, s)
	}
	if useWinoDx4 {
		s += ", dx also on 4" + times + "4 maps"
	}
	return s
}

// winoAlgOf returns the algorithm convolution g's Winograd passes take.
func winoAlgOf(g convGeom) *winoAlg {
	if useWinoF4 && g.h >= winoF4MinMap && g.w >= winoF4MinMap {
		return winoF4
	}
	return winoF2
}

// SetWinograd turns the Winograd path of the 3×3, stride-1 convolutions on
// (the default) or off and returns the previous setting. Off, they run as
// im2col products, whose float32 sums differ from the direct convolution's
// only by their order; on, the transforms add a few roundings more: the
// results agree to float32 rounding all the same, but an optimizer such as
// Adam, whose first steps move a weight by ±lr whatever its gradient's size,
// can turn the rounding of a near-zero gradient into a step. Call it between
// runs, not during one. The dense path of the smallest maps (convdense.go)
// follows it: off, every convolution runs as before either.
func SetWinograd(on bool) bool {
	was := useWinograd
	useWinograd = on
	return was
}

// winoMinChannels is the fewest input and output channels for which the
// Winograd path is taken: with fewer, the products are too thin for the
// micro-kernel and the transforms dominate (the 3-channel first layers).
const winoMinChannels = 16

// winogradOK reports whether convolution g takes the Winograd path for
// its forward and ∂/∂W.
func winogradOK(g convGeom) bool {
	return useWinograd && g.k == 3 && g.stride == 1 && g.pad == 1 &&
		g.c >= winoMinChannels && g.o >= winoMinChannels && g.h >= 2 && g.w >= 2
}

// winogradGradXOK reports whether convolution g takes the Winograd path for
// ∂/∂x: on maps of at least 8×8, and on 4×4 maps with useWinoDx4. On the
// other maps narrower than 8 (fewer than four tiles a row, where the
// transforms' eight- and four-tile kernels do not run) the inverse
// transform's work per plane cost more than the products saved (ResNet18's
// 4×4 and 2×2 maps at batch 128: 10.7 and 11.8 ms against the stacked
// products' 8.6 and 8.4); the 4×4 plane's own kernels (wino's input4x4,
// outGrad4x4 and inputGrad4x4) turned that round (bench/NOTES.md,
// "Lever 20"). ∂/∂x by im2col is the gradient of the same convolution: the
// two paths differ by float32 rounding only.
func winogradGradXOK(g convGeom) bool {
	return winogradOK(g) && (g.h >= 8 && g.w >= 8 || useWinoDx4 && g.h == 4 && g.w == 4)
}

// winoOwnValues bounds a group of images: its T tiles times max(C, K) is
// at most this many values (one of its 16 transformed matrices: 64 KiB),
// unless one image alone has more tiles. Each group runs on one core from
// its transforms to its inverse transforms, so that its buffers stay in
// that core's caches. F(4×4, 3×3)'s groups have 36 matrices in the same
// bytes (16/36 of this a matrix): with this many a matrix, the 36 did not
// stay in the caches and its layers ran slower (bench/NOTES.md, "Lever
// 17"). Tests lower it to cut small batches into several groups.
var winoOwnValues = 1 << 14

// winoTiles is the tiling of a convolution's output for n images.
type winoTiles struct {
	th, tw, tpi int // tile rows and columns of one image, tiles per image
	gi          int // images per group
	t           int // columns of a group: gi·tpi
	ld          int // the stride of the group buffers' rows: t + 16
}

// stride is the distance between the 16 matrices of rows rows in a group
// buffer: rows·ld + 32. With t a power of two, neither ld nor the matrices'
// stride is a multiple of 4 KiB: the 16 values of a tile written at once
// (and the rows the packing reads together) would otherwise fall into the
// same sets of L1, which evicted them from one another (measured: the
// transforms took half of WRN-16-4's step).
func (wt winoTiles) stride(rows int) int { return rows*wt.ld + 32 }

func newWinoTiles(g convGeom, alg *winoAlg, n, values int) winoTiles {
	th, tw := (g.h+alg.m-1)/alg.m, (g.w+alg.m-1)/alg.m
	tpi := th * tw
	values = values * 16 / alg.n // alg.n matrices in the bytes of F(2×2, 3×3)'s 16
	gi := max(1, min(n, values/max(g.c, g.o)/tpi))
	return winoTiles{th: th, tw: tw, tpi: tpi, gi: gi, t: gi * tpi, ld: gi*tpi + 16}
}

// winoU returns the scratch's buffer for the n transformed weight matrices
// of a K×C layer (winoUStride apart).
func (s *scratch[F]) winoU(n, k, c int) []F {
	size := n * winoUStride(k, c)
	if cap(s.wino) < size {
		s.wino = make([]F, size)
	}
	return s.wino[:size]
}

// winoWeights writes U_ξ = G g Gᵀ of the K×C×3×3 weights w into u (alg.n
// K×C matrices), shared out to the cores by output channel.
func winoWeights(alg *winoAlg, w []float32, k, c int, u []float32) {
	par.Channels(k, func(lo, hi int) { alg.weights(w, k, c, lo, hi, u, winoUStride(k, c)) })
}

// winoUStride is the distance between the 16 K×C matrices U_ξ (and ∂U_ξ):
// K·C + 32, so that the 16 values of one kernel do not share a set of L1
// when K·C is a multiple of 1024.
func winoUStride(k, c int) int { return k*c + 32 }

// winoPackU packs U_ξ (tr: U_ξᵀ) for each ξ into the scratch's packed
// weights and returns the 16 packed operands.
func winoPackU(alg *winoAlg, u []float32, k, c int, tr bool, sc *scratch[float32]) []sgemm.PackedA {
	m, kk := k, c
	if tr {
		m, kk = c, k
	}
	size := sgemm.PackedASize(m, kk)
	buf := sc.packedW(alg.n * size)
	pas := make([]sgemm.PackedA, alg.n)
	par.Chunks(alg.n, func(xi, _ int) {
		us := winoUStride(k, c)
		pas[xi] = sgemm.PackA(tr, m, kk, 1, u[xi*us:xi*us+k*c], c, buf[xi*size:(xi+1)*size])
	})
	return pas
}

// winoOwnGroups cuts n images into groups of at most winoOwnValues (and
// into at least as many groups as threads, where the batch allows) and
// returns the tiling, the number of groups and of workers. A forward or
// ∂/∂x value is one product's sum over the channels, the same whatever the
// group, so the cut may depend on the threads (and on anything else).
//
// F(2×2, 3×3)'s passes take half of winoOwnValues: a group's transformed
// inputs and products, 16·T·(C + K) values, are then at most 1 MB for equal
// C and K, half of a core's L2, where ∂/∂W's groups keep the whole (its
// products sum over the tiles, and longer sums paid more there). On the
// second Intel Xeon, with F(2×2, 3×3)'s passes alone, this took 19–27 % off
// ResNet18's 64-channel 8×8 layers at batch 128, and 7–9 % off WRN-16-4's
// 256-channel 8×8 layers at 32; the 4×4 and 16×16 layers moved by ±4 %
// (bench/NOTES.md, "Lever 19").
func winoOwnGroups(g convGeom, alg *winoAlg, n int) (winoTiles, int, int) {
	values := winoOwnValues
	if alg == winoF2 {
		values /= 2
	}
	wt := newWinoTiles(g, alg, n, values)
	threads := runtime.GOMAXPROCS(0)
	if gi := (n + threads - 1) / threads; gi < wt.gi {
		wt.gi, wt.t, wt.ld = gi, gi*wt.tpi, gi*wt.tpi+16
	}
	ng := (n + wt.gi - 1) / wt.gi
	return wt, ng, min(threads, ng)
}

// winoPackedStride is the distance between the 16 packed operands (rows×T,
// sgemm's packed layout) a worker's transforms write: their size and 32
// values, so that it is not a multiple of 4 KiB.
func winoPackedStride(rows, t int) int { return sgemm.PackedBSize(rows, t) + 32 }

// winoPackedCols returns where row r of a rows×nt packed operand starts and
// how its columns (image i's tiles from i·tpi) lie.
func winoPackedCols(rows, nt, r, first int) (int, wino.Cols) {
	base, ss, nr := sgemm.PackedBRow(rows, nt, r)
	return base, wino.Cols{First: first, Strip: nr, StripStride: ss}
}

// winoOwnPass runs a pass of the forward's shape (the forward, or ∂/∂x,
// its transpose): per group of images on one core, in writes the transforms
// of the group's rowsIn input planes into the products' packed B operands,
// the 16 products multiply them by the packed weights pas, and out reads
// the group's rowsOut planes of the products to make its result. Both go
// plane index by plane index, each call taking that plane of the imgs
// images from img0 (the *Planes transforms: on the small maps a plane's
// tiles are a fraction of a cache line, bench/NOTES.md, "Lever 20").
func winoOwnPass(g convGeom, alg *winoAlg, n, rowsIn, rowsOut int, pas []sgemm.PackedA, sc *scratch[float32],
	in func(img0, imgs, plane int, pad, dst []float32, stride int, cols wino.Cols),
	out func(img0, imgs, plane int, pad, src []float32, stride int)) {
	wt, ng, workers := winoOwnGroups(g, alg, n)
	ld, bs, cs, nx := wt.ld, winoPackedStride(rowsIn, wt.t), wt.stride(rowsOut), alg.n
	sc.ensure(workers, 0, nx*bs+nx*cs+alg.planesScratch(wt.gi, g.h, g.w), 0, 0)
	par.ChunksOf(ng, n, func(j, p int) {
		buf := sc.cols[p]
		bb, cc, pad := buf[:nx*bs], buf[nx*bs:nx*(bs+cs)], buf[nx*(bs+cs):]
		lo, hi := j*wt.gi, min(n, (j+1)*wt.gi)
		nt := (hi - lo) * wt.tpi
		for r := 0; r < rowsIn; r++ {
			base, cols := winoPackedCols(rowsIn, nt, r, 0)
			in(lo, hi-lo, r, pad, bb[base:], bs, cols)
		}
		size := sgemm.PackedBSize(rowsIn, nt)
		for xi := 0; xi < nx; xi++ {
			sgemm.GemmPacked(pas[xi], sgemm.PackedBFrom(rowsIn, nt, bb[xi*bs:xi*bs+size]), 0, cc[xi*cs:], ld)
		}
		for r := 0; r < rowsOut; r++ {
			out(lo, hi-lo, r, pad, cc[r*ld:], cs)
		}
	})
}

// convForwardWinograd is the forward of a convolution that winogradOK
// accepts. The input transforms write the products' B operands in their
// packed layout, so the products copy nothing.
func convForwardWinograd(g convGeom, n int, x, w, b, y []float32, sc *scratch[float32]) {
	C, K, hw, alg := g.c, g.o, g.h*g.w, winoAlgOf(g)
	u := sc.winoU(alg.n, K, C)
	winoWeights(alg, w, K, C, u)
	winoOwnPass(g, alg, n, C, K, winoPackU(alg, u, K, C, false, sc), sc,
		func(i0, ni, c int, pad, dst []float32, stride int, cols wino.Cols) {
			alg.inputPlanes(x[(i0*C+c)*hw:], C*hw, ni, g.h, g.w, pad, dst, stride, cols)
		},
		func(i0, ni, k int, pad, src []float32, stride int) {
			var bias float32
			if b != nil {
				bias = b[k]
			}
			alg.outputPlanes(src, stride, ni, g.h, g.w, bias, pad, y[(i0*K+k)*hw:], K*hw)
		})
}

// convGradXWinograd is ∂/∂x of a convolution that winogradGradXOK accepts:
// the forward transposed (the output gradient's transforms write the
// products' packed B operands).
func convGradXWinograd(g convGeom, n int, w, dy, dx []float32, sc *scratch[float32]) {
	C, K, hw, alg := g.c, g.o, g.h*g.w, winoAlgOf(g)
	u := sc.winoU(alg.n, K, C)
	winoWeights(alg, w, K, C, u)
	winoOwnPass(g, alg, n, K, C, winoPackU(alg, u, K, C, true, sc), sc,
		func(i0, ni, k int, pad, dst []float32, stride int, cols wino.Cols) {
			alg.outGradPlanes(dy[(i0*K+k)*hw:], K*hw, ni, g.h, g.w, pad, dst, stride, cols)
		},
		func(i0, ni, c int, pad, src []float32, stride int) {
			tpi := alg.tiles(g.h, g.w)
			for i := 0; i < ni; i++ {
				alg.inputGrad(src[i*tpi:], stride, g.h, g.w, pad, dx[((i0+i)*C+c)*hw:])
			}
		})
}

// winoPartialValues bounds the values of ∂/∂W's partial sums (one 16·K·C
// set per chunk): 32 MiB.
const winoPartialValues = 1 << 23

// winoGradWChunks is the number of chunks ∂/∂W's ng groups are cut into:
// the largest power of two at most ng, convChunks and the number of sets of
// partial sums winoPartialValues holds (a power of two, so that two or four
// threads get as many chunks each). It depends on the geometry and the
// batch only, never on the threads, and so does every sum.
func winoGradWChunks(ng, nx, k, c int) int {
	limit := max(1, min(ng, convChunks, winoPartialValues/(nx*winoUStride(k, c))))
	nc := 1
	for nc*2 <= limit {
		nc *= 2
	}
	return nc
}

// convGradWWinograd is ∂/∂W of a convolution that winogradOK accepts: the
// 16 products ∂U_ξ = D̂_ξ V_ξᵀ of each group of images, summed over a
// chunk's groups in order into the chunk's partial sums (a chunk a core,
// its buffers in that core's caches), the partials added in chunk order,
// then transformed back.
func convGradWWinograd(g convGeom, n int, x, dy, dw []float32, sc *scratch[float32]) {
	C, K, hw, alg := g.c, g.o, g.h*g.w, winoAlgOf(g)
	nx := alg.n
	wt := newWinoTiles(g, alg, n, winoOwnValues)
	ng := (n + wt.gi - 1) / wt.gi
	nc := winoGradWChunks(ng, nx, K, C)
	// With more threads than chunks, each chunk's nx products are shared
	// among several workers, each making the chunk's transforms itself.
	xis := rowPieces(nx, 1, convFilterPieces(nc))
	tasks := nc * len(xis)
	workers := min(runtime.GOMAXPROCS(0), tasks)
	ld, vs, ds, us := wt.ld, wt.stride(C), wt.stride(K), winoUStride(K, C)
	aSize, bSize := sgemm.PackedASize(K, wt.t), sgemm.PackedBSize(wt.t, C)
	padLen := alg.planesScratch(wt.gi, g.h, g.w)
	sc.ensure(workers, nc, nx*vs+nx*ds+aSize+bSize+padLen, nx*us, 0)
	par.ChunksOf(tasks, nc*nx, func(t, p int) {
		j, x0, x1 := t/len(xis), xis[t%len(xis)][0], xis[t%len(xis)][1]
		buf, part := sc.cols[p], sc.partW[j]
		v, buf := buf[:nx*vs], buf[nx*vs:]
		dh, buf := buf[:nx*ds], buf[nx*ds:]
		pack, pad := buf[:aSize+bSize], buf[aSize+bSize:]
		g0, g1 := par.ChunkBounds(j, nc, ng)
		for gr := g0; gr < g1; gr++ {
			lo, hi := gr*wt.gi, min(n, (gr+1)*wt.gi)
			nt := (hi - lo) * wt.tpi
			for c := 0; c < C; c++ {
				alg.inputPlanes(x[(lo*C+c)*hw:], C*hw, hi-lo, g.h, g.w, pad, v[c*ld:], vs, wino.Cols{})
			}
			for k := 0; k < K; k++ {
				alg.outGradPlanes(dy[(lo*K+k)*hw:], K*hw, hi-lo, g.h, g.w, pad, dh[k*ld:], ds, wino.Cols{})
			}
			var beta float32
			if gr > g0 {
				beta = 1
			}
			for xi := x0; xi < x1; xi++ {
				pa := sgemm.PackA(false, K, nt, 1, dh[xi*ds:], ld, pack[:aSize])
				// V_ξᵀ packed by 8×8 transposes straight from V_ξ's rows.
				pb := sgemm.PackBTrans(nt, C, pack[aSize:], v[xi*vs:], ld)
				sgemm.GemmPacked(pa, pb, beta, part[xi*us:xi*us+K*C], C)
			}
		}
	})
	du := sc.partW[0]
	if nc > 1 {
		sumPartials(du, sc.partW[:nc])
	}
	par.Channels(K, func(lo, hi int) { alg.weightGrad(du, us, K, C, lo, hi, dw) })
}
