package algclaims

import (
	"fmt"
	"math"
	"math/rand"
	randv2 "math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

// Implementations under test, passed as parameters so that each negative
// control (a bug a person could write) is one line.
type (
	sigmaFunc  func(*estimators.BagSet) []float64
	lsFunc     func(A mat.Matrix, b []float64) ([]float64, error)
	buildFunc  func(*estimators.BagSet, estimators.Options, int64) (*estimators.Reduction, error)
	weightFunc func(red *estimators.Reduction, i, c int) float64
)

func refBuild(set *estimators.BagSet, opts estimators.Options, seed int64) (*estimators.Reduction, error) {
	return estimators.Build(set, opts, randv2.New(randv2.NewPCG(uint64(seed), 7)))
}

func refWeight(red *estimators.Reduction, i, c int) float64 { return red.InstanceWeight(i, c) }

func init() {
	verify.Register(verify.Claim{
		Label: "alg3: sigma-hat", Section: "§5.4", Kind: verify.IdentityKind,
		Statement: "σ̂ = Σ_k|b_k|γ̂_k / Σ_k|b_k| is the label proportion of all training points (Algorithm 3, line 2; Algorithm 2 uses the same σ̂)",
		Check:     func(cfg verify.Config) verify.Outcome { return checkSigmaHat(cfg, estimators.SigmaHat) },
		Negative: func(cfg verify.Config) verify.Outcome {
			return checkSigmaHat(cfg, func(s *estimators.BagSet) []float64 { // mean of the bags' proportions, sizes ignored
				out := make([]float64, s.NumClasses)
				for _, b := range s.Bags {
					for c, p := range b.Proportions {
						out[c] += p / float64(len(s.Bags))
					}
				}
				return out
			})
		},
		NegativeName: "σ̂ as the unweighted mean of the bags' proportions",
	})
	verify.Register(verify.Claim{
		Label: "alg2: alpha-hat", Section: "§5.4", Kind: verify.Theorem, RatioFloor: 0.99,
		Statement:    "α̂_i = argmin_{α∈Δ^C} ‖Γ̂_iᵀα − σ̂‖₂ (Algorithm 2 line 6, Algorithm 3 line 6): α̂ ∈ Δ^C, its KKT conditions hold, and no feasible competitor (perturbations of α̂ toward each vertex, random points) does better",
		Check:        func(cfg verify.Config) verify.Outcome { return checkAlphaHat(cfg, estimators.SimplexLS) },
		Negative:     func(cfg verify.Config) verify.Outcome { return checkAlphaHat(cfg, clipRenormalize) },
		NegativeName: "unconstrained least squares, negative entries clipped to 0 and renormalized",
	})
	verify.Register(verify.Claim{
		Label: "alg2: T-hat", Section: "§5.4", Kind: verify.IdentityKind,
		Statement: "T̂_i(c₁,c₂) = γ̂_{k_{i,c₁}}(c₂)α̂_i(c₁)/σ̂_i(c₂) with σ̂_i = Γ̂_iᵀα̂_i: T̂_i is column-stochastic (Algorithm 1 line 7, Algorithms 2/3 lines 7–9; modes approx and uniform, uniform and hm weights)",
		Check:     func(cfg verify.Config) verify.Outcome { return checkTHat(cfg, refBuild) },
		Negative: func(cfg verify.Config) verify.Outcome {
			return checkTHat(cfg, func(s *estimators.BagSet, o estimators.Options, seed int64) (*estimators.Reduction, error) {
				red, err := refBuild(s, o, seed)
				if err == nil {
					for i := range red.Groups { // T̂ stored transposed
						red.Groups[i].T = mat.DenseCopyOf(red.Groups[i].T.T())
					}
				}
				return red, err
			})
		},
		NegativeName: "T̂ stored transposed (γ̂_{k_{i,c₂}}(c₁)α̂_i(c₂)/σ̂_i(c₁))",
	})
	verify.Register(verify.Claim{
		Label: "alg1: empirical risk unbiased", Section: "§5.4", Kind: verify.IdentityKind,
		Statement: "with the reduction's T̂_i, α̂_i, w_i and instance weights, E_S Σ_instances weight·ℓ_{T̂_i}(f(x),c) = Σ_i w_i R_{ℓ_{T̂_i},P_{σ̂_i,T̂_i}}(f) when bag b's instances are drawn from P_{γ̂_b} (exact on finite 𝒳; log loss; the risk Algorithms 1–3 minimize)",
		Check:     func(cfg verify.Config) verify.Outcome { return checkUnbiased(cfg, refWeight) },
		Negative: func(cfg verify.Config) verify.Outcome {
			return checkUnbiased(cfg, func(red *estimators.Reduction, i, c int) float64 {
				return red.Groups[i].Weight / float64(red.Groups[i].Sizes[c]) // α̂ dropped
			})
		},
		NegativeName: "instance weight w_i/n_{i,c} (α̂_i(c) dropped)",
	})
}

// randSimplex draws a point of Δ^C; with sparse it has some zero entries.
func randSimplex(r *rand.Rand, C int, sparse bool) []float64 {
	p := make([]float64, C)
	s := 0.0
	for c := range p {
		p[c] = -math.Log(1 - r.Float64())
		if sparse && r.Intn(3) == 0 {
			p[c] = 0
		}
		s += p[c]
	}
	if s == 0 {
		p[r.Intn(C)], s = 1, 1
	}
	for c := range p {
		p[c] /= s
	}
	return p
}

// labelledSet draws a bag set whose proportions come from explicit labels,
// and returns the labels' class counts over all instances.
func labelledSet(r *rand.Rand) (*estimators.BagSet, []int) {
	C := 2 + r.Intn(4)
	nb := C*(1+r.Intn(4)) + r.Intn(C)
	set := &estimators.BagSet{NumClasses: C}
	counts := make([]int, C)
	for b := 0; b < nb; b++ {
		size := 1 + r.Intn(60)
		if r.Intn(4) == 0 {
			size = 1 + r.Intn(3000)
		}
		gamma := randSimplex(r, C, true)
		k := make([]int, C)
		for j := 0; j < size; j++ {
			u, c := r.Float64(), 0
			for c < C-1 && u > gamma[c] {
				u -= gamma[c]
				c++
			}
			k[c]++
			counts[c]++
		}
		prop := make([]float64, C)
		for c := range prop {
			prop[c] = float64(k[c]) / float64(size)
		}
		set.Bags = append(set.Bags, estimators.Bag{ID: b, Size: size, Proportions: prop})
	}
	return set, counts
}

func checkSigmaHat(cfg verify.Config, impl sigmaFunc) verify.Outcome {
	gen := verify.Gen(func(r *rand.Rand, _ int) any { return r.Int63() })
	return verify.ForAll(cfg, "alg3: sigma-hat", verify.Identity, gen, func(v any) verify.Case {
		set, counts := labelledSet(rand.New(rand.NewSource(v.(int64))))
		got := impl(set)
		total := 0
		for _, k := range counts {
			total += k
		}
		worst, lhs, rhs := 0.0, 1.0, 1.0
		for c, k := range counts {
			want := float64(k) / float64(total)
			if d := math.Abs(got[c] - want); d > worst {
				worst, lhs, rhs = d, got[c], want
			}
		}
		return verify.Case{LHS: lhs, RHS: rhs, OK: worst <= 1e-12,
			Detail: fmt.Sprintf("C=%d, %d bags: σ̂ = %.6g, label proportion %v/%d", set.NumClasses, len(set.Bags), got, counts, total)}
	})
}

// clipRenormalize is the negative control of α̂: solve Γ̂ᵀα = σ̂ without
// the constraint, clip, renormalize.
func clipRenormalize(A mat.Matrix, b []float64) ([]float64, error) {
	var x mat.VecDense
	if err := x.SolveVec(A, mat.NewVecDense(len(b), append([]float64(nil), b...))); err != nil {
		return nil, err
	}
	a := mat.Col(nil, 0, &x)
	s := 0.0
	for i := range a {
		a[i] = math.Max(a[i], 0)
		s += a[i]
	}
	for i := range a {
		a[i] /= s
	}
	return a, nil
}

// resid2 is ‖Aα − b‖₂², computed here.
func resid2(A mat.Matrix, alpha, b []float64) float64 {
	r, k := A.Dims()
	s := 0.0
	for i := 0; i < r; i++ {
		v := -b[i]
		for j := 0; j < k; j++ {
			v += A.At(i, j) * alpha[j]
		}
		s += v * v
	}
	return s
}

func checkAlphaHat(cfg verify.Config, impl lsFunc) verify.Outcome {
	gen := verify.Gen(func(r *rand.Rand, _ int) any { return r.Int63() })
	return verify.ForAll(cfg, "alg2: alpha-hat", verify.Bound, gen, func(v any) verify.Case {
		r := rand.New(rand.NewSource(v.(int64)))
		C := 2 + r.Intn(5)
		G := mat.NewDense(C, C, nil)
		for c := 0; c < C; c++ {
			G.SetRow(c, randSimplex(r, C, r.Intn(2) == 0))
		}
		// σ̂ inside the hull of the rows (in half the cases) or anywhere in Δ^C.
		var sigma []float64
		if r.Intn(2) == 0 {
			a := randSimplex(r, C, false)
			sigma = make([]float64, C)
			for c := 0; c < C; c++ {
				for k := 0; k < C; k++ {
					sigma[c] += G.At(k, c) * a[k]
				}
			}
		} else {
			sigma = randSimplex(r, C, false)
		}
		A := G.T()
		detail := fmt.Sprintf("Γ̂=%v σ̂=%.6g", mat.Formatted(G, mat.FormatPython()), sigma)
		alpha, err := impl(A, sigma)
		if err != nil { // SimplexLS never fails on finite input; the control may (singular Γ̂)
			return verify.Case{Detail: detail + ": " + err.Error()}
		}
		s := 0.0
		for _, a := range alpha {
			if a < -1e-12 || math.IsNaN(a) {
				return verify.Case{Detail: fmt.Sprintf("%s: α̂=%.6g not in Δ^C", detail, alpha)}
			}
			s += a
		}
		if math.Abs(s-1) > 1e-9 {
			return verify.Case{Detail: fmt.Sprintf("%s: α̂ sums to %.12g", detail, s)}
		}
		// KKT of min ½‖Aα−b‖² on Δ^C: g = Aᵀ(Aα−b); g_c = μ where α_c > 0, g_c ≥ μ elsewhere.
		g := make([]float64, C)
		for k := 0; k < C; k++ {
			for c := 0; c < C; c++ {
				res := -sigma[c]
				for j := 0; j < C; j++ {
					res += A.At(c, j) * alpha[j]
				}
				g[k] += A.At(c, k) * res
			}
		}
		mu := math.Inf(1)
		for _, x := range g {
			mu = math.Min(mu, x)
		}
		for k := range g {
			if alpha[k] > 1e-7 && g[k]-mu > 1e-7 {
				return verify.Case{Detail: fmt.Sprintf("%s: KKT fails: α̂(%d)=%.3g > 0 but ∂_%d = %.6g > min ∂ = %.6g", detail, k, alpha[k], k, g[k], mu)}
			}
		}
		// Competitors: α̂ moved toward each vertex by t, and random points.
		f := resid2(A, alpha, sigma)
		best := math.Inf(1)
		for k := 0; k < C; k++ {
			for _, t := range []float64{1e-3, 1e-2, 0.1} {
				b := make([]float64, C)
				for j := range b {
					b[j] = (1 - t) * alpha[j]
				}
				b[k] += t
				best = math.Min(best, resid2(A, b, sigma))
			}
		}
		for k := 0; k < 20; k++ {
			best = math.Min(best, resid2(A, randSimplex(r, C, k%2 == 0), sigma))
		}
		return verify.Case{LHS: f, RHS: best, OK: f <= best+1e-12,
			Detail: fmt.Sprintf("%s: ‖Γ̂ᵀα̂−σ̂‖²=%.6g > a competitor's %.6g", detail, f, best)}
	})
}

func checkTHat(cfg verify.Config, build buildFunc) verify.Outcome {
	gen := verify.Gen(func(r *rand.Rand, _ int) any { return r.Int63() })
	return verify.ForAll(cfg, "alg2: T-hat", verify.Identity, gen, func(v any) verify.Case {
		r := rand.New(rand.NewSource(v.(int64)))
		set, _ := labelledSet(r)
		opts := estimators.Options{Mode: []estimators.Mode{estimators.ModeApprox, estimators.ModeUniform}[r.Intn(2)],
			Weights: []estimators.WeightScheme{estimators.WeightsUniform, estimators.WeightsHM}[r.Intn(2)]}
		red, err := build(set, opts, r.Int63())
		if err != nil {
			return verify.Case{Detail: fmt.Sprintf("C=%d %v: %v", set.NumClasses, opts, err)}
		}
		C := set.NumClasses
		for i, g := range red.Groups {
			for c2 := 0; c2 < C; c2++ {
				sig, col := 0.0, 0.0
				for c1 := 0; c1 < C; c1++ {
					sig += g.Gamma.At(c1, c2) * g.Alpha[c1]
					col += g.T.At(c1, c2)
				}
				if math.Abs(sig-g.Sigma[c2]) > 1e-12 || math.Abs(col-1) > 1e-12 {
					return verify.Case{LHS: col, RHS: 1, Detail: fmt.Sprintf("group %d class %d: σ̂_i=%.12g (Γ̂ᵀα̂ gives %.12g), column sum %.12g", i, c2, g.Sigma[c2], sig, col)}
				}
				for c1 := 0; c1 < C; c1++ {
					want := 0.0
					if sig > 0 {
						want = g.Gamma.At(c1, c2) * g.Alpha[c1] / sig
					} else if c1 == c2 {
						want = 1 // absent class: column e_c (documented policy)
					}
					if got := g.T.At(c1, c2); math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
						return verify.Case{LHS: got, RHS: want, Detail: fmt.Sprintf("%v group %d: T̂(%d,%d)=%.12g, γ̂α̂/σ̂ = %.12g", opts, i, c1, c2, got, want)}
					}
				}
			}
		}
		return verify.Case{LHS: 1, RHS: 1, OK: true}
	})
}

