package opencl_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/llpfc/llpfc/internal/opencl"
)

const bnEps = 1e-5

var bnGeoms = []opencl.BNGeom{
	{N: 1, C: 1, HW: 1}, {N: 3, C: 1, HW: 17}, {N: 17, C: 3, HW: 1}, {N: 5, C: 4, HW: 9},
	{N: 2, C: 3, HW: 33}, {N: 4, C: 17, HW: 16}, {N: 65, C: 2, HW: 1}, {N: 3, C: 2, HW: 300},
}

// bnInput draws x with a different mean per channel (so x − μ matters),
// γ (some negative) and β.
func bnInput(rng *rand.Rand, g opencl.BNGeom) (x, gamma, beta []float32) {
	x = randn(rng, g.N*g.C*g.HW, -1, 1)
	for i := range x {
		x[i] += float32(3 * ((i / g.HW) % g.C))
	}
	return x, randn(rng, g.C, -1.5, 1.5), randn(rng, g.C, -1, 1)
}

// bnStatsRef is the mean and biased variance per channel over the first
// rows rows (or, with unbiased, the variance divided by M − 1).
func bnStatsRef(x []float32, g opencl.BNGeom, rows int, unbiased bool) (mean, variance []float64) {
	mean, variance = make([]float64, g.C), make([]float64, g.C)
	m := float64(rows * g.HW)
	for c := 0; c < g.C; c++ {
		for i := 0; i < rows; i++ {
			for k := 0; k < g.HW; k++ {
				mean[c] += float64(x[(i*g.C+c)*g.HW+k])
			}
		}
		mean[c] /= m
		for i := 0; i < rows; i++ {
			for k := 0; k < g.HW; k++ {
				d := float64(x[(i*g.C+c)*g.HW+k]) - mean[c]
				variance[c] += d * d
			}
		}
		if unbiased && m > 1 {
			variance[c] /= m - 1
		} else {
			variance[c] /= m
		}
	}
	return mean, variance
}

// bnAffineRef is y = γ·(x − μ)/√(σ² + ε) + β in float64, its scale, and
// the float32 affine map a, b whose x·a + b > 0 is the ReLU mask.
func bnAffineRef(x, gamma, beta []float32, mean, variance []float64, g opencl.BNGeom, relu bool) (y, ys []float64, a, b []float32) {
	a, b = make([]float32, g.C), make([]float32, g.C)
	for c := range a {
		sc := float64(gamma[c]) / math.Sqrt(variance[c]+bnEps)
		a[c], b[c] = float32(sc), float32(float64(beta[c])-mean[c]*sc)
	}
	y, ys = make([]float64, len(x)), make([]float64, len(x))
	for i, v := range x {
		c := (i / g.HW) % g.C
		sc := float64(gamma[c]) / math.Sqrt(variance[c]+bnEps)
		y[i] = (float64(v)-mean[c])*sc + float64(beta[c])
		ys[i] = math.Abs(float64(v*a[c])) + math.Abs(float64(b[c]))
		if relu && !(v*a[c]+b[c] > 0) {
			y[i] = 0
		}
	}
	return y, ys, a, b
}

func TestBatchNormForward(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	for _, g := range bnGeoms {
		for _, relu := range []bool{false, true} {
			for _, rows := range []int{g.N, max(1, g.N-2)} {
				name := fmt.Sprintf("%+v rows=%d relu=%t", g, rows, relu)
				x, gamma, beta := bnInput(rng, g)
				st, err := l.NewBNState(g.C)
				must(t, err)
				defer st.Release()
				yb := alloc(t, l, len(x))
				must(t, l.BNForward(upload(t, l, x), upload(t, l, gamma), upload(t, l, beta), yb, g, rows, bnEps, relu, st))
				mean, variance := bnStatsRef(x, g, rows, false)
				y, ys, _, _ := bnAffineRef(x, gamma, beta, mean, variance, g, relu)
				checkClose(t, "batch norm mean "+name, download(t, st.Mean, g.C), mean, nil)
				checkClose(t, "batch norm variance "+name, download(t, st.Var, g.C), variance, nil)
				got := download(t, yb, len(x))
				checkClose(t, "batch norm "+name, got, y, ys)
				if rows*g.HW > 1 {
					um, uv := bnStatsRef(x, g, rows, true)
					wrong, _, _, _ := bnAffineRef(x, gamma, beta, um, uv, g, relu)
					detects(t, "the unbiased variance in the forward pass", got, wrong, ys)
				}
			}
		}
	}
}

