package claims

// Helpers shared by the Rademacher-complexity claims (rademacher.go,
// rad_*.go). Every unexported name here starts with "rad" so that the
// claims of other sections, written in the same package, cannot collide.

import (
	"fmt"
	"math"
	"math/rand"
	randv2 "math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

// radTol is the relative tolerance of the exact (enumerated) comparisons:
// both sides are sums of at most 2^16 terms of size O(1), so rounding is
// below 1e-12 relative; 1e-9 leaves a wide margin and no more.
const radTol = 1e-9

// radLE reports lhs ≤ rhs up to radTol relative rounding.
func radLE(lhs, rhs float64) bool {
	return lhs <= rhs+radTol*(1+math.Abs(rhs))
}

// radSnap maps a value within rounding of zero (|v| < 1e-12; the values
// compared here are O(1e-2…1e2)) to exactly 0, so that the reported
// LHS/RHS ratio is not the quotient of two rounding errors (0/0 is then
// NaN and ignored by verify.ForAll). It is applied after the verdict.
func radSnap(v float64) float64 {
	if math.Abs(v) < 1e-12 {
		return 0
	}
	return v
}

// radCase builds a verify.Case, snapping both sides with radSnap for the
// ratio report (the verdict ok is computed by the caller on raw values).
func radCase(lhs, rhs float64, ok bool, detail string) verify.Case {
	return verify.Case{LHS: radSnap(lhs), RHS: radSnap(rhs), OK: ok, Detail: detail}
}

// radV2 derives a math/rand/v2 stream from gopter's math/rand source, so
// that theory functions (which take *rand/v2.Rand) stay reproducible.
func radV2(r *rand.Rand) *randv2.Rand {
	return randv2.New(randv2.NewPCG(uint64(r.Int63()), uint64(r.Int63())))
}

// radSimplex draws a point of the open simplex Δ^n with entries ≥ floor/n-ish
// (a normalized vector of uniform(floor,1) entries, occasionally spiky).
func radSimplex(r *rand.Rand, n int, spiky bool) []float64 {
	p := make([]float64, n)
	for i := range p {
		p[i] = 0.02 + r.Float64()
		if spiky {
			p[i] = math.Pow(p[i], 4)
		}
	}
	return normalize(p)
}

// radWeights draws M non-negative weights a_i, sometimes with zeros and
// sometimes all equal (the case where the √(Σa²) bounds are tightest).
func radWeights(r *rand.Rand, M int) []float64 {
	a := make([]float64, M)
	mode := r.Intn(4)
	scale := logUnif(r, 0.05, 5)
	for i := range a {
		switch mode {
		case 0:
			a[i] = scale
		case 1:
			if r.Intn(3) == 0 {
				a[i] = 0
			} else {
				a[i] = scale * r.Float64()
			}
		default:
			a[i] = scale * logUnif(r, 0.01, 1)
		}
	}
	return a
}

// radBallPoint draws a point of the ball of radius rad in ℝ^p; onSphere puts
// it on the boundary.
func radBallPoint(r *rand.Rand, p int, rad float64, onSphere bool) []float64 {
	x := make([]float64, p)
	n := 0.0
	for k := range x {
		x[k] = r.NormFloat64()
		n += x[k] * x[k]
	}
	n = math.Sqrt(n)
	t := rad
	if !onSphere {
		t *= math.Pow(r.Float64(), 1/float64(p))
	}
	for k := range x {
		x[k] *= t / n
	}
	return x
}

// radLipFn is a real function on ℝ^C with a known Lipschitz constant L
// w.r.t. ‖·‖₂ (exact for the synthetic families, the upper bound √2 of
// Proposition `lip.upper.bd.cel` for the composite FC log loss).
type radLipFn struct {
	name string
	L    float64
	f    func(v []float64) float64
}

// radRandColStoch draws an invertible column-stochastic C×C matrix
// T = (1−η)I + ηE with E random column-stochastic and η ∈ [0, 0.9).
func radRandColStoch(r *rand.Rand, C int) *mat.Dense {
	eta := 0.9 * r.Float64()
	T := mat.NewDense(C, C, nil)
	for j := 0; j < C; j++ {
		T.SetCol(j, towardVertex(radSimplex(r, C, r.Intn(2) == 0), eta, 1-eta, j))
	}
	return T
}

// radRandLip draws a Lipschitz function on ℝ^C from four families: a scaled
// distance L‖v−b‖₂, a linear map L⟨u,v⟩+b and L|⟨u,v⟩+b| with ‖u‖₂ = 1, and
// the composite FC log loss λ_{ℓ_T}(·, y) with random invertible
// column-stochastic T (theory.CompositeFC, Lipschitz constant √2).
func radRandLip(r *rand.Rand, C int) radLipFn {
	L := logUnif(r, 0.2, 3)
	switch r.Intn(4) {
	case 0:
		b := radBallPoint(r, C, r.Float64(), false)
		return radLipFn{fmt.Sprintf("%.3g‖v−b‖", L), L, func(v []float64) float64 {
			s := 0.0
			for k := range v {
				s += (v[k] - b[k]) * (v[k] - b[k])
			}
			return L * math.Sqrt(s)
		}}
	case 1:
		u := radBallPoint(r, C, 1, true)
		b := r.NormFloat64()
		return radLipFn{fmt.Sprintf("%.3g⟨u,v⟩+b", L), L, func(v []float64) float64 {
			s := b
			for k := range v {
				s += u[k] * v[k]
			}
			return L * s
		}}
	case 2:
		u := radBallPoint(r, C, 1, true)
		b := 0.5 * r.NormFloat64()
		return radLipFn{fmt.Sprintf("%.3g|⟨u,v⟩+b|", L), L, func(v []float64) float64 {
			s := b
			for k := range v {
				s += u[k] * v[k]
			}
			return L * math.Abs(s)
		}}
	default:
		T := radRandColStoch(r, C)
		y := r.Intn(C)
		return radLipFn{fmt.Sprintf("λ_ℓT(·,%d) T=%v", y, mat.Formatted(T, mat.Squeeze())), theory.LogLossLip, func(v []float64) float64 {
			return must(theory.CompositeFC(T, v, y)) // v finite and T valid by construction
		}}
	}
}

// radFinite computes Rad_{S,a} of a finite class (rows of values) exactly.
func radFinite(values *mat.Dense, a []float64) float64 {
	return must(theory.WeightedRadExact(len(a), must(theory.FiniteClassSup(values, a))))
}

// radFiniteVec computes the vector-valued weighted Rademacher complexity
// E sup_f Σ_i a_i Σ_c ε_{i,c} f_c(x_i) of a finite class exactly.
func radFiniteVec(values []mat.Matrix, a []float64) float64 {
	sup := must(theory.FiniteVectorClassSup(values, a))
	_, C := values[0].Dims()
	return must(theory.WeightedRadExact(len(a)*C, sup))
}
