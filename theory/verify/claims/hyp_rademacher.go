package claims

// Hypotheses of the claims of Section 4.3 and Appendix C (weighted
// Rademacher complexity, contraction, the class bounds and the
// generalization bounds): the statements' own, those of the classes of
// §4.3 and their constants, of the empirical risk's weights and sample
// sizes, of the norm a "Lipschitz" refers to, and of the lemmas the proofs
// apply.

import (
	"fmt"
	"math"
	"math/rand"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

// Probes of the sampled bounds cost ≈ 150 simulated samples a case, and
// those of the depth-2 MLP a gradient search a sign vector: their cases are
// capped lower than the pointwise probes'.
const (
	probeLimitSampled = 60
	probeLimitMLP2    = 40
)

// radSignedExact is Rad_{S,a}(𝒢) of a finite class (rows of values) for
// weights a of any sign, by enumerating the 2^M signs: E_ε max_g Σ_i
// a_iε_i v_{g,i}. Written apart from theory's oracles, for the judges.
func radSignedExact(values *mat.Dense, a []float64) float64 {
	G, M := values.Dims()
	total := 0.0
	for code := 0; code < 1<<M; code++ {
		best := math.Inf(-1)
		for g := 0; g < G; g++ {
			s := 0.0
			for i := 0; i < M; i++ {
				e := 1.0
				if code>>i&1 == 1 {
					e = -1
				}
				s += a[i] * e * values.At(g, i)
			}
			best = math.Max(best, s)
		}
		total += best
	}
	return total / float64(int(1)<<M)
}

// radSigned is Rad_{S,a}(𝒢) for weights a of any sign: the values scaled
// by a_i, enumerated with unit weights (theory's oracles take a ≥ 0).
func radSigned(values *mat.Dense, a []float64) float64 {
	G, M := values.Dims()
	V := mat.NewDense(G, M, nil)
	for g := 0; g < G; g++ {
		for i := 0; i < M; i++ {
			V.Set(g, i, a[i]*values.At(g, i))
		}
	}
	ones := make([]float64, M)
	for i := range ones {
		ones[i] = 1
	}
	return radFinite(V, ones)
}

// negOdd is a with every other weight negated.
func negOdd(a []float64) []float64 {
	b := append([]float64(nil), a...)
	for i := range b {
		if i%2 == 1 {
			b[i] = -b[i]
		}
	}
	return b
}

// radNegA is Rad with every other weight negated: a ≥ 0 violated.
func radNegA(values *mat.Dense, a []float64) float64 { return radSigned(values, negOdd(a)) }

// radPropNeg draws a case of the items of `supp.prop.weighted_rad_
// properties` whose weights, every other one negated, have a negative
// entry: M ≥ 2 points, weights positive.
func radPropNeg(r *rand.Rand, size int) radPropCase {
	for {
		cs := radPropGen(r, size)
		if len(cs.a) >= 2 && cs.a[1] > 0 {
			return cs
		}
	}
}

// radPropItem is one item of the proposition on a case with weights a:
// its two sides, by radSignedExact, and whether the relation holds.
func radPropItem(item int, cs radPropCase, a []float64) (lhs, rhs float64, ok bool) {
	G, M := cs.G1.Dims()
	switch item {
	case 1: // 𝒢 ⊂ ℋ = 𝒢₁ ∪ 𝒢₂
		H2, _ := cs.G2.Dims()
		H := mat.NewDense(G+H2, M, nil)
		H.Slice(0, G, 0, M).(*mat.Dense).Copy(cs.G1)
		H.Slice(G, G+H2, 0, M).(*mat.Dense).Copy(cs.G2)
		lhs, rhs = radSignedExact(cs.G1, a), radSignedExact(H, a)
		return lhs, rhs, radLE(lhs, rhs)
	case 2: // 𝒢₁ + 𝒢₂
		H2, _ := cs.G2.Dims()
		S := mat.NewDense(G*H2, M, nil)
		for g := 0; g < G; g++ {
			for h := 0; h < H2; h++ {
				for i := 0; i < M; i++ {
					S.Set(g*H2+h, i, cs.G1.At(g, i)+cs.G2.At(h, i))
				}
			}
		}
		lhs, rhs = radSignedExact(S, a), radSignedExact(cs.G1, a)+radSignedExact(cs.G2, a)
		return lhs, rhs, relEq(lhs, rhs, radTol)
	case 3: // c₀𝒢
		var S mat.Dense
		S.Scale(cs.c0, cs.G1)
		lhs, rhs = radSignedExact(&S, a), math.Abs(cs.c0)*radSignedExact(cs.G1, a)
		return lhs, rhs, relEq(lhs, rhs, radTol)
	case 4: // conv 𝒢, the members the claim's checker adds from cs.seed
		r := rand.New(rand.NewSource(cs.seed))
		extra := 1 + r.Intn(8)
		H := mat.NewDense(G+extra, M, nil)
		H.Slice(0, G, 0, M).(*mat.Dense).Copy(cs.G1)
		for e := 0; e < extra; e++ {
			lam := radSimplex(r, G, r.Intn(2) == 0)
			for i := 0; i < M; i++ {
				s := 0.0
				for j := 0; j < G; j++ {
					s += lam[j] * cs.G1.At(j, i)
				}
				H.Set(G+e, i, s)
			}
		}
		lhs, rhs = radSignedExact(H, a), radSignedExact(cs.G1, a)
		return lhs, rhs, relEq(lhs, rhs, radTol)
	default: // μ∘𝒢
		U := mat.NewDense(G, M, nil)
		for g := 0; g < G; g++ {
			for i := 0; i < M; i++ {
				U.Set(g, i, cs.mu.f([]float64{cs.G1.At(g, i)}))
			}
		}
		lhs, rhs = radSignedExact(U, a), cs.mu.L*radSignedExact(cs.G1, a)
		return lhs, rhs, radLE(lhs, rhs)
	}
}

// radPropCheck is the probe's verdict on item k with Rad of the every
// other weight negated, through theory's oracles (radNegA).
func radPropCheck(item int) func(radPropCase) verify.Case {
	return func(cs radPropCase) verify.Case {
		var lhs, rhs float64
		var ok bool
		switch item {
		case 3:
			var S mat.Dense
			S.Scale(cs.c0, cs.G1)
			lhs, rhs = radNegA(&S, cs.a), math.Abs(cs.c0)*radNegA(cs.G1, cs.a)
			ok = relEq(lhs, rhs, radTol)
		default:
			lhs, rhs, ok = radPropItem(item, cs, negOdd(cs.a)) // the sums are the same; the oracle differs in the judge
		}
		return radCase(lhs, rhs, ok, fmt.Sprintf("item %d, a = %v (every other negated), G=%v", item, negOdd(cs.a), mat.Formatted(cs.G1, mat.Squeeze())))
	}
}

// radPropJudge judges a case of the items with negated weights: the parts
// from the case (the negated weights' signs; the rest are the claim
// generator's: ℋ ⊃ 𝒢, μ with its exact constant, c₀ real), the relation
// recomputed by radSignedExact.
func radPropJudge(item int) verify.Judge[radPropCase] {
	return verify.Judge[radPropCase]{
		Parts: func(cs radPropCase) (map[string]bool, string) {
			neg := false
			for _, v := range negOdd(cs.a) {
				neg = neg || v < 0
			}
			return map[string]bool{"a_i ≥ 0": !neg, "𝒢 ⊂ ℋ": keptByFamily, "μ Lipschitz with constant |μ|": keptByFamily, "c₀ ∈ ℝ": keptByFamily}, ""
		},
		Conclusion: func(cs radPropCase) (bool, string) {
			lhs, rhs, ok := radPropItem(item, cs, negOdd(cs.a))
			return ok, fmt.Sprintf("item %d by enumeration: %.9g against %.9g", item, lhs, rhs)
		},
	}
}

func probeRadNegA(label string, item int) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Violate(cfg, probing(label, "a_i ≥ 0", fmt.Sprintf("item %d with every other weight a_i negated (a_i < 0), M ≥ 2, Rad by exact enumeration", item)),
			probeLimit, radPropNeg, radPropCheck(item), radPropJudge(item))
	}
}

