package theory

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// radTestSetting: N = 2 groups, C = 2 classes, all numbers small enough to
// evaluate the bounds by hand.
func radTestSetting() LMNTMSetting {
	return LMNTMSetting{
		W:     []float64{0.25, 0.75},
		Alpha: [][]float64{{0.5, 0.5}, {0.2, 0.8}},
		N:     [][]int{{4, 1}, {2, 8}},
		Lip:   []float64{1, 2},
		Lip0:  []float64{0.5, 0},
	}
}

func TestConcentrationTermByHand(t *testing.T) {
	s := radTestSetting()
	// A = 1: group 1: b = 1·1+0.5 = 1.5; Σ_c w²α²/n = 0.0625·(0.25/4 + 0.25/1) = 0.01953125
	// group 2: b = 2; 0.5625·(0.04/2 + 0.64/8) = 0.05625.
	// V = 0.01953125·2.25 + 0.05625·4 = 0.268945...
	V := 0.01953125*2.25 + 0.05625*4
	for _, delta := range []float64{0.05, 0.5, 1} {
		got, err := s.ConcentrationTerm(delta, 1)
		require.NoError(t, err)
		want := math.Sqrt(2 * math.Log(2/delta) * V)
		assert.InDeltaf(t, want, got, 1e-14, "δ=%g: %g, want %g", delta, got, want)
	}
	rl, _ := RadLipsBound(s, 0.1, 1, 0.3)
	assert.InDeltaf(t, math.Sqrt(2*math.Log(20)*V)+0.6, rl, 1e-14, "RadLipsBound = %g", rl)
	lg, _ := LemmaGenBound(s, 0.1, 1, 0.3)
	assert.InDeltaf(t, math.Sqrt(2*math.Log(20)*V)+2*math.Sqrt2*0.3, lg, 1e-14, "LemmaGenBound = %g", lg)
}

// The weight factor of GEBBound against theory.WeightTerm (Section 4.3,
// written independently), and ClassGEBBound ≤ GEBBound (α_i(c) ≤ 1).
func TestGEBBoundByHand(t *testing.T) {
	s := radTestSetting()
	A, B, delta := 2.0, 0.7, 0.05
	n := [][]float64{{4, 1}, {2, 8}}
	wt, err := WeightTerm(s.W, n)
	require.NoError(t, err)
	maxB := math.Max(1*A+0.5, 2*A+0)
	want := (maxB*math.Sqrt(2*math.Log(2/delta)) + 2*B*2) * wt
	got, err := GEBBound(s, delta, A, B)
	require.NoError(t, err)
	assert.InDeltaf(t, want, got, 1e-13, "GEBBound = %g, want %g", got, want)
	cg, err := ClassGEBBound(s, delta, A, B)
	require.NoError(t, err)
	num := 0.0625*(0.25/4+0.25/1) + 0.5625*(0.04/2+0.64/8)
	wantC := want / wt * math.Sqrt(num)
	assert.InDeltaf(t, wantC, cg, 1e-13, "ClassGEBBound = %g, want %g ≤ GEBBound %g", cg, wantC, got)
	assert.LessOrEqualf(t, cg, got, "ClassGEBBound = %g, want %g ≤ GEBBound %g", cg, wantC, got)
}

func TestClassConstants(t *testing.T) {
	assert.InDelta(t, 2*math.Sqrt2*1.5, B1(3, 0.5), 1e-15, "B1")
	assert.InDelta(t, 2*math.Sqrt2*2*4*0.125, B2(3, 2, 0.5), 1e-15, "B2")
	assert.InDelta(t, math.Sqrt2*1.5, A1(2, 3, 0.5), 1e-15, "A1")
	assert.InDelta(t, 2*0.5*8.0, A2(4, 3, 0.5, 2), 1e-15, "A2")
	kr, _ := KernelRadBound(3, 2, 0.5, []float64{3, 4})
	assert.InDelta(t, 15, kr, 1e-14, "KernelRadBound, want 3·2·0.5·5 = 15")
	kd, _ := KernelRadBoundDiag(2, 1, []float64{3, 4}, []float64{1, 0.25})
	assert.InDelta(t, 2*math.Sqrt(13), kd, 1e-14, "KernelRadBoundDiag, want 2√13")
	mr, _ := MLPRadBound(2, 3, 0.5, 2, []float64{3, 4})
	assert.InDelta(t, 2*0.5*4*8*5, mr, 1e-12, "MLPRadBound, want 160")
}

func TestNewLogLossSetting(t *testing.T) {
	T := mat.NewDense(2, 2, []float64{0.9, 0.3, 0.1, 0.7}) // rows sum to 1.2 and 0.8
	s, err := NewLogLossSetting([]mat.Matrix{T}, []float64{1}, [][]float64{{0.4, 0.6}}, [][]int{{3, 5}})
	require.NoError(t, err)
	assert.Equalf(t, math.Sqrt2, s.Lip[0], "Lip = %g, want √2", s.Lip[0])
	assert.InDeltaf(t, -math.Log(0.8/2), s.Lip0[0], 1e-14, "Lip0 = %g, want −log(0.4)", s.Lip0[0])
	pw := s.PointWeights()
	if assert.Lenf(t, pw, 8, "PointWeights = %v", pw) {
		assert.InDeltaf(t, 0.4/3, pw[0], 1e-15, "PointWeights = %v", pw)
		assert.InDeltaf(t, 0.6/5, pw[7], 1e-15, "PointWeights = %v", pw)
	}
}

