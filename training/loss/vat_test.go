package loss

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/internal/testutil"
	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// tinyNet is a small test network: logits = tanh(x·W1 + b1)·W2 + b2, or
// x·W1 + b1 when linear is set.
type tinyNet struct {
	l1, l2 *nn.Dense
	linear bool
}

func newTinyNet(g *gorgonia.ExprGraph, in, hidden, classes int, linear bool, r *rand.Rand) *tinyNet {
	if linear {
		return &tinyNet{l1: nn.NewDense(g, tensor.Float64, "tiny.l1", in, classes, r), linear: true}
	}
	return &tinyNet{l1: nn.NewDense(g, tensor.Float64, "tiny.l1", in, hidden, r), l2: nn.NewDense(g, tensor.Float64, "tiny.l2", hidden, classes, r)}
}

func (n *tinyNet) Name() string { return "tiny" }
func (n *tinyNet) Learnables() gorgonia.Nodes {
	if n.linear {
		return n.l1.Learnables()
	}
	return append(n.l1.Learnables(), n.l2.Learnables()...)
}
func (n *tinyNet) Forward(x *gorgonia.Node, train bool) (*gorgonia.Node, error) {
	l, f, err := n.ForwardFeatures(x, train)
	_ = f
	return l, err
}
func (n *tinyNet) ForwardFeatures(x *gorgonia.Node, train bool) (*gorgonia.Node, *gorgonia.Node, error) {
	h, err := n.l1.Forward(x)
	if err != nil || n.linear {
		return h, h, err
	}
	if h, err = gorgonia.Tanh(h); err != nil {
		return nil, nil, err
	}
	z, err := n.l2.Forward(h)
	return z, h, err
}

