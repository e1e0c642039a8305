package claims

// Claims of Sections 5.2–5.3 and Appendix `sec:cfm prob model`: the
// probabilistic model of LLP with C bags (the identities α(i) = P̄_T(Ỹ=i),
// P_{γ_i} = P̄_T(·|Ỹ=i), γ_i(c) = P̄_T(Y=c|Ỹ=i), T column-stochastic),
// Assumption `grouping assumption: ch` and its stated equivalent, and
// Assumption `grouping assumption all groups`.

import (
	"errors"
	"fmt"
	"math"
	"math/rand"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

// lmTransitionFunc builds T from (Γ, α, σ): the implementation under test.
type lmTransitionFunc func(gamma mat.Matrix, alpha, sigma []float64) (*mat.Dense, error)

type lmCfmInput struct {
	model *theory.FiniteModel // prior σ = Γᵀα
	gamma *mat.Dense
	alpha []float64 // the α the case was built from
}

// lmGamma draws C bag proportions γ_i (rows): flat, spiky, with zeros, or
// near-pure bags (a vertex mixed with a little noise).
func lmGamma(r *rand.Rand, C int) *mat.Dense {
	G := mat.NewDense(C, C, nil)
	kind := r.Intn(4)
	for i := 0; i < C; i++ {
		var p []float64
		if kind == 3 {
			p = lmSimplex(r, C, 0)
			eps := logUnif(r, 1e-6, 0.2)
			for k := range p {
				p[k] *= eps
			}
			p[(i+r.Intn(2))%C] += 1 - eps
		} else {
			p = lmSimplex(r, C, kind)
		}
		G.SetRow(i, p)
	}
	return G
}

// lmCfmGen draws a case where Assumption `grouping assumption: ch` holds:
// α in the open simplex (min entry down to 1e-6), Γ invertible with
// condition number below 1e7 (so the computed α is accurate to ≈ 1e7·eps ≈
// 2e-9, well inside min α ≥ 1e-6), σ = Γᵀα with every σ(j) > 1e-4, and
// class-conditionals on m ∈ 1..5 points.
func lmCfmGen(r *rand.Rand, size int) lmCfmInput {
	C, m := 2+r.Intn(4), 1+r.Intn(5)
	for {
		G := lmGamma(r, C)
		if lmCond(G) > 1e7 {
			continue
		}
		alpha := lmInterior(r, C, 1e-6)
		sigma, _ := theory.NoisyToCleanPrior(G, alpha)
		ok := true // σ(j) ≥ 1e-4 keeps the column sums' rounding 16·C·eps/σ(j) < 1e-9
		for _, s := range sigma {
			ok = ok && s > 1e-4
		}
		if !ok {
			continue
		}
		normalize(sigma)
		md := lmModel(r, C, m)
		md.Prior = sigma
		return lmCfmInput{model: md, gamma: G, alpha: alpha}
	}
}

// lmCheckCfm checks the identities of Appendix `sec:cfm prob model` with
// α = theory.IdealAlpha(Γ, σ) and T = transition(Γ, α, σ):
//
//	(1) T is column-stochastic: entries ≥ 0, |Σ_i T(i,j) − 1| ≤ tol_j, where
//	    tol_j = 16·C·eps/σ(j) bounds the LU backward error of Γᵀα = σ
//	    divided by σ(j);
//	(2) P̄_T(Ỹ=i) = Σ_{x,y} P̄_T(x,y,i) = α(i);
//	(3) P̄_T(X=x, Y=y | Ỹ=i) = P_{γ_i}({x}×{y}) = γ_i(y) P_y({x}) for all x, y;
//	(4) P̄_T(Y=c | Ỹ=i) = γ_i(c);
//	(5) the noisy class-conditional P_T(·|Ỹ=i) (theory.FiniteModel.Noisy) is
//	    the bag distribution Σ_y γ_i(y) P_y, and the noisy prior is α.
//
// (2)–(5) are sums of ≤ 25 products of numbers in [0,1]: absolute 1e-12.
func lmCheckCfm(cfg verify.Config, name string, transition lmTransitionFunc) verify.Outcome {
	return verify.Property(cfg, name, verify.Identity, lmCfmGen, func(in lmCfmInput) verify.Case {
		md, G := in.model, in.gamma
		C, M := md.NumClasses(), md.NumPoints()
		detail := fmt.Sprintf("Γ=%s σ=%v α(built)=%v", lmMatString(G), md.Prior, in.alpha)
		alpha, err := theory.IdealAlpha(G, md.Prior)
		if err != nil {
			return verify.Case{OK: false, Detail: detail + ": " + err.Error()}
		}
		T, err := transition(G, alpha, md.Prior)
		if err != nil {
			return verify.Case{OK: false, Detail: detail + ": " + err.Error()}
		}
		detail += " T=" + lmMatString(T)
		worst := 0.0 // largest violation relative to its tolerance
		viol := func(d, tol float64) { worst = math.Max(worst, d/tol) }
		for j := 0; j < C; j++ {
			s := 0.0
			for i := 0; i < C; i++ {
				if T.At(i, j) < 0 {
					viol(1, 1e-300)
				}
				s += T.At(i, j)
			}
			viol(math.Abs(s-1), 16*float64(C)*lmEps/md.Prior[j])
		}
		if worst > 1 {
			return verify.Case{LHS: 1 + worst, RHS: 1, OK: false, Detail: detail + ": T is not column-stochastic"}
		}
		J, err1 := md.JointBarPT(T)
		nm, err2 := md.Noisy(T)
		if err := firstErr(err1, err2); err != nil {
			return verify.Case{OK: false, Detail: detail + ": " + err.Error()}
		}
		const tol = lmCfmTol
		for i := 0; i < C; i++ {
			pi := 0.0
			for x := 0; x < M; x++ {
				for y := 0; y < C; y++ {
					pi += J[x][y][i]
				}
			}
			viol(math.Abs(pi-alpha[i]), tol)          // (2)
			viol(math.Abs(nm.Prior[i]-alpha[i]), tol) // (5) prior
			bag, _ := md.Reweighted(G.RawRowView(i))  // P_{γ_i}
			for y := 0; y < C; y++ {
				py := 0.0
				for x := 0; x < M; x++ {
					viol(math.Abs(J[x][y][i]/pi-bag.Joint(x, y)), tol) // (3)
					py += J[x][y][i]
				}
				viol(math.Abs(py/pi-G.At(i, y)), tol) // (4)
			}
			for x := 0; x < M; x++ {
				b := 0.0
				for y := 0; y < C; y++ {
					b += G.At(i, y) * md.Cond[y][x]
				}
				viol(math.Abs(nm.Cond[i][x]-b), tol) // (5) class-conditional
			}
		}
		return verify.Case{LHS: 1 + worst*tol, RHS: 1, OK: worst <= 1,
			Detail: fmt.Sprintf("%s: worst violation %.3g × tolerance", detail, worst)}
	})
}

// lmTransitionNoAlpha is the negative control of `sec:cfm prob model`: the
// α(i) factor dropped, T(i,j) = γ_i(j)/σ(j).
func lmTransitionNoAlpha(gamma mat.Matrix, alpha, sigma []float64) (*mat.Dense, error) {
	C, _ := gamma.Dims()
	T := mat.NewDense(C, C, nil)
	for i := 0; i < C; i++ {
		for j := 0; j < C; j++ {
			T.Set(i, j, gamma.At(i, j)/sigma[j])
		}
	}
	return T, nil
}

// lmCHInput is one case of Assumption `grouping assumption: ch` with its
// ground truth when the construction determines it.
type lmCHInput struct {
	gamma *mat.Dense
	sigma []float64
	kind  string
	truth int // 1 holds, 0 fails, -1 unknown (decided only by the two methods)
}

// lmCHGen draws C ∈ 2..6 and one of:
//
//	interior   σ = Γᵀα, α interior with min entry ≥ 1e-6 (holds);
//	face       σ = Γᵀα with some α(k) = 0 exactly: σ on a face of the hull (fails);
//	vertex     σ = γ_k (fails);
//	outside    σ = Γᵀα with some α(k) ≤ −1e-6, σ still in the open simplex (fails);
//	collinear  γ_C a convex combination of the others (dependent; fails);
//	duplicate  two equal bags (dependent; fails);
//	pure       Γ a permutation matrix (one-class bags): α is σ permuted (holds);
//	random     σ drawn independently of Γ (truth unknown).
//
// Γ is drawn with condition number below 1e5 (before the dependent kinds
// overwrite a row), so that the computed α = Γ^{-tr}σ is accurate to about
// 1e5·eps ≈ 2e-11, far inside the decision margins (exact zeros of α on
// faces, |α| ≥ 1e-6 otherwise, threshold theory.AssumptionTol = 1e-9): the
// ground truth is then numerically decidable.
func lmCHGen(r *rand.Rand, size int) lmCHInput {
	C := 2 + r.Intn(5)
	for {
		G := lmGamma(r, C)
		if lmCond(G) > 1e5 {
			continue
		}
		in := lmCHInput{gamma: G}
		switch r.Intn(8) {
		case 0, 1:
			in.kind, in.truth = "interior", 1
			in.sigma, _ = theory.NoisyToCleanPrior(G, lmInterior(r, C, 1e-6))
		case 2:
			in.kind, in.truth = "face", 0
			a := lmInterior(r, C, 1e-3)
			a[r.Intn(C)] = 0
			in.sigma, _ = theory.NoisyToCleanPrior(G, normalize(a))
		case 3:
			in.kind, in.truth = "vertex", 0
			in.sigma = mat.Row(nil, r.Intn(C), G)
		case 4:
			in.kind, in.truth = "outside", 0
			a := lmInterior(r, C, 1e-3)
			k := r.Intn(C)
			rest := 1 - a[k]
			a[k] = -logUnif(r, 1e-6, 0.5)
			if rest+a[k] < 0.1 { // keep Σα well above 0 before normalizing
				continue
			}
			in.sigma, _ = theory.NoisyToCleanPrior(G, normalize(a))
		case 5:
			in.kind, in.truth = "collinear", 0
			if C == 2 {
				G.SetRow(1, G.RawRowView(0))
			} else {
				b := lmInterior(r, C-1, 1e-3)
				G.SetRow(C-1, normalize(mulVec(G.Slice(0, C-1, 0, C).T(), b))) // Σ_k b_k γ_k
			}
			in.sigma, _ = theory.NoisyToCleanPrior(G, lmInterior(r, C, 1e-3))
		case 6:
			in.kind, in.truth = "duplicate", 0
			a, b := r.Intn(C), r.Intn(C)
			if a == b {
				b = (a + 1) % C
			}
			G.SetRow(b, G.RawRowView(a))
			in.sigma, _ = theory.NoisyToCleanPrior(G, lmInterior(r, C, 1e-3))
		case 7:
			in.kind, in.truth = "random", -1
			if r.Intn(2) == 0 {
				in.kind, in.truth = "pure", 1
				G.Zero()
				for i, j := range r.Perm(C) {
					G.Set(i, j, 1)
				}
			}
			in.sigma = lmInterior(r, C, 1e-3)
		}
		ok := true
		for _, s := range in.sigma {
			ok = ok && s > 1e-9
		}
		if !ok { // σ must be a valid clean prior (Section 5.1: σ(c) ≠ 0)
			continue
		}
		normalize(in.sigma)
		return in
	}
}

// lmDecideFunc decides Assumption `grouping assumption: ch`.
type lmDecideFunc func(gamma mat.Matrix, sigma []float64) (bool, error)

// lmCheckCH checks the equivalence stated after Assumption
// `grouping assumption: ch`: decide (theory.AssumptionCH, which solves
// Γᵀα = σ by LU) must agree with theory.HullInterior (singular values for
// independence, a linear program for σ ∈ interior of the hull — Γ is never
// inverted) and with the ground truth of the construction. When the
// assumption holds, the LP margin t* = max min_i λ_i must equal min_i α(i)
// (the convex weights are unique) within 1e-9.
func lmCheckCH(cfg verify.Config, name string, decide lmDecideFunc) verify.Outcome {
	return verify.Property(cfg, name, verify.Identity, lmCHGen, func(in lmCHInput) verify.Case {
		a, err := decide(in.gamma, in.sigma)
		if err != nil {
			return verify.Case{OK: false, Detail: err.Error()}
		}
		b, margin, err := theory.HullInterior(in.gamma, in.sigma)
		if err != nil {
			return verify.Case{OK: false, Detail: fmt.Sprintf("%s: Γ=%v σ=%v: %v", in.kind, mat.Formatted(in.gamma, mat.FormatPython()), in.sigma, err)}
		}
		detail := fmt.Sprintf("%s: Γ=%s σ=%v Assumption=%v hull-interior&independent=%v (LP margin %.3g) truth=%d",
			in.kind, lmMatString(in.gamma), in.sigma, a, b, margin, in.truth)
		ok := a == b && (in.truth < 0 || a == (in.truth == 1))
		if ok && a {
			alpha, err := theory.IdealAlpha(in.gamma, in.sigma)
			if err != nil {
				return verify.Case{OK: false, Detail: detail + ": " + err.Error()}
			}
			minA := math.Inf(1)
			for _, x := range alpha {
				minA = math.Min(minA, x)
			}
			// Both α (LU) and the LP's λ solve a system with matrix Γᵀ (or a
			// basis of the LP containing it): forward errors ≲ cond₂(Γ)·eps
			// each, with a modest factor for C ≤ 6.
			if math.Abs(minA-margin) > 64*mat.Cond(in.gamma, 2)*lmEps+1e-12 {
				return verify.Case{LHS: margin, RHS: minA, OK: false, Detail: detail + fmt.Sprintf(": margin %.17g ≠ min α %.17g", margin, minA)}
			}
		}
		lhs := 0.0
		if a == b {
			lhs = 1
		}
		return verify.Case{LHS: lhs, RHS: 1, OK: ok, Detail: detail}
	})
}

// lmDecideTransposed is the negative control of `grouping assumption: ch`:
// the assumption decided with Γ in place of Γᵀ (solving Γα = σ).
func lmDecideTransposed(gamma mat.Matrix, sigma []float64) (bool, error) {
	C, _ := gamma.Dims()
	var lu mat.LU
	lu.Factorize(gamma) // Γ, where Γᵀ is meant
	if c := lu.Cond(); math.IsInf(c, 1) || c*theory.AssumptionCondTol > 1 {
		return false, nil
	}
	var a mat.VecDense
	if err := lu.SolveVecTo(&a, false, mat.NewVecDense(C, append([]float64(nil), sigma...))); err != nil {
		return false, nil
	}
	for i := 0; i < C; i++ {
		if !(a.AtVec(i) > theory.AssumptionTol) {
			return false, nil
		}
	}
	return true, nil
}

type lmAllInput struct {
	gammas []mat.Matrix
	sigma  []float64
	kinds  []string
}

// lmAllGen draws N ∈ 1..5 groups sharing one σ (drawn first, C ∈ 2..5).
// Each group is built around σ by lmGroupAround so that, at random, the
// assumption holds (σ interior to the hull of independent γ's) or fails (σ
// outside the hull, on a face of it, or dependent γ's).
func lmAllGen(r *rand.Rand, size int) lmAllInput {
	C, N := 2+r.Intn(4), 1+r.Intn(5)
	sigma := lmInterior(r, C, 1e-2)
	in := lmAllInput{sigma: sigma}
	for g := 0; g < N; g++ {
		kind := []string{"interior", "interior", "outside", "face", "dependent"}[r.Intn(5)]
		G := lmGroupAround(r, sigma, kind)
		in.gammas = append(in.gammas, G)
		in.kinds = append(in.kinds, kind)
	}
	return in
}

// lmGroupAround returns Γ whose rows γ_i = σ + d_i, where the directions d_i
// (Σ_j d_i(j) = 0) are chosen so that σ = Σ_i α_i γ_i for an α of the given
// kind: interior (α > 0), face (one α_i = 0), outside (one α_i < 0), or the
// γ's are dependent (two equal rows). The rows are scaled to stay in Δ^C.
func lmGroupAround(r *rand.Rand, sigma []float64, kind string) *mat.Dense {
	C := len(sigma)
	for {
		alpha := lmInterior(r, C, 1e-2)
		switch kind {
		case "face":
			alpha[r.Intn(C)] = 0
			normalize(alpha)
		case "outside":
			k := r.Intn(C)
			rest := 1 - alpha[k]
			alpha[k] = -unif(r, 0.05, 0.5)
			if rest+alpha[k] < 0.1 { // keep Σα well above 0 before normalizing
				continue
			}
			normalize(alpha)
		}
		// Random directions D (rows d_i, zero row sums) with Σ_i α_i d_i = 0:
		// draw rows freely, then subtract the α-weighted mean from a row with
		// α ≠ 0.
		D := mat.NewDense(C, C, nil)
		for i := 0; i < C; i++ {
			D.SetRow(i, lmCentered(r, C))
		}
		piv := 0
		for i := range alpha {
			if math.Abs(alpha[i]) > math.Abs(alpha[piv]) {
				piv = i
			}
		}
		s := mulVec(D.T(), alpha) // Σ_i α_i d_i
		for j := 0; j < C; j++ {
			D.Set(piv, j, D.At(piv, j)-s[j]/alpha[piv])
		}
		if kind == "dependent" && C >= 2 { // γ_0 = γ_1: keep Σ α_i d_i = 0
			a0, a1 := alpha[0], alpha[1]
			for j := 0; j < C; j++ {
				v := (a0*D.At(0, j) + a1*D.At(1, j)) / (a0 + a1)
				D.Set(0, j, v)
				D.Set(1, j, v)
			}
		}
		// Largest scale keeping every γ_i ≥ 0, then a random fraction of it.
		tmax := math.Inf(1)
		for i := 0; i < C; i++ {
			for j := 0; j < C; j++ {
				if d := D.At(i, j); d < 0 {
					tmax = math.Min(tmax, sigma[j]/-d)
				}
			}
		}
		t := tmax * unif(r, 0.2, 0.95)
		if math.IsInf(tmax, 1) { // D ≡ 0 (C = 2, dependent): every γ_i = σ
			t = 0
		}
		G := mat.NewDense(C, C, nil)
		for i := 0; i < C; i++ {
			row := make([]float64, C)
			for j := range row {
				row[j] = math.Max(0, sigma[j]+t*D.At(i, j))
			}
			G.SetRow(i, normalize(row))
		}
		if kind != "dependent" && lmCond(G) > 1e5 { // α accurate to ≈ 2e-11 ≪ AssumptionTol
			continue
		}
		return G
	}
}

// lmAllFunc decides Assumption `grouping assumption all groups`, returning
// the failing groups.
type lmAllFunc func(gammas []mat.Matrix, sigma []float64) (bool, []int, error)

// lmGroupValid is the independent per-group decision of the equivalent
// "Γ_i has full rank (singular values, so the solution of Γ_iᵀa = σ is
// unique) and the T_i of Algorithm 1 line 7 built from that solution α_i is
// column-stochastic (entries ≥ 0, columns summing to 1 within 1e-9) with α_i
// in the open simplex (min > theory.AssumptionTol)". α_i is computed here by
// the SVD solve, not by theory.IdealAlpha's LU.
func lmGroupValid(G mat.Matrix, sigma []float64) bool {
	C, _ := G.Dims()
	var svd mat.SVD
	if !svd.Factorize(mat.DenseCopyOf(G.T()), mat.SVDFull) {
		return false
	}
	sv := svd.Values(nil)
	if !(sv[C-1] > theory.AssumptionCondTol*sv[0]) {
		return false
	}
	var a mat.Dense
	svd.SolveTo(&a, mat.NewDense(C, 1, append([]float64(nil), sigma...)), C)
	alpha := mat.Col(nil, 0, &a)
	for _, x := range alpha {
		if !(x > theory.AssumptionTol) {
			return false
		}
	}
	T := mat.NewDense(C, C, nil)
	for i := 0; i < C; i++ {
		for j := 0; j < C; j++ {
			T.Set(i, j, G.At(i, j)*alpha[i]/sigma[j])
		}
	}
	return theory.CheckColumnStochastic("T", T, 1e-9) == nil
}

// lmCheckAll checks Assumption `grouping assumption all groups` ⇔ every
// group's T_i is a valid (column-stochastic) transition matrix with α_i in
// the open simplex and Γ_i invertible, per group (the failing sets must be
// equal), against ground truth from the construction; and, when the
// assumption holds, that every T_i built from theory.IdealAlpha passes
// theory.CheckColumnStochastic (the direction the paper states: the
// assumption ensures T_i is column-stochastic).
func lmCheckAll(cfg verify.Config, name string, decide lmAllFunc) verify.Outcome {
	return verify.Property(cfg, name, verify.Identity, lmAllGen, func(in lmAllInput) verify.Case {
		ok, failing, err := decide(in.gammas, in.sigma)
		if err != nil {
			return verify.Case{OK: false, Detail: err.Error()}
		}
		fail := map[int]bool{}
		for _, i := range failing {
			fail[i] = true
		}
		detail := fmt.Sprintf("σ=%v kinds=%v Γ=%v decided ok=%v failing=%v", in.sigma, in.kinds, lmMats(in.gammas), ok, failing)
		allValid := true
		for i, G := range in.gammas {
			valid := lmGroupValid(G, in.sigma)
			truth := in.kinds[i] == "interior"
			allValid = allValid && valid
			if valid != !fail[i] || valid != truth {
				return verify.Case{LHS: 0, RHS: 1, OK: false, Detail: fmt.Sprintf("%s: group %d (%s): T_i valid=%v, assumption=%v", detail, i, in.kinds[i], valid, !fail[i])}
			}
			if valid {
				alpha, err := theory.IdealAlpha(G, in.sigma)
				if err != nil {
					return verify.Case{OK: false, Detail: detail + ": " + err.Error()}
				}
				T, err := theory.TransitionMatrix(G, alpha, in.sigma)
				if err == nil {
					err = theory.CheckColumnStochastic("T", T, 1e-9)
				}
				if err != nil {
					return verify.Case{OK: false, Detail: fmt.Sprintf("%s: group %d: %v", detail, i, err)}
				}
			}
		}
		return verify.Case{LHS: 1, RHS: 1, OK: ok == allValid, Detail: detail}
	})
}

// lmAllTransposed is the negative control of
// `grouping assumption all groups`: every group decided with Γ_i in place of
// Γ_iᵀ.
func lmAllTransposed(gammas []mat.Matrix, sigma []float64) (bool, []int, error) {
	var failing []int
	for i, G := range gammas {
		ok, err := lmDecideTransposed(G, sigma)
		if err != nil {
			return false, nil, errors.Join(fmt.Errorf("group %d", i), err)
		}
		if !ok {
			failing = append(failing, i)
		}
	}
	return len(failing) == 0, failing, nil
}
