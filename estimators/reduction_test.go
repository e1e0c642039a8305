package estimators

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/theory"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTColumnStochasticAllModes: for random bag sets (classes switched off
// at random, so absent classes occur), every mode and weight scheme gives
// T̂_i column-stochastic (Section 5.4: "to ensure that each T̂_i is a
// column-stochastic matrix"), σ̂_i = Γ̂_iᵀα̂_i, α̂_i ∈ Δ^C, w ∈ Δ^N, and no
// NaN or Inf anywhere a trainer reads.
func TestTColumnStochasticAllModes(t *testing.T) {
	forAllSeeds(t, "T̂ column-stochastic", func(seed int64) (bool, error) {
		r := rng.New(seed, "colstoch")
		C := 2 + r.IntN(5)
		set := randomBagSet(r, C, C+r.IntN(6*C), []float64{0, 0.3, 0.6}[r.IntN(3)])
		for _, m := range Modes {
			for _, w := range WeightSchemes {
				for _, compat := range []Compat{CompatPaper, CompatOriginal} {
					if compat == CompatOriginal && (m == ModeIdeal || w != WeightsUniform) {
						continue // not in the authors' code (TestCompatRefusesWhatTheAuthorsLack)
					}
					red, err := Build(set, Options{Mode: m, Weights: w, Compat: compat}, rng.New(seed, "groups"))
					if err != nil {
						if m == ModeIdeal && errors.Is(err, ErrAssumption) {
							continue // the Assumption may fail: that is ideal's contract
						}
						msg := err.Error()
						if compat == CompatOriginal && (strings.Contains(msg, "is absent from the group") ||
							strings.Contains(msg, "mega-bag") || strings.Contains(msg, "< 0, so T̂ has negative entries") ||
							strings.Contains(msg, "linearly dependent")) {
							continue // the original's 0/0, empty mega-bag and negative α are errors by design
						}
						if w == WeightsCHVol && strings.Contains(msg, "every group's convex hull has volume 0") {
							continue // all groups flat: documented error
						}
						return false, fmt.Errorf("%s/%s/%s: %v", m, w, compat, err)
					}
					if !noNaN(red) {
						return false, fmt.Errorf("%s/%s/%s: NaN or Inf", m, w, compat)
					}
					ws := make([]float64, len(red.Groups))
					for i, g := range red.Groups {
						ws[i] = g.Weight
						if err := theory.CheckColumnStochastic("T", g.T, 1e-9); err != nil {
							return false, fmt.Errorf("%s/%s/%s group %d: %v", m, w, compat, i, err)
						}
						if err := theory.CheckSimplex("alpha", g.Alpha, 1e-9); err != nil {
							return false, err
						}
						s, _ := theory.NoisyToCleanPrior(g.Gamma, g.Alpha)
						for c := range s {
							want := s[c]
							if m == ModeIdeal {
								want = red.SigmaHat[c] // Algorithm 1 uses σ itself
							}
							if math.Abs(g.Sigma[c]-want) > 1e-12 {
								return false, fmt.Errorf("%s: σ̂_i(%d) = %g, Γ̂ᵀα̂ = %g", m, c, g.Sigma[c], want)
							}
						}
					}
					if err := theory.CheckSimplex("w", ws, 1e-12); err != nil {
						return false, err
					}
				}
			}
		}
		return true, nil
	})
}

// TestTransitionMatchesTheory: where σ̂_i > 0, T̂_i equals
// theory.TransitionMatrix(Γ̂_i, α̂_i, σ̂_i), the formula of Algorithm 2/3
// line 9 as written (our implementation normalizes each column instead).
func TestTransitionMatchesTheory(t *testing.T) {
	forAllSeeds(t, "T̂ = theory.TransitionMatrix", func(seed int64) (bool, error) {
		r := rng.New(seed, "transition")
		C := 2 + r.IntN(6)
		set := randomBagSet(r, C, C*(1+r.IntN(4)), 0)
		for _, m := range []Mode{ModeUniform, ModeApprox, ModeMerge} {
			red, err := BuildSeed(set, Options{Mode: m}, seed)
			if err != nil {
				return false, err
			}
			for _, g := range red.Groups {
				if len(g.Diagnostics.AbsentClasses) > 0 {
					continue
				}
				T, err := theory.TransitionMatrix(g.Gamma, g.Alpha, g.Sigma)
				if err != nil {
					return false, err
				}
				if !matClose(T, g.T, 1e-12) {
					return false, fmt.Errorf("%s: T̂ = %v, theory %v", m, mat.Formatted(g.T), mat.Formatted(T))
				}
			}
		}
		return true, nil
	})
}

// TestIdealRecoversTrueT: when γ̂ = γ and σ̂ = σ (Algorithm 1's ideal
// setting), mode ideal recovers the true α and T of the model of Section
// 5.2. Construction: draw σ ∈ open simplex, bag sizes s_c, α(c) = s_c/Σs,
// zero-sum perturbations d_c with Σ_c α(c)d_c = 0 and γ_c = σ + t·d_c ≥ 0;
// then Γᵀα = σ by construction, and the size-weighted σ̂ = σ exactly. The
// true T(c1,c2) = γ_c1(c2)α(c1)/σ(c2) is then compared with T̂ row by row
// (rows follow the random order of the partition).
func TestIdealRecoversTrueT(t *testing.T) {
	forAllSeeds(t, "ideal recovers T", func(seed int64) (bool, error) {
		r := rng.New(seed, "ideal")
		C := 2 + r.IntN(6)
		sigma := make([]float64, C)
		s := 0.0
		for c := range sigma {
			sigma[c] = 0.2 + r.Float64()
			s += sigma[c]
		}
		for c := range sigma {
			sigma[c] /= s
		}
		sizes := make([]int, C)
		n := 0
		for c := range sizes {
			sizes[c] = 1 + r.IntN(50)
			n += sizes[c]
		}
		alpha := make([]float64, C)
		for c := range alpha {
			alpha[c] = float64(sizes[c]) / float64(n)
		}
		d := make([][]float64, C)
		mean := make([]float64, C)
		for c := range d {
			d[c] = make([]float64, C)
			rs := 0.0
			for j := range d[c] {
				d[c][j] = r.NormFloat64()
				rs += d[c][j]
			}
			for j := range d[c] {
				d[c][j] -= rs / float64(C) // Σ_j d_c(j) = 0: γ_c sums to 1
			}
		}
		for j := 0; j < C; j++ {
			for c := 0; c < C; c++ {
				mean[j] += alpha[c] * d[c][j]
			}
		}
		tmax := math.Inf(1)
		for c := range d {
			for j := range d[c] {
				d[c][j] -= mean[j] // Σ_c α(c) d_c = 0
				if d[c][j] < 0 {
					tmax = math.Min(tmax, sigma[j]/-d[c][j])
				}
			}
		}
		tt := 0.9 * tmax
		set := &BagSet{NumClasses: C}
		for c := 0; c < C; c++ {
			p := make([]float64, C)
			ps := 0.0
			for j := range p {
				p[j] = sigma[j] + tt*d[c][j]
				ps += p[j]
			}
			for j := range p {
				p[j] /= ps // rounding only
			}
			set.Bags = append(set.Bags, Bag{ID: c, Size: sizes[c], Proportions: p})
		}
		red, err := BuildSeed(set, Options{Mode: ModeIdeal}, seed)
		if err != nil {
			return false, err
		}
		for j := range sigma {
			if math.Abs(red.SigmaHat[j]-sigma[j]) > 1e-12 {
				return false, fmt.Errorf("σ̂ = %v, σ = %v", red.SigmaHat, sigma)
			}
		}
		g := red.Groups[0]
		for row, k := range g.Bags {
			c1 := set.Bags[k].ID
			if math.Abs(g.Alpha[row]-alpha[c1]) > 1e-8*g.Diagnostics.CondGamma {
				return false, fmt.Errorf("α̂ row %d = %g, true α(%d) = %g", row, g.Alpha[row], c1, alpha[c1])
			}
			for c2 := 0; c2 < C; c2++ {
				want := set.Bags[k].Proportions[c2] * alpha[c1] / sigma[c2]
				if math.Abs(g.T.At(row, c2)-want) > 1e-8*g.Diagnostics.CondGamma {
					return false, fmt.Errorf("T̂(%d,%d) = %g, true %g", row, c2, g.T.At(row, c2), want)
				}
			}
		}
		if !g.Diagnostics.AssumptionHolds {
			return false, errors.New("Assumption reported as failing on a model where it holds")
		}
		return true, nil
	})
}

