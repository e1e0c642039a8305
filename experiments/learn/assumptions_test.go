package learn

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/training"
	"github.com/llpfc/llpfc/training/loss"
)

// synthBags draws nb bags of k instances over C classes with labels: i.i.d.
// from the uniform prior, or governed by γ ~ Dirichlet(1, …, 1) (the paper's
// protocol, Section 6). It returns the problem (labels in Train.Y, each
// bag's indices into them) and the labels.
func synthBags(r *rand.Rand, nb, k, C int, dirichlet bool) *Problem {
	prob := &Problem{Train: &data.Dataset{}, Bags: estimators.BagSet{NumClasses: C}}
	for b := 0; b < nb; b++ {
		g := make([]float64, C)
		for c := range g {
			g[c] = 1 / float64(C)
			if dirichlet {
				g[c] = r.ExpFloat64()
			}
		}
		s := 0.0
		for _, v := range g {
			s += v
		}
		bag := estimators.Bag{ID: b, Size: k, Proportions: make([]float64, C)}
		n := make([]int, C)
		for i := 0; i < k; i++ {
			u, c := r.Float64()*s, 0
			for c < C-1 && u >= g[c] {
				u -= g[c]
				c++
			}
			bag.Indices = append(bag.Indices, len(prob.Train.Y))
			prob.Train.Y = append(prob.Train.Y, c)
			n[c]++
		}
		for c := range n {
			bag.Proportions[c] = float64(n[c]) / float64(k)
		}
		prob.Bags.Bags = append(prob.Bags.Bags, bag)
	}
	prob.Train.N = len(prob.Train.Y)
	return prob
}

func cellOf(method string, seed int64) experiments.Config {
	return experiments.Config{Method: method, Seed: seed}
}

// TestAssumptionsReadNoLabel: the checks are computed from the bags' sizes
// and proportions only: with the instances' labels permuted (so that no bag's
// labels match its proportions any more), or removed (a bag-only set), every
// check of every method is the same, bit for bit.
func TestAssumptionsReadNoLabel(t *testing.T) {
	r := rand.New(rand.NewPCG(52, 1))
	prob := synthBags(r, 60, 16, 4, true)
	rg := []training.Regrouping{{Groups: estimators.GroupingSummary{AssumptionFails: 0.5, Singular: 0.25}}}
	methods := []string{training.MethodEasyLLP, training.MethodLLPPVC, training.MethodKL, training.MethodLLPVAT, training.MethodMixBag, training.MethodLLPFCApprox}
	want := map[string]*experiments.Assumptions{}
	for _, m := range methods {
		want[m] = CellAssumptions(cellOf(m, 3), prob, prob.Bags.Bags, rg)
		require.NotNil(t, want[m], m)
	}
	perm := r.Perm(len(prob.Train.Y))
	shuffled := make([]int, len(perm))
	for i, j := range perm {
		shuffled[i] = prob.Train.Y[j]
	}
	for name, y := range map[string][]int{"permuted": shuffled, "all class 0": make([]int, len(perm)), "none": nil} {
		prob.Train.Y = y
		prob.Train.Unlabelled = y == nil
		for _, m := range methods {
			assert.Equal(t, want[m], CellAssumptions(cellOf(m, 3), prob, prob.Bags.Bags, rg), "%s, labels %s", m, name)
		}
	}
	assert.Nil(t, CellAssumptions(cellOf(training.Supervised, 3), prob, prob.Bags.Bags, rg), "the supervised ceiling has no LLP assumption")
}

// TestEasyLLPBiasAgainstInstances: the bias statistic read from the bags'
// proportions equals the one computed instance by instance with their labels
// (E[ỹ_c | y] as the mean of the soft labels of the instances of class y,
// an independent route); on Dirichlet bags it matches the closed form
// M_{y,y} = 1 + (k−1)(E[γ_y | y] − σ_y) = 1 + (k−1)(2/(C+1) − 1/C) for the
// symmetric Dirichlet(1) of C classes (within 0.1), and the check fails
// there while it holds on i.i.d. bags of the same sizes.
func TestEasyLLPBiasAgainstInstances(t *testing.T) {
	r := rand.New(rand.NewPCG(52, 2))
	const nb, k, C = 3000, 16, 3
	for _, dir := range []bool{false, true} {
		prob := synthBags(r, nb, k, C, dir)
		counts := bagCounts(prob, prob.Bags.Bags)
		sigma := estimators.SigmaHat(&prob.Bags)
		num := make([][]float64, C)
		den := make([]float64, C)
		for y := range num {
			num[y] = make([]float64, C)
		}
		soft := make([]float64, C)
		worstDiag := 0.0
		for _, b := range prob.Bags.Bags {
			loss.EasyLLPSoftLabels(soft, b.Proportions, sigma, b.Size)
			for _, i := range b.Indices {
				y := prob.Train.Y[i]
				den[y]++
				for c := range soft {
					num[y][c] += soft[c]
				}
			}
		}
		byInstance := 0.0
		for y := 0; y < C; y++ {
			d := 0.0
			for c := 0; c < C; c++ {
				m := num[y][c] / den[y]
				if c == y {
					worstDiag = math.Max(worstDiag, m)
					m--
				}
				d += math.Abs(m)
			}
			byInstance = math.Max(byInstance, d)
		}
		assert.InDelta(t, byInstance, easyBias(counts, C), 1e-9, "dirichlet=%v", dir)
		check := CellAssumptions(cellOf(training.MethodEasyLLP, 1), prob, prob.Bags.Bags, nil).Checks[0]
		if dir {
			want := 1 + (k-1)*(2.0/(C+1)-1.0/C)
			assert.InDelta(t, want, worstDiag, 0.1, "M_yy on Dirichlet bags")
			assert.False(t, check.Holds, "EasyLLP's assumption holds on Dirichlet bags: %+v", check)
		} else {
			assert.True(t, check.Holds, "EasyLLP's assumption fails on i.i.d. bags: %+v", check)
		}
	}
}

