package lossclaims

import (
	"fmt"
	"math"
	"math/rand"

	"github.com/llpfc/llpfc/theory/verify"
	"github.com/llpfc/llpfc/training/loss"
)

// pvcBag is one bag of LLP-PVC: s instances' logits Z (s×C, row-major) and
// labels whose proportions are the bag's; the counts are then exact.
type pvcBag struct {
	Z      []float64
	Labels []int
	S, C   int
}

func (b pvcBag) String() string {
	return fmt.Sprintf("s=%d C=%d labels=%v logits=%.4g", b.S, b.C, b.Labels, b.Z)
}

// proportions are the bag's label proportions.
func (b pvcBag) proportions() []float64 {
	a := make([]float64, b.C)
	for _, y := range b.Labels {
		a[y] += 1 / float64(b.S)
	}
	return a
}

// prob is σ(z_ic), the per-class probability of LLP-PVC's sigmoid outputs.
func (b pvcBag) prob(i, c int) float64 { return 1 / (1 + math.Exp(-b.Z[i*b.C+c])) }

// genPVCBag draws C ∈ 2..4, s ∈ 1..max(1, 12/C) (so that the brute force
// over {0,1}^{s} per class stays small), logits N(0, spread²) with spread
// in [0.3, 4] and random labels.
func genPVCBag(r *rand.Rand, _ int) pvcBag {
	C := 2 + r.Intn(3)
	s := 1 + r.Intn(max(1, 12/C))
	b := pvcBag{S: s, C: C, Z: make([]float64, s*C), Labels: make([]int, s)}
	spread := 0.3 + 3.7*r.Float64()
	for i := range b.Z {
		b.Z[i] = spread * r.NormFloat64()
	}
	for i := range b.Labels {
		b.Labels[i] = r.Intn(C)
	}
	return b
}

// pvcLossFunc is the implementation under test: the loss of one bag.
type pvcLossFunc func(b pvcBag) (float64, error)

// pvcLossRef is loss.PVC's loss of the bag (its counts from
// loss.PVCCounts of the bag's proportions).
func pvcLossRef(b pvcBag) (float64, error) {
	return (&loss.PVC{}).Loss(b.Z, b.C, []loss.BagRef{{Indices: make([]int, b.S), Proportions: b.proportions()}}, make([]float64, len(b.Z)))
}

// pvcLossBinomial is the negative control: each class's count read as
// Binomial(s, p̄_c) with p̄_c the bag's mean probability — the likelihood
// of identically distributed labels, which ignores that LLP-PVC's
// instances differ.
func pvcLossBinomial(b pvcBag) (float64, error) {
	counts := pvcCounts(b)
	l := 0.0
	for c := 0; c < b.C; c++ {
		m := 0.0
		for i := 0; i < b.S; i++ {
			m += b.prob(i, c) / float64(b.S)
		}
		k := counts[c]
		lg, _ := math.Lgamma(float64(b.S + 1))
		l1, _ := math.Lgamma(float64(k + 1))
		l2, _ := math.Lgamma(float64(b.S - k + 1))
		l -= lg - l1 - l2 + float64(k)*math.Log(m) + float64(b.S-k)*math.Log(1-m)
	}
	return l, nil
}

// pvcCounts are the counts the likelihood is evaluated at.
func pvcCounts(b pvcBag) []int {
	k := make([]int, b.C)
	loss.PVCCounts(k, b.proportions(), b.S)
	return k
}

// countProb is P(Σ_i B_i = k) for B_i ~ Bernoulli(p_i) independent, by
// brute force over all 2^s labellings.
func countProb(p []float64, k int) float64 {
	s := len(p)
	total := 0.0
	for code := 0; code < 1<<s; code++ {
		w, ones := 1.0, 0
		for i, v := range p {
			if code>>i&1 == 1 {
				w *= v
				ones++
			} else {
				w *= 1 - v
			}
		}
		if ones == k {
			total += w
		}
	}
	return total
}

// checkPVCLikelihood checks LLP-PVC's count likelihood: the bag loss is
// −Σ_c log P(K_c = k_c) with K_c the number of instances labelled c when
// every instance's label of class c is an independent Bernoulli(σ(z_ic)),
// P computed by brute force over the 2^s labellings of each class (relative
// 1e-9: the loss is a sum of ≤ 4 logarithms of sums of ≤ 2^12 products).
func checkPVCLikelihood(cfg verify.Config, name string, bagLoss pvcLossFunc) verify.Outcome {
	return verify.Property(cfg, name, verify.Identity, genPVCBag, func(b pvcBag) verify.Case {
		got, err := bagLoss(b)
		if err != nil {
			return verify.Case{Detail: fmt.Sprintf("%v: %v", b, err)}
		}
		want := 0.0
		counts := pvcCounts(b)
		for c := 0; c < b.C; c++ {
			p := make([]float64, b.S)
			for i := range p {
				p[i] = b.prob(i, c)
			}
			want -= math.Log(countProb(p, counts[c]))
		}
		return verify.Case{LHS: got, RHS: want, OK: math.Abs(got-want) <= pvcTol*math.Max(1, math.Abs(want)),
			Detail: fmt.Sprintf("%v counts=%v: loss %.15g, −Σ_c log P(K_c = k_c) = %.15g", b, counts, got, want)}
	})
}

