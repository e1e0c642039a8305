package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/estimators"
)

func TestAUCMatchesBruteForcePairCount(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 50; trial++ {
		n := 2 + r.IntN(40)
		s := make([]float64, n)
		pos := make([]bool, n)
		for i := range s {
			s[i] = float64(r.IntN(5)) // many ties
			pos[i] = r.IntN(2) == 0
		}
		pos[0], pos[1] = true, false
		got, err := AUC(s, pos)
		if err != nil {
			t.Fatal(err)
		}
		var num, den float64
		for i := range s {
			for j := range s {
				if pos[i] && !pos[j] {
					den++
					if s[i] > s[j] {
						num++
					} else if s[i] == s[j] {
						num += 0.5
					}
				}
			}
		}
		require.InDelta(t, num/den, got, 1e-12, "trial %d: AUC %v, brute force %v", trial, got, num/den)
	}
	if _, err := AUC([]float64{1, 2}, []bool{true, true}); err == nil {
		t.Error("AUC with one class: no error")
	}
}

func TestScaleGammaIsInverseOfDTimesVariance(t *testing.T) {
	X := mat.NewDense(2, 2, []float64{0, 2, 4, 6}) // mean 3, var (9+1+1+9)/4 = 5
	got := ScaleGamma(X)
	assert.InDelta(t, 1.0/10, got, 1e-15, "ScaleGamma = %v, want 1/(2·5)", got)
}

func TestGramMatchesDefinition(t *testing.T) {
	X := mat.NewDense(3, 2, []float64{0, 0, 1, 2, -1, 0.5})
	for _, kind := range []Kind{RBF, ExpDist} {
		K := Gram(kind, 0.3, X, X)
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				dx, dy := X.At(i, 0)-X.At(j, 0), X.At(i, 1)-X.At(j, 1)
				d2 := dx*dx + dy*dy
				want := math.Exp(-0.3 * d2)
				if kind == ExpDist {
					want = math.Exp(-0.3 * math.Sqrt(d2))
				}
				assert.InDelta(t, want, K.At(i, j), 1e-12, "%s K(%d,%d) = %v, want %v", kind, i, j, K.At(i, j), want)
			}
		}
	}
}

// The forward-corrected loss equals the naive −log Σ_c T(c̃,c)η_c, its
// gradient matches finite differences (exact and Nyström, with offset), and
// with pure bags (T̂ = I) it is the weighted logistic loss.
func TestLLPFCObjectiveValueAndGradient(t *testing.T) {
	d, _, _ := toyTask(1, 48, 3, 8, 0, 1, 1)
	for _, mode := range []estimators.Mode{estimators.ModeUniform, estimators.ModeApprox} {
		red, err := estimators.BuildSeed(d.Bags, estimators.Options{Mode: mode}, 5)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := d.X.Dims()
		idx, _ := weighted(red, n)
		ft, err := fcTermsOf(red, n, idx)
		if err != nil {
			t.Fatal(err)
		}
		ts := make([]float64, len(idx))
		r := rand.New(rand.NewPCG(2, 2))
		naive := 0.0
		for i := range ts {
			ts[i] = 4 * r.NormFloat64()
			s := 1 / (1 + math.Exp(-ts[i]))
			c := ft.noisy[i]
			naive -= ft.weight[i] * math.Log(ft.T[i][2*c]*(1-s)+ft.T[i][2*c+1]*s)
		}
		got := ft.loss(ts, nil)
		assert.LessOrEqual(t, math.Abs(got-naive), 1e-10*math.Max(1, math.Abs(naive)), "%s: FC loss %v, naive %v", mode, got, naive)
		Z := FitStandardizer(d.X, nil).Apply(rows(d.X, idx))
		for _, maxExact := range []int{1000, 10} {
			bs := NewBasis(RBF, ScaleGamma(Z), Z, maxExact, stream(1, "l"))
			A, R := bs.Design(Z)
			o := &Objective{A: A, R: R, Lambda: 0.1, Bias: true, Loss: ft.loss}
			x := initTheta(o.dim(), stream(3, "x"))
			rel := fdCheck(o, x)
			assert.LessOrEqual(t, rel, 1e-5, "%s exact=%v: gradient vs finite differences, max rel error %.2g", mode, bs.Exact, rel)
		}
	}
	// Pure bags: T̂ = I and the loss is Σ w·log(1+e^{∓t}).
	pure := &estimators.BagSet{NumClasses: 2, Bags: []estimators.Bag{
		{ID: 0, Size: 2, Proportions: []float64{1, 0}, Indices: []int{0, 1}},
		{ID: 1, Size: 2, Proportions: []float64{0, 1}, Indices: []int{2, 3}},
	}}
	red, err := estimators.BuildSeed(pure, estimators.Options{Mode: estimators.ModeUniform}, 1)
	if err != nil {
		t.Fatal(err)
	}
	ft, _ := fcTermsOf(red, 4, []int{0, 1, 2, 3})
	ts := []float64{0.3, -1, 2, -0.5}
	want := 0.0
	for i, ti := range ts {
		y := 1.0
		if ft.noisy[i] == 0 {
			y = -1
		}
		want += ft.weight[i] * math.Log(1+math.Exp(-y*ti))
	}
	got := ft.loss(ts, nil)
	assert.InDelta(t, want, got, 1e-12, "pure bags: FC loss %v, logistic loss %v", got, want)
}