func TestBatchNormEval(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	for _, g := range bnGeoms {
		for _, relu := range []bool{false, true} {
			x, gamma, beta := bnInput(rng, g)
			rm, rv := randn(rng, g.C, -2, 5), randn(rng, g.C, 0.1, 3)
			yb := alloc(t, l, len(x))
			must(t, l.BNEval(upload(t, l, x), upload(t, l, gamma), upload(t, l, beta), upload(t, l, rm), upload(t, l, rv), yb, g, bnEps, relu))
			y, ys, _, _ := bnAffineRef(x, gamma, beta, f64(rm), f64(rv), g, relu)
			got := download(t, yb, len(x))
			checkClose(t, fmt.Sprintf("batch norm (eval) %+v relu=%t", g, relu), got, y, ys)
			noEps := make([]float64, g.C)
			for c := range noEps {
				noEps[c] = float64(rv[c]) - bnEps + 0.05 // ε lost and the variance shifted
			}
			if !relu && len(x) > 1 {
				wrong, _, _, _ := bnAffineRef(x, gamma, beta, f64(rm), noEps, g, relu)
				detects(t, "a wrong variance in evaluation", got, wrong, ys)
			}
		}
	}
}

// bnBackRef is ∂L/∂x, Σg and Σg·x̂ of batch norm from the definition, with
// their scales. mode as opencl.BNMode; adjMean, adjVar, count for
// BNFixedAdjoint; dropCoupling leaves out the x̂·Σg·x̂/M term (a realistic
// bug).
type bnBack struct{ dx, dxs, sg, sgs, sgx, sgxs []float64 }

func bnBackRef(x, gamma, dy []float32, mean, variance []float64, a, b []float32, g opencl.BNGeom, rows int, relu bool,
	mode opencl.BNMode, adjMean, adjVar []float32, count float64, dropCoupling bool) bnBack {
	r := bnBack{dx: make([]float64, len(x)), dxs: make([]float64, len(x)),
		sg: make([]float64, g.C), sgs: make([]float64, g.C), sgx: make([]float64, g.C), sgxs: make([]float64, g.C)}
	grad := func(i int) float64 {
		c := (i / g.HW) % g.C
		if relu && !(x[i]*a[c]+b[c] > 0) {
			return 0
		}
		return float64(dy[i])
	}
	for i := range x {
		c := (i / g.HW) % g.C
		is := 1 / math.Sqrt(variance[c]+bnEps)
		gi, xh := grad(i), (float64(x[i])-mean[c])*is
		r.sg[c] += gi
		r.sgs[c] += math.Abs(gi)
		r.sgx[c] += gi * xh
		r.sgxs[c] += math.Abs(gi * xh)
	}
	m := float64(rows * g.HW)
	for i := range x {
		c, row := (i/g.HW)%g.C, i/(g.HW*g.C)
		is := 1 / math.Sqrt(variance[c]+bnEps)
		k := float64(gamma[c]) * is
		gi, xh := grad(i), (float64(x[i])-mean[c])*is
		r.dx[i] = k * gi
		r.dxs[i] = math.Abs(k * gi)
		if row >= rows {
			continue
		}
		switch mode {
		case opencl.BNOwnStats:
			coupling := xh * r.sgx[c] / m
			if dropCoupling {
				coupling = 0
			}
			r.dx[i] -= k * (r.sg[c]/m + coupling)
			r.dxs[i] += math.Abs(k) * (r.sgs[c]/m + (math.Abs(xh)+math.Abs(mean[c]*is))*r.sgxs[c]/m)
		case opencl.BNFixedAdjoint:
			q := 2 * float64(adjVar[c]) / count
			r.dx[i] += q*(float64(x[i])-mean[c]) + float64(adjMean[c])/count
			r.dxs[i] += math.Abs(q)*(math.Abs(float64(x[i]))+math.Abs(mean[c])) + math.Abs(float64(adjMean[c])/count)
		}
	}
	return r
}

