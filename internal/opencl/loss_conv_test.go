package opencl_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/opencl"
)

// fcInputs draws logits, rows of T̂ (non-negative, each summing to at most
// 1) and weights with some zeros; a zero-weight row holds a NaN logit
// (padding must be skipped) and, for the clamp, some rows put all their
// T̂ mass where the softmax has almost none (q < 1e-8).
func fcInputs(t *testing.T, n, c int) (z, r, w []float32) {
	rng := newRNG(t)
	z = randn(rng, n*c, -4, 4)
	r = randn(rng, n*c, 0, 1)
	w = randn(rng, n, 0.1, 2)
	for i := 0; i < n; i++ {
		s := float32(0)
		for j := 0; j < c; j++ {
			s += r[i*c+j]
		}
		for j := 0; j < c; j++ {
			r[i*c+j] /= s * 1.1
		}
		switch {
		case i%7 == 3:
			w[i] = 0
			z[i*c] = float32(math.NaN())
		case i%5 == 2 && c > 1:
			for j := 0; j < c; j++ {
				r[i*c+j] = 0
				z[i*c+j] = 10
			}
			r[i*c] = 1
			z[i*c] = -30 // p_0 ≈ e^-40: q below the authors' clamp
		}
	}
	return z, r, w
}

// fcRef is the FC loss and its gradient, written from the formula in
// float64: returns loss, its scale Σ|w·log|, dz and its scale.
func fcRef(z, r, w []float32, n, c int, gs float64, clamp, dropWeight bool) (loss, lscale float64, dz, dscale []float64) {
	dz, dscale = make([]float64, n*c), make([]float64, n*c)
	for i := 0; i < n; i++ {
		wi := float64(w[i])
		if wi == 0 {
			continue
		}
		if dropWeight {
			wi = 1
		}
		m := math.Inf(-1)
		for j := 0; j < c; j++ {
			m = math.Max(m, float64(z[i*c+j]))
		}
		p := make([]float64, c)
		s := 0.0
		for j := 0; j < c; j++ {
			p[j] = math.Exp(float64(z[i*c+j]) - m)
			s += p[j]
		}
		q := 0.0
		for j := 0; j < c; j++ {
			p[j] /= s
			q += float64(r[i*c+j]) * p[j]
		}
		var term, k float64
		if clamp {
			term = wi * math.Log(math.Max(q, 1e-8))
			k = -gs * wi / q
			if q < 1e-8 {
				k = 0
			}
		} else {
			term = wi * math.Log(q+1e-12)
			k = -gs * wi / (q + 1e-12)
		}
		loss -= term
		lscale += math.Abs(term)
		for j := 0; j < c; j++ {
			dz[i*c+j] = k * p[j] * (float64(r[i*c+j]) - q)
			dscale[i*c+j] = math.Abs(k) * p[j] * (float64(r[i*c+j]) + q)
		}
	}
	return loss, lscale, dz, dscale
}

func TestFCLoss(t *testing.T) {
	l := testLib(t)
	for _, n := range []int{1, 3, 17, 65, 300} {
		for _, c := range []int{1, 2, 3, 10} {
			for _, clamp := range []bool{false, true} {
				name := fmt.Sprintf("n=%d c=%d clamp=%t", n, c, clamp)
				z, r, w := fcInputs(t, n, c)
				zb, rb, wb := upload(t, l, z), upload(t, l, r), upload(t, l, w)
				const gs = 2.5
				gb := upload(t, l, []float32{gs})
				out, dzb := alloc(t, l, 1), alloc(t, l, n*c)
				must(t, l.FCLoss(zb, rb, wb, out, n, c, clamp))
				must(t, l.FCLossGrad(zb, rb, wb, gb, dzb, n, c, clamp))
				loss, lscale, dz, dscale := fcRef(z, r, w, n, c, gs, clamp, false)
				gotLoss, gotDz := download(t, out, 1), download(t, dzb, n*c)
				checkClose(t, "FC loss "+name, gotLoss, []float64{loss}, []float64{lscale})
				checkClose(t, "FC loss gradient "+name, gotDz, dz, dscale)
				if n >= 17 && c >= 2 {
					wl, _, wdz, _ := fcRef(z, r, w, n, c, gs, clamp, true)
					detects(t, "the loss without its weights", gotLoss, []float64{wl}, []float64{lscale})
					detects(t, "the gradient without its weights", gotDz, wdz, dscale)
					_, _, ndz, _ := fcRef(z, r, w, n, c, 1, clamp, false)
					detects(t, "the gradient without the upstream factor", gotDz, ndz, dscale)
					_, _, odz, _ := fcRef(z, r, w, n, c, gs, !clamp, false)
					detects(t, "the other form (floor vs clamp)", gotDz, odz, dscale)
				}
			}
		}
	}
}

// convRef is the direct convolution and its adjoints, from the
// definition, in float64: y, dx (from dy), dw, db, and the scale of each.
type convOut struct{ y, ys, dx, dxs, dw, dws, db, dbs []float64 }

