package theory

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// handModel: 𝒳 = {0,1}, C = 2, P_0 = (1, 0), P_1 = (1/2, 1/2), σ = (1/2, 1/2).
// P(0,0) = 1/2, P(1,0) = 0, P(0,1) = 1/4, P(1,1) = 1/4;
// P_X = (3/4, 1/4); η(0) = (2/3, 1/3), η(1) = (0, 1).
func handModel() *FiniteModel {
	return &FiniteModel{Cond: [][]float64{{1, 0}, {.5, .5}}, Prior: []float64{.5, .5}}
}

func TestFiniteModel(t *testing.T) {
	m := handModel()
	px := m.Marginal()
	assert.InDeltaf(t, .75, px[0], 1e-15, "P_X = %v, want (3/4, 1/4)", px)
	assert.InDeltaf(t, .25, px[1], 1e-15, "P_X = %v, want (3/4, 1/4)", px)
	e0, e1 := m.Posterior(0), m.Posterior(1)
	assert.InDeltaf(t, 2./3, e0[0], 1e-15, "η(0) = %v, η(1) = %v; want (2/3,1/3), (0,1)", e0, e1)
	assert.InDeltaf(t, 1, e1[1], 1e-15, "η(0) = %v, η(1) = %v; want (2/3,1/3), (0,1)", e0, e1)
	f := [][]float64{e0, e1}
	// 0-1 risk of the Bayes classifier: 3/4·1/3 + 1/4·0 = 1/4.
	r, err := Risk(ZeroOneLoss, m, f)
	assert.NoError(t, err, "R_01(η)")
	assert.InDeltaf(t, .25, r, 1e-15, "R_01(η) = %g; want 1/4", r)
	b, err := BayesRisk(ZeroOneLoss, m)
	assert.NoError(t, err, "R*_01")
	assert.InDeltaf(t, .25, b, 1e-15, "R*_01 = %g; want 1/4", b)
	// Log risk at η: 3/4·H(2/3,1/3) + 1/4·0 = 3/4·(log 3 − 2/3 log 2).
	want := .75 * (math.Log(3) - 2./3*math.Log(2))
	r, err = Risk(LogLoss, m, f)
	assert.NoError(t, err, "R_log(η)")
	assert.InDeltaf(t, want, r, 1e-15, "R_log(η) = %g; want %g", r, want)
	I := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	r, err = FCRisk(LogLoss, I, m, f)
	assert.NoError(t, err, "R_{ℓ_I,P_I}(η)")
	assert.InDeltaf(t, want, r, 1e-15, "R_{ℓ_I,P_I}(η) = %g; want %g", r, want)
	// 0·∞ = 0: f(1) = (1, 0) puts +Inf log loss on class 1 at x=1, which
	// has probability 1/4 > 0, so the risk is +Inf; at x = 0, class... both > 0.
	r, _ = Risk(LogLoss, m, [][]float64{e0, {1, 0}})
	assert.Truef(t, math.IsInf(r, 1), "R_log with f(1) = e_0: %g, want +Inf", r)
	// P(1, 0) = 0, so f(1) = (0,1) costs nothing for class 0.
	r, _ = Risk(LogLoss, m, [][]float64{e0, {0, 1}})
	assert.Falsef(t, math.IsInf(r, 0) || math.IsNaN(r), "R_log with 0·∞ term: %g, want finite", r)
}

func TestNoisyAndJoint(t *testing.T) {
	m := handModel()
	T := mat.NewDense(2, 2, []float64{.8, .3, .2, .7})
	nm, err := m.Noisy(T)
	require.NoError(t, err)
	// α = Tσ = (0.55, 0.45). P_T(x=0, ỹ=0) = 1/2·0.8 + 1/4·0.3 = 0.475.
	assert.InDeltaf(t, .55, nm.Prior[0], 1e-15, "α = %v, want (0.55, 0.45)", nm.Prior)
	assert.InDeltaf(t, .45, nm.Prior[1], 1e-15, "α = %v, want (0.55, 0.45)", nm.Prior)
	assert.InDeltaf(t, .475/.55, nm.Cond[0][0], 1e-15, "P_T(0|ỹ=0) = %g, want %g", nm.Cond[0][0], .475/.55)
	J, err := m.JointBarPT(T)
	require.NoError(t, err)
	// P̄_T(x=1, y=1, ỹ=0) = P(1,1)·t_{0,1} = 1/4·0.3.
	assert.InDeltaf(t, .075, J[1][1][0], 1e-15, "P̄_T(1,1,0) = %g, want 0.075", J[1][1][0])
	z, err := m.Reweighted([]float64{1, 0})
	if assert.NoError(t, err, "P_z with z = e_0") {
		assert.Equalf(t, 1.0, z.Joint(0, 0), "P_z with z = e_0: %v", z)
		assert.Equalf(t, 0.0, z.Joint(0, 1), "P_z with z = e_0: %v", z)
	}
}

