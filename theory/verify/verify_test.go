package verify

import (
	"math"
	"math/rand"
	"strings"
	"testing"
)

// uniform01 draws x ∈ [0,1).
var uniform01 = Gen(func(r *rand.Rand, _ int) any { return r.Float64() })

func TestForAllPassesTrueBoundAndReportsWorstRatio(t *testing.T) {
	// x² ≤ x on [0,1): ratio x, whose supremum over 500 draws is close to 1.
	o := ForAll(Config{Cases: 500, Seed: 1}, "sq", Bound, uniform01, func(v any) Case {
		x := v.(float64)
		return Case{LHS: x * x, RHS: x, OK: x*x <= x}
	})
	if o.Failed || o.Cases != 500 {
		t.Fatalf("got %+v, want 500 passing cases", o)
	}
	if !(o.WorstRatio > 0.99 && o.WorstRatio < 1) {
		t.Errorf("worst ratio %v, want the largest x drawn, in (0.99, 1)", o.WorstRatio)
	}
}

func TestForAllFailsFalseClaimWithReplayableCounterexample(t *testing.T) {
	// x ≤ 0.9 is false for about one draw in ten.
	check := func(v any) Case {
		x := v.(float64)
		return Case{LHS: x, RHS: 0.9, OK: x <= 0.9, Detail: "x"}
	}
	a := ForAll(Config{Cases: 500, Seed: 7}, "le", Bound, uniform01, check)
	b := ForAll(Config{Cases: 500, Seed: 7}, "le", Bound, uniform01, check)
	if !a.Failed {
		t.Fatal("a false claim passed")
	}
	if a.Counterexample != b.Counterexample || a.Cases != b.Cases {
		t.Errorf("same seed gave different failures: %q vs %q", a.Counterexample, b.Counterexample)
	}
	if want := "stream seed"; !strings.Contains(a.Counterexample, want) {
		t.Errorf("counterexample %q does not name the %s", a.Counterexample, want)
	}
	c := ForAll(Config{Cases: 500, Seed: 8}, "le", Bound, uniform01, check)
	if c.Counterexample == a.Counterexample {
		t.Error("different seeds gave the same counterexample")
	}
}

func TestIdentityWorstRatioIsFarthestFromOne(t *testing.T) {
	vals := []float64{1.01, 0.97, 1.02}
	i := 0
	o := ForAll(Config{Cases: 3, Seed: 1}, "id", Identity, uniform01, func(any) Case {
		r := vals[i%len(vals)]
		i++
		return Case{LHS: r, RHS: 1, OK: true}
	})
	if o.WorstRatio != 0.97 {
		t.Errorf("worst ratio %v, want 0.97 (farthest from 1)", o.WorstRatio)
	}
}

func TestMerge(t *testing.T) {
	m := Merge(Bound, Outcome{Cases: 2, WorstRatio: 0.5}, Outcome{Cases: 3, WorstRatio: math.NaN()},
		Outcome{Cases: 4, WorstRatio: 0.8, Failed: true, Counterexample: "b"}, Outcome{Cases: 1, WorstRatio: 0.9, Failed: true, Counterexample: "c"})
	if m.Cases != 10 || m.WorstRatio != 0.9 || !m.Failed || m.Counterexample != "b" {
		t.Errorf("got %+v, want 10 cases, worst 0.9, failed with the first counterexample b", m)
	}
	id := Merge(Identity, Outcome{WorstRatio: 1.1}, Outcome{WorstRatio: 0.8})
	if id.WorstRatio != 0.8 {
		t.Errorf("identity merge worst %v, want 0.8", id.WorstRatio)
	}
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
		if r.Status != tc.status || r.NegativeControl != tc.neg {
			t.Errorf("%s: status %s, negative control %s; want %s, %s", tc.c.Label, r.Status, r.NegativeControl, tc.status, tc.neg)
		}
	}
}

func TestStreamSeedDependsOnMasterAndName(t *testing.T) {
	if StreamSeed(1, "a") == StreamSeed(1, "b") || StreamSeed(1, "a") == StreamSeed(2, "a") {
		t.Error("stream seeds collide")
	}
	if StreamSeed(1, "a") != StreamSeed(1, "a") || StreamSeed(3, "x") < 0 {
		t.Error("stream seed not deterministic or negative")
	}
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
	if r.Status != "pass" || r.Kind != Theorem || r.RatioFloor != 0.99 {
		t.Fatalf("tight bound: %+v", r)
	}
	if r.NegativeControl != "caught" || !strings.Contains(r.NegativeDetail, "below floor") {
		t.Errorf("the loosened control (RHS 2x) was not caught by the floor: %+v", r)
	}
	loose := Claim{Label: "l", Check: sqBound("sq", 2), RatioFloor: 0.99}
	if r := Run(loose, cfg); r.Status != "fail" || len(r.BelowFloor) != 1 {
		t.Errorf("a bound loosened by 2 passed its floor: %+v", r)
	}
	// Below DefaultCases the floors are not checked (they are calibrated there).
	if r := Run(loose, Config{Cases: 10, Seed: 1}); r.Status != "pass" {
		t.Errorf("floor checked at 10 cases: %+v", r)
	}
}

func TestRunChecksEachMergedPartAgainstItsOwnFloor(t *testing.T) {
	// A tight part must not hide a loosened one (issue 11: thm:inv.cali kept
	// only the maximum ratio over its parts).
	c := Claim{Label: "m", RatioFloor: 0.99, Check: func(cfg Config) Outcome {
		return Merge(Bound, sqBound("a", 1)(cfg), sqBound("b", 1.5)(cfg))
	}}
	r := Run(c, Config{Cases: DefaultCases, Seed: 1})
	if r.Status != "fail" || len(r.BelowFloor) != 1 || r.BelowFloor[0] != "b" || len(r.Parts) != 2 {
		t.Errorf("merged claim with a loose part: %+v", r)
	}
	c.PartFloors = map[string]float64{"b": 0.6}
	if r := Run(c, Config{Cases: DefaultCases, Seed: 1}); r.Status != "pass" {
		t.Errorf("part floor 0.6 for the part reaching 1/1.5: %+v", r)
	}
}
