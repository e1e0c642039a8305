package lossclaims

import (
	"fmt"
	"math"
	"math/rand"
	randv2 "math/rand/v2"

	"github.com/llpfc/llpfc/theory/verify"
	"github.com/llpfc/llpfc/training/loss"
)

// mixPair is two bags of labelled instances: bag i holds instances
// 0..mi−1, bag j instances mi..mi+mj−1 of Labels; Seed drives MixBag's draws.
type mixPair struct {
	Labels []int
	Mi, Mj int
	C      int
	Seed   uint64
}

func (p mixPair) String() string {
	return fmt.Sprintf("C=%d m=(%d, %d) labels=%v", p.C, p.Mi, p.Mj, p.Labels)
}

// bags returns the pair as loss.BagRefs with their label proportions.
func (p mixPair) bags() (loss.BagRef, loss.BagRef) {
	mk := func(start, m int) loss.BagRef {
		b := loss.BagRef{Proportions: make([]float64, p.C)}
		for i := start; i < start+m; i++ {
			b.Indices = append(b.Indices, i)
			b.Proportions[p.Labels[i]] += 1 / float64(m)
		}
		return b
	}
	return mk(0, p.Mi), mk(p.Mi, p.Mj)
}

// genMixPair draws C ∈ 2..5, bag sizes in 2..40 and labels from a skewed
// prior (exponential weights).
func genMixPair(r *rand.Rand, _ int) mixPair {
	p := mixPair{C: 2 + r.Intn(4), Mi: 2 + r.Intn(39), Mj: 2 + r.Intn(39), Seed: r.Uint64()}
	prior := make([]float64, p.C)
	for c := range prior {
		prior[c] = r.ExpFloat64()
	}
	normalize(prior)
	for i := 0; i < p.Mi+p.Mj; i++ {
		u, c := r.Float64(), 0
		for c < p.C-1 && u > prior[c] {
			u -= prior[c]
			c++
		}
		p.Labels = append(p.Labels, c)
	}
	return p
}

// mixFunc is the implementation under test: the mixed bag's proportions of
// ni instances from a bag with proportions pi and nj from one with pj.
type mixFunc func(pi, pj []float64, ni, nj int) []float64

// mixRef is loss.MixBagInterval's mixture.
func mixRef(pi, pj []float64, ni, nj int) []float64 {
	C := len(pi)
	mix, lo, hi := make([]float64, C), make([]float64, C), make([]float64, C)
	loss.MixBagInterval(mix, lo, hi, pi, pj, ni, nj, loss.MixBagCI)
	return mix
}

// mixUnweighted is the negative control: the plain mean of the two bags'
// proportions, whatever the sub-bags' sizes.
func mixUnweighted(pi, pj []float64, _, _ int) []float64 {
	out := make([]float64, len(pi))
	for c := range out {
		out[c] = (pi[c] + pj[c]) / 2
	}
	return out
}

// mixDraws is the number of mixed bags a case draws.
const mixDraws = 2000

