package bagproto

import (
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/stat/distmv"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/llpfc/llpfc/internal/rng"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// labels returns perClass[c] labels of each class c, interleaved so that the
// data are not sorted by class.
func labels(perClass ...int) []int {
	var y []int
	left := append([]int(nil), perClass...)
	for more := true; more; {
		more = false
		for c := range left {
			if left[c] > 0 {
				y = append(y, c)
				left[c]--
				more = true
			}
		}
	}
	return y
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Protocol
		err  bool
	}{
		{"paper", Protocol{Kind: Paper, Alpha: 1}, false},
		{"shuffle", Protocol{Kind: Shuffle}, false},
		{"dirichlet:0.5", Protocol{Kind: Dirichlet, Alpha: 0.5}, false},
		{"feature:C14,C15,min=50,max=2500", Protocol{Kind: FeatureKind, Columns: []string{"C14", "C15"}, MinSize: 50, MaxSize: 2500}, false},
		{"feature:colour", Protocol{Kind: FeatureKind, Columns: []string{"colour"}}, false},
		{"kmeans:20", Protocol{Kind: KMeansKind, K: 20}, false},
		{"feature:", Protocol{}, true},
		{"feature:a,,b", Protocol{}, true},
		{"feature:a,min=0", Protocol{}, true},
		{"feature:a,min=9,max=3", Protocol{}, true},
		{"feature:a,size=3", Protocol{}, true},
		{"kmeans:0", Protocol{}, true},
		{"kmeans:x", Protocol{}, true},
		{"dirichlet:0", Protocol{}, true},
		{"dirichlet:-1", Protocol{}, true},
		{"dirichlet:NaN", Protocol{}, true},
		{"dirichlet:x", Protocol{}, true},
		{"uniform", Protocol{}, true},
	} {
		got, err := ParseProtocol(c.in)
		if c.err {
			assert.Errorf(t, err, "ParseProtocol(%q) = %v, %v", c.in, got, err)
		} else {
			assert.NoErrorf(t, err, "ParseProtocol(%q) = %v, %v", c.in, got, err)
			assert.Equalf(t, c.want, got, "ParseProtocol(%q) = %v, %v", c.in, got, err)
			assert.Equalf(t, c.in, got.String(), "%v.String() = %q, want %q", got, got.String(), c.in)
		}
	}
	s, err := ParseShortfall("strict")
	assert.NoError(t, err, "strict")
	assert.Equal(t, Strict, s, "strict")
	s, err = ParseShortfall("restart")
	assert.NoError(t, err, "restart")
	assert.Equal(t, Restart, s, "restart")
	assert.Equal(t, "restart", s.String(), "restart")
	s, err = ParseShortfall("redraw")
	assert.NoError(t, err, "redraw")
	assert.Equal(t, Redraw, s, "redraw")
	assert.Equal(t, Restart, (Config{}).Shortfall, "the default shortfall policy should be restart (the documented default)")
	_, err = ParseShortfall("skip")
	assert.Error(t, err, "ParseShortfall accepted skip")
}

func TestConfigErrors(t *testing.T) {
	y := labels(50, 50)
	paper := Protocol{Kind: Paper, Alpha: 1}
	for _, c := range []struct {
		name string
		y    []int
		k    int
		cfg  Config
		want string
	}{
		{"bag size", y, 2, Config{Protocol: paper, BagSize: 0, NumBags: 2}, "bag size 0"},
		{"both", y, 2, Config{Protocol: paper, BagSize: 10, NumBags: 2, NumPoints: 20}, "give one"},
		{"neither", y, 2, Config{Protocol: paper, BagSize: 10}, "no number of bags or points"},
		{"not a multiple", y, 2, Config{Protocol: paper, BagSize: 10, NumPoints: 25}, "not a multiple of bag size 10"},
		{"too many", y, 2, Config{Protocol: paper, BagSize: 10, NumBags: 11}, "need 110 points, the data set has 100"},
		{"label", []int{0, 2}, 2, Config{Protocol: paper, BagSize: 1, NumBags: 1}, "instance 1 has label 2"},
		{"one class", []int{0, 0}, 1, Config{Protocol: paper, BagSize: 1, NumBags: 1}, "1 classes"},
		{"bad alpha", y, 2, Config{Protocol: Protocol{Kind: Dirichlet}, BagSize: 10, NumBags: 1}, "concentration"},
	} {
		_, err := Make(c.y, c.k, c.cfg)
		assert.ErrorContainsf(t, err, c.want, "%s: error %v, want one mentioning %q", c.name, err, c.want)
	}
}

