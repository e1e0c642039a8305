package theory

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNoisyAndFCInnerRisks(t *testing.T) {
	T := mat.NewDense(2, 2, []float64{0.8, 0.3, 0.2, 0.7})
	eta := []float64{0.6, 0.4}
	q := []float64{0.1, 0.9}
	// Tη = (0.6, 0.4)·… = (0.8·0.6+0.3·0.4, 0.2·0.6+0.7·0.4) = (0.6, 0.4);
	// Tq = (0.08+0.27, 0.02+0.63) = (0.35, 0.65).
	te, err := NoisyPosterior(T, eta)
	require.NoError(t, err)
	require.InDeltaf(t, 0.6, te[0], 1e-15, "NoisyPosterior = %v; want (0.6, 0.4)", te)
	require.InDeltaf(t, 0.4, te[1], 1e-15, "NoisyPosterior = %v; want (0.6, 0.4)", te)
	r, err := InnerRiskFC(LogLoss, T, eta, q)
	assert.NoError(t, err)
	assert.InDeltaf(t, -0.6*math.Log(0.35)-0.4*math.Log(0.65), r, 1e-15, "InnerRiskFC = %v", r)
	m, err := MinInnerRiskFC(LogLoss, T, eta)
	assert.NoError(t, err)
	assert.InDeltaf(t, -0.6*math.Log(0.6)-0.4*math.Log(0.4), m, 1e-15, "MinInnerRiskFC = %v", m)
	// C2 = KL((0.6,0.4)‖(0.35,0.65)), from the termwise formula, must equal
	// the difference of the two risks.
	c2, err := ExcessInnerRiskFC(LogLoss, T, eta, q)
	assert.NoError(t, err)
	want := 0.6*math.Log(0.6/0.35) + 0.4*math.Log(0.4/0.65)
	assert.InDeltaf(t, want, c2, 1e-15, "ExcessInnerRiskFC(log) = %v; want %v (= %v − %v)", c2, want, r, m)
	assert.InDeltaf(t, r-m, c2, 1e-15, "ExcessInnerRiskFC(log) = %v; want %v (= %v − %v)", c2, want, r, m)
	// Square loss: C2 = ‖T(η−q)‖² = (0.6−0.35)² + (0.4−0.65)² = 0.125.
	c2, _ = ExcessInnerRiskFC(SquareLoss, T, eta, q)
	assert.InDeltaf(t, 0.125, c2, 1e-15, "ExcessInnerRiskFC(square) = %v, want 0.125", c2)
	// Excess clean inner risks.
	e, _ := ExcessInnerRisk(SquareLoss, eta, q) // ‖η−q‖² = 0.25+0.25
	assert.InDeltaf(t, 0.5, e, 1e-15, "ExcessInnerRisk(square) = %v, want 0.5", e)
	e, _ = ExcessInnerRisk(ZeroOneLoss, eta, q) // predicts 1: 0.6 − 0.4
	z, _ := ExcessZeroOneInnerRisk(eta, q)
	assert.InDeltaf(t, 0.2, e, 1e-15, "excess 0-1 inner risk = %v and %v, want 0.2", e, z)
	assert.InDeltaf(t, 0.2, z, 1e-15, "excess 0-1 inner risk = %v and %v, want 0.2", e, z)
	// Tie in q: predicts the smallest index, here the mode of η: no excess.
	z, _ = ExcessZeroOneInnerRisk([]float64{0.2, 0.5, 0.3}, []float64{0.1, 0.45, 0.45})
	assert.Equalf(t, 0.0, z, "tie q: excess = %v, want 0", z)
	z, _ = ExcessZeroOneInnerRisk([]float64{0.2, 0.3, 0.5}, []float64{0.1, 0.45, 0.45})
	assert.InDeltaf(t, 0.2, z, 1e-15, "tie q predicting class 1: excess = %v, want 0.2", z)
}