// checkMixture checks MixBag's mixed bags: for every mixed bag
// loss.MixBagPair draws, (1) its proportions are the instance-weighted
// mixture (ni·pi + nj·pj)/(ni+nj), ni and nj read off its indices, and mix
// gives them (relative 1e-12); (2) the mixed bag's true proportions (from
// its instances' labels) average, over 2000 draws, to the mixture within 5
// standard errors (the sub-bags are uniform draws without replacement).
func checkMixture(cfg verify.Config, name string, mix mixFunc) verify.Outcome {
	return verify.Property(cfg, name, verify.Identity, genMixPair, func(p mixPair) verify.Case {
		bi, bj := p.bags()
		r := randv2.New(randv2.NewPCG(p.Seed, 52))
		sum, sum2 := make([]float64, p.C), make([]float64, p.C)
		for n := 0; n < mixDraws; n++ {
			mb := loss.MixBagPair(r, bi, bj, loss.MixBagCI)
			ni := 0
			tr := make([]float64, p.C)
			for _, i := range mb.Indices {
				if i < p.Mi {
					ni++
				}
				tr[p.Labels[i]] += 1 / float64(len(mb.Indices))
			}
			nj := len(mb.Indices) - ni
			want := mix(bi.Proportions, bj.Proportions, ni, nj)
			for c := 0; c < p.C; c++ {
				exact := (float64(ni)*bi.Proportions[c] + float64(nj)*bj.Proportions[c]) / float64(ni+nj)
				if math.Abs(want[c]-exact) > mixTol || math.Abs(mb.Proportions[c]-exact) > mixTol {
					return verify.Case{LHS: want[c], RHS: exact, Detail: fmt.Sprintf("%v draw %d (ni=%d, nj=%d) class %d: mixture %.15g, MixBagPair %.15g, (ni·pi+nj·pj)/(ni+nj) = %.15g", p, n, ni, nj, c, want[c], mb.Proportions[c], exact)}
				}
				d := tr[c] - want[c]
				sum[c] += d
				sum2[c] += d * d
			}
		}
		for c := 0; c < p.C; c++ {
			mean := sum[c] / mixDraws
			se := math.Sqrt(math.Max(sum2[c]/mixDraws-mean*mean, 0) / mixDraws)
			if math.Abs(mean) > 5*se+1e-12 {
				return verify.Case{LHS: mean, RHS: 5 * se, Detail: fmt.Sprintf("%v class %d: mean (true − mixture) = %.6g beyond 5 standard errors %.6g", p, c, mean, 5*se)}
			}
		}
		return verify.Case{LHS: 1, RHS: 1, OK: true}
	})
}

// probeMixSorted re-runs the mixture's expectation with sub-bags that are
// not uniform draws: the first n instances of each bag, its instances
// sorted by label.
func probeMixSorted(cfg verify.Config) verify.ProbeResult {
	return verify.Violate(cfg, verify.Probing{Label: labelMixture, Hyp: "sub-bags uniform without replacement",
		Tried: "sub-bags of ni and nj = mj − round(ni·mj/mi) instances taken as the first of each bag, its instances sorted by label (ni uniform in 1..mi−1, as MixBag draws it); the true proportions' mean over the ni against the mixture's"},
		probeLimit, genMixPair, mixSortedCase, mixSortedJudge)
}

// mixSortedCase is the probe's verdict: the sorted sub-bags' true
// proportions against loss's mixture, over every ni.
func mixSortedCase(p mixPair) verify.Case {
	{
		bi, bj := p.bags()
		sorted := func(b loss.BagRef) []int {
			out := append([]int(nil), b.Indices...)
			for a := 1; a < len(out); a++ {
				for k := a; k > 0 && p.Labels[out[k]] < p.Labels[out[k-1]]; k-- {
					out[k], out[k-1] = out[k-1], out[k]
				}
			}
			return out
		}
		si, sj := sorted(bi), sorted(bj)
		worst := 0.0
		for ni := 1; ni < p.Mi; ni++ { // the expectation over ni, exactly
			nj := min(max(p.Mj-int(math.Round(float64(ni)*float64(p.Mj)/float64(p.Mi))), 1), p.Mj)
			want := mixRef(bi.Proportions, bj.Proportions, ni, nj)
			tr := make([]float64, p.C)
			for _, i := range append(append([]int(nil), si[:ni]...), sj[:nj]...) {
				tr[p.Labels[i]] += 1 / float64(ni+nj)
			}
			for c := range tr {
				worst = math.Max(worst, math.Abs(tr[c]-want[c]))
			}
		}
		return verify.Case{LHS: worst, RHS: 0, OK: worst <= mixTol, Detail: fmt.Sprintf("%v: the sorted sub-bags' true proportions differ from the mixture by %.4g", p, worst)}
	}
}

// intervalFunc is the implementation under test of MixBag's interval.
type intervalFunc func(mix, lo, hi, pi, pj []float64, ni, nj int, q float64)

