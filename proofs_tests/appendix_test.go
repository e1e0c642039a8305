package proofs_tests

// A second reading of the appendix (PAPER_MAP, Findings, "A second reading
// of the appendix"): each disagreement between a statement, its proof and
// the lemmas it applies, shown by a computation — a counterexample where one
// exists.

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deltaP is the calibration function δ(ε) of the proof of thm:cali.noise
// (line 1164) for the log loss, T = I and a one-point 𝒳 with η(x) = eta:
// the largest δ with C2(q) < δ ⇒ C1(q) < ε, i.e. the infimum of C2 = KL(η‖q)
// over the q whose excess 0-1 risk C1 is at least ε (+Inf when none is),
// computed on a grid of q ∈ Δ² (a grid point above the infimum bounds it
// from above).
func deltaP(eta []float64, eps float64) float64 {
	best := math.Inf(1)
	for k := 0; k <= 20000; k++ {
		q := []float64{float64(k) / 20000, 1 - float64(k)/20000}
		c1, err := theory.ExcessZeroOneInnerRisk(eta, q)
		if err != nil || c1 < eps {
			continue
		}
		c2, err := theory.KL(eta, q)
		if err == nil {
			best = math.Min(best, c2)
		}
	}
	return best
}

// TestFindingQuantifierOrder: `llp.cali` (line 215) gives one θ for all P
// ("∃θ … s.t. for all P, ∀f"), and the proof (line 1507) builds it as
// Σ_i w_iθ_i with θ_i from thm:cali.noise, whose δ(·) (line 1164) is
// defined through A(ε), a condition over x ∈ 𝒳 under one P: it depends on
// P, so the proof delivers "∀P ∃θ". thm:cali.noise itself (line 1180)
// fixes "δ(·) the function defined above" and then says "for all P". Two
// one-point distributions with T = I and the log loss: η = (½, ½) has no q
// with an excess 0-1 risk, so δ(½) = +∞ (every δ is in A(½)); η = (0.9, 0.1)
// has δ(½) = KL(η‖(½, ½)) = 0.368. The statement still holds, with a θ
// uniform in P: the compactness argument of cali.inner.lemma runs over all
// (q, η) ∈ Δ × Δ, and for the log loss θ_T(ε) = ε²/(2‖T⁻¹‖₁²) lies below
// δ_P for every P (checked on a grid of η).
func TestFindingQuantifierOrder(t *testing.T) {
	flat := deltaP([]float64{0.5, 0.5}, 0.5)
	assert.True(t, math.IsInf(flat, 1), "η = (½, ½): δ(½) = %v, want +Inf (no q has C1 ≥ ½)", flat)
	skew := deltaP([]float64{0.9, 0.1}, 0.5)
	assert.InDelta(t, 0.9*math.Log(1.8)+0.1*math.Log(0.2), skew, 2e-4, "η = (0.9, 0.1): δ(½) = KL(η‖(½, ½)), approached from q₁ < ½ (at q = (½, ½) the tie goes to class 1)")
	assert.NotEqual(t, flat, skew, "δ depends on P")
	I := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	for _, eps := range []float64{0.1, 0.5, 0.9} {
		theta, err := theory.CalibrationLowerBound(I, eps)
		require.NoError(t, err)
		for k := 1; k < 100; k++ {
			e := float64(k) / 100
			d := deltaP([]float64{e, 1 - e}, eps)
			assert.LessOrEqualf(t, theta, d*(1+1e-9), "θ_T(%g) = %v above δ_P(%g) = %v at η = (%g, %g): no θ uniform in P", eps, theta, eps, d, e, 1-e)
		}
	}
}

