package claims

// Hypotheses of the claims of Section 4 (LMNTM risk, composite loss,
// weights), Sections 5.2–5.3 and Appendix D (the probabilistic model of
// LLP).

import (
	"fmt"
	"math"
	"math/rand"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

// Parts of Theorem `llp.cali` beyond the calibration statements'.
const (
	partEachInv    = "each T_i invertible"
	partEachNonNeg = "each T_i ≥ 0"
	partEachColSum = "each T_i's columns sum to 1"
	partWNonNeg    = "w_i ≥ 0"
	partWSum       = "Σ_i w_i = 1"
	partLLPTheta   = "θ: [0,1] → [0,∞]"
	partLLPBayes   = "R*_{ℓ_{T_i},P_{T_i}} < ∞"
)

// lmPoint is a point of Theorem `llp.cali` on a one-point 𝒳: a loss, N
// matrices T_i and weights w, the clean posterior η and a prediction f;
// Star is where the family says R̃ is least (read there by the probe, not by
// the judge).
type lmPoint struct {
	Kind       string
	Loss       probeLoss
	Ts         []*mat.Dense
	W          []float64
	Eta, F     []float64
	Star       []float64
	RegionGrid bool // w has a negative entry: the judge minimizes R̃ on a grid (C = 2)
}

func (p lmPoint) String() string {
	var ts []string
	for _, T := range p.Ts {
		ts = append(ts, lmMatString(T))
	}
	return fmt.Sprintf("%s, ℓ = %s: Ts=%v w=%v η=%v f=%v", p.Kind, p.Loss.name, ts, p.W, p.Eta, p.F)
}

// risk is R̃(q) = Σ_i w_i Σ_c (T_iη)_c ℓ(T_i q, c), summed directly.
func (p lmPoint) risk(q []float64) float64 {
	s := 0.0
	for i, T := range p.Ts {
		s += p.W[i] * probePoint{Loss: p.Loss, T: T, Eta: p.Eta}.inner(q)
	}
	return s
}

// c1 is the excess 0-1 risk of f at η (by min argmax).
func (p lmPoint) c1() float64 { return probePoint{Eta: p.Eta, Q: p.F}.c1() }

// llpCaliCase is the probe's verdict: R̃(f) − R̃(Star) = 0 to rounding while
// the excess 0-1 risk is positive refutes every θ.
func llpCaliCase(p lmPoint) verify.Case {
	c1 := p.Eta[theory.ArgMax(p.Eta)] - p.Eta[theory.ArgMax(p.F)]
	sur := p.risk(p.F) - p.risk(p.Star)
	bad := math.Abs(sur) <= flipZeroTol && c1 > flipC1Min
	return verify.Case{LHS: c1, RHS: math.Max(sur, 0), OK: !bad, Detail: fmt.Sprintf("%v: R̃(f) − R̃* = %.3g, excess 0-1 risk %.6g > 0", p, sur, c1)}
}

// llpCaliJudged re-evaluates it from the definitions. With w ≥ 0 the
// infimum of R̃ is at least Σ_i w_i times the loss's entropy at T_iη, so
// R̃(f) minus that bounds the excess above. With a negative weight (C = 2)
// R̃ is minimized on a grid of q₁ ∈ [0, 1] with a Lipschitz margin: the
// point is a counterexample when the least value on the side of the
// decision boundary where f lies is below, by more than the margins, the
// least value on η's side — then R̃'s minimizer f* predicts as f does, with
// excess 0 and a positive excess 0-1 risk.
func llpCaliJudged(p lmPoint) (bool, string) {
	c1 := p.c1()
	if !p.RegionGrid {
		lower := 0.0
		for i, T := range p.Ts {
			if p.W[i] < 0 {
				return true, "a negative weight without the grid: no lower bound on R̃*"
			}
			lower += p.W[i] * p.Loss.entropy(clampSimplex(mulVec(T, p.Eta)))
		}
		up := p.risk(p.F) - lower
		fails := c1 > flipC1Min && up <= flipZeroTol
		return !fails, fmt.Sprintf("excess 0-1 risk %.6g, R̃(f) − R̃* ≤ R̃(f) − Σ_i w_i·entropy(T_iη) = %.3g", c1, up)
	}
	const n = 200000
	h := 1.0 / n
	// |dR̃/dq₁| ≤ L: ℓ = −log, (T_iq)_c ≥ min entry of T_i.
	L := 0.0
	for i, T := range p.Ts {
		te := mulVec(T, p.Eta)
		m := math.Min(math.Min(T.At(0, 0), T.At(0, 1)), math.Min(T.At(1, 0), T.At(1, 1)))
		for c := 0; c < 2; c++ {
			L += math.Abs(p.W[i]) * te[c] * math.Abs(T.At(c, 0)-T.At(c, 1)) / m
		}
	}
	top := theory.ArgMax(p.Eta)
	bestF, bestEta := math.Inf(1), math.Inf(1)
	for k := 0; k <= n; k++ {
		q := []float64{float64(k) * h, 1 - float64(k)*h}
		v := p.risk(q)
		if theory.ArgMax(q) == top {
			bestEta = math.Min(bestEta, v)
		} else {
			bestF = math.Min(bestF, v)
		}
	}
	margin := L * h
	fails := c1 > flipC1Min && theory.ArgMax(p.F) != top && bestF+margin < bestEta-margin
	return !fails, fmt.Sprintf("excess 0-1 risk %.6g; min R̃ on f's side of the boundary %.9g, on η's side %.9g (grid of %d, Lipschitz margin %.2g): R̃'s minimizer predicts as f", c1, bestF, bestEta, n, margin)
}

// llpParts judges an lmPoint.
func llpParts(p lmPoint) (map[string]bool, string) {
	inv, nn, cs := true, true, true
	for _, T := range p.Ts {
		inv = inv && invertible(T)
		nn = nn && nonNegative(T)
		cs = cs && columnsSumToOne(T)
	}
	wn, ws := true, 0.0
	for _, w := range p.W {
		wn = wn && w >= 0
		ws += w
	}
	m := map[string]bool{
		partProper: p.Loss.proper, partUnique: p.Loss.unique(len(p.Eta)), partCont: p.Loss.continuous,
		partEachInv: inv, partEachNonNeg: nn, partEachColSum: cs, partWNonNeg: wn, partWSum: math.Abs(ws-1) <= 1e-12,
		partLLPBayes: keptByFamily, partLLPTheta: keptByFamily, partRegular: keptByFamily,
	}
	if !nn || !cs {
		return m, outsideLT
	}
	return m, ""
}

var llpJudge = verify.Judge[lmPoint]{Parts: llpParts, Conclusion: llpCaliJudged}

// lmUniformNoise draws N ∈ 1..3 uniform-noise matrices of size C.
func lmUniformNoise(r *rand.Rand, C int) []*mat.Dense {
	var Ts []*mat.Dense
	for i := 0; i < 1+r.Intn(3); i++ {
		T, _ := genUniformNoiseT(r, C)
		Ts = append(Ts, T)
	}
	return Ts
}

// genLLPFromCal lifts a calibration family whose T is uniform noise to N
// groups of uniform noise (which commute with every permutation of the
// classes, so the family's q still minimizes every group's inner risk),
// with weights in the open simplex.
func genLLPFromCal(gen func(*rand.Rand, int) probePoint) func(*rand.Rand, int) lmPoint {
	return func(r *rand.Rand, size int) lmPoint {
		p := gen(r, size)
		C := len(p.Eta)
		Ts := append([]*mat.Dense{p.T}, lmUniformNoise(r, C)[1:]...)
		star := p.Eta
		if !p.Loss.proper {
			star = p.Q
		}
		return lmPoint{Kind: p.Kind, Loss: p.Loss, Ts: Ts, W: GenSimplex(r, len(Ts), false), Eta: p.Eta, F: p.Q, Star: star}
	}
}

// genLLPSingular draws every T_i singular with the same two columns equal
// (column j = column i), the log loss and f = η with class i's mass moved
// to j: T_i f = T_i η for every i.
func genLLPSingular(r *rand.Rand, size int) lmPoint {
	p := genSingularFlip(r, size)
	C := len(p.Eta)
	var i, j int
	for k := 0; k < C; k++ {
		if p.Q[k] == 0 && p.Eta[k] > 0 {
			i = k
		}
	}
	for k := 0; k < C; k++ {
		if k != i && p.Q[k] != p.Eta[k] {
			j = k
		}
	}
	Ts := []*mat.Dense{p.T}
	for n := 1 + r.Intn(3); len(Ts) < n; {
		T := GenColumnStochastic(r, C)
		for k := 0; k < C; k++ {
			T.Set(k, j, T.At(k, i))
		}
		Ts = append(Ts, T)
	}
	return lmPoint{Kind: fmt.Sprintf("every T_i singular (column %d = column %d)", j+1, i+1), Loss: plLog, Ts: Ts, W: GenSimplex(r, len(Ts), false), Eta: p.Eta, F: p.Q, Star: p.Eta}
}

// genLLPNegativeWeight draws C = 2, two groups of uniform noise
// T_i = (1−b_i)I + b_iN (entries positive: R̃ bounded on Δ²), weights
// w = (−a, 1+a) on the less noisy group first (Σw = 1), η: with the less
// noisy group's excess weighed negatively, R̃ is least away from η. The
// draw is kept when a grid says R̃'s least value lies across the decision
// boundary from η; f is that grid point.
func genLLPNegativeWeight(r *rand.Rand, _ int) lmPoint {
	for {
		b1, b2 := unif(r, 0.05, 0.4), unif(r, 0.5, 0.9)
		a := unif(r, 0.3, 2)
		e := unif(r, 0.55, 0.95)
		eta := []float64{e, 1 - e}
		if r.Intn(2) == 0 {
			eta = []float64{1 - e, e}
		}
		p := lmPoint{Kind: fmt.Sprintf("w = (%.3g, %.3g), T₁ = %.3gI + %.3gN, T₂ = %.3gI + %.3gN", -a, 1+a, 1-b1, b1, 1-b2, b2), Loss: plLog,
			Ts: []*mat.Dense{GenUniformNoiseT(2, b1), GenUniformNoiseT(2, b2)}, W: []float64{-a, 1 + a}, Eta: eta, RegionGrid: true}
		best, arg := math.Inf(1), []float64(nil)
		for k := 0; k <= 2000; k++ {
			q := []float64{float64(k) / 2000, 1 - float64(k)/2000}
			if v := p.risk(q); v < best {
				best, arg = v, q
			}
		}
		if theory.ArgMax(arg) != theory.ArgMax(eta) && math.Abs(arg[0]-0.5) > 0.05 {
			p.F, p.Star = arg, arg
			return p
		}
	}
}

// genLLPZeroWeight draws w = 0 (every weight 0: Σw = 0), N ∈ 1..3
// invertible column-stochastic T_i, the log loss, and f = η with its top
// two entries swapped: R̃ ≡ 0.
func genLLPZeroWeight(r *rand.Rand, _ int) lmPoint {
	C := 2 + r.Intn(3)
	eta := GenSymDirichlet(r, C, 1)
	i, j := topAndOther(r, eta, func(int) bool { return true })
	for j < 0 {
		eta = GenSymDirichlet(r, C, 1)
		i, j = topAndOther(r, eta, func(int) bool { return true })
	}
	f := append([]float64(nil), eta...)
	f[i], f[j] = f[j], f[i]
	N := 1 + r.Intn(3)
	var Ts []*mat.Dense
	for k := 0; k < N; k++ {
		Ts = append(Ts, lmInvertibleColStoch(r, C))
	}
	return lmPoint{Kind: "w = 0", Loss: plLog, Ts: Ts, W: make([]float64, N), Eta: eta, F: f, Star: eta}
}

// genLLPDomain puts one matrix of a calibration domain family (a negative
// entry, or columns not summing to 1) among invertible column-stochastic
// ones.
func genLLPDomain(gen func(*rand.Rand, int) probePoint) func(*rand.Rand, int) lmPoint {
	return func(r *rand.Rand, size int) lmPoint {
		p := gen(r, size)
		C := len(p.Eta)
		Ts := []*mat.Dense{p.T}
		for k := 0; k < r.Intn(3); k++ {
			Ts = append(Ts, lmInvertibleColStoch(r, C))
		}
		return lmPoint{Kind: p.Kind, Loss: p.Loss, Ts: Ts, W: GenSimplex(r, len(Ts), false), Eta: p.Eta, F: p.Q, Star: p.Eta}
	}
}

func llpProbe(hyp, tried string, gen func(*rand.Rand, int) lmPoint) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Violate(cfg, probing("llp.cali", hyp, tried), probeLimit, gen, llpCaliCase, llpJudge)
	}
}

