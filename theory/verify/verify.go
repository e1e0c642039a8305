// Package verify holds the property checkers that try to falsify each numbered
// result of the paper, one Claim per result, keyed by the result's LaTeX label.
//
// A checker runs a gopter property over random and adversarial inputs and
// records, besides pass or fail, how tight the claimed bound came: the worst
// observed ratio of left side to right side. Every checker takes the
// implementation under test as a parameter, so its negative control — the same
// property run against a deliberately wrong implementation (transposed T, a
// dropped factor, ‖T‖₁ in place of ‖T⁻¹‖₁, …) — is one line, and must fail.
//
// Tightness is part of a claim (a loose bound passes any check): each Claim declares the worst
// ratio its search must reach (RatioFloor, per part PartFloors), and Run
// fails a claim — or counts a negative control as caught — when a Bound
// part stays below its floor, so a loosened bound cannot pass silently, nor
// hide behind a tight part. Each claim also has a Kind: theorem, identity or
// definitional.
//
// The tests in proofs_tests, the `llpfc verify` command and `make mutate`
// (cmd/mutate) all run the registry returned by Claims.
package verify

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand"
	"sort"
	"strings"
	"sync"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
)

// DefaultCases is the number of random cases each property tries by default.
const DefaultCases = 500

// Config controls one run of a checker.
type Config struct {
	// Cases is the number of random cases to try (at least 1).
	Cases int
	// Seed is the master seed. Each property derives its own stream from Seed
	// and its name, so adding a property never shifts the others' inputs.
	Seed int64
	// Hypotheses makes Run probe the claim's hypotheses and check the ends
	// of its ranges too (Result.Hypotheses; hypotheses.go).
	Hypotheses bool
}

// Kind says how a Case's two sides relate.
type Kind int

const (
	// Bound claims LHS ≤ RHS; the worst ratio is the largest LHS/RHS seen.
	Bound Kind = iota
	// Identity claims LHS = RHS; the worst ratio is the LHS/RHS farthest from 1.
	Identity
)

// Case is the verdict of a property on one generated input.
type Case struct {
	// LHS and RHS are the two sides of the claimed relation on this input.
	LHS, RHS float64
	// OK reports whether the claim held on this input (within the checker's
	// numerical tolerance, which the checker documents).
	OK bool
	// Detail describes the input and both sides; it is printed for a failing case.
	Detail string
}

// Outcome is what one run of a property against one implementation found.
type Outcome struct {
	Cases          int     // cases tried
	WorstRatio     float64 // see Kind; NaN when no case had a finite ratio
	Failed         bool    // some case broke the claim, or the checker itself failed
	Counterexample string  // the failing input and the seed that replays it
	// Parts lists, for an outcome built by Merge, each property's own
	// outcome (one entry, the property itself, for an outcome of ForAll), so
	// that a tight part cannot hide a loose one.
	Parts []Part
	// First is the first input tried and Witness the first that broke the
	// claim (nil when none did): a probe's judge re-evaluates them from the
	// definitions (JudgeOutcome).
	First, Witness any
}

// Part is one property's share of a claim's outcome.
type Part struct {
	Name       string  `json:"name"` // the stream name given to ForAll
	Kind       Kind    `json:"-"`
	Cases      int     `json:"cases"`
	WorstRatio float64 `json:"-"` // NaN when no case had a finite ratio
}

// ClaimKind says what sort of statement a claim is; the verify summary
// counts the kinds apart so that definitions are not counted as theorems.
type ClaimKind string

const (
	// Theorem is a bound or implication the paper proves (a theorem, lemma,
	// proposition or a proof step that needs an argument).
	Theorem ClaimKind = "theorem"
	// IdentityKind is an equality the paper derives (a closed form, an
	// unbiasedness identity), checked against an independent computation.
	IdentityKind ClaimKind = "identity"
	// Definitional is a statement true by definition or by one line of
	// algebra (a formula restated, a class property that holds for any
	// averaging); it is checked, but it is not evidence about a theorem.
	Definitional ClaimKind = "definitional"
)

// Claim is one numbered result of the paper with its checker.
type Claim struct {
	Label     string // LaTeX label, e.g. "thm:inv.cali"
	Section   string // where the result stands, e.g. "§3" or "App. B.2"
	Statement string // the result in one line
	// Check runs the property against the reference implementation.
	Check func(Config) Outcome
	// Negative runs the same property against a deliberately wrong
	// implementation, described by NegativeName; it must fail. Nil if none.
	Negative     func(Config) Outcome
	NegativeName string
	// Kind is theorem, identity or definitional (default theorem).
	Kind ClaimKind
	// RatioFloor is the worst LHS/RHS ratio that the search of every Bound
	// part must reach at ≥ DefaultCases cases: ≈ 1 where the paper's proof
	// shows the bound tight, an honest floor below the measured value for
	// the probabilistic bounds. A part whose worst ratio stays below its
	// floor means the bound (or its right-hand side) was loosened, and the
	// claim fails. Zero: no floor (identities, whose ratio is ≈ 1 by
	// construction). PartFloors overrides the floor of a named part.
	RatioFloor float64
	PartFloors map[string]float64
}