// checkBags verifies what every protocol promises, recomputing γ̂ from the
// labels: K bags of size B, ids 0…K−1, no instance in two bags, proportions
// equal to the labels' empirical proportions.
func checkBags(t *testing.T, res *Result, y []int, numClasses, k, b int) {
	t.Helper()
	bs := res.Bags
	require.Equalf(t, numClasses, bs.NumClasses, "%d classes, %d bags, %d redraw entries; want %d, %d, %d", bs.NumClasses, len(bs.Bags), len(res.Redraws), numClasses, k, k)
	require.Lenf(t, bs.Bags, k, "%d classes, %d bags, %d redraw entries; want %d, %d, %d", bs.NumClasses, len(bs.Bags), len(res.Redraws), numClasses, k, k)
	require.Lenf(t, res.Redraws, k, "%d classes, %d bags, %d redraw entries; want %d, %d, %d", bs.NumClasses, len(bs.Bags), len(res.Redraws), numClasses, k, k)
	seen := map[int]bool{}
	for j, bag := range bs.Bags {
		require.Equalf(t, j, bag.ID, "bag %d: id %d, size %d, %d indices", j, bag.ID, bag.Size, len(bag.Indices))
		require.Equalf(t, b, bag.Size, "bag %d: id %d, size %d, %d indices", j, bag.ID, bag.Size, len(bag.Indices))
		require.Lenf(t, bag.Indices, b, "bag %d: id %d, size %d, %d indices", j, bag.ID, bag.Size, len(bag.Indices))
		n := make([]int, numClasses)
		for _, i := range bag.Indices {
			require.Falsef(t, seen[i], "bag %d: instance %d already in an earlier bag", j, i)
			seen[i] = true
			n[y[i]]++
		}
		for c := range n {
			want := float64(n[c]) / float64(b)
			require.Equalf(t, want, bag.Proportions[c], "bag %d: proportion of class %d is %v, its labels give %v", j, c, bag.Proportions[c], want)
		}
	}
	require.NoError(t, bs.Validate())
}

func TestProtocolsMakeValidBags(t *testing.T) {
	y := labels(400, 300, 500, 250)
	for _, p := range []string{"paper", "shuffle", "dirichlet:0.3", "dirichlet:5"} {
		t.Run(p, func(t *testing.T) {
			proto, _ := ParseProtocol(p)
			res, err := Make(y, 4, Config{Protocol: proto, BagSize: 64, NumPoints: 640, Seed: 3})
			require.NoError(t, err)
			checkBags(t, res, y, 4, 10, 64)
		})
	}
	// Shuffle over all points uses each point exactly once.
	res, err := Make(y, 4, Config{Protocol: Protocol{Kind: Shuffle}, BagSize: 29, NumBags: len(y) / 29, Seed: 1})
	require.NoError(t, err)
	total := make([]float64, 4)
	for _, b := range res.Bags.Bags {
		for c, p := range b.Proportions {
			total[c] += p * 29
		}
	}
	assert.Equalf(t, 400.0, math.Round(total[0]), "shuffle over all %d points: class totals %v, want 400 300 500 250", len(y), total)
	assert.Equalf(t, 250.0, math.Round(total[3]), "shuffle over all %d points: class totals %v, want 400 300 500 250", len(y), total)
}

func TestSameSeedSameBags(t *testing.T) {
	y := labels(300, 300, 300)
	for _, p := range []string{"paper", "shuffle", "dirichlet:0.5"} {
		proto, _ := ParseProtocol(p)
		cfg := Config{Protocol: proto, BagSize: 32, NumBags: 20, Seed: 11}
		a, err1 := Make(y, 3, cfg)
		b, err2 := Make(y, 3, cfg)
		cfg.Seed = 12
		c, err3 := Make(y, 3, cfg)
		require.NoError(t, err1)
		require.NoError(t, err2)
		require.NoError(t, err3)
		assert.Equalf(t, a, b, "%s: same seed gave different bags", p)
		assert.NotEqualf(t, a.Bags, c.Bags, "%s: seeds 11 and 12 gave the same bags", p)
	}
}