func llpDomainProbe(hyp, tried string, gen func(*rand.Rand, int) lmPoint) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Undefine(cfg, probing("llp.cali", hyp, tried), probeLimit, gen, func(p lmPoint) string { return p.String() }, llpJudge)
	}
}

// llpCaliThetaEnds evaluates θ of `llp.cali` at the ends of [0, 1] (the
// excess 0-1 risk lies there) and beyond 1, where no excess 0-1 risk lies.
func llpCaliThetaEnds(verify.Config) []verify.EndCheck {
	Ts := []mat.Matrix{GenUniformNoiseT(2, 0.5), GenUniformNoiseT(2, 0)}
	w := []float64{0.5, 0.5}
	t0, _ := theory.LMNTMTheta(Ts, w, 0)
	t1, _ := theory.LMNTMTheta(Ts, w, 1)
	return []verify.EndCheck{
		endAt("ε = 0", verify.AtClosedEnd, fmt.Sprintf("θ(0) = %g", t0), holdsIf(t0 == 0, verify.EndFalse), 0),
		endAt("ε = 1", verify.AtClosedEnd, fmt.Sprintf("θ(1) = %.4g (T₁ = 0.5I + 0.5N, T₂ = I, w = (½, ½))", t1), holdsIf(t1 > 0 && !math.IsInf(t1, 0), verify.EndUndefined), 1),
		endAt("ε = 1.5", verify.AtOutside, "an excess 0-1 risk is at most 1: θ is never applied there", verify.EndVacuous, 1.5),
	}
}

// lipPoint is a point of Proposition `lip.upper.bd.cel`: a matrix T, a
// class c, scores s.
type lipPoint struct {
	T    *mat.Dense
	s    []float64
	c    int
	loss probeLoss
}

func (p lipPoint) String() string {
	return fmt.Sprintf("ℓ = %s, T=%v s=%v c=%d", p.loss.name, lmMatString(p.T), p.s, p.c+1)
}

// lambda is λ(s, c) = ℓ(T softmax(s), c), computed directly.
func (p lipPoint) lambda(s []float64) float64 {
	m := math.Inf(-1)
	for _, v := range s {
		m = math.Max(m, v)
	}
	e := make([]float64, len(s))
	z := 0.0
	for i, v := range s {
		e[i] = math.Exp(v - m)
		z += e[i]
	}
	for i := range e {
		e[i] /= z
	}
	return p.loss.loss(mulVec(p.T, e), p.c)
}

// lipParts judges a lipPoint for the parts of `lip.upper.bd.cel`.
func lipParts(p lipPoint, norm2 bool) (map[string]bool, string) {
	m := map[string]bool{partLog: p.loss.name == plLog.name, "ψ⁻¹ the softmax": keptByFamily, partNonNeg: nonNegative(p.T),
		partColSum: columnsSumToOne(p.T), "|λ| w.r.t. ‖·‖₂": norm2}
	if !colStochastic(p.T) {
		return m, "λ_{ℓ_T} (λ_{ℓ_T}(s, c) = ℓ(T softmax(s), c) needs T softmax(s) ∈ Δ^C, and a column of T leaves Δ^C)"
	}
	return m, ""
}

// lipSquareCase is the probe's verdict with the square loss in ℓ's place:
// the gradient of λ(s, c) = ‖e_c − T softmax(s)‖² by central differences
// (step 1e-6) against √2.
func lipSquareCase(v lipPoint) verify.Case {
	n := 0.0
	for i := range v.s {
		sp := append([]float64(nil), v.s...)
		sm := append([]float64(nil), v.s...)
		sp[i] += 1e-6
		sm[i] -= 1e-6
		d := (v.lambda(sp) - v.lambda(sm)) / 2e-6
		n += d * d
	}
	n = math.Sqrt(n)
	return mkCase(n, math.Sqrt2, n <= math.Sqrt2*(1+1e-6), fmt.Sprintf("%v: ‖∇λ_sq‖₂ ≈ %.6g > √2", v, n))
}

// lipSquareJudged: the square loss's gradient in closed form,
// ∇λ = −2 J_softmaxᵀ Tᵀ(e_c − T p), J = diag(p) − ppᵀ.
func lipSquareJudged(v lipPoint) (bool, string) {
	C := len(v.s)
	p := softmax(v.s)
	tp := mulVec(v.T, p)
	r := make([]float64, C)
	for k := range r {
		r[k] = -tp[k]
		if k == v.c {
			r[k] += 1
		}
	}
	u := mulVec(v.T.T(), r)
	pu := 0.0
	for k := range p {
		pu += p[k] * u[k]
	}
	n := 0.0
	for k := range p {
		g := -2 * p[k] * (u[k] - pu)
		n += g * g
	}
	n = math.Sqrt(n)
	return n <= math.Sqrt2*(1+1e-9), fmt.Sprintf("‖∇λ_sq‖₂ = %.9g (closed form)", n)
}

// lipInfCase is the probe's verdict on the norm: a Lipschitz constant of
// λ(·, c) w.r.t. ‖·‖∞ must bound its gradient's 1-norm (theory's gradient);
// √2 is read as that constant.
func lipInfCase(v lipPoint) verify.Case {
	g, err := theory.CompositeFCGrad(v.T, v.s, v.c)
	if err != nil {
		return verify.Case{Detail: err.Error()}
	}
	n := 0.0
	for _, x := range g {
		n += math.Abs(x)
	}
	return mkCase(n, math.Sqrt2, n <= math.Sqrt2*(1+1e-12), fmt.Sprintf("%v: ‖∇λ‖₁ = %.6g > √2: √2 is no Lipschitz constant of λ(·, c) w.r.t. ‖·‖∞", v, n))
}

// lipInfJudged: a difference quotient of λ along d = sign(∇λ) (‖d‖∞ = 1),
// from the definition |λ(s + hd) − λ(s)| ≤ L‖hd‖∞, with h = 1e-5.
func lipInfJudged(v lipPoint) (bool, string) {
	const h = 1e-5
	g, _ := theory.CompositeFCGrad(v.T, v.s, v.c)
	sp := append([]float64(nil), v.s...)
	for i := range sp {
		if g[i] > 0 {
			sp[i] += h
		} else {
			sp[i] -= h
		}
	}
	q := (v.lambda(sp) - v.lambda(v.s)) / h
	return q <= math.Sqrt2*(1+1e-6), fmt.Sprintf("(λ(s + h·sign∇λ) − λ(s))/h = %.6g with ‖h·sign∇λ‖∞ = h = %g", q, h)
}

// genLipInf draws T = I or (1−a)I + aN with a ≤ 0.2, a class c and scores
// putting little mass on c: λ(·, c)'s gradient p − e_c-like has 1-norm near
// 2(1 − p_c) > √2.
func genLipInf(r *rand.Rand, _ int) lipPoint {
	C := 2 + r.Intn(5)
	T := GenUniformNoiseT(C, unif(r, 0, 0.2))
	c := r.Intn(C)
	s := make([]float64, C)
	for i := range s {
		s[i] = r.NormFloat64()
	}
	s[c] -= unif(r, 3, 8)
	return lipPoint{T: T, s: s, c: c, loss: plLog}
}

// genLipDomain draws a matrix of a calibration domain family with scores.
func genLipDomain(gen func(*rand.Rand, int) probePoint) func(*rand.Rand, int) lipPoint {
	return func(r *rand.Rand, size int) lipPoint {
		p := gen(r, size)
		C := len(p.Eta)
		s := make([]float64, C)
		for i := range s {
			s[i] = r.NormFloat64()
		}
		return lipPoint{T: p.T, s: s, c: r.Intn(C), loss: plLog}
	}
}