// FloorOf returns the floor that the part named name must reach.
func (c Claim) FloorOf(name string) float64 {
	if f, ok := c.PartFloors[name]; ok {
		return f
	}
	return c.RatioFloor
}

var (
	mu       sync.Mutex
	registry = map[string]Claim{}
)

// Register adds a claim to the registry. It panics on a duplicate or empty
// label: registration happens in init functions, so this is a programming
// error caught by every test run.
func Register(c Claim) {
	mu.Lock()
	defer mu.Unlock()
	if c.Label == "" || c.Check == nil {
		panic("verify: claim needs a label and a checker")
	}
	if _, dup := registry[c.Label]; dup {
		panic("verify: duplicate claim " + c.Label)
	}
	registry[c.Label] = c
}

// Claims returns every registered claim, ordered by section and then label.
func Claims() []Claim {
	mu.Lock()
	defer mu.Unlock()
	out := make([]Claim, 0, len(registry))
	for _, c := range registry {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Section != out[j].Section {
			return out[i].Section < out[j].Section
		}
		return out[i].Label < out[j].Label
	})
	return out
}

// Lookup returns the claim registered under label.
func Lookup(label string) (Claim, bool) {
	mu.Lock()
	defer mu.Unlock()
	c, ok := registry[label]
	return c, ok
}

// Result is one row of a verification report.
type Result struct {
	Label           string  `json:"label"`
	Section         string  `json:"section"`
	Statement       string  `json:"statement"`
	Cases           int     `json:"cases"`
	WorstRatio      float64 `json:"worst_ratio"`
	Status          string  `json:"status"`           // "pass" or "fail"
	NegativeControl string  `json:"negative_control"` // "caught", "missed" or "none"
	NegativeName    string  `json:"negative_name,omitempty"`
	Counterexample  string  `json:"counterexample,omitempty"`
	NegativeDetail  string  `json:"negative_detail,omitempty"`
	// Kind is the claim's kind; RatioFloor its declared floor (0: none).
	Kind       ClaimKind    `json:"kind"`
	RatioFloor float64      `json:"ratio_floor"`
	Parts      []PartResult `json:"parts,omitempty"`
	// BelowFloor names the parts whose search stayed below their floor.
	BelowFloor []string `json:"below_floor,omitempty"`
	// Hypotheses are the statement's hypotheses, each probed, with its
	// ranges' ends checked (only under Config.Hypotheses).
	Hypotheses []HypothesisResult `json:"hypotheses,omitempty"`
}

// PartResult is one part of a claim in a report: its worst ratio beside its
// floor. WorstRatio is nil when no case had a finite ratio.
type PartResult struct {
	Name       string   `json:"name"`
	Cases      int      `json:"cases"`
	WorstRatio *float64 `json:"worst_ratio"`
	Floor      float64  `json:"ratio_floor"`
}

// Run runs a claim and its negative control under cfg.
func Run(c Claim, cfg Config) Result {
	o := c.Check(cfg)
	r := Result{
		Label: c.Label, Section: c.Section, Statement: c.Statement,
		Cases: o.Cases, WorstRatio: o.WorstRatio, Status: "pass",
		NegativeControl: "none", NegativeName: c.NegativeName,
	}
	r.Kind = c.Kind
	if r.Kind == "" {
		r.Kind = Theorem
	}
	r.RatioFloor = c.RatioFloor
	r.Parts, r.BelowFloor = floors(c, cfg, o)
	if o.Failed {
		r.Status = "fail"
		r.Counterexample = o.Counterexample
	} else if len(r.BelowFloor) > 0 {
		r.Status = "fail"
		var b strings.Builder
		for _, pr := range r.Parts {
			for _, n := range r.BelowFloor {
				if n == pr.Name {
					w := math.NaN()
					if pr.WorstRatio != nil {
						w = *pr.WorstRatio
					}
					fmt.Fprintf(&b, "%s: worst ratio %.4g below its floor %.4g; ", n, w, pr.Floor)
				}
			}
		}
		r.Counterexample = "search below floor (the bound or its right-hand side was loosened): " + strings.TrimSuffix(b.String(), "; ")
	}
	if c.Negative != nil {
		n := c.Negative(cfg)
		_, below := floors(c, cfg, n)
		if n.Failed {
			r.NegativeControl = "caught"
			r.NegativeDetail = n.Counterexample
		} else if len(below) > 0 {
			r.NegativeControl = "caught"
			r.NegativeDetail = "search below floor (loosened bound) in " + strings.Join(below, ", ")
		} else {
			r.NegativeControl = "missed"
		}
	}
	if cfg.Hypotheses {
		r.Hypotheses = CheckHypotheses(c.Label, cfg)
	}
	return r
}