func TestBatchNormBackward(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	for _, g := range bnGeoms {
		for _, relu := range []bool{false, true} {
			for _, rows := range []int{g.N, max(1, g.N-2)} {
				name := fmt.Sprintf("%+v rows=%d relu=%t", g, rows, relu)
				x, gamma, beta := bnInput(rng, g)
				dy := randn(rng, len(x), -1, 1)
				st, err := l.NewBNState(g.C)
				must(t, err)
				defer st.Release()
				xb, gb, dyb := upload(t, l, x), upload(t, l, gamma), upload(t, l, dy)
				yb, dxb := alloc(t, l, len(x)), alloc(t, l, len(x))
				must(t, l.BNForward(xb, gb, upload(t, l, beta), yb, g, rows, bnEps, relu, st))
				must(t, l.BNBackward(xb, gb, dyb, dxb, g, rows, relu, st, opencl.BNOwnStats, nil))
				mean, variance := bnStatsRef(x, g, rows, false)
				_, _, a, b := bnAffineRef(x, gamma, beta, mean, variance, g, relu)
				ref := bnBackRef(x, gamma, dy, mean, variance, a, b, g, rows, relu, opencl.BNOwnStats, nil, nil, 0, false)
				dx := download(t, dxb, len(x))
				checkClose(t, "batch norm ∂x "+name, dx, ref.dx, ref.dxs)
				checkClose(t, "batch norm ∂β "+name, download(t, st.SumG, g.C), ref.sg, ref.sgs)
				checkClose(t, "batch norm ∂γ "+name, download(t, st.SumGX, g.C), ref.sgx, ref.sgxs)
				if rows*g.HW > 2 {
					wrong := bnBackRef(x, gamma, dy, mean, variance, a, b, g, rows, relu, opencl.BNOwnStats, nil, nil, 0, true)
					detects(t, "∂x without the x̂·Σg·x̂/M term", dx, wrong.dx, ref.dxs)
				}
			}
		}
	}
}

// TestBatchNormFixedStats: the sweep's modes: statistics given, with and
// without the adjoints of the minibatch statistics, padding rows, and the
// collected ∂L/∂μ, ∂L/∂σ².
func TestBatchNormFixedStats(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	for _, g := range bnGeoms {
		for _, relu := range []bool{false, true} {
			for _, mode := range []opencl.BNMode{opencl.BNFixedStats, opencl.BNFixedAdjoint} {
				rows := max(1, g.N-1)
				name := fmt.Sprintf("%+v rows=%d relu=%t mode=%d", g, rows, relu, mode)
				x, gamma, beta := bnInput(rng, g)
				dy := randn(rng, len(x), -1, 1)
				mean32, var32 := randn(rng, g.C, -1, 4), randn(rng, g.C, 0.2, 2)
				adjM, adjV := randn(rng, g.C, -1, 1), randn(rng, g.C, -1, 1)
				const count = 37.0
				st, err := l.NewBNState(g.C)
				must(t, err)
				defer st.Release()
				must(t, st.Mean.Write(mean32))
				must(t, st.Var.Write(var32))
				xb, gb := upload(t, l, x), upload(t, l, gamma)
				yb, dxb := alloc(t, l, len(x)), alloc(t, l, len(x))
				must(t, l.BNForwardFixed(xb, gb, upload(t, l, beta), yb, g, bnEps, relu, st))
				adj := &opencl.BNAdjoint{Mean: upload(t, l, adjM), Var: upload(t, l, adjV), Count: count}
				must(t, l.BNBackward(xb, gb, upload(t, l, dy), dxb, g, rows, relu, st, mode, adj))
				dm0, dv0 := randn(rng, g.C, -1, 1), randn(rng, g.C, -1, 1)
				dmb, dvb := upload(t, l, dm0), upload(t, l, dv0)
				must(t, l.BNCollect(gb, st, dmb, dvb))
				mean, variance := f64(mean32), f64(var32)
				y, ys, a, b := bnAffineRef(x, gamma, beta, mean, variance, g, relu)
				checkClose(t, "fixed-statistics batch norm "+name, download(t, yb, len(x)), y, ys)
				ref := bnBackRef(x, gamma, dy, mean, variance, a, b, g, rows, relu, mode, adjM, adjV, count, false)
				dx := download(t, dxb, len(x))
				checkClose(t, "fixed-statistics ∂x "+name, dx, ref.dx, ref.dxs)
				dm, dv, dms, dvs := make([]float64, g.C), make([]float64, g.C), make([]float64, g.C), make([]float64, g.C)
				for c := range dm {
					is := 1 / math.Sqrt(variance[c]+bnEps)
					k := float64(gamma[c]) * is
					dm[c] = float64(dm0[c]) - k*ref.sg[c]
					dv[c] = float64(dv0[c]) - 0.5*k*is*ref.sgx[c]
					dms[c] = math.Abs(float64(dm0[c])) + math.Abs(k)*ref.sgs[c]
					dvs[c] = math.Abs(float64(dv0[c])) + 0.5*math.Abs(k)*is*ref.sgxs[c]
				}
				checkClose(t, "collected ∂L/∂μ "+name, download(t, dmb, g.C), dm, dms)
				checkClose(t, "collected ∂L/∂σ² "+name, download(t, dvb, g.C), dv, dvs)
				if mode == opencl.BNFixedAdjoint && rows*g.HW > 1 {
					other := bnBackRef(x, gamma, dy, mean, variance, a, b, g, rows, relu, opencl.BNFixedStats, nil, nil, 0, false)
					detects(t, "the adjoints left out", dx, other.dx, ref.dxs)
				}
			}
		}
	}
}