// lipZeroRowEnds: a column-stochastic T may have a zero row c (allowed by
// the proposition); λ(·, c) = −log 0 = +∞ everywhere, and no real number is
// its Lipschitz constant. Outside the column-stochastic matrices, λ is not
// defined.
func lipZeroRowEnds(verify.Config) []verify.EndCheck {
	T := mat.NewDense(2, 2, []float64{1, 1, 0, 0})
	v, _ := theory.CompositeFC(T, []float64{0.3, -0.2}, 1)
	return []verify.EndCheck{
		endAt("T = [1 1; 0 0] (column-stochastic, zero row 2), c = 2", verify.AtClosedEnd,
			fmt.Sprintf("λ(s, 2) = %s for every s: the Lipschitz constant |λ| is undefined", verify.FormatValue(v)), verify.EndUndefined, 1, 1, 0, 0),
		endAt("T = 2I", verify.AtOutside, "T softmax(s) sums to 2: λ_{ℓ_T} = ℓ(T softmax(s), c) is outside ℓ's domain", verify.EndUndefined, 2, 0, 0, 2),
	}
}

// colStochMember decides membership of the C×C column-stochastic matrices
// (x row-major).
func colStochMember(x []float64) bool {
	C := int(math.Round(math.Sqrt(float64(len(x)))))
	return colStochastic(mat.NewDense(C, C, append([]float64(nil), x...)))
}

// lambda0Point is a matrix of `lambda0.formula`.
type lambda0Point struct{ T *mat.Dense }

// lambda0Case is the probe's verdict: max_c |λ(0, c)| by theory.CompositeFC
// against the printed closed form max_c −log((1/C)Σ_j t_{c,j}).
func lambda0Case(T *mat.Dense) verify.Case {
	C, _ := T.Dims()
	at := 0.0
	for c := 0; c < C; c++ {
		v, err := theory.CompositeFC(T, make([]float64, C), c)
		if err != nil {
			return verify.Case{Detail: err.Error()}
		}
		at = math.Max(at, math.Abs(v))
	}
	printed := math.Inf(-1)
	for c := 0; c < C; c++ {
		printed = math.Max(printed, -math.Log(lmRowSum(T, c)/float64(C)))
	}
	ok := !math.IsInf(printed, 0) && relEq(at, printed, lmLambda0Tol)
	return mkCase(at, printed, ok, fmt.Sprintf("T=%v: max_c|λ(0,c)| = %.17g, printed formula %.17g", lmMatString(T), at, printed))
}

// lambda0Judged: λ(0, c) = −log((T·(1/C)𝟙)_c) from the definition (softmax(0)
// is uniform), its largest absolute value against the printed form.
func lambda0Judged(T *mat.Dense) (bool, string) {
	C, _ := T.Dims()
	u := make([]float64, C)
	for i := range u {
		u[i] = 1 / float64(C)
	}
	tu := mulVec(T, u)
	at, printed := 0.0, math.Inf(-1)
	for c := range tu {
		at = math.Max(at, math.Abs(math.Log(tu[c])))
		printed = math.Max(printed, -math.Log(tu[c]))
	}
	return relEq(at, printed, 1e-12), fmt.Sprintf("max_c |λ(0,c)| = %.12g, max_c −log((1/C)Σ_j t_{c,j}) = %.12g", at, printed)
}

func lambda0Parts(T *mat.Dense) (map[string]bool, string) {
	m := map[string]bool{partInv: invertible(T), partNonNeg: nonNegative(T), partColSum: columnsSumToOne(T), partLog: keptByFamily, "ψ⁻¹ the softmax": keptByFamily}
	if !colStochastic(T) {
		return m, "λ_{ℓ_T} (λ_{ℓ_T}(0, c) = −log((T softmax(0))_c) needs T softmax(0) ∈ Δ^C)"
	}
	return m, ""
}

var lambda0Judge = verify.Judge[*mat.Dense]{Parts: lambda0Parts, Conclusion: lambda0Judged}

// lambda0ZeroRowEnds: a column-stochastic T with a zero row (outside the
// text's invertible T) gives |λ|₀ = +∞.
func lambda0ZeroRowEnds(verify.Config) []verify.EndCheck {
	T := mat.NewDense(2, 2, []float64{1, 1, 0, 0})
	v, err := theory.Lambda0(T)
	return []verify.EndCheck{
		endAt("T = I", verify.AtClosedEnd, "|λ|₀ = log C", verify.EndHolds, 1, 0, 0, 1),
		endAt("T = [1 1; 0 0] (singular, zero row)", verify.AtOutside, fmt.Sprintf("|λ|₀ = %s (%v)", verify.FormatValue(v), err), verify.EndInfinite, 1, 1, 0, 0),
	}
}

// cfmPoint is a case of `sec:cfm prob model`: Γ, α, σ, and the model.
type cfmPoint struct {
	G            *mat.Dense
	alpha, sigma []float64
}

func (v cfmPoint) String() string {
	return fmt.Sprintf("Γ=%v α=%v σ=%v", lmMatString(v.G), v.alpha, v.sigma)
}

// cfmConclusion re-evaluates the facts of App. D with T(i,j) =
// γ_i(j)α(i)/σ(j) from the definitions: T column-stochastic, and
// P̄_T(Ỹ = i) = Σ_j σ(j)T(i,j) equal to α(i).
func cfmConclusion(v cfmPoint) (bool, string) {
	C := len(v.alpha)
	worstCol, worstPrior := 0.0, 0.0
	for j := 0; j < C; j++ {
		s := 0.0
		for i := 0; i < C; i++ {
			s += v.G.At(i, j) * v.alpha[i] / v.sigma[j]
		}
		worstCol = math.Max(worstCol, math.Abs(s-1))
	}
	for i := 0; i < C; i++ {
		s := 0.0
		for j := 0; j < C; j++ {
			s += v.sigma[j] * v.G.At(i, j) * v.alpha[i] / v.sigma[j]
		}
		worstPrior = math.Max(worstPrior, math.Abs(s-v.alpha[i]))
	}
	return worstCol <= 1e-9 && worstPrior <= 1e-9, fmt.Sprintf("largest |column sum − 1| = %.3g, largest |P̄_T(Ỹ = i) − α(i)| = %.3g", worstCol, worstPrior)
}

// cfmCase is the probe's verdict (theory's transition matrix and its
// column-stochasticity check, and the noisy prior Σ_j σ(j)T(i,j)).
func cfmCase(v cfmPoint) verify.Case {
	T, err := theory.TransitionMatrix(v.G, v.alpha, v.sigma)
	if err != nil {
		return verify.Case{Detail: err.Error()}
	}
	err = theory.CheckColumnStochastic("T", T, 1e-9)
	prior := mulVec(T, v.sigma)
	d := 0.0
	for i := range prior {
		d = math.Max(d, math.Abs(prior[i]-v.alpha[i]))
	}
	return verify.Case{OK: err == nil && d <= 1e-9, Detail: fmt.Sprintf("%v: column-stochastic: %v; P̄_T(Ỹ=·) − α up to %.3g", v, err, d)}
}

func cfmParts(v cfmPoint) (map[string]bool, string) {
	res := 0.0
	s := mulVec(v.G.T(), v.alpha)
	for j := range s {
		res = math.Max(res, math.Abs(s[j]-v.sigma[j]))
	}
	rows := true
	C, _ := v.G.Dims()
	for i := 0; i < C; i++ {
		rows = rows && inSimplex(mat.Row(nil, i, v.G))
	}
	m := map[string]bool{"σ = Γᵀα": res <= 1e-12, "γ_i ∈ Δ^C": rows, "α ∈ Δ̊^C": openSimplexMember(v.alpha), "σ(c) ≠ 0": !containsZero(v.sigma)}
	return m, ""
}

func containsZero(x []float64) bool {
	for _, v := range x {
		if v == 0 {
			return true
		}
	}
	return false
}

var cfmJudge = verify.Judge[cfmPoint]{Parts: cfmParts, Conclusion: cfmConclusion}

// genCfmSigmaOff draws σ = Γᵀα moved by a random direction of size 0.05
// (renormalized, positive): the premise σ = Γᵀα dropped.
func genCfmSigmaOff(r *rand.Rand, size int) cfmPoint {
	c := lmCfmGen(r, size)
	s := mulVec(c.gamma.T(), c.alpha)
	for j := range s {
		s[j] = math.Max(1e-3, s[j]+0.05*r.NormFloat64())
	}
	return cfmPoint{G: c.gamma, alpha: c.alpha, sigma: normalize(s)}
}

// genCfmRowsOff draws Γ's rows scaled by factors in [0.5, 2] (not
// proportions), σ = Γᵀα normalized... kept exactly Γᵀα (σ may leave Δ^C,
// which App. D's identities do not ask of σ beyond σ(c) ≠ 0).
func genCfmRowsOff(r *rand.Rand, size int) cfmPoint {
	c := lmCfmGen(r, size)
	C := len(c.alpha)
	G := mat.DenseCopyOf(c.gamma)
	for i := 0; i < C; i++ {
		k := unif(r, 0.5, 2)
		if math.Abs(k-1) < 0.1 {
			k = 1.5
		}
		for j := 0; j < C; j++ {
			G.Set(i, j, k*G.At(i, j))
		}
	}
	return cfmPoint{G: G, alpha: c.alpha, sigma: mulVec(G.T(), c.alpha)}
}

// cfmEnds: α(i) = 0, excluded by α ∈ Δ̊^C.
func cfmAlphaEnds(verify.Config) []verify.EndCheck {
	return []verify.EndCheck{
		endAt("α = (½, ½)", verify.AtJustInside, "P̄_T(·|Ỹ = i) = P_{γ_i}", verify.EndHolds, 0.5, 0.5),
		endAt("α = (1, 0)", verify.AtOpenEnd, "P̄_T(·|Ỹ = 2) = P̄_T(·, Ỹ = 2)/α(2) = 0/0: undefined", verify.EndUndefined, 1, 0),
	}
}

func cfmSigmaEnds(verify.Config) []verify.EndCheck {
	G := mat.NewDense(2, 2, []float64{0.8, 0.2, 0.3, 0.7})
	_, err := theory.TransitionMatrix(G, []float64{1, 0}, []float64{0.8, 0})
	return []verify.EndCheck{
		endAt("σ(2) = 0.2", verify.AtJustInside, "T(i, 2) = γ_i(2)α(i)/σ(2) defined", verify.EndHolds, 0.2),
		endAt("σ(2) = 0 (excluded by σ(c) ≠ 0, line 275)", verify.AtOpenEnd, fmt.Sprintf("T(i, 2) = γ_i(2)α(i)/0: %v", err), verify.EndUndefined, 0),
	}
}

