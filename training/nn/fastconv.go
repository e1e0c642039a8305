package nn

import (
	"errors"
	"fmt"
	"hash"
	"runtime"
	"sync"

	"github.com/chewxy/hm"
	"github.com/llpfc/llpfc/internal/par"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Conv2dIm2col adds the 2-D convolution (cross-correlation, as PyTorch's
// nn.Conv2d and gorgonia.Conv2d) of x (N×C×H×W) with the filter w
// (O×C×k×k), zero padding pad and stride stride on both axes, plus the
// bias b (1×O×1×1) if b is non-nil, to x's graph. The output is
// N×O×Ho×Wo with Ho = (H+2·pad−k)/stride+1 (likewise Wo).
//
// It is the speed lever "im2col buffers reused" and "data parallelism over
// the cores" (bench/NOTES.md): per image, the patches are unfolded into a reused
// (C·k·k)×(Ho·Wo) buffer (im2col) and y_n = W·col_n is one matrix product
// written straight into the NCHW output (no transpose); the bias is added
// in the same pass. The backward ops compute ∂/∂x (col_n' = Wᵀ·dy_n folded
// back, col2im), ∂/∂W = Σ_n dy_n·col_nᵀ and ∂/∂b = Σ_{n,h,w} dy. Images are
// split into a fixed number of chunks (independent of GOMAXPROCS) run on
// up to GOMAXPROCS goroutines, and the per-chunk partial ∂/∂W and ∂/∂b are
// summed in chunk order, so results do not depend on the number of cores
// or on scheduling. Outputs are written into the machine's kept buffers
// (UsePreallocDo). TestConv2dIm2colMatchesGorgonia and
// TestConv2dIm2colGradFD check it against gorgonia.Conv2d and central
// finite differences.
func Conv2dIm2col(x, w, b *gorgonia.Node, pad, stride int) (*gorgonia.Node, error) {
	xs, ws := x.Shape(), w.Shape()
	if xs.Dims() != 4 || ws.Dims() != 4 {
		return nil, fmt.Errorf("Conv2dIm2col: input shape %v and filter shape %v, want N×C×H×W and O×C×k×k", xs, ws)
	}
	if ws[1] != xs[1] || ws[2] != ws[3] {
		return nil, fmt.Errorf("Conv2dIm2col: filter shape %v for input %v, want O×%d×k×k", ws, xs, xs[1])
	}
	if pad < 0 || stride < 1 {
		return nil, fmt.Errorf("Conv2dIm2col: padding %d and stride %d, want ≥ 0 and ≥ 1", pad, stride)
	}
	g := newConvGeom(xs[1], xs[2], xs[3], ws[0], ws[2], pad, stride)
	if g.outH() < 1 || g.outW() < 1 {
		return nil, fmt.Errorf("Conv2dIm2col: %d×%d input too small for a %d×%d filter with padding %d", g.h, g.w, g.k, g.k, pad)
	}
	if x.Dtype() != w.Dtype() {
		return nil, fmt.Errorf("Conv2dIm2col: input %v and filter %v element types differ", x.Dtype(), w.Dtype())
	}
	if b == nil {
		return gorgonia.ApplyOp(&convOp{geom: g}, x, w)
	}
	if bs := b.Shape(); bs.TotalSize() != g.o || b.Dtype() != x.Dtype() {
		return nil, fmt.Errorf("Conv2dIm2col: bias shape %v (%v), want 1×%d×1×1 (%v)", bs, b.Dtype(), g.o, x.Dtype())
	}
	return gorgonia.ApplyOp(&convOp{geom: g, bias: true}, x, w, b)
}

// convGeom is the geometry of one convolution, with its output size
// computed once (the unfolding asks for it for every row).
type convGeom struct{ c, h, w, o, k, pad, stride, ho, wo int }

func newConvGeom(c, h, w, o, k, pad, stride int) convGeom {
	return convGeom{c: c, h: h, w: w, o: o, k: k, pad: pad, stride: stride,
		ho: (h+2*pad-k)/stride + 1, wo: (w+2*pad-k)/stride + 1}
}

func (g convGeom) outH() int { return g.ho }
func (g convGeom) outW() int { return g.wo }
func (g convGeom) ckk() int  { return g.c * g.k * g.k }
func (g convGeom) hw() int   { return g.outH() * g.outW() }

// same reports a stride-1 convolution whose output has the input's size
// (2·pad = k − 1): each row of its unfolding is the image shifted by a
// kernel offset, one contiguous copy with the border zeroed.
func (g convGeom) same() bool { return g.stride == 1 && 2*g.pad == g.k-1 }
func (g convGeom) String() string {
	return fmt.Sprintf("c%d_h%d_w%d_o%d_k%d_p%d_s%d", g.c, g.h, g.w, g.o, g.k, g.pad, g.stride)
}

// convChunks is the fixed number of image chunks of a batch.
const convChunks = 8

// im2col unfolds image x (c×h×w) into col ((c·k·k)×(ho·wo)).
func im2col[F float](g convGeom, x, col []F) {
	hw := g.hw()
	for r := 0; r < g.ckk(); r++ {
		im2colRow(g, x, r, col[r*hw:(r+1)*hw])
	}
}

// im2colRow writes row r of image x's unfolding — channel r/(k·k), kernel
// offset (r/k mod k, r mod k) — into dst (ho·wo values).
func im2colRow[F float](g convGeom, x []F, r int, dst []F) {
	ho, wo := g.outH(), g.outW()
	c, ki, kj := r/(g.k*g.k), r/g.k%g.k, r%g.k
	img := x[c*g.h*g.w : (c+1)*g.h*g.w]
	if g.same() {
		im2colRowSame(g, img, ki-g.pad, kj-g.pad, dst)
		return
	}
	// iw = ow·stride + off: the valid run [lo, hi) of every output row, copied
	// without a branch per value; the rest is zero.
	off := kj - g.pad
	lo, hi := validRun(wo, g.w, g.stride, off)
	for oh := 0; oh < ho; oh++ {
		ih := oh*g.stride - g.pad + ki
		d := dst[oh*wo : (oh+1)*wo]
		if ih < 0 || ih >= g.h || hi <= lo {
			clear(d)
			continue
		}
		src := img[ih*g.w : (ih+1)*g.w]
		clear(d[:lo])
		clear(d[hi:])
		if g.stride == 1 {
			copy(d[lo:hi], src[lo+off:hi+off])
			continue
		}
		for ow, iw := lo, lo*g.stride+off; ow < hi; ow, iw = ow+1, iw+g.stride {
			d[ow] = src[iw]
		}
	}
}

// validRun returns the output columns [lo, hi) whose input column
// ow·stride + off lies in [0, w) (hi ≤ lo when none does).
func validRun(wo, w, stride, off int) (lo, hi int) {
	lo = 0
	if off < 0 {
		lo = (-off + stride - 1) / stride
	}
	hi = wo
	if last := (w - 1 - off); last < 0 {
		hi = 0
	} else {
		hi = min(wo, last/stride+1)
	}
	return min(lo, wo), hi
}

// col2imAdd folds col ((c·k·k)×(ho·wo)) back onto image dx (c×h×w),
// adding overlapping patches (the adjoint of im2col).
func col2imAdd[F float](g convGeom, col, dx []F) {
	hw := g.hw()
	for r := 0; r < g.ckk(); r++ {
		col2imRowAdd(g, r, col[r*hw:(r+1)*hw], dx)
	}
}

// col2imRowAdd adds row r of an unfolding (src, ho·wo values) onto image
// dx: the adjoint of im2colRow. src is scratch: its entries that fall
// outside the image may be zeroed.
func col2imRowAdd[F float](g convGeom, r int, src, dx []F) {
	ho, wo := g.outH(), g.outW()
	c, ki, kj := r/(g.k*g.k), r/g.k%g.k, r%g.k
	img := dx[c*g.h*g.w : (c+1)*g.h*g.w]
	if g.same() {
		col2imRowAddSame(g, src, ki-g.pad, kj-g.pad, img)
		return
	}
	off := kj - g.pad
	lo, hi := validRun(wo, g.w, g.stride, off)
	for oh := 0; oh < ho; oh++ {
		ih := oh*g.stride - g.pad + ki
		if ih < 0 || ih >= g.h {
			continue
		}
		s := src[oh*wo : (oh+1)*wo]
		d := img[ih*g.w : (ih+1)*g.w]
		for ow, iw := lo, lo*g.stride+off; ow < hi; ow, iw = ow+1, iw+g.stride {
			d[iw] += s[ow]
		}
	}
}

// gemm computes c = alpha·op(a)·op(b) + beta·c (row-major) with the gonum
// BLAS in use (blas32/blas64.Use, see the openblas build tag).
func gemm[F float](tA, tB bool, m, n, k int, alpha F, a []F, lda int, b []F, ldb int, beta F, c []F, ldc int) {
	ta, tb := blas.NoTrans, blas.NoTrans
	if tA {
		ta = blas.Trans
	}
	if tB {
		tb = blas.Trans
	}
	switch a := any(a).(type) {
	case []float32:
		blas32.Implementation().Sgemm(ta, tb, m, n, k, float32(alpha), a, lda, any(b).([]float32), ldb, float32(beta), any(c).([]float32), ldc)
	case []float64:
		blas64.Implementation().Dgemm(ta, tb, m, n, k, float64(alpha), a, lda, any(b).([]float64), ldb, float64(beta), any(c).([]float64), ldc)
	}
}

// scratch is per-goroutine and per-chunk working memory of a conv op,
// kept between runs.
type scratch[F float] struct {
	cols   [][]F      // per worker: one image's im2col buffer, or a stacked group's packed B and product
	partW  [][]F      // per chunk: partial ∂/∂W
	partB  [][]F      // per chunk: partial ∂/∂b
	packW  []F        // the weights packed once per run (packed float32 path)
	unfold unfoldPlan // a small map's unfolding as runs (stacked path)
	wino   []F        // the Winograd path's transformed weights U_ξ
	dense  []F        // the dense path's M or ∂L/∂M (float32 only)
	nchunk int
}

func (s *scratch[F]) ensure(workers, chunks, colLen, wLen, bLen int) {
	grow := func(bufs [][]F, n, size int) [][]F {
		for len(bufs) < n {
			bufs = append(bufs, nil)
		}
		for i := range bufs[:n] {
			if cap(bufs[i]) < size {
				bufs[i] = make([]F, size)
			}
			bufs[i] = bufs[i][:size]
		}
		return bufs
	}
	s.cols = grow(s.cols, workers, colLen)
	s.partW = grow(s.partW, chunks, wLen)
	s.partB = grow(s.partB, chunks, bLen)
	s.nchunk = chunks
}

// convScratch holds the scratch of both element types.
type convScratch struct {
	f32 scratch[float32]
	f64 scratch[float64]
}

// convWorkspaces is the free list of shared convolution workspaces (a
// memory lever): an op takes one for the length of its run and gives
// it back, so the convolutions of a tape, which run one at a time, share a
// single workspace sized for the largest layer instead of each holding its
// own; machines running at the same time in other goroutines get others.
var convWorkspaces struct {
	mu   sync.Mutex
	free []*convScratch
}

func acquireConvScratch() *convScratch {
	convWorkspaces.mu.Lock()
	defer convWorkspaces.mu.Unlock()
	if n := len(convWorkspaces.free); n > 0 {
		sc := convWorkspaces.free[n-1]
		convWorkspaces.free = convWorkspaces.free[:n-1]
		return sc
	}
	return new(convScratch)
}

func releaseConvScratch(sc *convScratch) {
	convWorkspaces.mu.Lock()
	defer convWorkspaces.mu.Unlock()
	convWorkspaces.free = append(convWorkspaces.free, sc)
}

// convOp is the forward op of Conv2dIm2col.
type convOp struct {
	geom convGeom
	bias bool
}

func (o *convOp) Arity() int {
	if o.bias {
		return 3
	}
	return 2
}
func (o *convOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	t4 := gorgonia.TensorType{Dims: 4, Of: a}
	if o.bias {
		return hm.NewFnType(t4, t4, t4, t4)
	}
	return hm.NewFnType(t4, t4, t4)
}
func (o *convOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	s, ok := in[0].(tensor.Shape)
	if !ok || s.Dims() != 4 {
		return nil, fmt.Errorf("Conv2dIm2col: input shape %v", in[0])
	}
	return tensor.Shape{s[0], o.geom.o, o.geom.outH(), o.geom.outW()}, nil
}
func (o *convOp) ReturnsPtr() bool     { return false }
func (o *convOp) CallsExtern() bool    { return false }
func (o *convOp) OverwritesInput() int { return -1 }
func (o *convOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "llpfc.Conv2dIm2col(%v,bias=%t)", o.geom, o.bias)
}
func (o *convOp) Hashcode() uint32 { return OpHash(o) }
func (o *convOp) String() string   { return fmt.Sprintf("Conv2dIm2col(%v)", o.geom) }

// Kind names the op for the compute back ends (device.OpKind).
func (o *convOp) Kind() string { return "llpfc.Conv2dIm2col" }
func (o *convOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	for i := range d {
		d[i] = true
	}
	return d
}

func (o *convOp) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	x, w := inputs[0], inputs[1]
	dx, err := gorgonia.ApplyOp(&convGradOp{geom: o.geom, wrt: 0, xShape: x.Shape().Clone()}, w, grad)
	if err != nil {
		return nil, err
	}
	dw, err := gorgonia.ApplyOp(&convGradOp{geom: o.geom, wrt: 1, xShape: x.Shape().Clone()}, x, grad)
	if err != nil {
		return nil, err
	}
	if !o.bias {
		return gorgonia.Nodes{dx, dw}, nil
	}
	db, err := gorgonia.ApplyOp(&convGradOp{geom: o.geom, wrt: 2, xShape: x.Shape().Clone()}, grad)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{dx, dw, db}, nil
}