// TestFindingLipschitzNorm: `lemma: gen` (line 1611) and `multi.rad.lemma`
// (line 1585) ask λ_i "Lipschitz" without a norm, and `lip.upper.bd.cel`
// (line 262) bounds |λ_{ℓ_T}| without one; `lemma: multi.rad.1` (line
// 1557), which the proofs apply, and `rad.lips.lemma` (1515) and `thm: geb`
// (247) say w.r.t. the 2-norm. Read with another norm the statements are
// false: λ = ‖·‖₁ is 1-Lipschitz w.r.t. ‖·‖₁, and on one point with ℋ =
// {(0, 0), (1, 1)} and w = 1 the left side of multi.rad.lemma is
// E_ε sup εw‖f(x)‖₁ = ½·2 = 1 while √2·1·E sup Σ_c ε_c f_c(x) = √2·¼·2 =
// 0.707; and λ_{ℓ_I}(·, 1) has Lipschitz constant 2(1 − p₁) → 2 > √2 w.r.t.
// ‖·‖∞ (its gradient p − e₁ has 1-norm 2(1 − p₁)).
func TestFindingLipschitzNorm(t *testing.T) {
	fx := []mat.Matrix{mat.NewDense(1, 2, []float64{0, 0}), mat.NewDense(1, 2, []float64{1, 1})}
	lhsSup, err := theory.FiniteClassSup(mat.NewDense(2, 1, []float64{0, 2}), []float64{1}) // ‖f(x)‖₁ of the two members
	require.NoError(t, err)
	lhs, err := theory.WeightedRadExact(1, lhsSup)
	require.NoError(t, err)
	rhsSup, err := theory.FiniteVectorClassSup(fx, []float64{1})
	require.NoError(t, err)
	rhs, err := theory.WeightedRadExact(2, rhsSup)
	require.NoError(t, err)
	assert.InDelta(t, 1, lhs, 1e-15)
	assert.InDelta(t, 0.5, rhs, 1e-15)
	assert.Greater(t, lhs, math.Sqrt2*rhs, "multi.rad.lemma with a 1-norm Lipschitz constant")
	// With the 2-norm constant of ‖·‖₁ (√2) the lemma holds: 1 ≤ √2·√2·½.
	assert.LessOrEqual(t, lhs, math.Sqrt2*math.Sqrt2*rhs+1e-15)

	I := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	g, err := theory.CompositeFCGrad(I, []float64{-6, 0}, 0)
	require.NoError(t, err)
	n1, n2 := math.Abs(g[0])+math.Abs(g[1]), math.Hypot(g[0], g[1])
	assert.Greater(t, n1, math.Sqrt2, "w.r.t. ‖·‖∞ the constant is sup ‖∇λ‖₁ → 2")
	assert.LessOrEqual(t, n2, math.Sqrt2, "w.r.t. ‖·‖₂ it is at most √2")
}

// TestFindingMLPInputNorm: `prop: MLP_bound` (line 1722) and `supp.prop:
// MLP_bound` (1739) assume ‖x_i‖ ≤ α without a norm; the proof (line 1769)
// reads 𝒩₁ as the ball of the RKHS of the linear kernel bounded by α, whose
// ‖k(·, x)‖ is ‖x‖₂. In the ∞-norm the bound is false: one point x = (1, 1)
// (‖x‖∞ = 1 = α), β = 1, a = 1, C = 1, m = 1: Rad(𝒩₁) = ‖x‖₂ = √2 >
// α·β·√Σa² = 1.
func TestFindingMLPInputNorm(t *testing.T) {
	X := mat.NewDense(1, 2, []float64{1, 1})
	sup, err := theory.LinearBallSup(X, []float64{1}, 1)
	require.NoError(t, err)
	rad, err := theory.WeightedRadExact(1, sup)
	require.NoError(t, err)
	bound, err := theory.MLPRadBound(1, 1, 1, 1, []float64{1})
	require.NoError(t, err)
	assert.InDelta(t, math.Sqrt2, rad, 1e-15)
	assert.Greater(t, rad, bound, "‖x‖∞ ≤ α read for ‖x‖ ≤ α")
	b2, err := theory.MLPRadBound(1, 1, math.Sqrt2, 1, []float64{1})
	require.NoError(t, err)
	assert.LessOrEqual(t, rad, b2*(1+1e-15), "with α = ‖x‖₂ it holds, with equality")
}

