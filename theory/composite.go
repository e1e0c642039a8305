package theory

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// LipschitzCompositeFC is the bound of Proposition `lip.upper.bd.cel`
// (Section 4.3): for the log loss with the softmax link and any
// column-stochastic T, every λ_{ℓ_T}(·, c) is √2-Lipschitz w.r.t. the 2-norm,
// i.e. |λ_{ℓ_T}| ≤ √2.
//
// The proof (Appendix, proof of Proposition `lip.upper.bd.cel`) uses only that
// row c of T is non-negative and not identically zero: the gradient is p − a
// with p = softmax(s) and a ∝ t_c ⊙ p both in Δ^C, so ‖p − a‖₂² ≤ ‖p − a‖₁ ≤ 2.
// The bound is attained in the limit when row c of T has a zero entry (see
// EstimateLipschitzCompositeFC).
const LipschitzCompositeFC = math.Sqrt2

// checkScores validates a score vector s ∈ ℝ^C (the output of g ∈ 𝒢).
func checkScores(name string, s []float64) error {
	if len(s) == 0 {
		return fmt.Errorf("%s: empty score vector", name)
	}
	for i, v := range s {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: entry %d is %v, want a finite number", name, i, v)
		}
	}
	return nil
}

// checkNonNegSquare validates a C×C matrix with finite non-negative entries.
func checkNonNegSquare(name string, T mat.Matrix, C int) error {
	r, err := CheckSquare(name, T)
	if err != nil {
		return err
	}
	c := r
	if C >= 0 && r != C {
		return fmt.Errorf("%s: is %d×%d, want %d×%d to match the scores", name, r, c, C, C)
	}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			v := T.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%s: entry (%d,%d) is %v, want a finite number", name, i, j, v)
			}
			if v < 0 {
				return fmt.Errorf("%s: entry (%d,%d) is %g, want ≥ 0", name, i, j, v)
			}
		}
	}
	return nil
}

// scaledExp holds e_k = exp(s_k − m) for the k of a support, m = max of s
// over that support, and their (weighted) sum: the overflow-free pieces of a
// softmax or a log-sum-exp.
type scaledExp struct {
	m   float64   // max_k s_k over the support; −Inf when the support is empty
	e   []float64 // exp(s_k − m)·weight_k, 0 off the support
	sum float64   // Σ_k e_k
}

// newScaledExp computes the pieces for weights wt (nil means all ones); the
// support is {k : wt_k > 0}.
func newScaledExp(s []float64, wt func(k int) float64) scaledExp {
	x := scaledExp{m: math.Inf(-1), e: make([]float64, len(s))}
	for k, v := range s {
		if (wt == nil || wt(k) > 0) && v > x.m {
			x.m = v
		}
	}
	if math.IsInf(x.m, -1) {
		return x
	}
	for k, v := range s {
		w := 1.0
		if wt != nil {
			w = wt(k)
		}
		if w > 0 {
			x.e[k] = w * math.Exp(v-x.m)
			x.sum += x.e[k]
		}
	}
	return x
}

// lse returns log Σ_k w_k exp(s_k).
func (x scaledExp) lse() float64 { return x.m + math.Log(x.sum) }

// Softmax returns ψ⁻¹(s) = softmax(s), (ψ⁻¹)_i(s) = e^{s_i}/Σ_k e^{s_k}, the
// inverse link of Section 4.3. It is computed with the maximum subtracted, so
// it is exact to rounding for any finite s (|s| up to the float64 range);
// entries that underflow are returned as 0, so the result lies in Δ^C but
// possibly not in its interior for extreme scores.
func Softmax(s []float64) ([]float64, error) {
	if err := checkScores("s", s); err != nil {
		return nil, err
	}
	x := newScaledExp(s, nil)
	p := x.e
	for i := range p {
		p[i] /= x.sum
	}
	return p, nil
}

// SoftmaxLink returns the link ψ(p) of Section 4.3,
// ψ_i(p) = log p_i − (1/C)Σ_k log p_k, which maps the open simplex onto
// 𝒱 = {s ∈ ℝ^C : Σ_i s_i = 0}; Softmax(SoftmaxLink(p)) = p. p must lie in the
// interior of Δ^C (within SimplexTol on the sum).
func SoftmaxLink(p []float64) ([]float64, error) {
	if err := CheckInteriorSimplex("p", p, SimplexTol); err != nil {
		return nil, err
	}
	mean := 0.0
	for _, v := range p {
		mean += math.Log(v)
	}
	mean /= float64(len(p))
	s := make([]float64, len(p))
	for i, v := range p {
		s[i] = math.Log(v) - mean
	}
	return s, nil
}

// CompositeFC returns the proper composite loss of the forward-corrected log
// loss with the softmax link (Section 4.3, Definition of λ_ℓ; appendix proof
// of Proposition `lip.upper.bd.cel`):
//
//	λ_{ℓ_T}(s, c) = −log((T softmax(s))_c) = log Σ_j e^{s_j} − log Σ_k t_{c,k} e^{s_k}.
//
// c is the 0-based class index (the paper's class c+1). T must be C×C with
// finite non-negative entries; column-stochasticity is not required for the
// value. The right-hand form is evaluated with log-sum-exp (maxima over s and
// over the support of row c subtracted), so the value is finite and accurate even when (T softmax(s))_c
// underflows in floating point (|s| up to 1e3 and beyond). The value is +Inf
// (with a nil error) exactly when row c of T is identically zero, because
// then (T softmax(s))_c = 0 for every s: that loss is genuinely infinite, not
// an overflow.
func CompositeFC(T mat.Matrix, s []float64, c int) (float64, error) {
	if err := checkScores("s", s); err != nil {
		return 0, err
	}
	C := len(s)
	if err := checkNonNegSquare("T", T, C); err != nil {
		return 0, err
	}
	if c < 0 || c >= C {
		return 0, fmt.Errorf("c: class %d out of range [0,%d)", c, C)
	}
	all := newScaledExp(s, nil)
	row := newScaledExp(s, func(k int) float64 { return T.At(c, k) })
	if math.IsInf(row.m, -1) {
		return math.Inf(1), nil
	}
	// (m − m_row) + log Σ_k e^{s_k−m} − log Σ_k t_{c,k} e^{s_k−m_row}: the
	// large parts cancel exactly when the maxima coincide.
	return (all.m - row.m) + math.Log(all.sum) - math.Log(row.sum), nil
}