// TestBatchNormSplitStats: BNStatsSplit keeps the statistics to the
// accumulator's precision (to 1e-12 of the float64 reference where the
// device has doubles: a split that dropped the low halves would miss by
// float rounding, ~1e-8), and BNForwardSplit's affine map is bnForward's,
// bit for bit: a and b computed from the unrounded statistics (the CPU's
// float64 ones), rounded once.
func TestBatchNormSplitStats(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	tol := 1e-12
	if !l.FP64() {
		tol = 1e-5
	}
	for _, g := range bnGeoms {
		for _, rows := range []int{g.N, max(1, g.N-2)} {
			for _, relu := range []bool{false, true} {
				name := fmt.Sprintf("%+v rows=%d relu=%t", g, rows, relu)
				x, gamma, beta := bnInput(rng, g)
				xb, split, yb := upload(t, l, x), alloc(t, l, 4*g.C), alloc(t, l, len(x))
				st, err := l.NewBNState(g.C)
				must(t, err)
				defer st.Release()
				must(t, l.BNStatsSplit(xb, g, rows, split))
				must(t, l.BNForwardSplit(xb, upload(t, l, gamma), upload(t, l, beta), split, yb, g, bnEps, relu, st))
				host := download(t, split, 4*g.C)
				mean, variance := bnStatsRef(x, g, rows, false)
				gotMean, gotVar := opencl.JoinPairs(host[:2*g.C], g.C), opencl.JoinPairs(host[2*g.C:], g.C)
				for c := 0; c < g.C; c++ {
					for _, v := range []struct {
						what      string
						got, want float64
					}{{"mean", gotMean[c], mean[c]}, {"variance", gotVar[c], variance[c]}} {
						if d := math.Abs(v.got - v.want); d > tol*(math.Abs(v.want)+1) {
							t.Errorf("%s: split %s of channel %d = %.17g, want %.17g (off by %.3g)", name, v.what, c, v.got, v.want, d)
						}
					}
				}
				if !l.FP64() {
					continue
				}
				a, b := make([]float32, g.C), make([]float32, g.C)
				for c := range a {
					is := 1 / math.Sqrt(variance[c]+bnEps)
					sc := float64(gamma[c]) * is
					a[c], b[c] = float32(sc), float32(float64(beta[c])-mean[c]*sc)
				}
				checkExact(t, "split batch norm a "+name, download(t, st.A, g.C), a)
				checkExact(t, "split batch norm b "+name, download(t, st.B, g.C), b)
				y := make([]float32, len(x))
				for i, v := range x {
					c := (i / g.HW) % g.C
					y[i] = v*a[c] + b[c]
					if relu && !(y[i] > 0) {
						y[i] = 0
					}
				}
				checkExact(t, "split batch norm "+name, download(t, yb, len(x)), y)
			}
		}
	}
}

// TestSplitPairsRoundTrip: a float64 survives SplitPairs and JoinPairs to
// float's precision squared (what the device's pairs carry).
func TestSplitPairsRoundTrip(t *testing.T) {
	rng := newRNG(t)
	v := make([]float64, 257)
	for i := range v {
		v[i] = (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(20)-10))
	}
	v[0] = 0
	pairs := make([]float32, 2*len(v))
	opencl.SplitPairs(pairs, v)
	back := opencl.JoinPairs(pairs, len(v))
	for i := range v {
		if d := math.Abs(back[i] - v[i]); d > 0x1p-46*math.Abs(v[i]) {
			t.Errorf("value %d: %.17g came back as %.17g", i, v[i], back[i])
		}
		if pairs[i] != float32(v[i]) {
			t.Errorf("value %d: high half %v, want float32(v) = %v", i, pairs[i], float32(v[i]))
		}
	}
}