// probePVCCategorical re-runs the likelihood with labels that are one class
// per instance (categorical with probabilities softmax(z_i)), the model of a
// softmax classifier: the classes' counts are then dependent (they sum to s)
// and the probability of the count vector is not Π_c P(K_c = k_c).
func probePVCCategorical(cfg verify.Config) verify.ProbeResult {
	return verify.Violate(cfg, verify.Probing{Label: labelPVC, Hyp: "per-class labels independent",
		Tried: "each instance exactly one class, categorical with probabilities softmax(z_i) (s ≤ 5, C ≤ 3): the exact probability of the bag's count vector, against Π_c P(K_c = k_c) with p_ic the same categorical probabilities"},
		probeLimit, genPVCCategorical, pvcCategoricalCase, pvcCategoricalJudge)
}

// genPVCCategorical draws a bag whose instances carry one class each.
func genPVCCategorical(r *rand.Rand, size int) pvcBag {
	{
		b := genPVCBag(r, size)
		b.C = 2 + r.Intn(2)
		b.S = 1 + r.Intn(5)
		b.Z, b.Labels = b.Z[:0], b.Labels[:0]
		for i := 0; i < b.S; i++ {
			b.Labels = append(b.Labels, r.Intn(b.C))
			for c := 0; c < b.C; c++ {
				b.Z = append(b.Z, 2*r.NormFloat64())
			}
		}
		return b
	}
}

// pvcCategoricalCase is the probe's verdict: the count vector's exact
// probability (C^s labellings) against the product of Poisson binomials.
func pvcCategoricalCase(b pvcBag) verify.Case {
	{
		pi := make([][]float64, b.S)
		for i := range pi {
			pi[i] = logSoftmax(b.Z[i*b.C : (i+1)*b.C])
			for c := range pi[i] {
				pi[i][c] = math.Exp(pi[i][c])
			}
		}
		counts := pvcCounts(b)
		joint := 0.0 // Σ over the C^s labellings with these counts
		n := int(math.Pow(float64(b.C), float64(b.S)))
		for code := 0; code < n; code++ {
			w, k, x := 1.0, make([]int, b.C), code
			for i := 0; i < b.S; i++ {
				y := x % b.C
				x /= b.C
				w *= pi[i][y]
				k[y]++
			}
			if fmt.Sprint(k) == fmt.Sprint(counts) {
				joint += w
			}
		}
		prod := 1.0
		for c := 0; c < b.C; c++ {
			p := make([]float64, b.S)
			for i := range p {
				p[i] = pi[i][c]
			}
			prod *= countProb(p, counts[c])
		}
		ok := math.Abs(math.Log(joint)-math.Log(prod)) <= pvcTol
		return verify.Case{LHS: prod, RHS: joint, OK: ok, Detail: fmt.Sprintf("%v counts=%v: P(counts) = %.12g, Π_c P(K_c = k_c) = %.12g", b, counts, joint, prod)}
	}
}

// probePVCShared re-runs it with the instances' labels dependent through a
// shared factor: with probability ½ every p_ic is scaled by 1 + d, else by
// 1 − d (the marginals stay p_ic): the count of class c is then a mixture of
// two Poisson binomials, not the one of independent labels.
func probePVCShared(cfg verify.Config) verify.ProbeResult {
	return verify.Violate(cfg, verify.Probing{Label: labelPVC, Hyp: "instances independent",
		Tried: "labels of a class dependent through a shared factor (p_ic scaled by 1 ± d, d = ½·min(1/p_ic − 1, 1), each with probability ½; marginals unchanged), s ≥ 2: P(K_c = k_c) against the Poisson binomial of the marginals"},
		probeLimit, func(r *rand.Rand, size int) pvcBag {
			b := genPVCBag(r, size)
			for b.S < 2 {
				b = genPVCBag(r, size)
			}
			return b
		}, pvcSharedCase, pvcSharedJudge)
}

// pvcSharedCase is the probe's verdict: the dependent count probability
// (a mixture of two Poisson binomials) against the independent one.
func pvcSharedCase(b pvcBag) verify.Case {
	{
		counts := pvcCounts(b)
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
		mixed := (countProb(up, counts[0]) + countProb(down, counts[0])) / 2
		indep := countProb(p, counts[0])
		ok := math.Abs(mixed-indep) <= 1e-12*math.Max(1, indep) || d < 1e-9
		return verify.Case{LHS: indep, RHS: mixed, OK: ok, Detail: fmt.Sprintf("%v class 0 count %d, d=%.3g: dependent P = %.12g, independent %.12g", b, counts[0], d, mixed, indep)}
	}
}

// pvcCountEnds: the likelihood is of integer counts; proportions whose
// s·α_c is not an integer are rounded (loss.PVCCounts), so their
// probability is not defined by the model.
func pvcCountEnds(verify.Config) []verify.EndCheck {
	k := make([]int, 2)
	loss.PVCCounts(k, []float64{0.25, 0.75}, 2)
	exact := make([]int, 2)
	loss.PVCCounts(exact, []float64{0.5, 0.5}, 4)
	return []verify.EndCheck{
		{At: "α = (½, ½), s = 4", Where: verify.AtClosedEnd, Value: fmt.Sprintf("counts %v = s·α", exact), Verdict: holdsIf(exact[0] == 2 && exact[1] == 2, verify.EndFalse), X: []float64{4, 2, 2}},
		{At: "α = (¼, ¾), s = 2 (s·α = (½, 1½), not counts)", Where: verify.AtOutside, Value: fmt.Sprintf("rounded to %v (half to even, remainder to the largest class): P(K = ½) is undefined", k), Verdict: verify.EndUndefined, X: []float64{2, 0.5, 1.5}},
	}
}
