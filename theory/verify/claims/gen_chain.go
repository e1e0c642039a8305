package claims

// Proof-chain parts of the generalization bounds.
//
// The high-probability checks of `rad.lips.lemma`, `lemma: gen` and
// `thm: geb` compare a sampled deviation with the bound; they are loose by
// nature (the worst ratios reached are 0.86, 0.84 and 0.11), so a factor
// lost inside a bound goes unseen. The proofs, though, chain the three
// results by steps that are tight:
//
//   - rad.lips → lemma gen: Lemma `multi.rad.lemma` gives Rad_loss ≤ √2·Rad_vec,
//     so the rad.lips bound at Rad_loss = √2·Rad_vec must not exceed the
//     lemma-gen bound at Rad_vec — with equality, ratio 1;
//   - lemma gen → geb: with the exact E_{S,ε} sup of the class put into the
//     lemma-gen bound, the geb bound must dominate it. For points whose
//     features are orthogonal (a Dirac-like kernel, k(x,y) = K²·1{x=y}, on an
//     infinite 𝒳, where the sample has no repeated point almost surely) the
//     supremum over the product RKHS ball 𝒢₁ is, for every sign draw,
//     Σ_c R‖Σ_j a_j ε_{j,c} k(x_j,·)‖ = C·R·K·√(Σ_j a_j²), so the expectation
//     is exact and equals the kernel bound; likewise C·α·β·√(Σ a_j²) for the
//     linear class 𝒩₁ on orthogonal x_j of norm α. The remaining slack of geb
//     is α_i(c) ≤ 1 and max_i over |λ_i|₀, which the generator drives to 0
//     (α_i near a vertex, the other classes' n_{i,c} large, equal |λ_i|₀).
//
// Both sides are the implementation's functions (theory.RadLipsBound,
// LemmaGenBound, GEBBound, B1, B2), the class expectation comes from the
// closed form above, computed here; the concentration-only part (R = 0)
// and the class parts are separate, so that a loosened term cannot hide
// behind a tight one.