// radPropsAllNeg is the probe of `supp.prop.weighted_rad_properties` with
// negated weights: the five items on each case.
func radPropsAllNeg(cfg verify.Config) verify.ProbeResult {
	const label = "supp.prop.weighted_rad_properties"
	check := func(cs radPropCase) verify.Case {
		for k := 1; k <= 5; k++ {
			if c := radPropCheck(k)(cs); !c.OK {
				return c
			}
		}
		return verify.Case{OK: true}
	}
	j := verify.Judge[radPropCase]{
		Parts: func(cs radPropCase) (map[string]bool, string) {
			m, out := radPropJudge(1).Parts(cs)
			return map[string]bool{"a_i ≥ 0": m["a_i ≥ 0"], "μ Lipschitz with constant |μ|": keptByFamily}, out
		},
		Conclusion: func(cs radPropCase) (bool, string) {
			for k := 1; k <= 5; k++ {
				if ok, d := radPropJudge(k).Conclusion(cs); !ok {
					return false, d
				}
			}
			return true, "items 1–5 hold by enumeration"
		},
	}
	return verify.Violate(cfg, probing(label, "a_i ≥ 0", "items 1–5 with every other weight a_i negated, M ≥ 2, Rad by exact enumeration"), probeLimit, radPropNeg, check, j)
}

// radSubsetNotContained is item 1 with ℋ = 𝒢₂ drawn independently of 𝒢₁,
// which need not contain it.
func radSubsetNotContained(cfg verify.Config) verify.ProbeResult {
	const label = "supp.prop.rad: subset"
	return verify.Violate(cfg, probing(label, "𝒢 ⊂ ℋ", "ℋ = 𝒢₂ drawn independently of 𝒢 = 𝒢₁ (𝒢 ⊄ ℋ), the claim's generator"),
		probeLimit, radPropGen, func(cs radPropCase) verify.Case {
			lhs, rhs := radFinite(cs.G1, cs.a), radFinite(cs.G2, cs.a)
			return radCase(lhs, rhs, radLE(lhs, rhs), fmt.Sprintf("a=%v G=%v H=%v", cs.a, mat.Formatted(cs.G1, mat.Squeeze()), mat.Formatted(cs.G2, mat.Squeeze())))
		}, verify.Judge[radPropCase]{
			Parts: func(cs radPropCase) (map[string]bool, string) {
				return map[string]bool{"𝒢 ⊂ ℋ": rowsContained(cs.G1, cs.G2), "a_i ≥ 0": nonNegVec(cs.a)}, ""
			},
			Conclusion: func(cs radPropCase) (bool, string) {
				lhs, rhs := radSignedExact(cs.G1, cs.a), radSignedExact(cs.G2, cs.a)
				return radLE(lhs, rhs), fmt.Sprintf("Rad(𝒢) = %.9g, Rad(ℋ) = %.9g by enumeration", lhs, rhs)
			},
		})
}

// rowsContained reports whether every row of A is a row of B.
func rowsContained(A, B *mat.Dense) bool {
	ga, M := A.Dims()
	gb, _ := B.Dims()
	for g := 0; g < ga; g++ {
		found := false
		for h := 0; h < gb && !found; h++ {
			same := true
			for i := 0; i < M; i++ {
				same = same && A.At(g, i) == B.At(h, i)
			}
			found = same
		}
		if !found {
			return false
		}
	}
	return true
}

func nonNegVec(a []float64) bool {
	for _, v := range a {
		if v < 0 {
			return false
		}
	}
	return true
}

// radLipUnder is item 5 with the Lipschitz constant understated by half:
// |μ|/2 is not a Lipschitz constant of μ (each μ of radRandMu has |μ| its
// smallest constant).
func radLipUnder(label string) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Violate(cfg, probing(label, "μ Lipschitz with constant |μ|", "|μ| understated by half (μ from the claim's generator, whose |μ| is its smallest constant; |μ|/2 in the bound is not a Lipschitz constant of μ)"),
			probeLimit, radPropGen, func(cs radPropCase) verify.Case {
				G, M := cs.G1.Dims()
				U := mat.NewDense(G, M, nil)
				for g := 0; g < G; g++ {
					for i := 0; i < M; i++ {
						U.Set(g, i, cs.mu.f([]float64{cs.G1.At(g, i)}))
					}
				}
				lhs, rhs := radFinite(U, cs.a), cs.mu.L/2*radFinite(cs.G1, cs.a)
				return radCase(lhs, rhs, radLE(lhs, rhs), fmt.Sprintf("μ=%s a=%v G=%v", cs.mu.name, cs.a, mat.Formatted(cs.G1, mat.Squeeze())))
			}, verify.Judge[radPropCase]{
				Parts: func(cs radPropCase) (map[string]bool, string) {
					return map[string]bool{"μ Lipschitz with constant |μ|": false, "a_i ≥ 0": nonNegVec(cs.a)}, ""
				},
				Conclusion: func(cs radPropCase) (bool, string) {
					half := cs
					half.mu.L /= 2
					lhs, rhs, ok := radPropItem(5, half, cs.a)
					return ok, fmt.Sprintf("Rad(μ∘𝒢) = %.9g against |μ|/2·Rad(𝒢) = %.9g by enumeration", lhs, rhs)
				},
			})
	}
}

// radExactLip draws one of the Lipschitz functions on ℝ^C whose constant L
// is exact (the smallest): L‖v − b‖₂, L⟨u, v⟩ + b, L|⟨u, v⟩ + b|.
func radExactLip(r *rand.Rand, C int) radLipFn {
	for {
		f := radRandLip(r, C)
		if f.L != theory.LogLossLip {
			return f
		}
	}
}

// multi1Sides are the two sides of `lemma: multi.rad.1` on a finite ℋ with
// the constant k·|λ| (|λ| = L), both enumerated: ½[max(aλ+φ) + max(−aλ+φ)]
// against E_{ε_c} max_f k·a·L·Σ_c ε_c f_c(x) + φ(f).
func multi1Sides(cs radMulti1Case, L, k float64) (lhs, rhs float64) {
	H, C := len(cs.fx), len(cs.fx[0])
	hi, lo := math.Inf(-1), math.Inf(-1)
	for h := 0; h < H; h++ {
		l := cs.a * cs.lam.f(cs.fx[h])
		hi = math.Max(hi, l+cs.phi[h])
		lo = math.Max(lo, -l+cs.phi[h])
	}
	lhs = (hi + lo) / 2
	for code := 0; code < 1<<C; code++ {
		best := math.Inf(-1)
		for h := 0; h < H; h++ {
			s := 0.0
			for c := 0; c < C; c++ {
				e := 1.0
				if code>>c&1 == 1 {
					e = -1
				}
				s += e * cs.fx[h][c]
			}
			best = math.Max(best, k*cs.a*L*s+cs.phi[h])
		}
		rhs += best / float64(int(1)<<C)
	}
	return lhs, rhs
}