// TestIdealAssumptionFails: σ̂ outside the hull of a group's proportions
// makes mode ideal fail with ErrAssumption, naming the group and its bags.
func TestIdealAssumptionFails(t *testing.T) {
	set := &BagSet{NumClasses: 2, Bags: []Bag{
		{ID: 7, Size: 10, Proportions: []float64{0.9, 0.1}},
		{ID: 8, Size: 10, Proportions: []float64{0.8, 0.2}},
		{ID: 9, Size: 80, Proportions: []float64{0.1, 0.9}},
		{ID: 10, Size: 80, Proportions: []float64{0.2, 0.8}},
	}}
	// σ̂ = (0.2, 0.8)·… is near (0.2,0.8); any group {7,8} or {9,10} cannot
	// contain it; try seeds until such a group occurs (deterministic).
	for seed := int64(0); seed < 50; seed++ {
		red, err := BuildSeed(set, Options{Mode: ModeIdeal}, seed)
		if err == nil {
			for _, g := range red.Groups {
				require.Truef(t, g.Diagnostics.AssumptionHolds, "seed %d: Build succeeded with a failing group", seed)
			}
			continue
		}
		require.ErrorIsf(t, err, ErrAssumption, "seed %d: error %v does not wrap ErrAssumption", seed, err)
		assert.ErrorContainsf(t, err, "bags [", "error %q does not name the group and its bags", err)
		assert.ErrorContainsf(t, err, "group ", "error %q does not name the group and its bags", err)
		return
	}
	require.Fail(t, "no seed produced a failing group")
}

// TestPartitionIsPartition: groups of exactly C positions, N = ⌊K/C⌋, and
// groups ∪ leftover = {0..K−1} with each position once.
func TestPartitionIsPartition(t *testing.T) {
	forAllSeeds(t, "partition", func(seed int64) (bool, error) {
		r := rng.New(seed, "part")
		C := 1 + r.IntN(10)
		K := C + r.IntN(100)
		groups, left, err := Partition(K, C, r)
		if err != nil {
			return false, err
		}
		if len(groups) != K/C || len(left) != K%C {
			return false, fmt.Errorf("K=%d C=%d: %d groups, %d leftover", K, C, len(groups), len(left))
		}
		seen := make([]int, K)
		for _, g := range groups {
			if len(g) != C {
				return false, fmt.Errorf("group of %d", len(g))
			}
			for _, k := range g {
				seen[k]++
			}
		}
		for _, k := range left {
			seen[k]++
		}
		for k, v := range seen {
			if v != 1 {
				return false, fmt.Errorf("position %d used %d times", k, v)
			}
		}
		return true, nil
	})
}

// TestPartitionUniformChiSquare: with K = 5 bags and C = 2 (2 groups, 1
// leftover), each of the 5! = 120 ordered assignments of bags to the slots
// (group 0 row 0, group 0 row 1, group 1 row 0, group 1 row 1, leftover)
// must be equally likely. 24,000 seeds (the streams rng.New(seed, "groups")
// used by BuildSeed), expected count 200 per cell; Pearson's chi-square
// statistic is compared with the 0.999 quantile of χ²(119) (significance
// level 0.001: a correct implementation fails with probability 0.1%; the
// seeds are fixed, so the outcome is deterministic).
func TestPartitionUniformChiSquare(t *testing.T) {
	const K, C, draws = 5, 2, 24000
	counts := map[[K]int]int{}
	for seed := int64(0); seed < draws; seed++ {
		groups, left, err := Partition(K, C, rng.New(seed, StreamName))
		require.NoError(t, err)
		var key [K]int
		slot := 0
		for _, g := range groups {
			for _, k := range g {
				key[slot] = k
				slot++
			}
		}
		key[slot] = left[0]
		counts[key]++
	}
	require.Lenf(t, counts, 120, "%d distinct assignments seen, want all 120", len(counts))
	exp := float64(draws) / 120
	chi := 0.0
	for _, n := range counts {
		chi += (float64(n) - exp) * (float64(n) - exp) / exp
	}
	crit := distuv.ChiSquared{K: 119}.Quantile(0.999)
	t.Logf("χ² = %.1f, critical value χ²(119; 0.999) = %.1f", chi, crit)
	assert.LessOrEqualf(t, chi, crit, "χ² = %.1f > %.1f: partition not uniform at level 0.001", chi, crit)
}

