package loss

import (
	"math"
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

// fcRowsAndWeights draws rows of random column-stochastic matrices (rows need
// not sum to one) and positive weights, with one zero weight (a padding row).
func fcRowsAndWeights(n, c int, seed int64) (r, w []float64) {
	s := rng.New(seed, "fc-test")
	r = testutil.RandSlice(s, n*c, 0.01, 1)
	w = testutil.RandSlice(s, n, 0.1, 2)
	w[n-1] = 0
	return r, w
}

// TestFCLossValue compares the fused op with the definition
// −Σ w_i log(Σ_j R_ij softmax(z_i)_j) computed directly in float64.
func TestFCLossValue(t *testing.T) {
	const n, c = 6, 4
	s := rng.New(2, "fc-value")
	z := testutil.RandSlice(s, n*c, -30, 30) // large logits: the stable form must not overflow
	r, w := fcRowsAndWeights(n, c, 3)
	var want float64
	for i := 0; i < n; i++ {
		var den, num float64
		for j := 0; j < c; j++ {
			den += math.Exp(z[i*c+j] / 10) // scaled so the naive form is finite
		}
		for j := 0; j < c; j++ {
			num += r[i*c+j] * math.Exp(z[i*c+j]/10) / den
		}
		want -= w[i] * math.Log(num+FCFloor)
	}
	for i := range z {
		z[i] /= 10
	}
	g := gorgonia.NewGraph()
	zn := testutil.ConstInput(g, "z", tensor.Shape{n, c}, z)
	rn := testutil.ConstInput(g, "r", tensor.Shape{n, c}, r)
	wn := testutil.ConstInput(g, "w", tensor.Shape{n}, w)
	loss, err := FCLoss(zn, rn, wn)
	require.NoError(t, err)
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	require.NoError(t, vm.RunAll())
	got, _ := nn.ScalarOf(loss.Value())
	assert.LessOrEqual(t, math.Abs(got-want), 1e-12*math.Max(1, math.Abs(want)), "FC loss %.15g, want %.15g", got, want)
	// Huge logits: finite, and equal to the shifted computation.
	for i := range z {
		z[i] *= 1e3
	}
	vm.Reset()
	require.NoError(t, vm.RunAll())
	if got, _ := nn.ScalarOf(loss.Value()); math.IsNaN(got) || math.IsInf(got, 0) {
		t.Errorf("FC loss with logits up to 3e4: %v, want finite", got)
	}
}

// TestFCLossGradFiniteDifference checks ∂loss/∂θ of the FC loss on a tiny
// tanh network (float64 graph) against central finite differences, for
// every parameter.
func TestFCLossGradFiniteDifference(t *testing.T) {
	const n, d, c = 7, 4, 3
	g := gorgonia.NewGraph()
	m, err := models.NewModel(g, nn.ModelSpec{Name: "test-tiny", Features: d, NumClasses: c, Dtype: tensor.Float64}, rng.New(4, "init"))
	require.NoError(t, err)
	x := testutil.ConstInput(g, "x", tensor.Shape{n, d}, testutil.RandSlice(rng.New(5, "x"), n*d, -2, 2))
	r, w := fcRowsAndWeights(n, c, 6)
	z, err := m.Forward(x, true)
	require.NoError(t, err)
	loss, err := FCLoss(z, testutil.ConstInput(g, "r", tensor.Shape{n, c}, r), testutil.ConstInput(g, "w", tensor.Shape{n}, w))
	require.NoError(t, err)
	testutil.CheckGradFD(t, g, loss, m.Learnables(), 1e-6, 1e-7)
}

// TestFCLossGradThroughAScaledRoot checks the FC gradient when the loss is
// not the root of the graph — cost = 2.5·FCLoss + Σz², so the upstream
// gradient handed to the op is 2.5, not 1 — against central finite
// differences of cost, for every parameter of a tiny tanh network (a
// gradient op that ignored its upstream gradient would be right only at
// the root).
func TestFCLossGradThroughAScaledRoot(t *testing.T) {
	const n, d, c = 7, 4, 3
	g := gorgonia.NewGraph()
	m, err := models.NewModel(g, nn.ModelSpec{Name: "test-tiny", Features: d, NumClasses: c, Dtype: tensor.Float64}, rng.New(8, "init"))
	require.NoError(t, err)
	x := testutil.ConstInput(g, "x", tensor.Shape{n, d}, testutil.RandSlice(rng.New(9, "x"), n*d, -2, 2))
	r, w := fcRowsAndWeights(n, c, 10)
	z, err := m.Forward(x, true)
	require.NoError(t, err)
	loss, err := FCLoss(z, testutil.ConstInput(g, "r", tensor.Shape{n, c}, r), testutil.ConstInput(g, "w", tensor.Shape{n}, w))
	require.NoError(t, err)
	scaled, err := gorgonia.Mul(loss, nn.ScalarConst(tensor.Float64, 2.5))
	require.NoError(t, err)
	sq, err := gorgonia.Square(z)
	require.NoError(t, err)
	reg, err := gorgonia.Sum(sq)
	require.NoError(t, err)
	cost, err := gorgonia.Add(scaled, reg)
	require.NoError(t, err)
	testutil.CheckGradFD(t, g, cost, m.Learnables(), 1e-6, 1e-7)
}

// TestFCLossFloat32MatchesFloat64 checks the float32 op against float64.
func TestFCLossFloat32MatchesFloat64(t *testing.T) {
	const n, c = 5, 3
	z := testutil.RandSlice(rng.New(7, "z"), n*c, -5, 5)
	r, w := fcRowsAndWeights(n, c, 8)
	eval := func(dt tensor.Dtype) (float64, []float64) {
		g := gorgonia.NewGraph()
		mk := func(name string, s tensor.Shape, v []float64) *gorgonia.Node {
			if dt == tensor.Float64 {
				return testutil.ConstInput(g, name, s, v)
			}
			f := make([]float32, len(v))
			for i := range v {
				f[i] = float32(v[i])
			}
			return gorgonia.NewTensor(g, dt, len(s), gorgonia.WithShape(s...), gorgonia.WithName(name), gorgonia.WithValue(tensor.New(tensor.WithShape(s...), tensor.WithBacking(f))))
		}
		zn := mk("z", tensor.Shape{n, c}, z)
		loss, err := FCLoss(zn, mk("r", tensor.Shape{n, c}, r), mk("w", tensor.Shape{n}, w))
		require.NoError(t, err)
		gr, err := gorgonia.Grad(loss, zn)
		require.NoError(t, err)
		vm := gorgonia.NewTapeMachine(g)
		defer vm.Close()
		require.NoError(t, vm.RunAll())
		l, _ := nn.ScalarOf(loss.Value())
		var out []float64
		switch d := gr[0].Value().Data().(type) {
		case []float32:
			for _, v := range d {
				out = append(out, float64(v))
			}
		case []float64:
			out = append(out, d...)
		}
		return l, out
	}
	l64, g64 := eval(tensor.Float64)
	l32, g32 := eval(tensor.Float32)
	assert.LessOrEqual(t, math.Abs(l64-l32), 1e-5*math.Max(1, math.Abs(l64)), "float32 loss %v, float64 %v", l32, l64)
	for i := range g64 {
		assert.InDelta(t, g32[i], g64[i], 1e-5, "dz[%d]: float32 %v, float64 %v", i, g32[i], g64[i])
	}
}

func TestFCLossShapeErrors(t *testing.T) {
	g := gorgonia.NewGraph()
	z := testutil.ConstInput(g, "z", tensor.Shape{3, 2}, make([]float64, 6))
	if _, err := FCLoss(z, testutil.ConstInput(g, "r", tensor.Shape{2, 3}, make([]float64, 6)), testutil.ConstInput(g, "w", tensor.Shape{3}, make([]float64, 3))); err == nil {
		t.Error("mismatched R shape: no error")
	}
	if _, err := FCLoss(z, testutil.ConstInput(g, "r2", tensor.Shape{3, 2}, make([]float64, 6)), testutil.ConstInput(g, "w2", tensor.Shape{2}, make([]float64, 2))); err == nil {
		t.Error("short weights: no error")
	}
}
