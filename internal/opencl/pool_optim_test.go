package opencl_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/opencl"
)

// pool2Ref is the 2×2 stride-2 pool from its description: the window's
// maximum (Go's max: NaN wins), the first position holding it in
// row-major order (the last position when none does, i.e. NaN), and with
// relu max(v, 0) and position −1 where v is not > 0. lastOnTies takes the
// last maximum instead (a realistic bug).
func pool2Ref(x []float32, planes, h, w int, relu, lastOnTies bool) ([]float32, []int32) {
	ho, wo := h/2, w/2
	y, arg := make([]float32, planes*ho*wo), make([]int32, planes*ho*wo)
	for p := 0; p < planes; p++ {
		for oy := 0; oy < ho; oy++ {
			for ox := 0; ox < wo; ox++ {
				pos := []int{2*oy*w + 2*ox, 2*oy*w + 2*ox + 1, (2*oy+1)*w + 2*ox, (2*oy+1)*w + 2*ox + 1}
				v := x[p*h*w+pos[0]]
				for _, q := range pos[1:] {
					v = max(v, x[p*h*w+q])
				}
				k := pos[3]
				order := []int{3, 2, 1, 0}
				if lastOnTies {
					order = []int{0, 1, 2, 3}
				}
				for _, j := range order {
					if x[p*h*w+pos[j]] == v {
						k = pos[j]
					}
				}
				if relu {
					if !(v > 0) {
						k = -1
					}
					v = max(v, 0)
				}
				o := (p*ho+oy)*wo + ox
				y[o], arg[o] = v, int32(k)
			}
		}
	}
	return y, arg
}

func TestMaxPool2(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	for _, s := range [][3]int{{1, 2, 2}, {3, 4, 6}, {2, 5, 7}, {17, 3, 3}, {2, 33, 17}} {
		planes, h, w := s[0], s[1], s[2]
		for _, relu := range []bool{false, true} {
			name := fmt.Sprintf("%d×%d×%d relu=%t", planes, h, w, relu)
			x := randn(rng, planes*h*w, -2, 2)
			for i := range x {
				x[i] = float32(math.Round(float64(x[i]))) // ties and zeros
			}
			if len(x) > 9 {
				x[5] = float32(math.NaN())
			}
			no := planes * (h / 2) * (w / 2)
			yb, ab := alloc(t, l, no), alloc(t, l, no)
			xb := upload(t, l, x)
			must(t, l.MaxPool2(xb, yb, ab, planes, h, w, relu))
			wantY, wantA := pool2Ref(x, planes, h, w, relu, false)
			gotY, gotA := download(t, yb, no), downloadInt(t, ab, no)
			checkExact(t, "pool "+name, gotY, wantY)
			if fmt.Sprint(gotA) != fmt.Sprint(wantA) {
				t.Errorf("pool positions %s: got %v, want %v", name, gotA, wantA)
			}
			if _, lastA := pool2Ref(x, planes, h, w, relu, true); no > 4 && fmt.Sprint(gotA) == fmt.Sprint(lastA) {
				t.Errorf("pool %s: the check does not tell the first maximum from the last", name)
			}
			dy := randn(rng, no, -1, 1)
			dxb := alloc(t, l, len(x))
			must(t, l.MaxPool2Grad(upload(t, l, dy), ab, dxb, planes, h, w))
			wantDx := make([]float32, len(x))
			for o, a := range wantA {
				if a >= 0 {
					wantDx[(o/((h/2)*(w/2)))*h*w+int(a)] = dy[o]
				}
			}
			checkExact(t, "pool gradient "+name, download(t, dxb, len(x)), wantDx)
		}
	}
}

// maxPoolRef is gorgonia's maxPoolOp and maxPoolDiffOp written out: y,
// mask, and dx from dy (added in (ph, pw) order); assign replaces the
// addition of overlapping windows by an assignment (a realistic bug).
func maxPoolRef(g opencl.PoolGeom, x, dy []float32, assign bool) ([]float32, []int32, []float32) {
	y, mask := make([]float32, g.Planes*g.OutH*g.OutW), make([]int32, g.Planes*g.OutH*g.OutW)
	dx := make([]float32, len(x))
	for p := 0; p < g.Planes; p++ {
		for ph := 0; ph < g.OutH; ph++ {
			for pw := 0; pw < g.OutW; pw++ {
				o := (p*g.OutH+ph)*g.OutW + pw
				y[o], mask[o] = -math.MaxFloat32, -1
				for hi := max(ph*g.StrideH-g.PadH, 0); hi < min(ph*g.StrideH-g.PadH+g.KH, g.H); hi++ {
					for wi := max(pw*g.StrideW-g.PadW, 0); wi < min(pw*g.StrideW-g.PadW+g.KW, g.W); wi++ {
						if v := x[p*g.H*g.W+hi*g.W+wi]; v > y[o] {
							y[o], mask[o] = v, int32(hi*g.W+wi)
						}
					}
				}
				if mask[o] >= 0 {
					if assign {
						dx[p*g.H*g.W+int(mask[o])] = dy[o]
					} else {
						dx[p*g.H*g.W+int(mask[o])] += dy[o]
					}
				}
			}
		}
	}
	return y, mask, dx
}

