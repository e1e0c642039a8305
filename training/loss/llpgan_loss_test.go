package loss

import (
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/internal/testutil"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// ganFixture: B = 2 bags of sizes 2 and 3 (n = 5 real instances), 4 fake
// instances, C = 3 classes, inputs of dimension 4, a tiny discriminator and
// a tiny generator z (dimension 2) → tanh(zW + b).
func ganFixture(t *testing.T) (g *gorgonia.ExprGraph, d *tinyNet, gen *nn.Dense, x, z, fakeIn, avg, props *gorgonia.Node) {
	g = gorgonia.NewGraph()
	dt := tensor.Float64
	d = newTinyNet(g, 4, 3, 3, false, rng.New(1, "init-d"))
	gen = nn.NewDense(g, dt, "gen", 2, 4, rng.New(1, "init-g"))
	r := rng.New(2, "data")
	x = testutil.RandInput(g, dt, "x", tensor.Shape{5, 4}, r)
	z = testutil.RandInput(g, dt, "z", tensor.Shape{4, 2}, r)
	fakeIn = testutil.RandInput(g, dt, "fake", tensor.Shape{4, 4}, r)
	avg = gorgonia.NewMatrix(g, dt, gorgonia.WithShape(2, 5), gorgonia.WithName("avg"), gorgonia.WithValue(tensor.New(tensor.WithShape(2, 5), tensor.WithBacking([]float64{
		0.5, 0.5, 0, 0, 0,
		0, 0, 1. / 3, 1. / 3, 1. / 3,
	}))))
	props = gorgonia.NewMatrix(g, dt, gorgonia.WithShape(2, 3), gorgonia.WithName("props"), gorgonia.WithValue(tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]float64{
		0.5, 0.5, 0,
		1. / 3, 0, 2. / 3,
	}))))
	return
}

// TestLLPGANDiscriminatorLossMatchesDefinition: the loss equals the
// appendix's three terms computed directly with an explicit (C+1)-way
// softmax whose last logit is 0, and its gradient with respect to the
// discriminator's parameters (generated images held fixed, as the
// reference's gen(noise).detach()) equals central differences.
func TestLLPGANDiscriminatorLossMatchesDefinition(t *testing.T) {
	g, d, _, x, _, fakeIn, avg, props := ganFixture(t)
	zr, err := d.Forward(x, true)
	require.NoError(t, err)
	zf, err := d.Forward(fakeIn, true)
	require.NoError(t, err)
	loss, err := LLPGANDiscriminatorLoss(zr, zf, avg, props)
	require.NoError(t, err)
	testutil.GradCheck(t, g, loss, d.Learnables(), 40, 1e-6, 1e-6, nil)

	// Direct value.
	zrv, zfv, lv := testutil.Values(t, zr), testutil.Values(t, zf), testutil.Values(t, loss)[0]
	const C = 3
	f := func(z []float64) []float64 { // (C+1)-way softmax with z_{C+1} = 0
		s := 1.0
		for _, v := range z {
			s += math.Exp(v)
		}
		out := make([]float64, C+1)
		for c, v := range z {
			out[c] = math.Exp(v) / s
		}
		out[C] = 1 / s
		return out
	}
	bags := [][]int{{0, 1}, {2, 3, 4}}
	gam := [][]float64{{0.5, 0.5, 0}, {1. / 3, 0, 2. / 3}}
	var t1, t2, t3 float64
	for k, bag := range bags {
		m := float64(len(bag))
		for _, j := range bag {
			p := f(zrv[j*C : (j+1)*C])
			t1 -= math.Log(p[0]+p[1]+p[2]) / m
			for c := 0; c < C; c++ {
				t3 -= gam[k][c] / m * math.Log(p[c]) / (2 * C)
			}
		}
	}
	for j := 0; j < 4; j++ {
		t2 -= math.Log(f(zfv[j*C : (j+1)*C])[C]) / 4
	}
	want := t1 + t2 + t3
	assert.InDelta(t, want, lv, 1e-12, "L_D = %v, want %v (terms %v, %v, %v)", lv, want, t1, t2, t3)
}

// TestLLPGANGeneratorLossMatchesDefinition: L_G = (1/n) Σ_j ‖f_conv(X_j) −
// f_conv(g(Z_j))‖² against a direct sum, and its gradient with respect to
// the generator's parameters (through the discriminator's features)
// against central differences.
func TestLLPGANGeneratorLossMatchesDefinition(t *testing.T) {
	g, d, gen, x, z, _, _, _ := ganFixture(t)
	fake, err := gen.Forward(z)
	require.NoError(t, err)
	if fake, err = gorgonia.Tanh(fake); err != nil {
		t.Fatal(err)
	}
	real4, err := gorgonia.Slice(x, gorgonia.S(0, 4))
	require.NoError(t, err)
	_, fr, err := d.ForwardFeatures(real4, true)
	require.NoError(t, err)
	_, ff, err := d.ForwardFeatures(fake, true)
	require.NoError(t, err)
	loss, err := LLPGANGeneratorLoss(fr, ff)
	require.NoError(t, err)
	testutil.GradCheck(t, g, loss, gen.Learnables(), 40, 1e-6, 1e-6, nil)
	// Direct value from the parameters (intermediate node values may be
	// reused registers after the run, so features are recomputed here).
	lv := testutil.Values(t, loss)[0]
	W1, b1 := testutil.Values(t, d.l1.W), testutil.Values(t, d.l1.B)
	Wg, bg := testutil.Values(t, gen.W), testutil.Values(t, gen.B)
	xv, zv := testutil.Values(t, x), testutil.Values(t, z)
	feat := func(in []float64) []float64 {
		out := make([]float64, 3)
		for h := 0; h < 3; h++ {
			s := b1[h]
			for j := 0; j < 4; j++ {
				s += in[j] * W1[j*3+h]
			}
			out[h] = math.Tanh(s)
		}
		return out
	}
	want := 0.0
	for i := 0; i < 4; i++ {
		img := make([]float64, 4)
		for o := 0; o < 4; o++ {
			s := bg[o]
			for j := 0; j < 2; j++ {
				s += zv[i*2+j] * Wg[j*4+o]
			}
			img[o] = math.Tanh(s)
		}
		a, b := feat(xv[i*4:(i+1)*4]), feat(img)
		for h := range a {
			want += (a[h] - b[h]) * (a[h] - b[h]) / 4
		}
	}
	// lv comes from gradCheck's last run, at one parameter minus h = 1e-6.
	assert.InDelta(t, want, lv, 1e-6, "L_G = %v, want %v", lv, want)
}

func TestLLPGANLossesRejectBadShapes(t *testing.T) {
	g := gorgonia.NewGraph()
	r := rng.New(1, "x")
	a := testutil.RandInput(g, tensor.Float64, "a", tensor.Shape{5, 3}, r)
	b := testutil.RandInput(g, tensor.Float64, "b", tensor.Shape{4, 2}, r)
	avg := testutil.RandInput(g, tensor.Float64, "avg", tensor.Shape{2, 5}, r)
	props := testutil.RandInput(g, tensor.Float64, "p", tensor.Shape{2, 3}, r)
	if _, err := LLPGANDiscriminatorLoss(a, b, avg, props); err == nil {
		t.Error("fake logits with 2 classes: no error")
	}
	if _, err := LLPGANGeneratorLoss(a, b); err == nil {
		t.Error("features 5×3 and 4×2: no error")
	}
}