func TestCalibrationBounds(t *testing.T) {
	I := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	// Uniform noise α = ½, C = 2: T = [¾ ¼; ¼ ¾], T⁻¹ = [1.5 −0.5; −0.5 1.5],
	// ‖T⁻¹‖₁ = 2; eigenvalues 1 and ½, so ‖T⁻¹‖₂ = 2.
	U, _ := UniformNoiseT(0.5, 2)
	tests := []struct {
		name string
		f    func(mat.Matrix, float64) (float64, error)
		T    mat.Matrix
		x    float64
		want float64
	}{
		{"θ_I(0.4) = 0.16/2", CalibrationLowerBound, I, 0.4, 0.08},
		{"θ_U(0.4) = 0.16/(2·4)", CalibrationLowerBound, U, 0.4, 0.02},
		{"θ_U⁻¹(0.02) = √2·2·√0.02", CalibrationBoundInverse, U, 0.02, 0.4},
		{"θ_I⁻¹(0)", CalibrationBoundInverse, I, 0, 0},
		{"θ^sq_I(0.4)", SquareCalibrationLowerBound, I, 0.4, 0.08},
		{"θ^sq_U(0.4)", SquareCalibrationLowerBound, U, 0.4, 0.02},
		{"θ^sq_U⁻¹(0.02)", SquareCalibrationBoundInverse, U, 0.02, 0.4},
	}
	for _, tt := range tests {
		got, err := tt.f(tt.T, tt.x)
		assert.NoErrorf(t, err, "%s", tt.name)
		assert.InDeltaf(t, tt.want, got, 1e-15, "%s: got %v; want %v", tt.name, got, tt.want)
	}
	n, err := InvNorm2(U)
	assert.NoError(t, err)
	assert.InDeltaf(t, 2, n, 1e-14, "InvNorm2(U) = %v; want 2", n)
}

func TestUniformNoiseClosedForm(t *testing.T) {
	tests := []struct {
		alpha float64
		C     int
		want  float64
	}{
		{0, 5, 1}, // T = I
		// T⁻¹ = 2(I − ½N), N = ¼: diagonal 1.75, off-diagonal −0.25;
		// column sum of |·| = 1.75 + 3·0.25.
		{0.5, 4, 2.5},
		{0.5, 2, 2},     // (1−2/2)·α = 0
		{0.9, 1, 1},     // C = 1: T = [1]
		{0.75, 10, 6.4}, // 4·(1 + 0.8·0.75) = 4·1.6
	}
	for _, tt := range tests {
		got, err := UniformNoiseInvNorm1(tt.alpha, tt.C)
		assert.NoErrorf(t, err, "UniformNoiseInvNorm1(%v,%d)", tt.alpha, tt.C)
		assert.InDeltaf(t, tt.want, got, 1e-14, "UniformNoiseInvNorm1(%v,%d) = %v; want %v", tt.alpha, tt.C, got, tt.want)
		T, _ := UniformNoiseT(tt.alpha, tt.C)
		num, err := InvNorm1(T)
		assert.NoErrorf(t, err, "InvNorm1(UniformNoiseT(%v,%d))", tt.alpha, tt.C)
		assert.InDeltaf(t, tt.want, num, 1e-13, "InvNorm1(UniformNoiseT(%v,%d)) = %v; want %v", tt.alpha, tt.C, num, tt.want)
	}
}