// multinomialMomentsOK tests draws of counts (each row one draw of
// Multinomial(n, γ)) against the multinomial's moments. Significance: each
// z-test is two-sided at |z| < 4 (α ≈ 6.3e-5); the per-class dispersion
// statistic Σ(n−nγ)²/(nγ(1−γ)) ~ χ²_M is tested at α = 1e-4 each side; the
// pooled totals' χ² (C−1 degrees of freedom) at α = 1e-4.
func multinomialMomentsOK(draws [][]int, n int, gamma []float64) (bad []string) {
	m := float64(len(draws))
	C := len(gamma)
	tot := make([]float64, C)
	chi := distuv.ChiSquared{K: m}
	for c := 0; c < C; c++ {
		mu, v := float64(n)*gamma[c], float64(n)*gamma[c]*(1-gamma[c])
		sum, disp := 0.0, 0.0
		for _, d := range draws {
			sum += float64(d[c])
			disp += (float64(d[c]) - mu) * (float64(d[c]) - mu) / v
		}
		tot[c] = sum
		if z := (sum/m - mu) / math.Sqrt(v/m); math.Abs(z) > 4 {
			bad = append(bad, "mean of class "+strconv.Itoa(c)+": z = "+strconv.FormatFloat(z, 'f', 2, 64))
		}
		if disp < chi.Quantile(1e-4) || disp > chi.Quantile(1-1e-4) {
			bad = append(bad, "variance of class "+strconv.Itoa(c)+": dispersion "+strconv.FormatFloat(disp/m, 'f', 3, 64)+" × its expectation")
		}
	}
	// Covariance of classes 0 and 1: Cov = −nγ0γ1. Its estimator's variance
	// is estimated from the products' sample variance.
	mu0, mu1 := float64(n)*gamma[0], float64(n)*gamma[1]
	var ps, pss float64
	for _, d := range draws {
		p := (float64(d[0]) - mu0) * (float64(d[1]) - mu1)
		ps += p
		pss += p * p
	}
	cov := ps / m
	se := math.Sqrt((pss/m - cov*cov) / m)
	if z := (cov + float64(n)*gamma[0]*gamma[1]) / se; math.Abs(z) > 4 {
		bad = append(bad, "covariance of classes 0,1: z = "+strconv.FormatFloat(z, 'f', 2, 64))
	}
	exp := make([]float64, C)
	x2 := 0.0
	for c := range exp {
		exp[c] = m * float64(n) * gamma[c]
		x2 += (tot[c] - exp[c]) * (tot[c] - exp[c]) / exp[c]
	}
	if x2 > (distuv.ChiSquared{K: float64(C - 1)}).Quantile(1-1e-4) {
		bad = append(bad, "pooled totals: χ² = "+strconv.FormatFloat(x2, 'f', 2, 64))
	}
	return bad
}

// TestMultinomialCounts checks the counts step of the paper protocol (for a
// fixed γ) against Multinomial(B, γ)'s mean, variance and covariance, and, as
// a negative control, that the same check rejects counts made by rounding
// Bγ (right mean, no variance) and by a Poisson draw (right mean, wrong
// variance and sizes).
func TestMultinomialCounts(t *testing.T) {
	gamma := []float64{0.5, 0.3, 0.15, 0.05}
	const n, m = 64, 4000
	r := rng.New(1, "test-multinomial")
	draws := make([][]int, m)
	for i := range draws {
		draws[i] = make([]int, len(gamma))
		multinomial(distuv.NewCategorical(gamma, r), n, draws[i])
	}
	bad := multinomialMomentsOK(draws, n, gamma)
	assert.Emptyf(t, bad, "counts are not Multinomial(%d, %v): %v", n, gamma, bad)
	rounded := make([][]int, m)
	poisson := make([][]int, m)
	for i := range rounded {
		rounded[i] = make([]int, len(gamma))
		poisson[i] = make([]int, len(gamma))
		for c, g := range gamma {
			rounded[i][c] = int(math.Round(n * g))
			poisson[i][c] = int(distuv.Poisson{Lambda: n * g, Src: r}.Rand())
		}
	}
	assert.NotEmpty(t, multinomialMomentsOK(rounded, n, gamma), "negative control: rounded counts passed the multinomial check")
	assert.NotEmpty(t, multinomialMomentsOK(poisson, n, gamma), "negative control: Poisson counts passed the multinomial check")
}

