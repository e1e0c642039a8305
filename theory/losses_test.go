package theory

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLossValues(t *testing.T) {
	// Hand-computed values. Classes are 0-based.
	tests := []struct {
		name string
		l    ProperLoss
		q    []float64
		c    int
		want float64
	}{
		// −log 0.75.
		{"log", LogLoss, []float64{0.25, 0.75}, 1, 0.2876820724517809},
		// −log 0.25 = log 4.
		{"log", LogLoss, []float64{0.25, 0.75}, 0, 1.3862943611198906},
		// q_c = 0: +Inf.
		{"log zero", LogLoss, []float64{0, 1}, 0, math.Inf(1)},
		// (0−0.2)² + (0−0.3)² + (1−0.5)² = 0.04 + 0.09 + 0.25.
		{"square", SquareLoss, []float64{0.2, 0.3, 0.5}, 2, 0.38},
		// (1−0.2)² + 0.3² + 0.5² = 0.64 + 0.09 + 0.25.
		{"square", SquareLoss, []float64{0.2, 0.3, 0.5}, 0, 0.98},
		// Vertex, right class: 0; wrong class: 2.
		{"square vertex", SquareLoss, []float64{0, 1}, 1, 0},
		{"square vertex wrong", SquareLoss, []float64{0, 1}, 0, 2},
		// Tie between classes 0 and 1: the paper's rule predicts 0.
		{"0-1 tie predicts smallest", ZeroOneLoss, []float64{0.4, 0.4, 0.2}, 0, 0},
		{"0-1 tie other", ZeroOneLoss, []float64{0.4, 0.4, 0.2}, 1, 1},
		{"0-1 clear", ZeroOneLoss, []float64{0.1, 0.2, 0.7}, 2, 0},
		{"0-1 uniform", ZeroOneLoss, []float64{0.25, 0.25, 0.25, 0.25}, 3, 1},
	}
	for _, tt := range tests {
		got, err := EvalLoss(tt.l, tt.q, tt.c)
		require.NoErrorf(t, err, "%s: %v", tt.name, err)
		assert.InDeltaf(t, tt.want, got, 1e-15, "%s: ℓ(%v,%d) = %.17g, want %.17g", tt.name, tt.q, tt.c, got, tt.want)
	}
}

func TestLossOutOfRangeIsNaN(t *testing.T) {
	for _, l := range []ProperLoss{LogLoss, SquareLoss, ZeroOneLoss} {
		for _, c := range []int{-1, 2} {
			v := l.Loss([]float64{0.5, 0.5}, c)
			assert.Truef(t, math.IsNaN(v), "%s.Loss(c=%d) = %v, want NaN", l.Name(), c, v)
		}
	}
}

func TestArgMaxTieRule(t *testing.T) {
	tests := []struct {
		q    []float64
		want int
	}{
		{[]float64{0.2, 0.5, 0.3}, 1},
		{[]float64{0.3, 0.3, 0.4}, 2},
		{[]float64{0.4, 0.2, 0.4}, 0},   // tie: smallest index
		{[]float64{0.2, 0.4, 0.4}, 1},   // tie: smallest index
		{[]float64{math.NaN(), 0.1}, 1}, // NaN never selected
		{nil, -1},
	}
	for _, tt := range tests {
		assert.Equalf(t, tt.want, ArgMax(tt.q), "ArgMax(%v)", tt.q)
	}
}

func TestForwardCorrected(t *testing.T) {
	T := mat.NewDense(2, 2, []float64{0.8, 0.3, 0.2, 0.7})
	// Tq for q = (0.5, 0.5) is (0.55, 0.45).
	tests := []struct {
		l    ProperLoss
		q    []float64
		c    int
		want float64
	}{
		{LogLoss, []float64{0.5, 0.5}, 0, -math.Log(0.55)},
		{LogLoss, []float64{0.5, 0.5}, 1, -math.Log(0.45)},
		// (1−0.55)² + 0.45² = 0.2025 + 0.2025.
		{SquareLoss, []float64{0.5, 0.5}, 0, 0.405},
		// Tq for q = (0, 1) is (0.3, 0.7): predicts class 1.
		{ZeroOneLoss, []float64{0, 1}, 1, 0},
		{ZeroOneLoss, []float64{0, 1}, 0, 1},
	}
	for _, tt := range tests {
		got, err := ForwardCorrected(tt.l, T, tt.q, tt.c)
		require.NoError(t, err)
		assert.InDeltaf(t, tt.want, got, 1e-15, "%s_T(%v,%d) = %.17g, want %.17g", tt.l.Name(), tt.q, tt.c, got, tt.want)
	}
	// With T = I the FC loss is the loss itself.
	I := mat.NewDense(3, 3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1})
	q := []float64{0.2, 0.3, 0.5}
	for c := 0; c < 3; c++ {
		a, _ := ForwardCorrected(SquareLoss, I, q, c)
		b := SquareLoss.Loss(q, c)
		assert.Equalf(t, b, a, "T=I: ℓ_T(q,%d)=%v, ℓ(q,%d)=%v", c, a, c, b)
	}
}

