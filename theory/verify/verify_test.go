package verify

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// uniform01 draws x ∈ [0,1).
var uniform01 = Gen(func(r *rand.Rand, _ int) any { return r.Float64() })

func TestForAllPassesTrueBoundAndReportsWorstRatio(t *testing.T) {
	// x² ≤ x on [0,1): ratio x, whose supremum over 500 draws is close to 1.
	o := ForAll(Config{Cases: 500, Seed: 1}, "sq", Bound, uniform01, func(v any) Case {
		x := v.(float64)
		return Case{LHS: x * x, RHS: x, OK: x*x <= x}
	})
	require.Falsef(t, o.Failed, "got %+v, want 500 passing cases", o)
	require.Equalf(t, 500, o.Cases, "got %+v, want 500 passing cases", o)
	assert.Truef(t, o.WorstRatio > 0.99 && o.WorstRatio < 1, "worst ratio %v, want the largest x drawn, in (0.99, 1)", o.WorstRatio)
}

func TestForAllFailsFalseClaimWithReplayableCounterexample(t *testing.T) {
	// x ≤ 0.9 is false for about one draw in ten.
	check := func(v any) Case {
		x := v.(float64)
		return Case{LHS: x, RHS: 0.9, OK: x <= 0.9, Detail: "x"}
	}
	a := ForAll(Config{Cases: 500, Seed: 7}, "le", Bound, uniform01, check)
	b := ForAll(Config{Cases: 500, Seed: 7}, "le", Bound, uniform01, check)
	require.True(t, a.Failed, "a false claim passed")
	assert.Equal(t, a.Counterexample, b.Counterexample, "same seed gave different failures")
	assert.Equal(t, a.Cases, b.Cases, "same seed gave different failures")
	assert.Contains(t, a.Counterexample, "stream seed", "the counterexample does not name the stream seed")
	c := ForAll(Config{Cases: 500, Seed: 8}, "le", Bound, uniform01, check)
	assert.NotEqual(t, a.Counterexample, c.Counterexample, "different seeds gave the same counterexample")
}

func TestIdentityWorstRatioIsFarthestFromOne(t *testing.T) {
	vals := []float64{1.01, 0.97, 1.02}
	i := 0
	o := ForAll(Config{Cases: 3, Seed: 1}, "id", Identity, uniform01, func(any) Case {
		r := vals[i%len(vals)]
		i++
		return Case{LHS: r, RHS: 1, OK: true}
	})
	assert.Equal(t, 0.97, o.WorstRatio, "worst ratio: want 0.97 (farthest from 1)")
}

func TestMerge(t *testing.T) {
	m := Merge(Bound, Outcome{Cases: 2, WorstRatio: 0.5}, Outcome{Cases: 3, WorstRatio: math.NaN()},
		Outcome{Cases: 4, WorstRatio: 0.8, Failed: true, Counterexample: "b"}, Outcome{Cases: 1, WorstRatio: 0.9, Failed: true, Counterexample: "c"})
	msg := "want 10 cases, worst 0.9, failed with the first counterexample b"
	assert.Equal(t, 10, m.Cases, msg)
	assert.Equal(t, 0.9, m.WorstRatio, msg)
	assert.True(t, m.Failed, msg)
	assert.Equal(t, "b", m.Counterexample, msg)
	id := Merge(Identity, Outcome{WorstRatio: 1.1}, Outcome{WorstRatio: 0.8})
	assert.Equal(t, 0.8, id.WorstRatio, "identity merge worst")
}

func TestRunStatuses(t *testing.T) {
	pass := func(Config) Outcome { return Outcome{Cases: 5, WorstRatio: 0.5} }
	fail := func(Config) Outcome { return Outcome{Cases: 5, Failed: true, Counterexample: "x"} }
	cases := []struct {
		c           Claim
		status, neg string
	}{
		{Claim{Label: "a", Check: pass, Negative: fail}, "pass", "caught"},
		{Claim{Label: "b", Check: pass, Negative: pass}, "pass", "missed"},
		{Claim{Label: "c", Check: pass}, "pass", "none"},
		{Claim{Label: "d", Check: fail, Negative: fail}, "fail", "caught"},
	}
	for _, tc := range cases {
		r := Run(tc.c, Config{Cases: 5})
		assert.Equalf(t, tc.status, r.Status, "%s: status", tc.c.Label)
		assert.Equalf(t, tc.neg, r.NegativeControl, "%s: negative control", tc.c.Label)
	}
}