// ksBeta returns the one-sample Kolmogorov–Smirnov statistic of x against
// Beta(a, b).
func ksBeta(x []float64, a, b float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	beta := distuv.Beta{Alpha: a, Beta: b}
	d := 0.0
	for i, v := range s {
		f := beta.CDF(v)
		d = math.Max(d, math.Max(float64(i+1)/float64(len(s))-f, f-float64(i)/float64(len(s))))
	}
	return d
}

// TestDirichletMarginalsKS checks that the proportions γ drawn for the bags
// have the Dirichlet(a,…,a) marginals Beta(a, (C−1)a) (Beta(1, C−1) for the
// paper's uniform distribution on Δ^C), by a one-sample KS test per class at
// α = 0.001 (critical value √(ln(2/α)/2)/√M). Negative control: the same
// draws are rejected against the marginal of the wrong concentration.
func TestDirichletMarginalsKS(t *testing.T) {
	const C, M = 10, 3000
	crit := math.Sqrt(math.Log(2/0.001)/2) / math.Sqrt(M)
	for _, a := range []float64{1, 0.5, 4} {
		alpha := make([]float64, C)
		for c := range alpha {
			alpha[c] = a
		}
		dir := distmv.NewDirichlet(alpha, rng.New(2, "test-dirichlet"))
		marg := make([][]float64, C)
		g := make([]float64, C)
		for i := 0; i < M; i++ {
			require.NoError(t, drawGamma(dir, g))
			for c := range g {
				marg[c] = append(marg[c], g[c])
			}
		}
		for c := 0; c < C; c++ {
			d := ksBeta(marg[c], a, (C-1)*a)
			assert.LessOrEqualf(t, d, crit, "a=%v class %d: KS distance %.4f to Beta(%v, %v) exceeds %.4f", a, c, d, a, (C-1)*a, crit)
		}
		d := ksBeta(marg[0], 2*a, (C-1)*2*a)
		assert.Greaterf(t, d, crit, "negative control: a=%v marginal passed as Beta(%v, %v) (KS %.4f)", a, 2*a, 2*(C-1)*a, d)
	}
}

// TestPaperEmpiricalProportionMoments checks the whole paper protocol: with
// pools large enough never to run short, each bag's γ̂_c = n_c/B has mean 1/C
// and variance Var γ_c + E[γ_c(1−γ_c)]/B, with Var γ_c = (C−1)/(C²(C+1)) for
// Dirichlet(1). z-tests at |z| < 4; the variance's standard error comes
// from the sample fourth central moment.
func TestPaperEmpiricalProportionMoments(t *testing.T) {
	const C, B, K = 5, 16, 3000
	y := labels(K*B, K*B, K*B, K*B, K*B)
	res, err := Make(y, C, Config{Protocol: Protocol{Kind: Paper, Alpha: 1}, BagSize: B, NumBags: K, Seed: 5, Shortfall: Strict})
	require.NoError(t, err)
	varG := float64(C-1) / (C * C * (C + 1))
	eGG := 1.0/C - (varG + 1.0/(C*C)) // E[γ(1−γ)]
	wantVar := varG + eGG/B
	for c := 0; c < C; c++ {
		var s, s2 float64
		for _, b := range res.Bags.Bags {
			s += b.Proportions[c]
		}
		mean := s / K
		var m4 float64
		for _, b := range res.Bags.Bags {
			d := b.Proportions[c] - mean
			s2 += d * d
			m4 += d * d * d * d
		}
		v := s2 / (K - 1)
		m4 /= K
		zMean := (mean - 1.0/C) / math.Sqrt(wantVar/K)
		assert.LessOrEqualf(t, math.Abs(zMean), 4.0, "class %d: mean γ̂ %.4f, want %.4f (z = %.2f)", c, mean, 1.0/C, zMean)
		zVar := (v - wantVar) / math.Sqrt((m4-v*v)/K)
		assert.LessOrEqualf(t, math.Abs(zVar), 4.0, "class %d: Var γ̂ %.5f, want %.5f (z = %.2f)", c, v, wantVar, zVar)
	}
	// Negative control: the shuffle protocol's γ̂ (hypergeometric around the
	// class shares) has far smaller variance, which the test must notice.
	sh, _ := Make(y, C, Config{Protocol: Protocol{Kind: Shuffle}, BagSize: B, NumBags: K, Seed: 5})
	var s2 float64
	for _, b := range sh.Bags.Bags {
		d := b.Proportions[0] - 1.0/C
		s2 += d * d
	}
	v := s2 / K
	assert.LessOrEqualf(t, v, wantVar/2, "negative control: shuffle γ̂ variance %.5f not below the paper's %.5f", v, wantVar)
}

