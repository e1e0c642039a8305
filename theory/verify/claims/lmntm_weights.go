package claims

// Claims of Section 4.3: the harmonic-mean weights minimize the weight term
// of Theorem `thm: geb` (`hm.weights.optimal`), and the empirical risk of
// equation `llpfc-ideal: empirical risk` is unbiased for the LMNTM risk.

import (
	"fmt"
	"math"
	"math/rand"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

// lmWeightsFunc returns weights and the claimed minimal weight term.
type lmWeightsFunc func(n [][]float64) ([]float64, float64, error)

type lmWeightsInput struct {
	n     [][]float64
	alpha [][]float64
	w     []float64 // a competitor in Δ^N
	d     []float64 // a tangent direction (Σ d = 0)
	kind  string
}

// lmWeightsGen draws N ∈ 1..8 groups, C ∈ 1..6 and integer sizes n_{i,c}:
// small (1..5), spread over six orders of magnitude (1..1e6), or all equal;
// noisy priors α_i; a competitor w ∈ Δ^N (flat, spiky, sparse or a vertex);
// and a random tangent direction.
func lmWeightsGen(r *rand.Rand, size int) lmWeightsInput {
	N, C := 1+r.Intn(8), 1+r.Intn(6)
	in := lmWeightsInput{kind: []string{"small", "wide", "equal"}[r.Intn(3)]}
	eq := float64(1 + r.Intn(50))
	for i := 0; i < N; i++ {
		row := make([]float64, C)
		for c := range row {
			switch in.kind {
			case "small":
				row[c] = float64(1 + r.Intn(5))
			case "wide":
				row[c] = math.Round(logUnif(r, 1, 1e6))
			default:
				row[c] = eq
			}
		}
		in.n = append(in.n, row)
		in.alpha = append(in.alpha, lmInterior(r, C, 1e-3))
	}
	in.w = lmSimplex(r, N, r.Intn(4))
	in.d = lmCentered(r, N)
	return in
}

// lmCheckHM checks `hm.weights.optimal` (Section 4.3, text after Theorem
// `thm: geb`) for the weights returned by weights:
//
//	(a) value = √(C/Σ_i HM_i) (HM_i computed inline) = WeightTerm(w*) =
//	    √(Σ_iΣ_c w*_i²/n_{i,c}) (double sum inline), relative 1e-13;
//	(b) WeightTerm(w) ≥ value for a random competitor w ∈ Δ^N;
//	(c) along a tangent direction d (Σ d = 0), with t small enough that
//	    w* + td ∈ Δ^N: the squared term grows by exactly C t² Σ_i d_i²/HM_i
//	    (the first-order term vanishes at the optimum), within 1e-9 of the
//	    increase plus the rounding of the two sums, 4(NC+1)·eps of the value;
//	(d) KKT: w* ∈ Δ^N, w* > 0, and the stationarity 2w*_i Σ_c 1/n_{i,c} = μ
//	    is the same for every i (relative 1e-12).
//
// The same (b) and (d) are checked for theory.AlphaOptimalWeights and
// theory.AlphaWeightTerm (b_i = Σ_c α_i(c)²/n_{i,c} in place of C/HM_i).
func lmCheckHM(cfg verify.Config, name string, weights lmWeightsFunc) verify.Outcome {
	return verify.Property(cfg, name, verify.Bound, lmWeightsGen, func(in lmWeightsInput) verify.Case {
		N, C := len(in.n), float64(len(in.n[0]))
		ws, value, err := weights(in.n)
		if err != nil {
			return verify.Case{OK: false, Detail: err.Error()}
		}
		detail := fmt.Sprintf("%s n=%v w*=%v value=%.17g", in.kind, in.n, ws, value)
		fail := func(msg string, a ...any) verify.Case {
			return verify.Case{LHS: 2, RHS: 1, OK: false, Detail: detail + ": " + fmt.Sprintf(msg, a...)}
		}
		// (a)
		sumHM := 0.0
		inv := make([]float64, N) // Σ_c 1/n_{i,c} = C/HM_i
		for i, row := range in.n {
			for _, x := range row {
				inv[i] += 1 / x
			}
			sumHM += C / inv[i]
		}
		direct := func(w []float64) float64 {
			s := 0.0
			for i, row := range in.n {
				for _, x := range row {
					s += w[i] * w[i] / x
				}
			}
			return s
		}
		closed := math.Sqrt(C / sumHM)
		wt, err := theory.WeightTerm(ws, in.n)
		if err != nil {
			return fail("%v", err)
		}
		if !relEq(value, closed, lmHMTol) || !relEq(wt, closed, lmHMTol) || !relEq(math.Sqrt(direct(ws)), closed, lmHMTol) {
			return fail("value %.17g, WeightTerm(w*) %.17g, direct %.17g, √(C/ΣHM) %.17g differ", value, wt, math.Sqrt(direct(ws)), closed)
		}
		// (d)
		mu := make([]float64, N)
		sw := 0.0
		for i := range ws {
			if !(ws[i] > 0) {
				return fail("w*_%d = %g, want > 0", i, ws[i])
			}
			sw += ws[i]
			mu[i] = 2 * ws[i] * inv[i]
		}
		if math.Abs(sw-1) > lmHMTol {
			return fail("Σw* = %.17g", sw)
		}
		for i := range mu {
			if !relEq(mu[i], mu[0], 1e-12) {
				return fail("KKT: 2w*_%d Σ_c 1/n = %.17g ≠ %.17g", i, mu[i], mu[0])
			}
		}
		// (c)
		tmax := math.Inf(1)
		for i, d := range in.d {
			if d < 0 {
				tmax = math.Min(tmax, ws[i]/-d)
			}
		}
		if N > 1 && !math.IsInf(tmax, 1) {
			t := tmax * 0.5
			wp := make([]float64, N)
			pred := 0.0
			for i := range wp {
				wp[i] = ws[i] + t*in.d[i]
				pred += t * t * in.d[i] * in.d[i] * inv[i]
			}
			inc := direct(wp) - direct(ws)
			// Each direct(·) is a sum of N·C non-negative terms: rounding
			// ≤ (N·C+1)·eps of its value, twice for the difference.
			tol := 1e-9*pred + 4*float64(N*len(in.n[0])+1)*lmEps*direct(ws)
			if math.Abs(inc-pred) > tol {
				return fail("perturbation t=%g d=%v: increase %.17g, want C t²Σd²/HM = %.17g", t, in.d, inc, pred)
			}
		}
		// (b)
		other, err := theory.WeightTerm(in.w, in.n)
		if err != nil {
			return fail("%v", err)
		}
		// α variant: (b) and (d).
		aw, aval, err := theory.AlphaOptimalWeights(in.alpha, in.n)
		if err != nil {
			return fail("%v", err)
		}
		aat, _ := theory.AlphaWeightTerm(aw, in.alpha, in.n)
		aother, _ := theory.AlphaWeightTerm(in.w, in.alpha, in.n)
		if !relEq(aat, aval, lmHMTol) || aother < aval*(1-lmHMTol) {
			return fail("α variant: value %.17g, term at optimum %.17g, at w %.17g", aval, aat, aother)
		}
		b := make([]float64, len(aw)) // b_i = Σ_c α_i(c)²/n_{i,c}
		for i := range aw {
			for c, x := range in.n[i] {
				b[i] += in.alpha[i][c] * in.alpha[i][c] / x
			}
			if !relEq(aw[i]*b[i], aw[0]*b[0], 1e-12) {
				return fail("α variant KKT: w_%d b_%d = %.17g ≠ %.17g", i, i, aw[i]*b[i], aw[0]*b[0])
			}
		}
		return verify.Case{LHS: value, RHS: other, OK: value <= other*(1+lmHMTol),
			Detail: detail + fmt.Sprintf(": competitor w=%v has term %.17g", in.w, other)}
	})
}

// lmUniformWeights is the negative control of `hm.weights.optimal`: uniform
// weights 1/N with their own weight term reported as the value.
func lmUniformWeights(n [][]float64) ([]float64, float64, error) {
	w := make([]float64, len(n))
	for i := range w {
		w[i] = 1 / float64(len(n))
	}
	v, err := theory.WeightTerm(w, n)
	return w, v, err
}

// lmEmpFunc is the empirical risk under test (theory.EmpiricalLMNTMRisk's
// signature).
type lmEmpFunc func(l theory.ProperLoss, Ts []mat.Matrix, w []float64, alpha [][]float64, preds [][][][]float64) (float64, error)

type lmEmpInput struct {
	model *theory.FiniteModel
	Ts    []mat.Matrix
	w     []float64
	n     [][]int
	f     [][]float64
	exact bool
	seed  int64 // the Monte Carlo stream
}

// lmEmpGen draws the LMNTM setting of Section 4.1 on a finite 𝒳: a clean
// model, N groups with invertible column-stochastic T_i (so every (T_i q)_c
// > 0 for interior q and the log loss is finite), w ∈ Δ^N, sizes n_{i,c} and
// an interior predictor f. Half the cases are small enough to enumerate
// every sample S (m^{Σn} ≤ 729 outcomes); the others are for Monte Carlo
// (m ≤ 8, C ≤ 4, N ≤ 3, n_{i,c} ≤ 12).
func lmEmpGen(r *rand.Rand, size int) lmEmpInput {
	in := lmEmpInput{exact: r.Intn(2) == 0, seed: r.Int63()}
	var C, m, N, maxN int
	if in.exact {
		C, m, N, maxN = 2+r.Intn(2), 2+r.Intn(2), 1+r.Intn(2), 2
	} else {
		C, m, N, maxN = 2+r.Intn(3), 2+r.Intn(7), 1+r.Intn(3), 12
	}
	for {
		in.n = nil
		total := 0
		for i := 0; i < N; i++ {
			row := make([]int, C)
			for c := range row {
				row[c] = 1 + r.Intn(maxN)
				total += row[c]
			}
			in.n = append(in.n, row)
		}
		if !in.exact || math.Pow(float64(m), float64(total)) <= 729 {
			break
		}
	}
	in.model = lmModel(r, C, m)
	in.w = lmSimplex(r, N, r.Intn(3))
	in.Ts = nil
	for i := 0; i < N; i++ {
		in.Ts = append(in.Ts, lmInvertibleColStoch(r, C))
	}
	in.f = make([][]float64, m)
	for x := range in.f {
		in.f[x] = lmInterior(r, C, 1e-4)
	}
	return in
}

// lmCheckEmp checks that the empirical risk of equation
// `llpfc-ideal: empirical risk` is unbiased, E_S R̂_{w,S}(f) = R̃(f)
// (theory.LMNTMRisk), with X_{i,c,j} ~ P_{T_i}(·|c) (theory.FiniteModel.Noisy)
// and α_i = T_iσ:
//
//   - exact: E_S R̂ = Σ_S P(S) R̂(S) over every sample S (all m^{Σn}
//     assignments of points), relative 1e-12;
//   - Monte Carlo: the mean of R = 400 independent R̂(S) is within 6 exact
//     standard errors of R̃, the variance being computed exactly,
//     Var R̂ = Σ_i Σ_c (w_i α_i(c))²/n_{i,c}·Var_{X~P_{T_i}(·|c)} ℓ_{T_i}(f(X), c)
//     (a fixed, a-priori tolerance; under the CLT a false alarm has
//     probability ≈ 2e-9 per case).
func lmCheckEmp(cfg verify.Config, name string, emp lmEmpFunc) verify.Outcome {
	return verify.Property(cfg, name, verify.Identity, lmEmpGen, func(in lmEmpInput) verify.Case {
		md := in.model
		C, m, N := md.NumClasses(), md.NumPoints(), len(in.Ts)
		want, err := theory.LMNTMRisk(theory.LogLoss, in.Ts, in.w, md, in.f)
		if err != nil {
			return verify.Case{OK: false, Detail: err.Error()}
		}
		noisy := make([]*theory.FiniteModel, N)
		alpha := make([][]float64, N)
		for i, T := range in.Ts {
			if noisy[i], err = md.Noisy(T); err != nil {
				return verify.Case{OK: false, Detail: err.Error()}
			}
			alpha[i] = noisy[i].Prior
		}
		// The sample slots (i, c, j) in order, and the empirical risk of an
		// assignment pts[slot] ∈ 𝒳.
		type slot struct{ i, c int }
		var slots []slot
		for i := range in.n {
			for c, k := range in.n[i] {
				for j := 0; j < k; j++ {
					slots = append(slots, slot{i, c})
				}
			}
		}
		preds := make([][][][]float64, N)
		for i := range preds {
			preds[i] = make([][][]float64, C)
			for c := 0; c < C; c++ {
				preds[i][c] = make([][]float64, in.n[i][c])
			}
		}
		risk := func(pts []int) (float64, error) {
			k := 0
			for i := range preds {
				for c := 0; c < C; c++ {
					for j := range preds[i][c] {
						preds[i][c][j] = in.f[pts[k]]
						k++
					}
				}
			}
			return emp(theory.LogLoss, in.Ts, in.w, alpha, preds)
		}
		detail := fmt.Sprintf("σ=%v Ts=%v w=%v n=%v f=%v α=%v", md.Prior, lmMats(in.Ts), in.w, in.n, in.f, alpha)
		pts := make([]int, len(slots))
		if in.exact {
			mean := 0.0
			for {
				p := 1.0
				for k, s := range slots {
					p *= noisy[s.i].Cond[s.c][pts[k]]
				}
				if p > 0 {
					rh, err := risk(pts)
					if err != nil {
						return verify.Case{OK: false, Detail: err.Error()}
					}
					mean += p * rh
				}
				k := 0 // next assignment (odometer)
				for k < len(pts) {
					pts[k]++
					if pts[k] < m {
						break
					}
					pts[k] = 0
					k++
				}
				if k == len(pts) {
					break
				}
			}
			return verify.Case{LHS: mean, RHS: want, OK: relEq(mean, want, lmEmpTol),
				Detail: fmt.Sprintf("exact: %s: E_S R̂=%.17g R̃=%.17g", detail, mean, want)}
		}
		// Monte Carlo with the exact variance.
		variance := 0.0
		for i, T := range in.Ts {
			for c := 0; c < C; c++ {
				// Two passes (mean, then Σ p(l−μ)²): the one-pass E[l²]−μ²
				// cancels catastrophically when T_i is nearly rank one and
				// the loss nearly constant in x.
				loss := make([]float64, m)
				mu := 0.0
				for x := 0; x < m; x++ {
					loss[x] = theory.LogLoss.Loss(lmMulVec(T, in.f[x]), c)
					mu += noisy[i].Cond[c][x] * loss[x]
				}
				vc := 0.0
				for x := 0; x < m; x++ {
					vc += noisy[i].Cond[c][x] * (loss[x] - mu) * (loss[x] - mu)
				}
				coef := in.w[i] * alpha[i][c] / float64(in.n[i][c])
				variance += coef * coef * float64(in.n[i][c]) * vc
			}
		}
		const reps = 400
		rng := rand.New(rand.NewSource(in.seed))
		sum := 0.0
		for rep := 0; rep < reps; rep++ {
			for k, s := range slots {
				pts[k] = lmDraw(rng, noisy[s.i].Cond[s.c])
			}
			rh, err := risk(pts)
			if err != nil {
				return verify.Case{OK: false, Detail: err.Error()}
			}
			sum += rh
		}
		mean := sum / reps
		se := math.Sqrt(variance / reps)
		return verify.Case{LHS: mean, RHS: want, OK: math.Abs(mean-want) <= 6*se+1e-12*(1+want),
			Detail: fmt.Sprintf("monte carlo: %s: mean of %d R̂=%.17g R̃=%.17g standard error %.3g", detail, reps, mean, want, se)}
	})
}

func lmMulVec(T mat.Matrix, q []float64) []float64 {
	C, _ := T.Dims()
	var v mat.VecDense
	v.MulVec(T, mat.NewVecDense(C, append([]float64(nil), q...)))
	return mat.Col(nil, 0, &v)
}

// lmDraw draws an index from the distribution p.
func lmDraw(r *rand.Rand, p []float64) int {
	u := r.Float64()
	last := 0
	for i, v := range p {
		if v > 0 {
			last = i
		}
		u -= v
		if u < 0 && v > 0 {
			return i
		}
	}
	return last
}

// lmEmpUniformAlpha is the negative control of
// `llpfc-ideal: empirical risk`: the α_i(c) factor replaced by 1/C (the
// noisy prior ignored).
func lmEmpUniformAlpha(l theory.ProperLoss, Ts []mat.Matrix, w []float64, alpha [][]float64, preds [][][][]float64) (float64, error) {
	u := make([][]float64, len(alpha))
	for i := range u {
		u[i] = make([]float64, len(alpha[i]))
		for c := range u[i] {
			u[i][c] = 1 / float64(len(alpha[i]))
		}
	}
	return theory.EmpiricalLMNTMRisk(l, Ts, w, u, preds)
}