func TestLMNTMRiskAndTheta(t *testing.T) {
	m := handModel()
	C := 2
	mk := func(a float64) *mat.Dense { // (1−a)I + aN
		T := mat.NewDense(C, C, nil)
		for i := 0; i < C; i++ {
			for j := 0; j < C; j++ {
				v := a / float64(C)
				if i == j {
					v += 1 - a
				}
				T.Set(i, j, v)
			}
		}
		return T
	}
	Ts := []mat.Matrix{mk(.2), mk(.6)}
	w := []float64{.25, .75}
	f := [][]float64{m.Posterior(0), m.Posterior(1)}
	r, err := LMNTMRisk(LogLoss, Ts, w, m, f)
	require.NoError(t, err)
	b, err := LMNTMBayesRisk(LogLoss, Ts, w, m)
	require.NoError(t, err)
	assert.InDeltaf(t, b, r, 1e-15, "R̃(η) = %.17g, R̃* = %.17g; want equal", r, b)
	r0, _ := FCRisk(LogLoss, Ts[0], m, f)
	r1, _ := FCRisk(LogLoss, Ts[1], m, f)
	assert.InDeltaf(t, .25*r0+.75*r1, r, 1e-15, "R̃ = %g, want Σ w_i R_i = %g", r, .25*r0+.75*r1)
	// ‖T⁻¹‖₁ = (1+(1−2/C)a)/(1−a) = 1/(1−a) for C = 2 (Section 3).
	th, err := LMNTMTheta(Ts, w, .3)
	require.NoError(t, err)
	want := .3 * .3 / 2 * (.25*.8*.8 + .75*.4*.4)
	assert.InDeltaf(t, want, th, 1e-15, "θ(0.3) = %.17g, want %.17g", th, want)
}

func TestEmpiricalLMNTMRisk(t *testing.T) {
	I := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	preds := [][][][]float64{{{{.5, .5}}, {{.25, .75}, {.75, .25}}}}
	got, err := EmpiricalLMNTMRisk(LogLoss, []mat.Matrix{I}, []float64{1}, [][]float64{{.5, .5}}, preds)
	require.NoError(t, err)
	want := .5*math.Log(2) + .5/2*(-math.Log(.75)-math.Log(.25))
	assert.InDeltaf(t, want, got, 1e-15, "R̂ = %.17g, want %.17g", got, want)
	_, err = EmpiricalLMNTMRisk(LogLoss, []mat.Matrix{I}, []float64{1}, [][]float64{{.5, .5}}, [][][][]float64{{{{.5, .5}}, {}}})
	assert.ErrorContainsf(t, err, "preds[0][1]: empty", "empty class sample: error %v", err)
}