var shortfallMsg = regexp.MustCompile(`^bag (\d+): class (\d+) needs (\d+) more points than remain \(have (\d+)\)$`)

// TestStrictShortfallError checks the strict policy's error: it names the
// bag, the class and the shortfall, and its numbers are consistent with the
// data (the short class has fewer points left than its pool had).
func TestStrictShortfallError(t *testing.T) {
	y := labels(6, 1000, 1000)
	failed := 0
	for seed := int64(0); seed < 20; seed++ {
		_, err := Make(y, 3, Config{Protocol: Protocol{Kind: Paper, Alpha: 1}, BagSize: 100, NumBags: 10, Seed: seed, Shortfall: Strict})
		if err == nil {
			continue
		}
		failed++
		g := shortfallMsg.FindStringSubmatch(err.Error())
		require.NotNilf(t, g, "seed %d: error %q does not match %v", seed, err, shortfallMsg)
		class, _ := strconv.Atoi(g[2])
		need, _ := strconv.Atoi(g[3])
		have, _ := strconv.Atoi(g[4])
		assert.Falsef(t, need < 1 || have < 0 || (class == 0 && have > 6), "seed %d: implausible numbers in %q", seed, err)
	}
	assert.NotZero(t, failed, "no seed ran short with 6 points of class 0 and 10 bags of 100")
}

// TestRedrawExactlyWhenStrictFails checks the redraw policy against the
// strict one on the same seeds: both consume the same random stream, so the
// redraw run's first redraw happens at the bag where the strict run fails,
// their earlier bags are identical, and a run that needs no redraw equals the
// strict run.
func TestRedrawExactlyWhenStrictFails(t *testing.T) {
	y := labels(260, 260, 260, 260)
	redrawn := 0
	for seed := int64(0); seed < 30; seed++ {
		cfg := Config{Protocol: Protocol{Kind: Paper, Alpha: 1}, BagSize: 100, NumBags: 9, Seed: seed, Shortfall: Redraw}
		red, err := Make(y, 4, cfg)
		require.NoErrorf(t, err, "seed %d: redraw: %v", seed, err)
		checkBags(t, red, y, 4, 9, 100)
		cfg.Shortfall = Strict
		str, serr := Make(y, 4, cfg)
		first := -1
		for j, n := range red.Redraws {
			if n > 0 {
				first = j
				break
			}
		}
		if serr == nil {
			if assert.Lessf(t, first, 0, "seed %d: strict succeeded but bag %d was redrawn", seed, first) {
				assert.Equalf(t, str, red, "seed %d: no redraw, but the results differ", seed)
			}
		} else {
			redrawn++
			g := shortfallMsg.FindStringSubmatch(serr.Error())
			if assert.NotNilf(t, g, "seed %d: strict error %q, first redraw at bag %d", seed, serr, first) {
				assert.Equalf(t, strconv.Itoa(first), g[1], "seed %d: strict error %q, first redraw at bag %d", seed, serr, first)
			}
		}
	}
	assert.NotZero(t, redrawn, "no seed needed a redraw; the test checks nothing")
}

func TestRedrawGivesUp(t *testing.T) {
	// 64 points in 2 bags of 32: the second bag must take exactly what the
	// first left of each of 4 classes (about one chance in 6,500 per draw).
	y := labels(20, 20, 20, 4)
	_, err := Make(y, 4, Config{Protocol: Protocol{Kind: Paper, Alpha: 1}, BagSize: 32, NumBags: 2, Seed: 1, Shortfall: Redraw, MaxRedraws: 10, MaxRestarts: 3})
	if assert.Errorf(t, err, "error %v, want one giving up after 10 redraws and 3 restarts", err) {
		assert.Regexpf(t, `^bag \d+: class \d+ needs \d+ more points than remain \(have \d+\); gave up after 10 redraws of the bag and 3 restarts of the whole draw`,
			err.Error(), "error %v, want one giving up after 10 redraws and 3 restarts", err)
	}
	_, err = Make(y, 4, Config{Protocol: Protocol{Kind: Paper, Alpha: 1}, BagSize: 32, NumBags: 2, Seed: 1, Shortfall: Restart, MaxRestarts: 5})
	if assert.Errorf(t, err, "restart policy: error %v, want one giving up after 5 restarts", err) {
		assert.Regexpf(t, `; gave up after no redraws of the bag and 5 restarts`, err.Error(), "restart policy: error %v, want one giving up after 5 restarts", err)
	}
}