// chPoint is a group of `grouping assumption: ch`: Γ (rows γ_i) and σ.
type chPoint struct {
	G     *mat.Dense
	sigma []float64
	kind  string
}

func (g chPoint) String() string {
	return fmt.Sprintf("%s: Γ=%v σ=%v", g.kind, lmMatString(g.G), g.sigma)
}

// chAssumption decides the assumption itself from its definition: the
// solutions of Γᵀα = σ with Σα = 1 (a (C+1)×C system) are unique when the
// system has rank C, and the assumption holds when that unique solution
// solves the system (residual ≤ 1e-10) and lies in the open simplex.
func chAssumption(g chPoint) bool {
	C := len(g.sigma)
	A := mat.NewDense(C+1, C, nil)
	b := make([]float64, C+1)
	for j := 0; j < C; j++ {
		for i := 0; i < C; i++ {
			A.Set(j, i, g.G.At(i, j))
		}
		b[j] = g.sigma[j]
	}
	for i := 0; i < C; i++ {
		A.Set(C, i, 1)
	}
	b[C] = 1
	var svd mat.SVD
	if !svd.Factorize(A, mat.SVDThin) {
		return false
	}
	sv := svd.Values(nil)
	if sv[C-1] <= 1e-10*sv[0] {
		return false // not unique
	}
	var x mat.VecDense
	if err := x.SolveVec(A, mat.NewVecDense(C+1, b)); err != nil {
		return false
	}
	var res mat.VecDense
	res.MulVec(A, &x)
	for k := 0; k <= C; k++ {
		if math.Abs(res.AtVec(k)-b[k]) > 1e-10 {
			return false
		}
	}
	for i := 0; i < C; i++ {
		if !(x.AtVec(i) > 1e-12) {
			return false
		}
	}
	return true
}

// chEquivalent decides the stated equivalent: {γ_i} linearly independent
// (σ_min(Γ) > 1e-10·σ_max) and σ in the relative interior of their hull
// (theory.HullInterior's LP).
func chEquivalent(g chPoint) (bool, error) {
	if !invertible(g.G) {
		return false, nil
	}
	in, _, err := theory.HullInterior(g.G, g.sigma)
	return in, err
}

// chCase is the probe's verdict: theory.AssumptionCH (the claim's decision,
// the equivalent as implemented) against the assumption from its
// definition.
func chCase(g chPoint) verify.Case {
	eq, err := theory.AssumptionCH(g.G, g.sigma)
	if err != nil { // theory refuses the input (σ(c) = 0): the equivalent by rank and hull
		if eq, err = chEquivalent(g); err != nil {
			return verify.Case{Detail: err.Error()}
		}
	}
	return verify.Case{OK: eq == chAssumption(g), Detail: fmt.Sprintf("%v: the assumption says %v, the stated equivalent %v", g, chAssumption(g), eq)}
}

func chJudged(g chPoint) (bool, string) {
	eq, err := chEquivalent(g)
	if err != nil {
		return true, err.Error()
	}
	a := chAssumption(g)
	return a == eq, fmt.Sprintf("∃! α ∈ Δ̊^C with Γᵀα = σ (rank of [Γᵀ; 𝟙ᵀ] and the solution's signs): %v; {γ_i} linearly independent (σ_min(Γ) > 0) and σ in their hull's relative interior: %v", a, eq)
}

// chParts judges a group: uniqueness from the system's rank, γ_i ∈ Δ^C,
// σ ∈ Δ^C and σ(c) ≠ 0.
func chParts(g chPoint) (map[string]bool, string) {
	rows := true
	C := len(g.sigma)
	for i := 0; i < C; i++ {
		rows = rows && inSimplex(mat.Row(nil, i, g.G))
	}
	unique := g.kind != kindDup
	return map[string]bool{"α unique": unique, "α ∈ Δ̊^C": keptByFamily, "γ_i ∈ Δ^C": rows, "σ(c) ≠ 0": !containsZero(g.sigma)}, ""
}

var chJudge = verify.Judge[chPoint]{Parts: chParts, Conclusion: chJudged}

const kindDup = "two bags with equal proportions"

// genDupGroup draws a group whose first and last bags have equal
// proportions and σ a positive combination of the distinct ones (Findings,
// Section 4, item 2): some α in the open simplex solves Γᵀα = σ, not
// uniquely; the probe's verdict is on the assumption read without
// "unique", which holds.
func genDupGroup(r *rand.Rand, _ int) chPoint {
	C := 3 + r.Intn(3)
	G := mat.NewDense(C, C, nil)
	for i := 0; i < C-1; i++ {
		G.SetRow(i, GenSymDirichlet(r, C, 1))
	}
	G.SetRow(C-1, mat.Row(nil, 0, G))
	lam := GenSymDirichlet(r, C-1, 2)
	floorSimplex(lam, 1e-2)
	alpha := make([]float64, C)
	copy(alpha, lam)
	alpha[0], alpha[C-1] = lam[0]/2, lam[0]/2
	return chPoint{G: G, sigma: mulVec(G.T(), alpha), kind: kindDup}
}

// dupCase: the assumption without "unique" (∃α ∈ Δ̊^C with Γᵀα = σ, which
// the family's construction exhibits) against the stated equivalent.
func dupCase(g chPoint) verify.Case {
	eq, err := theory.AssumptionCH(g.G, g.sigma)
	if err != nil {
		return verify.Case{Detail: err.Error()}
	}
	return verify.Case{OK: eq, Detail: fmt.Sprintf("%v: α ∈ Δ̊^C solving Γᵀα = σ exists (the assumption without uniqueness holds) but the stated equivalent says %v", g, eq)}
}

// dupJudged: an explicit α in the open simplex solving Γᵀα = σ (the
// distinct bags' weights, the duplicated one's split in two), against the
// equivalent decided by rank and hull.
func dupJudged(g chPoint) (bool, string) {
	eq, err := chEquivalent(g)
	if err != nil {
		return true, err.Error()
	}
	return eq, fmt.Sprintf("α ∈ Δ̊^C with Γᵀα = σ exists by construction; linearly independent and σ in the relative interior: %v", eq)
}

// genOffSimplexGroup draws a group whose bags' proportions leave Δ^C
// (γ₁ = ½·a, γ₂ = b with a, b ∈ Δ^C, γ₃ = γ₁ + γ₂: linearly dependent,
// affinely independent) and σ = Γᵀα with α = (t, 1−2t, t): Σσ = 1, σ ≥ 0,
// and the system [Γᵀ; 𝟙ᵀ]α = (σ, 1) has the unique solution α. The
// assumption holds; the equivalent's linear independence fails. C = 3.
func genOffSimplexGroup(r *rand.Rand, _ int) chPoint {
	a, b := GenSimplex(r, 3, false), GenSimplex(r, 3, false)
	G := mat.NewDense(3, 3, nil)
	for j := 0; j < 3; j++ {
		G.Set(0, j, a[j]/2)
		G.Set(1, j, b[j])
		G.Set(2, j, a[j]/2+b[j])
	}
	t := unif(r, 0.05, 0.45)
	return chPoint{G: G, sigma: mulVec(G.T(), []float64{t, 1 - 2*t, t}), kind: "bags' proportions off Δ^C (γ₃ = γ₁ + γ₂, Σγ₁ = ½)"}
}

// genZeroClassGroup draws a group where no bag holds class 1 (every
// γ_i(1) = 0) and σ = Γᵀα, α ∈ Δ̊^C: σ(1) = 0.
func genZeroClassGroup(r *rand.Rand, _ int) chPoint {
	C := 3 + r.Intn(3)
	G := mat.NewDense(C, C, nil)
	for i := 0; i < C; i++ {
		row := GenSimplex(r, C-1, false)
		G.SetRow(i, append([]float64{0}, row...))
	}
	return chPoint{G: G, sigma: mulVec(G.T(), GenSimplex(r, C, false)), kind: "no bag holds class 1"}
}

// chAlphaEnds evaluates the equivalence at the open end of α ∈ Δ̊^C: σ on a
// face of the hull (α with a zero entry). With the open simplex the
// assumption fails there, and so does the equivalent; read with the closed
// simplex (the end included), the assumption would hold while σ lies on the
// hull's relative boundary: the equivalence would be false.
func chAlphaEnds(verify.Config) []verify.EndCheck {
	G := mat.NewDense(3, 3, []float64{0.7, 0.2, 0.1, 0.1, 0.7, 0.2, 0.2, 0.1, 0.7})
	decide := func(alpha []float64) (ok, in bool, err error) {
		sigma := mulVec(G.T(), alpha)
		ok, err = theory.AssumptionCH(G, sigma)
		in, _, err2 := theory.HullInterior(G, sigma)
		return ok, in, firstErr(err, err2)
	}
	face := []float64{0.5, 0.5, 0}
	ok, in, err := decide(face)
	closedFalse := !ok && !in && err == nil
	inside := []float64{0.5 - 5e-7, 0.5 - 5e-7, 1e-6}
	ok2, in2, err2 := decide(inside)
	faceEnd := endAt("α = (½, ½, 0) (a face)", verify.AtOpenEnd, fmt.Sprintf("the assumption (open simplex) %v, σ in the hull's relative interior %v%s; with the end included the assumption holds and the equivalence fails", ok, in, errNote(err)),
		holdsIf(!closedFalse, verify.EndFalse), face...)
	faceEnd.Judge = func() (bool, string) {
		// Read with the closed simplex, the assumption holds at α itself (Γᵀα = σ,
		// Γ invertible: α is the only solution); σ = Γᵀα is in the relative
		// interior of the hull only with every weight positive, and the only
		// weights are α's, one of them 0.
		sigma := mulVec(G.T(), face)
		solved := lmResidual(G, face, sigma) <= 1e-15 && invertible(G)
		interior := solved && openSimplexMember(face)
		return !(solved && !interior), fmt.Sprintf("α = (½, ½, 0) solves Γᵀα = σ uniquely: %v; σ in the relative interior (every weight of its unique combination positive): %v", solved, interior)
	}
	return []verify.EndCheck{
		faceEnd,
		endAt("α = (½−5e-7, ½−5e-7, 1e-6)", verify.AtJustInside, fmt.Sprintf("the assumption %v, σ in the relative interior %v%s", ok2, in2, errNote(err2)), holdsIf(ok2 && in2 && err2 == nil, verify.EndFalse), inside...),
	}
}