// CompositeFCGrad returns ∇_s λ_{ℓ_T}(s, c), in the closed form of the proof
// of Proposition `lip.upper.bd.cel`:
//
//	∂λ/∂s_i = −t_{c,i} p_i / Σ_j t_{c,j} p_j + p_i,  p = softmax(s).
//
// Both terms are computed as (weighted) softmaxes with the maximum of s
// over the relevant support subtracted, so the gradient is accurate
// for extreme scores. Its entries sum to 0, so it lies in 𝒱. A zero row c of
// T is an error: λ(·, c) ≡ +Inf has no gradient.
func CompositeFCGrad(T mat.Matrix, s []float64, c int) ([]float64, error) {
	if err := checkScores("s", s); err != nil {
		return nil, err
	}
	C := len(s)
	if err := checkNonNegSquare("T", T, C); err != nil {
		return nil, err
	}
	if c < 0 || c >= C {
		return nil, fmt.Errorf("c: class %d out of range [0,%d)", c, C)
	}
	all := newScaledExp(s, nil)
	row := newScaledExp(s, func(k int) float64 { return T.At(c, k) })
	if math.IsInf(row.m, -1) {
		return nil, fmt.Errorf("T: row %d is identically zero, so λ(·,%d) = +Inf and has no gradient", c, c)
	}
	g := make([]float64, C)
	for i := 0; i < C; i++ {
		g[i] = all.e[i]/all.sum - row.e[i]/row.sum // p_i − t_{c,i}p_i/Σ_j t_{c,j}p_j
	}
	return g, nil
}

// EstimateLipschitzCompositeFC returns a numerical lower estimate of the true
// Lipschitz constant |λ_{ℓ_T}| = max_c sup_s ‖∇_s λ_{ℓ_T}(s, c)‖₂ (Section 4.3,
// reported beside the bound LipschitzCompositeFC = √2 of Proposition
// `lip.upper.bd.cel` to show its tightness). It searches over trials random
// score vectors per class with entries uniform in [−radius, radius], plus
// the two-point configurations s = (u on one coordinate, 0 elsewhere) that
// drive p to an edge of the simplex, and refines the best point of each class
// by coordinate search. Since it is a maximum over points actually visited,
// the result never exceeds the true constant.
func EstimateLipschitzCompositeFC(T mat.Matrix, r *rand.Rand, trials int, radius float64) (float64, error) {
	C, err := CheckSquare("T", T)
	if err != nil {
		return 0, err
	}
	if err := checkNonNegSquare("T", T, C); err != nil {
		return 0, err
	}
	if r == nil {
		return 0, fmt.Errorf("r: nil random source")
	}
	if trials < 1 {
		return 0, fmt.Errorf("trials: %d, want ≥ 1", trials)
	}
	if !(radius > 0) || math.IsInf(radius, 0) {
		return 0, fmt.Errorf("radius: %g, want a finite number > 0", radius)
	}
	norm := func(s []float64, c int) float64 {
		g, err := CompositeFCGrad(T, s, c)
		if err != nil {
			return 0
		}
		return mat.Norm(mat.NewVecDense(C, g), 2)
	}
	best := 0.0
	for c := 0; c < C; c++ {
		if rowSum(T, c) == 0 {
			continue // λ(·,c) ≡ +Inf: no gradient, contributes nothing
		}
		bs := make([]float64, C)
		bv := norm(bs, c)
		try := func(s []float64) {
			if v := norm(s, c); v > bv {
				bv = v
				copy(bs, s)
			}
		}
		s := make([]float64, C)
		for i := 0; i < C; i++ { // edges: one coordinate moved, the rest at 0
			for _, u := range []float64{-radius, -radius / 4, -2, -1, 1, 2, radius / 4, radius} {
				for k := range s {
					s[k] = 0
				}
				s[i] = u
				try(s)
			}
		}
		for t := 0; t < trials; t++ {
			for k := range s {
				s[k] = (2*r.Float64() - 1) * radius
			}
			try(s)
		}
		for step := radius / 4; step > 1e-6; step /= 2 { // coordinate refinement
			improved := true
			for improved {
				improved = false
				for i := 0; i < C; i++ {
					for _, d := range []float64{step, -step} {
						copy(s, bs)
						s[i] += d
						if v := norm(s, c); v > bv {
							bv = v
							copy(bs, s)
							improved = true
						}
					}
				}
			}
		}
		if bv > best {
			best = bv
		}
	}
	return best, nil
}

// rowSum returns Σ_j T(i,j).
func rowSum(T mat.Matrix, i int) float64 {
	_, c := T.Dims()
	s := 0.0
	for j := 0; j < c; j++ {
		s += T.At(i, j)
	}
	return s
}