// TestRestartPolicy checks the restart policy against the strict one on the
// same seeds: a seed that never runs short gives the strict run's bags; one
// that does gives valid bags after at least one restart, none redrawn.
func TestRestartPolicy(t *testing.T) {
	y := labels(260, 260, 260, 260)
	restarted := 0
	for seed := int64(0); seed < 30; seed++ {
		cfg := Config{Protocol: Protocol{Kind: Paper, Alpha: 1}, BagSize: 100, NumBags: 9, Seed: seed, Shortfall: Restart}
		res, err := Make(y, 4, cfg)
		require.NoErrorf(t, err, "seed %d: %v", seed, err)
		checkBags(t, res, y, 4, 9, 100)
		assert.Zerof(t, res.TotalRedraws(), "seed %d: restart policy redrew %d bags", seed, res.TotalRedraws())
		cfg.Shortfall = Strict
		str, serr := Make(y, 4, cfg)
		if serr == nil {
			assert.Equalf(t, res, str, "seed %d: strict succeeded but restart gave other bags", seed)
		} else if assert.NotZerof(t, res.Restarts, "seed %d: strict failed (%v) but restart reports no restart", seed, serr) {
			restarted++
		}
	}
	assert.NotZero(t, restarted, "no seed needed a restart; the test checks nothing")
}

// TestShortfallRate estimates how often the paper's protocol (20 bags of
// 2,048, Dirichlet(1) over 10 classes) runs short on Fashion-MNIST-sized
// pools of 6,000 per class (the fixture), and checks the estimate against an
// independent simulation that only sums the demanded class counts (γ from
// normalised Gamma(1) draws, counts by conditional binomials): strict fails
// exactly when some class's total demand exceeds its pool. Two-proportion
// z-test at |z| < 4. LLPFC_SHORTFALL_TRIALS sets the trials (default 60).
func TestShortfallRate(t *testing.T) {
	trials := 60
	if s := os.Getenv("LLPFC_SHORTFALL_TRIALS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			trials = n
		}
	}
	const C, B, K, pool = 10, 2048, 20, 6000
	per := make([]int, C)
	for c := range per {
		per[c] = pool
	}
	y := labels(per...)
	fails, redraws, maxRedraw, restarts := 0, 0, 0, 0
	for s := 0; s < trials; s++ {
		cfg := Config{Protocol: Protocol{Kind: Paper, Alpha: 1}, BagSize: B, NumBags: K, Seed: int64(s), Shortfall: Strict}
		if _, err := Make(y, C, cfg); err != nil {
			fails++
		}
		cfg.Shortfall = Redraw
		res, err := Make(y, C, cfg)
		require.NoErrorf(t, err, "seed %d: redraw policy failed: %v", s, err)
		redraws += res.TotalRedraws()
		restarts += res.Restarts
		if res.TotalRedraws() > maxRedraw {
			maxRedraw = res.TotalRedraws()
		}
	}
	r := rng.New(99, "test-shortfall-oracle")
	oracleFails := 0
	for s := 0; s < trials; s++ {
		tot := make([]int, C)
		for k := 0; k < K; k++ {
			g := make([]float64, C)
			sum := 0.0
			for c := range g {
				g[c] = distuv.Gamma{Alpha: 1, Beta: 1, Src: r}.Rand()
				sum += g[c]
			}
			left, mass := B, 1.0
			for c := 0; c < C; c++ {
				n := left
				if c < C-1 && mass > 0 {
					p := math.Min(1, g[c]/sum/mass)
					n = int(distuv.Binomial{N: float64(left), P: p, Src: r}.Rand())
				}
				tot[c] += n
				left -= n
				mass -= g[c] / sum
			}
		}
		for _, n := range tot {
			if n > pool {
				oracleFails++
				break
			}
		}
	}
	p1, p2 := float64(fails)/float64(trials), float64(oracleFails)/float64(trials)
	pp := (p1 + p2) / 2
	if se := math.Sqrt(pp * (1 - pp) * 2 / float64(trials)); se > 0 {
		assert.LessOrEqualf(t, math.Abs(p1-p2)/se, 4.0, "strict shortfall rate %.3f, independent demand simulation %.3f (%d trials)", p1, p2, trials)
	}
	t.Logf("pools of %d, %d bags of %d: strict fails in %d/%d seeds (oracle %d/%d); redraw policy: %.2f redraws per run on average, at most %d; %d restarts in all",
		pool, K, B, fails, trials, oracleFails, trials, float64(redraws)/float64(trials), maxRedraw, restarts)
}