// The backward correction is unbiased: for a pair with proportions γ⁺ > γ⁻,
// γ⁺·L̃(+, ·) + γ⁻·L̃(−, ·) puts weight 1 on ℓ(t,+1) and 0 on ℓ(t,−1) for a
// positive point, and the converse for a negative one (Scott & Zhang 2020).
func TestLMMCMEtaIsUnbiased(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for trial := 0; trial < 100; trial++ {
		gp, gm := r.Float64(), r.Float64()
		if gp < gm {
			gp, gm = gm, gp
		}
		if gp-gm < 1e-3 {
			continue
		}
		pp, pm := Eta(gp, gm, true)  // noisy +1
		mp, mm := Eta(gp, gm, false) // noisy −1
		// Positive point: in bag+ w.p. ∝ γ⁺, bag− ∝ γ⁻.
		if a, b := gp*pp+gm*mp, gp*pm+gm*mm; math.Abs(a-1) > 1e-9 || math.Abs(b) > 1e-9 {
			t.Fatalf("positive point: weights (%v, %v), want (1, 0)", a, b)
		}
		if a, b := (1-gp)*pp+(1-gm)*mp, (1-gp)*pm+(1-gm)*mm; math.Abs(a) > 1e-9 || math.Abs(b-1) > 1e-9 {
			t.Fatalf("negative point: weights (%v, %v), want (0, 1)", a, b)
		}
	}
}

func TestLMMCMGradientAndPairs(t *testing.T) {
	d, _, _ := toyTask(2, 64, 3, 8, 0, 1, 1)
	pairs := GreedyPairs(d)
	// Greedy: the i-th smallest proportion with the i-th largest.
	for i := 1; i < len(pairs); i++ {
		if pairs[i].GammaPlus > pairs[i-1].GammaPlus || pairs[i].GammaMn < pairs[i-1].GammaMn {
			t.Errorf("pairs not nested: %+v then %+v", pairs[i-1], pairs[i])
		}
	}
	bt := bcTermsOf(d)
	sumW := 0.0
	for _, w := range bt.omega {
		sumW += w
	}
	assert.InDelta(t, 1, sumW, 1e-12, "Σω = %v, want 1 (pair weights sum to 1, ω = w/|pair|)", sumW)
	Z := FitStandardizer(d.X, nil).Apply(rows(d.X, bt.rows))
	A := Gram(RBF, ScaleGamma(Z), Z, Z)
	o := &Objective{A: A, R: A, Lambda: 0.01, Loss: bt.loss}
	rel := fdCheck(o, initTheta(o.dim(), stream(4, "x")))
	assert.LessOrEqual(t, rel, 1e-5, "LMMCM gradient vs finite differences: max rel error %.2g", rel)
}

