package theory

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tests for simplex.go, norms.go and transition.go.

func TestCheckSimplex(t *testing.T) {
	tests := []struct {
		p        []float64
		interior bool
		want     string // "" = valid
	}{
		{[]float64{0.5, 0.5}, false, ""},
		{[]float64{1, 0}, false, ""},
		{[]float64{1, 0}, true, "entry 1 is 0, want > 0"},
		{[]float64{0.5, 0.5 + 1e-10}, false, ""}, // within SimplexTol
		{[]float64{0.5, 0.5 + 1e-8}, false, "entries sum to"},
		{nil, false, "empty probability vector"},
		{[]float64{math.Inf(1), 0}, false, "entry 0 is +Inf"},
		{[]float64{1.5, -0.5}, false, "entry 1 is -0.5, want ≥ 0"},
	}
	for _, tt := range tests {
		var err error
		if tt.interior {
			err = CheckInteriorSimplex("p", tt.p, SimplexTol)
		} else {
			err = CheckSimplex("p", tt.p, SimplexTol)
		}
		if tt.want == "" {
			assert.NoErrorf(t, err, "%v: unexpected error", tt.p)
		} else if assert.ErrorContainsf(t, err, tt.want, "%v: error %v, want one naming p and containing %q", tt.p, err, tt.want) {
			assert.Truef(t, strings.HasPrefix(err.Error(), "p: "), "%v: error %v, want one naming p and containing %q", tt.p, err, tt.want)
		}
	}
}

func TestCheckColumnStochastic(t *testing.T) {
	tests := []struct {
		T    mat.Matrix
		want string
	}{
		{mat.NewDense(2, 2, []float64{0.8, 0.3, 0.2, 0.7}), ""},
		{mat.NewDense(2, 2, []float64{0.8, 0.3, 0.3, 0.7}), "column 0 sums to 1.1"},
		{mat.NewDense(2, 3, nil), "is 2×3"},
		{mat.NewDense(2, 2, []float64{1.2, 0, -0.2, 1}), "entry (1,0) is -0.2"},
		{mat.NewDense(2, 2, []float64{math.NaN(), 0, 1, 1}), "entry (0,0) is NaN"},
		{nil, "nil matrix"},
	}
	for i, tt := range tests {
		err := CheckColumnStochastic("T", tt.T, SimplexTol)
		if tt.want == "" {
			assert.NoErrorf(t, err, "case %d: unexpected error", i)
		} else {
			assert.ErrorContainsf(t, err, tt.want, "case %d: error %v, want one containing %q", i, err, tt.want)
		}
	}
}

func TestNorms(t *testing.T) {
	T := mat.NewDense(2, 2, []float64{0.8, 0.3, 0.2, 0.7})
	// det = 0.56 − 0.06 = 0.5; T⁻¹ = 2·[0.7 −0.3; −0.2 0.8] = [1.4 −0.6; −0.4 1.6];
	// column sums of |·|: 1.8 and 2.2.
	assert.InDelta(t, 1, Norm1(T), 1e-15, "Norm1, want 1 (column-stochastic)")
	n, err := InvNorm1(T)
	assert.NoError(t, err)
	assert.InDelta(t, 2.2, n, 1e-14, "InvNorm1")
	// Lambda0 = max_c |log(C / Σ_j t_{c,j})|: row sums 1.1 and 0.9;
	// |−log(1.1/2)| = 0.5978…, |−log(0.9/2)| = 0.7985… .
	l, err := Lambda0(T)
	assert.NoError(t, err)
	assert.InDelta(t, -math.Log(0.45), l, 1e-15, "Lambda0")
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"InvNorm1 nil", calibErr(InvNorm1(nil)), "T: nil matrix"},
		{"InvNorm1 rect", calibErr(InvNorm1(mat.NewDense(1, 2, nil))), "T: is 1×2"},
		{"InvNorm1 singular", calibErr(InvNorm1(mat.NewDense(2, 2, []float64{0.5, 0.5, 0.5, 0.5}))), "T: singular"},
		{"InvNorm1 NaN", calibErr(InvNorm1(mat.NewDense(1, 1, []float64{math.NaN()}))), "T: entry (0,0) is NaN"},
		{"Lambda0 nil", calibErr(Lambda0(nil)), "T: nil matrix"},
		{"Lambda0 zero row", calibErr(Lambda0(mat.NewDense(2, 2, []float64{0, 0, 1, 1}))), "T: row 0 sums to 0"},
	}
	for _, tt := range tests {
		assert.ErrorContainsf(t, tt.err, tt.want, "%s: error %v, want one containing %q", tt.name, tt.err, tt.want)
	}
}