// checkUnbiased draws a finite model P on M points, a bag set whose bag b has
// proportions γ̂_b, builds the reduction (approx mode) and compares the
// exact expectation, over instances drawn from P_{γ̂_b}, of the weighted
// empirical FC risk with Σ_i w_i R_{ℓ_{T̂_i}, (P_{σ̂_i})_{T̂_i}}(f) (theory.FCRisk).
func checkUnbiased(cfg verify.Config, weight weightFunc) verify.Outcome {
	return checkUnbiasedGoverned(cfg, "alg1: empirical risk unbiased", weight, nil)
}

// checkUnbiasedGoverned is checkUnbiased on the stream name with bag b's
// instances drawn from P_{governed(b)} (nil: P_{γ̂_b}, the statement's
// hypothesis; a probe of the hypothesis passes other proportions).
func checkUnbiasedGoverned(cfg verify.Config, name string, weight weightFunc, governed func(r *rand.Rand, gammaHat []float64) []float64) verify.Outcome {
	gen := verify.Gen(func(r *rand.Rand, _ int) any { return r.Int63() })
	return verify.ForAll(cfg, name, verify.Identity, gen, func(v any) verify.Case {
		return unbiasedCase(v.(int64), weight, governed)
	})
}

// unbiasedSetup draws, from the case's seed, a finite model P on M points, a
// predictor f away from 0, a bag set and its approx reduction (HM weights);
// r is left where the governed proportions are drawn from.
func unbiasedSetup(seed int64) (r *rand.Rand, m *theory.FiniteModel, f [][]float64, set *estimators.BagSet, red *estimators.Reduction, err error) {
	r = rand.New(rand.NewSource(seed))
	C, M := 2+r.Intn(3), 2+r.Intn(4)
	m = &theory.FiniteModel{Cond: make([][]float64, C), Prior: randSimplex(r, C, false)}
	for c := range m.Cond {
		m.Cond[c] = randSimplex(r, M, false)
	}
	f = make([][]float64, M)
	for x := range f {
		f[x] = randSimplex(r, C, false)
		for c := range f[x] { // keep away from 0: the log loss stays finite
			f[x][c] = 0.9*f[x][c] + 0.1/float64(C)
		}
	}
	set = &estimators.BagSet{NumClasses: C}
	for b := 0; b < C*(1+r.Intn(3)); b++ {
		set.Bags = append(set.Bags, estimators.Bag{ID: b, Size: 1 + r.Intn(50), Proportions: randSimplex(r, C, r.Intn(3) == 0)})
	}
	red, err = refBuild(set, estimators.Options{Mode: estimators.ModeApprox, Weights: estimators.WeightsHM}, r.Int63())
	return r, m, f, set, red, err
}

