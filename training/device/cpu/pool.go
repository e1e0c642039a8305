package cpu

import (
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/llpfc/llpfc/internal/par"
	"github.com/llpfc/llpfc/training/device"
)

// The plan runs gorgonia's max pool (gorgonia.MaxPool2D: ResNet18's 3×3,
// stride-2, padding-1 stem pool) and its gradient on every core, one range
// of the N·C planes a goroutine, where gorgonia runs them on one: 21 ms of
// serial time in a ResNet18 step at batch 128 on 16 threads, the largest
// serial operation left there (bench/NOTES.md, "Many cores as well as
// two"). The loops are gorgonia v0.9.18's (maxPoolOp.f32s and
// maxPoolDiffOp.f32s): each window's maximum starts at −MaxFloat32 and is
// replaced by a strictly larger value, so the position is the window's
// first maximum in row-major order; the gradient adds ∂L/∂y into that
// position, plane by plane in the order of the output positions, so
// overlapping windows sum in gorgonia's order and the bits are its
// (TestMaxPoolIsGorgonias). gorgonia keeps the forward's positions in the
// op, where the plan cannot reach them, so the plan keeps its own
// (poolPositions, keyed by the forward's output, which the gradient reads
// as its second input); a gradient without them (its forward ran in
// another program) finds them again from x by the same comparisons, which
// costs as much as the forward (BenchmarkStemPool). A window with no value
// above −MaxFloat32 (all NaN or −Inf) passes no gradient, where gorgonia
// indexes position −1 and panics.

// poolGeom is a max pool's geometry, read from gorgonia's op.
type poolGeom struct {
	kh, kw, padH, padW, strideH, strideW int
}

// maxPoolGeom reads op's kernel, padding and strides as maxPoolOp.f32s uses
// them (the north and west padding, or with explicit padding the south
// and east).
func maxPoolGeom(op gorgonia.Op) (poolGeom, bool) {
	var g poolGeom
	vals := map[string]*int{"h": &g.kh, "w": &g.kw, "strideH": &g.strideH, "strideW": &g.strideW}
	pads := map[string]int{}
	for _, f := range []string{"padNorth", "padWest", "padSouth", "padEast"} {
		v, err := device.IntField(op, f)
		if err != nil {
			return g, false
		}
		pads[f] = v
	}
	for f, p := range vals {
		v, err := device.IntField(op, f)
		if err != nil {
			return g, false
		}
		*p = v
	}
	explicit, err := device.BoolField(op, "explicitPadding")
	if err != nil {
		return g, false
	}
	g.padH, g.padW = pads["padNorth"], pads["padWest"]
	if explicit {
		g.padH, g.padW = pads["padSouth"], pads["padEast"]
	}
	return g, g.kh > 0 && g.kw > 0 && g.strideH > 0 && g.strideW > 0
}

// window returns output position (ph, pw)'s window in the input plane,
// clipped to it.
func (g poolGeom) window(ph, pw, inH, inW int) (h0, h1, w0, w1 int) {
	h0, w0 = ph*g.strideH-g.padH, pw*g.strideW-g.padW
	h1, w1 = min(h0+g.kh, inH), min(w0+g.kw, inW)
	return max(h0, 0), h1, max(w0, 0), w1
}

// argmax returns the window's first maximum's index in the plane x and
// the maximum (−MaxFloat32 and −1 when no value exceeds it).
func (g poolGeom) argmax(x []float32, ph, pw, inH, inW int) (float32, int) {
	h0, h1, w0, w1 := g.window(ph, pw, inH, inW)
	best, at := float32(-math.MaxFloat32), -1
	for hi := h0; hi < h1; hi++ {
		for wi := w0; wi < w1; wi++ {
			if i := hi*inW + wi; x[i] > best {
				best, at = x[i], i
			}
		}
	}
	return best, at
}

// poolPositions are the window maxima's positions of the max pools a plan
// ran, keyed by the first value of each pool's output.
type poolPositions map[*float32][]int32