func TestNystromErrorVanishesWithAllLandmarksAndShrinks(t *testing.T) {
	d, _, _ := toyTask(3, 160, 4, 8, 0, 1, 1)
	Z := FitStandardizer(d.X, nil).Apply(d.X)
	g := ScaleGamma(Z)
	full, err := NystromError(RBF, g, Z, Z)
	if err != nil {
		t.Fatal(err)
	}
	assert.LessOrEqual(t, full, 1e-6, "all landmarks: relative error %.2g, want ≈ 0", full)
	r := stream(5, "l")
	prev := math.Inf(1)
	for _, m := range []int{10, 40, 120} {
		e, err := NystromError(RBF, g, Z, rows(Z, r.Perm(160)[:m]))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("m=%d: ‖K−K̃‖_F/‖K‖_F = %.3g", m, e)
		assert.Less(t, e, prev, "m=%d: error %.3g did not shrink from %.3g", m, e, prev)
		prev = e
	}
}

// SolveQP meets the KKT conditions of the SVM dual, computed from scratch.
func TestSolveQPMeetsKKT(t *testing.T) {
	d, _, _ := toyTask(4, 80, 2, 8, 0, 1, 0.7)
	Z := FitStandardizer(d.X, nil).Apply(d.X)
	K := Gram(ExpDist, 0.5, Z, Z)
	n, _ := Z.Dims()
	r := rand.New(rand.NewPCG(1, 1))
	y := make([]float64, n)
	base, p, C := make([]int, n), make([]float64, n), make([]float64, n)
	for i := range y {
		y[i] = float64(2*r.IntN(2) - 1)
		base[i], p[i], C[i] = i, -1, 1
	}
	sol, err := SolveQP(QP{K: func(i, j int) float64 { return K.At(i, j) }, Base: base, Y: y, P: p, C: C}, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	// The dense-Gram path gives the same solution.
	sol2, err := SolveQP(QP{Gram: K, Base: base, Y: y, P: p, C: C}, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	for i := range sol.A {
		require.Equal(t, sol2.A[i], sol.A[i], "Gram path: a[%d] = %v, function path %v", i, sol2.A[i], sol.A[i])
	}
	// Decision values from scratch.
	sumYA := 0.0
	for i := range y {
		sumYA += y[i] * sol.A[i]
		if sol.A[i] < -1e-12 || sol.A[i] > C[i]+1e-12 {
			t.Fatalf("a[%d] = %v outside [0, C]", i, sol.A[i])
		}
	}
	assert.LessOrEqual(t, math.Abs(sumYA), 1e-9, "yᵀa = %v, want 0", sumYA)
	for i := 0; i < n; i++ {
		f := -sol.Rho
		for j := 0; j < n; j++ {
			f += y[j] * sol.A[j] * K.At(i, j)
		}
		m := y[i] * f
		switch {
		case sol.A[i] <= 1e-9 && m < 1-1e-3:
			t.Errorf("a[%d]=0 but margin %v < 1", i, m)
		case sol.A[i] >= C[i]-1e-9 && m > 1+1e-3:
			t.Errorf("a[%d]=C but margin %v > 1", i, m)
		case sol.A[i] > 1e-9 && sol.A[i] < C[i]-1e-9 && math.Abs(m-1) > 1e-3:
			t.Errorf("free a[%d] but margin %v ≠ 1", i, m)
		}
	}
}

// Two points, linear kernel, hard margin: a = 2/‖x₁−x₂‖², w = a(x₁−x₂).
func TestSolveQPTwoPointClosedForm(t *testing.T) {
	x := [][]float64{{1, 2}, {-1, 0}}
	K := func(i, j int) float64 { return x[i][0]*x[j][0] + x[i][1]*x[j][1] }
	sol, err := SolveQP(QP{K: K, Base: []int{0, 1}, Y: []float64{1, -1}, P: []float64{-1, -1}, C: []float64{1e6, 1e6}}, 1e-9)
	if err != nil {
		t.Fatal(err)
	}
	want := 2.0 / 8 // ‖x₁−x₂‖² = 4+4
	if math.Abs(sol.A[0]-want) > 1e-9 || math.Abs(sol.A[1]-want) > 1e-9 {
		t.Errorf("a = %v, want (%v, %v)", sol.A, want, want)
	}
	// b = 1 − wᵀx₁, w = a(x₁−x₂) = (0.5, 0.5): wᵀx₁ = 1.5, b = −0.5.
	assert.LessOrEqual(t, math.Abs(-sol.Rho-(-0.5)), 1e-9, "b = %v, want −0.5", -sol.Rho)
}

// With ε = 0 and a large C, InvCal interpolates: the mean score of each bag
// equals the logit of its proportion (the bag-level regression of
// invcal_dual.m); with ε > 0 it stays inside the tube.
func TestInvCalFitsBagLogits(t *testing.T) {
	d, _, _ := toyTask(5, 24, 2, 8, 0.1, 0.9, 1)
	for _, eps := range []float64{0, 0.05} {
		s, err := InvCal{}.Fit(d, Params{C: 1e4, Eps: eps, Gamma: 0.5}, 1)
		if err != nil {
			t.Fatal(err)
		}
		for k, b := range d.Bags.Bags {
			f := s.Score(rows(d.X, b.Indices))
			mean := 0.0
			for _, v := range f {
				mean += v / float64(len(f))
			}
			p := d.prop(k)
			z := math.Log(p / (1 - p))
			tube := eps / (p * (1 - p))
			assert.LessOrEqual(t, math.Abs(mean-z), tube+1e-2, "ε=%v bag %d: mean score %.4f, logit %.4f, tube %.3f", eps, k, mean, z, tube)
		}
	}
}

// The label step is the exact minimizer per bag: brute force over all 2^|b|
// labelings of tiny bags.
func TestLabelStepMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	for trial := 0; trial < 200; trial++ {
		nb := 1 + r.IntN(3)
		var bags [][]int
		var props []float64
		n := 0
		for k := 0; k < nb; k++ {
			sz := 1 + r.IntN(5)
			var b []int
			for j := 0; j < sz; j++ {
				b = append(b, n)
				n++
			}
			bags = append(bags, b)
			props = append(props, float64(r.IntN(sz+1))/float64(sz))
		}
		f := make([]float64, n)
		for i := range f {
			f[i] = 2 * r.NormFloat64()
		}
		ratio := []float64{0.01, 0.3, 1, 10}[r.IntN(4)]
		y := LabelStep(f, bags, props, ratio)
		objOf := func(y []float64) float64 {
			o := 0.0
			for k, b := range bags {
				pos := 0.0
				for _, i := range b {
					o += math.Max(0, 1-y[i]*f[i])
					if y[i] > 0 {
						pos++
					}
				}
				o += ratio * float64(len(b)) * math.Abs(pos/float64(len(b))-props[k])
			}
			return o
		}
		best := math.Inf(1)
		for mask := 0; mask < 1<<n; mask++ {
			yy := make([]float64, n)
			for i := range yy {
				yy[i] = -1
				if mask>>i&1 == 1 {
					yy[i] = 1
				}
			}
			best = math.Min(best, objOf(yy))
		}
		got := objOf(y)
		require.LessOrEqual(t, got, best+1e-9, "trial %d: label step objective %v, brute-force minimum %v", trial, got, best)
	}
}

func TestFoldsPartitionBagsInEvenFolds(t *testing.T) {
	for _, nb := range []int{10, 16, 17, 1024} {
		folds, err := Folds(nb, 5, 1)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int]bool{}
		for f, fo := range folds {
			if len(fo)%2 != 0 && !(nb%2 == 1 && f == 4) {
				t.Errorf("nb=%d fold %d has %d bags, want even", nb, f, len(fo))
			}
			for _, b := range fo {
				if seen[b] {
					t.Fatalf("bag %d in two folds", b)
				}
				seen[b] = true
			}
		}
		assert.Equal(t, nb, len(seen), "nb=%d: folds cover %d bags", nb, len(seen))
	}
	if _, err := Folds(9, 5, 1); err == nil {
		t.Error("9 bags, 5 folds: no error")
	}
}

