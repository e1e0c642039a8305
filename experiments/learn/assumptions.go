package learn

// Do the experiments meet the hypotheses of the methods they train?
// CellAssumptions measures, for one cell, the assumptions its method
// relies on, from the trained bags' sizes and proportions only — no label of
// an instance — and, for LLPFC, from its groups' diagnostics:
//
//   - LLPFC (Assumption `grouping assumption all groups`; Theorems `llp.cali`
//     and `thm: geb` with invertible T_i): the fraction of groups, over the
//     run's regroupings, where the assumption fails, and where T̂_i is
//     singular;
//   - EasyLLP (its soft labels are unbiased for bags drawn i.i.d. from the
//     population; the claim `easyllp: unbiased`): the bias of the debiased
//     soft labels on these bags. With ỹ_b = k_bα_b − (k_b − 1)σ̂ a bag's soft
//     label, an instance of class y sits in bag b with probability
//     ∝ k_bα_b(y), so E[ỹ_c | y] = M_{y,c} = Σ_b k_bα_b(y)ỹ_b(c) / Σ_b k_bα_b(y)
//     (proportions and sizes only), and the debiased loss's expectation is
//     E_x Σ_c M_{y(x),c}ℓ(f(x), c): unbiased iff M = I. The statistic is
//     max_y Σ_c |M_{y,c} − 1{y=c}|;
//   - LLP-PVC (its count likelihood treats a bag's labels as independent
//     given the instances, with the population's posteriors; the claim
//     `llppvc: count likelihood`): the dispersion of the bags' class counts
//     about k_bσ̂, Σ_b Σ_c (n_{b,c} − k_bσ̂_c)² / Σ_b Σ_c k_bσ̂_c(1 − σ̂_c), 1 for
//     bags drawn i.i.d. from the population; what is not measurable without
//     labels or features is independence given a bag-aware posterior;
//   - KL and LLP-VAT (proportion matching: "support … only under the
//     assumption that the bags are very pure", line 114 of the paper, of Yu et
//     al.): the size-weighted mean bag purity max_c α_b(c), which must exceed
//     that of random bags of the same sizes ("very pure" is not quantified;
//     this is the weakest form);
//   - MixBag (its interval assumes approximately normal sub-bag counts, the
//     claim `mixbag: interval coverage`; and bags of equal size,
//     utils/dataset.py@ac6ceb9:137-139): the coverage of its interval on
//     mixed bags of these bags, simulated from the bags' class counts (the
//     sub-bags' counts are hypergeometric given them), against 1 − 2q less 5
//     standard errors; and the bags' sizes all equal.
//
// The thresholds of the first three are the 99th percentile of the same
// statistic over assumptionReplicates replicates of i.i.d. bags of the same
// sizes (class counts multinomial with σ̂): what the assumption's model
// would give on this cell. Every random draw comes from the cell's stream
// rng.New(seed, "assumptions"): the same cell gives the same checks.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training"
	"github.com/llpfc/llpfc/training/loss"
)

// assumptionReplicates is the number of replicates of i.i.d. bags the
// thresholds come from; the 99th percentile is their 99th order statistic
// of 100 (interpolated).
const assumptionReplicates = 100

// mixbagPairs is the number of mixed bags the MixBag coverage simulates.
const mixbagPairs = 2000