// parallelMaxPool computes gorgonia's maxPoolOp (y from x) or maxPoolDiffOp
// (∂L/∂x from x, y and ∂L/∂y) into out when kind is one of them on dense
// float32 N×C×H×W tensors; ok is false otherwise, and gorgonia runs it.
// The forward records its positions in pp (nil: none), the gradient reads
// them there when they are y's.
func (pp poolPositions) parallelMaxPool(kind string, op gorgonia.Op, out *tensor.Dense, args []gorgonia.Value) (gorgonia.Value, bool) {
	diff := kind == "gorgonia.maxPoolDiffOp"
	arity := 1
	if diff {
		arity = 3 // x, y, ∂L/∂y
	}
	if kind != "gorgonia.maxPoolOp" && !diff || len(args) != arity {
		return nil, false
	}
	g, ok := maxPoolGeom(op)
	if !ok {
		return nil, false
	}
	x, ok := args[0].(*tensor.Dense)
	if !ok || x.Shape().Dims() != 4 || !dense32(x, x) || !dense32(out, out) {
		return nil, false
	}
	s := x.Shape()
	pl := poolPlanes{g: g, planes: s[0] * s[1], inH: s[2], inW: s[3], x: x.Float32s()}
	if !diff {
		o := out.Shape()
		if o.Dims() != 4 || o[0]*o[1] != pl.planes || o.TotalSize() == 0 {
			return nil, false
		}
		pl.outH, pl.outW = o[2], o[3]
		y := out.Float32s()
		var at []int32
		if pp != nil {
			at = pp[&y[0]]
			if len(at) != len(y) {
				at = make([]int32, len(y))
				pp[&y[0]] = at
			}
		}
		pl.forward(y, at)
		return out, true
	}
	y, yok := args[1].(*tensor.Dense)
	dy, ok := args[2].(*tensor.Dense)
	if !ok || !yok || dy.Shape().Dims() != 4 || !dense32(dy, dy) || !dense32(y, dy) || !out.Shape().Eq(s) {
		return nil, false
	}
	d := dy.Shape()
	if d[0]*d[1] != pl.planes || d.TotalSize() == 0 {
		return nil, false
	}
	pl.outH, pl.outW = d[2], d[3]
	at := pp[&y.Float32s()[0]]
	if len(at) != d.TotalSize() || !pl.positionsOf(y.Float32s(), at) {
		at = nil
	}
	pl.backward(dy.Float32s(), out.Float32s(), at)
	return out, true
}

// poolPlanes is one max pool's planes: x holds planes planes of inH×inW,
// the output planes of outH×outW.
type poolPlanes struct {
	g                            poolGeom
	planes, inH, inW, outH, outW int
	x                            []float32
}

// forward writes each window's maximum into y and, when at is not nil,
// its position in its plane (−1 for none).
func (pl poolPlanes) forward(y []float32, at []int32) {
	in, on := pl.inH*pl.inW, pl.outH*pl.outW
	par.Channels(pl.planes, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			xp, yp := pl.x[p*in:(p+1)*in], y[p*on:(p+1)*on]
			var ap []int32
			if at != nil {
				ap = at[p*on : (p+1)*on]
			}
			for ph := 0; ph < pl.outH; ph++ {
				h0, h1, _, _ := pl.g.window(ph, 0, pl.inH, pl.inW)
				for pw := 0; pw < pl.outW; pw++ {
					// argmax's loop, written out: the forward is the pool's cost
					_, _, w0, w1 := pl.g.window(0, pw, pl.inH, pl.inW)
					best, bi := float32(-math.MaxFloat32), -1
					for hi := h0; hi < h1; hi++ {
						row := xp[hi*pl.inW : hi*pl.inW+w1]
						for wi := w0; wi < w1; wi++ {
							if v := row[wi]; v > best {
								best, bi = v, hi*pl.inW+wi
							}
						}
					}
					yp[ph*pl.outW+pw] = best
					if ap != nil {
						ap[ph*pl.outW+pw] = int32(bi)
					}
				}
			}
		}
	})
}

// positionsOf reports whether at can be y's positions: each names a value
// of x equal to y's, bit for bit, or is −1 where y is −MaxFloat32. It
// catches positions left by another run whose x is not this one's.
func (pl poolPlanes) positionsOf(y []float32, at []int32) bool {
	in, on := pl.inH*pl.inW, pl.outH*pl.outW
	for o, i := range at {
		if i < 0 {
			if y[o] != -math.MaxFloat32 {
				return false
			}
			continue
		}
		if int(i) >= in || math.Float32bits(pl.x[o/on*in+int(i)]) != math.Float32bits(y[o]) {
			return false
		}
	}
	return true
}

// backward writes ∂L/∂x into dx: each plane cleared, then ∂L/∂y added at
// each window's position in the order of the output positions (at, or
// found again from x when at is nil).
func (pl poolPlanes) backward(dy, dx []float32, at []int32) {
	in, on := pl.inH*pl.inW, pl.outH*pl.outW
	par.Channels(pl.planes, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			xp, dyp, dxp := pl.x[p*in:(p+1)*in], dy[p*on:(p+1)*on], dx[p*in:(p+1)*in]
			clear(dxp)
			for o := range dyp {
				var i int
				if at != nil {
					i = int(at[p*on+o])
				} else {
					_, i = pl.g.argmax(xp, o/pl.outW, o%pl.outW, pl.inH, pl.inW)
				}
				if i >= 0 {
					dxp[i] += dyp[o]
				}
			}
		}
	})
}