func convRef(g opencl.ConvGeom, x, w, b, dy []float32, padShift int, flip bool) convOut {
	ho, wo := g.OutH(), g.OutW()
	pad := g.Pad + padShift
	var r convOut
	r.y, r.ys = make([]float64, g.N*g.O*ho*wo), make([]float64, g.N*g.O*ho*wo)
	r.dx, r.dxs = make([]float64, g.N*g.C*g.H*g.W), make([]float64, g.N*g.C*g.H*g.W)
	r.dw, r.dws = make([]float64, g.O*g.C*g.K*g.K), make([]float64, g.O*g.C*g.K*g.K)
	r.db, r.dbs = make([]float64, g.O), make([]float64, g.O)
	for n := 0; n < g.N; n++ {
		for o := 0; o < g.O; o++ {
			for oh := 0; oh < ho; oh++ {
				for ow := 0; ow < wo; ow++ {
					yi := ((n*g.O+o)*ho+oh)*wo + ow
					if b != nil {
						r.y[yi], r.ys[yi] = float64(b[o]), math.Abs(float64(b[o]))
					}
					d := float64(dy[yi])
					r.db[o] += d
					r.dbs[o] += math.Abs(d)
					for c := 0; c < g.C; c++ {
						for ki := 0; ki < g.K; ki++ {
							for kj := 0; kj < g.K; kj++ {
								ih, iw := oh*g.Stride-pad+ki, ow*g.Stride-pad+kj
								if ih < 0 || ih >= g.H || iw < 0 || iw >= g.W {
									continue
								}
								fi, fj := ki, kj
								if flip {
									fi, fj = g.K-1-ki, g.K-1-kj
								}
								xi := ((n*g.C+c)*g.H+ih)*g.W + iw
								wi := ((o*g.C+c)*g.K+fi)*g.K + fj
								xv, wv := float64(x[xi]), float64(w[wi])
								r.y[yi] += xv * wv
								r.ys[yi] += math.Abs(xv * wv)
								r.dx[xi] += wv * d
								r.dxs[xi] += math.Abs(wv * d)
								r.dw[wi] += xv * d
								r.dws[wi] += math.Abs(xv * d)
							}
						}
					}
				}
			}
		}
	}
	return r
}

var convGeoms = []opencl.ConvGeom{
	{N: 1, C: 1, H: 1, W: 1, O: 1, K: 1, Pad: 0, Stride: 1},
	{N: 3, C: 3, H: 7, W: 5, O: 4, K: 3, Pad: 1, Stride: 1},   // "same"
	{N: 2, C: 3, H: 9, W: 8, O: 5, K: 3, Pad: 1, Stride: 2},   // strided
	{N: 2, C: 2, H: 17, W: 13, O: 3, K: 5, Pad: 2, Stride: 1}, // 5×5
	{N: 3, C: 4, H: 8, W: 8, O: 6, K: 1, Pad: 0, Stride: 2},   // WRN's 1×1 shortcut
	{N: 2, C: 3, H: 6, W: 7, O: 2, K: 3, Pad: 0, Stride: 1},   // valid
	{N: 5, C: 2, H: 3, W: 3, O: 17, K: 3, Pad: 2, Stride: 3},  // padding beyond the kernel's reach
}

func TestConv2d(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	defer func(old int) { l.WSMax = old }(l.WSMax)
	for _, wsMax := range []int{1 << 24, 200} { // 200: one image per chunk
		l.WSMax = wsMax
		for _, g := range convGeoms {
			for _, bias := range []bool{true, false} {
				name := fmt.Sprintf("%+v bias=%t chunks=%d", g, bias, wsMax)
				ho, wo := g.OutH(), g.OutW()
				x := randn(rng, g.N*g.C*g.H*g.W, -1, 1)
				w := randn(rng, g.O*g.C*g.K*g.K, -1, 1)
				dy := randn(rng, g.N*g.O*ho*wo, -1, 1)
				var b []float32
				var bb *opencl.Buffer
				if bias {
					b = randn(rng, g.O, -1, 1)
					bb = upload(t, l, b)
				}
				xb, wb, dyb := upload(t, l, x), upload(t, l, w), upload(t, l, dy)
				yb, dxb, dwb, dbb := alloc(t, l, len(dy)), alloc(t, l, len(x)), alloc(t, l, len(w)), alloc(t, l, g.O)
				must(t, l.Conv2d(xb, wb, bb, yb, g))
				must(t, l.Conv2dGradInput(wb, dyb, dxb, g))
				must(t, l.Conv2dGradFilter(xb, dyb, dwb, g))
				must(t, l.Conv2dGradBias(dyb, dbb, g))
				ref := convRef(g, x, w, b, dy, 0, false)
				y, dx, dw, db := download(t, yb, len(dy)), download(t, dxb, len(x)), download(t, dwb, len(w)), download(t, dbb, g.O)
				checkClose(t, "conv forward "+name, y, ref.y, ref.ys)
				checkClose(t, "conv ∂x "+name, dx, ref.dx, ref.dxs)
				checkClose(t, "conv ∂w "+name, dw, ref.dw, ref.dws)
				checkClose(t, "conv ∂b "+name, db, ref.db, ref.dbs)
				if g.Pad > 0 && g.H > 3 {
					off := convRef(g, x, w, b, dy, 1, false)
					detects(t, "padding off by one (forward)", y, off.y, ref.ys)
					detects(t, "padding off by one (∂x)", dx, off.dx, ref.dxs)
					detects(t, "padding off by one (∂w)", dw, off.dw, ref.dws)
				}
				if g.K > 1 {
					fl := convRef(g, x, w, b, dy, 0, true)
					detects(t, "a flipped kernel (convolution, not correlation)", y, fl.y, ref.ys)
					detects(t, "a flipped kernel (∂w)", dw, fl.dw, ref.dws)
				}
			}
		}
	}
}