// CellAssumptions returns the checks of the assumptions of cell c's method
// on the bags it trained on (bags: the problem's, without the held-out ones)
// with the run's regroupings (LLPFC); nil for a method without a measured
// assumption (the supervised ceiling, LLP-GAN). prob is the cell's problem:
// only its bags' sizes and proportions are read, never an instance's label.
func CellAssumptions(c experiments.Config, prob *Problem, bags []estimators.Bag, regroupings []training.Regrouping) *experiments.Assumptions {
	C := prob.Bags.NumClasses
	counts := bagCounts(prob, bags)
	r := rng.New(c.Seed, "assumptions")
	var checks []experiments.AssumptionCheck
	switch {
	case experiments.IsLLPFC(c.Method):
		checks = llpfcChecks(regroupings)
	case c.Method == training.MethodEasyLLP:
		checks = []experiments.AssumptionCheck{referenceCheck(r, counts, C, easyBias, false,
			"easyllp: bags i.i.d. from the population (the claim easyllp: unbiased)",
			"max_y Σ_c |E[ỹ_c | y] − 1{y=c}|, the bias of the debiased soft labels from the bags' proportions; threshold: the 99th percentile over i.i.d. bags of the same sizes")}
	case c.Method == training.MethodLLPPVC:
		checks = []experiments.AssumptionCheck{referenceCheck(r, counts, C, countDispersion, false,
			"llppvc: labels independent, counts Poisson-binomial (the claim llppvc: count likelihood)",
			"Σ_bΣ_c (n_bc − k_bσ̂_c)² / Σ_bΣ_c k_bσ̂_c(1−σ̂_c), the dispersion of the class counts (1 for i.i.d. bags); threshold: the 99th percentile over i.i.d. bags of the same sizes")}
	case c.Method == training.MethodKL || c.Method == training.MethodLLPVAT:
		checks = []experiments.AssumptionCheck{referenceCheck(r, counts, C, purity, true,
			"kl: bags purer than random (proportion matching needs very pure bags, line 114)",
			"Σ_b k_b max_c α_b(c) / Σ_b k_b, the size-weighted bag purity; threshold: the 99th percentile over i.i.d. bags of the same sizes")}
	case c.Method == training.MethodMixBag:
		checks = mixbagChecks(r, counts, C)
	default:
		return nil
	}
	return &experiments.Assumptions{Checks: checks}
}

// bagCounts returns each bag's class counts, read from its proportions and
// size: n_{b,c} = round(α_b(c)·k_b). The instances' labels (prob.Train.Y)
// are not read: a bag-only set has none, and what an LLP method may rely on
// is what it is given (TestAssumptionsReadNoLabel).
func bagCounts(prob *Problem, bags []estimators.Bag) [][]float64 {
	C := prob.Bags.NumClasses
	out := make([][]float64, len(bags))
	for i, b := range bags {
		counts := make([]float64, C)
		for c := 0; c < C && c < len(b.Proportions); c++ {
			counts[c] = math.Round(b.Proportions[c] * float64(b.Size))
		}
		out[i] = counts
	}
	return out
}

// prior is σ̂, the size-weighted class frequency of the bags (Algorithm 3,
// line 2), from their counts.
func prior(counts [][]float64, C int) []float64 {
	p := make([]float64, C)
	total := 0.0
	for _, n := range counts {
		for c, v := range n {
			p[c] += v
			total += v
		}
	}
	for c := range p {
		p[c] /= total
	}
	return p
}

// easyBias is max_y Σ_c |M_{y,c} − 1{y=c}| with M_{y,c} = E[ỹ_c | y] over the
// bags (see CellAssumptions).
func easyBias(counts [][]float64, C int) float64 {
	p := prior(counts, C)
	num := make([][]float64, C)
	den := make([]float64, C)
	for y := range num {
		num[y] = make([]float64, C)
	}
	for _, n := range counts {
		k := sum(n)
		if k == 0 {
			continue
		}
		for y := 0; y < C; y++ { // k·α(y) = n(y) instances of class y in the bag
			if n[y] == 0 {
				continue
			}
			den[y] += n[y]
			for c := 0; c < C; c++ {
				num[y][c] += n[y] * (n[c] - (k-1)*p[c]) // ỹ_c = k·α_c − (k−1)σ̂_c
			}
		}
	}
	worst := 0.0
	for y := 0; y < C; y++ {
		if den[y] == 0 {
			continue
		}
		d := 0.0
		for c := 0; c < C; c++ {
			m := num[y][c] / den[y]
			if c == y {
				m--
			}
			d += math.Abs(m)
		}
		worst = math.Max(worst, d)
	}
	return worst
}