// lmResidual is ‖Γᵀα − σ‖∞.
func lmResidual(G mat.Matrix, alpha, sigma []float64) float64 {
	v := mulVec(G.T(), alpha)
	m := 0.0
	for i := range v {
		m = math.Max(m, math.Abs(v[i]-sigma[i]))
	}
	return m
}

// hmInput is a case of `hm.weights.optimal`: sizes and a competitor.
type hmInput struct {
	n    [][]float64
	comp []float64
}

// hmCase checks the HM weights' value against the competitor's (the term
// √(Σ_iΣ_c w_i²/n_{i,c}) by its formula for a competitor outside Δ^N).
func hmCase(v hmInput) verify.Case {
	w, val, err := theory.HMWeights(v.n)
	if err != nil {
		return verify.Case{Detail: err.Error()}
	}
	b := hmTerm(v.comp, v.n)
	return mkCase(val, b, val <= b*(1+1e-12), fmt.Sprintf("n=%v: HM weights %v give %.12g > competitor %v %.12g", v.n, w, val, v.comp, b))
}

// hmTerm is √(Σ_iΣ_c w_i²/n_{i,c}).
func hmTerm(w []float64, n [][]float64) float64 {
	s := 0.0
	for i, row := range n {
		for _, k := range row {
			s += w[i] * w[i] / k
		}
	}
	return math.Sqrt(s)
}

// hmJudged: the HM weights computed from their definition (HM_i =
// C/Σ_c 1/n_{i,c}, w_i = HM_i/Σ_m HM_m), the term at them and at the
// competitor.
func hmJudged(v hmInput) (bool, string) {
	hm := make([]float64, len(v.n))
	tot := 0.0
	for i, row := range v.n {
		s := 0.0
		for _, k := range row {
			s += 1 / k
		}
		hm[i] = float64(len(row)) / s
		tot += hm[i]
	}
	for i := range hm {
		hm[i] /= tot
	}
	a, b := hmTerm(hm, v.n), hmTerm(v.comp, v.n)
	return a <= b*(1+1e-12), fmt.Sprintf("the term at the HM weights %.12g, at the competitor %.12g", a, b)
}

func hmParts(v hmInput) (map[string]bool, string) {
	nonneg, s := true, 0.0
	for _, w := range v.comp {
		nonneg = nonneg && w >= 0
		s += w
	}
	ints := true
	for _, row := range v.n {
		for _, k := range row {
			ints = ints && k == math.Trunc(k) && k >= 1
		}
	}
	return map[string]bool{partWNonNeg: nonneg, partWSum: math.Abs(s-1) <= 1e-12, "n_{i,c} ∈ ℕ": ints}, ""
}

var hmJudge = verify.Judge[hmInput]{Parts: hmParts, Conclusion: hmJudged}

// genHM draws N ∈ 2..6 groups of C ∈ 2..5 sizes (integers in 1..1000, or,
// with real, positive reals in [0.05, 1000]) and a competitor w: in Δ^N, or
// with Σw = 1 and entries in [−2, 3] (affine), or non-negative with Σw = s
// ∈ [0.1, 0.9] (scaled).
func genHM(r *rand.Rand, real bool, comp string) hmInput {
	N, C := 2+r.Intn(5), 2+r.Intn(4)
	v := hmInput{n: make([][]float64, N), comp: make([]float64, N)}
	for i := range v.n {
		v.n[i] = make([]float64, C)
		for c := range v.n[i] {
			if real {
				v.n[i][c] = logUnif(r, 0.05, 1000)
				if v.n[i][c] == math.Trunc(v.n[i][c]) {
					v.n[i][c] += 0.5
				}
			} else {
				v.n[i][c] = float64(1 + r.Intn(1000))
			}
		}
	}
	switch comp {
	case "affine":
		for i := range v.comp {
			v.comp[i] = unif(r, -2, 3)
		}
		v.comp[0] += 1 - sum(v.comp)
		if v.comp[0] >= 0 {
			v.comp[0], v.comp[1] = -0.5, v.comp[1]+v.comp[0]+0.5
		}
	case "scaled":
		w, _, _ := theory.HMWeights(v.n)
		s := unif(r, 0.1, 0.9)
		for i := range v.comp {
			v.comp[i] = s * w[i]
		}
	default:
		v.comp = GenSymDirichlet(r, N, 1)
	}
	return v
}

// hmNEnds: one group's sizes growing without bound (the text: the term
// vanishes when ∃i ∀c n_{i,c} → ∞), and a size 0, where 1/n_{i,c} is
// undefined.
func hmNEnds(verify.Config) []verify.EndCheck {
	n := [][]float64{{1, 1}, {1 << 40, 1 << 40}}
	_, v, _ := theory.HMWeights(n)
	return []verify.EndCheck{
		endAt("n_{2,c} = 2⁴⁰, n_{1,c} = 1", verify.AtJustInside, fmt.Sprintf("√(C/ΣHM_i) = %.3g → 0", v), holdsIf(v < 1e-5, verify.EndFalse), 1<<40),
		endAt("n_{1,1} = 0", verify.AtOutside, "w_1²/n_{1,1} = w_1²/0 and HM_1 = C/(1/0 + …): undefined", verify.EndUndefined, 0),
	}
}

// empPoint is a case of `llpfc-ideal: empirical risk` with the scheme its
// expectation is taken under: the class-conditional each X_{i,c,j} is drawn
// from (noisy P_{T_i}(·|c), or clean P_c), whether the n_{i,c} points are
// copies of one draw, the weights α the estimate uses, the loss, T_i and w.
type empPoint struct {
	in     lmEmpInput
	loss   probeLoss
	clean  bool
	copies bool
	alpha  [][]float64 // nil: the noisy priors
}

func (p empPoint) String() string {
	return fmt.Sprintf("ℓ = %s clean=%v copies=%v σ=%v Ts=%v w=%v α=%v f=%v", p.loss.name, p.clean, p.copies, p.in.model.Prior, lmMats(p.in.Ts), p.in.w, p.alpha, p.in.f)
}

// noisyJoint returns P_{T}(x, c) = Σ_y P(x, y)t_{c,y}.
func noisyJoint(md *theory.FiniteModel, T mat.Matrix) [][]float64 {
	C, M := md.NumClasses(), md.NumPoints()
	out := make([][]float64, M)
	for x := 0; x < M; x++ {
		out[x] = make([]float64, C)
		for c := 0; c < C; c++ {
			for y := 0; y < C; y++ {
				out[x][c] += md.Joint(x, y) * T.At(c, y)
			}
		}
	}
	return out
}

// empSides returns E_S R̂ under the point's scheme (by linearity:
// Σ_i w_i Σ_c α_i(c)·E_{X∼cond} ℓ(T_i f(X), c), whatever n_{i,c} and whatever
// the dependence between the draws) and R̃(f) = Σ_i w_i Σ_{x,c} P_{T_i}(x, c)
// ℓ(T_i f(x), c).
func empSides(p empPoint) (got, want float64) {
	md := p.in.model
	C, M := md.NumClasses(), md.NumPoints()
	for i, T := range p.in.Ts {
		J := noisyJoint(md, T)
		for c := 0; c < C; c++ {
			a := 0.0
			for x := 0; x < M; x++ {
				a += J[x][c]
			}
			weight := a
			if p.alpha != nil {
				weight = p.alpha[i][c]
			}
			e := 0.0
			for x := 0; x < M; x++ {
				px := J[x][c] / a
				if p.clean {
					px = md.Cond[c][x]
				}
				if px == 0 {
					continue
				}
				e += px * p.loss.loss(mulVec(T, p.in.f[x]), c)
			}
			got += p.in.w[i] * weight * e
			for x := 0; x < M; x++ {
				if J[x][c] != 0 {
					want += p.in.w[i] * J[x][c] * p.loss.loss(mulVec(T, p.in.f[x]), c)
				}
			}
		}
	}
	return got, want
}

// empCase is the probe's verdict, through theory (FiniteModel.Noisy for the
// noisy class-conditionals and priors, LMNTMRisk for R̃ with the log loss).
func empCase(p empPoint) verify.Case {
	md := p.in.model
	// R̃ = Σ_i w_i R_{ℓ_{T_i},P_{T_i}}(f), each risk by theory.FCRisk (for the
	// log loss; any w), or by its definition for the other losses.
	want := 0.0
	if p.loss.name == plLog.name {
		for i, T := range p.in.Ts {
			v, err := theory.FCRisk(theory.LogLoss, T, md, p.in.f)
			if err != nil {
				return verify.Case{Detail: err.Error()}
			}
			want += p.in.w[i] * v
		}
	} else {
		_, want = empSides(p)
	}
	got := 0.0
	for i, T := range p.in.Ts {
		noisy, err := md.Noisy(T)
		if err != nil {
			return verify.Case{Detail: err.Error()}
		}
		for c, a := range noisy.Prior {
			if p.alpha != nil {
				a = p.alpha[i][c]
			}
			q := noisy.Cond[c]
			if p.clean {
				q = md.Cond[c]
			}
			e := 0.0
			for x, px := range q {
				if px != 0 {
					e += px * p.loss.loss(mulVec(T, p.in.f[x]), c)
				}
			}
			got += p.in.w[i] * a * e
		}
	}
	return mkCase(got, want, relEq(got, want, 1e-10), fmt.Sprintf("%v: E R̂ = %.12g ≠ R̃ = %.12g", p, got, want))
}

func empJudged(p empPoint) (bool, string) {
	got, want := empSides(p)
	return relEq(got, want, 1e-10), fmt.Sprintf("E_S R̂ = %.12g (by linearity, from the joint P(x, y)t_{c,y}), R̃ = %.12g", got, want)
}