// TestFindingGEBNeedsAnInputBound: `thm: geb` (line 247) bounds the class
// term by C·B_q·max_i|λ_i|·√(Σw²/n) with "B_q a constant depending on
// 𝒢_q"; its proof (line 1774) takes B₂ from `prop: MLP_bound`, which
// assumes ‖x‖ ≤ α (line 1722), while §4.3's 𝒢₂ (lines 239–244) and the
// theorem bound no input. Without it no constant depending on 𝒢₂ alone
// exists: with μ = tanh and m = 2, M points x_i = t·e_i ∈ ℝ^M and a = 𝟙,
// one hidden unit u = (β/√M)·ε and the outer weight β give a member of 𝒩₂
// with Σ_i a_iε_i g(x_i) = βM·tanh(tβ/√M) for every sign vector ε, so
// Rad(𝒩₂)/‖a‖₂ ≥ β√M·tanh(tβ/√M), unbounded in M as t grows (the witness is
// validated in 𝒩₂ and evaluated directly).
func TestFindingGEBNeedsAnInputBound(t *testing.T) {
	const beta, tScale = 1.0, 1000.0
	for _, M := range []int{4, 16, 64, 256} {
		r := beta / math.Sqrt(float64(M))
		lower := math.Inf(1)
		for trial := 0; trial < 8; trial++ { // a few sign vectors; the witness adapts to each
			eps := make([]float64, M)
			for i := range eps {
				eps[i] = float64(1 - 2*((trial>>(i%3))&1)*(i%2))
			}
			v := 0.0
			for i := 0; i < M; i++ {
				// g(x_i) = β·tanh(⟨u, x_i⟩), u = r·ε, x_i = t·e_i: ⟨u, x_i⟩ = r·t·ε_i.
				v += eps[i] * beta * math.Tanh(r*tScale*eps[i])
			}
			lower = math.Min(lower, v)
		}
		ratio := lower / math.Sqrt(float64(M))
		assert.InDeltaf(t, beta*math.Sqrt(float64(M))*math.Tanh(r*tScale), ratio, 1e-9, "M = %d", M)
	}
	// The ratio grows like √M: no B₂ depending on 𝒢₂ alone bounds it.
	assert.Greater(t, beta*math.Sqrt(256)*math.Tanh(beta/16*tScale), 2*beta*math.Sqrt(16)*math.Tanh(beta/4*tScale)*0.99)
	// The witness lies in 𝒩₂: ‖u‖₂ = β, ‖v‖₁ = β; and it is the
	// supremum's lower bound theory.MLPSup reaches on a small instance.
	X := mat.NewDense(2, 2, []float64{tScale, 0, 0, tScale})
	rnd := rand.New(rand.NewPCG(60, 4))
	v, w, err := theory.MLPSup(2, X, []float64{1, 1}, beta, theory.Tanh, []float64{1, -1}, rnd, theory.MLPSupOptions{Restarts: 8, Steps: 40})
	require.NoError(t, err)
	require.NoError(t, w.Validate(beta, 1e-12))
	assert.Greater(t, v, 1.99*beta, "two points far apart: the supremum reaches β‖a‖₁ = 2β, not β‖a‖₂·const")
}

// TestFindingClassesOffTheLinkRange: `rad.lips.lemma` (line 1515) and
// `lemma: gen` (1611) take 𝒢 ⊂ ψ∘ℱ, so that λ_ℓ(g(x), c) is defined on the
// link's range 𝒱 = {s : Σ_c s_c = 0} (line 230); `thm: geb` (247, proof
// 1774) applies them to 𝒢₁, C copies of an RKHS ball (236), and 𝒢₂, C copies
// of 𝒩_m (242), whose values are not in 𝒱: g = (k(·, x₀), k(·, x₀)) ∈ 𝒢₁
// has Σ_c g_c(x₀) = 2k(x₀, x₀) ≠ 0. The lemmas are applied outside their
// hypothesis. Read with λ extended to ℝ^C by λ(s, c) = −log(T softmax(s))_c,
// which is constant along 𝟙, the proof's steps hold off 𝒱 too: the
// extension's gradient sums to 0 and stays within √2, and |λ(s, c)| ≤
// √2‖s‖₂ + |λ(0, c)| (the bounded difference of rad.lips.lemma's proof).
func TestFindingClassesOffTheLinkRange(t *testing.T) {
	x0 := mat.NewDense(1, 1, []float64{0.3})
	gram, err := theory.GaussianGram(x0, 1)
	require.NoError(t, err)
	s := []float64{gram.At(0, 0), gram.At(0, 0)}
	assert.InDelta(t, 2, s[0]+s[1], 1e-15, "Σ_c g_c(x₀) = 2k(x₀, x₀) = 2: g(x₀) ∉ 𝒱")
	rnd := rand.New(rand.NewPCG(60, 5))
	for trial := 0; trial < 500; trial++ {
		C := 2 + rnd.IntN(4)
		T := mat.NewDense(C, C, nil)
		for j := 0; j < C; j++ {
			col := make([]float64, C)
			sum := 0.0
			for i := range col {
				col[i] = 0.05 + rnd.Float64()
				sum += col[i]
			}
			for i := range col {
				T.Set(i, j, col[i]/sum)
			}
		}
		v := make([]float64, C)
		for i := range v {
			v[i] = 3 * rnd.NormFloat64()
		}
		c := rnd.IntN(C)
		shift := 5 * rnd.NormFloat64()
		w := make([]float64, C)
		for i := range w {
			w[i] = v[i] + shift
		}
		a, err1 := theory.CompositeFC(T, v, c)
		b, err2 := theory.CompositeFC(T, w, c)
		require.NoError(t, err1)
		require.NoError(t, err2)
		assert.InDelta(t, a, b, 1e-12, "λ constant along 𝟙")
		g, err := theory.CompositeFCGrad(T, v, c)
		require.NoError(t, err)
		gs, gn := 0.0, 0.0
		for _, x := range g {
			gs += x
			gn += x * x
		}
		assert.InDelta(t, 0, gs, 1e-12, "the gradient sums to 0")
		assert.LessOrEqual(t, math.Sqrt(gn), math.Sqrt2*(1+1e-12))
		l0, err := theory.CompositeFC(T, make([]float64, C), c)
		require.NoError(t, err)
		assert.LessOrEqual(t, math.Abs(a), math.Sqrt2*math.Sqrt(dot(v, v))+math.Abs(l0)+1e-12)
	}
}