func TestIdealAlphaAndHull(t *testing.T) {
	G := mat.NewDense(2, 2, []float64{.8, .2, .3, .7})
	// σ = Γᵀ(1/2, 1/2) = (0.55, 0.45).
	a, err := IdealAlpha(G, []float64{.55, .45})
	if assert.NoError(t, err, "IdealAlpha") {
		assert.InDeltaf(t, .5, a[0], 1e-15, "IdealAlpha = %v; want (1/2, 1/2)", a)
		assert.InDeltaf(t, .5, a[1], 1e-15, "IdealAlpha = %v; want (1/2, 1/2)", a)
	}
	ok, margin, err := HullInterior(G, []float64{.55, .45})
	assert.NoError(t, err, "HullInterior")
	assert.Truef(t, ok, "HullInterior = %v, %g; want true with margin 1/2 (= min α)", ok, margin)
	assert.InDeltaf(t, .5, margin, 1e-12, "HullInterior = %v, %g; want true with margin 1/2 (= min α)", ok, margin)
	// σ = (0.9, 0.1): α = (1.2, −0.2) by hand: outside the hull.
	_, err = IdealAlpha(G, []float64{.9, .1})
	assert.ErrorIsf(t, err, ErrAssumption, "outside: error %v, want ErrAssumption naming entry 1", err)
	assert.ErrorContainsf(t, err, "entry 1", "outside: error %v, want ErrAssumption naming entry 1", err)
	ok, _, err = HullInterior(G, []float64{.9, .1})
	assert.Falsef(t, ok, "outside: HullInterior = %v, %v; want false", ok, err)
	assert.NoErrorf(t, err, "outside: HullInterior = %v, %v; want false", ok, err)
	// Identical bags: Γ singular.
	S := mat.NewDense(2, 2, []float64{.5, .5, .5, .5})
	_, err = IdealAlpha(S, []float64{.5, .5})
	assert.ErrorIsf(t, err, ErrAssumption, "singular: error %v", err)
	assert.ErrorContainsf(t, err, "singular", "singular: error %v", err)
	ok, _ = AssumptionCH(S, []float64{.5, .5})
	assert.False(t, ok, "singular: AssumptionCH true")
	ok, _, _ = HullInterior(S, []float64{.5, .5})
	assert.False(t, ok, "singular: HullInterior true")
	// σ on an edge of the hull: σ = γ_1 exactly (α = (1, 0)).
	ok, _ = AssumptionCH(G, []float64{.8, .2})
	assert.False(t, ok, "vertex: AssumptionCH true")
	ok, _, _ = HullInterior(G, []float64{.8, .2})
	assert.False(t, ok, "vertex: HullInterior true")
	ok, failing, err := AssumptionAllGroups([]mat.Matrix{G, S, G}, []float64{.55, .45})
	assert.NoError(t, err, "AssumptionAllGroups")
	assert.Falsef(t, ok, "AssumptionAllGroups = %v, %v; want false, [1]", ok, failing)
	assert.Equalf(t, []int{1}, failing, "AssumptionAllGroups = %v, %v; want false, [1]", ok, failing)
	// Malformed input is an error, not a verdict.
	_, err = AssumptionCH(G, []float64{.5, .4})
	assert.ErrorContainsf(t, err, "sigma", "bad sigma: error %v", err)
	_, err = IdealAlpha(mat.NewDense(2, 2, []float64{.5, .6, .5, .5}), []float64{.5, .5})
	assert.ErrorContainsf(t, err, "gamma row 0", "bad gamma: error %v", err)
}

func TestLMNTMErrors(t *testing.T) {
	m := handModel()
	I := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	bad := mat.NewDense(2, 2, []float64{1, .5, 0, .4})
	f := [][]float64{{.5, .5}, {.5, .5}}
	for _, tc := range []struct {
		name, want string
		err        error
	}{
		{"cond sums", "model.Cond[1]", (&FiniteModel{Cond: [][]float64{{1, 0}, {.5, .4}}, Prior: []float64{.5, .5}}).Validate()},
		{"cond count", "model.Cond: has 1", (&FiniteModel{Cond: [][]float64{{1, 0}}, Prior: []float64{.5, .5}}).Validate()},
		{"predictor length", "f: has 1 points", func() error { _, err := Risk(LogLoss, m, f[:1]); return err }()},
		{"predictor simplex", "f[1]", func() error { _, err := Risk(LogLoss, m, [][]float64{{.5, .5}, {.5, .6}}); return err }()},
		{"T not stochastic", "column 1", func() error { _, err := FCRisk(LogLoss, bad, m, f); return err }()},
		{"w length", "w: has 1 entries, want N=2", func() error {
			_, err := LMNTMRisk(LogLoss, []mat.Matrix{I, I}, []float64{1}, m, f)
			return err
		}()},
		{"theta eps", "eps", func() error { _, err := LMNTMTheta([]mat.Matrix{I}, []float64{1}, -1); return err }()},
		{"theta singular", "Ts[0]: T: singular", func() error {
			_, err := LMNTMTheta([]mat.Matrix{mat.NewDense(2, 2, []float64{.5, .5, .5, .5})}, []float64{1}, 1)
			return err
		}()},
		{"noisy zero prior", "noisy prior α(1)", func() error {
			_, err := m.Noisy(mat.NewDense(2, 2, []float64{1, 1, 0, 0}))
			return err
		}()},
	} {
		assert.ErrorContainsf(t, tc.err, tc.want, "%s: error %v, want one containing %q", tc.name, tc.err, tc.want)
	}
}

