package claims

// Claims of Section 4.3 about the composite loss λ_{ℓ_T}(s,c) =
// −log((T softmax(s))_c): Proposition `lip.upper.bd.cel` (|λ_{ℓ_T}| ≤ √2,
// with the closed-form gradient of its proof checked against central finite
// differences) and the closed form of |λ_{ℓ_T}|₀ (`lambda0.formula`).

import (
	"fmt"
	"math"
	"math/rand"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

// lmGradFunc is the implementation of ∇_s λ_{ℓ_T}(s,c) under test.
type lmGradFunc func(T mat.Matrix, s []float64, c int) ([]float64, error)

type lmLipInput struct {
	T    *mat.Dense
	s, u []float64 // a point and a second point for the direct Lipschitz check
	c    int
	kind int
}

// lmLipGen draws C ∈ 2..8, a column-stochastic T of any kind of lmColStoch
// (singular and zero-row matrices included) or from gen.go's GenT, a class c and score vectors at
// scales from 1e-3 to 1e3 (some entries pinned at ±1e3).
func lmLipGen(r *rand.Rand, size int) lmLipInput {
	C := 2 + r.Intn(7)
	kind := r.Intn(9)
	var T *mat.Dense
	if kind == 8 { // the shared generator of gen.go (near-singular up to cond 1e8)
		T, _ = GenT(r, C, 1e8)
	} else {
		T = lmColStoch(r, C, kind)
	}
	in := lmLipInput{T: T, c: r.Intn(C), kind: kind}
	scale := logUnif(r, 1e-3, 1e3)
	in.s = make([]float64, C)
	in.u = make([]float64, C)
	step := logUnif(r, 1e-6, 1e3)
	for i := range in.s {
		in.s[i] = scale * r.NormFloat64()
		if r.Intn(6) == 0 {
			in.s[i] = 1e3 * float64(1-2*r.Intn(2))
		}
		in.u[i] = in.s[i] + step*r.NormFloat64()
	}
	return in
}

// lmCheckLip runs the three properties of Proposition `lip.upper.bd.cel`
// against the gradient implementation grad:
//
//  1. ‖grad(s)‖₂ ≤ √2 (up to 8·C·eps of rounding);
//  2. grad agrees with central differences of theory.CompositeFC, step
//     h = 1e-4: the error is at most h²/6·max|∂³λ| + (rounding of the two
//     values)/h. λ is a difference of two log-sum-exps, whose third
//     derivatives along a coordinate are p(1−p)(1−2p), |·| ≤ 1/(6√3), so the
//     truncation is ≤ h²/6·2/(6√3) < 4e-10; each value has absolute rounding
//     error ≤ 4·eps·(1 + max|s| + |λ| + 1) (two log-sum-exps of C ≤ 8 terms,
//     whose logs are as large as |λ| when (Tp)_c is tiny), so the difference
//     quotient errs by ≤ 8·eps·(2 + max|s| + |λ|)/h. The gradient must also
//     sum to 0 (it lies in 𝒱);
//  3. |λ(s) − λ(u)| ≤ √2‖s − u‖₂ directly on pairs of points, up to the
//     rounding of the two values, 16·eps·(1 + max|s| + |λ(s)| + |λ(u)|).
//
// A zero row c of T must give λ(·,c) = +Inf and a gradient error (the
// honest handling of (T p)_c = 0); such cases check that and nothing else.
func lmCheckLip(cfg verify.Config, name string, grad lmGradFunc) verify.Outcome {
	bound := verify.Property(cfg, name+"/bound", verify.Bound, lmLipGen, func(in lmLipInput) verify.Case {
		C := len(in.s)
		g, err := grad(in.T, in.s, in.c)
		if lmRowSum(in.T, in.c) == 0 {
			val, verr := theory.CompositeFC(in.T, in.s, in.c)
			ok := err != nil && verr == nil && math.IsInf(val, 1)
			return verify.Case{LHS: 0, RHS: math.Sqrt2, OK: ok,
				Detail: fmt.Sprintf("zero row %d of T=%s: λ=%g (err %v), grad err %v; want +Inf and a gradient error", in.c, lmMatString(in.T), val, verr, err)}
		}
		if err != nil {
			return verify.Case{OK: false, Detail: fmt.Sprintf("T=%s s=%v c=%d: %v", lmMatString(in.T), in.s, in.c, err)}
		}
		n := mat.Norm(mat.NewVecDense(C, g), 2)
		// The right side is the implementation's constant theory.LogLossLip,
		// which NewLogLossSetting puts into the generalization bounds.
		return verify.Case{LHS: n, RHS: theory.LogLossLip, OK: n <= theory.LogLossLip*(1+8*float64(C)*lmEps),
			Detail: fmt.Sprintf("T=%s s=%v c=%d ‖∇λ‖₂=%.17g", lmMatString(in.T), in.s, in.c, n)}
	})
	fd := verify.Property(cfg, name+"/finite-differences", verify.Bound, lmLipGen, func(in lmLipInput) verify.Case {
		if lmRowSum(in.T, in.c) == 0 {
			return verify.Case{OK: true, Detail: "zero row (checked in the bound property)"}
		}
		g, err := grad(in.T, in.s, in.c)
		if err != nil {
			return verify.Case{OK: false, Detail: err.Error()}
		}
		const h = 1e-4
		maxS := 0.0
		for _, x := range in.s {
			maxS = math.Max(maxS, math.Abs(x)+h)
		}
		v0, err := theory.CompositeFC(in.T, in.s, in.c)
		if err != nil {
			return verify.Case{OK: false, Detail: err.Error()}
		}
		tol := 4e-10 + 8*lmEps*(1+maxS+math.Abs(v0)+1)/h
		worst, sum := 0.0, 0.0
		var fdv []float64
		for i := range in.s {
			sp := append([]float64(nil), in.s...)
			sm := append([]float64(nil), in.s...)
			sp[i] += h
			sm[i] -= h
			fp, e1 := theory.CompositeFC(in.T, sp, in.c)
			fm, e2 := theory.CompositeFC(in.T, sm, in.c)
			if e1 != nil || e2 != nil {
				return verify.Case{OK: false, Detail: fmt.Sprintf("%v %v", e1, e2)}
			}
			d := (fp - fm) / (sp[i] - sm[i]) // the step actually taken
			fdv = append(fdv, d)
			worst = math.Max(worst, math.Abs(d-g[i]))
			sum += g[i]
		}
		ok := worst <= tol && math.Abs(sum) <= 4*float64(len(g))*lmEps
		// 0/0: this property's ratio stays out of the Bound report.
		return verify.Case{LHS: 0, RHS: 0, OK: ok,
			Detail: fmt.Sprintf("T=%s s=%v c=%d grad=%v fd=%v max|grad−fd|=%.3g tol=%.3g Σgrad=%.3g", lmMatString(in.T), in.s, in.c, g, fdv, worst, tol, sum)}
	})
	direct := verify.Property(cfg, name+"/direct", verify.Bound, lmLipGen, func(in lmLipInput) verify.Case {
		if lmRowSum(in.T, in.c) == 0 {
			return verify.Case{LHS: 0, RHS: 1, OK: true, Detail: "zero row"}
		}
		a, e1 := theory.CompositeFC(in.T, in.s, in.c)
		b, e2 := theory.CompositeFC(in.T, in.u, in.c)
		if e1 != nil || e2 != nil {
			return verify.Case{OK: false, Detail: fmt.Sprintf("%v %v", e1, e2)}
		}
		d := 0.0
		maxS := 0.0
		for i := range in.s {
			d += (in.s[i] - in.u[i]) * (in.s[i] - in.u[i])
			maxS = math.Max(maxS, math.Max(math.Abs(in.s[i]), math.Abs(in.u[i])))
		}
		rhs := theory.LogLossLip * math.Sqrt(d)
		lhs := math.Abs(a - b)
		return verify.Case{LHS: lhs, RHS: rhs, OK: lhs <= rhs*(1+4*lmEps)+16*lmEps*(1+maxS+math.Abs(a)+math.Abs(b)),
			Detail: fmt.Sprintf("T=%s s=%v u=%v c=%d |λ(s)−λ(u)|=%.17g √2‖s−u‖=%.17g", lmMatString(in.T), in.s, in.u, in.c, lhs, rhs)}
	})
	return verify.Merge(verify.Bound, bound, direct, fd)
}

// lmFlippedGrad is the negative control of `lip.upper.bd.cel`: the gradient
// with its sign flipped (a − p instead of p − a). Its norm obeys the bound,
// so only the finite-difference property can catch it.
func lmFlippedGrad(T mat.Matrix, s []float64, c int) ([]float64, error) {
	g, err := theory.CompositeFCGrad(T, s, c)
	for i := range g {
		g[i] = -g[i]
	}
	return g, err
}

func lmRowSum(T mat.Matrix, i int) float64 {
	_, c := T.Dims()
	s := 0.0
	for j := 0; j < c; j++ {
		s += T.At(i, j)
	}
	return s
}

// lmLambda0Func is the closed form of |λ_{ℓ_T}|₀ under test.
type lmLambda0Func func(T mat.Matrix) (float64, error)

// lmCheckLambda0 checks |λ_{ℓ_T}|₀ = max_c |λ_{ℓ_T}(0,c)| (λ evaluated at
// s = 0 by theory.CompositeFC) against the closed form
// max_c −log((1/C)Σ_j t_{c,j}) given by closed (theory.Lambda0), on C ∈ 1..8
// and every kind of column-stochastic matrix; a zero row must give +Inf on
// the evaluated side and an error from the closed form. Both sides are a
// log of a sum of ≤ 8 terms: relative agreement within 1e-13.
func lmCheckLambda0(cfg verify.Config, name string, closed lmLambda0Func) verify.Outcome {
	gen := func(r *rand.Rand, size int) *mat.Dense { return lmColStoch(r, 1+r.Intn(8), r.Intn(8)) }
	return verify.Property(cfg, name, verify.Identity, gen, func(T *mat.Dense) verify.Case {
		C, _ := T.Dims()
		eval := 0.0
		for c := 0; c < C; c++ {
			x, err := theory.CompositeFC(T, make([]float64, C), c)
			if err != nil {
				return verify.Case{OK: false, Detail: err.Error()}
			}
			eval = math.Max(eval, math.Abs(x))
		}
		cf, err := closed(T)
		if math.IsInf(eval, 1) {
			return verify.Case{LHS: 1, RHS: 1, OK: err != nil,
				Detail: fmt.Sprintf("T=%s has a zero row: λ(0,c)=+Inf, closed form %g err %v (want an error)", lmMatString(T), cf, err)}
		}
		if err != nil {
			return verify.Case{OK: false, Detail: fmt.Sprintf("T=%s: %v", lmMatString(T), err)}
		}
		// A third, inline evaluation of the closed form: max_c −log(mean_j t_{c,j}).
		inline := math.Inf(-1)
		for c := 0; c < C; c++ {
			inline = math.Max(inline, -math.Log(lmRowSum(T, c)/float64(C)))
		}
		ok := relEq(eval, cf, lmLambda0Tol) && relEq(inline, cf, lmLambda0Tol)
		return verify.Case{LHS: 1 + eval, RHS: 1 + cf, OK: ok,
			Detail: fmt.Sprintf("T=%s max_c|λ(0,c)|=%.17g closed form=%.17g inline=%.17g", lmMatString(T), eval, cf, inline)}
	})
}

// lmLambda0NoMean is the negative control of `lambda0.formula`: the 1/C
// dropped, max_c −log Σ_j t_{c,j}.
func lmLambda0NoMean(T mat.Matrix) (float64, error) {
	C, _ := T.Dims()
	out := math.Inf(-1)
	for c := 0; c < C; c++ {
		s := lmRowSum(T, c)
		if s == 0 {
			return math.Inf(1), fmt.Errorf("T: zero row %d", c)
		}
		out = math.Max(out, math.Abs(-math.Log(s)))
	}
	return out, nil
}