// TestCountDispersionClosedForms: the dispersion of the class counts is
// about 1 for i.i.d. bags and (k + C)/(1 + C) for Dirichlet(1)-multinomial
// bags (Var n_c = kσ_c(1−σ_c)(k + C)/(1 + C)); LLP-PVC's check holds on the
// first and fails on the second.
func TestCountDispersionClosedForms(t *testing.T) {
	r := rand.New(rand.NewPCG(52, 3))
	const nb, k, C = 4000, 12, 4
	iid := synthBags(r, nb, k, C, false)
	d := countDispersion(bagCounts(iid, iid.Bags.Bags), C)
	assert.InDelta(t, 1, d, 0.05, "i.i.d. bags")
	assert.True(t, CellAssumptions(cellOf(training.MethodLLPPVC, 1), iid, iid.Bags.Bags, nil).Checks[0].Holds)
	dir := synthBags(r, nb, k, C, true)
	d = countDispersion(bagCounts(dir, dir.Bags.Bags), C)
	assert.InDelta(t, float64(k+C)/float64(1+C), d, 0.15, "Dirichlet bags")
	assert.False(t, CellAssumptions(cellOf(training.MethodLLPPVC, 1), dir, dir.Bags.Bags, nil).Checks[0].Holds)
}

// TestPurityAgainstRandomBags: the purity of pure bags is 1 and the check
// holds; that of i.i.d. bags of the uniform prior fails (no purer than
// random bags).
func TestPurityAgainstRandomBags(t *testing.T) {
	r := rand.New(rand.NewPCG(52, 4))
	pure := &Problem{Bags: estimators.BagSet{NumClasses: 3}}
	for b := 0; b < 30; b++ {
		p := make([]float64, 3)
		p[b%3] = 1
		pure.Bags.Bags = append(pure.Bags.Bags, estimators.Bag{ID: b, Size: 10, Proportions: p})
	}
	assert.Equal(t, 1.0, purity(bagCounts(pure, pure.Bags.Bags), 3))
	assert.True(t, CellAssumptions(cellOf(training.MethodKL, 1), pure, pure.Bags.Bags, nil).Checks[0].Holds)
	iid := synthBags(r, 300, 32, 3, false)
	assert.False(t, CellAssumptions(cellOf(training.MethodKL, 1), iid, iid.Bags.Bags, nil).Checks[0].Holds)
}

// TestMixBagCoverageAgainstMixBagPair: the coverage simulated from a pair of
// bags' class counts (hypergeometric sub-bags) agrees, within 4 standard
// errors, with the coverage of loss.MixBagPair's mixed bags of labelled
// instances and loss.MixBagInterval (the claim mixbag: interval coverage's
// counterexample: bags of 8, one pure, one with a single instance of the
// other class: about 0.983 < 0.99; 2000 simulated mixed bags do not tell it
// from 0.99 at 5 standard errors); on bags of unequal sizes the size check
// fails.
func TestMixBagCoverageAgainstMixBagPair(t *testing.T) {
	r := rand.New(rand.NewPCG(52, 5))
	counts := [][]float64{{8, 0}, {7, 1}}
	labels := []int{0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}
	bi := loss.BagRef{Indices: []int{0, 1, 2, 3, 4, 5, 6, 7}, Proportions: []float64{1, 0}}
	bj := loss.BagRef{Indices: []int{8, 9, 10, 11, 12, 13, 14, 15}, Proportions: []float64{7.0 / 8, 1.0 / 8}}
	const N = 20000
	in, total := 0, 0
	for n := 0; n < N; n++ {
		a, b := bi, bj
		if r.IntN(2) == 0 { // either bag first, as mixbagCoverage draws them
			a, b = bj, bi
		}
		if r.IntN(2) == 0 {
			b = a
		}
		mb := loss.MixBagPair(r, a, b, loss.MixBagCI)
		tr := make([]float64, 2)
		for _, i := range mb.Indices {
			tr[labels[i]] += 1 / float64(len(mb.Indices))
		}
		for c := range tr {
			total++
			if tr[c] >= mb.Lo[c]-1e-12 && tr[c] <= mb.Hi[c]+1e-12 {
				in++
			}
		}
	}
	want := float64(in) / float64(total)
	got := mixbagCoverage(r, counts, 2)
	se := math.Sqrt(want*(1-want)/N) + math.Sqrt(got*(1-got)/mixbagPairs)
	assert.InDelta(t, want, got, 4*se, "coverage from counts %v against MixBagPair's %v", got, want)
	prob := &Problem{Bags: estimators.BagSet{NumClasses: 2, Bags: []estimators.Bag{{ID: 0, Size: 8, Proportions: []float64{1, 0}}, {ID: 1, Size: 8, Proportions: []float64{7.0 / 8, 1.0 / 8}}}}}
	checks := CellAssumptions(cellOf(training.MethodMixBag, 1), prob, prob.Bags.Bags, nil).Checks
	require.Len(t, checks, 2)
	assert.True(t, checks[1].Holds, "equal sizes")
	prob.Bags.Bags[1].Size = 16
	prob.Bags.Bags[1].Proportions = []float64{15.0 / 16, 1.0 / 16}
	assert.False(t, CellAssumptions(cellOf(training.MethodMixBag, 1), prob, prob.Bags.Bags, nil).Checks[1].Holds, "unequal sizes")
}