func empParts(p empPoint) (map[string]bool, string) {
	inv, nn, cs := true, true, true
	for _, T := range p.in.Ts {
		inv = inv && invertible(T)
		nn = nn && nonNegative(T)
		cs = cs && columnsSumToOne(T)
	}
	md := p.in.model
	alphaOK, alphaOpen := true, true
	for i, T := range p.in.Ts {
		J := noisyJoint(md, T)
		for c := 0; c < md.NumClasses(); c++ {
			a := 0.0
			for x := range J {
				a += J[x][c]
			}
			if p.alpha != nil && math.Abs(p.alpha[i][c]-a) > 1e-12 {
				alphaOK = false
			}
			alphaOpen = alphaOpen && a > 0
		}
	}
	wn, ws := true, 0.0
	for _, w := range p.in.w {
		wn = wn && w >= 0
		ws += w
	}
	m := map[string]bool{
		"X_{i,c,j} ~ P_{T_i}(·|c)": !p.clean, "X_{i,c,j} mutually independent": !p.copies, "n_{i,c} ∈ ℕ": keptByFamily,
		"α_i(c) = P_{T_i}(Ỹ = c)": alphaOK, "α_i ∈ Δ̊^C": alphaOpen, partWNonNeg: wn, partWSum: math.Abs(ws-1) <= 1e-12,
		partEachInv: inv, partEachNonNeg: nn, partEachColSum: cs, partProper: p.loss.proper, partUnique: p.loss.unique(md.NumClasses()),
	}
	if !nn || !cs {
		return m, outsideLT
	}
	return m, ""
}

var empJudge = verify.Judge[empPoint]{Parts: empParts, Conclusion: empJudged}

func empProbe(hyp, tried string, vary func(r *rand.Rand, p *empPoint)) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Violate(cfg, probing("llpfc-ideal: empirical risk", hyp, tried), probeLimit, func(r *rand.Rand, size int) empPoint {
			p := empPoint{in: lmEmpGen(r, size), loss: plLog}
			vary(r, &p)
			return p
		}, empCase, empJudge)
	}
}

// empDomainProbe replaces T_1 by a matrix of a calibration domain family.
func empDomainProbe(hyp, tried string, gen func(*rand.Rand, int) probePoint) func(verify.Config) verify.ProbeResult {
	return func(cfg verify.Config) verify.ProbeResult {
		return verify.Undefine(cfg, probing("llpfc-ideal: empirical risk", hyp, tried), probeLimit, func(r *rand.Rand, size int) empPoint {
			for {
				p := empPoint{in: lmEmpGen(r, size), loss: plLog}
				C := p.in.model.NumClasses()
				d := gen(r, size)
				if len(d.Eta) != C {
					continue
				}
				p.in.Ts = append([]mat.Matrix{d.T}, p.in.Ts[1:]...)
				if parts, _ := empParts(p); parts["α_i ∈ Δ̊^C"] { // the noisy priors stay positive
					return p
				}
			}
		}, func(p empPoint) string { return p.String() }, verify.Judge[empPoint]{Parts: empParts})
	}
}