// fakeMethod has a known validation loss per grid point: CV must pick its
// minimum, skip failing folds and keep the first of equal minima.
type fakeMethod struct{ loss []float64 }

type constScorer float64

func (c constScorer) Score(X mat.Matrix) []float64 {
	n, _ := X.Dims()
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(c)
	}
	return out
}

func (fakeMethod) Name() string { return "fake" }
func (m fakeMethod) Grid() []Params {
	var g []Params
	for i := range m.loss {
		g = append(g, Params{Lambda: float64(i + 1)})
	}
	return g
}
func (fakeMethod) Fit(d Data, p Params, _ int64) (Scorer, error) { return constScorer(p.Lambda), nil }
func (m fakeMethod) ValidationLoss(s Scorer, d Data, _ int64) (float64, error) {
	i := int(s.(constScorer)) - 1
	return m.loss[i], nil
}

func TestCrossValidatePicksSmallestMeanLoss(t *testing.T) {
	d, _, _ := toyTask(7, 160, 2, 8, 0, 1, 1)
	res, err := CrossValidate(fakeMethod{loss: []float64{3, 1, math.Inf(1), 1, 2}}, d, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	assert.Equal(t, 2.0, res.Best.Lambda, "chose %v, want λ=2 (first minimum)", res.Best)
	if res.Failed[2] != 5 || !math.IsInf(res.Loss[2], 1) {
		t.Errorf("infinite losses: failed %d, loss %v", res.Failed[2], res.Loss[2])
	}
}

// All five methods learn a separable toy task from bags alone.
func TestMethodsLearnToyTask(t *testing.T) {
	if testing.Short() {
		t.Skip("trains five models")
	}
	d, Xt, yt := toyTask(8, 192, 2, 8, 0, 1, 1.5)
	methods := []struct {
		m Method
		p Params
	}{
		{LLPFC{Mode: estimators.ModeUniform}, Params{Lambda: 1e-3}},
		{LLPFC{Mode: estimators.ModeApprox}, Params{Lambda: 1e-3}},
		{LMMCM{}, Params{Lambda: 1e-3}},
		{InvCal{}, Params{C: 1, Eps: 0, Gamma: 0.1}},
		{AlterPSVM{}, Params{C: 1, Cp: 10, Gamma: 0.1}},
	}
	for _, c := range methods {
		s, err := c.m.Fit(d, c.p, 1)
		if err != nil {
			t.Fatalf("%s: %v", c.m.Name(), err)
		}
		auc, err := AUC(s.Score(Xt), yt)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: AUC %.4f", c.m.Name(), auc)
		assert.GreaterOrEqual(t, auc, 0.85, "%s: AUC %.4f, want ≥ 0.85 (Bayes ≈ 0.98)", c.m.Name(), auc)
	}
}

// The distance cache changes no number: InvCal and alter-∝SVM fitted with
// and without it score the test points identically.
func TestDistanceCacheIsTransparent(t *testing.T) {
	d, Xt, _ := toyTask(10, 96, 3, 8, 0, 1, 1)
	dc := d.WithCache()
	for _, c := range []struct {
		m Method
		p Params
	}{{InvCal{}, Params{C: 1, Eps: 0.01, Gamma: 0.1}}, {AlterPSVM{}, Params{C: 1, Cp: 10, Gamma: 0.1}}} {
		for pass := 0; pass < 2; pass++ { // second pass reads the cache
			a, err := c.m.Fit(d, c.p, 1)
			if err != nil {
				t.Fatal(err)
			}
			b, err := c.m.Fit(dc, c.p, 1)
			if err != nil {
				t.Fatal(err)
			}
			sa, sb := a.Score(Xt), b.Score(Xt)
			for i := range sa {
				require.InDelta(t, sb[i], sa[i], 1e-9, "%s pass %d: score %d differs: %v vs %v", c.m.Name(), pass, i, sa[i], sb[i])
			}
		}
	}
	assert.Equal(t, 1, len(dc.cache.entries), "cache holds %d entries, want 1", len(dc.cache.entries))
}

// Alternating minimization never increases the ∝SVM objective at a fixed C
// (the w-step solves the SVM given y, the y-step is exact given f), up to
// the SMO tolerance.
func TestAlternatingObjectiveDoesNotIncrease(t *testing.T) {
	d, _, _ := toyTask(11, 160, 2, 8, 0, 1, 0.8)
	Z := FitStandardizer(d.X, nil).Apply(d.X)
	K := Gram(ExpDist, 0.5, Z, Z)
	n, _ := Z.Dims()
	var bags [][]int
	var props []float64
	for k, b := range d.Bags.Bags {
		bags = append(bags, b.Indices)
		props = append(props, d.prop(k))
	}
	r := rand.New(rand.NewPCG(2, 3))
	for _, C := range []float64{0.1, 1, 10} {
		y := make([]float64, n)
		for i := range y {
			y[i] = float64(2*r.IntN(2) - 1)
		}
		_, _, objs, err := alternate(K, y, bags, props, C, 10, 100)
		if err != nil {
			t.Fatal(err)
		}
		require.GreaterOrEqual(t, len(objs), 2, "C=%v: %d rounds", C, len(objs))
		for i := 1; i < len(objs); i++ {
			assert.LessOrEqual(t, objs[i], objs[i-1]+1e-2*C*float64(n)*DefaultQPTol+1e-6, "C=%v: objective rose from %v to %v at round %d", C, objs[i-1], objs[i], i)
		}
	}
}

// After the alternation, the labels minimize the full ∝SVM objective given
// the final SVM (brute force over all 2^10 labelings of two bags of 5): the
// y-step is wired with the right weight C_p/C.
func TestAlternationLabelsMinimizeObjective(t *testing.T) {
	d, _, _ := toyTask(12, 10, 2, 5, 0, 1, 0.5)
	Z := FitStandardizer(d.X, nil).Apply(d.X)
	K := Gram(ExpDist, 0.5, Z, Z)
	bags := [][]int{d.Bags.Bags[0].Indices, d.Bags.Bags[1].Indices}
	props := []float64{d.prop(0), d.prop(1)}
	for _, C := range []float64{0.1, 10} {
		y0 := []float64{1, -1, 1, -1, 1, -1, 1, -1, 1, -1}
		m, y, _, err := alternate(K, y0, bags, props, C, 1, 100)
		if err != nil || m == nil {
			t.Fatalf("C=%v: %v", C, err)
		}
		got := psvmObjective(K, m, y, bags, props, C, 1)
		for mask := 0; mask < 1<<10; mask++ {
			yy := make([]float64, 10)
			for i := range yy {
				yy[i] = float64(2*(mask>>i&1) - 1)
			}
			o := psvmObjective(K, m, yy, bags, props, C, 1)
			require.GreaterOrEqual(t, o, got-1e-9, "C=%v: labels %v give %v < %v of the solver's %v", C, yy, o, got, y)
		}
	}
}