// TestLLPFCChecksFromRegroupings: the LLPFC checks are the regroupings'
// mean failure and singular fractions, holding only at 0; without
// regroupings there is nothing to report.
func TestLLPFCChecksFromRegroupings(t *testing.T) {
	prob := &Problem{Bags: estimators.BagSet{NumClasses: 2}}
	rg := []training.Regrouping{{Groups: estimators.GroupingSummary{AssumptionFails: 0.5}}, {Groups: estimators.GroupingSummary{AssumptionFails: 0.25, Singular: 0.5}}}
	a := CellAssumptions(cellOf(training.MethodLLPFCUniform, 1), prob, nil, rg)
	require.Len(t, a.Checks, 2)
	assert.InDelta(t, 0.375, a.Checks[0].Value, 1e-15)
	assert.InDelta(t, 0.25, a.Checks[1].Value, 1e-15)
	assert.False(t, a.Checks[0].Holds)
	ok := CellAssumptions(cellOf(training.MethodLLPFCIdeal, 1), prob, nil, []training.Regrouping{{}})
	assert.True(t, ok.Checks[0].Holds && ok.Checks[1].Holds)
	assert.Empty(t, CellAssumptions(cellOf(training.MethodLLPFCApprox, 1), prob, nil, nil).Checks)
}

// TestAssumptionsAreReproducible: the same cell gives the same checks; the
// thresholds come from the cell's own stream (another seed, other draws).
func TestAssumptionsAreReproducible(t *testing.T) {
	prob := synthBags(rand.New(rand.NewPCG(52, 6)), 40, 8, 3, true)
	a := CellAssumptions(cellOf(training.MethodEasyLLP, 7), prob, prob.Bags.Bags, nil)
	b := CellAssumptions(cellOf(training.MethodEasyLLP, 7), prob, prob.Bags.Bags, nil)
	c := CellAssumptions(cellOf(training.MethodEasyLLP, 8), prob, prob.Bags.Bags, nil)
	assert.Equal(t, a, b)
	assert.NotEqual(t, a.Checks[0].Threshold, c.Checks[0].Threshold)
	assert.Equal(t, a.Checks[0].Value, c.Checks[0].Value, "the statistic itself draws nothing")
}

// TestRunCellRecordsAssumptions: a trained cell's Metrics carry its method's
// assumption checks, the ones CellAssumptions computes from the cell's bags
// (and, for LLPFC, the run's regroupings) without training: a committed
// store's cells can be given them from their configuration alone.
func TestRunCellRecordsAssumptions(t *testing.T) {
	for _, method := range []string{training.MethodLLPFCUniform, training.MethodEasyLLP} {
		cell := miniCell(method)
		cell.Config.Hyper.Epochs = 1
		prob, err := LoadProblem(cell)
		require.NoError(t, err)
		run, err := RunCell(context.Background(), cell, prob, RunOptions{})
		require.NoError(t, err)
		require.NotNil(t, run.Metrics.Assumptions, method)
		want := CellAssumptions(cell.Config, prob, prob.Bags.Bags, run.Metrics.Regroupings)
		assert.Equal(t, want, run.Metrics.Assumptions, method)
	}
}

// TestMeasuresAssumptionsMatchesCellAssumptions: for every registered method,
// CellAssumptions measures something exactly when
// experiments.MeasuresAssumptions says so — the predicate the report reads to
// tell a cell written before the diagnostics from a method that has none (a
// report once counted SqProp's cells as "written before the diagnostics").
func TestMeasuresAssumptionsMatchesCellAssumptions(t *testing.T) {
	r := rand.New(rand.NewPCG(52, 9))
	prob := synthBags(r, 40, 16, 4, true)
	rg := []training.Regrouping{{Groups: estimators.GroupingSummary{AssumptionFails: 0.5}}}
	for _, m := range experiments.Methods() {
		got := CellAssumptions(cellOf(m, 1), prob, prob.Bags.Bags, rg) != nil
		assert.Equal(t, experiments.MeasuresAssumptions(m), got, "%s: CellAssumptions measures %v", m, got)
	}
}