// TestBatchNormFoldRunning: statistics folded chunk by chunk on the
// device (BNFoldSplit, BNFinishSplit: a sweep kept there) equal those of
// the whole minibatch computed in float64 on the host, to the float pairs'
// precision where the device accumulates in double; the running averages
// follow PyTorch's rule.
func TestBatchNormFoldRunning(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	for _, g := range []opencl.BNGeom{{N: 9, C: 3, HW: 5}, {N: 7, C: 17, HW: 1}, {N: 3, C: 2, HW: 33}} {
		x, _, _ := bnInput(rng, g)
		for i := range x { // chunks with different means: the d² term matters
			x[i] += float32(i / (3 * g.C * g.HW) % 3) // by chunk of 3 rows
		}
		size := g.C * g.HW
		acc, fixed, split := upload(t, l, make([]float32, 4*g.C)), alloc(t, l, 4*g.C), alloc(t, l, 4*g.C)
		count := 0.0
		var naive []float64 // the chunks' variances averaged, a wrong fold
		for lo := 0; lo < g.N; lo += 3 {
			hi := min(lo+3, g.N)
			cg := opencl.BNGeom{N: 3, C: g.C, HW: g.HW} // a chunk of 3 rows, the last padded
			chunk := make([]float32, 3*size)
			copy(chunk, x[lo*size:hi*size])
			must(t, l.BNStatsSplit(upload(t, l, chunk), cg, hi-lo, split))
			m := float64((hi - lo) * g.HW)
			must(t, l.BNFoldSplit(acc, split, g.C, count, m))
			count += m
			_, cv := bnStatsRef(x[lo*size:hi*size], opencl.BNGeom{N: hi - lo, C: g.C, HW: g.HW}, hi-lo, false)
			if naive == nil {
				naive = make([]float64, g.C)
			}
			for c := range naive {
				naive[c] += cv[c] * m / float64(g.N*g.HW)
			}
		}
		must(t, l.BNFinishSplit(acc, fixed, count, g.C))
		wantMean, wantVar := bnStatsRef(x, g, g.N, false)
		pairs := download(t, fixed, 4*g.C)
		gotMean, gotVar := opencl.JoinPairs(pairs[:2*g.C], g.C), opencl.JoinPairs(pairs[2*g.C:], g.C)
		tol := 1e-5 // float accumulators
		if l.FP64() {
			tol = 1e-12
		}
		for c := range wantMean {
			if d := math.Abs(gotMean[c] - wantMean[c]); d > tol*(1+math.Abs(wantMean[c])) {
				t.Errorf("%+v channel %d: folded mean %.17g, want %.17g", g, c, gotMean[c], wantMean[c])
			}
			if d := math.Abs(gotVar[c] - wantVar[c]); d > tol*wantVar[c] {
				t.Errorf("%+v channel %d: folded variance %.17g, want %.17g", g, c, gotVar[c], wantVar[c])
			}
		}
		got := make([]float32, g.C)
		for c := range got {
			got[c] = float32(gotVar[c])
		}
		if g.N > 3 { // several chunks
			detects(t, "a fold without the between-chunk term", got, naive, nil)
		}
		gm, variance := upload(t, l, pairs[:g.C]), upload(t, l, pairs[2*g.C:3*g.C])

		rm, rv := randn(rng, g.C, -1, 1), randn(rng, g.C, 0.5, 2)
		rmb, rvb := upload(t, l, rm), upload(t, l, rv)
		const mom = 0.1
		n := g.N * g.HW
		must(t, l.BNRunning(rmb, rvb, gm, variance, g.C, mom, n))
		wm, wv, wvBiased := make([]float64, g.C), make([]float64, g.C), make([]float64, g.C)
		{
			gotVar := download(t, variance, g.C)
			gotMean := download(t, gm, g.C)
			for c := range wm {
				wm[c] = (1-mom)*float64(rm[c]) + mom*float64(gotMean[c])
				wv[c] = (1-mom)*float64(rv[c]) + mom*float64(gotVar[c])*float64(n)/float64(n-1)
				wvBiased[c] = (1-mom)*float64(rv[c]) + mom*float64(gotVar[c])
			}
		}
		checkClose(t, "running mean", download(t, rmb, g.C), wm, nil)
		gotRV := download(t, rvb, g.C)
		checkClose(t, "running variance", gotRV, wv, nil)
		detects(t, "the running variance without the unbiasing factor", gotRV, wvBiased, nil)
	}
}