func TestStreamSeedDependsOnMasterAndName(t *testing.T) {
	assert.NotEqual(t, StreamSeed(1, "a"), StreamSeed(1, "b"), "stream seeds collide")
	assert.NotEqual(t, StreamSeed(1, "a"), StreamSeed(2, "a"), "stream seeds collide")
	assert.Equal(t, StreamSeed(1, "a"), StreamSeed(1, "a"), "stream seed not deterministic")
	assert.GreaterOrEqual(t, StreamSeed(3, "x"), int64(0), "stream seed negative")
}

// sqBound checks x² ≤ k·x on [0,1): tight (ratio → 1) for k = 1, loosened
// (ratio → 1/k) for k > 1 — the kind of bug a floor must catch.
func sqBound(name string, k float64) func(Config) Outcome {
	return func(cfg Config) Outcome {
		return ForAll(cfg, name, Bound, uniform01, func(v any) Case {
			x := v.(float64)
			return Case{LHS: x * x, RHS: k * x, OK: x*x <= k*x}
		})
	}
}

func TestRunFailsALoosenedBoundBelowItsFloor(t *testing.T) {
	cfg := Config{Cases: DefaultCases, Seed: 1}
	tight := Claim{Label: "t", Check: sqBound("sq", 1), RatioFloor: 0.99, Negative: sqBound("sq", 2), NegativeName: "2x"}
	r := Run(tight, cfg)
	require.Equalf(t, "pass", r.Status, "tight bound: %+v", r)
	require.Equalf(t, Theorem, r.Kind, "tight bound: %+v", r)
	require.Equalf(t, 0.99, r.RatioFloor, "tight bound: %+v", r)
	assert.Equalf(t, "caught", r.NegativeControl, "the loosened control (RHS 2x) was not caught by the floor: %+v", r)
	assert.Containsf(t, r.NegativeDetail, "below floor", "the loosened control (RHS 2x) was not caught by the floor: %+v", r)
	loose := Claim{Label: "l", Check: sqBound("sq", 2), RatioFloor: 0.99}
	r = Run(loose, cfg)
	assert.Equalf(t, "fail", r.Status, "a bound loosened by 2 passed its floor: %+v", r)
	assert.Lenf(t, r.BelowFloor, 1, "a bound loosened by 2 passed its floor: %+v", r)
	// Below DefaultCases the floors are not checked (they are calibrated there).
	r = Run(loose, Config{Cases: 10, Seed: 1})
	assert.Equalf(t, "pass", r.Status, "floor checked at 10 cases: %+v", r)
}

func TestRunChecksEachMergedPartAgainstItsOwnFloor(t *testing.T) {
	// A tight part must not hide a loosened one (thm:inv.cali once kept
	// only the maximum ratio over its parts).
	c := Claim{Label: "m", RatioFloor: 0.99, Check: func(cfg Config) Outcome {
		return Merge(Bound, sqBound("a", 1)(cfg), sqBound("b", 1.5)(cfg))
	}}
	r := Run(c, Config{Cases: DefaultCases, Seed: 1})
	assert.Equalf(t, "fail", r.Status, "merged claim with a loose part: %+v", r)
	if assert.Lenf(t, r.BelowFloor, 1, "merged claim with a loose part: %+v", r) {
		assert.Equalf(t, "b", r.BelowFloor[0], "merged claim with a loose part: %+v", r)
	}
	assert.Lenf(t, r.Parts, 2, "merged claim with a loose part: %+v", r)
	c.PartFloors = map[string]float64{"b": 0.6}
	r = Run(c, Config{Cases: DefaultCases, Seed: 1})
	assert.Equalf(t, "pass", r.Status, "part floor 0.6 for the part reaching 1/1.5: %+v", r)
}
