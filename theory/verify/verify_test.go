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

// TestFloorFailsALooseBound: a bound that always holds with a factor 2 to
// spare (ratio 0.5) fails under a floor of 0.9 — the loosening the floor is
// for — and passes under 0.4; a merged claim is checked part by part, so its
// tight part does not hide its loose one; a part with floor 0 is exempt.
func TestFloorFailsALooseBound(t *testing.T) {
	gen := Gen(func(r *rand.Rand, _ int) any { return r.Float64() })
	half := func(cfg Config) Outcome {
		return ForAll(cfg, "loose", Bound, gen, func(v any) Case { x := v.(float64); return Case{LHS: x, RHS: 2, OK: x <= 2} })
	}
	tightPart := func(cfg Config) Outcome {
		return ForAll(cfg, "tight", Bound, gen, func(v any) Case { x := v.(float64); return Case{LHS: x, RHS: 1, OK: x <= 1} })
	}
	merged := func(cfg Config) Outcome { return Merge(Bound, tightPart(cfg), half(cfg)) }
	cfg := Config{Cases: DefaultCases, Seed: 1}
	for _, tc := range []struct {
		name  string
		check func(Config) Outcome
		t     Tightness
		want  string
	}{
		{"loose under 0.9", half, Tightness{Floor: 0.9}, "fail"},
		{"loose under 0.4", half, Tightness{Floor: 0.4}, "pass"},
		{"merged under 0.9", merged, Tightness{Floor: 0.9}, "fail"},
		{"merged, loose part exempt", merged, Tightness{Floor: 0.9, PartFloors: map[string]float64{"loose": 0}}, "pass"},
	} {
		label := "test-floor/" + tc.name
		SetTightness(label, tc.t)
		r := Run(Claim{Label: label, Check: tc.check}, cfg)
		if r.Status != tc.want {
			t.Errorf("%s: status %s (%s), want %s", tc.name, r.Status, r.Counterexample, tc.want)
		}
		if tc.want == "fail" && !strings.Contains(r.Counterexample, "below the floor") {
			t.Errorf("%s: message %q, want one naming the floor", tc.name, r.Counterexample)
		}
		if r.Kind != Theorem {
			t.Errorf("%s: kind %q, want the default %q", tc.name, r.Kind, Theorem)
		}
	}
	// A short search reports the floor without failing on it.
	SetTightness("test-floor/short", Tightness{Floor: 0.9})
	if r := Run(Claim{Label: "test-floor/short", Check: half}, Config{Cases: 20, Seed: 1}); r.Status != "pass" || r.RatioFloor != 0.9 {
		t.Errorf("20 cases: status %s, floor %g; want pass and the floor reported", r.Status, r.RatioFloor)
	}
}
