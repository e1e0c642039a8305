package cpu

import (
	"math"
	"sync/atomic"
	"unsafe"

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
// (TestMaxPoolIsGorgonias). The forward reaches the same maxima and
// positions without a branch on the data (forward, poolKey): each value
// becomes an integer key ordered as those comparisons are, and a window's
// maximum is the integers' max, a conditional move, ≈ 3× faster than the
// comparisons' mispredicted branches on the stem pool (NOTES-pool.md,
// TestMaxPoolForwardIsArgmax). gorgonia keeps the forward's positions in
// the op, where the plan cannot reach them, so the plan keeps its own
// (poolPositions, keyed by the forward's output, which the gradient reads
// as its second input); a gradient without them (its forward ran in
// another program) finds them again from x by argmax's comparisons, which
// cost what the forward did before it went without branches
// (BenchmarkStemPool). A window with no value
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
// its position in its plane (−1 for none), as argmax does but without its
// branch: `if v > best` on data is a coin toss for the branch predictor,
// and Go selects floats with a jump, never a CMOV, so argmax's loop cost
// ≈ 18 ns an output on ResNet18's stem pool, most of it mispredictions
// (NOTES-pool.md). Each input value is turned once into poolKey, an int64
// whose order is argmax's — its value's, then the first position's — so a
// window's maximum key is max of its keys (a CMOV each), it names argmax's
// position and value, and max, being associative, lets the windows share
// work: each row's kw-wide maxima first, then kh of them a window. Taps
// in the padding are math.MinInt64, below every key, as they are below
// every value in argmax (outside the window), so the loops need no
// clipping. A window whose maximum key is a NaN's (only a positive NaN
// orders above +Inf) is found again by argmax, where NaN never wins.
func (pl poolPlanes) forward(y []float32, at []int32) {
	in, on := pl.inH*pl.inW, pl.outH*pl.outW
	g := pl.g
	// The window coordinates (row r, column c) are the input's (r−padH,
	// c−padW); rows × cols covers every window.
	rows, cols := (pl.outH-1)*g.strideH+g.kh, (pl.outW-1)*g.strideW+g.kw
	par.Channels(pl.planes, func(lo, hi int) {
		keys := make([]int64, cols)           // one row's keys
		rowMax := make([]int64, rows*pl.outW) // each row's maxima over kw columns
		acc := make([]int64, pl.outW)         // one output row's maxima
		for p := lo; p < hi; p++ {
			var ap []int32
			if at != nil {
				ap = at[p*on : (p+1)*on]
			}
			pl.forwardPlane(pl.x[p*in:(p+1)*in], y[p*on:(p+1)*on], ap, keys, rowMax, acc)
		}
	})
}

// forwardPlane is forward on one plane, xp to yp and ap (nil: no
// positions), in the scratch rows keys, rowMax and acc.
func (pl poolPlanes) forwardPlane(xp, yp []float32, ap []int32, keys, rowMax, acc []int64) {
	g, outW := pl.g, pl.outW
	for r := range len(rowMax) / outW {
		rm := rowMax[r*outW : (r+1)*outW]
		hi := r - g.padH
		if hi < 0 || hi >= pl.inH {
			for i := range rm {
				rm[i] = math.MinInt64
			}
			continue
		}
		poolKeys(keys, xp[hi*pl.inW:(hi+1)*pl.inW], g.padW, hi*pl.inW)
		poolRowMax(rm, keys, g.kw, g.strideW)
	}
	for ph := range pl.outH {
		r0 := ph * g.strideH
		poolColMax(acc, rowMax[r0*outW:(r0+g.kh)*outW])
		yr := yp[ph*outW : (ph+1)*outW]
		for pw, m := range acc {
			best, bi := float32(-math.MaxFloat32), poolPosition(m)
			switch {
			case int32(m>>32) > poolInfKey: // a NaN's key: argmax's loop decides
				var i int
				best, i = g.argmax(xp, ph, pw, pl.inH, pl.inW)
				bi = int32(i)
			case bi >= 0:
				best = xp[bi]
			}
			yr[pw] = best
			if ap != nil {
				ap[ph*outW+pw] = bi
			}
		}
	}
}

// poolRowMax writes into rm the maxima of keys over windows kw wide, s
// apart (straight-line for the usual widths: the compiler makes a CMOV
// of max there, where in a longer loop it may branch).
func poolRowMax(rm, keys []int64, kw, s int) {
	switch {
	case kw == 3 && s == 2 && len(rm) > 0: // ResNet18's stem pool
		keys = keys[:2*len(rm)+1]
		for pw := range rm {
			rm[pw] = max(keys[2*pw], keys[2*pw+1], keys[2*pw+2])
		}
	case kw == 3:
		for pw := range rm {
			w := keys[pw*s : pw*s+3]
			rm[pw] = max(w[0], w[1], w[2])
		}
	case kw == 2:
		for pw := range rm {
			w := keys[pw*s : pw*s+2]
			rm[pw] = max(w[0], w[1])
		}
	default:
		for pw := range rm {
			w := keys[pw*s : pw*s+kw]
			m := w[0]
			for _, k := range w[1:] {
				m = max(m, k)
			}
			rm[pw] = m
		}
	}
}

// poolColMax writes into acc poolNone's maximum with the rows of rows
// (len(acc) each), column by column.
func poolColMax(acc, rows []int64) {
	n := len(acc)
	if len(rows) == 3*n {
		a, b, c := rows[:n], rows[n:2*n], rows[2*n:3*n]
		for i := range acc {
			acc[i] = max(poolNone, a[i], b[i], c[i])
		}
		return
	}
	for i := range acc {
		acc[i] = poolNone
	}
	for len(rows) >= n && n > 0 {
		r := rows[:n]
		for i := range acc {
			acc[i] = max(acc[i], r[i])
		}
		rows = rows[n:]
	}
}

// poolInfKey is +Inf's key in poolKey's high half; only a positive NaN's
// is above it.
const poolInfKey = 0x7f800000

// poolNone is the key a window's maximum starts from: −MaxFloat32's,
// after every position (argmax's best = −MaxFloat32, at = −1), so a tap
// must be strictly greater than −MaxFloat32 to win.
const poolNone int64 = -0x7f7fffff<<32 | 0xffffffff

// poolKey orders a value of bits b, at a plane position whose inverse low
// is, as argmax compares them: the high half is b as a signed magnitude
// turned two's complement (monotonic in the value — IEEE 754's total
// order — with −0 and +0 made equal, since neither is > the other; the
// usual b ^ 0x7fffffff for negatives would put −0 below +0 and let a +0
// after a −0 win), the low half low = 0xfffffffe − the position, so of two
// equal values the first in row-major order is the larger key. A negative
// NaN's key is below −Inf's, a positive NaN's above +Inf's (poolInfKey).
func poolKey(b, low uint32) int64 {
	v := int64(int32(b))
	s := v >> 63 // −1 for a negative sign, else 0
	return ((v^(s&0x7fffffff))-s)<<32 | int64(low)
}

// poolPosition is the position a window's maximum key names: −1 for
// poolNone.
func poolPosition(m int64) int32 {
	return int32(0xfffffffe - uint32(m))
}

// poolKeys writes into keys the keys of one input row xr (its first value
// at plane position base) placed at column pad; the columns outside the
// row, padding, get math.MinInt64.
func poolKeys(keys []int64, xr []float32, pad, base int) {
	lo := min(pad, len(keys))
	n := min(len(xr), len(keys)-lo)
	for i := range keys[:lo] {
		keys[i] = math.MinInt64
	}
	k := keys[lo : lo+n]
	low := 0xfffffffe - uint32(base)
	// The values' bits read as such: math.Float32bits of a loaded float
	// costs a move between register files a value.
	for i, b := range unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(xr))), n) {
		k[i] = poolKey(b, low-uint32(i))
	}
	for i := range keys[lo+n:] {
		keys[lo+n+i] = math.MinInt64
	}
}

// positionsOf reports whether at can be y's positions: each names a value
// of x equal to y's, bit for bit, or is −1 where y is −MaxFloat32. It
// catches positions left by another run whose x is not this one's.
func (pl poolPlanes) positionsOf(y []float32, at []int32) bool {
	in, on := pl.inH*pl.inW, pl.outH*pl.outW
	// On every core, a range of planes each: serial, this was ResNet18's
	// largest serial section left at 16 threads (bench/NOTES.md, "Lever 15:
	// two serial sections for the many-core host").
	var stale atomic.Bool
	par.Channels(pl.planes, func(lo, hi int) {
		for p := lo; p < hi && !stale.Load(); p++ {
			xp := pl.x[p*in : (p+1)*in]
			for o := p * on; o < (p+1)*on; o++ {
				i := at[o]
				if i < 0 {
					if y[o] != -math.MaxFloat32 {
						stale.Store(true)
						return
					}
					continue
				}
				if int(i) >= in || math.Float32bits(xp[i]) != math.Float32bits(y[o]) {
					stale.Store(true)
					return
				}
			}
		}
	})
	return !stale.Load()
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