// intervalFirstOnly is the negative control: the half-width of the first
// bag's sub-bag only, a·t·√(pi(1−pi)/ni) (the second bag's share dropped).
func intervalFirstOnly(mix, lo, hi, pi, pj []float64, ni, nj int, q float64) {
	loss.MixBagInterval(mix, lo, hi, pi, pj, ni, nj, q)
	a, t := float64(ni)/float64(ni+nj), mixT(q)
	for c := range mix {
		w := a * t * math.Sqrt(pi[c]*(1-pi[c])/float64(ni))
		lo[c], hi[c] = mix[c]-w, mix[c]+w
	}
}

// coverCase is one case of the coverage claim: pairs of bags of m
// instances, each mixed draws times.
type coverCase struct {
	m, C        int
	pairs, draw int
	seed        uint64
	fixed       bool // one fixed pair of bags (the probe), else a new pair each time
	// counts, when set (the probe), fixes the pair: C = 2, bag i with
	// counts[0] instances of class 1, bag j with counts[1].
	counts []int
}

// coverage returns the fraction of (mixed bag, class) pairs whose true
// proportion lies in [lo, hi] (1e-12 of slack) and the number of mixed bags.
func coverage(cs coverCase, interval intervalFunc, q float64) (float64, int) {
	r := randv2.New(randv2.NewPCG(cs.seed, 52))
	in, total, bagsN := 0, 0, 0
	var p mixPair
	for pair := 0; pair < cs.pairs; pair++ {
		if pair == 0 || !cs.fixed {
			p = drawPair(r, cs)
		}
		bi, bj := p.bags()
		for n := 0; n < cs.draw; n++ {
			mb := loss.MixBagPair(r, bi, bj, q)
			ni := 0
			tr := make([]float64, cs.C)
			for _, i := range mb.Indices {
				if i < p.Mi {
					ni++
				}
				tr[p.Labels[i]] += 1 / float64(len(mb.Indices))
			}
			mix, lo, hi := make([]float64, cs.C), make([]float64, cs.C), make([]float64, cs.C)
			interval(mix, lo, hi, bi.Proportions, bj.Proportions, ni, len(mb.Indices)-ni, q)
			for c := 0; c < cs.C; c++ {
				total++
				if tr[c] >= lo[c]-1e-12 && tr[c] <= hi[c]+1e-12 {
					in++
				}
			}
			bagsN++
		}
	}
	return float64(in) / float64(total), bagsN
}

