package nn

import (
	"github.com/llpfc/llpfc/internal/par"
	"github.com/llpfc/llpfc/internal/sgemm"
)

// A convolution is a linear map from an image's C·H·W input values to its
// O·Ho·Wo outputs: y_i = M·x_i with
//
//	M[(o, p), (c, q)] = W[o, c, kh, kw]  where kh = qh − ph·s + pad, kw = qw − pw·s + pad
//
// when that tap lies in the k×k window, 0 otherwise (p = (ph, pw) an output
// position, q = (qh, qw) an input position, s the stride). On the smallest
// maps of the paper's networks — ResNet18's 2×2 and 1×1 stages, VGG16's
// 2×2 block at 32×32 — nearly every output sees every input (a 2×2 map
// under a 3×3 window with padding 1: all of them), so M is dense and the
// three passes of the layer over n images are one product each, with the
// batch as the rows:
//
//	Y = X·Mᵀ  (n × O·Ho·Wo),  ∂L/∂X = ∂L/∂Y·M,  ∂L/∂M = ∂L/∂Yᵀ·X,
//
// and ∂L/∂W[o, c, kh, kw] the sum of ∂L/∂M over the (p, q) pairs that tap
// joins (the chain rule through M's construction). X and ∂L/∂Y are the
// tensors as they lie in memory (n rows of C·H·W and O·Ho·Wo values), so
// nothing is unfolded or folded back: on those maps the stacked products'
// unfolding, col2im and the weights' gather, or Winograd's transforms of a
// single tile, cost more than their products (bench/NOTES.md, "Lever 13:
// the smallest maps as one dense product"). The work is O·C·n·(H·W)·(Ho·Wo) multiply-adds,
// no more than im2col's O·C·n·k²·(Ho·Wo) when H·W ≤ k² (denseConvOK).
// In exact arithmetic this is the convolution; in float32 its sums are
// grouped otherwise than im2col's or Winograd's and agree with them to
// rounding (TestDenseConvMatchesDirect, against a float64 direct
// convolution). Each product is one sgemm.Sgemm, whose bits do not depend
// on the number of threads; the ∂L/∂W sums run in a fixed order.

// denseConv enables the dense path (tests switch it off to compare it with
// the others). It runs only with Winograd's path on (SetWinograd,
// Conv3x3Env): the im2col setting keeps the numbers of the path before
// both.
var denseConv = true

// denseMaxValues bounds M (O·Ho·Wo × C·H·W values, and ∂L/∂M as many): 4 Mi
// values, 16 MB, the size of VGG16's 512-channel 2×2 layers at 32×32.
const denseMaxValues = 1 << 22

// denseConvOK reports whether convolution g runs as one dense product a
// pass: its input map has at most k² values (so M is no larger than
// im2col's work) and M fits denseMaxValues.
func denseConvOK(g convGeom) bool {
	return denseConv && useWinograd && usePackedConv && g.h*g.w <= g.k*g.k &&
		g.o*g.hw()*g.c*g.h*g.w <= denseMaxValues
}

// denseTap returns the index of W[o, c, kh, kw] within W[o, c] (kh·k + kw)
// of the tap that joins output position p to input position q, or −1.
func (g convGeom) denseTap(p, q int) int {
	ph, pw, qh, qw := p/g.wo, p%g.wo, q/g.w, q%g.w
	kh, kw := qh-ph*g.stride+g.pad, qw-pw*g.stride+g.pad
	if kh < 0 || kh >= g.k || kw < 0 || kw >= g.k {
		return -1
	}
	return kh*g.k + kw
}

// denseTaps is g's tap table: entry p·H·W + q is denseTap(p, q).
func (g convGeom) denseTaps() []int {
	hwi := g.h * g.w
	t := make([]int, g.hw()*hwi)
	for p := 0; p < g.hw(); p++ {
		for q := 0; q < hwi; q++ {
			t[p*hwi+q] = g.denseTap(p, q)
		}
	}
	return t
}