func TestSigmoidRampupAndVATWeight(t *testing.T) {
	cases := []struct{ t, T, want float64 }{
		{0, 10, math.Exp(-5)},
		{5, 10, math.Exp(-1.25)},
		{10, 10, 1},
		{15, 10, 1},
		{-3, 10, math.Exp(-5)},
		{3, 0, 1},
	}
	for _, c := range cases {
		got := SigmoidRampup(c.t, c.T)
		assert.InDelta(t, c.want, got, 1e-15, "SigmoidRampup(%v, %v) = %v, want %v", c.t, c.T, got, c.want)
	}
	// Ramp-up length is 40% of the run's steps: 40 of 100.
	got, want := VATWeight(0, 100), 0.05*math.Exp(-5)
	assert.InDelta(t, want, got, 1e-15, "VATWeight(0, 100) = %v, want %v", got, want)
	got, want = VATWeight(20, 100), 0.05*math.Exp(-1.25)
	assert.InDelta(t, want, got, 1e-15, "VATWeight(20, 100) = %v, want %v", got, want)
	got = VATWeight(40, 100)
	assert.Equal(t, 0.05, got, "VATWeight(40, 100) = %v, want 0.05", got)
	for _, bad := range []VATConfig{{Xi: 0, Eps: 1, PowerIters: 1}, {Xi: 1e-6, Eps: -1, PowerIters: 1}, {Xi: 1e-6, Eps: 1, PowerIters: 0}} {
		if bad.Validate() == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	if c := PaperVATConfig("cifar10"); c.Eps != 6 || c.Xi != 1e-6 || c.PowerIters != 1 {
		t.Errorf("cifar10 config %+v", c)
	}
	c := PaperVATConfig("svhn")
	assert.Equal(t, 1.0, c.Eps, "svhn config %+v", c)
}

// vatFixture builds a VAT on a small float64 network and a chunk of inputs.
func vatFixture(t *testing.T, linear bool, cfg VATConfig, n, D, C int) (*VAT, nn.Model, []float32) {
	t.Helper()
	g := gorgonia.NewGraph()
	net := newTinyNet(g, D, 5, C, linear, rng.New(1, "init"))
	spec := nn.ModelSpec{Name: "tiny", Features: D, NumClasses: C, Dtype: tensor.Float64}
	v, err := NewVAT(cpuBackend, g, net, spec, n, cfg)
	require.NoError(t, err)
	r := rng.New(2, "x")
	x := make([]float32, n*D)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	return v, net, x
}

// TestVATGradientMatchesFiniteDifferences: the parameter gradient that
// VAT.Gradient accumulates equals the central difference of
// Σ_i w_i D_KL(p_i ‖ f_θ(x_i + r_adv,i)) with p and r_adv held at the values
// the call computed, and the returned L_cons equals that KL sum computed
// directly.
func TestVATGradientMatchesFiniteDifferences(t *testing.T) {
	const n, D, C = 4, 3, 3
	cfg := VATConfig{Xi: 1e-6, Eps: 0.7, PowerIters: 2}
	v, _, x := vatFixture(t, false, cfg, n, D, C)
	defer v.Close()
	acc := make([][]float64, len(v.params))
	for i, p := range v.params {
		acc[i] = make([]float64, p.Shape().TotalSize())
	}
	const weight = 0.5
	lcons, err := v.Gradient(x, weight, rng.New(3, "vat"), hostAcc(acc))
	require.NoError(t, err)
	// Direct L_cons from the stored p and r_adv and the adversarial logits.
	p, r := vatData(v.pT), vatData(v.rT)
	rnorm := 0.0
	for j := 0; j < D; j++ {
		rnorm += r[j] * r[j]
	}
	assert.InDelta(t, cfg.Eps, math.Sqrt(rnorm), 1e-6, "‖r_adv‖ of instance 0 = %v, want ε = %v", math.Sqrt(rnorm), cfg.Eps)
	cost := func() float64 {
		c, err := runRead(v.adv, v.cons)
		require.NoError(t, err)
		return c[0]
	}
	ce := cost()
	ent := 0.0
	for i := 0; i < n*C; i++ {
		ent += p[i] * math.Log(p[i]) / n
	}
	assert.InDelta(t, (ce + ent), lcons, 1e-12, "L_cons %v, want CE + Σ p log p = %v", lcons, ce+ent)
	assert.GreaterOrEqual(t, lcons, 0.0, "L_cons = %v < 0, a KL divergence", lcons)
	const h = 1e-6
	for k, pn := range v.params {
		data := pn.Value().Data().([]float64)
		for j := range data {
			orig := data[j]
			data[j] = orig + h
			fp := cost()
			data[j] = orig - h
			fm := cost()
			data[j] = orig
			fd := weight * (fp - fm) / (2 * h)
			assert.LessOrEqual(t, math.Abs(fd-acc[k][j]), 1e-6*math.Max(1, math.Abs(fd)), "%v[%d]: accumulated %v, central difference %v", pn, j, acc[k][j], fd)
		}
	}
}

// TestVATPowerIterationFollowsHessian: for a linear-softmax model z = xW + b
// the KL at x + ξd is ½ξ² dᵀHd + O(ξ³) with H = W(diag(p) − ppᵀ)Wᵀ, so one
// power iteration from d₀ must give H d₀/‖H d₀‖ and many iterations the
// top eigenvector of H (both computed here in closed form).
func TestVATPowerIterationFollowsHessian(t *testing.T) {
	const n, D, C = 2, 4, 3
	for _, iters := range []int{1, 60} {
		v, _, x := vatFixture(t, true, VATConfig{Xi: 1e-4, Eps: 1, PowerIters: iters}, n, D, C)
		d, err := v.AdversarialDirection(x, rng.New(5, "vat"))
		require.NoError(t, err)
		W := testutil.Values(t, v.params[0]) // D×C
		b := testutil.Values(t, v.params[1])
		d0r := rng.New(5, "vat")
		d0 := make([]float64, n*D)
		for i := range d0 {
			d0[i] = d0r.NormFloat64()
		}
		for i := 0; i < n; i++ {
			// p = softmax(x_i W + b)
			z := make([]float64, C)
			for c := 0; c < C; c++ {
				z[c] = b[c]
				for j := 0; j < D; j++ {
					z[c] += float64(x[i*D+j]) * W[j*C+c]
				}
			}
			mx := math.Max(z[0], math.Max(z[1], z[2]))
			s := 0.0
			p := make([]float64, C)
			for c := range z {
				p[c] = math.Exp(z[c] - mx)
				s += p[c]
			}
			for c := range p {
				p[c] /= s
			}
			H := make([]float64, D*D)
			for a := 0; a < D; a++ {
				for bb := 0; bb < D; bb++ {
					for c := 0; c < C; c++ {
						for e := 0; e < C; e++ {
							m := -p[c] * p[e]
							if c == e {
								m += p[c]
							}
							H[a*D+bb] += W[a*C+c] * m * W[bb*C+e]
						}
					}
				}
			}
			u := append([]float64(nil), d0[i*D:(i+1)*D]...)
			for it := 0; it < iters; it++ {
				w := make([]float64, D)
				for a := 0; a < D; a++ {
					for bb := 0; bb < D; bb++ {
						w[a] += H[a*D+bb] * u[bb]
					}
				}
				nn := 0.0
				for _, q := range w {
					nn += q * q
				}
				for a := range w {
					w[a] /= math.Sqrt(nn)
				}
				u = w
			}
			cos := 0.0
			for a := 0; a < D; a++ {
				cos += u[a] * d[i*D+a]
			}
			assert.InDelta(t, 1, cos, 1e-3, "%d iterations, instance %d: cos(direction, closed form) = %v, want 1", iters, i, cos)
		}
		v.Close()
	}
}

// TestVATExactBatchNorm checks LLP-VAT's consistency term with batch norm
// over the whole minibatch (as the authors' runs) on cnn-bn in float64: with
// BNStatsMinibatch the loss and the parameters' gradient do not depend on
// the chunk size (chunks of 1, 4 and 5 instances — the last one padded —
// against one chunk of all 12, which is one pass over the minibatch), to
// 1e-8; with BNStatsChunk and chunks of 5 they differ. The clean pass, both
// power iterations (differentiated with respect to the direction through
// the statistics) and the adversarial pass all take part.
func TestVATExactBatchNorm(t *testing.T) {
	spec := nn.ModelSpec{Name: "cnn-bn", Channels: 1, Height: 4, Width: 4, NumClasses: 3, Dtype: tensor.Float64}
	const n = 12
	src := rng.New(11, "vat-bn")
	x := make([]float32, n*spec.InputDim())
	for i := range x {
		x[i] = float32(2*src.Float64() - 1)
	}
	cfg := VATConfig{Xi: 1e-3, Eps: 0.5, PowerIters: 2}
	run := func(chunk int, stats nn.BNStats) ([]float64, float64) {
		g := gorgonia.NewGraph()
		m, err := models.NewModel(g, spec, rng.New(4, "init"))
		require.NoError(t, err)
		v, err := NewVAT(cpuBackend, g, m, spec, chunk, cfg)
		require.NoError(t, err)
		defer v.Close()
		v.SetBNStats(stats)
		acc := make([][]float64, len(v.params))
		for i, p := range v.params {
			acc[i] = make([]float64, p.Shape().TotalSize())
		}
		l, err := v.Gradient(x, 1, rng.New(3, "vat"), hostAcc(acc))
		require.NoError(t, err)
		var flat []float64
		for _, a := range acc {
			flat = append(flat, a...)
		}
		return flat, l
	}
	want, wantL := run(n, nn.BNStatsMinibatch)
	require.Greater(t, testutil.MaxAbsDiff(want, make([]float64, len(want))), 1e-6, "a non-trivial gradient")
	for _, chunk := range []int{5, 4, 1} {
		got, l := run(chunk, nn.BNStatsMinibatch)
		assert.InDelta(t, wantL, l, 1e-8, "chunk %d: L_cons", chunk)
		assert.Less(t, testutil.MaxAbsDiff(got, want), 1e-8, "chunk %d: gradient", chunk)
	}
	got, _ := run(5, nn.BNStatsChunk)
	assert.Greater(t, testutil.MaxAbsDiff(got, want), 1e-5, "chunk statistics, chunks of 5: a different gradient")
}
