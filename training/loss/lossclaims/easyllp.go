package lossclaims

import (
	"fmt"
	"math"
	"math/rand"

	"github.com/llpfc/llpfc/theory/verify"
	"github.com/llpfc/llpfc/training/loss"
)

// easyDist is a finite population of labelled instances: point j has
// probability W[j], class Y[j] and logits Z[j] (C values); every class has
// at least one point.
type easyDist struct {
	W []float64
	Y []int
	Z [][]float64
	C int
}

func (d easyDist) String() string {
	return fmt.Sprintf("C=%d w=%.4g y=%v z=%.4g", d.C, d.W, d.Y, d.Z)
}

// genEasyDist draws C ∈ 2..4 classes and K ∈ C..4 points (the first C of
// classes 0..C−1, the others random), weights in [0.1, 1.1] normalized and
// logits N(0, 9).
func genEasyDist(r *rand.Rand) easyDist {
	C := 2 + r.Intn(3)
	K := C + r.Intn(5-C)
	d := easyDist{C: C}
	for j := 0; j < K; j++ {
		y := j
		if j >= C {
			y = r.Intn(C)
		}
		d.Y = append(d.Y, y)
		d.W = append(d.W, 0.1+r.Float64())
		z := make([]float64, C)
		for c := range z {
			z[c] = 3 * r.NormFloat64()
		}
		d.Z = append(d.Z, z)
	}
	normalize(d.W)
	return d
}

// prior is the population's class prior.
func (d easyDist) prior() []float64 {
	p := make([]float64, d.C)
	for j, w := range d.W {
		p[d.Y[j]] += w
	}
	return p
}

// instanceRisk is E[−log softmax(z(x))_y], the supervised loss EasyLLP
// estimates, computed directly.
func (d easyDist) instanceRisk() float64 {
	r := 0.0
	for j, w := range d.W {
		r -= w * logSoftmax(d.Z[j])[d.Y[j]]
	}
	return r
}

// easyLossFunc is the implementation under test: the EasyLLP loss of one
// bag of the points pts (its proportions from their labels) under prior.
type easyLossFunc func(d easyDist, pts []int, prior []float64) (float64, error)

// easyLossRef is loss.EasyLLP's loss of the bag with the given prior.
func easyLossRef(d easyDist, pts []int, prior []float64) (float64, error) {
	alpha := make([]float64, d.C)
	var out []float64
	for _, j := range pts {
		alpha[d.Y[j]] += 1 / float64(len(pts))
		out = append(out, d.Z[j]...)
	}
	return (&loss.EasyLLP{Prior: prior}).Loss(out, d.C, []loss.BagRef{{Indices: make([]int, len(pts)), Proportions: alpha}}, make([]float64, len(out)))
}

// easyLossBagPrior is the negative control: the prior taken from the bag
// itself (what the authors' code does with one bag a minibatch,
// easyllp.py@fe11a00:225): the soft labels become the bag's proportions.
func easyLossBagPrior(d easyDist, pts []int, _ []float64) (float64, error) {
	return easyLossRef(d, pts, nil)
}

// easyExpect is E over bags of k instances, each instance drawn i.i.d.
// from q (a distribution on the points), of the bag loss: exact, by
// enumerating all K^k bags.
func easyExpect(d easyDist, k int, q, prior []float64, bagLoss easyLossFunc) (float64, error) {
	K := len(d.W)
	pts := make([]int, k)
	e := 0.0
	n := int(math.Pow(float64(K), float64(k)))
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
		l, err := bagLoss(d, pts, prior)
		if err != nil {
			return 0, err
		}
		e += w * l
	}
	return e, nil
}

type easyCase struct {
	d easyDist
	k int
}

func genEasyCase(r *rand.Rand, _ int) easyCase { return easyCase{d: genEasyDist(r), k: 1 + r.Intn(4)} }

// checkEasyUnbiased checks EasyLLP's identity: for bags of k instances drawn
// i.i.d. from the population, E[bag loss with the population's prior] = the
// supervised instance risk, exactly (enumeration of all bags; relative
// 1e-10: sums of ≤ 4⁴ terms of size ≤ 30).
func checkEasyUnbiased(cfg verify.Config, name string, bagLoss easyLossFunc) verify.Outcome {
	return verify.Property(cfg, name, verify.Identity, genEasyCase, func(c easyCase) verify.Case {
		got, err := easyExpect(c.d, c.k, c.d.W, c.d.prior(), bagLoss)
		if err != nil {
			return verify.Case{Detail: fmt.Sprintf("%v k=%d: %v", c.d, c.k, err)}
		}
		want := c.d.instanceRisk()
		return verify.Case{LHS: got, RHS: want, OK: math.Abs(got-want) <= easyTol*math.Max(1, math.Abs(want)),
			Detail: fmt.Sprintf("%v k=%d: E[bag loss] = %.15g, instance risk %.15g", c.d, c.k, got, want)}
	})
}

