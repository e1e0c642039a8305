package nn

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/llpfc/llpfc/internal/vec"
)

// bnForwardByChannels is the fused batch norm's forward pass written channel
// by channel, one vec call a plane: the slow obvious loop the op ran before
// it walked the batch instance by instance, kept as the oracle of
// TestBatchNormByInstancesIsByChannels.
func bnForwardByChannels[F float](o *bnOp, x, gamma, beta, y, a, b []F) {
	chw, nv := o.c*o.hw, o.rows()
	g := o.glob
	fixed := g != nil && g.mode == bnFixed
	for c := 0; c < o.c; c++ {
		var mu, vr float64
		if fixed {
			mu, vr = g.mean[c], g.variance[c]
		} else {
			m := float64(nv * o.hw)
			var s float64
			for i := 0; i < nv; i++ {
				s += vec.Sum(x[i*chw+c*o.hw : i*chw+(c+1)*o.hw])
			}
			mu = s / m
			var ss float64
			for i := 0; i < nv; i++ {
				ss += vec.SqDev(x[i*chw+c*o.hw:i*chw+(c+1)*o.hw], mu)
			}
			vr = ss / m
			if g != nil && g.mode == bnAccumulate {
				g.fold(c, mu, vr, float64(nv*o.hw))
			}
		}
		is := 1 / math.Sqrt(vr+o.eps)
		o.mean[c], o.invStd[c], o.variance[c] = mu, is, vr
		sc := float64(gamma[c]) * is
		a[c], b[c] = F(sc), F(float64(beta[c])-mu*sc)
		for i := 0; i < o.n; i++ {
			off := i*chw + c*o.hw
			vec.Affine(y[off:off+o.hw], x[off:off+o.hw], a[c], b[c], o.relu)
		}
	}
	if g != nil && g.mode == bnAccumulate {
		g.count += float64(nv * o.hw)
	}
}

// bnBackwardByChannels is bnBackward channel by channel, one vec call a
// plane (the oracle, as bnForwardByChannels).
func bnBackwardByChannels[F float](f *bnOp, x, gamma, dy, dx, a, b []F, s *bnSums) {
	chw, nv := f.c*f.hw, f.rows()
	m := float64(nv * f.hw)
	gl := f.glob
	fixed := gl != nil && gl.mode == bnFixed
	for c := 0; c < f.c; c++ {
		mu, is := f.mean[c], f.invStd[c]
		var sg, sgd float64
		for i := 0; i < f.n; i++ {
			off := i*chw + c*f.hw
			s0, d0 := vec.MaskedSums(x[off:off+f.hw], dy[off:off+f.hw], a[c], b[c], f.relu, mu)
			sg += s0
			sgd += d0
		}
		sgx := sgd * is
		s.sg[c], s.sgx[c] = sg, sgx
		k0 := float64(gamma[c]) * is
		if fixed && gl.collect {
			gl.dMean[c] += -k0 * sg
			gl.dVar[c] += -0.5 * k0 * is * sgx
		}
		var q, r float64
		switch {
		case fixed && gl.extra:
			r, q = gl.adjMean[c]/gl.count, 2*gl.adjVar[c]/gl.count
		case !fixed:
			r, q = -k0*sg/m, -k0*is*sgx/m
		}
		kf, qf, rf, mf := F(k0), F(q), F(r), F(mu)
		for i := 0; i < f.n; i++ {
			off := i*chw + c*f.hw
			if i >= nv {
				qf, rf = 0, 0
			}
			vec.Grad(dx[off:off+f.hw], x[off:off+f.hw], dy[off:off+f.hw], a[c], b[c], f.relu, kf, qf, rf, mf)
		}
	}
}

// bnOrderCase is one layer's run: its shape, the ReLU, and the sweep state
// (none, the chunk's statistics folded into the minibatch's, or the
// minibatch's held fixed with and without the adjoints' terms) with the
// chunk's instance rows.
type bnOrderCase struct {
	n, c, hw, valid int
	relu            bool
	mode            int // 0: no sweep; 1: bnAccumulate; 2: bnFixed with collect; 3: bnFixed with collect and extra
	seed            uint64
}

