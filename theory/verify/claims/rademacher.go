package claims

// Claims of Appendix C (proof of Theorem `thm: geb`): the vector-contraction
// steps `vec.rad.ineq`, `lemma: multi.rad.1` and `multi.rad.lemma`, and the
// five properties of the weighted Rademacher complexity
// (`supp.prop.weighted_rad_properties`). Every expectation over Rademacher
// signs here is computed exactly, by enumerating all sign vectors
// (theory.WeightedRadExact), so the only tolerance is float64 rounding
// (radTol).

import (
	"fmt"
	"math"
	"math/rand"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

func init() {
	register(
		tested(verify.Claim{
			Label:        "vec.rad.ineq",
			Kind:         verify.Theorem,
			RatioFloor:   0.99,
			Section:      "App. C",
			Statement:    "‖v‖₂ ≤ √2·E_ε|Σ_m v_m ε_m| for every v ∈ ℝ^M (Szarek's Khintchine constant, used in Lemma multi.rad.1)",
			NegativeName: "constant 1 in place of √2",
		}, radCheckVecIneq, "vec.rad.ineq", math.Sqrt2, 1),
		tested(verify.Claim{
			Label:        "lemma: multi.rad.1",
			Kind:         verify.Theorem,
			RatioFloor:   0.99,
			Section:      "App. C",
			Statement:    "E_ε sup_f εaλ(f(x)) + φ(f) ≤ E_{ε_c} sup_f √2·a|λ|Σ_c ε_c f_c(x) + φ(f) for Lipschitz λ: ℝ^C→ℝ",
			NegativeName: "√2 dropped",
		}, radCheckMulti1, "lemma: multi.rad.1", math.Sqrt2, 1),
		tested(verify.Claim{
			Label:        "multi.rad.lemma",
			Kind:         verify.Theorem,
			RatioFloor:   0.99,
			Section:      "App. C",
			Statement:    "E sup_f Σ_i ε_i w_i λ_i(f(x_i)) ≤ √2·E sup_f Σ_i w_i|λ_i| Σ_c ε_{i,c} f_c(x_i)",
			NegativeName: "√2 dropped",
		}, radCheckMultiLemma, "multi.rad.lemma", math.Sqrt2, 1),
	)

	props := []verify.Claim{
		tested(verify.Claim{
			Label: "supp.prop.rad: subset", Section: "App. C",
			Kind:         verify.Definitional,
			RatioFloor:   0.99,
			Statement:    "𝒢 ⊂ ℋ ⇒ Rad_{S,a}(𝒢) ≤ Rad_{S,a}(ℋ)",
			NegativeName: "Rad with inf over 𝒢 in place of sup",
		}, radCheckSubset, "supp.prop.rad: subset", radFinite, radFiniteMin),
		tested(verify.Claim{
			Label: "supp.prop.rad: sum", Section: "App. C",
			Kind:         verify.Definitional,
			Statement:    "Rad_{S,a}(𝒢₁+𝒢₂) = Rad_{S,a}(𝒢₁) + Rad_{S,a}(𝒢₂)",
			NegativeName: "Rad with |Σ a_iε_i g(x_i)| (the absolute-value variant)",
		}, radCheckSum, "supp.prop.rad: sum", radFinite, radFiniteAbs),
		tested(verify.Claim{
			Label: "supp.prop.rad: mult", Section: "App. C",
			Kind:         verify.IdentityKind,
			Statement:    "Rad_{S,a}(c₀𝒢) = |c₀|·Rad_{S,a}(𝒢) for every c₀ ∈ ℝ",
			NegativeName: "c₀ in place of |c₀|",
		}, radCheckMult, "supp.prop.rad: mult",
			func(c0, r float64) float64 { return math.Abs(c0) * r }, func(c0, r float64) float64 { return c0 * r }),
		tested(verify.Claim{
			Label: "supp.prop.rad: conv", Section: "App. C",
			Kind:         verify.Definitional,
			Statement:    "Rad_{S,a}(conv 𝒢) = Rad_{S,a}(𝒢)",
			NegativeName: "affine (extrapolating) combinations taken as the hull",
		}, radCheckConv, "supp.prop.rad: conv", false, true),
		tested(verify.Claim{
			Label: "supp.prop.rad: lip", Section: "App. C",
			Kind:         verify.Theorem,
			RatioFloor:   0.99,
			Statement:    "Rad_{S,a}(μ∘𝒢) ≤ |μ|·Rad_{S,a}(𝒢) for Lipschitz μ: ℝ→ℝ",
			NegativeName: "Rad with |Σ a_iε_i g(x_i)| (contraction then needs a factor 2 and μ(0)=0)",
		}, radCheckLip, "supp.prop.rad: lip", radFinite, radFiniteAbs),
	}
	register(props...)
	verify.Register(verify.Claim{
		Label:      "supp.prop.weighted_rad_properties",
		Kind:       verify.Theorem,
		RatioFloor: 0.99,
		Section:    "App. C",
		Statement:  "Rad_{S,a} is monotone, additive, absolutely homogeneous, convex-hull invariant and contracts under Lipschitz maps (items 1–5)",
		Check: func(cfg verify.Config) verify.Outcome {
			var parts []verify.Outcome
			for _, c := range props {
				parts = append(parts, c.Check(cfg))
			}
			// Bound and Identity parts: the worst ratio reported is the largest,
			// which for the identities is 1 up to rounding.
			return verify.Merge(verify.Bound, parts...)
		},
		Negative: func(cfg verify.Config) verify.Outcome {
			// The items' negative controls: the claim is caught if every one is.
			out := verify.Outcome{WorstRatio: math.NaN(), Failed: true}
			for _, c := range props {
				n := c.Negative(cfg)
				out.Cases += n.Cases
				if !n.Failed {
					out.Failed = false
					out.Counterexample = ""
					return out
				}
				out.Counterexample += n.Counterexample + "\n"
			}
			return out
		},
		NegativeName: "each item's negative control (all five must be caught)",
	})
}

// radCheckVecIneq checks ‖v‖₂ ≤ k·E|Σ v_m ε_m| with the expectation
// enumerated exactly over 2^M sign vectors, M ≤ 12. Vectors are Gaussian,
// sparse, or (adversarially) have two equal dominant entries, where the
// constant √2 is attained (v = (1,1): ‖v‖ = √2, E|ε₁+ε₂| = 1).
func radCheckVecIneq(cfg verify.Config, name string, k float64) verify.Outcome {
	gen := verify.Gen(func(r *rand.Rand, size int) any {
		M := 1 + r.Intn(12)
		v := make([]float64, M)
		mode := r.Intn(3)
		for i := range v {
			switch mode {
			case 0:
				v[i] = r.NormFloat64()
			case 1:
				if r.Intn(3) == 0 {
					v[i] = r.NormFloat64()
				}
			default:
				v[i] = 1e-3 * r.NormFloat64() * float64(100-size) / 100
			}
		}
		if mode == 2 && M >= 2 {
			v[0], v[1] = 1, 1
		}
		v[r.Intn(M)] += 1e-6 // never the zero vector
		return v
	})
	return verify.ForAll(cfg, name, verify.Bound, gen, func(v []float64) verify.Case {
		lhs := math.Sqrt(radDot(v, v))
		e, err := theory.WeightedRadExact(len(v), func(eps []float64) float64 {
			return math.Abs(radDot(v, eps))
		})
		if err != nil {
			return verify.Case{Detail: err.Error()}
		}
		rhs := k * e
		return radCase(lhs, rhs, radLE(lhs, rhs), fmt.Sprintf("v=%v", v))
	})
}

func radDot(x, y []float64) float64 {
	s := 0.0
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

type radMulti1Case struct {
	a    float64
	lam  radLipFn
	fx   [][]float64 // f(x) ∈ ℝ^C for each f ∈ ℋ
	phi  []float64
	desc string
}

// radCheckMulti1 checks Lemma `lemma: multi.rad.1` for a finite ℋ: both
// expectations are exact (2 and 2^C sign vectors). The generator includes
// the tight configuration ℋ = {0, t·1} with φ = 0 and λ = ‖·‖₂, where the
// two sides agree and √2 cannot be lowered.
func radCheckMulti1(cfg verify.Config, name string, k float64) verify.Outcome {
	gen := verify.Gen(func(r *rand.Rand, size int) any {
		C := 1 + r.Intn(4)
		H := 1 + r.Intn(6)
		cs := radMulti1Case{a: logUnif(r, 0.1, 10), lam: radRandLip(r, C)}
		scale := logUnif(r, 0.1, 20)
		for h := 0; h < H; h++ {
			cs.fx = append(cs.fx, radBallPoint(r, C, scale, r.Intn(2) == 0))
			phi := 0.0
			if r.Intn(3) > 0 {
				phi = r.NormFloat64() * scale
			}
			cs.phi = append(cs.phi, phi)
		}
		if r.Intn(4) == 0 && C >= 2 { // tight case
			t := scale
			one := make([]float64, C)
			for c := range one {
				if c < 2 {
					one[c] = t
				}
			}
			cs.fx = [][]float64{make([]float64, C), one}
			cs.phi = []float64{0, 0}
			cs.lam = radLipFn{"‖v‖₂", 1, func(v []float64) float64 { return math.Sqrt(radDot(v, v)) }}
		}
		return cs
	})
	return verify.ForAll(cfg, name, verify.Bound, gen, func(cs radMulti1Case) verify.Case {
		H := len(cs.fx)
		C := len(cs.fx[0])
		// LHS: ½[max_f(aλ(f)+φ) + max_f(−aλ(f)+φ)].
		hi, lo := math.Inf(-1), math.Inf(-1)
		for h := 0; h < H; h++ {
			l := cs.a * cs.lam.f(cs.fx[h])
			hi = math.Max(hi, l+cs.phi[h])
			lo = math.Max(lo, -l+cs.phi[h])
		}
		lhs := (hi + lo) / 2
		phiMax := math.Inf(-1)
		for _, p := range cs.phi {
			phiMax = math.Max(phiMax, p)
		}
		rhs, err := theory.WeightedRadExact(C, func(eps []float64) float64 {
			best := math.Inf(-1)
			for h := 0; h < H; h++ {
				best = math.Max(best, k*cs.a*cs.lam.L*radDot(eps, cs.fx[h])+cs.phi[h])
			}
			return best
		})
		if err != nil {
			return verify.Case{Detail: err.Error()}
		}
		// Both sides are ≥ max_f φ(f) (take f = argmax φ inside the sup);
		// subtracting it makes the reported ratio meaningful.
		lhs, rhs = lhs-phiMax, rhs-phiMax
		return radCase(lhs, rhs, radLE(lhs, rhs), fmt.Sprintf("a=%g λ=%s f(x)=%v φ=%v", cs.a, cs.lam.name, cs.fx, cs.phi))
	})
}

type radMultiCase struct {
	w   []float64
	lam []radLipFn
	fx  [][][]float64 // fx[h][i] = f_h(x_i) ∈ ℝ^C
}

// radCheckMultiLemma checks Lemma `multi.rad.lemma` for a finite ℋ of
// ℝ^C-valued functions on N points: the left side enumerates 2^N signs
// (theory.FiniteClassSup on the values w_i-weighted λ_i(f(x_i))), the right
// side 2^{NC} signs (theory.FiniteVectorClassSup with a_i = w_i|λ_i|).
func radCheckMultiLemma(cfg verify.Config, name string, k float64) verify.Outcome {
	gen := verify.Gen(func(r *rand.Rand, size int) any {
		C := 1 + r.Intn(3)
		N := 1 + r.Intn(12/C)
		if N > 4 {
			N = 4
		}
		H := 1 + r.Intn(5)
		cs := radMultiCase{}
		scale := logUnif(r, 0.1, 20)
		for i := 0; i < N; i++ {
			cs.w = append(cs.w, logUnif(r, 0.05, 5))
			cs.lam = append(cs.lam, radRandLip(r, C))
		}
		for h := 0; h < H; h++ {
			var f [][]float64
			for i := 0; i < N; i++ {
				f = append(f, radBallPoint(r, C, scale, r.Intn(2) == 0))
			}
			cs.fx = append(cs.fx, f)
		}
		if r.Intn(4) == 0 && C >= 2 { // the tight pair {0, t·(1,1,0…)} at every point, λ_i = ‖·‖
			z, one := make([][]float64, N), make([][]float64, N)
			for i := 0; i < N; i++ {
				z[i] = make([]float64, C)
				one[i] = make([]float64, C)
				one[i][0], one[i][1] = scale, scale
				cs.lam[i] = radLipFn{"‖v‖₂", 1, func(v []float64) float64 { return math.Sqrt(radDot(v, v)) }}
			}
			cs.fx = [][][]float64{z, one}
		}
		return cs
	})
	return verify.ForAll(cfg, name, verify.Bound, gen, func(cs radMultiCase) verify.Case {
		N, H, C := len(cs.w), len(cs.fx), len(cs.fx[0][0])
		vals := mat.NewDense(H, N, nil)
		vecs := make([]mat.Matrix, H)
		aR := make([]float64, N)
		for i := range aR {
			aR[i] = cs.w[i] * cs.lam[i].L
		}
		for h := 0; h < H; h++ {
			V := mat.NewDense(N, C, nil)
			for i := 0; i < N; i++ {
				vals.Set(h, i, cs.lam[i].f(cs.fx[h][i]))
				V.SetRow(i, cs.fx[h][i])
			}
			vecs[h] = V
		}
		lhs := radFinite(vals, cs.w)
		rhs := k * radFiniteVec(vecs, aR)
		names := make([]string, N)
		for i := range names {
			names[i] = cs.lam[i].name
		}
		return radCase(lhs, rhs, radLE(lhs, rhs), fmt.Sprintf("w=%v λ=%v f(x_i)=%v", cs.w, names, cs.fx))
	})
}

// radFiniteMin is a deliberately wrong Rad: E_ε inf_g instead of sup_g.
func radFiniteMin(values *mat.Dense, a []float64) float64 {
	neg := mat.DenseCopyOf(values)
	neg.Scale(-1, neg)
	return -radFinite(neg, a) // E min_g X = −E max_g(−X)
}

// radFiniteAbs is the absolute-value variant E_ε sup_g |Σ a_iε_i g(x_i)|.
func radFiniteAbs(values *mat.Dense, a []float64) float64 {
	G, M := values.Dims()
	both := mat.NewDense(2*G, M, nil)
	for g := 0; g < G; g++ {
		for i := 0; i < M; i++ {
			both.Set(g, i, values.At(g, i))
			both.Set(G+g, i, -values.At(g, i))
		}
	}
	return radFinite(both, a)
}

// radClass draws a finite class: G functions on M points, values of scale s.
func radClass(r *rand.Rand, G, M int, s float64) *mat.Dense {
	V := mat.NewDense(G, M, nil)
	for g := 0; g < G; g++ {
		for i := 0; i < M; i++ {
			V.Set(g, i, s*r.NormFloat64())
		}
	}
	return V
}

type radPropCase struct {
	a      []float64
	G1, G2 *mat.Dense
	c0     float64
	mu     radLipFn // a real Lipschitz function (C = 1)
	seed   int64
}

func radPropGen(r *rand.Rand, size int) radPropCase {
	M := 1 + r.Intn(10)
	s := logUnif(r, 0.1, 10)
	cs := radPropCase{a: radWeights(r, M), G1: radClass(r, 1+r.Intn(6), M, s), G2: radClass(r, 1+r.Intn(6), M, s),
		c0: r.NormFloat64() * 3, seed: r.Int63()}
	if r.Intn(5) == 0 {
		cs.c0 = 0
	}
	cs.mu = radRandMu(r)
	return cs
}

// radRandMu draws μ: ℝ→ℝ with known Lipschitz constant L: L·tanh(t+b),
// L·|t−b|, L·max(t−b,0), L·sin(t), or the shift L·t + b.
func radRandMu(r *rand.Rand) radLipFn {
	L := logUnif(r, 0.2, 3)
	b := r.NormFloat64()
	switch r.Intn(5) {
	case 0:
		return radLipFn{fmt.Sprintf("%.3g·tanh(t%+.3g)", L, b), L, func(v []float64) float64 { return L * math.Tanh(v[0]+b) }}
	case 1:
		return radLipFn{fmt.Sprintf("%.3g·|t%+.3g|", L, -b), L, func(v []float64) float64 { return L * math.Abs(v[0]-b) }}
	case 2:
		return radLipFn{fmt.Sprintf("%.3g·relu(t%+.3g)", L, -b), L, func(v []float64) float64 { return L * math.Max(v[0]-b, 0) }}
	case 3:
		return radLipFn{fmt.Sprintf("%.3g·sin(t)", L), L, func(v []float64) float64 { return L * math.Sin(v[0]) }}
	default:
		return radLipFn{fmt.Sprintf("%.3g·t%+.3g", L, b), L, func(v []float64) float64 { return L*v[0] + b }}
	}
}

// radCheckSubset checks item 1 with ℋ = 𝒢₁ ∪ 𝒢₂ ⊃ 𝒢₁.
func radCheckSubset(cfg verify.Config, name string, rad func(*mat.Dense, []float64) float64) verify.Outcome {
	return verify.Property(cfg, name, verify.Bound, radPropGen, func(cs radPropCase) verify.Case {
		var H mat.Dense
		H.Stack(cs.G1, cs.G2)
		lhs, rhs := rad(cs.G1, cs.a), rad(&H, cs.a)
		return radCase(lhs, rhs, radLE(lhs, rhs), fmt.Sprintf("a=%v G=%v H=%v", cs.a, mat.Formatted(cs.G1, mat.Squeeze()), mat.Formatted(&H, mat.Squeeze())))
	})
}

// radCheckSum checks item 2 with 𝒢₁+𝒢₂ built as all |𝒢₁|·|𝒢₂| sums.
func radCheckSum(cfg verify.Config, name string, rad func(*mat.Dense, []float64) float64) verify.Outcome {
	return verify.Property(cfg, name, verify.Identity, radPropGen, func(cs radPropCase) verify.Case {
		g1, M := cs.G1.Dims()
		g2, _ := cs.G2.Dims()
		S := mat.NewDense(g1*g2, M, nil)
		for p := 0; p < g1; p++ {
			for q := 0; q < g2; q++ {
				for i := 0; i < M; i++ {
					S.Set(p*g2+q, i, cs.G1.At(p, i)+cs.G2.At(q, i))
				}
			}
		}
		lhs, rhs := rad(S, cs.a), rad(cs.G1, cs.a)+rad(cs.G2, cs.a)
		return radCase(lhs, rhs, relEq(lhs, rhs, radTol), fmt.Sprintf("a=%v G1=%v G2=%v", cs.a, mat.Formatted(cs.G1, mat.Squeeze()), mat.Formatted(cs.G2, mat.Squeeze())))
	})
}

// radCheckMult checks item 3; rhs is the claimed value of Rad(c₀𝒢) given
// c₀ and Rad(𝒢).
func radCheckMult(cfg verify.Config, name string, rhsOf func(c0, rad float64) float64) verify.Outcome {
	return verify.Property(cfg, name, verify.Identity, radPropGen, func(cs radPropCase) verify.Case {
		var S mat.Dense
		S.Scale(cs.c0, cs.G1)
		lhs, rhs := radFinite(&S, cs.a), rhsOf(cs.c0, radFinite(cs.G1, cs.a))
		return radCase(lhs, rhs, relEq(lhs, rhs, radTol), fmt.Sprintf("c0=%g a=%v G=%v", cs.c0, cs.a, mat.Formatted(cs.G1, mat.Squeeze())))
	})
}

// radCheckConv checks item 4: adding to 𝒢 any number of its convex
// combinations (random weights in Δ^k over random subsets, and midpoints)
// leaves Rad unchanged — the supremum of the linear functional
// g ↦ Σ a_iε_i g(x_i) over conv 𝒢 is attained at a point of 𝒢. With affine
// set, the "combinations" get one weight −½ (outside the hull): the
// negative control.
func radCheckConv(cfg verify.Config, name string, affine bool) verify.Outcome {
	return verify.Property(cfg, name, verify.Identity, radPropGen, func(cs radPropCase) verify.Case {
		r := rand.New(rand.NewSource(cs.seed))
		G, M := cs.G1.Dims()
		extra := 1 + r.Intn(8)
		H := mat.NewDense(G+extra, M, nil)
		H.Slice(0, G, 0, M).(*mat.Dense).Copy(cs.G1)
		for e := 0; e < extra; e++ {
			lam := radSimplex(r, G, r.Intn(2) == 0)
			if affine {
				for j := range lam {
					lam[j] *= 1.5
				}
				lam[r.Intn(G)] -= 0.5
			}
			for i := 0; i < M; i++ {
				s := 0.0
				for j := 0; j < G; j++ {
					s += lam[j] * cs.G1.At(j, i)
				}
				H.Set(G+e, i, s)
			}
		}
		lhs, rhs := radFinite(H, cs.a), radFinite(cs.G1, cs.a)
		return radCase(lhs, rhs, relEq(lhs, rhs, radTol), fmt.Sprintf("a=%v G=%v hull points=%v", cs.a, mat.Formatted(cs.G1, mat.Squeeze()), mat.Formatted(H, mat.Squeeze())))
	})
}

// radCheckLip checks item 5 for μ from radRandMu (known constant |μ|).
func radCheckLip(cfg verify.Config, name string, rad func(*mat.Dense, []float64) float64) verify.Outcome {
	return verify.Property(cfg, name, verify.Bound, radPropGen, func(cs radPropCase) verify.Case {
		G, M := cs.G1.Dims()
		U := mat.NewDense(G, M, nil)
		for g := 0; g < G; g++ {
			for i := 0; i < M; i++ {
				U.Set(g, i, cs.mu.f([]float64{cs.G1.At(g, i)}))
			}
		}
		lhs, rhs := rad(U, cs.a), cs.mu.L*rad(cs.G1, cs.a)
		return radCase(lhs, rhs, radLE(lhs, rhs), fmt.Sprintf("μ=%s a=%v G=%v", cs.mu.name, cs.a, mat.Formatted(cs.G1, mat.Squeeze())))
	})
}
