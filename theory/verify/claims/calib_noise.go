package claims

// Theorem `thm:cali.noise` (App. B.1): the Fenchel–Legendre biconjugate of
// the calibration function δ of the FC loss satisfies
// δ**(R_{L,P}(f) − R*_{L,P}) ≤ R_{ℓ_T,P_T}(f) − R*_{ℓ_T,P_T}.
//
// For a finite X, δ is computable. From its definition (App. B.1, A(ε)),
// δ(ε) = inf{C2_x(q) : x ∈ X, q ∈ Δ^C, C1_x(q) ≥ ε}. C1_x(q) = max η(x) −
// η_k(x) with k = min argmax q takes finitely many values, so
//
//	δ(ε) = min{ D_x(k) : gap_{x,k} := max η(x) − η_k(x) ≥ ε },
//	D_x(k) = inf{ C2_x(q) : q ∈ Δ^C, q_k ≥ q_j ∀j }
//
// (the infimum over {q : min argmax q = k} equals that over its closure by
// continuity of C2_x). D_x(k) is a convex program over the polytope
// R_k = conv{1_S/|S| : k ∈ S}; we solve it by Frank–Wolfe with exact line
// search and keep the certified lower bound max_t (F(q_t) − g_t), g_t the
// Frank–Wolfe duality gap. With these lower bounds D̲ ≤ D we get δ̲ ≤ δ, hence
// δ̲** ≤ δ** — so checking δ̲**(e) ≤ E checks a consequence of the theorem
// that is as tight as the Frank–Wolfe certificates.