// genMulti1 draws a case of `lemma: multi.rad.1` with λ from radExactLip
// (or, for norm1, λ = ‖·‖₁ with |λ| = 1, its constant w.r.t. ‖·‖₁, on
// ℋ = {0, t𝟙} and random points), a > 0 or, for negA, a < 0.
func genMulti1(negA, norm1 bool) func(r *rand.Rand, _ int) radMulti1Case {
	return func(r *rand.Rand, _ int) radMulti1Case {
		C, H := 1+r.Intn(4), 1+r.Intn(6)
		if norm1 {
			C = 2 + r.Intn(3)
		}
		a := logUnif(r, 0.1, 10)
		if negA {
			a = -a
		}
		cs := radMulti1Case{a: a, lam: radExactLip(r, C)}
		if norm1 {
			cs.lam = radLipFn{"‖v‖₁", 1, func(v []float64) float64 {
				s := 0.0
				for _, x := range v {
					s += math.Abs(x)
				}
				return s
			}}
		}
		scale := logUnif(r, 0.1, 20)
		for h := 0; h < H; h++ {
			cs.fx = append(cs.fx, radBallPoint(r, C, scale, r.Intn(2) == 0))
			cs.phi = append(cs.phi, r.NormFloat64()*scale)
		}
		if norm1 && r.Intn(2) == 0 {
			one := make([]float64, C)
			for c := range one {
				one[c] = scale
			}
			cs.fx, cs.phi = [][]float64{make([]float64, C), one}, []float64{0, 0}
		}
		return cs
	}
}

// multi1Case is the probe's verdict (the claim's formula through
// theory.WeightedRadExact for the right side).
func multi1Case(L, k float64) func(radMulti1Case) verify.Case {
	return func(cs radMulti1Case) verify.Case {
		H, C := len(cs.fx), len(cs.fx[0])
		hi, lo := math.Inf(-1), math.Inf(-1)
		for h := 0; h < H; h++ {
			l := cs.a * cs.lam.f(cs.fx[h])
			hi = math.Max(hi, l+cs.phi[h])
			lo = math.Max(lo, -l+cs.phi[h])
		}
		lhs := (hi + lo) / 2
		rhs := must(theory.WeightedRadExact(C, func(eps []float64) float64 {
			best := math.Inf(-1)
			for h := 0; h < H; h++ {
				best = math.Max(best, k*cs.a*L*cs.lam.L*radDot(eps, cs.fx[h])+cs.phi[h])
			}
			return best
		}))
		return radCase(lhs, rhs, radLE(lhs, rhs), fmt.Sprintf("a=%g λ=%s (|λ| used %.4g) f(x)=%v φ=%v", cs.a, cs.lam.name, L*cs.lam.L, cs.fx, cs.phi))
	}
}

func multi1Judge(factor float64, norm2 bool) verify.Judge[radMulti1Case] {
	return verify.Judge[radMulti1Case]{
		Parts: func(cs radMulti1Case) (map[string]bool, string) {
			return map[string]bool{"a > 0": cs.a > 0, "λ Lipschitz with constant |λ|": factor >= 1, "w.r.t. ‖·‖₂": norm2}, ""
		},
		Conclusion: func(cs radMulti1Case) (bool, string) {
			lhs, rhs := multi1Sides(cs, factor*cs.lam.L, math.Sqrt2)
			return radLE(lhs, rhs), fmt.Sprintf("E_ε sup εaλ + φ = %.9g against √2·a·|λ|·E sup Σ_c ε_c f_c + φ = %.9g (both enumerated)", lhs, rhs)
		},
	}
}

// multiLemmaSides are the two sides of `multi.rad.lemma` on a finite ℋ
// with constants factor·|λ_i|, enumerated.
func multiLemmaSides(cs radMultiCase, factor float64) (lhs, rhs float64) {
	N, H, C := len(cs.w), len(cs.fx), len(cs.fx[0][0])
	vals := mat.NewDense(H, N, nil)
	for h := 0; h < H; h++ {
		for i := 0; i < N; i++ {
			vals.Set(h, i, cs.w[i]*cs.lam[i].f(cs.fx[h][i]))
		}
	}
	ones := make([]float64, N)
	for i := range ones {
		ones[i] = 1
	}
	lhs = radSignedExact(vals, ones)
	vec := mat.NewDense(H, N*C, nil)
	a := make([]float64, N*C)
	for i := 0; i < N; i++ {
		for c := 0; c < C; c++ {
			a[i*C+c] = 1
			for h := 0; h < H; h++ {
				vec.Set(h, i*C+c, cs.w[i]*factor*cs.lam[i].L*cs.fx[h][i][c])
			}
		}
	}
	return lhs, math.Sqrt2 * radSignedExact(vec, a)
}

// genMultiLemma draws a case of `multi.rad.lemma`: λ_i from radExactLip
// (or ‖·‖₁ with constant 1 for norm1), w_i > 0 (or, for signed, in
// [−5, 5] with a negative or zero entry).
func genMultiLemma(signed, norm1 bool) func(r *rand.Rand, _ int) radMultiCase {
	return func(r *rand.Rand, _ int) radMultiCase {
		C := 1 + r.Intn(3)
		if norm1 {
			C = 2
		}
		N := min(1+r.Intn(12/C), 4)
		cs := radMultiCase{}
		scale := logUnif(r, 0.1, 20)
		for i := 0; i < N; i++ {
			w := logUnif(r, 0.05, 5)
			if signed {
				w = unif(r, -5, 5)
				if r.Intn(5) == 0 {
					w = 0
				}
			}
			cs.w = append(cs.w, w)
			l := radExactLip(r, C)
			if norm1 {
				l = radLipFn{"‖v‖₁", 1, func(v []float64) float64 { return math.Abs(v[0]) + math.Abs(v[1]) }}
			}
			cs.lam = append(cs.lam, l)
		}
		if signed && cs.w[0] > 0 {
			cs.w[0] = -cs.w[0]
		}
		for h := 0; h < 1+r.Intn(5); h++ {
			var f [][]float64
			for i := 0; i < N; i++ {
				f = append(f, radBallPoint(r, C, scale, r.Intn(2) == 0))
			}
			cs.fx = append(cs.fx, f)
		}
		if norm1 && r.Intn(2) == 0 {
			z, one := make([][]float64, N), make([][]float64, N)
			for i := range z {
				z[i], one[i] = []float64{0, 0}, []float64{scale, scale}
			}
			cs.fx = [][][]float64{z, one}
		}
		return cs
	}
}