func TestBoundsErrors(t *testing.T) {
	good := radTestSetting()
	bad := func(f func(*LMNTMSetting)) LMNTMSetting {
		s := radTestSetting()
		f(&s)
		return s
	}
	cases := []struct {
		name, want string
		err        error
	}{
		{"delta 0", "delta:", func() error { _, err := good.ConcentrationTerm(0, 1); return err }()},
		{"delta > 1", "delta:", func() error { _, err := GEBBound(good, 1.5, 1, 1); return err }()},
		{"A", "A:", func() error { _, err := good.ConcentrationTerm(0.1, -1); return err }()},
		{"weights", "W:", bad(func(s *LMNTMSetting) { s.W = []float64{0.5, 0.6} }).Validate()},
		{"alpha interior", "Alpha[1]", bad(func(s *LMNTMSetting) { s.Alpha[1] = []float64{0, 1} }).Validate()},
		{"n", "N[0][1]", bad(func(s *LMNTMSetting) { s.N[0][1] = 0 }).Validate()},
		{"lip", "Lip0[0]", bad(func(s *LMNTMSetting) { s.Lip0[0] = math.NaN() }).Validate()},
		{"lengths", "Alpha, N, Lip, Lip0", bad(func(s *LMNTMSetting) { s.Lip = s.Lip[:1] }).Validate()},
		{"rad", "radVec:", func() error { _, err := LemmaGenBound(good, 0.1, 1, -1); return err }()},
		{"C", "C:", func() error { _, err := KernelRadBound(0, 1, 1, []float64{1}); return err }()},
		{"diag", "diag:", func() error { _, err := KernelRadBoundDiag(1, 1, []float64{1}, []float64{1, 2}); return err }()},
		{"m", "C, m:", func() error { _, err := MLPRadBound(1, 0, 1, 1, []float64{1}); return err }()},
		{"T", "Ts[0]", func() error {
			_, err := NewLogLossSetting([]mat.Matrix{mat.NewDense(2, 2, []float64{1, 1, 1, 1})}, []float64{1}, [][]float64{{0.5, 0.5}}, [][]int{{1, 1}})
			return err
		}()},
	}
	for _, c := range cases {
		assert.ErrorContainsf(t, c.err, c.want, "%s: error %v, want one containing %q", c.name, c.err, c.want)
	}
}

// Finding (PAPER_MAP.md, Findings, "Section 4.3 and Appendix C"): Lemma `lemma: gen` as printed
// has the factor 2 where its proof (Lemma `rad.lips.lemma`, factor 2, then
// Lemma `multi.rad.lemma`, factor √2) gives 2√2, and the √2 cannot be
// dropped even for the paper's own loss. With T = I the composite log loss
// λ(·, 1) has Lipschitz constant exactly √2; on one point with the class
// ℋ = {0, (−t, t)}:
//
//	E_ε sup_f ε·λ(f(x)) = ½(λ((−t,t),1) − λ(0,1)) = ½(log(1+e^{2t}) − log 2) ≈ t − 0.35,
//	|λ|·E sup_f Σ_c ε_c f_c(x) = √2·E max(0, t(ε₂−ε₁)) = √2·t/2 ≈ 0.707·t,
//
// so the contraction step fails without √2, and holds with it (t ≥ t − 0.35).
func TestLemmaGenNeedsSqrt2(t *testing.T) {
	I := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	for _, tt := range []float64{1, 5, 50} {
		l1, err := CompositeFC(I, []float64{-tt, tt}, 0)
		require.NoError(t, err)
		l0, _ := CompositeFC(I, []float64{0, 0}, 0)
		lhs := math.Abs(l1-l0) / 2 // E_ε max(ε·l1, ε·l0) = ½(max − min)
		values := []mat.Matrix{mat.NewDense(1, 2, []float64{0, 0}), mat.NewDense(1, 2, []float64{-tt, tt})}
		sup, err := FiniteVectorClassSup(values, []float64{math.Sqrt2})
		require.NoError(t, err)
		rhsNoSqrt2, _ := WeightedRadExact(2, sup)
		require.InDeltaf(t, math.Sqrt2*tt/2, rhsNoSqrt2, 1e-12, "t=%g: |λ|·E sup = %g, want √2·t/2", tt, rhsNoSqrt2)
		assert.LessOrEqualf(t, lhs, math.Sqrt2*rhsNoSqrt2+1e-12, "t=%g: contraction with √2 fails: %g > %g", tt, lhs, math.Sqrt2*rhsNoSqrt2)
		if tt >= 5 {
			assert.Greaterf(t, lhs, rhsNoSqrt2, "t=%g: expected the √2-free contraction to fail (%g ≤ %g)", tt, lhs, rhsNoSqrt2)
		}
	}
}