func TestTransitionMatrix(t *testing.T) {
	// Two bags: γ_1 = (0.9, 0.1), γ_2 = (0.2, 0.8); α = (0.5, 0.5).
	// σ = Γᵀα = (0.55, 0.45); T(i,j) = Γ(i,j)α(i)/σ(j):
	// T = [0.45/0.55 0.05/0.45; 0.1/0.55 0.4/0.45].
	gamma := mat.NewDense(2, 2, []float64{0.9, 0.1, 0.2, 0.8})
	alpha := []float64{0.5, 0.5}
	sigma, err := NoisyToCleanPrior(gamma, alpha)
	require.NoError(t, err)
	require.InDeltaf(t, 0.55, sigma[0], 1e-15, "NoisyToCleanPrior = %v; want (0.55, 0.45)", sigma)
	require.InDeltaf(t, 0.45, sigma[1], 1e-15, "NoisyToCleanPrior = %v; want (0.55, 0.45)", sigma)
	T, err := TransitionMatrix(gamma, alpha, sigma)
	require.NoError(t, err)
	want := []float64{0.45 / 0.55, 0.05 / 0.45, 0.1 / 0.55, 0.4 / 0.45}
	for k, w := range want {
		assert.InDeltaf(t, w, T.At(k/2, k%2), 1e-15, "T(%d,%d)", k/2, k%2)
	}
	assert.NoError(t, CheckColumnStochastic("T", T, SimplexTol), "T with σ = Γᵀα is not column-stochastic")
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"gamma rect", calibErrT(TransitionMatrix(mat.NewDense(2, 3, nil), alpha, sigma)), "gamma: is 2×3"},
		{"alpha len", calibErrT(TransitionMatrix(gamma, []float64{1}, sigma)), "alpha: has 1 entries"},
		{"sigma len", calibErrT(TransitionMatrix(gamma, alpha, []float64{1})), "sigma: has 1 entries"},
		{"gamma row", calibErrT(TransitionMatrix(mat.NewDense(2, 2, []float64{0.9, 0.2, 0.2, 0.8}), alpha, sigma)), "gamma row 0"},
		{"alpha simplex", calibErrT(TransitionMatrix(gamma, []float64{0.7, 0.7}, sigma)), "alpha: entries sum to"},
		{"sigma zero", calibErrT(TransitionMatrix(gamma, alpha, []float64{1, 0})), "sigma: entry 1 is 0"},
		{"prior rect", calibErr2(NoisyToCleanPrior(mat.NewDense(2, 3, nil), alpha)), "gamma: is 2×3"},
		{"prior alpha", calibErr2(NoisyToCleanPrior(gamma, []float64{1})), "alpha: has 1 entries"},
	}
	for _, tt := range tests {
		assert.ErrorContainsf(t, tt.err, tt.want, "%s: error %v, want one containing %q", tt.name, tt.err, tt.want)
	}
}

func calibErrT(_ *mat.Dense, err error) error { return err }

// TestOneSingularError: InvNorm1, InvNorm2 and IdealAlpha report a matrix
// singular to working precision with the one *SingularError (errors.Is
// ErrSingular), at the one cut-off SingularCond; a matrix just inside it is
// inverted; CheckSquare is the one shape check.
func TestOneSingularError(t *testing.T) {
	sing := mat.NewDense(2, 2, []float64{0.5, 0.5, 0.5, 0.5})
	for name, f := range map[string]func() error{
		"InvNorm1":   func() error { _, err := InvNorm1(sing); return err },
		"InvNorm2":   func() error { _, err := InvNorm2(sing); return err },
		"IdealAlpha": func() error { _, err := IdealAlpha(sing, []float64{0.5, 0.5}); return err },
	} {
		err := f()
		var se *SingularError
		assert.ErrorIsf(t, err, ErrSingular, "%s: error %v, want a *SingularError", name, err)
		assert.ErrorAsf(t, err, &se, "%s: error %v, want a *SingularError", name, err)
	}
	_, err := IdealAlpha(sing, []float64{0.5, 0.5})
	assert.ErrorIsf(t, err, ErrAssumption, "IdealAlpha on a singular Γ: %v, want ErrAssumption too", err)
	// cond ≈ 1e14 < SingularCond: defined (InvNorm1 of diag(1, 1e-14) is 1e14).
	near := mat.NewDiagDense(2, []float64{1, 1e-14})
	v, err := InvNorm1(near)
	assert.NoError(t, err, "InvNorm1(diag(1, 1e-14))")
	assert.Equal(t, 1e14, v, "InvNorm1(diag(1, 1e-14))")
	_, err = InvNorm1(mat.NewDiagDense(2, []float64{1, 1e-16}))
	assert.ErrorIsf(t, err, ErrSingular, "cond 1e16: %v, want ErrSingular", err)
	for _, m := range []mat.Matrix{nil, mat.NewDense(2, 3, nil)} {
		_, err := CheckSquare("M", m)
		assert.ErrorContainsf(t, err, "M:", "CheckSquare(%v): %v, want an error naming M", m, err)
	}
}