// multiLemmaCase is the probe's verdict through theory's oracles.
func multiLemmaCase(factor float64) func(radMultiCase) verify.Case {
	return func(cs radMultiCase) verify.Case {
		N, H, C := len(cs.w), len(cs.fx), len(cs.fx[0][0])
		vals := mat.NewDense(H, N, nil)
		vecs := make([]mat.Matrix, H)
		for h := 0; h < H; h++ {
			V := mat.NewDense(N, C, nil)
			for i := 0; i < N; i++ {
				vals.Set(h, i, cs.w[i]*cs.lam[i].f(cs.fx[h][i]))
				row := make([]float64, C)
				for c := range row {
					row[c] = cs.w[i] * factor * cs.lam[i].L * cs.fx[h][i][c]
				}
				V.SetRow(i, row)
			}
			vecs[h] = V
		}
		ones := make([]float64, N)
		for i := range ones {
			ones[i] = 1
		}
		lhs, rhs := radFinite(vals, ones), math.Sqrt2*radFiniteVec(vecs, ones)
		return radCase(lhs, rhs, radLE(lhs, rhs), fmt.Sprintf("w=%v λ=%v f(x_i)=%v", cs.w, radLipNames(cs.lam), cs.fx))
	}
}

func radLipNames(ls []radLipFn) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.name)
	}
	return out
}

func multiLemmaJudge(factor float64, norm2 bool) verify.Judge[radMultiCase] {
	return verify.Judge[radMultiCase]{
		Parts: func(cs radMultiCase) (map[string]bool, string) {
			pos := true
			for _, w := range cs.w {
				pos = pos && w > 0
			}
			return map[string]bool{"w_i > 0": pos, "λ_i Lipschitz with constant |λ_i|": factor >= 1, "w.r.t. ‖·‖₂": norm2}, ""
		},
		Conclusion: func(cs radMultiCase) (bool, string) {
			lhs, rhs := multiLemmaSides(cs, factor)
			return radLE(lhs, rhs), fmt.Sprintf("E sup Σ ε_i w_iλ_i(f(x_i)) = %.9g against √2·E sup Σ w_i|λ_i|Σ_c ε_{i,c}f_c(x_i) = %.9g (both enumerated)", lhs, rhs)
		},
	}
}

// kernelPoint is a case of `supp.prop: kernel_bound` with the bound's K
// and the weights a > 0.
type kernelPoint struct {
	radKernelCase
	Kb float64 // the K the bound uses
}

// genKernelPoint draws the claim's case with positive weights; half
// puts the bound's K at half the kernel's (kHalf).
func genKernelPoint(kHalf bool) func(r *rand.Rand, _ int) kernelPoint {
	return func(r *rand.Rand, _ int) kernelPoint {
		C := 1 + r.Intn(3)
		M := min(1+r.Intn(12/C), 6)
		p := 1 + r.Intn(3)
		X := mat.NewDense(M, p, nil)
		spread := logUnif(r, 0.01, 5)
		for i := 0; i < M; i++ {
			X.SetRow(i, radBallPoint(r, p, spread, false))
		}
		a := make([]float64, M)
		for i := range a {
			a[i] = logUnif(r, 0.05, 5)
		}
		cs := radKernelCase{X: X, a: a, C: C, R: logUnif(r, 0.1, 10)}
		cs.gram, cs.K, cs.kernel = radKernelGram(r, X)
		kb := cs.K
		if kHalf {
			kb /= 2
		}
		return kernelPoint{radKernelCase: cs, Kb: kb}
	}
}

// kernelSides: C·E_ε R·√(εᵀ diag(a) G diag(a) ε) (the supremum over the ball,
// enumerated over the 2^M signs of one column) against C·R·K_b·√Σa².
func kernelSides(p kernelPoint) (lhs, rhs float64) {
	M := len(p.a)
	for code := 0; code < 1<<M; code++ {
		q := 0.0
		for i := 0; i < M; i++ {
			for j := 0; j < M; j++ {
				ei, ej := 1.0, 1.0
				if code>>i&1 == 1 {
					ei = -1
				}
				if code>>j&1 == 1 {
					ej = -1
				}
				q += ei * ej * p.a[i] * p.a[j] * p.gram.At(i, j)
			}
		}
		lhs += p.R * math.Sqrt(math.Max(q, 0))
	}
	lhs *= float64(p.C) / float64(int(1)<<M)
	s := 0.0
	for _, v := range p.a {
		s += v * v
	}
	return lhs, float64(p.C) * p.R * p.Kb * math.Sqrt(s)
}

func kernelCase(p kernelPoint) verify.Case {
	M := len(p.a)
	ball := must(theory.RKHSBallSup(p.gram, p.a, p.R))
	prod := must(theory.ProductSup(p.C, M, ball))
	lhs := must(theory.WeightedRadExact(M*p.C, prod))
	rhs := radKernelRef(p.C, p.R, p.Kb, p.a)
	return radCase(lhs, rhs, radLE(lhs, rhs), fmt.Sprintf("kernel=%s C=%d R=%g K=%g (bound's %g) a=%v X=%v", p.kernel, p.C, p.R, p.K, p.Kb, p.a, mat.Formatted(p.X, mat.Squeeze())))
}

var kernelJudge = verify.Judge[kernelPoint]{
	Parts: func(p kernelPoint) (map[string]bool, string) {
		M := len(p.a)
		worst := 0.0
		for i := 0; i < M; i++ {
			worst = math.Max(worst, math.Sqrt(p.gram.At(i, i)))
		}
		return map[string]bool{"k bounded by K": worst <= p.Kb*(1+1e-12), "k SPD": keptByFamily, "a_i > 0": positiveVec(p.a), "R > 0": p.R > 0}, ""
	},
	Conclusion: func(p kernelPoint) (bool, string) {
		lhs, rhs := kernelSides(p)
		return radLE(lhs, rhs), fmt.Sprintf("C·E sup over the ball = %.9g (R·√(εᵀAGAε) enumerated) against C·R·K·√Σa² = %.9g with the bound's K", lhs, rhs)
	},
}

func positiveVec(a []float64) bool {
	for _, v := range a {
		if !(v > 0) {
			return false
		}
	}
	return true
}

// mlpPoint is a depth-1 case of `supp.prop: MLP_bound`: points X, weights a
// > 0, C, β, and the bound's α (alphaB) with the norm the points are held
// to (norm: 2 or ∞).
type mlpPoint struct {
	X      *mat.Dense
	a      []float64
	C      int
	beta   float64
	alphaB float64
	norm   float64
}

func (p mlpPoint) String() string {
	return fmt.Sprintf("C=%d β=%g α (bound's, in the %g-norm)=%g a=%v X=%v", p.C, p.beta, p.norm, p.alphaB, p.a, mat.Formatted(p.X, mat.Squeeze()))
}

// genMLPAlpha draws points in the ball of radius α and puts the bound's α
// at half the largest ‖x_i‖₂ (the points exceed the bound's α).
func genMLPAlpha(r *rand.Rand, _ int) mlpPoint {
	C := 1 + r.Intn(3)
	M := min(1+r.Intn(12/C), 6)
	p := 1 + r.Intn(3)
	alpha := logUnif(r, 0.1, 5)
	X := mat.NewDense(M, p, nil)
	big := 0.0
	for i := 0; i < M; i++ {
		X.SetRow(i, radBallPoint(r, p, alpha, r.Intn(2) == 0))
		big = math.Max(big, mat.Norm(X.RowView(i), 2))
	}
	a := make([]float64, M)
	for i := range a {
		a[i] = logUnif(r, 0.05, 5)
	}
	return mlpPoint{X: X, a: a, C: C, beta: logUnif(r, 0.3, 3), alphaB: big / 2, norm: 2}
}