// run runs the case through fwd and bwd on a fresh op and returns every
// number they leave: y, dx, the op's statistics, a and b, the sums and the
// sweep's state.
func (k bnOrderCase) run(fwd func(*bnOp, []float32, []float32, []float32, []float32, []float32, []float32),
	bwd func(*bnOp, []float32, []float32, []float32, []float32, []float32, []float32, *bnSums)) []float64 {
	r := rand.New(rand.NewPCG(k.seed, 3))
	o := &bnOp{n: k.n, c: k.c, hw: k.hw, dims: 4, eps: 1e-5, relu: k.relu}
	o.mean, o.invStd, o.variance = make([]float64, k.c), make([]float64, k.c), make([]float64, k.c)
	if k.mode > 0 {
		g := newBNGlobal(k.c)
		g.valid = k.valid
		for c := 0; c < k.c; c++ {
			g.mean[c], g.m2[c], g.variance[c] = r.NormFloat64(), r.Float64(), 0.5+r.Float64()
			g.adjMean[c], g.adjVar[c] = r.NormFloat64(), r.NormFloat64()
		}
		g.count = float64(1 + r.IntN(50))
		switch k.mode {
		case 1:
			g.mode = bnAccumulate
		default:
			g.mode, g.collect, g.extra = bnFixed, true, k.mode == 3
		}
		o.glob = g
	}
	vals := func(n int, scale float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64()*scale + 0.25*scale)
			if r.IntN(4) == 0 {
				v[i] = float32(r.NormFloat64() * 5e-10 * scale) // sums whose order decides their rounding
			}
		}
		return v
	}
	size := k.n * k.c * k.hw
	x, dy, gamma, beta := vals(size, 1), vals(size, 0.1), vals(k.c, 1), vals(k.c, 1)
	y, dx, a, b := make([]float32, size), make([]float32, size), make([]float32, k.c), make([]float32, k.c)
	s := &bnSums{sg: make([]float64, k.c), sgx: make([]float64, k.c)}
	fwd(o, x, gamma, beta, y, a, b)
	bwd(o, x, gamma, dy, dx, a, b, s)
	var out []float64
	for _, v := range [][]float32{y, dx, a, b} {
		for _, f := range v {
			out = append(out, float64(f))
		}
	}
	out = append(append(append(append(append(out, o.mean...), o.invStd...), o.variance...), s.sg...), s.sgx...)
	if g := o.glob; g != nil {
		out = append(append(append(append(append(out, g.mean...), g.m2...), g.dMean...), g.dVar...), g.count)
	}
	return out
}

// TestBatchNormByInstancesIsByChannels: the fused batch norm walking the
// batch instance by instance (vec's *Planes on each instance's run of
// channels, channels shared out to the cores) leaves every number — y,
// ∂L/∂x, the statistics, the affine map, Σg and Σg·x̂, and a chunk sweep's
// folded statistics and adjoints — bit for bit what the channel-by-channel
// loop with one vec call a plane leaves, for generated shapes (planes of
// 1 to 70 values: the sums' inline loops, the assembly's widths and
// remainders), ReLU on and off, and each sweep mode with a chunk whose
// last rows are padding.
func TestBatchNormByInstancesIsByChannels(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 150
	p := gopter.NewProperties(params)
	p.Property("same bits", prop.ForAll(func(n, c, hw, pad, mode int, relu bool, seed uint64) bool {
		k := bnOrderCase{n: n, c: c, hw: hw, valid: max(n-pad, 1), relu: relu, mode: mode, seed: seed}
		if mode == 0 {
			k.valid = n
		}
		want := k.run(bnForwardByChannels[float32], bnBackwardByChannels[float32])
		for _, threads := range []int{1, 3} {
			got := withProcs(threads, func() []float64 {
				return k.run(func(o *bnOp, x, g, b, y, a, bb []float32) { bnForward(o, x, g, b, y, a, bb) },
					func(o *bnOp, x, g, dy, dx, a, b []float32, s *bnSums) {
						bnBackward(o, x, g, dy, dx, a, b, make([]float32, 5*o.c), s)
					})
			})
			if len(got) != len(want) {
				t.Logf("%+v: %d numbers, want %d", k, len(got), len(want))
				return false
			}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
					t.Logf("%+v, %d threads: number %d is %v, want %v", k, threads, i, got[i], want[i])
					return false
				}
			}
		}
		return true
	}, gen.IntRange(1, 9), gen.IntRange(1, 40), gen.IntRange(1, 70), gen.IntRange(0, 3), gen.IntRange(0, 3), gen.Bool(), gen.UInt64()))
	p.TestingRun(t)
}

// withProcs runs f with GOMAXPROCS set to procs (par.Channels shares the
// channels out by it).
func withProcs(procs int, f func() []float64) []float64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	return f()
}
