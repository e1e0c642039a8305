package theory

import (
	"fmt"
	"math"
)

// KL returns the Kullback–Leibler divergence
//
//	KL(p‖q) = Σ_i p_i log(p_i/q_i)   (natural log)
//
// of p from q, both in Δ^C (App. B, the line after
// `equation-definition: KL divergence`), with the conventions 0·log(0/q) = 0
// and KL = +Inf when some q_i = 0 < p_i.
//
// KL evaluates Σ_i p_i log(p_i/q_i) = Σ_i q_i φ((p_i−q_i)/q_i) + Σ_i (p_i − q_i)
// with φ(r) = (1+r)log(1+r) − r ≥ 0 (φ by its power series for |r| < 1e-2).
// For p, q in the simplex the last sum is 0 up to the rounding of the inputs'
// sums, and the first is a sum of non-negative terms, so the result is
// accurate to a few ulps relative even when p ≈ q, where
// KL ≈ ½Σ(p_i−q_i)²/q_i and the textbook sum cancels catastrophically. It is
// non-negative up to the sum mismatch Σp − Σq (≤ 2·SimplexTol).
//
// Note: App. B writes KL(p‖q) = ℓ̲(p,q) − ℓ̲(p,p) with ℓ̲(q,p) := Σ_i −p_i log q_i
// (`equation-definition: Bayes risk - log loss`); with that ℓ̲ the right-hand
// side is Σ_i −q_i log p_i + Σ_i p_i log p_i, which is not KL(p‖q). The
// consistent reading, used here and in the proof of Lemma `YW_lemma:KL`, is
// KL(p‖q) = ℓ̲(q,p) − ℓ̲(p,p). See PAPER_MAP.md, Findings,
// "Sections 2–3".
func KL(p, q []float64) (float64, error) {
	if err := CheckSimplex("p", p, SimplexTol); err != nil {
		return 0, err
	}
	if err := CheckSimplex("q", q, SimplexTol); err != nil {
		return 0, err
	}
	if len(p) != len(q) {
		return 0, fmt.Errorf("q: has %d entries, want %d (= len(p))", len(q), len(p))
	}
	return klUnchecked(p, q), nil
}

func klUnchecked(p, q []float64) float64 {
	s, mismatch := 0.0, 0.0
	for i, pi := range p {
		qi := q[i]
		mismatch += pi - qi
		switch {
		case pi == 0:
			// q_i·φ(−1) = q_i: the term −p_i + q_i of the rearranged sum.
			s += qi
		case qi == 0:
			return math.Inf(1)
		default:
			r := (pi - qi) / qi
			if math.IsInf(r, 1) { // q_i subnormal: fall back to the direct form
				s += pi*(math.Log(pi)-math.Log(qi)) - pi + qi
				continue
			}
			s += qi * phi(r)
		}
	}
	return s + mismatch
}

// phi returns φ(r) = (1+r)·log(1+r) − r for r ≥ −1, accurately near r = 0.
func phi(r float64) float64 {
	if math.Abs(r) >= 1e-2 {
		if r == -1 {
			return 1
		}
		return (1+r)*math.Log1p(r) - r
	}
	// φ(r) = Σ_{k≥2} (−r)^k / (k(k−1)); |r| < 1e-2 makes 12 terms exact to
	// far below one ulp.
	s := 0.0
	pow := r * r
	for k := 2; k < 14; k++ {
		s += pow / float64(k*(k-1))
		pow *= -r
	}
	return s
}

// L1Distance returns ‖p − q‖₁ = Σ_i |p_i − q_i| for vectors of equal length
// (App. B, Pinsker inequality `theorem: Pinsker inequality` and Lemma
// `lemma: L1 norm upper bounds ZO divergence`).
func L1Distance(p, q []float64) (float64, error) {
	if len(p) != len(q) {
		return 0, fmt.Errorf("q: has %d entries, want %d (= len(p))", len(q), len(p))
	}
	if len(p) == 0 {
		return 0, fmt.Errorf("p: empty vector")
	}
	s := 0.0
	for i := range p {
		if math.IsNaN(p[i]) || math.IsInf(p[i], 0) {
			return 0, fmt.Errorf("p: entry %d is %v, want a finite number", i, p[i])
		}
		if math.IsNaN(q[i]) || math.IsInf(q[i], 0) {
			return 0, fmt.Errorf("q: entry %d is %v, want a finite number", i, q[i])
		}
		s += math.Abs(p[i] - q[i])
	}
	return s, nil
}

// CrossEntropy returns ℓ̲(q, p) = E_{y∼p} ℓ^log(q, y) = Σ_i −p_i log q_i, the
// cross entropy of q relative to p, with 0·log 0 = 0 and +Inf when some
// q_i = 0 < p_i (App. B, `equation-definition: Bayes risk - log loss`; note
// the argument order: the first argument is the prediction q, the second the
// distribution p of the label, as in the paper).
func CrossEntropy(q, p []float64) (float64, error) {
	if err := CheckSimplex("q", q, SimplexTol); err != nil {
		return 0, err
	}
	if err := CheckSimplex("p", p, SimplexTol); err != nil {
		return 0, err
	}
	if len(p) != len(q) {
		return 0, fmt.Errorf("p: has %d entries, want %d (= len(q))", len(p), len(q))
	}
	return innerRisk(LogLoss, p, q), nil
}