func TestGorgoniaMaxPool(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	for _, c := range []struct{ planes, h, w, k, pad, stride int }{
		{1, 2, 2, 2, 0, 2}, {3, 8, 8, 3, 1, 2}, {2, 7, 9, 3, 1, 1}, {4, 5, 5, 2, 0, 1}, {17, 17, 3, 3, 1, 2}, {2, 6, 6, 4, 2, 3},
	} {
		g := opencl.PoolGeom{Planes: c.planes, H: c.h, W: c.w, KH: c.k, KW: c.k, PadH: c.pad, PadW: c.pad, StrideH: c.stride, StrideW: c.stride,
			OutH: (c.h+2*c.pad-(c.k-1)-1)/c.stride + 1, OutW: (c.w+2*c.pad-(c.k-1)-1)/c.stride + 1}
		name := fmt.Sprintf("%+v", g)
		x := randn(rng, g.Planes*g.H*g.W, -2, 2)
		for i := range x {
			x[i] = float32(math.Round(float64(x[i]) * 2)) // ties
		}
		no := g.Planes * g.OutH * g.OutW
		dy := randn(rng, no, -1, 1)
		yb, mb, dxb := alloc(t, l, no), alloc(t, l, no), alloc(t, l, len(x))
		must(t, l.MaxPool(upload(t, l, x), yb, mb, g))
		must(t, l.MaxPoolGrad(upload(t, l, dy), mb, dxb, g))
		wantY, wantM, wantDx := maxPoolRef(g, x, dy, false)
		checkExact(t, "max pool "+name, download(t, yb, no), wantY)
		if got := downloadInt(t, mb, no); fmt.Sprint(got) != fmt.Sprint(wantM) {
			t.Errorf("max pool mask %s: got %v, want %v", name, got, wantM)
		}
		gotDx := download(t, dxb, len(x))
		checkClose(t, "max pool gradient "+name, gotDx, f64(wantDx), nil)
		if c.stride < c.k { // overlapping windows
			_, _, wrong := maxPoolRef(g, x, dy, true)
			detects(t, "overlapping windows assigned instead of added", gotDx, f64(wrong), nil)
		}
	}
}

// optimRef runs steps of SGD (with momentum, dampening, Nesterov, weight
// decay) or Adam/AdamW from the formulas, in float64 with the
// hyper-parameters rounded to float32 as the CPU optimizer rounds them
// (β₂ = 0.999 is 0.99900001 in float32: a 1.3e-5 relative change in
// 1 − β₂); ps, bufs, ms, vs are the magnitudes of the terms behind each
// value (a sum that cancels is compared relative to them).
type optimRef struct {
	p, buf, m, v     []float64
	ps, bufs, ms, vs []float64
	step             int
}

func newOptimRef(p0 []float32) *optimRef {
	n := len(p0)
	r := &optimRef{p: f64(p0), buf: make([]float64, n), m: make([]float64, n), v: make([]float64, n),
		ps: make([]float64, n), bufs: make([]float64, n), ms: make([]float64, n), vs: make([]float64, n)}
	for i, v := range p0 {
		r.ps[i] = math.Abs(float64(v))
	}
	return r
}

func r32(x float64) float64 { return float64(float32(x)) }

func (o *optimRef) sgd(g []float32, h opencl.SGD) {
	lr, wd, mu, damp := r32(h.LR), r32(h.WeightDecay), r32(h.Momentum), r32(1-h.Dampening)
	for i := range o.p {
		gi := float64(g[i])
		d, ds := gi+wd*o.p[i], math.Abs(gi)+math.Abs(wd)*o.ps[i]
		if mu != 0 {
			if o.step == 0 {
				o.buf[i], o.bufs[i] = d, ds
			} else {
				o.buf[i], o.bufs[i] = mu*o.buf[i]+damp*d, mu*o.bufs[i]+damp*ds
			}
			if h.Nesterov {
				d, ds = d+mu*o.buf[i], ds+mu*o.bufs[i]
			} else {
				d, ds = o.buf[i], o.bufs[i]
			}
		}
		o.p[i] -= lr * d
		o.ps[i] += lr * ds
	}
	o.step++
}