// TestHullInteriorGonumLPPanic is a regression test for a gonum v0.17 bug:
// lp.Simplex panics ("subcolumns of A for supplied initial basic singular")
// in its own Phase I on this well-posed degenerate LP (σ = γ_3, a vertex of
// the hull; found by the `grouping assumption: ch` checker). HullInterior
// must still decide it: σ at a vertex is not interior.
func TestHullInteriorGonumLPPanic(t *testing.T) {
	A := []float64{ // the LP matrix [Γᵀ | Γᵀ1], 3×4, row-major
		2.8025513906952554e-06, 0.00028567066694114404, 0.9723398279542461, 0.9726283011725779,
		0.999989699086415, 0.9996708738434505, 0.0006828256779943616, 2.00034339860786,
		7.498362194325842e-06, 4.3455489608264945e-05, 0.026977346367759513, 0.027028300219562103,
	}
	sigma := []float64{0.9723398279542461, 0.0006828256779943616, 0.026977346367759513}
	G := mat.NewDense(3, 3, nil)
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			G.Set(i, j, A[j*4+i])
		}
	}
	panicked := func() (p bool) {
		defer func() { p = recover() != nil }()
		_, _, _ = lp.Simplex([]float64{0, 0, 0, -1}, mat.NewDense(3, 4, A), sigma, 1e-12, nil)
		return false
	}()
	t.Logf("gonum lp.Simplex panics on this LP: %v", panicked)
	ok, margin, err := HullInterior(G, sigma)
	assert.NoErrorf(t, err, "HullInterior = %v (margin %g), %v; want false, nil (σ = γ_3 is a vertex)", ok, margin, err)
	assert.Falsef(t, ok, "HullInterior = %v (margin %g), %v; want false, nil (σ = γ_3 is a vertex)", ok, margin, err)
	ok, err = AssumptionCH(G, sigma)
	assert.NoErrorf(t, err, "AssumptionCH = %v, %v; want false", ok, err)
	assert.Falsef(t, ok, "AssumptionCH = %v, %v; want false", ok, err)
}

func BenchmarkHullInterior(b *testing.B) {
	G := mat.NewDense(3, 3, []float64{.7, .2, .1, .1, .8, .1, .2, .2, .6})
	sigma, _ := NoisyToCleanPrior(G, []float64{.3, .3, .4})
	for b.Loop() {
		_, _, _ = HullInterior(G, sigma)
	}
}

func BenchmarkEmpiricalLMNTMRisk(b *testing.B) {
	const C, N, n = 10, 8, 64
	T := mat.NewDense(C, C, nil)
	for i := 0; i < C; i++ {
		for j := 0; j < C; j++ {
			v := 0.5 / C
			if i == j {
				v += 0.5
			}
			T.Set(i, j, v)
		}
	}
	Ts := make([]mat.Matrix, N)
	w := make([]float64, N)
	alpha := make([][]float64, N)
	preds := make([][][][]float64, N)
	q := make([]float64, C)
	for c := range q {
		q[c] = 1. / C
	}
	for i := range Ts {
		Ts[i], w[i] = T, 1./N
		alpha[i] = q
		preds[i] = make([][][]float64, C)
		for c := range preds[i] {
			preds[i][c] = make([][]float64, n)
			for j := range preds[i][c] {
				preds[i][c][j] = q
			}
		}
	}
	for b.Loop() {
		_, _ = EmpiricalLMNTMRisk(LogLoss, Ts, w, alpha, preds)
	}
}
