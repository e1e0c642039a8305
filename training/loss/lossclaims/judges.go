package lossclaims

// The tolerances of the newer methods' claims, and the judges of their
// hypotheses' probes: each point judged (which hypothesis part it violates)
// and each counterexample re-evaluated from the methods' definitions, by
// code apart from the probes' checks (verify.Violate, verify.JudgeOutcome).

import (
	"fmt"
	"math"
	randv2 "math/rand/v2"

	"github.com/llpfc/llpfc/theory/verify"
)

// Tolerances, each with its reason; every one is held by a mutation that
// loosens it tenfold (MUTATIONS.md, lossclaims-*-tol-loose) and a test of
// this package with a point just outside it (TestTolerancesReject).
const (
	// easyTol: EasyLLP's expected bag loss is a sum of ≤ 4⁴ terms of size
	// ≤ 30 (logits N(0, 9)): its relative rounding stays below
	// 256·30·2⁻⁵²/1 ≈ 2e-12; 1e-10 leaves a factor ~60.
	easyTol = 1e-10
	// pvcTol: the count likelihood is a sum of ≤ 4 logarithms of sums of
	// ≤ 2^12 products of ≤ 12 probabilities: relative 4096·12·2⁻⁵² ≈ 1e-11;
	// 1e-9 leaves a factor ~100.
	pvcTol = 1e-9
	// mixTol: a mixed bag's proportions are sums of ≤ 80 terms 1/(ni+nj):
	// absolute 80·2⁻⁵² ≈ 2e-14; 1e-12 leaves a factor ~50.
	mixTol = 1e-12
)

// easyBagLossDef is EasyLLP's bag loss by its definition: the soft label
// ỹ = kα − (k−1)p from the bag's label proportions α and the prior p, and
// (1/k)Σ_i Σ_c −ỹ_c log softmax(z_i)_c.
func easyBagLossDef(d easyDist, pts []int, prior []float64) float64 {
	k := float64(len(pts))
	alpha := make([]float64, d.C)
	for _, j := range pts {
		alpha[d.Y[j]] += 1 / k
	}
	l := 0.0
	for _, j := range pts {
		ls := logSoftmax(d.Z[j])
		for c := 0; c < d.C; c++ {
			l -= (k*alpha[c] - (k-1)*prior[c]) * ls[c]
		}
	}
	return l / k
}

// easyExpectDef is E over bags of k points drawn i.i.d. from q of the bag
// loss under prior (bagPrior: the bag's own proportions), enumerated.
func easyExpectDef(d easyDist, k int, q, prior []float64, bagPrior bool) float64 {
	K := len(d.W)
	pts := make([]int, k)
	n := 1
	for i := 0; i < k; i++ {
		n *= K
	}
	e := 0.0
	for code := 0; code < n; code++ {
		w, c := 1.0, code
		for i := range pts {
			pts[i] = c % K
			c /= K
			w *= q[pts[i]]
		}
		if w == 0 {
			continue
		}
		p := prior
		if bagPrior {
			p = make([]float64, d.C)
			for _, j := range pts {
				p[d.Y[j]] += 1 / float64(k)
			}
		}
		e += w * easyBagLossDef(d, pts, p)
	}
	return e
}

// instanceRiskDef is E[−log softmax(z(x))_y] summed again.
func instanceRiskDef(d easyDist) float64 {
	r := 0.0
	for j, w := range d.W {
		r += -w * logSoftmax(d.Z[j])[d.Y[j]]
	}
	return r
}

func easyParts(iid, prior bool, k int) map[string]bool {
	return map[string]bool{"bags i.i.d. from the population": iid, "p the population's prior": prior, "k ∈ ℕ": k >= 1}
}