// floors reports each part of o beside its floor and names the Bound parts
// whose worst ratio stayed below it. Floors are calibrated at DefaultCases
// and hold for more cases (each stream's first cases do not change with the
// count), so they are checked only when cfg.Cases ≥ DefaultCases.
func floors(c Claim, cfg Config, o Outcome) (parts []PartResult, below []string) {
	for _, p := range o.Parts {
		pr := PartResult{Name: p.Name, Cases: p.Cases}
		if !math.IsNaN(p.WorstRatio) && !math.IsInf(p.WorstRatio, 0) {
			v := p.WorstRatio
			pr.WorstRatio = &v
		}
		if p.Kind == Bound {
			pr.Floor = c.FloorOf(p.Name)
			if cfg.Cases >= DefaultCases && pr.Floor > 0 && (pr.WorstRatio == nil || *pr.WorstRatio < pr.Floor) {
				below = append(below, p.Name)
			}
		}
		parts = append(parts, pr)
	}
	return parts, below
}

// StreamSeed derives the seed of the stream named name from the master seed.
func StreamSeed(master int64, name string) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s", master, name)
	return int64(h.Sum64() & math.MaxInt64)
}

// Gen wraps a function of a random source into a gopter generator. The
// function gets gopter's size parameter (growing from 0 to 100 over a run)
// so that it can move from small to large or from benign to adversarial
// inputs.
func Gen(f func(r *rand.Rand, size int) any) gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(f(p.Rng, p.MaxSize), gopter.NoShrinker)
	}
}

// ForAll runs check on cfg.Cases inputs drawn from gen and reports the
// outcome. name distinguishes the random stream (use the claim's label, plus
// a suffix for a claim with several properties). T is the type of gen's
// values (any, or the type the generator returns).
func ForAll[T any](cfg Config, name string, kind Kind, gen gopter.Gen, check func(T) Case) Outcome {
	cases := cfg.Cases
	if cases < 1 {
		cases = DefaultCases
	}
	seed := StreamSeed(cfg.Seed, name)
	params := gopter.DefaultTestParametersWithSeed(seed)
	params.MinSuccessfulTests = cases
	params.MaxShrinkCount = 0
	params.Workers = 1

	worst := math.NaN()
	var firstBad string
	var first, witness any
	tried := 0
	p := prop.ForAll(func(v any) bool {
		tried++
		if tried == 1 {
			first = v
		}
		c := check(v.(T))
		if r := c.LHS / c.RHS; !math.IsNaN(r) && !math.IsInf(r, 0) {
			switch kind {
			case Bound:
				if math.IsNaN(worst) || r > worst {
					worst = r
				}
			case Identity:
				if math.IsNaN(worst) || math.Abs(r-1) > math.Abs(worst-1) {
					worst = r
				}
			}
		}
		if !c.OK && firstBad == "" {
			firstBad = fmt.Sprintf("%s: case %d (stream seed %d): %s [lhs=%.6g rhs=%.6g]", name, tried, seed, c.Detail, c.LHS, c.RHS)
			witness = v
		}
		return c.OK
	}, gen)
	res := p.Check(params)
	o := Outcome{Cases: tried, WorstRatio: worst, Parts: []Part{{Name: name, Kind: kind, Cases: tried, WorstRatio: worst}}, First: first, Witness: witness}
	if !res.Passed() {
		o.Failed = true
		o.Counterexample = firstBad
		if res.Error != nil {
			o.Counterexample = fmt.Sprintf("%s: checker error: %v %s", name, res.Error, strings.TrimSpace(firstBad))
		}
	}
	return o
}

// Property is ForAll over inputs of one type T: gen draws an input from
// the stream's random source and gopter's size parameter (as Gen), check
// judges it.
func Property[T any](cfg Config, name string, kind Kind, gen func(r *rand.Rand, size int) T, check func(T) Case) Outcome {
	return ForAll(cfg, name, kind, Gen(func(r *rand.Rand, size int) any { return gen(r, size) }), check)
}

// Merge combines the outcomes of several properties that together check one
// claim: cases add up, the worst ratio is the worst of the parts (for a
// Bound), and the claim fails if any part failed.
func Merge(kind Kind, parts ...Outcome) Outcome {
	out := Outcome{WorstRatio: math.NaN()}
	for _, p := range parts {
		out.Cases += p.Cases
		out.Parts = append(out.Parts, p.Parts...)
		if !math.IsNaN(p.WorstRatio) {
			if math.IsNaN(out.WorstRatio) ||
				(kind == Bound && p.WorstRatio > out.WorstRatio) ||
				(kind == Identity && math.Abs(p.WorstRatio-1) > math.Abs(out.WorstRatio-1)) {
				out.WorstRatio = p.WorstRatio
			}
		}
		if out.First == nil {
			out.First = p.First
		}
		if p.Failed && !out.Failed {
			out.Failed = true
			out.Counterexample = p.Counterexample
			out.Witness = p.Witness
		}
	}
	return out
}