func (o *convOp) Do(vs ...gorgonia.Value) (gorgonia.Value, error) {
	return o.UsePreallocDo(nil, vs...)
}

func (o *convOp) UsePreallocDo(prealloc gorgonia.Value, vs ...gorgonia.Value) (gorgonia.Value, error) {
	if len(vs) != o.Arity() {
		return nil, fmt.Errorf("Conv2dIm2col: %d inputs, want %d", len(vs), o.Arity())
	}
	xs := vs[0].Shape()
	out := outTensor(prealloc, vs[0].Dtype(), tensor.Shape{xs[0], o.geom.o, o.geom.outH(), o.geom.outW()}, vs...)
	sc := acquireConvScratch()
	defer releaseConvScratch(sc)
	var err error
	switch x := vs[0].Data().(type) {
	case []float32:
		var b []float32
		if o.bias {
			b = vs[2].Data().([]float32)
		}
		err = convForward(o.geom, xs[0], x, vs[1].Data().([]float32), b, out.Data().([]float32), &sc.f32)
	case []float64:
		var b []float64
		if o.bias {
			b = vs[2].Data().([]float64)
		}
		err = convForward(o.geom, xs[0], x, vs[1].Data().([]float64), b, out.Data().([]float64), &sc.f64)
	default:
		err = fmt.Errorf("Conv2dIm2col: element type %T not supported", vs[0].Data())
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

func convForward[F float](g convGeom, n int, x, w, b, y []F, sc *scratch[F]) error {
	ckk, hw, chw, ohw := g.ckk(), g.hw(), g.c*g.h*g.w, g.o*g.hw()
	if len(x) != n*chw || len(w) != g.o*ckk || len(y) != n*ohw || (b != nil && len(b) != g.o) {
		return errors.New("Conv2dIm2col: input sizes do not match the geometry")
	}
	if x32, ok := any(x).([]float32); ok && usePackedConv {
		convForwardPacked(g, n, x32, any(w).([]float32), any(b).([]float32), any(y).([]float32), any(sc).(*scratch[float32]))
		return nil
	}
	nc := min(n, convChunks)
	sc.ensure(min(runtime.GOMAXPROCS(0), nc), nc, ckk*hw, 0, 0)
	par.Chunks(nc, func(j, p int) {
		col := sc.cols[p]
		lo, hi := par.ChunkBounds(j, nc, n)
		for i := lo; i < hi; i++ {
			yi := y[i*ohw : (i+1)*ohw]
			beta := fillBias(yi, b, hw)
			im2col(g, x[i*chw:(i+1)*chw], col)
			gemm(false, false, g.o, hw, ckk, 1, w, ckk, col, hw, beta, yi, hw)
		}
	})
	return nil
}

// fillBias writes each channel's bias over its hw outputs in y (one image)
// and returns the β with which the product is then added: 1, or 0 without a
// bias (y is then overwritten).
func fillBias[F float](y, b []F, hw int) F {
	if b == nil {
		return 0
	}
	for o, v := range b {
		row := y[o*hw : (o+1)*hw]
		if hw < 128 {
			for k := range row {
				row[k] = v
			}
			continue
		}
		// A plane of 128 values or more by doubling copies (memmove's
		// vectors), not a value at a time: 2–3× faster on the cnn's
		// 28×28 and 14×14 planes, where the fill was 3 % of its step.
		row[0] = v
		for f := 1; f < hw; f *= 2 {
			copy(row[f:], row[:f])
		}
	}
	return 1
}

// convGradOp computes one gradient of Conv2dIm2col: wrt 0 (∂/∂x from W and
// dy), 1 (∂/∂W from x and dy) or 2 (∂/∂b from dy).
type convGradOp struct {
	geom   convGeom
	wrt    int
	xShape tensor.Shape
}

func (o *convGradOp) Arity() int {
	if o.wrt == 2 {
		return 1
	}
	return 2
}
func (o *convGradOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	t4 := gorgonia.TensorType{Dims: 4, Of: a}
	if o.wrt == 2 {
		return hm.NewFnType(t4, t4)
	}
	return hm.NewFnType(t4, t4, t4)
}
func (o *convGradOp) outShape() tensor.Shape {
	switch o.wrt {
	case 0:
		return o.xShape.Clone()
	case 1:
		return tensor.Shape{o.geom.o, o.geom.c, o.geom.k, o.geom.k}
	default:
		return tensor.Shape{1, o.geom.o, 1, 1}
	}
}
func (o *convGradOp) InferShape(...gorgonia.DimSizer) (tensor.Shape, error) { return o.outShape(), nil }
func (o *convGradOp) ReturnsPtr() bool                                      { return false }
func (o *convGradOp) CallsExtern() bool                                     { return false }
func (o *convGradOp) OverwritesInput() int                                  { return -1 }
func (o *convGradOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "llpfc.Conv2dIm2colGrad(%v,wrt=%d,x=%v)", o.geom, o.wrt, o.xShape)
}
func (o *convGradOp) Hashcode() uint32 { return OpHash(o) }
func (o *convGradOp) String() string {
	return fmt.Sprintf("Conv2dIm2colGrad%d(%v)", o.wrt, o.geom)
}

// Kind names the op and the input it differentiates (device.OpKind).
func (o *convGradOp) Kind() string { return "llpfc.Conv2dIm2colGrad(" + convWRT[o.wrt] + ")" }

// convWRT names the inputs of Conv2dIm2col.
var convWRT = map[int]string{0: "x", 1: "W", 2: "b"}

func (o *convGradOp) Do(vs ...gorgonia.Value) (gorgonia.Value, error) {
	return o.UsePreallocDo(nil, vs...)
}

func (o *convGradOp) UsePreallocDo(prealloc gorgonia.Value, vs ...gorgonia.Value) (gorgonia.Value, error) {
	if len(vs) != o.Arity() {
		return nil, fmt.Errorf("%v: %d inputs, want %d", o, len(vs), o.Arity())
	}
	dy := vs[len(vs)-1]
	n := o.xShape[0]
	out := outTensor(prealloc, dy.Dtype(), o.outShape(), vs...)
	sc := acquireConvScratch()
	defer releaseConvScratch(sc)
	var err error
	switch d := dy.Data().(type) {
	case []float32:
		var in []float32
		if o.wrt < 2 {
			in = vs[0].Data().([]float32)
		}
		err = convBackward(o.geom, o.wrt, n, in, d, out.Data().([]float32), &sc.f32)
	case []float64:
		var in []float64
		if o.wrt < 2 {
			in = vs[0].Data().([]float64)
		}
		err = convBackward(o.geom, o.wrt, n, in, d, out.Data().([]float64), &sc.f64)
	default:
		err = fmt.Errorf("%v: element type %T not supported", o, dy.Data())
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// convBackward computes into out: wrt 0: ∂/∂x (in = W); wrt 1: ∂/∂W
// (in = x); wrt 2: ∂/∂b.
func convBackward[F float](g convGeom, wrt, n int, in, dy, out []F, sc *scratch[F]) error {
	ckk, hw, chw, ohw := g.ckk(), g.hw(), g.c*g.h*g.w, g.o*g.hw()
	if len(dy) != n*ohw {
		return fmt.Errorf("Conv2dIm2colGrad: gradient of %d values, want %d", len(dy), n*ohw)
	}
	if dy32, ok := any(dy).([]float32); ok && usePackedConv && wrt < 2 {
		return convBackwardPacked(g, wrt, n, any(in).([]float32), dy32, any(out).([]float32), any(sc).(*scratch[float32]))
	}
	nc := min(n, convChunks)
	workers := min(runtime.GOMAXPROCS(0), nc)
	switch wrt {
	case 0:
		if len(in) != g.o*ckk || len(out) != n*chw {
			return errors.New("Conv2dIm2colGrad: sizes do not match the geometry")
		}
		sc.ensure(workers, nc, ckk*hw, 0, 0)
		par.Chunks(nc, func(j, p int) {
			col := sc.cols[p]
			lo, hi := par.ChunkBounds(j, nc, n)
			for i := lo; i < hi; i++ {
				dx := out[i*chw : (i+1)*chw]
				clear(dx)
				gemm(true, false, ckk, hw, g.o, 1, in, ckk, dy[i*ohw:(i+1)*ohw], hw, 0, col, hw)
				col2imAdd(g, col, dx)
			}
		})
	case 1:
		if len(in) != n*chw || len(out) != g.o*ckk {
			return errors.New("Conv2dIm2colGrad: sizes do not match the geometry")
		}
		sc.ensure(workers, nc, ckk*hw, g.o*ckk, 0)
		par.Chunks(nc, func(j, p int) {
			col, part := sc.cols[p], sc.partW[j]
			clear(part)
			lo, hi := par.ChunkBounds(j, nc, n)
			for i := lo; i < hi; i++ {
				im2col(g, in[i*chw:(i+1)*chw], col)
				gemm(false, true, g.o, ckk, hw, 1, dy[i*ohw:(i+1)*ohw], hw, col, hw, 1, part, ckk)
			}
		})
		sumPartials(out, sc.partW[:nc])
	default:
		if len(out) != g.o {
			return errors.New("Conv2dIm2colGrad: bias size does not match the geometry")
		}
		par.Channels(g.o, func(lo, hi int) { biasGrad(out, dy, n, hw, ohw, lo, hi) })
	}
	return nil
}

// biasGrad writes ∂/∂b of channels lo…hi−1 into out (dy: n images of ohw
// values, hw a channel): for each channel, its
// sum over each image's plane of dy (in the element type, value by value),
// and those sums added image by image. A plane's sum is one chain of
// additions, each waiting on the last (four cycles a value): so four
// channels' chains run side by side, each in its own order, which leaves
// every bit as one channel at a time gives it (TestBiasGradIsChannelByChannel;
// WRN-16-4's biases took 2.5 % of its step one channel at a time).
func biasGrad[F float](out, dy []F, n, hw, ohw, lo, hi int) {
	o := lo
	for ; o+4 <= hi; o += 4 {
		var t0, t1, t2, t3 F
		for i := 0; i < n; i++ {
			p := dy[i*ohw+o*hw : i*ohw+(o+4)*hw]
			p0, p1, p2, p3 := p[:hw], p[hw:2*hw], p[2*hw:3*hw], p[3*hw:4*hw]
			var s0, s1, s2, s3 F
			for j, v := range p0 {
				s0 += v
				s1 += p1[j]
				s2 += p2[j]
				s3 += p3[j]
			}
			t0 += s0
			t1 += s1
			t2 += s2
			t3 += s3
		}
		out[o], out[o+1], out[o+2], out[o+3] = t0, t1, t2, t3
	}
	for ; o < hi; o++ {
		var t F
		for i := 0; i < n; i++ {
			var s F
			for _, v := range dy[i*ohw+o*hw : i*ohw+(o+1)*hw] {
				s += v
			}
			t += s
		}
		out[o] = t
	}
}

// shiftRange returns, for an h×w image shifted by (dy, dx) (output (oh, ow)
// reads input (oh+dy, ow+dx)), the output rows [oh0, oh1) that read inside
// the image, and the flat output range [d0, d1) and input range [s0, s0+d1−d0)
// of one contiguous copy covering them: its entries at the columns that
// fall outside the image are wrong and must be fixed by the caller.
func shiftRange(h, w, dy, dx int) (oh0, oh1, d0, d1, s0 int) {
	oh0, oh1 = max(0, -dy), min(h, h-dy)
	if oh1 <= oh0 {
		return oh0, oh0, 0, 0, 0
	}
	d0, d1, s0 = oh0*w, oh1*w, (oh0+dy)*w+dx
	if s0 < 0 { // dx < 0 on the image's first row: the first entries are border
		d0, s0 = d0-s0, 0
	}
	if over := s0 + d1 - d0 - h*w; over > 0 { // dx > 0 on its last row
		d1 -= over
	}
	return oh0, oh1, d0, d1, s0
}

// borderCols returns the output columns [lo, hi) that read inside a row of
// width w shifted by dx.
func borderCols(w, dx int) (lo, hi int) { return max(0, -dx), min(w, w-dx) }

// im2colRowSame is im2colRow for a "same" convolution: one copy of the
// shifted image, then the rows and columns that read outside it zeroed.
func im2colRowSame[F float](g convGeom, img []F, dy, dx int, dst []F) {
	h, w := g.h, g.w
	oh0, oh1, d0, d1, s0 := shiftRange(h, w, dy, dx)
	clear(dst[:oh0*w])
	clear(dst[oh1*w:])
	copy(dst[d0:d1], img[s0:s0+d1-d0])
	zeroBorder(dst, oh0, oh1, w, dx)
}

// zeroBorder zeroes, in rows [oh0, oh1) of the w-wide rows of dst, the
// columns that a shift by dx reads outside the image (|dx| of them, at most
// the padding: single stores, not a clear call each).
func zeroBorder[F float](dst []F, oh0, oh1, w, dx int) {
	lo, hi := borderCols(w, dx)
	for oh := oh0; oh < oh1; oh++ {
		row := dst[oh*w : (oh+1)*w]
		for i := 0; i < lo; i++ {
			row[i] = 0
		}
		for i := hi; i < w; i++ {
			row[i] = 0
		}
	}
}

// col2imRowAddSame is col2imRowAdd for a "same" convolution: src's entries
// that read outside the image are zeroed, then src is added to the shifted
// image in one contiguous run (a vector Saxpy for float32).
func col2imRowAddSame[F float](g convGeom, src []F, dy, dx int, img []F) {
	h, w := g.h, g.w
	oh0, oh1, d0, d1, s0 := shiftRange(h, w, dy, dx)
	if oh1 <= oh0 {
		return
	}
	zeroBorder(src, oh0, oh1, w, dx)
	from, to := src[d0:d1], img[s0:s0+d1-d0]
	if f, ok := any(from).([]float32); ok {
		gonum.Implementation{}.Saxpy(len(f), 1, f, 1, any(to).([]float32), 1)
		return
	}
	for i, v := range from {
		to[i] += v
	}
}