func dot(x, y []float64) float64 {
	s := 0.0
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

// TestFindingFisherConsistencyLoss: §2 (line 163) says "the minimizer of
// ℓ-risk under the clean distribution P is the same as the minimizer of
// ℓ_T-risk under noisy distribution P_T" and writes argmin_f R_{L,P}(f) =
// argmin_f R_{ℓ_T,P_T}(f), with L, the 0-1 loss of the section that follows.
// With the 0-1 loss the identity is false: on one point with η = (0.7, 0.3),
// f = (0.6, 0.4) minimizes R_{L,P} (it predicts class 1, as η does) but not
// R_{ℓ_T,P_T} for the log loss and T = 0.8I + 0.2N (η is its unique
// minimizer); with ℓ in L's place it holds (Patrini et al.'s Theorem 2).
func TestFindingFisherConsistencyLoss(t *testing.T) {
	T := uniformNoise(t, 2, 0.2)
	eta, f := []float64{0.7, 0.3}, []float64{0.6, 0.4}
	e01, err := theory.ExcessZeroOneInnerRisk(eta, f)
	require.NoError(t, err)
	assert.Zero(t, e01, "f ∈ argmin R_{L,P}")
	e, err := theory.ExcessInnerRiskFC(theory.LogLoss, T, eta, f)
	require.NoError(t, err)
	assert.Greater(t, e, 1e-3, "f ∉ argmin R_{ℓ_T,P_T}")
	eEta, err := theory.ExcessInnerRiskFC(theory.LogLoss, T, eta, eta)
	require.NoError(t, err)
	assert.InDelta(t, 0, eEta, 1e-15, "η minimizes R_{ℓ_T,P_T}")
	eClean, err := theory.ExcessInnerRisk(theory.LogLoss, eta, f)
	require.NoError(t, err)
	assert.Greater(t, eClean, 1e-3, "with ℓ for L: f ∉ argmin R_{ℓ,P} either, as the identity says")
}

// TestFindingLambda0NeedsColumnSums: the closed form |λ_{ℓ_T}|₀ =
// max_c −log((1/C)Σ_j t_{c,j}) is printed (line 265) under "the
// invertibility of T"; its dropped absolute value needs every row sum at
// most C, which the neighbouring Proposition lip.upper.bd.cel's
// column-stochastic T (line 262) gives and invertibility does not: T = 3I
// (invertible, C = 2) gives −log(3/2) = −0.405 against |λ|₀ = 0.405 (the
// formula read beyond ℓ's domain, where λ_{ℓ_T}(0, c) = −log(3/2) is still
// computed), while for every column-stochastic T the two agree.
func TestFindingLambda0NeedsColumnSums(t *testing.T) {
	T := mat.NewDense(2, 2, []float64{3, 0, 0, 3})
	printed := math.Inf(-1)
	for c := 0; c < 2; c++ {
		printed = math.Max(printed, -math.Log((T.At(c, 0)+T.At(c, 1))/2))
	}
	safe, err := theory.Lambda0(T)
	require.NoError(t, err)
	assert.InDelta(t, -math.Log(1.5), printed, 1e-15)
	assert.InDelta(t, math.Log(1.5), safe, 1e-15)
	rnd := rand.New(rand.NewPCG(60, 7))
	for trial := 0; trial < 200; trial++ {
		C := 2 + rnd.IntN(5)
		S := mat.NewDense(C, C, nil)
		for j := 0; j < C; j++ {
			sum := 0.0
			for i := 0; i < C; i++ {
				S.Set(i, j, 0.01+rnd.Float64())
				sum += S.At(i, j)
			}
			for i := 0; i < C; i++ {
				S.Set(i, j, S.At(i, j)/sum)
			}
		}
		p := math.Inf(-1)
		for c := 0; c < C; c++ {
			row := 0.0
			for j := 0; j < C; j++ {
				row += S.At(c, j)
			}
			p = math.Max(p, -math.Log(row/float64(C)))
		}
		s, err := theory.Lambda0(S)
		require.NoError(t, err)
		assert.InDelta(t, s, p, 1e-12)
	}
}

// TestFindingInnerLemmaUsesInvertibility: the proof of cali.inner.lemma ends
// (line 1159) with C₂(q*, η*) = 0 "which contradicts the strict properness
// of ℓ since q* ≠ η*"; strict properness gives only Tq* = Tη*, and the
// contradiction needs T invertible, which the statement assumes and the
// proof does not invoke. With T singular the step fails: T = [0.7 0.7; 0.3
// 0.3], η* = (0.8, 0.2), q* = (0, 1) ≠ η* have C₂ = 0 (and the lemma itself
// fails there: the excess 0-1 risk is 0.6).
func TestFindingInnerLemmaUsesInvertibility(t *testing.T) {
	T := mat.NewDense(2, 2, []float64{0.7, 0.7, 0.3, 0.3})
	eta, q := []float64{0.8, 0.2}, []float64{0, 1}
	te, tq := mulT(T, eta), mulT(T, q)
	assert.InDeltaSlice(t, te, tq, 1e-15, "Tq* = Tη*")
	c2 := 0.0
	for c := range te {
		c2 += te[c] * (math.Log(te[c]) - math.Log(tq[c]))
	}
	assert.InDelta(t, 0, c2, 1e-15, "C₂(q*, η*) = KL(Tη*‖Tq*) = 0 with q* ≠ η*")
	c1, err := theory.ExcessZeroOneInnerRisk(eta, q)
	require.NoError(t, err)
	assert.InDelta(t, 0.6, c1, 1e-15)
}

func mulT(T mat.Matrix, v []float64) []float64 {
	var out mat.VecDense
	out.MulVec(T, mat.NewVecDense(len(v), append([]float64(nil), v...)))
	return mat.Col(nil, 0, &out)
}

// TestFindingLLPCaliOneInvertibleGroup: `llp.cali` asks every T_i
// invertible (line 213); its proof's θ = Σ_i w_iθ_i (line 1507) needs only
// one T_i invertible with w_i > 0 (a singular T_i's θ_i may be 0): with T₁
// singular and T₂ = (1−a)I + aN, w = (½, ½), θ(ε) = (ε²/2)·w₂/‖T₂⁻¹‖₁² stays
// below R̃ − R̃* = Σ_i w_i KL(T_iη‖T_if) on random one-point cases (with every
// T_i singular the probe of llp.cali finds it needed).
func TestFindingLLPCaliOneInvertibleGroup(t *testing.T) {
	rnd := rand.New(rand.NewPCG(60, 9))
	T1 := mat.NewDense(2, 2, []float64{0.7, 0.7, 0.3, 0.3})
	for trial := 0; trial < 2000; trial++ {
		a := 0.9 * rnd.Float64()
		T2 := uniformNoise(t, 2, a)
		e := rnd.Float64()
		q := rnd.Float64()
		eta, f := []float64{e, 1 - e}, []float64{q, 1 - q}
		if q == 0 || q == 1 {
			continue
		}
		c1, err := theory.ExcessZeroOneInnerRisk(eta, f)
		require.NoError(t, err)
		k1, err := theory.KL(mulT(T1, eta), mulT(T1, f))
		require.NoError(t, err)
		k2, err := theory.KL(mulT(T2, eta), mulT(T2, f))
		require.NoError(t, err)
		n, err := theory.InvNorm1(T2)
		require.NoError(t, err)
		theta := c1 * c1 / 2 * 0.5 / (n * n)
		assert.LessOrEqualf(t, theta, 0.5*k1+0.5*k2+1e-12, "a = %g, η = %v, f = %v", a, eta, f)
	}
}
