package claims

import (
	"math"
	"math/rand"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRadConvexHullAndRadial(t *testing.T) {
	h := radConvexHull([][2]float64{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {0.1, 0.1}, {0.5, 0.5}})
	require.Lenf(t, h, 4, "hull %v: want the 4 vertices of the diamond |x|+|y| ≤ 1", h)
	// μ = identity on X = I: {μ(Xu)} = disk of radius β, whose hull's radial
	// function is ≈ β in every direction (from inside, polygon with 48 sides).
	id := theory.Activation{Name: "id", F: func(t float64) float64 { return t }, D: func(float64) float64 { return 1 }}
	radial := radAbsconvRadial(mat.NewDense(2, 2, []float64{1, 0, 0, 1}), 2, id)
	for _, th := range []float64{0, 0.3, 1, 2, 4} {
		r := radial(th)
		assert.Truef(t, r <= 2+1e-12 && r >= 2*math.Cos(math.Pi/48)-1e-12, "radial(%g) = %g, want in [2cos(π/48), 2]", th, r)
	}
}

// Binomial test threshold: k* is the smallest k with P(Bin(n,δ) ≥ k) ≤ 1e-6.
func TestRadCritical(t *testing.T) {
	assert.Equal(t, 151, radCritical(150, 1), "δ = 1: k* (never violated)")
	// δ = 0.001, n = 150: P(≥4) ≈ 1.8e-5 > 1e-6 ≥ P(≥5) ≈ 5.2e-7.
	assert.Equal(t, 5, radCritical(150, 0.001), "δ = 0.001: k*")
}

// radSignSum is a sum of k Rademacher signs: mean 0, variance k.
func TestRadSignSumMoments(t *testing.T) {
	s := radSampler{r: newRadTestRand()}
	for _, k := range []int{1, 63, 64, 65, 700} {
		n := 20000
		m, v := 0.0, 0.0
		for i := 0; i < n; i++ {
			x := s.radSignSum(k)
			require.Truef(t, int(math.Abs(x))%2 == k%2 && math.Abs(x) <= float64(k), "k=%d: impossible sum %g", k, x)
			m += x
			v += x * x
		}
		m /= float64(n)
		v = v/float64(n) - m*m
		assert.LessOrEqualf(t, math.Abs(m), 5*math.Sqrt(float64(k)/float64(n)), "k=%d: mean %g, variance %g (want 0, %d)", k, m, v, k)
		assert.InDeltaf(t, 1, v/float64(k), 0.05, "k=%d: mean %g, variance %g (want 0, %d)", k, m, v, k)
	}
}

func newRadTestRand() *rand.Rand { return rand.New(rand.NewSource(3)) }