// TestSameSeedSameGroups: BuildSeed is a function of (set, options, seed);
// different seeds give different partitions.
func TestSameSeedSameGroups(t *testing.T) {
	set := randomBagSet(rng.New(3, "set"), 4, 41, 0.2)
	for _, m := range Modes[1:] {
		a, err := BuildSeed(set, Options{Mode: m, Weights: WeightsHM}, 11)
		require.NoError(t, err)
		b, err := BuildSeed(set, Options{Mode: m, Weights: WeightsHM}, 11)
		require.NoError(t, err)
		assert.Equalf(t, a.JSON(), b.JSON(), "%s: same seed, different reductions", m)
		c, err := BuildSeed(set, Options{Mode: m, Weights: WeightsHM}, 12)
		require.NoError(t, err)
		assert.NotEqualf(t, a.JSON(), c.JSON(), "%s: seeds 11 and 12 give the same reduction", m)
	}
}

// TestRegroupResamplesLeftover: repeated Builds on one stream (regrouping
// during training, Section 5.4 last paragraph) draw new leftover bags, and
// over many regroupings every bag is left over at some point.
func TestRegroupResamplesLeftover(t *testing.T) {
	set := randomBagSet(rng.New(5, "set"), 3, 11, 0) // 3 groups, 2 leftover
	r := rng.New(5, StreamName)
	left := map[int]bool{}
	for i := 0; i < 100; i++ {
		red, err := Build(set, Options{Mode: ModeUniform}, r)
		require.NoError(t, err)
		require.Lenf(t, red.Leftover, 2, "%d leftover, want 2", len(red.Leftover))
		for _, k := range red.Leftover {
			left[k] = true
		}
	}
	assert.Lenf(t, left, 11, "only %d of 11 bags were ever left over in 100 regroupings", len(left))
}

// TestBuildErrors: every invalid input gives its error, an *InputError,
// naming the bag and the rule.
func TestBuildErrors(t *testing.T) {
	good := func() *BagSet {
		return &BagSet{NumClasses: 2, Bags: []Bag{
			{ID: 1, Size: 2, Proportions: []float64{0.5, 0.5}, Indices: []int{0, 1}},
			{ID: 2, Size: 1, Proportions: []float64{1, 0}, Indices: []int{2}},
		}}
	}
	cases := []struct {
		name   string
		mutate func(s *BagSet)
		opts   Options
		want   string
	}{
		{"one class", func(s *BagSet) { s.NumClasses = 1 }, Options{Mode: ModeUniform}, "num_classes is 1, want ≥ 2"},
		{"no bags", func(s *BagSet) { s.Bags = nil }, Options{Mode: ModeUniform}, "no bags"},
		// A repeat names both places (the bag by its position and its id).
		{"duplicate id", func(s *BagSet) { s.Bags[1].ID = 1 }, Options{Mode: ModeUniform}, "bags[1]: id 1 repeats the id of bags[0]"},
		{"index in two bags", func(s *BagSet) { s.Bags[1].Indices = []int{1} }, Options{Mode: ModeUniform}, "bags[1] (id 2): instance index 1 at position 0 is also at position 1 of bags[0] (id 1)"},
		{"index twice in a bag", func(s *BagSet) { s.Bags[0].Indices = []int{0, 0} }, Options{Mode: ModeUniform}, "bags[0] (id 1): instance index 0 at position 1 is also at position 0 of bags[0] (id 1)"},
		{"size 0", func(s *BagSet) { s.Bags[1].Size = 0; s.Bags[1].Indices = nil }, Options{Mode: ModeUniform}, "bag 2: size is 0, want > 0"},
		{"wrong class count", func(s *BagSet) { s.Bags[0].Proportions = []float64{1} }, Options{Mode: ModeUniform}, "bag 1: has 1 proportions, want num_classes=2"},
		{"NaN", func(s *BagSet) { s.Bags[0].Proportions[0] = math.NaN() }, Options{Mode: ModeUniform}, "bag 1: proportion of class 0 is NaN"},
		{"negative", func(s *BagSet) { s.Bags[0].Proportions = []float64{-0.5, 1.5} }, Options{Mode: ModeUniform}, "bag 1: proportion of class 0 is -0.5, want ≥ 0"},
		{"sum", func(s *BagSet) { s.Bags[1].Proportions = []float64{0.5, 0.43} }, Options{Mode: ModeUniform}, "bag 2: proportions sum to 0.93, want 1±1e-09"},
		{"indices count", func(s *BagSet) { s.Bags[0].Indices = []int{0} }, Options{Mode: ModeUniform}, "bag 1: has 1 indices, want size=2"},
		{"negative index", func(s *BagSet) { s.Bags[1].Indices = []int{-3} }, Options{Mode: ModeUniform}, "bag 2: instance index -3, want ≥ 0"},
		{"too few bags", func(s *BagSet) { s.NumClasses = 3; s.Bags = s.Bags[:1]; s.Bags[0].Proportions = []float64{0.5, 0.5, 0} }, Options{Mode: ModeApprox}, "1 bags, want at least C=3"},
		{"too few bags merge", func(s *BagSet) { s.NumClasses = 3; s.Bags = s.Bags[:1]; s.Bags[0].Proportions = []float64{0.5, 0.5, 0} }, Options{Mode: ModeMerge}, "merge: 1 bags, want at least C=3"},
		{"no mode", func(s *BagSet) {}, Options{}, "no mode, want one of ideal, uniform, approx, merge"},
		{"bad sharpness", func(s *BagSet) {}, Options{Mode: ModeMerge, MergeSharpness: -1}, "merge sharpness is -1, want > 0"},
	}
	for _, c := range cases {
		s := good()
		c.mutate(s)
		_, err := Build(s, c.opts, rng.New(1, StreamName))
		var in *InputError
		if !assert.ErrorAsf(t, err, &in, "%s: error %v, want an *InputError", c.name, err) {
			continue
		}
		assert.ErrorContainsf(t, err, c.want, "%s: error %q, want it to contain %q", c.name, err, c.want)
	}
	// A misspelt choice is refused where it is parsed (the types cannot
	// hold one), as an InputError naming it.
	for text, parse := range map[string]func() error{
		`mode "exact": want one of ideal, uniform, approx, merge`: func() error { _, err := ParseMode("exact"); return err },
		`weights "size": want one of uniform, hm, chvol`:          func() error { _, err := ParseWeights("size"); return err },
		`compat "v2": want paper or original`:                     func() error { _, err := ParseCompat("v2"); return err },
		`compat "Paper": want paper or original`:                  func() error { var c Compat; return c.UnmarshalText([]byte("Paper")) },
	} {
		err := parse()
		var in *InputError
		assert.ErrorAs(t, err, &in, text)
		assert.EqualError(t, err, text)
	}
	_, err := Build(nil, Options{Mode: ModeUniform}, rng.New(1, "x"))
	assert.Error(t, err, "nil set: no error")
	_, err = Build(good(), Options{Mode: ModeUniform}, nil)
	assert.Error(t, err, "nil stream: no error")
	// Instances: missing indices (a repeated index is refused by Validate above).
	s := good()
	s.Bags[0].Indices = nil
	red, _ := BuildSeed(s, Options{Mode: ModeUniform}, 1)
	_, err = red.Instances()
	assert.ErrorContainsf(t, err, "bag 1: has no instance indices", "missing indices: error %v", err)
}