// countDispersion is the pooled dispersion of the class counts about k_bσ̂.
func countDispersion(counts [][]float64, C int) float64 {
	p := prior(counts, C)
	num, den := 0.0, 0.0
	for _, n := range counts {
		k := sum(n)
		for c := 0; c < C; c++ {
			d := n[c] - k*p[c]
			num += d * d
			den += k * p[c] * (1 - p[c])
		}
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// purity is the size-weighted mean of the bags' largest proportion.
func purity(counts [][]float64, _ int) float64 {
	num, den := 0.0, 0.0
	for _, n := range counts {
		m := 0.0
		for _, v := range n {
			m = math.Max(m, v)
		}
		num += m
		den += sum(n)
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// referenceCheck measures stat on the bags and on assumptionReplicates
// replicates of i.i.d. bags of the same sizes, class counts multinomial
// with σ̂; the threshold is the replicates' 99th percentile. The assumption
// holds when the statistic is at most the threshold (no further from the
// i.i.d. model than i.i.d. bags go), or, with atLeast, when it is at least
// the threshold (bags purer than random ones are).
func referenceCheck(r *rand.Rand, counts [][]float64, C int, stat func([][]float64, int) float64, atLeast bool, name, statistic string) experiments.AssumptionCheck {
	v := stat(counts, C)
	p := prior(counts, C)
	ref := make([]float64, assumptionReplicates)
	sim := make([][]float64, len(counts))
	for i := range sim {
		sim[i] = make([]float64, C)
	}
	for k := range ref {
		for i, n := range counts {
			multinomial(r, sim[i], int(sum(n)), p)
		}
		ref[k] = stat(sim, C)
	}
	sort.Float64s(ref)
	th := quantile(ref, 0.99)
	holds := v <= th
	if atLeast {
		holds = v >= th
	}
	return experiments.AssumptionCheck{Name: name, Statistic: statistic, Value: v, Threshold: th, AtLeast: atLeast, Holds: holds}
}

// multinomial draws the counts of n draws from p into dst, class by class
// as conditional binomials.
func multinomial(r *rand.Rand, dst []float64, n int, p []float64) {
	left, mass := float64(n), 1.0
	src := randSource{r}
	for c := range dst {
		if c == len(dst)-1 || left == 0 || mass <= 0 {
			dst[c] = left
			for k := c + 1; k < len(dst); k++ {
				dst[k] = 0
			}
			return
		}
		q := math.Min(1, math.Max(0, p[c]/mass))
		x := 0.0
		if q > 0 {
			x = distuv.Binomial{N: left, P: q, Src: src}.Rand()
		}
		dst[c] = x
		left -= x
		mass -= p[c]
	}
}

// randSource adapts a math/rand/v2 generator to gonum's rand.Source.
type randSource struct{ r *rand.Rand }

func (s randSource) Uint64() uint64 { return s.r.Uint64() }

// quantile is the q-quantile of sorted xs, linearly interpolated.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(xs)-1)
	i := int(pos)
	if i >= len(xs)-1 {
		return xs[len(xs)-1]
	}
	f := pos - float64(i)
	return xs[i]*(1-f) + xs[i+1]*f
}

// llpfcChecks are the LLPFC checks from the run's regroupings: the mean over
// regroupings of the fraction of groups where Assumption `grouping
// assumption all groups` fails, and of the fraction whose T̂_i is singular.
func llpfcChecks(regroupings []training.Regrouping) []experiments.AssumptionCheck {
	if len(regroupings) == 0 {
		return nil
	}
	fails, sing := 0.0, 0.0
	for _, rg := range regroupings {
		fails += rg.Groups.AssumptionFails / float64(len(regroupings))
		sing += rg.Groups.Singular / float64(len(regroupings))
	}
	return []experiments.AssumptionCheck{
		{Name: "llpfc: grouping assumption in every group (Assumption grouping assumption all groups)",
			Statistic: "the fraction of groups, over the run's regroupings, where it fails (for (Γ̂_i, σ̂))", Value: fails, Threshold: 0, Holds: fails == 0},
		{Name: "llpfc: T̂_i invertible (Theorems llp.cali, thm: geb)",
			Statistic: "the fraction of groups, over the run's regroupings, whose T̂_i is singular", Value: sing, Threshold: 0, Holds: sing == 0},
	}
}

// mixbagChecks are MixBag's checks: its interval's coverage on mixed bags
// of these bags, and their sizes all equal.
func mixbagChecks(r *rand.Rand, counts [][]float64, C int) []experiments.AssumptionCheck {
	sizes := map[float64]bool{}
	for _, n := range counts {
		sizes[sum(n)] = true
	}
	cov := mixbagCoverage(r, counts, C)
	level := 1 - 2*loss.MixBagCI
	th := level - 5*math.Sqrt(level*(1-level)/mixbagPairs)
	return []experiments.AssumptionCheck{
		{Name: "mixbag: interval covers at its level (the claim mixbag: interval coverage)",
			Statistic: fmt.Sprintf("the coverage of its interval (q = %g) over %d mixed bags of these bags' class counts; threshold: 1 − 2q less 5 standard errors", loss.MixBagCI, mixbagPairs),
			Value:     cov, Threshold: th, AtLeast: true, Holds: cov >= th},
		{Name: "mixbag: bags of equal size (utils/dataset.py@ac6ceb9:137-139)",
			Statistic: "the number of distinct bag sizes", Value: float64(len(sizes)), Threshold: 1, Holds: len(sizes) <= 1},
	}
}

// mixbagCoverage simulates MixBag's mixed bags as loss.MixBagPair draws them
// (a bag i and a partner j uniform over all bags, ni uniform in 1..mi−1,
// nj = mj − round(ni·mj/mi)), each sub-bag's class counts drawn from the
// bag's counts without replacement (multivariate hypergeometric), and
// returns the fraction of (mixed bag, class) whose true proportion lies in
// loss.MixBagInterval's interval.
func mixbagCoverage(r *rand.Rand, counts [][]float64, C int) float64 {
	in, total := 0, 0
	props := func(n []float64) []float64 {
		p := make([]float64, C)
		k := sum(n)
		for c := range p {
			p[c] = n[c] / k
		}
		return p
	}
	hi, hj := make([]float64, C), make([]float64, C)
	mix, lo, up := make([]float64, C), make([]float64, C), make([]float64, C)
	for t := 0; t < mixbagPairs; t++ {
		a, b := counts[r.IntN(len(counts))], counts[r.IntN(len(counts))]
		mi, mj := int(sum(a)), int(sum(b))
		if mi < 2 || mj < 1 {
			continue
		}
		ni := 1 + r.IntN(mi-1)
		nj := min(max(mj-int(math.Round(float64(ni)*float64(mj)/float64(mi))), 1), mj)
		hypergeometric(r, hi, a, ni)
		hypergeometric(r, hj, b, nj)
		loss.MixBagInterval(mix, lo, up, props(a), props(b), ni, nj, loss.MixBagCI)
		for c := 0; c < C; c++ {
			tr := (hi[c] + hj[c]) / float64(ni+nj)
			total++
			if tr >= lo[c]-1e-12 && tr <= up[c]+1e-12 {
				in++
			}
		}
	}
	if total == 0 {
		return 1
	}
	return float64(in) / float64(total)
}

// hypergeometric draws n of the bag's instances without replacement and
// writes their class counts into dst, one draw at a time (the bag's counts
// are what is left to draw from).
func hypergeometric(r *rand.Rand, dst, counts []float64, n int) {
	clear(dst)
	left := append([]float64(nil), counts...)
	total := sum(left)
	for k := 0; k < n; k++ {
		u := r.Float64() * total
		c := 0
		for c < len(left)-1 && u >= left[c] {
			u -= left[c]
			c++
		}
		dst[c]++
		left[c]--
		total--
	}
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}