func (o *optimRef) adam(g []float32, h opencl.Adam, noBiasCorrection bool) {
	o.step++
	t := float64(o.step)
	stepSize, bc2 := r32(h.LR/(1-math.Pow(h.Beta1, t))), r32(math.Sqrt(1-math.Pow(h.Beta2, t)))
	if noBiasCorrection {
		stepSize, bc2 = r32(h.LR), 1
	}
	lr, wd, b1, b2, eps := r32(h.LR), r32(h.WeightDecay), r32(h.Beta1), r32(h.Beta2), r32(h.Eps)
	for i := range o.p {
		gi, gs := float64(g[i]), math.Abs(float64(g[i]))
		if h.Decoupled {
			o.p[i] *= 1 - lr*wd
			o.ps[i] *= 1 - lr*wd
		} else {
			gi, gs = gi+wd*o.p[i], gs+wd*o.ps[i]
		}
		o.m[i], o.ms[i] = b1*o.m[i]+(1-b1)*gi, b1*o.ms[i]+(1-b1)*gs
		o.v[i], o.vs[i] = b2*o.v[i]+(1-b2)*gi*gi, b2*o.vs[i]+(1-b2)*gs*gs
		den := math.Sqrt(o.v[i])/bc2 + eps
		o.p[i] -= stepSize * o.m[i] / den
		o.ps[i] += stepSize * o.ms[i] / den
	}
}

func TestSGDStep(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	for _, h := range []opencl.SGD{
		{LR: 0.1},
		{LR: 0.05, WeightDecay: 5e-4},
		{LR: 0.05, Momentum: 0.9, WeightDecay: 5e-4},
		{LR: 0.05, Momentum: 0.9, Dampening: 0.3},
		{LR: 0.05, Momentum: 0.9, WeightDecay: 1e-3, Nesterov: true},
	} {
		for _, n := range []int{1, 17, 65, 1000} {
			name := fmt.Sprintf("%+v n=%d", h, n)
			p0 := randn(rng, n, -1, 1)
			grads := [][]float32{randn(rng, n, -1, 1), randn(rng, n, -1, 1), randn(rng, n, -1, 1)}
			// run replays the three steps in the reference with hyper-parameters h.
			run := func(h opencl.SGD) *optimRef {
				r := newOptimRef(p0)
				for step, g := range grads {
					h.First = step == 0
					r.sgd(g, h)
				}
				return r
			}
			pb, bb := upload(t, l, p0), upload(t, l, make([]float32, n))
			for step, g := range grads {
				hs := h
				hs.First = step == 0
				must(t, l.SGDStep(pb, upload(t, l, g), bb, n, hs))
			}
			ref := run(h)
			got := download(t, pb, n)
			checkClose(t, "SGD parameters "+name, got, ref.p, ref.ps)
			if h.Momentum != 0 {
				checkClose(t, "SGD momentum buffer "+name, download(t, bb, n), ref.buf, ref.bufs)
			}
			if h.Nesterov {
				plain := h
				plain.Nesterov = false
				detects(t, "plain momentum instead of Nesterov's", got, run(plain).p, ref.ps)
			}
			if h.WeightDecay != 0 && n > 1 {
				noWD := h
				noWD.WeightDecay = 0
				detects(t, "the weight decay dropped", got, run(noWD).p, ref.ps)
			}
		}
	}
}

func TestAdamStep(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	for _, h := range []opencl.Adam{
		{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8},
		{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: 1e-2},
		{LR: 3e-3, Beta1: 0.8, Beta2: 0.99, Eps: 1e-6, WeightDecay: 5e-2, Decoupled: true},
	} {
		for _, n := range []int{1, 17, 65, 1000} {
			name := fmt.Sprintf("%+v n=%d", h, n)
			p0 := randn(rng, n, -1, 1)
			ref, noBC := newOptimRef(p0), newOptimRef(p0)
			pb, mb, vb := upload(t, l, p0), upload(t, l, make([]float32, n)), upload(t, l, make([]float32, n))
			for step := int64(1); step <= 3; step++ {
				g := randn(rng, n, -1, 1)
				hs := h
				hs.Step = step
				must(t, l.AdamStep(pb, upload(t, l, g), mb, vb, n, hs))
				ref.adam(g, hs, false)
				noBC.adam(g, hs, true)
			}
			got := download(t, pb, n)
			checkClose(t, "Adam parameters "+name, got, ref.p, ref.ps)
			checkClose(t, "Adam first moment "+name, download(t, mb, n), ref.m, ref.ms)
			checkClose(t, "Adam second moment "+name, download(t, vb, n), ref.v, ref.vs)
			detects(t, "Adam without bias correction", got, noBC.p, ref.ps)
		}
	}
	if err := l.AdamStep(alloc(t, l, 1), alloc(t, l, 1), alloc(t, l, 1), alloc(t, l, 1), 1, opencl.Adam{LR: 1, Beta1: 0.9, Beta2: 0.9, Eps: 1}); err == nil {
		t.Error("Adam step 0: no error")
	}
}