func init() {
	const cali = "llp.cali"
	ofTs := "a sequence of invertible column-stochastic matrices 𝒯 = {T_i}"
	verify.RegisterHypotheses(cali,
		verify.Hypothesis{Name: partProper, Kind: verify.HypLoss, Line: 213, From: verify.FromStatement, Of: "a continuous strictly proper loss function ℓ",
			Text: "ℓ proper (line 144)", Probe: llpProbe(partProper, triedNotProp+"; N ∈ 1..3 groups of uniform noise, w ∈ Δ̊^N", genLLPFromCal(genNotProper)), Expect: verify.Needed},
		verify.Hypothesis{Name: partUnique, Kind: verify.HypLoss, Line: 213, From: verify.FromStatement, Of: "a continuous strictly proper loss function ℓ",
			Text: "ℓ strictly proper: its minimizer unique (line 144)", Probe: llpProbe(partUnique, triedNotUniq+"; N ∈ 1..3 groups of uniform noise, w ∈ Δ̊^N", genLLPFromCal(genNotUnique)), Expect: verify.Needed},
		verify.Hypothesis{Name: partCont, Kind: verify.HypLoss, Line: 213, From: verify.FromStatement, Of: "a continuous strictly proper loss function ℓ", Text: "ℓ continuous", Why: whyContinuity},
		verify.Hypothesis{Name: partEachInv, Kind: verify.HypMatrix, Line: 213, From: verify.FromStatement, Of: ofTs, Text: "each T_i invertible",
			Probe: llpProbe(partEachInv, "every T_i singular with the same two columns equal, N ∈ 1..3, f = η with one class's mass moved to the other (T_i f = T_i η), log loss", genLLPSingular), Expect: verify.Needed},
		verify.Hypothesis{Name: partEachNonNeg, Kind: verify.HypMatrix, Line: 213, From: verify.FromStatement, Of: ofTs, Text: "each T_i column-stochastic: its entries non-negative",
			Probe: llpDomainProbe(partEachNonNeg, "T₁ = "+triedNegT+", the other T_i invertible column-stochastic", genLLPDomain(genNegativeT)), Expect: verify.NeededToDefine},
		verify.Hypothesis{Name: partEachColSum, Kind: verify.HypMatrix, Line: 213, From: verify.FromStatement, Of: ofTs, Text: "each T_i column-stochastic: its columns sum to 1",
			Probe: llpDomainProbe(partEachColSum, "T₁ = "+triedScaledT+", the other T_i invertible column-stochastic", genLLPDomain(genScaledT)), Expect: verify.NeededToDefine},
		verify.Hypothesis{Name: partWNonNeg, Kind: verify.HypGrouping, Line: 213, From: verify.FromStatement, Of: "w = (w_i) ∈ Δ^N", Text: "w_i ≥ 0",
			Probe: llpProbe(partWNonNeg, "C = 2, one point, w = (−a, 1+a) on T₁ = (1−b₁)I + b₁N and T₂ = (1−b₂)I + b₂N with b₁ < b₂ (bounded losses, R̃* finite), f the least point of R̃ on a grid, kept when it lies across the decision boundary from η", genLLPNegativeWeight), Expect: verify.Needed},
		verify.Hypothesis{Name: partWSum, Kind: verify.HypGrouping, Line: 213, From: verify.FromStatement, Of: "w = (w_i) ∈ Δ^N", Text: "Σ_i w_i = 1",
			Probe: llpProbe(partWSum, "w = 0 (non-negative, summing to 0): R̃ ≡ 0; T_i invertible column-stochastic, f = η with its top two entries swapped", genLLPZeroWeight), Expect: verify.Needed},
		verify.Hypothesis{Name: partLLPBayes, Kind: verify.HypDistribution, Line: 215, From: verify.FromStatement, Text: "Assume ∀i, R*_{ℓ_{T_i},P_{T_i}} < ∞", Why: whyBayes},
		verify.Hypothesis{Name: partLLPTheta, Kind: verify.HypRange, Line: 215, From: verify.FromStatement, Text: "a strictly increasing continuous function θ: [0,1] → [0,∞] with θ(0) = 0",
			Range: &verify.Range{Param: "ε (θ's argument)", Printed: "θ: [0, 1] → [0, ∞]", Lo: "0", Hi: "1", Ends: llpCaliThetaEnds}, Expect: verify.NotNeeded},
		calRegular(215),
	)
	const lip = "lip.upper.bd.cel"
	lipJudgeOf := func(norm2 bool, conclusion func(lipPoint) (bool, string)) verify.Judge[lipPoint] {
		return verify.Judge[lipPoint]{Parts: func(p lipPoint) (map[string]bool, string) { return lipParts(p, norm2) }, Conclusion: conclusion}
	}
	verify.RegisterHypotheses(lip,
		verify.Hypothesis{Name: partLog, Kind: verify.HypLoss, Line: 262, From: verify.FromStatement, Text: "Let ℓ be the log loss",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probing(lip, partLog, "ℓ the square loss, λ(s,c) = ‖e_c − T softmax(s)‖², column-stochastic T from the claim's generator, the gradient by central differences (step 1e-6)"),
					probeLimit, func(r *rand.Rand, size int) lipPoint {
						li := lmLipGen(r, size)
						for i := range li.s {
							li.s[i] = math.Max(-30, math.Min(30, li.s[i]))
						}
						return lipPoint{T: li.T, s: li.s, c: li.c, loss: plSquare}
					}, lipSquareCase, lipJudgeOf(true, lipSquareJudged))
			}, Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "ψ⁻¹ the softmax", Kind: verify.HypLoss, Line: 262, From: verify.FromStatement, Text: "ψ⁻¹ be the softmax function",
			Why: "the softmax is the only link implemented; the composite loss of another link is another statement"},
		verify.Hypothesis{Name: partNonNeg, Kind: verify.HypMatrix, Line: 262, From: verify.FromStatement, Of: "T a column-stochastic matrix", Text: "T's entries non-negative",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Undefine(cfg, probing(lip, partNonNeg, triedNegT), probeLimit, genLipDomain(genNegativeT),
					func(p lipPoint) string { return p.String() }, lipJudgeOf(true, nil))
			}, Expect: verify.NeededToDefine},
		verify.Hypothesis{Name: partColSum, Kind: verify.HypMatrix, Line: 262, From: verify.FromStatement, Of: "T a column-stochastic matrix", Text: "T's columns sum to 1 (a zero row allowed)",
			Range: &verify.Range{Param: "T", Printed: "T column-stochastic", Member: colStochMember, Ends: lipZeroRowEnds},
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Undefine(cfg, probing(lip, partColSum, triedScaledT+" (extended beyond ℓ's domain, the proof's gradient would still obey √2 for every non-negative T with non-zero rows: Findings, Section 4, item 3c)"),
					probeLimit, genLipDomain(genScaledT), func(p lipPoint) string { return p.String() }, lipJudgeOf(true, nil))
			}, Expect: verify.NeededToDefine},
		verify.Hypothesis{Name: "|λ| w.r.t. ‖·‖₂", Kind: verify.HypClass, Line: 254, From: "definition: |λ_{ℓ_{T_i}}|, the smallest Lipschitz constant w.r.t. the 2-norm (lines 247, 254)",
			Text: "|λ_{ℓ_T}| a Lipschitz constant w.r.t. the 2-norm: the proposition prints no norm; Theorem thm: geb, where the constant is defined, says w.r.t. the 2-norm",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probing(lip, "|λ| w.r.t. ‖·‖₂", "the constant read w.r.t. ‖·‖∞ (its smallest value sup_s ‖∇λ(s, c)‖₁), T = (1−a)I + aN with a ≤ 0.2, scores putting little mass on c"),
					probeLimit, genLipInf, lipInfCase, lipJudgeOf(false, lipInfJudged))
			}, Expect: verify.Needed},
	)
	verify.RegisterHypotheses("lambda0.formula",
		verify.Hypothesis{Name: partInv, Kind: verify.HypMatrix, Line: 265, From: verify.FromStatement, Text: "The invertibility of T guarantees Σ_j t_{c,j} is positive and hence the finiteness of |λ_{ℓ_T}|₀",
			Range: &verify.Range{Param: "T", Printed: "T invertible column-stochastic", Member: func(x []float64) bool {
				C := int(math.Round(math.Sqrt(float64(len(x)))))
				T := mat.NewDense(C, C, append([]float64(nil), x...))
				return colStochastic(T) && invertible(T)
			}, Ends: lambda0ZeroRowEnds},
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probing("lambda0.formula", partInv, "T singular column-stochastic (two equal columns, no zero row): max_c |λ(0,c)| by theory.CompositeFC against the printed form, both finite"),
					probeLimit, func(r *rand.Rand, _ int) *mat.Dense { return lmSingularColStoch(r, 2+r.Intn(5)) }, lambda0Case, lambda0Judge)
			}, Expect: verify.NotNeeded},
		verify.Hypothesis{Name: partNonNeg, Kind: verify.HypMatrix, Line: 262, From: "definition: λ_{ℓ_T} for a column-stochastic T (Proposition lip.upper.bd.cel, line 262; thm: geb, line 247)", Of: "T a column-stochastic matrix",
			Text: "T's entries non-negative", Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Undefine(cfg, probing("lambda0.formula", partNonNeg, triedNegT), probeLimit, func(r *rand.Rand, size int) *mat.Dense { return genNegativeT(r, size).T },
					func(T *mat.Dense) string { return lmMatString(T) }, verify.Judge[*mat.Dense]{Parts: lambda0Parts})
			}, Expect: verify.NeededToDefine},
		verify.Hypothesis{Name: partColSum, Kind: verify.HypMatrix, Line: 262, From: "definition: λ_{ℓ_T} for a column-stochastic T (Proposition lip.upper.bd.cel, line 262; thm: geb, line 247)", Of: "T a column-stochastic matrix",
			Text: "T's columns sum to 1 (so that every row sum is at most C, which the printed form's dropped absolute value needs)",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Undefine(cfg, probing("lambda0.formula", partColSum, triedScaledT+"; extended beyond ℓ's domain, the printed form max_c −log((1/C)Σ_j t_{c,j}) is negative where a row sums to more than C (T = 3I, C = 2: −0.405 against |λ|₀ = 0.405; Findings)"),
					probeLimit, func(r *rand.Rand, size int) *mat.Dense { return genScaledT(r, size).T }, func(T *mat.Dense) string { return lmMatString(T) }, verify.Judge[*mat.Dense]{Parts: lambda0Parts})
			}, Expect: verify.NeededToDefine},
		verify.Hypothesis{Name: partLog, Kind: verify.HypLoss, Line: 259, From: "statement: \"Assuming ℓ is the log loss and ψ⁻¹ is the softmax function\" (line 259)", Text: "ℓ the log loss",
			Why: "the printed form is the log loss's λ at s = 0; another loss's |λ|₀ is another formula, not this one at another point"},
		verify.Hypothesis{Name: "ψ⁻¹ the softmax", Kind: verify.HypLoss, Line: 259, From: "statement: \"Assuming ℓ is the log loss and ψ⁻¹ is the softmax function\" (line 259)", Text: "ψ⁻¹ the softmax function",
			Why: "the softmax is the only link implemented; softmax(0) = (1/C)𝟙 is what the printed form reads"},
	)
	verify.RegisterHypotheses("sec:cfm prob model",
		verify.Hypothesis{Name: "σ = Γᵀα", Kind: verify.HypGrouping, Line: 293, From: "definition: α of Assumption grouping assumption: ch (line 293)", Text: "∃ unique α ∈ Δ̊^C s.t. Γᵀα = σ (Assumption grouping assumption: ch; App. D: \"Let T be a stochastic matrix\", line 1801)",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probing("sec:cfm prob model", "σ = Γᵀα", "σ = Γᵀα moved by a random direction of size 0.05 (renormalized, positive), Γ and α from the claim's generator"),
					probeLimit, genCfmSigmaOff, cfmCase, cfmJudge)
			}, Expect: verify.Needed},
		verify.Hypothesis{Name: "γ_i ∈ Δ^C", Kind: verify.HypGrouping, Line: 289, From: "definition: the bags' label proportions γ_1, …, γ_C ∈ Δ^C (line 289)", Text: "γ_i ∈ Δ^C (Γ's rows are proportions)",
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probing("sec:cfm prob model", "γ_i ∈ Δ^C", "Γ's rows scaled by factors in [0.5, 2] (not proportions), σ = Γᵀα kept"),
					probeLimit, genCfmRowsOff, cfmCase, cfmJudge)
			}, Expect: verify.Needed},
		verify.Hypothesis{Name: "α ∈ Δ̊^C", Kind: verify.HypRange, Line: 293, From: "definition: α of Assumption grouping assumption: ch (line 293)", Text: "α ∈ Δ̊^C (line 293): α(i) > 0",
			Range: &verify.Range{Param: "α", Printed: "α ∈ Δ̊^C", Member: openSimplexMember, Ends: cfmAlphaEnds}, Expect: verify.NeededToDefine},
		verify.Hypothesis{Name: "σ(c) ≠ 0", Kind: verify.HypRange, Line: 275, From: "definition: the clean prior σ, \"Assume ∀c ∈ 𝒴, σ(c) ≠ 0\" (line 275)", Text: "Assume ∀c ∈ 𝒴, σ(c) ≠ 0",
			Range: &verify.Range{Param: "σ(c)", Printed: "σ(c) ∈ (0, 1]", Lo: "0", Hi: "1", LoOpen: true, Ends: cfmSigmaEnds}, Expect: verify.NeededToDefine},
	)
	for _, l := range []struct {
		label string
		line  int
	}{{"grouping assumption: ch", 293}, {"grouping assumption all groups", 322}} {
		label := l.label
		verify.RegisterHypotheses(label,
			verify.Hypothesis{Name: "α unique", Kind: verify.HypGrouping, Line: l.line, From: verify.FromStatement, Of: "∃ unique α ∈ Δ̊^C s.t. Γᵀα = σ",
				Text: "uniqueness (the equivalent, line 306: {γ_i} linearly independent and σ in the interior of their hull)",
				Probe: func(cfg verify.Config) verify.ProbeResult {
					return verify.Violate(cfg, probing(label, "α unique", "two bags of a group with equal proportions, σ a positive combination of the distinct ones: α in the open simplex exists, not uniquely (the assumption without \"unique\" holds)"),
						probeLimit, genDupGroup, dupCase, verify.Judge[chPoint]{Parts: chParts, Conclusion: dupJudged})
				}, Expect: verify.Needed},
			verify.Hypothesis{Name: "α ∈ Δ̊^C", Kind: verify.HypRange, Line: l.line, From: verify.FromStatement, Of: "∃ unique α ∈ Δ̊^C s.t. Γᵀα = σ", Text: "∃ unique α ∈ Δ̊^C (the open simplex)",
				Range: &verify.Range{Param: "α", Printed: "α ∈ Δ̊^C", Member: openSimplexMember, Ends: chAlphaEnds}, Expect: verify.Needed},
			verify.Hypothesis{Name: "γ_i ∈ Δ^C", Kind: verify.HypGrouping, Line: 289, From: "definition: the bags' label proportions γ_1, …, γ_C ∈ Δ^C (line 289)", Text: "γ_i ∈ Δ^C: Γ's rows are proportions",
				Probe: func(cfg verify.Config) verify.ProbeResult {
					return verify.Violate(cfg, probing(label, "γ_i ∈ Δ^C", "C = 3, γ₁ = ½a, γ₂ = b (a, b ∈ Δ³), γ₃ = γ₁ + γ₂ (off Δ^C: linearly dependent, affinely independent), σ = Γᵀ(t, 1−2t, t) ∈ Δ³"),
						probeLimit, genOffSimplexGroup, chCase, chJudge)
				}, Expect: verify.Needed},
			verify.Hypothesis{Name: "σ(c) ≠ 0", Kind: verify.HypDistribution, Line: 275, From: "definition: the clean prior σ, \"Assume ∀c ∈ 𝒴, σ(c) ≠ 0\" (line 275)", Text: "σ(c) ≠ 0 for every class",
				Probe: func(cfg verify.Config) verify.ProbeResult {
					return verify.Violate(cfg, probing(label, "σ(c) ≠ 0", "no bag of the group holds class 1 (every γ_i(1) = 0), σ = Γᵀα with α ∈ Δ̊^C: σ(1) = 0"),
						probeLimit, genZeroClassGroup, chCase, chJudge)
				}, Expect: verify.NotNeeded},
		)
	}
	verify.RegisterHypotheses("hm.weights.optimal",
		verify.Hypothesis{Name: partWNonNeg, Kind: verify.HypGrouping, Line: 213, From: "definition: the weights w ∈ Δ^N of R̃ (line 213), the set the term is optimized over (line 259)", Of: "w = (w_i) ∈ Δ^N",
			Text: "w_i ≥ 0", Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probing("hm.weights.optimal", partWNonNeg, "competitors w with Σw = 1 and a negative entry (entries in [−2, 3]), sizes n_{i,c} ∈ 1..1000, N ∈ 2..6, C ∈ 2..5"),
					probeLimit, func(r *rand.Rand, _ int) hmInput { return genHM(r, false, "affine") }, hmCase, hmJudge)
			}, Expect: verify.NotNeeded},
		verify.Hypothesis{Name: partWSum, Kind: verify.HypGrouping, Line: 213, From: "definition: the weights w ∈ Δ^N of R̃ (line 213), the set the term is optimized over (line 259)", Of: "w = (w_i) ∈ Δ^N",
			Text: "Σ_i w_i = 1", Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probing("hm.weights.optimal", partWSum, "competitors s·w_HM, s ∈ [0.1, 0.9] (non-negative, Σw = s): the term scales with s"),
					probeLimit, func(r *rand.Rand, _ int) hmInput { return genHM(r, false, "scaled") }, hmCase, hmJudge)
			}, Expect: verify.Needed},
		verify.Hypothesis{Name: "n_{i,c} ∈ ℕ", Kind: verify.HypRange, Line: 206, From: "definition: n_{i,c} ∈ ℕ, the sample sizes of S (line 206)", Text: "n_{i,c} ∈ ℕ is the number of data points drawn from P_{T_i}(·|c)",
			Range: &verify.Range{Param: "n_{i,c}", Printed: "n_{i,c} ∈ ℕ", Lo: "1", Hi: "∞", HiOpen: true, Integer: true, Ends: hmNEnds},
			Probe: func(cfg verify.Config) verify.ProbeResult {
				return verify.Violate(cfg, probing("hm.weights.optimal", "n_{i,c} ∈ ℕ", "sizes n_{i,c} positive reals in [0.05, 1000] (not integers), competitors in Δ^N"),
					probeLimit, func(r *rand.Rand, _ int) hmInput { return genHM(r, true, "") }, hmCase, hmJudge)
			}, Expect: verify.NotNeeded},
	)
	emp := "llpfc-ideal: empirical risk"
	ofTi := "noise transition matrices T_1, …, T_N (line 206), invertible and column-stochastic (the definition of R̃, line 213)"
	otherAlpha := func(r *rand.Rand, p *empPoint) {
		p.alpha = nil
		for range p.in.Ts {
			p.alpha = append(p.alpha, GenSimplex(r, p.in.model.NumClasses(), false))
		}
	}
	verify.RegisterHypotheses(emp,
		verify.Hypothesis{Name: "X_{i,c,j} ~ P_{T_i}(·|c)", Kind: verify.HypSampling, Line: 206, From: "definition: the sample S of LMNTM (line 206)", Text: "X_{i,c,j} iid ~ P_{T_i}(·|c)",
			Probe: empProbe("X_{i,c,j} ~ P_{T_i}(·|c)", "X_{i,c,j} drawn from the clean class-conditional P_c in place of P_{T_i}(·|c), the rest from the claim's generator; E_S R̂ exact",
				func(_ *rand.Rand, p *empPoint) { p.clean = true }), Expect: verify.Needed},
		verify.Hypothesis{Name: "X_{i,c,j} mutually independent", Kind: verify.HypSampling, Line: 206, From: "definition: the sample S of LMNTM (line 206)", Text: "Assume all X_{i,c,j}'s are mutually independent",
			Probe: empProbe("X_{i,c,j} mutually independent", "the n_{i,c} points of class c in group i all one draw from P_{T_i}(·|c) (perfectly dependent copies), the rest from the claim's generator; E_S R̂ exact by linearity",
				func(_ *rand.Rand, p *empPoint) { p.copies = true }), Expect: verify.NotNeeded},
		verify.Hypothesis{Name: "n_{i,c} ∈ ℕ", Kind: verify.HypRange, Line: 206, From: "definition: the sample S of LMNTM (line 206)", Text: "n_{i,c} ∈ ℕ",
			Range: &verify.Range{Param: "n_{i,c}", Printed: "n_{i,c} ∈ ℕ = {1, 2, …}", Lo: "1", Hi: "∞", HiOpen: true, Integer: true, Ends: func(verify.Config) []verify.EndCheck {
				return []verify.EndCheck{
					endAt("n_{i,c} = 1", verify.AtClosedEnd, "R̂ has one term α_i(c)ℓ_{T_i}(f(X), c) per (i, c): unbiased", verify.EndHolds, 1),
					endAt("n_{i,c} = 0", verify.AtOutside, "α_i(c)/0 · (an empty sum): undefined", verify.EndUndefined, 0),
				}
			}}, Expect: verify.NeededToDefine},
		verify.Hypothesis{Name: "α_i(c) = P_{T_i}(Ỹ = c)", Kind: verify.HypDistribution, Line: 206, From: "definition: the noisy prior α_i (line 206)", Of: "α_i ∈ Δ̊^C with α_i(c) = P_{T_i}(Ỹ = c)",
			Text:  "the weights α_i(c) of R̂ are the noisy priors P_{T_i}(Ỹ = c)",
			Probe: empProbe("α_i(c) = P_{T_i}(Ỹ = c)", "R̂ weighted by α_i drawn at random in Δ̊^C in place of the noisy priors, the rest from the claim's generator", otherAlpha), Expect: verify.Needed},
		verify.Hypothesis{Name: "α_i ∈ Δ̊^C", Kind: verify.HypRange, Line: 206, From: "definition: the noisy prior α_i (line 206)", Of: "α_i ∈ Δ̊^C with α_i(c) = P_{T_i}(Ỹ = c)", Text: "α_i ∈ Δ̊^C",
			Range: &verify.Range{Param: "α_i", Printed: "α_i ∈ Δ̊^C", Member: openSimplexMember, Ends: alphaOpenEnds}, Expect: verify.NeededToDefine},
		verify.Hypothesis{Name: partWNonNeg, Kind: verify.HypGrouping, Line: 213, From: "definition: R̃ with w ∈ Δ^N (line 213)", Of: "w = (w_i) ∈ Δ^N", Text: "w_i ≥ 0",
			Probe: empProbe(partWNonNeg, "w with Σw = 1 and a negative entry (w₁ − 1.5, w₂ + 1.5), N ≥ 2 (N = 1: w = (−0.5, 1.5) on two copies of T₁)", func(r *rand.Rand, p *empPoint) {
				if len(p.in.Ts) == 1 {
					p.in.Ts = append(p.in.Ts, p.in.Ts[0])
					p.in.w = []float64{1, 0}
					p.in.n = append(p.in.n, p.in.n[0])
				}
				p.in.w[0] -= 1.5
				p.in.w[1] += 1.5
			}), Expect: verify.NotNeeded},
		verify.Hypothesis{Name: partWSum, Kind: verify.HypGrouping, Line: 213, From: "definition: R̃ with w ∈ Δ^N (line 213)", Of: "w = (w_i) ∈ Δ^N", Text: "Σ_i w_i = 1",
			Probe: empProbe(partWSum, "w scaled by s ∈ [0.1, 10] (non-negative, Σw = s)", func(r *rand.Rand, p *empPoint) {
				s := logUnif(r, 0.1, 10)
				if math.Abs(s-1) < 0.05 {
					s = 2
				}
				for i := range p.in.w {
					p.in.w[i] *= s
				}
			}), Expect: verify.NotNeeded},
		verify.Hypothesis{Name: partEachInv, Kind: verify.HypMatrix, Line: 213, From: "definition: R̃ over invertible column-stochastic T_i (line 213)", Of: ofTi, Text: "each T_i invertible",
			Probe: empProbe(partEachInv, "T₁ singular column-stochastic (two equal columns), the rest from the claim's generator", func(r *rand.Rand, p *empPoint) {
				C := p.in.model.NumClasses()
				T := lmSingularColStoch(r, C)
				for lmHasZeroRow(T) {
					T = lmSingularColStoch(r, C)
				}
				p.in.Ts[0] = T
			}), Expect: verify.NotNeeded},
		verify.Hypothesis{Name: partEachNonNeg, Kind: verify.HypMatrix, Line: 206, From: "definition: a noise transition matrix, column-stochastic (lines 127, 206)", Of: ofTi, Text: "each T_i's entries non-negative",
			Probe: empDomainProbe(partEachNonNeg, "T₁ = "+triedNegT, genNegativeT), Expect: verify.NeededToDefine},
		verify.Hypothesis{Name: partEachColSum, Kind: verify.HypMatrix, Line: 206, From: "definition: a noise transition matrix, column-stochastic (lines 127, 206)", Of: ofTi, Text: "each T_i's columns sum to 1",
			Probe: empDomainProbe(partEachColSum, "T₁ = "+triedScaledT, genScaledT), Expect: verify.NeededToDefine},
		verify.Hypothesis{Name: partProper, Kind: verify.HypLoss, Line: 154, From: "definition: the forward correction loss ℓ_T of a strictly proper ℓ (line 154)", Of: "ℓ a strictly proper loss", Text: "ℓ proper",
			Probe: empProbe(partProper, "ℓ the square loss of q with classes 1 and 2 swapped (not proper), the rest from the claim's generator", func(_ *rand.Rand, p *empPoint) { p.loss = plSwapped(0, 1) }), Expect: verify.NotNeeded},
		verify.Hypothesis{Name: partUnique, Kind: verify.HypLoss, Line: 154, From: "definition: the forward correction loss ℓ_T of a strictly proper ℓ (line 154)", Of: "ℓ a strictly proper loss", Text: "ℓ's minimizer unique",
			Probe: empProbe(partUnique, "ℓ the square loss of class 1 alone (proper, minimizer not unique for C ≥ 3), C ≥ 3, the rest from the claim's generator", func(r *rand.Rand, p *empPoint) {
				p.loss = plBrier1
				for p.in.model.NumClasses() < 3 {
					p.in = lmEmpGen(r, 0)
				}
			}), Expect: verify.NotNeeded},
	)
}