// absentSet is a bag set in which class 2 occurs in no bag: σ̂(2) = 0 and
// σ̂_i(2) = 0 in every group.
func absentSet() *BagSet {
	return &BagSet{NumClasses: 3, Bags: []Bag{
		{ID: 0, Size: 4, Proportions: []float64{0.75, 0.25, 0}, Indices: []int{0, 1, 2, 3}},
		{ID: 1, Size: 2, Proportions: []float64{0.5, 0.5, 0}, Indices: []int{4, 5}},
		{ID: 2, Size: 5, Proportions: []float64{0.2, 0.8, 0}, Indices: []int{6, 7, 8, 9, 10}},
	}}
}

// TestAbsentClassPolicy: σ̂_i(c) = 0 gives column c of T̂_i = e_c (policy of
// Build), T̂ column-stochastic, no NaN, the class listed in the diagnostics;
// with CompatOriginal it is an error naming the class (the original code
// divides 0/0).
func TestAbsentClassPolicy(t *testing.T) {
	for _, m := range []Mode{ModeUniform, ModeApprox, ModeMerge} {
		red, err := BuildSeed(absentSet(), Options{Mode: m}, 1)
		require.NoErrorf(t, err, "%s: %v", m, err)
		g := red.Groups[0]
		assert.Equalf(t, []int{2}, g.Diagnostics.AbsentClasses, "%s: absent classes %v, want [2]", m, g.Diagnostics.AbsentClasses)
		for c1 := 0; c1 < 3; c1++ {
			want := 0.0
			if c1 == 2 {
				want = 1
			}
			assert.Equalf(t, want, g.T.At(c1, 2), "%s: T̂(%d,2) = %g, want %g", m, c1, g.T.At(c1, 2), want)
		}
		assert.NoErrorf(t, theory.CheckColumnStochastic("T", g.T, 1e-12), "%s", m)
		assert.Truef(t, noNaN(red), "%s: NaN", m)
		_, err = BuildSeed(absentSet(), Options{Mode: m, Compat: CompatOriginal}, 1)
		if m == ModeMerge {
			assert.Errorf(t, err, "%s compat original: error %v, want class 2 absent", m, err)
		} else {
			assert.ErrorContainsf(t, err, "class 2 is absent", "%s compat original: error %v, want class 2 absent", m, err)
		}
	}
	// Ideal: σ̂(2) = 0 violates Section 5.1's σ(c) ≠ 0.
	_, err := BuildSeed(absentSet(), Options{Mode: ModeIdeal}, 1)
	assert.ErrorIsf(t, err, ErrAssumption, "ideal with an absent class: %v, want ErrAssumption", err)
}

// TestZeroRowExcluded: when approx puts α̂_i(c) = 0 on a bag, its instances
// get weight 0 (Algorithm 3) and are left out of Instances, so the
// forward-corrected loss never meets the zero row of T̂_i.
func TestZeroRowExcluded(t *testing.T) {
	set := &BagSet{NumClasses: 2, Bags: []Bag{
		{ID: 0, Size: 1, Proportions: []float64{1, 0}, Indices: []int{0}},
		{ID: 1, Size: 1, Proportions: []float64{0.9, 0.1}, Indices: []int{1}},
		{ID: 2, Size: 3, Proportions: []float64{0, 1}, Indices: []int{2, 3, 4}},
		{ID: 3, Size: 3, Proportions: []float64{0.1, 0.9}, Indices: []int{5, 6, 7}},
	}}
	// σ̂ = (0.275, 0.725). In a group {0, 1} the nearest point of the hull to
	// σ̂ is bag 1's proportions, so α̂ puts 0 on bag 0; likewise {2, 3}.
	found := false
	for seed := int64(0); seed < 40 && !found; seed++ {
		red, err := BuildSeed(set, Options{Mode: ModeApprox}, seed)
		require.NoError(t, err)
		inst, err := red.Instances()
		require.NoError(t, err)
		for i, g := range red.Groups {
			for _, c := range g.Diagnostics.ZeroRows {
				found = true
				assert.Equalf(t, 0.0, red.InstanceWeight(i, c), "zero row %d has weight %g", c, red.InstanceWeight(i, c))
				for _, in := range inst {
					assert.Falsef(t, in.Group == i && in.NoisyLabel == c, "instance %d of a zero row is in Instances", in.Index)
				}
			}
		}
		for _, in := range inst {
			assert.Truef(t, in.Weight > 0, "instance %d has weight %g", in.Index, in.Weight)
		}
	}
	require.True(t, found, "no seed produced a zero row")
}

// TestInstanceWeights: Algorithm 2's w_i/n_i, Algorithm 3's
// w_i·α̂_i(c)/|b|, and in every mode the weights of all grouped instances
// sum to Σ_i w_i Σ_c α̂_i(c) = 1 (the empirical risk is a weighted average).
func TestInstanceWeights(t *testing.T) {
	forAllSeeds(t, "instance weights", func(seed int64) (bool, error) {
		r := rng.New(seed, "iw")
		C := 2 + r.IntN(4)
		set := randomBagSet(r, C, C+r.IntN(5*C), 0.2)
		for _, m := range Modes[1:] {
			for _, ws := range []WeightScheme{WeightsUniform, WeightsHM} {
				red, err := BuildSeed(set, Options{Mode: m, Weights: ws}, seed)
				if err != nil {
					return false, err
				}
				inst, err := red.Instances()
				if err != nil {
					return false, err
				}
				total := 0.0
				for _, in := range inst {
					g := red.Groups[in.Group]
					total += in.Weight
					if m == ModeUniform {
						ni := 0
						for _, s := range g.Sizes {
							ni += s
						}
						if math.Abs(in.Weight-g.Weight/float64(ni)) > 1e-15 {
							return false, fmt.Errorf("uniform: weight %g, want w_i/n_i = %g", in.Weight, g.Weight/float64(ni))
						}
					}
					want := g.Weight * g.Alpha[in.NoisyLabel] / float64(g.Sizes[in.NoisyLabel])
					if math.Abs(in.Weight-want) > 1e-15 {
						return false, fmt.Errorf("%s: weight %g, want w α/|b| = %g", m, in.Weight, want)
					}
				}
				if math.Abs(total-1) > 1e-9 {
					return false, fmt.Errorf("%s/%s: weights sum to %.12g, want 1", m, ws, total)
				}
			}
		}
		return true, nil
	})
}