// genMLPInfNorm draws points x_i ∈ α·{−1, 1}^p (p ≥ 2), read against the
// bound's α as ‖x_i‖∞ ≤ α: in the 2-norm they are α√p long.
func genMLPInfNorm(r *rand.Rand, _ int) mlpPoint {
	C := 1 + r.Intn(3)
	M := min(1+r.Intn(12/C), 4)
	p := 2 + r.Intn(3)
	alpha := logUnif(r, 0.1, 5)
	X := mat.NewDense(M, p, nil)
	for i := 0; i < M; i++ {
		for k := 0; k < p; k++ {
			s := alpha
			if r.Intn(2) == 0 {
				s = -s
			}
			X.Set(i, k, s)
		}
	}
	a := make([]float64, M)
	for i := range a {
		a[i] = logUnif(r, 0.05, 5)
	}
	return mlpPoint{X: X, a: a, C: C, beta: logUnif(r, 0.3, 3), alphaB: alpha, norm: math.Inf(1)}
}

// mlpCase is the probe's verdict at depth 1 through theory's oracles.
func mlpCase(p mlpPoint) verify.Case {
	M, _ := p.X.Dims()
	lin := must(theory.LinearBallSup(p.X, p.a, p.beta))
	prod := must(theory.ProductSup(p.C, M, lin))
	lhs := must(theory.WeightedRadExact(M*p.C, prod))
	rhs := radMLPRef(p.C, 1, p.alphaB, p.beta, p.a)
	return radCase(lhs, rhs, radLE(lhs, rhs), p.String())
}

// mlpSides: C·β·E_ε‖Σ_i a_iε_i x_i‖₂ (the supremum over 𝒩₁, enumerated)
// against C·α·β·√Σa².
func mlpSides(p mlpPoint) (lhs, rhs float64) {
	M, d := p.X.Dims()
	for code := 0; code < 1<<M; code++ {
		v := make([]float64, d)
		for i := 0; i < M; i++ {
			e := 1.0
			if code>>i&1 == 1 {
				e = -1
			}
			for k := 0; k < d; k++ {
				v[k] += e * p.a[i] * p.X.At(i, k)
			}
		}
		lhs += p.beta * math.Sqrt(radDot(v, v))
	}
	lhs *= float64(p.C) / float64(int(1)<<M)
	s := 0.0
	for _, v := range p.a {
		s += v * v
	}
	return lhs, float64(p.C) * p.alphaB * p.beta * math.Sqrt(s)
}

func mlpJudge(label string) verify.Judge[mlpPoint] {
	return verify.Judge[mlpPoint]{
		Parts: func(p mlpPoint) (map[string]bool, string) {
			M, _ := p.X.Dims()
			in2 := true
			inNorm := true
			for i := 0; i < M; i++ {
				in2 = in2 && mat.Norm(p.X.RowView(i), 2) <= p.alphaB*(1+1e-12)
				inNorm = inNorm && mat.Norm(p.X.RowView(i), p.norm) <= p.alphaB*(1+1e-12)
			}
			m := map[string]bool{"‖x‖ ≤ α": inNorm, "‖·‖ the 2-norm": p.norm == 2, "μ 1-Lipschitz": keptByFamily, "0 ∈ μ∘𝒩_k": keptByFamily,
				"a_i > 0": positiveVec(p.a), "β ∈ ℝ₊": p.beta > 0, "m ∈ ℕ": keptByFamily}
			if p.norm == 2 {
				m["‖x‖ ≤ α"] = in2
			}
			return m, ""
		},
		Conclusion: func(p mlpPoint) (bool, string) {
			lhs, rhs := mlpSides(p)
			return radLE(lhs, rhs), fmt.Sprintf("C·β·E‖Σ a_iε_ix_i‖₂ = %.9g (enumerated) against C·α·β·√Σa² = %.9g", lhs, rhs)
		},
	}
}

// mlpActPoint is a depth-2 case with an activation violating one
// hypothesis.
type mlpActPoint struct {
	radMLPCase
}

// probeMLPActivation re-runs Proposition `supp.prop: MLP_bound` at depth 2
// with an activation μ violating one hypothesis: 3·ReLU (3-Lipschitz) or
// ReLU + 1 (1-Lipschitz, 0 ∉ μ∘𝒩₁). Its judge re-runs the search with
// another seed and more restarts: a value of a validated witness network
// is a lower bound on the supremum, so a second search past the bound
// confirms the counterexample.
func probeMLPActivation(hyp, tried string, mu theory.Activation, lip1, zeroIn bool) func(verify.Config) verify.ProbeResult {
	const label = "supp.prop: MLP_bound"
	opts := theory.MLPSupOptions{Restarts: 4, Steps: 25}
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Violate(cfg, probing(label, hyp, tried), probeLimitMLP2, func(r *rand.Rand, _ int) mlpActPoint {
			cs := radMLPCase{m: 2, alpha: logUnif(r, 0.1, 5), beta: logUnif(r, 0.3, 3), mu: mu, seed: r.Int63(), C: 1}
			M := 1 + r.Intn(4)
			p := 1 + r.Intn(3)
			cs.X = mat.NewDense(M, p, nil)
			for i := 0; i < M; i++ {
				cs.X.SetRow(i, radBallPoint(r, p, cs.alpha, r.Intn(2) == 0))
			}
			cs.a = make([]float64, M)
			for i := range cs.a {
				cs.a[i] = logUnif(r, 0.05, 5)
			}
			return mlpActPoint{cs}
		}, func(cs mlpActPoint) verify.Case { return mlpActCase(cs, opts) }, verify.Judge[mlpActPoint]{
			Parts: func(cs mlpActPoint) (map[string]bool, string) {
				M, _ := cs.X.Dims()
				in := true
				for i := 0; i < M; i++ {
					in = in && mat.Norm(cs.X.RowView(i), 2) <= cs.alpha*(1+1e-12)
				}
				return map[string]bool{"‖x‖ ≤ α": in, "‖·‖ the 2-norm": keptByFamily, "μ 1-Lipschitz": lip1, "0 ∈ μ∘𝒩_k": zeroIn,
					"a_i > 0": positiveVec(cs.a), "β ∈ ℝ₊": cs.beta > 0, "m ∈ ℕ": keptByFamily}, ""
			},
			Conclusion: func(cs mlpActPoint) (bool, string) {
				v, err := radMLPRad(2, cs.X, cs.a, cs.beta, cs.mu, cs.seed+1, theory.MLPSupOptions{Restarts: 8, Steps: 40})
				if err != nil {
					return true, err.Error()
				}
				rhs := radMLPRef(1, 2, cs.alpha, cs.beta, cs.a)
				return radLE(v, rhs), fmt.Sprintf("a second search (another seed, 8 restarts): Rad(𝒩₂) ≥ %.9g against α·2·β²·√Σa² = %.9g", v, rhs)
			},
		})
	}
}

// mlpActCase is the probe's verdict at depth 2: the search's lower bound on
// Rad(𝒩₂) (validated witnesses) against α·2·β²·√Σa².
func mlpActCase(cs mlpActPoint, opts theory.MLPSupOptions) verify.Case {
	v, err := radMLPRad(2, cs.X, cs.a, cs.beta, cs.mu, cs.seed, opts)
	if err != nil {
		return verify.Case{Detail: err.Error()}
	}
	rhs := radMLPRef(1, 2, cs.alpha, cs.beta, cs.a)
	return radCase(v, rhs, radLE(v, rhs), fmt.Sprintf("m=2 μ=%s α=%g β=%g a=%v X=%v", cs.mu.Name, cs.alpha, cs.beta, cs.a, mat.Formatted(cs.X, mat.Squeeze())))
}