// drawPair draws the pair of bags of a coverage case: labels from a random
// skewed prior, or, with cs.counts, the two bags' counts of class 1.
func drawPair(r *randv2.Rand, cs coverCase) mixPair {
	p := mixPair{C: cs.C, Mi: cs.m, Mj: cs.m}
	if cs.counts != nil {
		for _, k := range cs.counts {
			for i := 0; i < cs.m; i++ {
				p.Labels = append(p.Labels, b2i(i < k))
			}
		}
		return p
	}
	prior := make([]float64, cs.C)
	for c := range prior {
		prior[c] = r.ExpFloat64()
	}
	normalize(prior)
	for i := 0; i < 2*cs.m; i++ {
		u, c := r.Float64(), 0
		for c < cs.C-1 && u > prior[c] {
			u -= prior[c]
			c++
		}
		p.Labels = append(p.Labels, c)
	}
	return p
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// coverVerdict is the case: the level 1 − 2q against the coverage plus 5
// standard errors of a mean of bagsN per-bag fractions (each a mean of
// dependent indicators, whose variance is at most level·(1 − level)).
func coverVerdict(cs coverCase, cov float64, bagsN int, q float64) verify.Case {
	level := 1 - 2*q
	se := math.Sqrt(level * (1 - level) / float64(bagsN))
	return verify.Case{LHS: level, RHS: cov + 5*se, OK: level <= cov+5*se,
		Detail: fmt.Sprintf("m=%d C=%d pairs=%d draws=%d fixed=%v counts=%v seed=%d: coverage %.5f < level %.4g − 5·%.4g", cs.m, cs.C, cs.pairs, cs.draw, cs.fixed, cs.counts, cs.seed, cov, level, se)}
}

func genCover(r *rand.Rand, _ int) coverCase {
	return coverCase{m: 10 + r.Intn(119), C: 2 + r.Intn(5), pairs: 10, draw: 40, seed: r.Uint64()}
}

// checkCoverage checks MixBag's interval: over random pairs of bags of m ∈
// 10..128 instances (labels from a random skewed prior over 2–6 classes), 10
// pairs and 40 mixed bags each, the fraction of (mixed bag, class) whose
// true proportion lies in the interval at the authors' q = 0.005 is at
// least the level 1 − 2q = 0.99 less 5 standard errors.
func checkCoverage(cfg verify.Config, name string, interval intervalFunc) verify.Outcome {
	return verify.Property(cfg, name, verify.Bound, genCover, func(cs coverCase) verify.Case {
		cov, n := coverage(cs, interval, loss.MixBagCI)
		return coverVerdict(cs, cov, n, loss.MixBagCI)
	})
}

// probeCoverSmall re-runs the coverage on one fixed pair of small bags, two
// classes, one bag pure and the other with a single instance of the second
// class: the sub-bags' counts are then far from normal (a sub-bag holds
// that instance or not), which the interval's normal approximation assumes.
func probeCoverSmall(cfg verify.Config) verify.ProbeResult {
	return verify.Violate(cfg, verify.Probing{Label: labelCoverage, Hyp: "counts approximately normal",
		Tried: "one fixed pair of bags of m ∈ 7..9 instances, C = 2, bag i pure (0 or m of class 2), bag j with one instance of the class bag i lacks (or holds all but one), 20,000 mixed bags"},
		20, func(r *rand.Rand, _ int) coverCase {
			m := 7 + r.Intn(3)
			ki, kj := 0, 1
			if r.Intn(2) == 0 {
				ki, kj = m, m-1
			}
			if r.Intn(2) == 0 {
				ki, kj = kj, ki
			}
			return coverCase{m: m, C: 2, pairs: 20000, draw: 1, seed: r.Uint64(), fixed: true, counts: []int{ki, kj}}
		}, func(cs coverCase) verify.Case {
			cov, n := coverage(cs, loss.MixBagInterval, loss.MixBagCI)
			return coverVerdict(cs, cov, n, loss.MixBagCI)
		}, coverJudge)
}

// mixT is Φ⁻¹(1 − q), the interval's multiplier.
func mixT(q float64) float64 {
	mix, lo, hi := make([]float64, 1), make([]float64, 1), make([]float64, 1)
	loss.MixBagInterval(mix, lo, hi, []float64{0.5}, []float64{0.5}, 1, 1, q)
	// half-width = ½·t·½ + ½·t·½ = t/2 for pi = pj = ½, ni = nj = 1.
	return 2 * (hi[0] - mix[0])
}

// coverQEnds evaluates the coverage at the ends of q ∈ (0, ½): at q = ½ the
// multiplier is 0 and the interval a point; just inside, at the authors'
// 0.005, it covers; towards 0 it is unbounded (vacuous).
func coverQEnds(cfg verify.Config) []verify.EndCheck {
	cs := coverCase{m: 32, C: 3, pairs: 10, draw: 40, seed: 52}
	at := func(q float64, where string) verify.EndCheck {
		cov, n := coverage(cs, loss.MixBagInterval, q)
		c := coverVerdict(cs, cov, n, q)
		v := holdsIf(c.OK, verify.EndFalse)
		if 1-2*q <= 0 {
			v = verify.EndVacuous // "coverage ≥ 0"
		}
		return verify.EndCheck{At: fmt.Sprintf("q = %g (t = %.4g)", q, mixT(q)), Where: where,
			Value: fmt.Sprintf("coverage %.4f against the level %.6g (m = 32, C = 3)", cov, 1-2*q), Verdict: v, X: []float64{q}}
	}
	return []verify.EndCheck{
		{At: "q → 0", Where: verify.AtOpenEnd, Value: "t = Φ⁻¹(1 − q) → ∞: the interval is unbounded, the level 1: covered, saying nothing", Verdict: verify.EndVacuous, X: []float64{0}},
		at(1e-12, verify.AtJustInside), at(loss.MixBagCI, verify.AtJustInside), at(0.45, verify.AtJustInside), at(0.5, verify.AtOpenEnd)}
}