import (
	"fmt"
	"math"
	"math/rand"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

// fwIters is the number of Frank–Wolfe iterations per D_x(k).
const fwIters = 200

// c2Oracle is F(q) = C2(q, η) with its gradient for one loss, for the
// Frank–Wolfe solver (independent of the implementation under test).
type c2Oracle struct {
	square bool
	T      *mat.Dense
	eta    []float64
	w      []float64 // Tη
}

func (o c2Oracle) value(q []float64) float64 {
	tq := mulVec(o.T, q)
	s := 0.0
	for c, w := range o.w {
		if o.square {
			d := tq[c] - w
			s += d * d
			continue
		}
		if w == 0 {
			continue
		}
		if tq[c] <= 0 {
			return math.Inf(1)
		}
		s += w * math.Log(w/tq[c])
	}
	return s
}

func (o c2Oracle) grad(q []float64) []float64 {
	C := len(q)
	tq := mulVec(o.T, q)
	u := make([]float64, C)
	for c, w := range o.w {
		if o.square {
			u[c] = 2 * (tq[c] - w)
		} else if w > 0 {
			u[c] = -w / tq[c]
		}
	}
	return mulVec(o.T.T(), u) // Tᵀu
}

// lineSearch returns argmin_{γ∈[0,1]} F(x + γd).
func (o c2Oracle) lineSearch(x, d []float64) float64 {
	a, b := mulVec(o.T, x), mulVec(o.T, d)
	if o.square {
		num, den := 0.0, 0.0
		for c := range a {
			num -= (a[c] - o.w[c]) * b[c]
			den += b[c] * b[c]
		}
		if den == 0 {
			return 0
		}
		return math.Max(0, math.Min(1, num/den))
	}
	deriv := func(g float64) float64 {
		s := 0.0
		for c, w := range o.w {
			if w == 0 || b[c] == 0 {
				continue
			}
			den := a[c] + g*b[c]
			if den <= 0 {
				return math.Inf(1)
			}
			s -= w * b[c] / den
		}
		return s
	}
	if deriv(1) <= 0 {
		return 1
	}
	lo, hi := 0.0, 1.0
	for it := 0; it < 60; it++ {
		mid := (lo + hi) / 2
		if deriv(mid) > 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	return lo
}

// minOverRegion returns a certified lower bound on D = inf{F(q): q ∈ R_k}
// and the best point found.
func (o c2Oracle) minOverRegion(k int) (lower float64, best []float64) {
	C := len(o.eta)
	x := make([]float64, C)
	for i := range x {
		x[i] = 1 / float64(C)
	}
	lower = 0
	bestF := math.Inf(1)
	for t := 0; t < fwIters; t++ {
		f := o.value(x)
		if f < bestF {
			bestF, best = f, append([]float64(nil), x...)
		}
		g := o.grad(x)
		s := lmoRegion(g, k)
		gap := 0.0
		for i := range x {
			gap += g[i] * (x[i] - s[i])
		}
		lower = math.Max(lower, f-gap)
		if gap <= 1e-15 {
			break
		}
		d := make([]float64, C)
		for i := range d {
			d[i] = s[i] - x[i]
		}
		gm := o.lineSearch(x, d)
		for i := range x {
			x[i] += gm * d[i]
		}
	}
	return lower, best
}

// lmoRegion returns argmin over the vertices 1_S/|S| (k ∈ S) of ⟨g, v⟩.
func lmoRegion(g []float64, k int) []float64 {
	C := len(g)
	others := make([]int, 0, C-1)
	for j := 0; j < C; j++ {
		if j != k {
			others = append(others, j)
		}
	}
	sort.Slice(others, func(a, b int) bool { return g[others[a]] < g[others[b]] })
	bestM, bestV, sum := 0, g[k], g[k]
	for m, j := range others {
		sum += g[j]
		if v := sum / float64(m+2); v < bestV {
			bestM, bestV = m+1, v
		}
	}
	s := make([]float64, C)
	s[k] = 1 / float64(bestM+1)
	for _, j := range others[:bestM] {
		s[j] = 1 / float64(bestM+1)
	}
	return s
}

// gapTol absorbs the rounding of an excess 0-1 risk computed along another
// path than the gaps (a few ulps of numbers ≤ 1): ε within gapTol of a gap
// counts as that gap.
const gapTol = 1e-12

// epsShift bounds the rounding error of an excess 0-1 risk (a sum of at
// most 24 terms ≤ 1: ≤ 24·2⁻⁵³ ≈ 3e-15), with a margin.
const epsShift = 1e-14

// calPoint is one (gap_{x,k}, D̲_x(k)) pair.
type calPoint struct{ Gap, D float64 }

// thetaBuilder turns the pairs of a distribution into a function on [0, 1]
// (δ̲** for the reference, δ̲ itself for the negative control).
type thetaBuilder func(pts []calPoint) func(eps float64) float64

// stepDelta is δ̲(ε) = min{D : gap ≥ ε} (0 at ε ≤ 0, +Inf above the largest
// gap; ε within gapTol of 0 or of a gap counts as that value).
func stepDelta(pts []calPoint) func(float64) float64 {
	return func(eps float64) float64 {
		if eps <= gapTol {
			return 0
		}
		m := math.Inf(1)
		for _, p := range pts {
			if p.Gap >= eps-gapTol && p.D < m {
				m = p.D
			}
		}
		return m
	}
}

// biconjugate returns δ̲**, the largest convex minorant of stepDelta(pts) on
// [0, max gap]: the lower convex hull of (0,0) and, for consecutive distinct
// gaps g_{m−1} < g_m, the points (g_{m−1}, δ̲(g_m)) and (g_m, δ̲(g_m)) (δ̲ is
// constant on (g_{m−1}, g_m], and a convex minorant is at most the right
// limit at g_{m−1}). +Inf beyond the largest gap.
func biconjugate(pts []calPoint) func(float64) float64 {
	step := stepDelta(pts)
	var gaps []float64
	for _, p := range pts {
		if p.Gap > 0 {
			gaps = append(gaps, p.Gap)
		}
	}
	sort.Float64s(gaps)
	type xy struct{ x, y float64 }
	cand := []xy{{0, 0}}
	prev := 0.0
	for _, g := range gaps {
		if g == prev {
			continue
		}
		v := step(g)
		cand = append(cand, xy{prev, v}, xy{g, v})
		prev = g
	}
	sort.SliceStable(cand, func(i, j int) bool { return cand[i].x < cand[j].x })
	var hull []xy
	for _, p := range cand {
		if len(hull) > 0 && hull[len(hull)-1].x == p.x {
			if p.y >= hull[len(hull)-1].y {
				continue
			}
			hull = hull[:len(hull)-1]
		}
		for len(hull) >= 2 {
			a, b := hull[len(hull)-2], hull[len(hull)-1]
			// Remove b if it lies on or above the segment a–p.
			if (b.y-a.y)*(p.x-a.x) >= (p.y-a.y)*(b.x-a.x) {
				hull = hull[:len(hull)-1]
				continue
			}
			break
		}
		hull = append(hull, p)
	}
	return func(eps float64) float64 {
		if eps <= 0 {
			return 0
		}
		last := hull[len(hull)-1]
		if eps > last.x+gapTol {
			return math.Inf(1)
		}
		for i := 1; i < len(hull); i++ {
			if eps <= hull[i].x {
				a, b := hull[i-1], hull[i]
				return a.y + (b.y-a.y)*(eps-a.x)/(b.x-a.x)
			}
		}
		return last.y
	}
}

// checkCaliNoise checks δ̲**(e) ≤ E and the two inequalities of the proof
// (`main.first`: Jensen, δ̲**(e) ≤ Σ_x P_X(x) δ̲**(C1_x); `main.second`:
// δ̲**(C1_x) ≤ C2_x at every x) on finite distributions: n ∈ [1,4] points,
// C ∈ [2,5], T with condition number ≤ 1e4 (Frank–Wolfe needs curvature),
// f(x) ∈ {η(x), the best Frank–Wolfe point of a random region (near-tight),
// across the boundary, random}. A quarter of the cases are C = 2, n = 2,
// where δ is a single step and the convexification matters most.
func checkCaliNoise(cfg verify.Config, name string, l theory.ProperLoss, build thetaBuilder) verify.Outcome {
	gen := verify.Gen(func(r *rand.Rand, _ int) any {
		C, n := 2+r.Intn(4), 1+r.Intn(4)
		if r.Intn(4) == 0 {
			C, n = 2, 2
		}
		T, desc := genTBiased(r, C, 1e4)
		P := GenFiniteP(r, n, C, false)
		return riskCase{P: P, T: T, Tdesc: desc, F: nil, seedF: r.Int63()}
	})
	return verify.ForAll(cfg, name, verify.Bound, gen, func(rc riskCase) verify.Case {
		r := rand.New(rand.NewSource(rc.seedF))
		C := len(rc.P.Eta[0])
		var pts []calPoint
		bestPts := make([][][]float64, len(rc.P.Eta))
		for x, eta := range rc.P.Eta {
			o := c2Oracle{square: l == theory.SquareLoss, T: rc.T, eta: eta, w: mulVec(rc.T, eta)}
			top := eta[theory.ArgMax(eta)]
			bestPts[x] = make([][]float64, C)
			for k := 0; k < C; k++ {
				gap := top - eta[k]
				if gap <= 0 {
					bestPts[x][k] = append([]float64(nil), eta...)
					continue
				}
				lo, best := o.minOverRegion(k)
				pts = append(pts, calPoint{Gap: gap, D: lo})
				bestPts[x][k] = best
			}
		}
		// Adversarial f.
		rc.F = make([][]float64, len(rc.P.Eta))
		for x, eta := range rc.P.Eta {
			switch r.Intn(4) {
			case 0:
				rc.F[x] = append([]float64(nil), eta...)
			case 1:
				rc.F[x] = bestPts[x][r.Intn(C)]
			case 2:
				rc.F[x] = GenAcrossBoundary(r, eta)
			default:
				rc.F[x] = GenSimplex(r, C, false)
			}
		}
		th := build(pts)
		// θ is nondecreasing and can be very steep (two gaps of one η 1e-11
		// apart give a hull slope ~1e10), so a rounding error of e or C1 must
		// not be amplified: the smaller side is evaluated at its argument
		// minus epsShift and the larger side at its argument plus epsShift.
		lo := func(x float64) float64 { return th(math.Max(0, x-epsShift)) }
		hi := func(x float64) float64 { return th(x + epsShift) }
		theta := lo
		e := excessZeroOneRisk(rc)
		E, err := excessFCRisk(rc, l, theory.ForwardCorrected)
		if err != nil {
			return verify.Case{Detail: rc.String() + ": " + err.Error()}
		}
		lhs := theta(e)
		detail := fmt.Sprintf("%s %v pairs(gap,D̲)=%v: θ(e=%.6g)=%.6g vs E=%.6g", l.Name(), rc, pts, e, lhs, E)
		// Proof steps, pointwise.
		jensen := 0.0
		for x, eta := range rc.P.Eta {
			c1, err1 := theory.ExcessZeroOneInnerRisk(eta, rc.F[x])
			c2, err2 := theory.ExcessInnerRiskFC(l, rc.T, eta, rc.F[x])
			if err := firstErr(err1, err2); err != nil {
				return verify.Case{Detail: detail + ": " + err.Error()}
			}
			if t := theta(c1); !leq(t, c2) {
				return verify.Case{LHS: t, RHS: c2, Detail: fmt.Sprintf("%s: at x=%d θ(C1=%.6g)=%.6g > C2=%.6g (main.second)", detail, x, c1, t, c2)}
			}
			jensen += rc.P.PX[x] * hi(c1)
		}
		if !leq(lhs, jensen) {
			return verify.Case{LHS: lhs, RHS: jensen, Detail: fmt.Sprintf("%s: θ(e)=%.6g > Σ P_X θ(C1)=%.6g (main.first)", detail, lhs, jensen)}
		}
		return mkCase(lhs, E, leq(lhs, E), detail)
	})
}

func init() {
	register(logAndSquare(verify.Claim{
		Label:      "thm:cali.noise",
		Kind:       verify.Theorem,
		RatioFloor: 0.99,
		Section:    "App. B.1",
		Statement: "δ**(R_{L,P}(f) − R*_{L,P}) ≤ R_{ℓ_T,P_T}(f) − R*_{ℓ_T,P_T}, δ** the biconjugate of the calibration function " +
			"(computed exactly up to Frank–Wolfe certificates on finite X; log and square loss), with the proof steps main.first and main.second",
		NegativeName: "δ itself (not convexified) in place of δ**",
	}, checkCaliNoise, "caliNoise", biconjugate, biconjugate, stepDelta))
}