// easyGovernedJudge: the governed bags' points violate i.i.d. draws from
// the population when δ ≠ 0; the expectation recomputed from the
// definition of the loss, over the two governing proportions.
var easyGovernedJudge = verify.Judge[governedCase]{
	Parts: func(c governedCase) (map[string]bool, string) {
		moved := false
		for _, v := range c.delta {
			moved = moved || v != 0
		}
		return easyParts(!moved, true, c.k), ""
	},
	Conclusion: func(c governedCase) (bool, string) {
		p := c.d.prior()
		got := 0.0
		for _, sgn := range []float64{1, -1} {
			q := make([]float64, len(c.d.W))
			for j, w := range c.d.W {
				y := c.d.Y[j]
				q[j] = w * (p[y] + sgn*c.delta[y]) / p[y]
			}
			got += easyExpectDef(c.d, c.k, q, p, false) / 2
		}
		want := instanceRiskDef(c.d)
		return math.Abs(got-want) <= easyTol*math.Max(1, math.Abs(want)), fmt.Sprintf("E[bag loss] = %.12g (the loss by its definition, enumerated), instance risk %.12g", got, want)
	},
}

// easyPriorJudge: the claim's checker with the bag's own proportions as p
// (the part violated by construction of the negative implementation it
// runs); the expectation recomputed by the definition.
var easyPriorJudge = verify.Judge[easyCase]{
	Parts: func(c easyCase) (map[string]bool, string) { return easyParts(true, false, c.k), "" },
	Conclusion: func(c easyCase) (bool, string) {
		got := easyExpectDef(c.d, c.k, c.d.W, nil, true)
		want := instanceRiskDef(c.d)
		return math.Abs(got-want) <= easyTol*math.Max(1, math.Abs(want)), fmt.Sprintf("E[bag loss with the bag's own proportions as p] = %.12g, instance risk %.12g", got, want)
	},
}

// poissonBinomial is P(Σ_i B_i = k), B_i ~ Bernoulli(p_i) independent, by
// the recursion over the instances (not countProb's enumeration).
func poissonBinomial(p []float64, k int) float64 {
	dist := []float64{1}
	for _, v := range p {
		next := make([]float64, len(dist)+1)
		for j, w := range dist {
			next[j] += w * (1 - v)
			next[j+1] += w * v
		}
		dist = next
	}
	if k < 0 || k >= len(dist) {
		return 0
	}
	return dist[k]
}

func pvcParts(b pvcBag, perClass, instances bool) map[string]bool {
	exact := true
	for _, v := range b.proportions() {
		x := v * float64(b.S)
		exact = exact && math.Abs(x-math.Round(x)) <= 1e-9
	}
	return map[string]bool{"per-class labels independent": perClass, "instances independent": instances, "s·α_c integers": exact}
}

// pvcCategoricalJudge: one class per instance violates independent
// per-class labels; the count vector's probability by a recursion over the
// instances (a multinomial of unequal rows), against Π_c of Poisson
// binomials by recursion.
var pvcCategoricalJudge = verify.Judge[pvcBag]{
	Parts: func(b pvcBag) (map[string]bool, string) { return pvcParts(b, false, true), "" },
	Conclusion: func(b pvcBag) (bool, string) {
		counts := pvcCounts(b)
		pi := make([][]float64, b.S)
		for i := range pi {
			ls := logSoftmax(b.Z[i*b.C : (i+1)*b.C])
			pi[i] = make([]float64, b.C)
			for c := range ls {
				pi[i][c] = math.Exp(ls[c])
			}
		}
		// dist maps a count vector (as a string) to its probability.
		dist := map[string]float64{fmt.Sprint(make([]int, b.C)): 1}
		vecs := map[string][]int{fmt.Sprint(make([]int, b.C)): make([]int, b.C)}
		for i := 0; i < b.S; i++ {
			next, nv := map[string]float64{}, map[string][]int{}
			for key, w := range dist {
				for c := 0; c < b.C; c++ {
					v := append([]int(nil), vecs[key]...)
					v[c]++
					k := fmt.Sprint(v)
					next[k] += w * pi[i][c]
					nv[k] = v
				}
			}
			dist, vecs = next, nv
		}
		joint := dist[fmt.Sprint(counts)]
		prod := 1.0
		for c := 0; c < b.C; c++ {
			p := make([]float64, b.S)
			for i := range p {
				p[i] = pi[i][c]
			}
			prod *= poissonBinomial(p, counts[c])
		}
		return math.Abs(math.Log(joint)-math.Log(prod)) <= pvcTol, fmt.Sprintf("P(counts) = %.12g (recursion over instances), Π_c P(K_c = k_c) = %.12g (Poisson binomials)", joint, prod)
	},
}