// unbiasedCase is the verdict of the claim on the case of seed.
func unbiasedCase(seed int64, weight weightFunc, governed func(r *rand.Rand, gammaHat []float64) []float64) verify.Case {
	{
		r, m, f, set, red, err := unbiasedSetup(seed)
		if err != nil {
			return verify.Case{Detail: err.Error()}
		}
		C, M := set.NumClasses, m.NumPoints()
		lhs, rhs := 0.0, 0.0
		for i, g := range red.Groups {
			for c, pos := range g.Bags {
				wt := weight(red, i, c)
				if wt == 0 && g.Alpha[c] == 0 {
					continue // α̂_i(c) = 0: row c of T̂_i is 0 and the bag is left out (Instances)
				}
				gov := set.Bags[pos].Proportions // P_{γ̂_b}
				if governed != nil {
					gov = governed(r, gov)
				}
				pg, err := m.Reweighted(gov)
				if err != nil {
					return verify.Case{Detail: err.Error()}
				}
				px := pg.Marginal()
				e := 0.0
				for x := 0; x < M; x++ {
					l, err := theory.ForwardCorrected(theory.LogLoss, g.T, f[x], c)
					if err != nil {
						return verify.Case{Detail: err.Error()}
					}
					e += px[x] * l
				}
				lhs += float64(g.Sizes[c]) * wt * e
			}
			ps, err := m.Reweighted(g.Sigma)
			if err != nil {
				return verify.Case{Detail: err.Error()}
			}
			risk, err := theory.FCRisk(theory.LogLoss, g.T, ps, f)
			if err != nil {
				return verify.Case{Detail: err.Error()}
			}
			rhs += g.Weight * risk
		}
		return verify.Case{LHS: lhs, RHS: rhs, OK: math.Abs(lhs-rhs) <= unbiasedTol*math.Max(1, math.Abs(rhs)),
			Detail: fmt.Sprintf("C=%d M=%d, %d groups: expected empirical risk %.12g, LMNTM risk %.12g", C, M, len(red.Groups), lhs, rhs)}
	}
}

// unbiasedTol: both sides are sums of ≤ 12 groups·classes of expectations
// over ≤ 5 points of −log of entries ≥ 0.1/C of T̂f(x) (so each term ≤ 4):
// their rounding stays below 60·4·2⁻⁵² ≈ 5e-14 relative; 1e-10 leaves room
// for the reduction's own rounding (α̂ by the simplex solver, to ~1e-12).
const unbiasedTol = 1e-10