import (
	"fmt"
	"math"
	"math/rand"
	"strings"

	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

// chainCase is one LMNTM setting with the log loss's |λ| = √2.
type chainCase struct {
	s     theory.LMNTMSetting
	delta float64
	R, K  float64 // RKHS radius and sup √k(x,x); for 𝒩₁: β and the point norm α
}

func (cs chainCase) String() string {
	return fmt.Sprintf("C=%d N=%d δ=%.3g R=%.3g K=%.3g w=%.3g α=%.3g n=%v Lip0=%.3g",
		cs.s.NumClasses(), len(cs.s.W), cs.delta, cs.R, cs.K, cs.s.W, cs.s.Alpha, cs.s.N, cs.s.Lip0)
}

// genChainCase draws C ∈ [2,6], N ∈ [2,4] groups; in half the cases the
// tight configuration (α_i near a vertex, n large off it, equal |λ_i|₀).
//
// With spread, the tight configuration keeps equal |λ_i|₀ but draws α_i and
// n_{i,c} at random: the chain into ClassGEBBound has no α slack, so it is
// tight there too, and a bound that drops a square of α_i(c) shows.
func genChainCase(r *rand.Rand, withClass, spread bool) chainCase {
	C, N := 2+r.Intn(5), 2+r.Intn(3) // N ≥ 2: with one group w = w² and a wrong power of w hides
	tight := r.Intn(2) == 0
	s := theory.LMNTMSetting{W: make([]float64, N), Alpha: make([][]float64, N), N: make([][]int, N),
		Lip: make([]float64, N), Lip0: make([]float64, N)}
	lip0 := logUnif(r, 0.05, 5)
	for i := 0; i < N; i++ {
		s.W[i] = logUnif(r, 0.05, 1)
		s.Lip[i] = theory.LogLossLip
		s.Lip0[i] = lip0
		if !tight {
			s.Lip0[i] = logUnif(r, 0.05, 5)
		}
		a := make([]float64, C)
		n := make([]int, C)
		top := r.Intn(C)
		eps := logUnif(r, 1e-6, 0.5)
		for c := range a {
			if tight && !spread {
				a[c] = eps / float64(C-1)
				n[c] = int(logUnif(r, 1e5, 1e7))
			} else {
				a[c] = logUnif(r, 0.05, 1)
				n[c] = int(logUnif(r, 1, 1e4))
			}
		}
		if tight && !spread {
			a[top] = 1 - eps
			n[top] = 1 + r.Intn(20)
		}
		s.Alpha[i], s.N[i] = normalize(a), n
	}
	normalize(s.W)
	cs := chainCase{s: s, delta: logUnif(r, 0.01, 1)}
	if withClass {
		cs.R, cs.K = logUnif(r, 0.1, 5), logUnif(r, 0.1, 2)
	}
	return cs
}

// orthoSup returns the exact E_{S,ε} sup over a product class whose
// per-coordinate supremum is scale·‖Σ_j a_j ε_{j,c} φ(x_j)‖ with orthogonal
// φ(x_j) of norm 1: C·scale·√(Σ_j a_j²), a_j = w_i|λ_i|α_i(c)/n_{i,c} for
// each of the n_{i,c} points of (i,c).
func orthoSup(s theory.LMNTMSetting, scale float64) float64 {
	v := 0.0
	for i, w := range s.W {
		for c, n := range s.N[i] {
			a := w * s.Lip[i] * s.Alpha[i][c] / float64(n)
			v += float64(n) * a * a
		}
	}
	return float64(s.NumClasses()) * scale * math.Sqrt(v)
}

// checkGEBChain checks lemma gen (at the exact class expectation) ≤ geb for
// class "rkhs" (q = 1), "mlp1" (q = 2, m = 1) or "conc" (R = 0: the
// concentration terms alone).
func checkGEBChain(class string) func(verify.Config) verify.Outcome {
	return chainPart("thm: geb/chain-"+class, class, theory.GEBBound)
}

// chainPart checks lemma gen (at the exact class expectation) ≤ bound on
// the stream name, for the class as in checkGEBChain; bound is GEBBound
// (Theorem `thm: geb`) or ClassGEBBound (the second displays of
// `prop: kernel_bound` and `prop: MLP_bound`, with
// √(Σ_i w_i² Σ_c α_i(c)²/n_{i,c}): no α slack).
func chainPart(name, class string, bound func(theory.LMNTMSetting, float64, float64, float64) (float64, error)) func(verify.Config) verify.Outcome {
	return func(cfg verify.Config) verify.Outcome {
		spread := strings.Contains(name, "second display")
		gen := verify.Gen(func(r *rand.Rand, _ int) any { return genChainCase(r, class != "conc", spread) })
		return verify.ForAll(cfg, name, verify.Bound, gen, func(cs chainCase) verify.Case {
			C := float64(cs.s.NumClasses())
			var A, B float64
			switch class {
			case "rkhs":
				A, B = math.Sqrt(C)*cs.R*cs.K, theory.B1(cs.R, cs.K)
			case "mlp1":
				// R plays β, K the norm α of the orthogonal points.
				A, B = math.Sqrt(C)*cs.K*cs.R, theory.B2(1, cs.K, cs.R)
			}
			esup := orthoSup(cs.s, cs.R*cs.K)
			lhs, err1 := theory.LemmaGenBound(cs.s, cs.delta, A, esup)
			rhs, err2 := bound(cs.s, cs.delta, A, B)
			if err1 != nil || err2 != nil {
				return verify.Case{Detail: fmt.Sprintf("%v: %v %v", cs, err1, err2)}
			}
			return verify.Case{LHS: lhs, RHS: rhs, OK: lhs <= rhs*(1+chainTol),
				Detail: fmt.Sprintf("%v: lemma-gen bound at the exact E sup %.6g (A=%.4g B=%.4g)", cs, esup, A, B)}
		})
	}
}

// checkRadLipsChain checks rad.lips bound(Rad_loss = √2·r) ≤ lemma-gen
// bound(Rad_vec = r): the step Lemma `multi.rad.lemma` of the proof of
// `lemma: gen`, with equality. The concentration term is the same function
// on both sides, so it is set to 0 (A = 0, |λ_i|₀ = 0): otherwise cases where
// it dominates would reach ratio 1 even with the Rademacher factor of one
// side wrong.
func checkRadLipsChain(cfg verify.Config) verify.Outcome {
	gen := verify.Gen(func(r *rand.Rand, _ int) any {
		cs := genChainCase(r, true, false)
		for i := range cs.s.Lip0 {
			cs.s.Lip0[i] = 0
		}
		return [3]any{cs, logUnif(r, 1e-3, 10), 0.0}
	})
	return verify.ForAll(cfg, "lemma: gen/from rad.lips", verify.Bound, gen, func(t [3]any) verify.Case {
		cs, rv, A := t[0].(chainCase), t[1].(float64), t[2].(float64)
		lhs, err1 := theory.RadLipsBound(cs.s, cs.delta, A, math.Sqrt2*rv)
		rhs, err2 := theory.LemmaGenBound(cs.s, cs.delta, A, rv)
		if err1 != nil || err2 != nil {
			return verify.Case{Detail: fmt.Sprintf("%v: %v %v", cs, err1, err2)}
		}
		return verify.Case{LHS: lhs, RHS: rhs, OK: lhs <= rhs*(1+chainTol),
			Detail: fmt.Sprintf("%v: Rad_vec=%.4g A=%.4g", cs, rv, A)}
	})
}