// governedCase is a population and two governing proportions γ± = p ± δ
// whose mixture ½γ₊ + ½γ₋ is the population's prior p: bags are drawn by
// first drawing γ (each with probability ½), then every instance's class
// from γ and its point from the class-conditional — the paper's bag model
// (Section 5.1), not i.i.d. draws from the population.
type governedCase struct {
	easyCase
	delta []float64
}

func genGoverned(r *rand.Rand, size int) governedCase {
	c := genEasyCase(r, size)
	c.k = 2 + r.Intn(3)
	p := c.d.prior()
	delta := make([]float64, c.d.C)
	for i := range delta {
		delta[i] = r.NormFloat64()
	}
	m := 0.0
	for _, v := range delta {
		m += v / float64(len(delta))
	}
	s := math.Inf(1)
	for i := range delta {
		delta[i] -= m
		if delta[i] != 0 {
			s = math.Min(s, 0.9*p[i]/math.Abs(delta[i]))
		}
	}
	for i := range delta {
		delta[i] *= s
	}
	return governedCase{easyCase: c, delta: delta}
}

// probeEasyGoverned re-runs the identity on bags governed by γ± (the bags'
// labels correlated through γ): E[bag loss] against the same population's
// instance risk.
func probeEasyGoverned(cfg verify.Config) verify.ProbeResult {
	return verify.Violate(cfg, verify.Probing{Label: labelEasy, Hyp: "bags i.i.d. from the population",
		Tried: "bags of k ∈ 2..4 instances governed by γ = p ± δ (probability ½ each, ½γ₊ + ½γ₋ = p: the population is unchanged), instances' classes from γ, points from the class-conditionals"},
		probeLimit, genGoverned, easyGovernedCase, easyGovernedJudge)
}

// easyGovernedCase is the probe's verdict: E[bag loss] under the governed
// bags (loss.EasyLLP through easyExpect) against the instance risk.
func easyGovernedCase(c governedCase) verify.Case {
	p := c.d.prior()
	got := 0.0
	for _, sgn := range []float64{1, -1} {
		q := make([]float64, len(c.d.W)) // the point distribution under γ
		for j, w := range c.d.W {
			y := c.d.Y[j]
			q[j] = (p[y] + sgn*c.delta[y]) * w / p[y]
		}
		e, err := easyExpect(c.d, c.k, q, p, easyLossRef)
		if err != nil {
			return verify.Case{OK: true, Detail: err.Error()}
		}
		got += e / 2
	}
	want := c.d.instanceRisk()
	return verify.Case{LHS: got, RHS: want, OK: math.Abs(got-want) <= easyTol*math.Max(1, math.Abs(want)),
		Detail: fmt.Sprintf("%v k=%d δ=%.4g: E[bag loss] = %.12g ≠ instance risk %.12g", c.d, c.k, c.delta, got, want)}
}

// probeEasyPrior re-runs the identity with the prior estimated from the bag
// itself, not the population's.
func probeEasyPrior(cfg verify.Config) verify.ProbeResult {
	c := verify.Config{Cases: verify.ProbeCases(cfg, probeLimit), Seed: cfg.Seed}
	return verify.JudgeOutcome(checkEasyUnbiased(c, probeStream(labelEasy, "p the population's prior"), easyLossBagPrior),
		verify.Probing{Label: labelEasy, Hyp: "p the population's prior",
			Tried: "the claim's checker with p the bag's own proportions (the authors' minibatch mean with one bag a minibatch, easyllp.py@fe11a00:225)"}, easyPriorJudge)
}

// easyKEnds: at k = 1 the soft label is the instance's one-hot label and the
// loss the supervised one.
func easyKEnds(verify.Config) []verify.EndCheck {
	soft := make([]float64, 3)
	loss.EasyLLPSoftLabels(soft, []float64{0, 1, 0}, []float64{0.2, 0.3, 0.5}, 1)
	ok := soft[0] == 0 && soft[1] == 1 && soft[2] == 0
	return []verify.EndCheck{
		{At: "k = 1", Where: verify.AtClosedEnd, Value: fmt.Sprintf("ỹ = kα − (k−1)p = %v, the one-hot label", soft), Verdict: holdsIf(ok, verify.EndFalse), X: []float64{1}},
		{At: "k = 0", Where: verify.AtOutside, Value: "a bag of no instance has no proportions: α = 0/0", Verdict: verify.EndUndefined, X: []float64{0}},
	}
}

// logSoftmax returns log softmax(z).
func logSoftmax(z []float64) []float64 {
	m := math.Inf(-1)
	for _, v := range z {
		m = math.Max(m, v)
	}
	s := 0.0
	for _, v := range z {
		s += math.Exp(v - m)
	}
	ls := m + math.Log(s)
	out := make([]float64, len(z))
	for i, v := range z {
		out[i] = v - ls
	}
	return out
}

func normalize(p []float64) []float64 {
	s := 0.0
	for _, v := range p {
		s += v
	}
	for i := range p {
		p[i] /= s
	}
	return p
}
