package claims

// Shared generators of adversarial inputs for the claim checkers: points of
// the simplex (Dirichlet, extreme, tied), column-stochastic noise transition
// matrices (random, near-identity, uniform noise, near-singular with
// condition numbers up to 1e8) and finite distributions over a finite X.
//
// They take gopter's *math/rand.Rand (what verify.Gen passes) and are
// deterministic functions of it.

import (
	"fmt"
	"math"
	"math/rand"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// ExtremeEntry is the size of the tiny entries of ExtremeSimplex points.
const ExtremeEntry = 1e-12

// GenDirichlet draws from the Dirichlet distribution with parameter alpha.
// Gamma variates that underflow to 0 (tiny alpha) are kept as 0 unless all
// are 0, in which case a uniformly chosen vertex is returned.
func GenDirichlet(r *rand.Rand, alpha []float64) []float64 {
	p := make([]float64, len(alpha))
	s := 0.0
	for i, a := range alpha {
		g := distuv.Gamma{Alpha: a, Beta: 1, Src: r}
		p[i] = g.Rand()
		s += p[i]
	}
	if !(s > 0) {
		for i := range p {
			p[i] = 0
		}
		p[r.Intn(len(p))] = 1
		return p
	}
	return normalize(p)
}

// GenSymDirichlet draws from the symmetric Dirichlet(a, …, a) on Δ^C.
func GenSymDirichlet(r *rand.Rand, C int, a float64) []float64 {
	alpha := make([]float64, C)
	for i := range alpha {
		alpha[i] = a
	}
	return GenDirichlet(r, alpha)
}

// GenExtremeSimplex returns a point within ExtremeEntry of a vertex or of an
// edge of Δ^C: all but one or two entries equal ExtremeEntry, the rest share
// the remaining mass.
func GenExtremeSimplex(r *rand.Rand, C int) []float64 {
	p := make([]float64, C)
	for i := range p {
		p[i] = ExtremeEntry
	}
	rest := 1 - float64(C)*ExtremeEntry
	i := r.Intn(C)
	if C > 1 && r.Intn(2) == 0 {
		j := (i + 1 + r.Intn(C-1)) % C
		u := r.Float64()
		p[i] += u * rest
		p[j] += (1 - u) * rest
	} else {
		p[i] += rest
	}
	return p
}

// GenVertex returns the vertex e_k of Δ^C for a random k (exact zeros).
func GenVertex(r *rand.Rand, C int) []float64 {
	p := make([]float64, C)
	p[r.Intn(C)] = 1
	return p
}

// GenTiedSimplex returns a point of Δ^C whose maximum is attained by at least
// two entries exactly (a tie in argmax; C ≥ 2).
func GenTiedSimplex(r *rand.Rand, C int) []float64 {
	if C < 2 {
		return []float64{1}
	}
	k := 2 + r.Intn(C-1) // number of tied maximizers
	perm := r.Perm(C)
	top := (0.5 + 0.5*r.Float64()) / float64(k)
	p := make([]float64, C)
	for _, i := range perm[:k] {
		p[i] = top
	}
	rest := 1 - float64(k)*top
	if C > k {
		w := GenSymDirichlet(r, C-k, 1)
		for m, i := range perm[k:] {
			// Keep the others strictly below the tied maximum.
			p[i] = rest * w[m]
		}
		for _, i := range perm[k:] {
			if p[i] >= top {
				return GenTiedSimplex(r, C)
			}
		}
	} else {
		for _, i := range perm[:k] {
			p[i] = 1 / float64(k)
		}
	}
	return p
}

// GenSimplex draws a point of Δ^C from a mixture of benign and adversarial
// families: Dirichlet with concentration 0.05…20, extreme points (entries
// 1e-12), exact ties in argmax and the uniform point. Exact zeros are avoided
// unless allowZeros (then exact vertices are drawn too).
func GenSimplex(r *rand.Rand, C int, allowZeros bool) []float64 {
	switch k := r.Intn(10); {
	case k < 4:
		conc := []float64{0.05, 0.3, 1, 5, 20}[r.Intn(5)]
		p := GenSymDirichlet(r, C, conc)
		if !allowZeros {
			p = floorSimplex(p, ExtremeEntry)
		}
		return p
	case k < 6:
		return GenExtremeSimplex(r, C)
	case k < 8:
		return GenTiedSimplex(r, C)
	case k < 9:
		p := make([]float64, C)
		for i := range p {
			p[i] = 1 / float64(C)
		}
		return p
	default:
		if allowZeros {
			return GenVertex(r, C)
		}
		return GenExtremeSimplex(r, C)
	}
}

// floorSimplex raises entries below lo to lo and renormalizes.
func floorSimplex(p []float64, lo float64) []float64 {
	for i, v := range p {
		if v < lo {
			p[i] = lo
		}
	}
	return normalize(p)
}

// GenNear returns a point of Δ^C close to p: p + scale·(u − p) for a random
// u ∈ Δ^C and scale ∈ {1e-1, 1e-3, 1e-6} (a convex combination, so it stays
// in the simplex).
func GenNear(r *rand.Rand, p []float64) []float64 {
	scale := []float64{1e-1, 1e-3, 1e-6}[r.Intn(3)]
	u := GenSymDirichlet(r, len(p), 1)
	q := make([]float64, len(p))
	for i := range p {
		q[i] = (1-scale)*p[i] + scale*u[i]
	}
	return q
}

// GenAcrossBoundary returns a point q of Δ^C obtained from η by moving mass
// between the top class i = min argmax η and another class j so that q just
// predicts j: q_i = q_j = (η_i+η_j)/2 when j < i (the tie rule then picks j),
// else q_j exceeds q_i by a relative 1e-9 (or, one time in four, q_i = q_j
// exactly, a tie the rule resolves to i). Such q make the excess 0-1 risk
// η_i − η_j while keeping q close to η — the near-tight cases of the
// calibration bounds. For C = 1 it returns η.
func GenAcrossBoundary(r *rand.Rand, eta []float64) []float64 {
	C := len(eta)
	q := append([]float64(nil), eta...)
	if C < 2 {
		return q
	}
	i := argmaxMin(eta)
	j := (i + 1 + r.Intn(C-1)) % C
	if r.Intn(2) == 0 { // prefer the runner-up: the smallest positive gap
		j = runnerUp(eta, i)
	}
	m := (eta[i] + eta[j]) / 2
	q[i], q[j] = m, m
	if j > i && r.Intn(4) != 0 { // else: an exact tie, which the tie rule resolves to i
		d := 1e-9 * m
		q[i] -= d
		q[j] += d
	}
	return q
}

func argmaxMin(p []float64) int {
	best := 0
	for j, v := range p {
		if v > p[best] {
			best = j
		}
	}
	return best
}

func runnerUp(p []float64, i int) int {
	best := -1
	for j, v := range p {
		if j == i {
			continue
		}
		if best < 0 || v > p[best] {
			best = j
		}
	}
	return best
}

// GenColumnStochastic returns a random C×C column-stochastic matrix whose
// columns are Dirichlet(conc) with a diagonal boost: column j is
// (1−s)·Dirichlet + s·e_j for a random s ∈ [0,1). It is almost surely
// invertible.
func GenColumnStochastic(r *rand.Rand, C int) *mat.Dense {
	T := mat.NewDense(C, C, nil)
	conc := []float64{0.2, 1, 5}[r.Intn(3)]
	for j := 0; j < C; j++ {
		s := r.Float64()
		T.SetCol(j, towardVertex(GenSymDirichlet(r, C, conc), 1-s, s, j))
	}
	return T
}

// towardVertex returns a·p + b·e_j, in place: with a + b = 1 a point of
// the simplex moved towards its vertex e_j (a diagonal boost of a column or
// row of a matrix).
func towardVertex(p []float64, a, b float64, j int) []float64 {
	for i := range p {
		p[i] *= a
	}
	p[j] += b
	return p
}

// GenUniformNoiseT returns (1−α)I + αN (N = all 1/C); its condition number
// is about 2/(1−α).
func GenUniformNoiseT(C int, alpha float64) *mat.Dense {
	T := mat.NewDense(C, C, nil)
	for i := 0; i < C; i++ {
		for j := 0; j < C; j++ {
			v := alpha / float64(C)
			if i == j {
				v += 1 - alpha
			}
			T.Set(i, j, v)
		}
	}
	return T
}

// GenNearSingularT returns a column-stochastic matrix with 1-norm condition
// number of order cond (1 ≤ cond ≤ 1e8 is the intended range; C ≥ 2): either
// uniform noise with α = 1 − 1/cond, or a random matrix one of whose
// columns is replaced by a convex combination that is within 1/cond of
// another column.
func GenNearSingularT(r *rand.Rand, C int, cond float64) *mat.Dense {
	if C < 2 || r.Intn(2) == 0 {
		return GenUniformNoiseT(C, 1-1/cond)
	}
	T := GenColumnStochastic(r, C)
	j := r.Intn(C)
	k := (j + 1 + r.Intn(C-1)) % C
	d := 1 / cond
	for i := 0; i < C; i++ {
		T.Set(i, k, (1-d)*T.At(i, j)+d*T.At(i, k))
	}
	return T
}

// GenPermutationT returns a random permutation matrix (column-stochastic,
// ‖T⁻¹‖₁ = 1: noise that only relabels).
func GenPermutationT(r *rand.Rand, C int) *mat.Dense {
	T := mat.NewDense(C, C, nil)
	for j, i := range r.Perm(C) {
		T.Set(i, j, 1)
	}
	return T
}

// GenT draws a C×C invertible column-stochastic matrix from a mixture: the
// identity, permutations, uniform noise with α up to 1−1e-8, random dense
// matrices with diagonal boost, and near-singular matrices with condition
// numbers 10…1e8 (log-uniform). maxCond caps the condition number of the
// near-singular family (use 1e8 for the full range).
func GenT(r *rand.Rand, C int, maxCond float64) (*mat.Dense, string) {
	switch k := r.Intn(10); {
	case k < 1:
		return GenUniformNoiseT(C, 0), "identity"
	case k < 2:
		return GenPermutationT(r, C), "permutation"
	case k < 4:
		a := r.Float64() * (1 - 1/maxCond)
		return GenUniformNoiseT(C, a), fmt.Sprintf("uniform noise α=%.6g", a)
	case k < 8:
		return GenColumnStochastic(r, C), "random"
	default:
		if maxCond <= 10 {
			return GenColumnStochastic(r, C), "random"
		}
		cond := math.Pow(10, 1+r.Float64()*(math.Log10(maxCond)-1))
		return GenNearSingularT(r, C, cond), fmt.Sprintf("near-singular cond~%.3g", cond)
	}
}

// FiniteP is a probability measure P on X × Y with X = {0,…,n−1} finite:
// P(x, y) = PX[x]·Eta[x][y] (classes 0-based).
type FiniteP struct {
	PX  []float64   // marginal of X, in Δ^n
	Eta [][]float64 // Eta[x] = η(x) = P(Y=·|X=x), in Δ^C
}

// Joint returns the matrix P(x, y).
func (p FiniteP) Joint() [][]float64 {
	out := make([][]float64, len(p.PX))
	for x, w := range p.PX {
		out[x] = make([]float64, len(p.Eta[x]))
		for y, e := range p.Eta[x] {
			out[x][y] = w * e
		}
	}
	return out
}

// GenFiniteP draws a finite distribution with n points and C classes; the
// marginal is Dirichlet(0.5) (some points nearly massless) and each η(x) is
// drawn by GenSimplex (allowZeros as given).
func GenFiniteP(r *rand.Rand, n, C int, allowZeros bool) FiniteP {
	p := FiniteP{PX: GenSymDirichlet(r, n, 0.5), Eta: make([][]float64, n)}
	for x := range p.Eta {
		p.Eta[x] = GenSimplex(r, C, allowZeros)
	}
	return p
}

// GenAdversarialF returns predictions f(x) ∈ Δ^C for every x of p: at each
// point independently, η(x) itself (no excess), a point across the decision
// boundary (GenAcrossBoundary), a point near η(x), a random point, or the
// vertex of the least likely class (the worst prediction).
func GenAdversarialF(r *rand.Rand, p FiniteP) [][]float64 {
	f := make([][]float64, len(p.Eta))
	for x, eta := range p.Eta {
		C := len(eta)
		switch r.Intn(6) {
		case 0:
			f[x] = append([]float64(nil), eta...)
		case 1, 2:
			f[x] = GenAcrossBoundary(r, eta)
		case 3:
			f[x] = GenNear(r, eta)
		case 4:
			f[x] = GenSimplex(r, C, false)
		default:
			worst := 0
			for j, v := range eta {
				if v < eta[worst] {
					worst = j
				}
			}
			q := make([]float64, C)
			for j := range q {
				q[j] = ExtremeEntry
			}
			q[worst] = 1 - float64(C-1)*ExtremeEntry
			f[x] = q
		}
	}
	return f
}
