package theory

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nearD is 1e-8 rounded (in float64, not in Go's exact constant arithmetic)
// so that 0.5 ± nearD are exact.
var nearD = func() float64 { h := 0.5; return (h + 1e-8) - h }()

func TestKL(t *testing.T) {
	tests := []struct {
		name string
		p, q []float64
		want float64
		tol  float64
	}{
		// ½log(0.5/0.9) + ½log(0.5/0.1).
		{"two classes", []float64{0.5, 0.5}, []float64{0.9, 0.1}, 0.5*math.Log(0.5/0.9) + 0.5*math.Log(5), 1e-15},
		{"equal", []float64{0.2, 0.3, 0.5}, []float64{0.2, 0.3, 0.5}, 0, 0},
		// 0·log 0 = 0: KL(e0 ‖ uniform) = log 2.
		{"vertex from uniform", []float64{1, 0}, []float64{0.5, 0.5}, math.Log(2), 1e-15},
		// q has a zero where p does not.
		{"infinite", []float64{0.5, 0.5}, []float64{1, 0}, math.Inf(1), 0},
		// p ≈ q: with p = (½+d, ½−d), q = (½,½),
		// KL = ½[(1+x)log(1+x) + (1−x)log(1−x)], x = 2d, = x²/2 + x⁴/12 + …
		// = 2d² + (4/3)d⁴ + …; for d = 1e-8 that is 2e-16 to 17 digits.
		// The textbook Σ p log(p/q) loses all digits here.
		// (d is taken from the rounded p so that p = (½+d, ½−d) exactly.)
		{"nearly equal", []float64{0.5 + nearD, 0.5 - nearD}, []float64{0.5, 0.5}, 2*nearD*nearD + 4.0/3*math.Pow(nearD, 4), 1e-30},
	}
	for _, tt := range tests {
		got, err := KL(tt.p, tt.q)
		require.NoErrorf(t, err, "%s: %v", tt.name, err)
		assert.InDeltaf(t, tt.want, got, tt.tol, "%s: KL(%v‖%v) = %.17g, want %.17g", tt.name, tt.p, tt.q, got, tt.want)
	}
}

// TestKLVersusCrossEntropy checks KL(p‖q) = ℓ̲(q,p) − ℓ̲(p,p) (the corrected
// reading of `equation-definition: KL divergence`) and KL ≥ 0 on a grid of
// well-separated points, where the difference of cross entropies is accurate.
func TestKLVersusCrossEntropy(t *testing.T) {
	pts := [][]float64{{0.2, 0.3, 0.5}, {0.6, 0.3, 0.1}, {1.0 / 3, 1.0 / 3, 1.0 / 3}, {0.05, 0.05, 0.9}, {0.5, 0, 0.5}}
	for _, p := range pts {
		for _, q := range pts[:4] { // q in the interior
			kl, err := KL(p, q)
			require.NoError(t, err)
			a, _ := CrossEntropy(q, p)
			b, _ := CrossEntropy(p, p)
			assert.InDeltaf(t, a-b, kl, 1e-14, "KL(%v‖%v) = %.17g, ℓ̲(q,p)−ℓ̲(p,p) = %.17g", p, q, kl, a-b)
			assert.GreaterOrEqualf(t, kl, 0.0, "KL(%v‖%v) = %.17g, ℓ̲(q,p)−ℓ̲(p,p) = %.17g", p, q, kl, a-b)
		}
	}
}

// TestKLTextbookOnUnnormalizedInput checks that inputs whose sums differ
// within SimplexTol get the textbook value Σ p log(p/q), not a renormalized one.
func TestKLTextbookOnUnnormalizedInput(t *testing.T) {
	p := []float64{0.3, 0.7 + 5e-10}
	q := []float64{0.6, 0.4}
	want := 0.3*math.Log(0.3/0.6) + p[1]*math.Log(p[1]/0.4)
	got, err := KL(p, q)
	assert.NoError(t, err)
	assert.InDeltaf(t, want, got, 1e-15, "KL = %.17g; want %.17g", got, want)
}

func TestPhiSeriesMatchesClosedForm(t *testing.T) {
	// Around |r| = 1e-2 both branches are accurate: they must agree.
	for _, r := range []float64{-0.0101, -0.0099, 0.0099, 0.0101, 0.00999999} {
		direct := (1+r)*math.Log1p(r) - r
		got := phi(r)
		assert.LessOrEqualf(t, math.Abs(got-direct), 1e-13*direct, "phi(%g) = %.17g, direct %.17g", r, got, direct)
	}
	assert.Equal(t, 1.0, phi(-1), "phi(-1)")
	assert.Equal(t, 0.0, phi(0), "phi(0)")
}

func TestL1DistanceAndCrossEntropy(t *testing.T) {
	d, err := L1Distance([]float64{0.2, 0.3, 0.5}, []float64{0.5, 0.3, 0.2})
	assert.NoError(t, err)
	assert.InDeltaf(t, 0.6, d, 1e-15, "L1Distance = %v; want 0.6", d)
	// ℓ̲(q,p) = −½log ¼ − ½log ¾.
	ce, err := CrossEntropy([]float64{0.25, 0.75}, []float64{0.5, 0.5})
	assert.NoError(t, err)
	want := -0.5*math.Log(0.25) - 0.5*math.Log(0.75)
	assert.InDeltaf(t, want, ce, 1e-15, "CrossEntropy = %v; want %v", ce, want)
}

func TestDivergenceErrors(t *testing.T) {
	ok := []float64{0.5, 0.5}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"KL p", calibErr(KL([]float64{0.5, 0.6}, ok)), "p: entries sum to 1.1"},
		{"KL q", calibErr(KL(ok, []float64{-1, 2})), "q: entry 0 is -1"},
		{"KL len", calibErr(KL(ok, []float64{1})), "q: has 1 entries, want 2"},
		{"L1 len", calibErr(L1Distance(ok, []float64{1})), "q: has 1 entries, want 2"},
		{"L1 empty", calibErr(L1Distance(nil, nil)), "p: empty vector"},
		{"L1 NaN", calibErr(L1Distance([]float64{math.NaN()}, []float64{1})), "p: entry 0 is NaN"},
		{"L1 Inf", calibErr(L1Distance([]float64{1, 0}, []float64{0, math.Inf(-1)})), "q: entry 1 is -Inf"},
		{"CE q", calibErr(CrossEntropy([]float64{2}, []float64{1})), "q: entries sum to 2"},
		{"CE p", calibErr(CrossEntropy([]float64{1}, []float64{0.5})), "p: entries sum to 0.5"},
		{"CE len", calibErr(CrossEntropy(ok, []float64{1})), "p: has 1 entries, want 2"},
	}
	for _, tt := range tests {
		assert.ErrorContainsf(t, tt.err, tt.want, "%s: error %v, want one containing %q", tt.name, tt.err, tt.want)
	}
}