// TestHMWeights: w_i = HM_i/Σ HM (computed here from the sizes directly) and
// the generalization term √(Σ_i Σ_c w_i²/n_ic) of Theorem `thm: geb` is no
// larger with hm weights than with uniform ones.
func TestHMWeights(t *testing.T) {
	set := randomBagSet(rng.New(9, "hm"), 3, 30, 0)
	hm, err := BuildSeed(set, Options{Mode: ModeUniform, Weights: WeightsHM}, 4)
	require.NoError(t, err)
	un, _ := BuildSeed(set, Options{Mode: ModeUniform}, 4)
	sum := 0.0
	h := make([]float64, len(hm.Groups))
	for i, g := range hm.Groups {
		inv := 0.0
		for _, s := range g.Sizes {
			inv += 1 / float64(s)
		}
		h[i] = 3 / inv
		sum += h[i]
	}
	term := func(red *Reduction) float64 {
		s := 0.0
		for _, g := range red.Groups {
			for _, n := range g.Sizes {
				s += g.Weight * g.Weight / float64(n)
			}
		}
		return math.Sqrt(s)
	}
	for i, g := range hm.Groups {
		assert.InDeltaf(t, h[i]/sum, g.Weight, 1e-14, "group %d: weight %g, want HM/ΣHM = %g", i, g.Weight, h[i]/sum)
	}
	assert.LessOrEqualf(t, term(hm), term(un)+1e-15, "hm term %g > uniform term %g", term(hm), term(un))
}

// TestHullVolume checks the `chvol` volume √C|det Γ|/(C−1)! against
// independent formulas: the Gram determinant √det(DᵀD)/(C−1)! of the edge
// vectors D = [γ_c − γ_0], Heron's formula for C = 3 and the segment length
// for C = 2.
func TestHullVolume(t *testing.T) {
	r := rng.New(2, "vol")
	for trial := 0; trial < 50; trial++ {
		C := 2 + r.IntN(5)
		set := randomBagSet(r, C, C, 0)
		G := mat.NewDense(C, C, nil)
		for c := 0; c < C; c++ {
			G.SetRow(c, set.Bags[c].Proportions)
		}
		D := mat.NewDense(C, C-1, nil)
		for k := 1; k < C; k++ {
			for j := 0; j < C; j++ {
				D.Set(j, k-1, G.At(k, j)-G.At(0, j))
			}
		}
		var gram mat.Dense
		gram.Mul(D.T(), D)
		want := math.Sqrt(math.Max(mat.Det(&gram), 0))
		for k := 2; k < C; k++ {
			want /= float64(k)
		}
		vol := HullVolume(G)
		assert.InDeltaf(t, want, vol, 1e-12, "C=%d: volume %g, Gram formula %g", C, vol, want)
		dist := func(a, b int) float64 {
			s := 0.0
			for j := 0; j < C; j++ {
				s += (G.At(a, j) - G.At(b, j)) * (G.At(a, j) - G.At(b, j))
			}
			return math.Sqrt(s)
		}
		switch C {
		case 2:
			assert.InDeltaf(t, dist(0, 1), vol, 1e-12, "C=2: %g, segment length %g", vol, dist(0, 1))
		case 3:
			a, b, c := dist(0, 1), dist(1, 2), dist(0, 2)
			s := (a + b + c) / 2
			heron := math.Sqrt(math.Max(s*(s-a)*(s-b)*(s-c), 0))
			assert.InDeltaf(t, heron, vol, 1e-10, "C=3: %g, Heron %g", vol, heron)
		}
	}
}

// TestGeneralizationTerm: for equal bag sizes b, uniform weights and
// uniform mode (α = 1/C), √(Σ_i w_i² Σ_c α(c)²/n) = 1/√(NCb) exactly; and
// in general it equals the sum computed here.
func TestGeneralizationTerm(t *testing.T) {
	const C, N, b = 4, 6, 10
	set := &BagSet{NumClasses: C}
	r := rng.New(4, "gt")
	for k := 0; k < N*C; k++ {
		p := make([]float64, C)
		for j := 0; j < b; j++ {
			p[r.IntN(C)] += 1.0 / b
		}
		s := 0.0
		for _, v := range p {
			s += v
		}
		for j := range p {
			p[j] /= s
		}
		set.Bags = append(set.Bags, Bag{ID: k, Size: b, Proportions: p})
	}
	red, err := BuildSeed(set, Options{Mode: ModeUniform}, 1)
	require.NoError(t, err)
	want := 1 / math.Sqrt(N*C*b)
	assert.InDeltaf(t, want, red.GeneralizationTerm, 1e-15, "term %g, want 1/√(NCb) = %g", red.GeneralizationTerm, want)
	red, _ = BuildSeed(set, Options{Mode: ModeApprox, Weights: WeightsHM}, 1)
	s := 0.0
	for _, g := range red.Groups {
		for c, a := range g.Alpha {
			s += g.Weight * g.Weight * a * a / float64(g.Sizes[c])
		}
	}
	assert.InDeltaf(t, math.Sqrt(s), red.GeneralizationTerm, 1e-15, "approx: term %g, direct %g", red.GeneralizationTerm, math.Sqrt(s))
}