// denseM writes M (O·Ho·Wo × C·H·W, row-major) from W into the scratch and
// returns it, with the tap table: the rows of an output channel on one core,
// each reading W[o] in order.
func denseM(g convGeom, w []float32, sc *scratch[float32]) (m []float32, taps []int) {
	hwo, hwi, kk := g.hw(), g.h*g.w, g.k*g.k
	rows, cols := g.o*hwo, g.c*hwi
	if cap(sc.dense) < rows*cols {
		sc.dense = make([]float32, rows*cols)
	}
	m, taps = sc.dense[:rows*cols], g.denseTaps()
	par.Channels(g.o, func(o0, o1 int) {
		for o := o0; o < o1; o++ {
			wo := w[o*g.c*kk : (o+1)*g.c*kk]
			for p := 0; p < hwo; p++ {
				row, tp := m[(o*hwo+p)*cols:(o*hwo+p+1)*cols], taps[p*hwi:(p+1)*hwi]
				if hwi == 1 { // a 1×1 map: one tap a channel, or none
					if t := tp[0]; t < 0 {
						clear(row)
					} else {
						for c := range row {
							row[c] = wo[c*kk+t]
						}
					}
					continue
				}
				if hwi == 4 && min(tp[0], tp[1], tp[2], tp[3]) >= 0 {
					// A 2×2 map whose four taps all lie in the window
					// (VGG16's last block, ResNet18's 2×2 stage): four
					// values a channel, no test a value. A value at a
					// time this build was 2.3 % of VGG16's step at 32.
					t0, t1, t2, t3 := tp[0], tp[1], tp[2], tp[3]
					for c := 0; c < g.c; c++ {
						wc, rc := wo[c*kk:(c+1)*kk], row[c*4:c*4+4]
						rc[0], rc[1], rc[2], rc[3] = wc[t0], wc[t1], wc[t2], wc[t3]
					}
					continue
				}
				for c := 0; c < g.c; c++ {
					wc, rc := wo[c*kk:(c+1)*kk], row[c*hwi:(c+1)*hwi]
					for q, t := range tp {
						if t < 0 {
							rc[q] = 0
						} else {
							rc[q] = wc[t]
						}
					}
				}
			}
		}
	})
	return m, taps
}

// convForwardDense is convForwardPacked on a map denseConvOK accepts: Y =
// X·Mᵀ (+ the bias).
func convForwardDense(g convGeom, n int, x, w, b, y []float32, sc *scratch[float32]) {
	m, _ := denseM(g, w, sc)
	rows, cols := g.o*g.hw(), g.c*g.h*g.w
	var beta float32
	if b != nil {
		beta = 1
		par.Range(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				fillBias(y[i*rows:(i+1)*rows], b, g.hw())
			}
		})
	}
	sgemm.Sgemm(false, true, n, rows, cols, 1, x, cols, m, cols, beta, y, rows)
}

// convGradXDense is ∂L/∂X = ∂L/∂Y·M on a map denseConvOK accepts.
func convGradXDense(g convGeom, n int, w, dy, dx []float32, sc *scratch[float32]) {
	m, _ := denseM(g, w, sc)
	rows, cols := g.o*g.hw(), g.c*g.h*g.w
	sgemm.Sgemm(false, false, n, cols, rows, 1, dy, rows, m, cols, 0, dx, cols)
}

// convGradWDense is ∂L/∂W on a map denseConvOK accepts: ∂L/∂M = ∂L/∂Yᵀ·X,
// then each tap's entries of ∂L/∂M added in the order of the (p, q) pairs
// (p, then q, ascending).
func convGradWDense(g convGeom, n int, x, dy, dw []float32, sc *scratch[float32]) {
	hwo, hwi, kk := g.hw(), g.h*g.w, g.k*g.k
	rows, cols := g.o*hwo, g.c*hwi
	if cap(sc.dense) < rows*cols {
		sc.dense = make([]float32, rows*cols)
	}
	dm, taps := sc.dense[:rows*cols], g.denseTaps()
	sgemm.Sgemm(true, false, rows, cols, n, 1, dy, rows, x, cols, 0, dm, cols)
	par.Channels(g.o, func(o0, o1 int) {
		for o := o0; o < o1; o++ {
			wo := dw[o*g.c*kk : (o+1)*g.c*kk]
			clear(wo)
			for p := 0; p < hwo; p++ {
				row, tp := dm[(o*hwo+p)*cols:(o*hwo+p+1)*cols], taps[p*hwi:(p+1)*hwi]
				if hwi == 1 { // a 1×1 map, as in denseM
					if t := tp[0]; t >= 0 {
						for c, v := range row {
							wo[c*kk+t] += v
						}
					}
					continue
				}
				for c := 0; c < g.c; c++ {
					wc, rc := wo[c*kk:(c+1)*kk], row[c*hwi:(c+1)*hwi]
					for q, t := range tp {
						if t >= 0 {
							wc[t] += rc[q]
						}
					}
				}
			}
		}
	})
}