func TestCalibrationErrors(t *testing.T) {
	T := mat.NewDense(2, 2, []float64{0.8, 0.3, 0.2, 0.7})
	S := mat.NewDense(2, 2, []float64{0.5, 0.5, 0.5, 0.5}) // singular
	bad := mat.NewDense(2, 2, []float64{0.8, 0.3, 0.3, 0.7})
	rect := mat.NewDense(2, 3, nil)
	nan := mat.NewDense(2, 2, []float64{math.NaN(), 0, 0, 1})
	ok := []float64{0.5, 0.5}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"NoisyPosterior eta", calibErr2(NoisyPosterior(T, []float64{1, 1})), "eta: entries sum to 2"},
		{"NoisyPosterior T", calibErr2(NoisyPosterior(bad, ok)), "T: column 0 sums to 1.1"},
		{"InnerRiskFC nil", calibErr(InnerRiskFC(nil, T, ok, ok)), "l: nil loss"},
		{"InnerRiskFC len", calibErr(InnerRiskFC(LogLoss, T, ok, []float64{1})), "q: has 1 entries, want 2"},
		{"InnerRiskFC T", calibErr(InnerRiskFC(LogLoss, nil, ok, ok)), "T: nil matrix"},
		{"MinInnerRiskFC nil", calibErr(MinInnerRiskFC(nil, T, ok)), "l: nil loss"},
		{"MinInnerRiskFC T", calibErr(MinInnerRiskFC(LogLoss, rect, ok)), "T: is 2×3"},
		{"ExcessInnerRisk q", calibErr(ExcessInnerRisk(LogLoss, ok, []float64{0.9, 0.9})), "q: entries sum to 1.8"},
		{"ExcessInnerRisk custom", calibErr(ExcessInnerRisk(noClosedFormLoss{}, ok, ok)), "no closed-form"},
		{"ExcessInnerRiskFC eta", calibErr(ExcessInnerRiskFC(LogLoss, T, []float64{-1, 2}, ok)), "eta: entry 0 is -1"},
		{"ExcessZeroOne eta", calibErr(ExcessZeroOneInnerRisk([]float64{0.1}, ok)), "eta: entries sum to 0.1"},
		{"ExcessZeroOne q", calibErr(ExcessZeroOneInnerRisk(ok, []float64{0.1})), "q: entries sum to 0.1"},
		{"ExcessZeroOne len", calibErr(ExcessZeroOneInnerRisk(ok, []float64{1})), "q: has 1 entries, want 2"},
		{"θ eps<0", calibErr(CalibrationLowerBound(T, -1)), "eps: is -1, want a finite number ≥ 0"},
		{"θ eps NaN", calibErr(CalibrationLowerBound(T, math.NaN())), "eps: is NaN"},
		{"θ eps Inf", calibErr(CalibrationLowerBound(T, math.Inf(1))), "eps: is +Inf"},
		{"θ singular", calibErr(CalibrationLowerBound(S, 0.1)), "T: singular"},
		{"θ not stochastic", calibErr(CalibrationLowerBound(bad, 0.1)), "T: column 0 sums to 1.1"},
		{"θ nil", calibErr(CalibrationLowerBound(nil, 0.1)), "T: nil matrix"},
		{"θ⁻¹ r<0", calibErr(CalibrationBoundInverse(T, -1)), "r: is -1"},
		{"θ⁻¹ singular", calibErr(CalibrationBoundInverse(S, 1)), "T: singular"},
		{"θ^sq eps", calibErr(SquareCalibrationLowerBound(T, -1)), "eps: is -1"},
		{"θ^sq singular", calibErr(SquareCalibrationLowerBound(S, 1)), "T: singular"},
		{"θ^sq nil", calibErr(SquareCalibrationLowerBound(nil, 1)), "T: nil matrix"},
		{"θ^sq⁻¹ r", calibErr(SquareCalibrationBoundInverse(T, math.NaN())), "r: is NaN"},
		{"θ^sq⁻¹ not stochastic", calibErr(SquareCalibrationBoundInverse(bad, 1)), "T: column 0 sums to 1.1"},
		{"InvNorm2 nil", calibErr(InvNorm2(nil)), "T: nil matrix"},
		{"InvNorm2 rect", calibErr(InvNorm2(rect)), "T: is 2×3"},
		{"InvNorm2 NaN", calibErr(InvNorm2(nan)), "T: entry (0,0) is NaN"},
		{"InvNorm2 singular", calibErr(InvNorm2(S)), "T: singular"},
		{"UniformNoiseT alpha", calibErr2d(UniformNoiseT(1.5, 2)), "alpha: is 1.5"},
		{"UniformNoiseT C", calibErr2d(UniformNoiseT(0.5, 0)), "C: is 0"},
		{"UniformNoiseInvNorm1 alpha=1", calibErr(UniformNoiseInvNorm1(1, 3)), "T is singular at α = 1"},
		{"UniformNoiseInvNorm1 C", calibErr(UniformNoiseInvNorm1(0.5, -2)), "C: is -2"},
	}
	for _, tt := range tests {
		assert.ErrorContainsf(t, tt.err, tt.want, "%s: error %v, want one containing %q", tt.name, tt.err, tt.want)
	}
}

func calibErr2(_ []float64, err error) error   { return err }
func calibErr2d(_ *mat.Dense, err error) error { return err }