// TestDiagnostics: on a hand-checked group, the diagnostics match direct
// computations: identity Γ gives T̂ = I, rank C, condition 1, ‖T̂⁻¹‖₁ = 1,
// calibration factor √2, |λ|₀ = 0 (rows of I sum to 1 = C·(1/C)), the
// Assumption holds; a rank-1 Γ (all bags equal) is reported singular.
func TestDiagnostics(t *testing.T) {
	set := &BagSet{NumClasses: 3, Bags: []Bag{
		{ID: 0, Size: 5, Proportions: []float64{1, 0, 0}},
		{ID: 1, Size: 3, Proportions: []float64{0, 1, 0}},
		{ID: 2, Size: 2, Proportions: []float64{0, 0, 1}},
	}}
	red, err := BuildSeed(set, Options{Mode: ModeUniform}, 1)
	require.NoError(t, err)
	d := red.Groups[0].Diagnostics
	// Rows follow the random order of the partition, so T̂ = Γ̂ is a
	// permutation matrix.
	assert.Truef(t, matClose(red.Groups[0].T, red.Groups[0].Gamma, 1e-15), "T̂ = %v, want Γ̂ (a permutation)", mat.Formatted(red.Groups[0].T))
	assert.Equalf(t, 3, d.RankGamma, "diagnostics %+v", d)
	assert.Equalf(t, 3, d.RankT, "diagnostics %+v", d)
	assert.InDeltaf(t, 1, d.CondT, 1e-12, "diagnostics %+v", d)
	assert.InDeltaf(t, 1, d.InvNorm1T, 1e-12, "diagnostics %+v", d)
	assert.InDeltaf(t, math.Sqrt2, d.CalibrationFactor, 1e-12, "diagnostics %+v", d)
	assert.InDeltaf(t, math.Log(3), d.Lambda0, 1e-12, "diagnostics %+v", d)
	assert.Truef(t, d.AssumptionHolds, "diagnostics %+v", d)
	same := &BagSet{NumClasses: 3, Bags: []Bag{
		{ID: 0, Size: 5, Proportions: []float64{0.5, 0.25, 0.25}},
		{ID: 1, Size: 3, Proportions: []float64{0.5, 0.25, 0.25}},
		{ID: 2, Size: 2, Proportions: []float64{0.5, 0.25, 0.25}},
	}}
	red, err = BuildSeed(same, Options{Mode: ModeApprox}, 1)
	require.NoError(t, err)
	d = red.Groups[0].Diagnostics
	assert.Equalf(t, 1, d.RankGamma, "rank-1 group diagnostics %+v", d)
	assert.Equalf(t, 1, d.RankT, "rank-1 group diagnostics %+v", d)
	assert.Truef(t, math.IsInf(d.InvNorm1T, 1), "rank-1 group diagnostics %+v", d)
	assert.Falsef(t, !math.IsInf(d.CondGamma, 1) && d.CondGamma < 1e15, "rank-1 group diagnostics %+v", d)
	assert.Falsef(t, d.AssumptionHolds, "rank-1 group diagnostics %+v", d)
	assert.NoError(t, theory.CheckColumnStochastic("T", red.Groups[0].T, 1e-12))
}

// TestMergeAssumptionHolds: in the paper-faithful merge, mega-bag
// proportions are size-weighted and α = |mega|/n, so Γᵀα = σ̂ exactly, α is
// in the open simplex, and the Assumption holds whenever Γ is invertible.
func TestMergeAssumptionHolds(t *testing.T) {
	forAllSeeds(t, "merge Γᵀα = σ̂", func(seed int64) (bool, error) {
		r := rng.New(seed, "merge")
		C := 2 + r.IntN(5)
		set := randomBagSet(r, C, C+r.IntN(8*C), 0.1)
		red, err := BuildSeed(set, Options{Mode: ModeMerge}, seed)
		if err != nil {
			return false, err
		}
		g := red.Groups[0]
		if g.Diagnostics.Residual > 1e-12 {
			return false, fmt.Errorf("residual %g", g.Diagnostics.Residual)
		}
		if err := theory.CheckInteriorSimplex("alpha", g.Alpha, 1e-12); err != nil {
			return false, err
		}
		n := 0
		for c, m := range g.Members {
			if len(m) == 0 {
				return false, fmt.Errorf("mega-bag %d empty", c)
			}
			n += len(m)
		}
		if n != len(set.Bags) || len(red.Leftover) != 0 {
			return false, fmt.Errorf("merge used %d of %d bags", n, len(set.Bags))
		}
		ok := true
		for _, s := range red.SigmaHat {
			ok = ok && s > 0
		}
		if ok && g.Diagnostics.CondGamma < 1e8 && !g.Diagnostics.AssumptionHolds {
			return false, fmt.Errorf("well-conditioned merge but Assumption fails")
		}
		return true, nil
	})
}

// ---- Paper vs original code (PAPER_MAP.md) ----

// compatSet: 3 bags of sizes 10, 20, 30 forming one group.
func compatSet() *BagSet {
	return &BagSet{NumClasses: 3, Bags: []Bag{
		{ID: 0, Size: 10, Proportions: []float64{0.6, 0.3, 0.1}},
		{ID: 1, Size: 20, Proportions: []float64{0.2, 0.6, 0.2}},
		{ID: 2, Size: 30, Proportions: []float64{0.1, 0.2, 0.7}},
	}}
}

// TestCompatUniformAlpha: Algorithm 2 line 6 sets α̂(c) = |b|/n_i = (1/6,
// 1/3, 1/2) here; the original code (make_a_group, 'uniform') sets 1/C,
// which changes σ̂_i and T̂.
func TestCompatUniformAlpha(t *testing.T) {
	p, err := BuildSeed(compatSet(), Options{Mode: ModeUniform}, 1)
	require.NoError(t, err)
	o, err := BuildSeed(compatSet(), Options{Mode: ModeUniform, Compat: CompatOriginal}, 1)
	require.NoError(t, err)
	for row, k := range p.Groups[0].Bags {
		want := float64(compatSet().Bags[k].Size) / 60
		assert.InDeltaf(t, want, p.Groups[0].Alpha[row], 1e-15, "paper α̂ row %d = %g, want |b|/n = %g", row, p.Groups[0].Alpha[row], want)
		assert.Equalf(t, 1.0/3, o.Groups[0].Alpha[row], "original α̂ row %d = %g, want 1/3", row, o.Groups[0].Alpha[row])
	}
	assert.False(t, matClose(p.Groups[0].T, o.Groups[0].T, 1e-3), "paper and original T̂ coincide; the difference should show")
}