// pvcSharedJudge: the shared factor makes the labels dependent; the two
// count probabilities by the Poisson-binomial recursion.
var pvcSharedJudge = verify.Judge[pvcBag]{
	Parts: func(b pvcBag) (map[string]bool, string) { return pvcParts(b, true, false), "" },
	Conclusion: func(b pvcBag) (bool, string) {
		k := pvcCounts(b)[0]
		p := make([]float64, b.S)
		hi := 1.0
		for i := range p {
			p[i] = b.prob(i, 0)
			hi = math.Min(hi, math.Min(1/p[i]-1, 1))
		}
		d := 0.5 * hi
		up, down := make([]float64, b.S), make([]float64, b.S)
		for i := range p {
			up[i], down[i] = p[i]*(1+d), p[i]*(1-d)
		}
		mixed := (poissonBinomial(up, k) + poissonBinomial(down, k)) / 2
		indep := poissonBinomial(p, k)
		return math.Abs(mixed-indep) <= 1e-12*math.Max(1, indep) || d < 1e-9, fmt.Sprintf("dependent P(K₁ = %d) = %.12g, independent %.12g (recursion)", k, mixed, indep)
	},
}

// mixSortedJudge: sorted sub-bags are not uniform draws; the worst gap
// between their true proportions and the mixture (ni·p_i + nj·p_j)/(ni+nj)
// recomputed from the labels.
var mixSortedJudge = verify.Judge[mixPair]{
	Parts: func(p mixPair) (map[string]bool, string) {
		return map[string]bool{"sub-bags uniform without replacement": false}, ""
	},
	Conclusion: func(p mixPair) (bool, string) {
		count := func(idx []int) []float64 {
			k := make([]float64, p.C)
			for _, i := range idx {
				k[p.Labels[i]]++
			}
			return k
		}
		sortedIdx := func(start, m int) []int {
			var out []int
			for c := 0; c < p.C; c++ {
				for i := start; i < start+m; i++ {
					if p.Labels[i] == c {
						out = append(out, i)
					}
				}
			}
			return out
		}
		si, sj := sortedIdx(0, p.Mi), sortedIdx(p.Mi, p.Mj)
		ki, kj := count(si), count(sj)
		worst := 0.0
		for ni := 1; ni < p.Mi; ni++ {
			nj := min(max(p.Mj-int(math.Round(float64(ni)*float64(p.Mj)/float64(p.Mi))), 1), p.Mj)
			tr := count(append(append([]int(nil), si[:ni]...), sj[:nj]...))
			for c := 0; c < p.C; c++ {
				mix := (float64(ni)*ki[c]/float64(p.Mi) + float64(nj)*kj[c]/float64(p.Mj)) / float64(ni+nj)
				worst = math.Max(worst, math.Abs(tr[c]/float64(ni+nj)-mix))
			}
		}
		return worst <= mixTol, fmt.Sprintf("the sorted sub-bags' true proportions differ from the mixture by up to %.4g", worst)
	},
}

// coverJudge: a bag with a single instance of a class in m ≤ 9 makes a
// sub-bag's count of it two-valued, far from the normal the interval
// assumes; the counterexample replicated on a fresh stream of mixed bags.
var coverJudge = verify.Judge[coverCase]{
	Parts: func(cs coverCase) (map[string]bool, string) {
		normal := true
		for _, k := range cs.counts {
			if cs.m <= 9 && (k == 1 || k == cs.m-1) {
				normal = false
			}
		}
		return map[string]bool{"counts approximately normal": normal, "q ∈ (0, ½)": true}, ""
	},
	Conclusion: func(cs coverCase) (bool, string) {
		fresh := cs
		fresh.seed = randv2.New(randv2.NewPCG(cs.seed, 60)).Uint64()
		cov, n := coverage(fresh, intervalRef, 0.005)
		c := coverVerdict(fresh, cov, n, 0.005)
		return c.OK, "replicated on a fresh stream: " + c.Detail
	},
}