// TestRestartUsesEveryPoint: bags that use every point of the data set
// (k·b = n) are possible exactly when the draws' class counts add up to the
// data's, so the last bag takes the last m points of each class — a class
// with m = remaining points is not short (short means m > remaining). With
// 2 + 2 points of two classes in 2 bags of 2, a few restarts find such
// draws; every seed must succeed and use each point once.
func TestRestartUsesEveryPoint(t *testing.T) {
	y := labels(2, 2)
	for seed := int64(0); seed < 10; seed++ {
		cfg := Config{Protocol: Protocol{Kind: Paper, Alpha: 1}, BagSize: 2, NumBags: 2, Seed: seed, Shortfall: Restart}
		res, err := Make(y, 2, cfg)
		require.NoErrorf(t, err, "seed %d: %v", seed, err)
		checkBags(t, res, y, 2, 2, 2)
	}
}

// A shortfall names the class by its label too when Config.ClassNames is
// given: with labels -1, 0, 1, "class 0" alone would read as the label 0.
func TestShortfallNamesTheLabel(t *testing.T) {
	y := labels(6, 1000, 1000)
	names := []string{"-1", "0", "1"}
	named := regexp.MustCompile(`^bag \d+: class (\d+) \(label "([^"]*)"\) needs \d+ more points than remain \(have \d+\)$`)
	failed := 0
	for seed := int64(0); seed < 20; seed++ {
		cfg := Config{Protocol: Protocol{Kind: Paper, Alpha: 1}, BagSize: 100, NumBags: 10, Seed: seed, Shortfall: Strict}
		_, plain := Make(y, 3, cfg)
		cfg.ClassNames = names
		_, err := Make(y, 3, cfg)
		if err == nil {
			require.NoError(t, plain, "seed %d: the names changed the draw", seed)
			continue
		}
		failed++
		g := named.FindStringSubmatch(err.Error())
		require.NotNilf(t, g, "seed %d: error %q does not name the label", seed, err)
		class, _ := strconv.Atoi(g[1])
		assert.Equal(t, names[class], g[2], "seed %d", seed)
		require.Error(t, plain, "seed %d", seed)
		assert.Regexp(t, shortfallMsg, plain.Error(), "seed %d: without names the message is unchanged", seed)
	}
	assert.NotZero(t, failed, "no seed ran short")
	// Labels that are the indices are not repeated.
	cfg := Config{Protocol: Protocol{Kind: Paper, Alpha: 1}, BagSize: 100, NumBags: 10, Seed: 0, Shortfall: Strict, ClassNames: []string{"0", "1", "2"}}
	for ; cfg.Seed < 20; cfg.Seed++ {
		if _, err := Make(y, 3, cfg); err != nil {
			assert.Regexp(t, shortfallMsg, err.Error())
			return
		}
	}
	t.Fatal("no seed ran short")
}

// A class without any instance (labels read as class indices with a gap:
// 0, 2 of classes 0…2, or 1…C) is named as such, with the fix, where the
// shortfall's "needs N more points than remain (have 0)" hid the cause.
func TestShortfallNamesAnEmptyClass(t *testing.T) {
	y := labels(200, 0, 200)
	_, err := Make(y, 3, Config{Protocol: Protocol{Kind: Paper, Alpha: 1}, BagSize: 8, NumBags: 20, Seed: 1, MaxRestarts: 3})
	require.Error(t, err)
	for _, want := range []string{"class 1 is wanted", "no instance of it at all (classes 0…2", "number the labels 0…C−1 with no gap"} {
		assert.Contains(t, err.Error(), want)
	}
	assert.NotContains(t, err.Error(), "ask for fewer points")
	// (A class whose instances are all taken keeps the shortfall's words:
	// TestStrictShortfallError's pattern.)
}