// TestCompatInstanceWeights: Algorithm 3's weight w_i·α̂(c)/|b| vs the
// authors' at 1d0cbc5 (make_groups_forward: α̂(c)/(|b_c|/n_i) normalised over
// the group's classes). The ratio of two classes' weights is the same —
// both are ∝ α̂(c)/|b_c| within a group — but the group's total differs:
// Σ_c |b_c|·weight is w_i in the paper and w_i·n_i·(Σ_c α̂(c))/… in theirs.
func TestCompatInstanceWeights(t *testing.T) {
	set := compatSet()
	set.Bags = append(set.Bags,
		Bag{ID: 3, Size: 40, Proportions: []float64{0.5, 0.25, 0.25}},
		Bag{ID: 4, Size: 4, Proportions: []float64{0.25, 0.5, 0.25}},
		Bag{ID: 5, Size: 6, Proportions: []float64{0.5, 0, 0.5}})
	groups := [][]int{{0, 1, 2}, {3, 4, 5}}
	p, err := BuildPartition(set, Options{Mode: ModeUniform}, groups)
	require.NoError(t, err)
	o, err := BuildPartition(set, Options{Mode: ModeUniform, Compat: CompatOriginal}, groups)
	require.NoError(t, err)
	for i, g := range p.Groups {
		for c := 0; c < 3; c++ {
			wantP := 0.5 / float64(60*(1-i)+50*i)
			assert.InDeltaf(t, wantP, p.InstanceWeight(i, c), 1e-15, "paper weight (%d,%d) %g, want w/n_i = %g", i, c, p.InstanceWeight(i, c), wantP)
			// α̂ = 1/C: weight = (1/|b_c|)/Σ 1/|b_c'| · w_i.
			z := 0.0
			for _, s := range g.Sizes {
				z += 1 / float64(s)
			}
			want := 0.5 / float64(g.Sizes[c]) / z
			assert.InDeltaf(t, want, o.InstanceWeight(i, c), 1e-15, "original weight (%d,%d) %g, want (1/|b_c|)/Σ(1/|b|)·w = %g", i, c, o.InstanceWeight(i, c), want)
		}
	}
	// Per instance, the paper weighs group 0 (n=60) above group 1 (n=50)
	// by 5/6; the authors' weights give another ratio.
	rp := p.InstanceWeight(0, 0) / p.InstanceWeight(1, 0)
	ro := o.InstanceWeight(0, 0) / o.InstanceWeight(1, 0)
	assert.GreaterOrEqualf(t, math.Abs(rp-ro), 1e-3, "group ratio paper %g, original %g: the difference should show", rp, ro)
}

// TestCompatApproxUntransposed: the authors fit Γ̂α to σ̂ (make_groups.py:48
// with approx_noisy_prior's transpose, line 32); Algorithm 3 fits Γ̂ᵀα. On
// the paper's own counterexample (PAPER_MAP Findings) the minimisers differ:
// (1/2, 1/2) for Γ̂ᵀ, (3/4, 1/4) for Γ̂.
func TestCompatApproxUntransposed(t *testing.T) {
	set := &BagSet{NumClasses: 2, Bags: []Bag{
		{ID: 0, Size: 4, Proportions: []float64{1, 0}},
		{ID: 1, Size: 4, Proportions: []float64{0.5, 0.5}},
		{ID: 2, Size: 8, Proportions: []float64{0.75, 0.25}}, // leftover; σ̂ = (0.75, 0.25)
	}}
	for _, tc := range []struct {
		compat Compat
		want   []float64
	}{{CompatPaper, []float64{0.5, 0.5}}, {CompatOriginal, []float64{0.75, 0.25}}} {
		red, err := BuildPartition(set, Options{Mode: ModeApprox, Compat: tc.compat}, [][]int{{0, 1}})
		require.NoError(t, err)
		a := red.Groups[0].Alpha
		assert.InDeltaf(t, tc.want[0], a[0], 1e-12, "%s: α̂ = %v, want %v", tc.compat, a, tc.want)
		assert.InDeltaf(t, tc.want[1], a[1], 1e-12, "%s: α̂ = %v, want %v", tc.compat, a, tc.want)
	}
}

// TestCompatMerge: with CompatOriginal merge_bags sets α = Γ^{-tr}σ̂; with
// size-weighted mega-bag proportions (both modes, as at 1d0cbc5) that is
// |mega|/n, the paper-faithful value, up to rounding; every instance weighs 1.
func TestCompatMerge(t *testing.T) {
	set := &BagSet{NumClasses: 2, Bags: []Bag{
		{ID: 0, Size: 10, Proportions: []float64{0.9, 0.1}},
		{ID: 1, Size: 90, Proportions: []float64{0.3, 0.7}},
		{ID: 2, Size: 10, Proportions: []float64{0.8, 0.2}},
	}}
	mega := []int{0, 1, 0}
	p, err := BuildMerged(set, Options{Mode: ModeMerge}, mega)
	require.NoError(t, err)
	o, err := BuildMerged(set, Options{Mode: ModeMerge, Compat: CompatOriginal}, mega)
	require.NoError(t, err)
	// mega 0 = bags {0, 2}: (10·0.9+10·0.8)/20 = 0.85; mega 1 = bag 1.
	assert.InDeltaf(t, 0.85, p.Groups[0].Gamma.At(0, 0), 1e-15, "mega-bag 0 proportion %g, want 0.85", p.Groups[0].Gamma.At(0, 0))
	for _, red := range []*Reduction{p, o} {
		a := red.Groups[0].Alpha
		assert.InDeltaf(t, 20.0/110, a[0], 1e-12, "%s: α = %v, want (20/110, 90/110)", red.Options.Compat, a)
		assert.InDeltaf(t, 90.0/110, a[1], 1e-12, "%s: α = %v, want (20/110, 90/110)", red.Options.Compat, a)
	}
	assert.Equalf(t, 1.0, o.InstanceWeight(0, 0), "original merge weights %g, %g, want 1 (np.ones)", o.InstanceWeight(0, 0), o.InstanceWeight(0, 1))
	assert.Equalf(t, 1.0, o.InstanceWeight(0, 1), "original merge weights %g, %g, want 1 (np.ones)", o.InstanceWeight(0, 0), o.InstanceWeight(0, 1))
}

// TestMergeAssignmentSeeds: as merge_bags at 1d0cbc5 (make_groups.py:83-88),
// C distinct random bags seed the C mega-bags, so no mega-bag is empty even
// when one bag is the largest in two classes (which emptied a mega-bag in
// the authors' earlier argmax seeding), and every seed-bag choice occurs.
func TestMergeAssignmentSeeds(t *testing.T) {
	set := &BagSet{NumClasses: 3, Bags: []Bag{
		{ID: 0, Size: 5, Proportions: []float64{0.5, 0.5, 0}},
		{ID: 1, Size: 5, Proportions: []float64{0, 0.2, 0.8}},
		{ID: 2, Size: 5, Proportions: []float64{0, 0.4, 0.6}},
	}}
	seen := map[[3]int]bool{}
	for seed := int64(0); seed < 200; seed++ {
		red, err := BuildSeed(set, Options{Mode: ModeMerge}, seed)
		require.NoError(t, err)
		var key [3]int
		for c, m := range red.Groups[0].Members {
			require.Lenf(t, m, 1, "seed %d: mega-bag %d has %d bags, want 1", seed, c, len(m))
			key[c] = m[0]
		}
		seen[key] = true
	}
	assert.Lenf(t, seen, 6, "%d of the 3! seedings occur in 200 draws, want all 6", len(seen))
}