var (
	relu3 = theory.Activation{Name: "3·relu", F: func(t float64) float64 { return 3 * math.Max(t, 0) },
		D: func(t float64) float64 {
			if t > 0 {
				return 3
			}
			return 0
		}}
	reluPlus1 = theory.Activation{Name: "relu+1", F: func(t float64) float64 { return math.Max(t, 0) + 1 },
		D: func(t float64) float64 {
			if t > 0 {
				return 1
			}
			return 0
		}}
)

// zeroWeightEnds evaluates a class bound at the open end a_i = 0 of a_i > 0
// and just inside it.
func zeroWeightEnds(kernel bool) func(verify.Config) []verify.EndCheck {
	return func(verify.Config) []verify.EndCheck {
		X := mat.NewDense(3, 1, []float64{0.5, -1, 0.8})
		at := func(a []float64, where, name string) verify.EndCheck {
			var lhs, rhs float64
			if kernel {
				g := must(theory.GaussianGram(X, 1))
				lhs = must(theory.WeightedRadExact(3, must(theory.RKHSBallSup(g, a, 1))))
				rhs = radKernelRef(1, 1, 1, a)
			} else {
				lhs = must(theory.WeightedRadExact(3, must(theory.LinearBallSup(X, a, 1))))
				rhs = radMLPRef(1, 1, 1, 1, a)
			}
			return endAt(name, where, fmt.Sprintf("left side %.6g ≤ right side %.6g", lhs, rhs), holdsIf(radLE(lhs, rhs), verify.EndFalse), a[1])
		}
		return []verify.EndCheck{at([]float64{1, 0, 0.5}, verify.AtOpenEnd, "a = (1, 0, ½)"), at([]float64{1, 1e-9, 0.5}, verify.AtJustInside, "a = (1, 1e-9, ½)")}
	}
}

// zeroRadiusEnds evaluates a class bound at the open end 0 of its radius (R
// of the RKHS ball, β of 𝒩₁): the class is {0}, both sides are 0.
func zeroRadiusEnds(kernel bool) func(verify.Config) []verify.EndCheck {
	return func(verify.Config) []verify.EndCheck {
		X := mat.NewDense(2, 1, []float64{0.5, -1})
		a := []float64{1, 0.5}
		var lhs, rhs float64
		if kernel {
			lhs = must(theory.WeightedRadExact(2, must(theory.RKHSBallSup(must(theory.GaussianGram(X, 1)), a, 0))))
			rhs = radKernelRef(1, 0, 1, a)
		} else {
			lhs = must(theory.WeightedRadExact(2, must(theory.LinearBallSup(X, a, 0))))
			rhs = radMLPRef(1, 1, 1, 0, a)
		}
		return []verify.EndCheck{endAt("radius 0", verify.AtOpenEnd, fmt.Sprintf("the class is {0}: left side %g ≤ right side %g", lhs, rhs), holdsIf(radLE(lhs, rhs), verify.EndFalse), 0)}
	}
}

// deltaEnds evaluates a generalization bound at the ends of δ's range: at
// δ = 0 the term √(2 log(2/δ)) is +∞ (theory refuses δ = 0: radCheckDelta);
// at δ = 1 the bound holds with probability ≥ 0, vacuously; just above 0 it
// is finite and large; above 1 "probability ≥ 1 − δ < 0" is vacuous.
func deltaEnds(closedAtZero bool, bound func(delta float64) (float64, error)) func(verify.Config) []verify.EndCheck {
	return func(verify.Config) []verify.EndCheck {
		zeroWhere := verify.AtOpenEnd
		if closedAtZero {
			zeroWhere = verify.AtClosedEnd
		}
		_, err0 := bound(0)
		tiny, _ := bound(1e-300)
		one, _ := bound(1)
		refused := "theory accepts it"
		if err0 != nil {
			refused = "theory refuses it: " + err0.Error()
		}
		return []verify.EndCheck{
			endAt("δ = 0", zeroWhere, fmt.Sprintf("√(2 log(2/δ)) = +Inf: the bound is +Inf (%s)", refused), verify.EndInfinite, 0),
			endAt("δ = 1e-300", verify.AtJustInside, fmt.Sprintf("bound = %s, with probability ≥ 1 − 1e-300", verify.FormatValue(tiny)), holdsIf(!math.IsInf(tiny, 0) && tiny > 0, verify.EndInfinite), 1e-300),
			endAt("δ = 1", verify.AtClosedEnd, fmt.Sprintf("bound = %s, with probability ≥ 0", verify.FormatValue(one)), verify.EndVacuous, 1),
			endAt("δ = 1.5", verify.AtOutside, "with probability ≥ −0.5", verify.EndVacuous, 1.5),
		}
	}
}

// deltaSetting is a small log-loss LMNTM setting for the δ end checks.
func deltaSetting() theory.LMNTMSetting {
	s, err := theory.NewLogLossSetting([]mat.Matrix{GenUniformNoiseT(2, 0.2)}, []float64{1}, [][]float64{{0.5, 0.5}}, [][]int{{100, 100}})
	if err != nil {
		panic(err)
	}
	return s
}

// mRangeEnds evaluates the MLP bound at depths m = 1 and m = 2 (and m = 0,
// where 𝒩₀ is not defined): §4.3 defines 𝒩_m "for m > 2" (line 240), the
// appendix "for m > 1" (line 1745). twoInside says whether the range the
// hypothesis names contains m = 2 (the appendix's) or leaves it out as a
// hole (§4.3's).
func mRangeEnds(twoInside bool) func(verify.Config) []verify.EndCheck {
	return func(verify.Config) []verify.EndCheck {
		X := mat.NewDense(2, 1, []float64{0.7, -0.4})
		a := []float64{1, 0.6}
		one := must(theory.WeightedRadExact(2, must(theory.LinearBallSup(X, a, 1))))
		rnd := radV2(rand.New(rand.NewSource(1)))
		two := must(theory.WeightedRadExact(2, func(eps []float64) float64 {
			v, _, err := theory.MLPSup(2, X, a, 1, theory.ReLU, eps, rnd, theory.MLPSupOptions{Restarts: 4, Steps: 25})
			if err != nil {
				panic(err)
			}
			return v
		}))
		where2, name2 := verify.AtOutside, "m = 2 (the hole: excluded by §4.3's \"m > 2\", line 240; included by the appendix's \"m > 1\", line 1745)"
		if twoInside {
			where2, name2 = verify.AtJustInside, "m = 2 (the appendix's \"m > 1\", line 1745)"
		}
		return []verify.EndCheck{
			endAt("m = 0", verify.AtOutside, "𝒩₀ is not defined (𝒩₁ starts the induction)", verify.EndUndefined, 0),
			endAt("m = 1", verify.AtClosedEnd, fmt.Sprintf("Rad(𝒩₁) = %.4g ≤ α2⁰β√Σa² = %.4g", one, radMLPRef(1, 1, 1, 1, a)), holdsIf(radLE(one, radMLPRef(1, 1, 1, 1, a)), verify.EndFalse), 1),
			endAt(name2, where2, fmt.Sprintf("Rad(𝒩₂) ≥ %.4g (search) ≤ α2¹β²√Σa² = %.4g", two, radMLPRef(1, 2, 1, 1, a)), holdsIf(radLE(two, radMLPRef(1, 2, 1, 1, a)), verify.EndFalse), 2),
		}
	}
}

