package claims

import (
	"math"
	"math/rand"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
)

func TestRadConvexHullAndRadial(t *testing.T) {
	h := radConvexHull([][2]float64{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {0.1, 0.1}, {0.5, 0.5}})
	if len(h) != 4 {
		t.Fatalf("hull %v: want the 4 vertices of the diamond |x|+|y| ≤ 1", h)
	}
	// μ = identity on X = I: {μ(Xu)} = disk of radius β, whose hull's radial
	// function is ≈ β in every direction (from inside, polygon with 48 sides).
	id := theory.Activation{Name: "id", F: func(t float64) float64 { return t }, D: func(float64) float64 { return 1 }}
	radial := radAbsconvRadial(mat.NewDense(2, 2, []float64{1, 0, 0, 1}), 2, id)
	for _, th := range []float64{0, 0.3, 1, 2, 4} {
		if r := radial(th); r > 2+1e-12 || r < 2*math.Cos(math.Pi/48)-1e-12 {
			t.Errorf("radial(%g) = %g, want in [2cos(π/48), 2]", th, r)
		}
	}
}

// Binomial test threshold: k* is the smallest k with P(Bin(n,δ) ≥ k) ≤ 1e-6.
func TestRadCritical(t *testing.T) {
	if k := radCritical(150, 1); k != 151 {
		t.Errorf("δ = 1: k* = %d, want 151 (never violated)", k)
	}
	// δ = 0.001, n = 150: P(≥4) ≈ 1.8e-5 > 1e-6 ≥ P(≥5) ≈ 5.2e-7.
	if k := radCritical(150, 0.001); k != 5 {
		t.Errorf("δ = 0.001: k* = %d, want 5", k)
	}
}

// radSignSum is a sum of k Rademacher signs: mean 0, variance k.
func TestRadSignSumMoments(t *testing.T) {
	s := radSampler{r: newRadTestRand()}
	for _, k := range []int{1, 63, 64, 65, 700} {
		n := 20000
		m, v := 0.0, 0.0
		for i := 0; i < n; i++ {
			x := s.radSignSum(k)
			if int(math.Abs(x))%2 != k%2 || math.Abs(x) > float64(k) {
				t.Fatalf("k=%d: impossible sum %g", k, x)
			}
			m += x
			v += x * x
		}
		m /= float64(n)
		v = v/float64(n) - m*m
		if math.Abs(m) > 5*math.Sqrt(float64(k)/float64(n)) || math.Abs(v/float64(k)-1) > 0.05 {
			t.Errorf("k=%d: mean %g, variance %g (want 0, %d)", k, m, v, k)
		}
	}
}

func newRadTestRand() *rand.Rand { return rand.New(rand.NewSource(3)) }