// TestCompatRefusesWhatTheAuthorsLack: the authors' code at 1d0cbc5 has no
// ideal mode and raises InvalidChoiceOfWeights for anything but uniform group
// weights; CompatOriginal refuses the same combinations, naming the file.
func TestCompatRefusesWhatTheAuthorsLack(t *testing.T) {
	for _, opts := range []Options{
		{Mode: ModeIdeal, Compat: CompatOriginal},
		{Mode: ModeUniform, Weights: WeightsCHVol, Compat: CompatOriginal},
		{Mode: ModeApprox, Weights: WeightsHM, Compat: CompatOriginal},
	} {
		_, err := BuildSeed(compatSet(), opts, 1)
		var in *InputError
		if assert.ErrorAsf(t, err, &in, "%+v: error %v, want an input error citing make_groups.py", opts, err) {
			assert.ErrorContainsf(t, err, "make_groups.py", "%+v: error %v, want an input error citing make_groups.py", opts, err)
		}
	}
}

// TestBuildRound: round 0 is BuildSeed; each round is reproducible on its
// own; rounds differ; a negative round is an input error; the accessors
// return the groups' T̂ and w.
func TestBuildRound(t *testing.T) {
	set := randomBagSet(rng.New(6, "round"), 3, 20, 0)
	opts := Options{Mode: ModeApprox}
	r0, err := BuildRound(set, opts, 9, 0)
	require.NoError(t, err)
	s0, _ := BuildSeed(set, opts, 9)
	assert.Equal(t, s0.JSON(), r0.JSON(), "round 0 differs from BuildSeed")
	a, _ := BuildRound(set, opts, 9, 3)
	b, _ := BuildRound(set, opts, 9, 3)
	assert.Equal(t, a.JSON(), b.JSON(), "round 3 not reproducible")
	assert.NotEqual(t, r0.JSON(), a.JSON(), "rounds 0 and 3 give the same groups")
	_, err = BuildRound(set, opts, 9, -1)
	assert.Error(t, err, "round -1 accepted")
	Ts, w := a.TransitionMatrices(), a.Weights()
	for i, g := range a.Groups {
		assert.Samef(t, g.T, Ts[i], "group %d: accessors disagree with the group", i)
		assert.Equalf(t, g.Weight, w[i], "group %d: accessors disagree with the group", i)
	}
}

// TestInstanceArrays: the array view agrees with Instances, marks leftover
// instances with −1, and rejects indices beyond the data set.
func TestInstanceArrays(t *testing.T) {
	set := randomBagSet(rng.New(2, "arrays"), 3, 10, 0) // 3 groups, 1 leftover
	red, err := BuildSeed(set, Options{Mode: ModeUniform}, 2)
	require.NoError(t, err)
	total := 0
	for _, b := range set.Bags {
		total += b.Size
	}
	noisy, group, weight, err := red.InstanceArrays(total)
	require.NoError(t, err)
	inst, _ := red.Instances()
	for _, in := range inst {
		assert.Equalf(t, in.NoisyLabel, noisy[in.Index], "instance %d disagrees", in.Index)
		assert.Equalf(t, in.Group, group[in.Index], "instance %d disagrees", in.Index)
		assert.Equalf(t, in.Weight, weight[in.Index], "instance %d disagrees", in.Index)
	}
	for _, ix := range set.Bags[red.Leftover[0]].Indices {
		assert.Equalf(t, -1, noisy[ix], "leftover instance %d: (%d, %d, %g), want (−1, −1, 0)", ix, noisy[ix], group[ix], weight[ix])
		assert.Equalf(t, -1, group[ix], "leftover instance %d: (%d, %d, %g), want (−1, −1, 0)", ix, noisy[ix], group[ix], weight[ix])
		assert.Equalf(t, 0.0, weight[ix], "leftover instance %d: (%d, %d, %g), want (−1, −1, 0)", ix, noisy[ix], group[ix], weight[ix])
	}
	assert.Equalf(t, total, len(inst)+set.Bags[red.Leftover[0]].Size, "%d grouped + %d leftover instances, want %d", len(inst), set.Bags[red.Leftover[0]].Size, total)
	_, _, _, err = red.InstanceArrays(3)
	assert.ErrorContainsf(t, err, "want < 3", "small n: error %v", err)
}

// TestFindingAbsentClassInGroup (PAPER_MAP.md, Findings, "Section 5", Finding 2): a
// class present in the data set can be absent from one group. C = 2, bags
// (1,0), (1,0), (0,1), (0.5,0.5): σ̂(1) > 0, but a group of the two (1,0) bags
// has σ̂_i = (1, 0) in Algorithms 2 and 3, where line 9 divides by 0. Our T̂_i
// has column 1 = e_1 and stays column-stochastic.
func TestFindingAbsentClassInGroup(t *testing.T) {
	set := &BagSet{NumClasses: 2, Bags: []Bag{
		{ID: 0, Size: 2, Proportions: []float64{1, 0}},
		{ID: 1, Size: 3, Proportions: []float64{1, 0}},
		{ID: 2, Size: 2, Proportions: []float64{0, 1}},
		{ID: 3, Size: 2, Proportions: []float64{0.5, 0.5}},
	}}
	for _, m := range []Mode{ModeUniform, ModeApprox} {
		seen := false
		for seed := int64(0); seed < 40 && !seen; seed++ {
			red, err := BuildSeed(set, Options{Mode: m}, seed)
			require.NoError(t, err)
			for _, g := range red.Groups {
				if set.Bags[g.Bags[0]].Proportions[1] != 0 || set.Bags[g.Bags[1]].Proportions[1] != 0 {
					continue
				}
				seen = true
				assert.Equalf(t, 1.0, g.Sigma[0], "%s: σ̂_i = %v, want (1, 0)", m, g.Sigma)
				assert.Equalf(t, 0.0, g.Sigma[1], "%s: σ̂_i = %v, want (1, 0)", m, g.Sigma)
				assert.Equalf(t, 0.0, g.T.At(0, 1), "%s: T̂ = %v, absent %v; want column 1 = e_1", m, mat.Formatted(g.T), g.Diagnostics.AbsentClasses)
				assert.Equalf(t, 1.0, g.T.At(1, 1), "%s: T̂ = %v, absent %v; want column 1 = e_1", m, mat.Formatted(g.T), g.Diagnostics.AbsentClasses)
				assert.Equalf(t, []int{1}, g.Diagnostics.AbsentClasses, "%s: T̂ = %v, absent %v; want column 1 = e_1", m, mat.Formatted(g.T), g.Diagnostics.AbsentClasses)
				assert.NoError(t, theory.CheckColumnStochastic("T", g.T, 1e-15))
			}
		}
		require.Truef(t, seen, "%s: no seed grouped the two (1,0) bags", m)
	}
}