func TestInnerRiskAndMinimum(t *testing.T) {
	// η = (½,½), q = (¼,¾): ½(log 4 + log 4/3).
	got, err := InnerRisk(LogLoss, []float64{0.5, 0.5}, []float64{0.25, 0.75})
	require.NoError(t, err)
	want := 0.5 * (math.Log(4) + math.Log(4.0/3))
	assert.InDeltaf(t, want, got, 1e-15, "InnerRisk = %.17g, want %.17g", got, want)
	// η_c = 0 with ℓ = +Inf contributes 0 (0·∞ = 0).
	got, _ = InnerRisk(LogLoss, []float64{1, 0}, []float64{1, 0})
	assert.Equalf(t, 0.0, got, "InnerRisk(log, e0, e0) = %v, want 0", got)
	tests := []struct {
		l    ProperLoss
		eta  []float64
		want float64
	}{
		{LogLoss, []float64{0.5, 0.5}, math.Log(2)},
		{LogLoss, []float64{1, 0, 0}, 0},
		{LogLoss, []float64{0.25, 0.25, 0.25, 0.25}, math.Log(4)},
		{SquareLoss, []float64{0.5, 0.5}, 0.5},       // 1 − (¼+¼)
		{SquareLoss, []float64{0.2, 0.3, 0.5}, 0.62}, // 1 − (0.04+0.09+0.25)
		{ZeroOneLoss, []float64{0.2, 0.3, 0.5}, 0.5}, // 1 − 0.5
		{ZeroOneLoss, []float64{0.4, 0.4, 0.2}, 0.6}, // 1 − 0.4
		{ZeroOneLoss, []float64{1, 0, 0}, 0},
	}
	for _, tt := range tests {
		m, err := MinInnerRisk(tt.l, tt.eta)
		require.NoError(t, err)
		assert.InDeltaf(t, tt.want, m, 1e-15, "MinInnerRisk(%s, %v) = %.17g, want %.17g", tt.l.Name(), tt.eta, m, tt.want)
		// Properness: the closed form is the inner risk at q = η.
		r, _ := InnerRisk(tt.l, tt.eta, tt.eta)
		assert.InDeltaf(t, m, r, 1e-15, "%s: C(η) = %.17g ≠ C* = %.17g", tt.l.Name(), r, m)
	}
}

// noClosedFormLoss has no closed-form minimal inner risk.
type noClosedFormLoss struct{}

func (noClosedFormLoss) Name() string                    { return "custom" }
func (noClosedFormLoss) Loss(q []float64, c int) float64 { return 1 - q[c] }

func TestLossErrors(t *testing.T) {
	T := mat.NewDense(2, 2, []float64{0.8, 0.3, 0.2, 0.7})
	bad := mat.NewDense(2, 2, []float64{0.8, 0.3, 0.3, 0.7})
	T3 := mat.NewDense(3, 3, nil)
	ok := []float64{0.5, 0.5}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"EvalLoss nil", calibErr(EvalLoss(nil, ok, 0)), "l: nil loss"},
		{"EvalLoss q sum", calibErr(EvalLoss(LogLoss, []float64{0.5, 0.6}, 0)), "q: entries sum to 1.1"},
		{"EvalLoss q neg", calibErr(EvalLoss(LogLoss, []float64{-0.5, 1.5}, 0)), "q: entry 0 is -0.5"},
		{"EvalLoss c", calibErr(EvalLoss(LogLoss, ok, 2)), "c: class 2 out of range"},
		{"FC nil loss", calibErr(ForwardCorrected(nil, T, ok, 0)), "l: nil loss"},
		{"FC nil T", calibErr(ForwardCorrected(LogLoss, nil, ok, 0)), "T: nil matrix"},
		{"FC T dims", calibErr(ForwardCorrected(LogLoss, T3, ok, 0)), "T: is 3×3, want C×C with C=2"},
		{"FC T not stochastic", calibErr(ForwardCorrected(LogLoss, bad, ok, 0)), "T: column 0 sums to 1.1"},
		{"FC q", calibErr(ForwardCorrected(LogLoss, T, []float64{math.NaN(), 1}, 0)), "q: entry 0 is NaN"},
		{"FC c", calibErr(ForwardCorrected(LogLoss, T, ok, -1)), "c: class -1 out of range"},
		{"InnerRisk nil", calibErr(InnerRisk(nil, ok, ok)), "l: nil loss"},
		{"InnerRisk eta", calibErr(InnerRisk(LogLoss, []float64{0.2}, ok)), "eta: entries sum to 0.2"},
		{"InnerRisk q", calibErr(InnerRisk(LogLoss, ok, []float64{})), "q: empty probability vector"},
		{"InnerRisk len", calibErr(InnerRisk(LogLoss, ok, []float64{1})), "q: has 1 entries, want 2"},
		{"MinInnerRisk nil", calibErr(MinInnerRisk(nil, ok)), "l: nil loss"},
		{"MinInnerRisk eta", calibErr(MinInnerRisk(LogLoss, []float64{2, -1})), "eta: entry 1 is -1"},
		{"MinInnerRisk custom", calibErr(MinInnerRisk(noClosedFormLoss{}, ok)), `loss "custom" has no closed-form`},
	}
	for _, tt := range tests {
		assert.ErrorContainsf(t, tt.err, tt.want, "%s: error %v, want one containing %q", tt.name, tt.err, tt.want)
	}
}

func calibErr(_ float64, err error) error { return err }

func BenchmarkForwardCorrectedLog10(b *testing.B) {
	const C = 10
	T := mat.NewDense(C, C, nil)
	q := make([]float64, C)
	for i := 0; i < C; i++ {
		q[i] = 1.0 / C
		for j := 0; j < C; j++ {
			v := 0.5 / C
			if i == j {
				v += 0.5
			}
			T.Set(i, j, v)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ForwardCorrected(LogLoss, T, q, 3); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkKL10(b *testing.B) {
	p := []float64{0.05, 0.1, 0.15, 0.2, 0.1, 0.1, 0.1, 0.05, 0.1, 0.05}
	q := []float64{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := KL(p, q); err != nil {
			b.Fatal(err)
		}
	}
}