func init() {
	verify.RegisterHypotheses("vec.rad.ineq",
		verify.Hypothesis{Name: "v ∈ ℝ^M, M ∈ ℕ", Kind: verify.HypRange, Line: 1567, From: verify.FromStatement, Text: "∀M ∈ ℕ, ∀v ∈ ℝ^M",
			Range: &verify.Range{Param: "M", Printed: "M ∈ ℕ", Lo: "1", Hi: "∞", HiOpen: true, Integer: true, Ends: func(verify.Config) []verify.EndCheck {
				e := must(theory.WeightedRadExact(1, func(eps []float64) float64 { return math.Abs(3 * eps[0]) }))
				return []verify.EndCheck{
					endAt("M = 1, v = (3)", verify.AtClosedEnd, fmt.Sprintf("‖v‖₂ = 3 ≤ √2·E|3ε| = %.6g", math.Sqrt2*e), holdsIf(3 <= math.Sqrt2*e, verify.EndFalse), 1),
					endAt("M = 0, v = () ∈ ℝ⁰", verify.AtOutside, "‖v‖₂ = 0 ≤ √2·E|0| = 0", verify.EndVacuous, 0),
				}
			}}, Expect: verify.NotNeeded},
	)
	const multi1 = "lemma: multi.rad.1"
	verify.RegisterHypotheses(multi1,
		verify.Hypothesis{Name: "a > 0", Kind: verify.HypRange, Line: 1557, From: verify.FromStatement, Text: "let a be a positive real number",
			Range: &verify.Range{Param: "a", Printed: "a ∈ (0, ∞)", Lo: "0", Hi: "∞", LoOpen: true, HiOpen: true},
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probing(multi1, "a > 0", "a ∈ [−10, −0.1] (negative), λ with its exact constant, finite ℋ, φ as in the claim's generator"),
					probeLimit, genMulti1(true, false), multi1Case(1, math.Sqrt2), multi1Judge(1, true))
			}, Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "λ Lipschitz with constant |λ|", Kind: verify.HypLoss, Line: 1557, From: verify.FromStatement, Of: "λ: ℝ^C → ℝ a Lipschitz function w.r.t. ‖·‖₂, |λ| its constant",
			Text: "λ Lipschitz, |λ| a Lipschitz constant of it",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probing(multi1, "λ Lipschitz with constant |λ|", "|λ|/2 in the bound, λ with its exact (smallest) constant |λ| (‖·−b‖, ⟨u,·⟩+b, |⟨u,·⟩+b|), finite ℋ, φ"),
					probeLimit, genMulti1(false, false), multi1Case(0.5, math.Sqrt2), multi1Judge(0.5, true))
			}, Expect: verify.Needed},
		verify.Hypothesis{Name: "w.r.t. ‖·‖₂", Kind: verify.HypClass, Line: 1557, From: verify.FromStatement, Of: "λ: ℝ^C → ℝ a Lipschitz function w.r.t. ‖·‖₂, |λ| its constant",
			Text: "the norm of the Lipschitz condition is the 2-norm",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probing(multi1, "w.r.t. ‖·‖₂", "λ = ‖·‖₁ with |λ| = 1, its Lipschitz constant w.r.t. ‖·‖₁ (w.r.t. ‖·‖₂ it is √C), ℋ = {0, t𝟙} or random"),
					probeLimit, genMulti1(false, true), multi1Case(1, math.Sqrt2), multi1Judge(1, false))
			}, Expect: verify.Needed},
	)
	const multiL = "multi.rad.lemma"
	verify.RegisterHypotheses(multiL,
		verify.Hypothesis{Name: "w_i > 0", Kind: verify.HypRange, Line: 1585, From: verify.FromStatement, Text: "∀i, let w_i be a positive real number",
			Range: &verify.Range{Param: "w_i", Printed: "w_i ∈ (0, ∞)", Lo: "0", Hi: "∞", LoOpen: true, HiOpen: true},
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probing(multiL, "w_i > 0", "w_i ∈ [−5, 5] (negative and zero weights), λ_i with their exact constants, ℋ as in the claim's generator"),
					probeLimit, genMultiLemma(true, false), multiLemmaCase(1), multiLemmaJudge(1, true))
			}, Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "λ_i Lipschitz with constant |λ_i|", Kind: verify.HypLoss, Line: 1585, From: verify.FromStatement, Of: "λ_i: ℝ^C → ℝ a Lipschitz function, |λ_i| its constant",
			Text: "λ_i Lipschitz, |λ_i| a Lipschitz constant of it",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probing(multiL, "λ_i Lipschitz with constant |λ_i|", "|λ_i|/2 in the bound, λ_i with their exact constants"),
					probeLimit, genMultiLemma(false, false), multiLemmaCase(0.5), multiLemmaJudge(0.5, true))
			}, Expect: verify.Needed},
		verify.Hypothesis{Name: "w.r.t. ‖·‖₂", Kind: verify.HypClass, Line: 1557, From: "lemma: lemma: multi.rad.1 (line 1557), applied at line 1604; the lemma itself prints no norm",
			Text: "the norm of the Lipschitz condition is the 2-norm (multi.rad.lemma says only \"a Lipschitz function\")",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probing(multiL, "w.r.t. ‖·‖₂", "λ_i = ‖·‖₁ with |λ_i| = 1, the constant w.r.t. ‖·‖₁, C = 2, ℋ = {0, t𝟙} or random"),
					probeLimit, genMultiLemma(false, true), multiLemmaCase(1), multiLemmaJudge(1, false))
			}, Expect: verify.Needed},
	)
	aHyp := func(label string, probe func(verify.Config) verify.ProbeResult) verify.Hypothesis {
		return verify.Hypothesis{Name: "a_i ≥ 0", Kind: verify.HypRange, Line: 1672, From: "definition: Rad_{S,a} (line 1672)", Text: "weights a = (a_i) where a_i ≥ 0",
			Range: &verify.Range{Param: "a_i", Printed: "a_i ∈ [0, ∞)", Lo: "0", Hi: "∞", HiOpen: true}, Probe: probe, Expect: verify.NotNeeded}
	}
	lipHyp := func(label string) verify.Hypothesis {
		return verify.Hypothesis{Name: "μ Lipschitz with constant |μ|", Kind: verify.HypClass, Line: 1682, From: verify.FromStatement, Text: "μ: ℝ → ℝ a Lipschitz function, |μ| its Lipschitz constant",
			Probe: radLipUnder(label), Expect: verify.Needed}
	}
	verify.RegisterHypotheses("supp.prop.rad: subset",
		verify.Hypothesis{Name: "𝒢 ⊂ ℋ", Kind: verify.HypClass, Line: 1678, From: verify.FromStatement, Text: "𝒢 ⊂ ℋ ⇒ Rad(𝒢) ≤ Rad(ℋ)", Probe: radSubsetNotContained, Expect: verify.Needed},
		aHyp("supp.prop.rad: subset", probeRadNegA("supp.prop.rad: subset", 1)))
	verify.RegisterHypotheses("supp.prop.rad: sum", aHyp("supp.prop.rad: sum", probeRadNegA("supp.prop.rad: sum", 2)))
	verify.RegisterHypotheses("supp.prop.rad: mult",
		aHyp("supp.prop.rad: mult", probeRadNegA("supp.prop.rad: mult", 3)),
		verify.Hypothesis{Name: "c₀ ∈ ℝ", Kind: verify.HypRange, Line: 1680, From: verify.FromStatement, Text: "∀c₀ ∈ ℝ",
			Range: &verify.Range{Param: "c₀", Printed: "c₀ ∈ ℝ", Lo: "−∞", Hi: "∞", LoOpen: true, HiOpen: true, Ends: func(verify.Config) []verify.EndCheck {
				G := mat.NewDense(2, 2, []float64{1, -1, 0.5, 2})
				var Z mat.Dense
				Z.Scale(0, G)
				v := radFinite(&Z, []float64{1, 1})
				return []verify.EndCheck{endAt("c₀ = 0", verify.AtJustInside, fmt.Sprintf("Rad(0·𝒢) = %g = 0·Rad(𝒢)", v), holdsIf(v == 0, verify.EndFalse), 0)}
			}}, Expect: verify.NotProbeable},
	)
	verify.RegisterHypotheses("supp.prop.rad: conv", aHyp("supp.prop.rad: conv", probeRadNegA("supp.prop.rad: conv", 4)))
	verify.RegisterHypotheses("supp.prop.rad: lip", lipHyp("supp.prop.rad: lip"), aHyp("supp.prop.rad: lip", probeRadNegA("supp.prop.rad: lip", 5)))
	verify.RegisterHypotheses("supp.prop.weighted_rad_properties", aHyp("supp.prop.weighted_rad_properties", radPropsAllNeg), lipHyp("supp.prop.weighted_rad_properties"))

	const suppK = "supp.prop: kernel_bound"
	verify.RegisterHypotheses(suppK,
		verify.Hypothesis{Name: "k bounded by K", Kind: verify.HypClass, Line: 1648, From: verify.FromStatement, Of: "k a SPD kernel bounded by K", Text: "‖k(·,x)‖_ℋ ≤ K for every x",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probing(suppK, "k bounded by K", "K halved in the bound (‖k(·,x_i)‖ up to twice the bound's K), weights positive, the claim's kernels"),
					probeLimit, genKernelPoint(true), kernelCase, kernelJudge)
			}, Expect: verify.Needed},
		verify.Hypothesis{Name: "k SPD", Kind: verify.HypClass, Line: 1648, From: verify.FromStatement, Of: "k a SPD kernel bounded by K", Text: "k a symmetric positive definite (SPD) kernel",
			Why: "an indefinite k has no RKHS ℋ, so the ball 𝒢^k_{K,R} is not defined (theory.RKHSBallSup refuses a Gram matrix that is not PSD)"},
		verify.Hypothesis{Name: "a_i > 0", Kind: verify.HypRange, Line: 1650, From: verify.FromStatement, Text: "where a_i > 0",
			Range: &verify.Range{Param: "a_i", Printed: "a_i ∈ (0, ∞)", Lo: "0", Hi: "∞", LoOpen: true, HiOpen: true, Ends: zeroWeightEnds(true)}, Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "R > 0", Kind: verify.HypRange, Line: 1653, From: verify.FromStatement, Text: "∀R > 0, g ∈ 𝒢^k_{K,R} (the ball of radius R, line 1648)",
			Range: &verify.Range{Param: "R", Printed: "R ∈ (0, ∞)", Lo: "0", Hi: "∞", LoOpen: true, HiOpen: true, Ends: zeroRadiusEnds(true)}, Expect: verify.NotNeeded},
	)
	const suppM = "supp.prop: MLP_bound"
	verify.RegisterHypotheses(suppM,
		verify.Hypothesis{Name: "‖x‖ ≤ α", Kind: verify.HypClass, Line: 1739, From: verify.FromStatement, Of: "∀x ∈ 𝒳, ‖x_i‖ ≤ α", Text: "the points are bounded by α",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probing(suppM, "‖x‖ ≤ α", "depth m = 1 (exact), the bound's α half the largest ‖x_i‖₂, weights positive"),
					probeLimit, genMLPAlpha, mlpCase, mlpJudge(suppM))
			}, Expect: verify.Needed},
		verify.Hypothesis{Name: "‖·‖ the 2-norm", Kind: verify.HypClass, Line: 1769, From: "proof: 𝒩₁ read as the ball of the RKHS of the linear kernel bounded by α, whose ‖k(·, x)‖ is ‖x‖₂ (line 1769); the statement prints no norm",
			Of: "∀x ∈ 𝒳, ‖x_i‖ ≤ α", Text: "the norm of ‖x_i‖ ≤ α is the 2-norm",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probing(suppM, "‖·‖ the 2-norm", "depth m = 1 (exact), points x_i ∈ α·{−1, 1}^p (p ≥ 2) with ‖x_i‖∞ = α, α the bound's"),
					probeLimit, genMLPInfNorm, mlpCase, mlpJudge(suppM))
			}, Expect: verify.Needed},
		verify.Hypothesis{Name: "μ 1-Lipschitz", Kind: verify.HypClass, Line: 1746, From: "definition: 𝒩_m (line 1746)", Text: "μ is a 1-Lipschitz activation function",
			Probe: probeMLPActivation("μ 1-Lipschitz", "μ = 3·ReLU (3-Lipschitz, μ(0) = 0), depth m = 2, gradient search", relu3, false, true), Expect: verify.Needed},
		verify.Hypothesis{Name: "0 ∈ μ∘𝒩_k", Kind: verify.HypClass, Line: 1739, From: verify.FromStatement, Text: "∀k ∈ ℕ, 0 ∈ μ∘𝒩_k",
			Probe: probeMLPActivation("0 ∈ μ∘𝒩_k", "μ = ReLU + 1 (1-Lipschitz, μ ≥ 1 so 0 ∉ μ∘𝒩₁), depth m = 2, gradient search", reluPlus1, true, false), Expect: verify.Needed},
		verify.Hypothesis{Name: "a_i > 0", Kind: verify.HypRange, Line: 1741, From: verify.FromStatement, Text: "where a_i > 0",
			Range: &verify.Range{Param: "a_i", Printed: "a_i ∈ (0, ∞)", Lo: "0", Hi: "∞", LoOpen: true, HiOpen: true, Ends: zeroWeightEnds(false)}, Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "β ∈ ℝ₊", Kind: verify.HypRange, Line: 1746, From: "definition: 𝒩_m (line 1746)", Text: "β ∈ ℝ₊ (‖v‖₂ ≤ β, ‖v‖₁ ≤ β)",
			Range: &verify.Range{Param: "β", Printed: "β ∈ ℝ₊ = (0, ∞)", Lo: "0", Hi: "∞", LoOpen: true, HiOpen: true, Ends: zeroRadiusEnds(false)}, Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "m ∈ ℕ", Kind: verify.HypRange, Line: 1745, From: "definition: 𝒩_m, for m = 1 and inductively for m > 1 (lines 1744–1745)", Text: "𝒩_m defined for m = 1 and, inductively, for m > 1",
			Range: &verify.Range{Param: "m", Printed: "m ∈ ℕ", Lo: "1", Hi: "∞", HiOpen: true, Integer: true, Ends: mRangeEnds(true)}, Expect: verify.NeededToDefine},
	)
}