// lmHasZeroRow reports whether a row of T is zero (the log loss of its
// class is then +∞).
func lmHasZeroRow(T mat.Matrix) bool {
	C, _ := T.Dims()
	for i := 0; i < C; i++ {
		if lmRowSum(T, i) == 0 {
			return true
		}
	}
	return false
}

// lmSingularColStoch returns a column-stochastic C×C matrix with two equal
// columns (singular).
func lmSingularColStoch(r *rand.Rand, C int) *mat.Dense {
	T := GenColumnStochastic(r, C)
	i := r.Intn(C)
	j := (i + 1 + r.Intn(C-1)) % C
	for k := 0; k < C; k++ {
		T.Set(k, j, T.At(k, i))
	}
	return T
}

// alphaOpenEnds: α_i(c) = 0 leaves class c of group i without a noisy
// class-conditional to draw the n_{i,c} ≥ 1 points from.
func alphaOpenEnds(verify.Config) []verify.EndCheck {
	return []verify.EndCheck{
		endAt("α_i = (½, ½)", verify.AtJustInside, "P_{T_i}(·|Ỹ = c) defined for both classes", verify.EndHolds, 0.5, 0.5),
		endAt("α_i = (1, 0)", verify.AtOpenEnd, "P_{T_i}(·|Ỹ = 2) = P_{T_i}(·, Ỹ = 2)/α_i(2) = 0/0: the n_{i,2} ≥ 1 points have no distribution", verify.EndUndefined, 1, 0),
	}
}