// im2colRef is gorgonia's im2col loop nest, written out in the test;
// shift moves the rows read by that many (a padding off by one, for the
// negative checks).
func im2colRef(g opencl.Im2colGeom, x []float32, shift int) []float32 {
	ho, wo := g.OutH(), g.OutW()
	var col []float32
	for n := 0; n < g.N; n++ {
		for oh := 0; oh < ho; oh++ {
			for ow := 0; ow < wo; ow++ {
				for c := 0; c < g.C; c++ {
					for kr := 0; kr < g.KH; kr++ {
						for kc := 0; kc < g.KW; kc++ {
							ih, iw := -g.PadH-shift+kr*g.DilationH+oh*g.StrideH, -g.PadW+kc*g.DilationW+ow*g.StrideW
							v := float32(0)
							if ih >= 0 && ih < g.H && iw >= 0 && iw < g.W {
								v = x[((n*g.C+c)*g.H+ih)*g.W+iw]
							}
							col = append(col, v)
						}
					}
				}
			}
		}
	}
	return col
}

// col2imRef adds each column entry back onto the image value it came from
// (shift as in im2colRef).
func col2imRef(g opencl.Im2colGeom, col []float32, shift int) ([]float64, []float64) {
	ho, wo := g.OutH(), g.OutW()
	x, s := make([]float64, g.N*g.C*g.H*g.W), make([]float64, g.N*g.C*g.H*g.W)
	i := 0
	for n := 0; n < g.N; n++ {
		for oh := 0; oh < ho; oh++ {
			for ow := 0; ow < wo; ow++ {
				for c := 0; c < g.C; c++ {
					for kr := 0; kr < g.KH; kr++ {
						for kc := 0; kc < g.KW; kc++ {
							ih, iw := -g.PadH-shift+kr*g.DilationH+oh*g.StrideH, -g.PadW+kc*g.DilationW+ow*g.StrideW
							if ih >= 0 && ih < g.H && iw >= 0 && iw < g.W {
								k := ((n*g.C+c)*g.H+ih)*g.W + iw
								x[k] += float64(col[i])
								s[k] += math.Abs(float64(col[i]))
							}
							i++
						}
					}
				}
			}
		}
	}
	return x, s
}

func TestGorgoniaIm2colCol2im(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	for _, g := range []opencl.Im2colGeom{
		{N: 1, C: 1, H: 1, W: 1, KH: 1, KW: 1, StrideH: 1, StrideW: 1, DilationH: 1, DilationW: 1},
		{N: 2, C: 3, H: 7, W: 5, KH: 3, KW: 3, PadH: 1, PadW: 1, StrideH: 1, StrideW: 1, DilationH: 1, DilationW: 1},
		{N: 3, C: 2, H: 9, W: 8, KH: 4, KW: 4, PadH: 1, PadW: 1, StrideH: 2, StrideW: 2, DilationH: 1, DilationW: 1},
		{N: 1, C: 2, H: 11, W: 10, KH: 3, KW: 2, PadH: 2, PadW: 0, StrideH: 1, StrideW: 3, DilationH: 2, DilationW: 3},
		{N: 2, C: 5, H: 4, W: 4, KH: 5, KW: 5, PadH: 2, PadW: 2, StrideH: 1, StrideW: 1, DilationH: 1, DilationW: 1},
	} {
		name := fmt.Sprintf("%+v", g)
		x := randn(rng, g.N*g.C*g.H*g.W, -1, 1)
		ncol := g.N * g.OutH() * g.OutW() * g.C * g.KH * g.KW
		colb := alloc(t, l, ncol)
		must(t, l.Im2col(upload(t, l, x), colb, g))
		col := download(t, colb, ncol)
		checkExact(t, "im2col "+name, col, im2colRef(g, x, 0))
		if g.H > 1 && exactMismatch(col, im2colRef(g, x, 1)) == "" {
			t.Errorf("im2col %s: the check does not see padding off by one", name)
		}
		c := randn(rng, ncol, -1, 1)
		xb := alloc(t, l, len(x))
		must(t, l.Col2im(upload(t, l, c), xb, g))
		want, scale := col2imRef(g, c, 0)
		got := download(t, xb, len(x))
		checkClose(t, "col2im "+name, got, want, scale)
		if g.H > 1 {
			wrong, _ := col2imRef(g, c, 1)
			detects(t, "col2im with padding off by one", got, wrong, scale)
		}
	}
}
