package claims

// Accurate surrogate excess risks for ill-conditioned T.
//
// With a near-singular T (condition number up to 1e8) the excess FC risk of
// a wrong prediction is tiny — C2 ≈ ½‖T(η−q)‖² can be 1e-17 — and the
// generic difference Σ_c (Tη)_c(ℓ(Tq,c) − ℓ(Tη,c)) (theory.ExcessInnerRiskFC)
// only resolves it to ~1e-16 absolute, which makes the bound checks vacuous
// there (they pass within tolAbs). For the log and square losses C2 has the
// closed forms KL(Tη‖Tq) (Lemma `YW_lemma:KL`, checked separately) and
// ‖T(η−q)‖₂² (the Bregman form of the square loss, checked below), which are
// evaluated here from d = T(η−q) — a difference taken before the product, so
// d carries a relative error of order C·u·κ₁(T), u = 1.1e-16 — and from
// Tq, as KL = Σ_c (Tq)_c φ(d_c/(Tq)_c), φ(r) = (1+r)log(1+r) − r ≥ 0.
// Checks that use these forms take the relative tolerance
// accurateTol(T) = tolRel + 1e-14·C·κ₁(T) (≤ 1e-5 at κ₁ = 1e8, C = 10).

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

// accurateTol is the relative tolerance of c2Accurate for the matrix T.
// Its condition number comes from invNorm1Direct, not from theory.InvNorm1,
// so that a wrong ‖T⁻¹‖₁ in the implementation cannot widen the tolerance of
// the checks that test it (independent sides).
func accurateTol(T mat.Matrix) float64 {
	C, _ := T.Dims()
	n, ok := invNorm1Direct(T)
	if !ok {
		return math.Inf(1)
	}
	return tolRel + 1e-14*float64(C)*colSumMax(T)*n
}

// invNorm1Direct is ‖T⁻¹‖₁ by a second route: the inverse from gonum's
// Inverse and the largest column sum of its absolute values, written here
// (theory.InvNorm1 takes mat.Norm of an LU-based inverse). ok is false when
// T is singular to working precision.
func invNorm1Direct(T mat.Matrix) (float64, bool) {
	var inv mat.Dense
	if err := inv.Inverse(T); err != nil {
		return math.Inf(1), false
	}
	v := colSumMax(&inv)
	return v, !math.IsInf(v, 0) && !math.IsNaN(v)
}

// colSumMax returns max_j Σ_i |M(i,j)|, the induced 1-norm.
func colSumMax(M mat.Matrix) float64 {
	r, c := M.Dims()
	best := 0.0
	for j := 0; j < c; j++ {
		s := 0.0
		for i := 0; i < r; i++ {
			s += math.Abs(M.At(i, j))
		}
		best = math.Max(best, s)
	}
	return best
}

// c2Accurate returns C2(q, η) for the log loss (square = false) or the
// square loss (square = true), evaluated from d = T(η−q).
func c2Accurate(square bool, T mat.Matrix, eta, q []float64) float64 {
	C := len(eta)
	diff := make([]float64, C)
	for i := range diff {
		diff[i] = eta[i] - q[i]
	}
	d := mulVec(T, diff)
	if square {
		return radDot(d, d)
	}
	tq, te := mulVec(T, q), mulVec(T, eta)
	s := 0.0
	for c := range d {
		switch {
		case te[c] == 0:
			s += tq[c] // q_c φ(−1) = q_c
		case tq[c] <= 0:
			return math.Inf(1)
		default:
			s += tq[c] * phiAcc(d[c]/tq[c])
		}
	}
	return s
}

// phiAcc is φ(r) = (1+r)log(1+r) − r, by its series near 0.
func phiAcc(r float64) float64 {
	if math.Abs(r) >= 1e-2 {
		if r <= -1 {
			return 1
		}
		return (1+r)*math.Log1p(r) - r
	}
	s, pow := 0.0, r*r
	for k := 2; k < 14; k++ {
		s += pow / float64(k*(k-1))
		pow *= -r
	}
	return s
}

// checkConvexLBAccurate is checkConvexLB with C2 = KL(Tη‖Tq) evaluated
// accurately (see the file comment), so that near-singular T are tested.
func checkConvexLBAccurate(cfg verify.Config, name string, theta thetaFunc, zo zoExcessFunc) verify.Outcome {
	return verify.ForAll(cfg, name, verify.Bound, genPointCase(1e8, true), func(pc pointCase) verify.Case {
		c1, err := zo(pc.Eta, pc.Q)
		if err != nil {
			return verify.Case{Detail: pc.String() + ": " + err.Error()}
		}
		c2 := c2Accurate(false, pc.T, pc.Eta, pc.Q)
		lhs, err := theta(pc.T, c1)
		if err != nil {
			return verify.Case{Detail: pc.String() + ": " + err.Error()}
		}
		tol := accurateTol(pc.T)
		return verify.Case{LHS: lhs, RHS: c2, OK: lhs <= c2*(1+tol),
			Detail: fmt.Sprintf("%v: θ(C1=%.6g)=%.6g > C2=%.6g (relative tolerance %.2g)", pc, c1, lhs, c2, tol)}
	})
}

// checkRiskBoundAccurate is checkRiskBound with the excess surrogate risk
// Σ_x P_X(x)·C2_x(f(x)) from c2Accurate (P_T(x) = P_X(x) because T is
// column-stochastic).
func checkRiskBoundAccurate(cfg verify.Config, name string, square bool, boundInv boundInvFunc) verify.Outcome {
	return verify.ForAll(cfg, name, verify.Bound, genRiskCase(), func(rc riskCase) verify.Case {
		e01 := excessZeroOneRisk(rc)
		esur := 0.0
		for x, eta := range rc.P.Eta {
			if rc.P.PX[x] > 0 {
				esur += rc.P.PX[x] * c2Accurate(square, rc.T, eta, rc.F[x])
			}
		}
		if math.IsInf(esur, 1) {
			return verify.Case{OK: true}
		}
		tol := accurateTol(rc.T)
		rhs, err := boundInv(rc.T, esur)
		if err != nil {
			return verify.Case{Detail: rc.String() + ": " + err.Error()}
		}
		// θ⁻¹ is a multiple of √r: a relative error tol in r is one of tol/2
		// in θ⁻¹(r); e01 carries an absolute rounding error ≤ tolAbs.
		return verify.Case{LHS: e01, RHS: rhs, OK: e01 <= rhs*(1+tol)+tolAbs,
			Detail: fmt.Sprintf("%v: excess 0-1 risk %.6g > θ⁻¹(accurate excess surrogate risk %.6g) = %.6g", rc, e01, esur, rhs)}
	})
}

// checkSquareBregman checks that the generic C2 of the square loss equals
// ‖T(η−q)‖₂² (the identity behind θ^sq_T, see
// theory.SquareCalibrationLowerBound).
func checkSquareBregman(cfg verify.Config, name string, fcExcess fcExcessFunc) verify.Outcome {
	return verify.ForAll(cfg, name, verify.Identity, genPointCase(1e8, true), func(pc pointCase) verify.Case {
		c2, err := fcExcess(theory.SquareLoss, pc.T, pc.Eta, pc.Q)
		if err != nil {
			return verify.Case{Detail: pc.String() + ": " + err.Error()}
		}
		want := c2Accurate(true, pc.T, pc.Eta, pc.Q)
		return mkCase(c2, want, near(c2, want), fmt.Sprintf("%v: C2=%.17g, ‖T(η−q)‖²=%.17g", pc, c2, want))
	})
}
