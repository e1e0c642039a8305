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
// The tests in proofs_tests and the `llpfc verify` command both run the
// registry returned by Claims.
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
	// Parts lists the properties the outcome merges (one for ForAll), each
	// with its own worst ratio, so a claim's floor is checked part by part:
	// a tight part cannot hide a loosened one.
	Parts []Part
}

// Part is one property's worst ratio within an Outcome.
type Part struct {
	Name       string  `json:"name"`
	Kind       Kind    `json:"-"`
	WorstRatio float64 `json:"worst_ratio"`
}

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

// Classes of claim (issue 11): a theorem is a result the paper proves, an
// identity an equality the paper states or uses, and a definitional claim
// one that holds by the definitions it checks; `verify` counts them apart.
const (
	Theorem      = "theorem"
	IdentityKind = "identity"
	Definitional = "definitional"
)

// Tightness is what a claim's search must reach: Floor is the least worst
// ratio each of its bound parts must attain (≈ 1 where the paper's proof is
// tight, an honest floor where the search is probabilistic or the bound has
// slack), PartFloors overrides it for the parts named (0: no floor, for a
// part whose ratio is a margin rather than a tightness), and Class is
// Theorem (the default), IdentityKind or Definitional. A search that stays
// below a floor fails the claim: a loosened bound — a factor 2 for √2, a
// log(1/δ) for log(2/δ) — then shows even when every case holds.
type Tightness struct {
	Class      string
	Floor      float64
	PartFloors map[string]float64
}

var tightness = map[string]Tightness{}

// SetTightness records the tightness of the claim labelled label (claims
// register it beside their checkers; order does not matter).
func SetTightness(label string, t Tightness) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := tightness[label]; dup {
		panic("verify: duplicate tightness for " + label)
	}
	tightness[label] = t
}

// TightnessOf returns the tightness recorded for label (the zero value, a
// theorem with no floor, if none).
func TightnessOf(label string) Tightness {
	mu.Lock()
	defer mu.Unlock()
	t := tightness[label]
	if t.Class == "" {
		t.Class = Theorem
	}
	return t
}

// TightnessLabels lists the labels with a recorded tightness, sorted.
func TightnessLabels() []string {
	mu.Lock()
	defer mu.Unlock()
	out := make([]string, 0, len(tightness))
	for l := range tightness {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// PartResult is one part of a claim's result: its worst ratio and floor.
type PartResult struct {
	Name       string   `json:"name"`
	WorstRatio *float64 `json:"worst_ratio"` // null when no case had a finite ratio
	Floor      float64  `json:"ratio_floor,omitempty"`
}

// Result is one row of a verification report.
type Result struct {
	Label      string  `json:"label"`
	Section    string  `json:"section"`
	Statement  string  `json:"statement"`
	Kind       string  `json:"kind"` // Theorem, IdentityKind or Definitional
	Cases      int     `json:"cases"`
	WorstRatio float64 `json:"worst_ratio"`
	// RatioFloor is the least floor of the claim's bound parts (0 if none).
	RatioFloor      float64      `json:"ratio_floor"`
	Parts           []PartResult `json:"parts,omitempty"`
	Status          string       `json:"status"`           // "pass" or "fail"
	NegativeControl string       `json:"negative_control"` // "caught", "missed" or "none"
	NegativeName    string       `json:"negative_name,omitempty"`
	Counterexample  string       `json:"counterexample,omitempty"`
	NegativeDetail  string       `json:"negative_detail,omitempty"`
}

// Run runs a claim and its negative control under cfg. The claim fails when
// a case breaks it or, in a search of at least DefaultCases cases, when a
// bound part's worst ratio stays below its floor (Tightness).
func Run(c Claim, cfg Config) Result {
	o := c.Check(cfg)
	t := TightnessOf(c.Label)
	r := Result{
		Label: c.Label, Section: c.Section, Statement: c.Statement, Kind: t.Class,
		Cases: o.Cases, WorstRatio: o.WorstRatio, Status: "pass",
		NegativeControl: "none", NegativeName: c.NegativeName,
	}
	if o.Failed {
		r.Status = "fail"
		r.Counterexample = o.Counterexample
	}
	// The floors are calibrated for a search of at least DefaultCases cases;
	// a shorter search reports them without failing on them.
	if low := r.checkFloors(o.Parts, t); low != "" && !o.Failed && cfg.Cases >= DefaultCases {
		r.Status = "fail"
		r.Counterexample = low
	}
	if c.Negative != nil {
		n := c.Negative(cfg)
		if n.Failed {
			r.NegativeControl = "caught"
			r.NegativeDetail = n.Counterexample
		} else {
			r.NegativeControl = "missed"
		}
	}
	return r
}

// checkFloors fills r.Parts and r.RatioFloor and returns a message naming
// the first bound part whose worst ratio is below its floor ("" if none).
func (r *Result) checkFloors(parts []Part, t Tightness) string {
	low := ""
	for _, p := range parts {
		pr := PartResult{Name: p.Name}
		if !math.IsNaN(p.WorstRatio) && !math.IsInf(p.WorstRatio, 0) {
			v := p.WorstRatio
			pr.WorstRatio = &v
		}
		if p.Kind == Bound {
			pr.Floor = t.Floor
			if f, ok := t.PartFloors[p.Name]; ok {
				pr.Floor = f
			}
		}
		if pr.Floor > 0 && (r.RatioFloor == 0 || pr.Floor < r.RatioFloor) {
			r.RatioFloor = pr.Floor
		}
		if pr.Floor > 0 && !(p.WorstRatio >= pr.Floor) && low == "" {
			low = fmt.Sprintf("%s: the search reached a worst ratio of %.4g, below the floor %.4g: the bound is looser than the paper's, or the search weaker", p.Name, p.WorstRatio, pr.Floor)
		}
		r.Parts = append(r.Parts, pr)
	}
	return low
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
// a suffix for a claim with several properties).
func ForAll(cfg Config, name string, kind Kind, gen gopter.Gen, check func(v any) Case) Outcome {
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
	tried := 0
	p := prop.ForAll(func(v any) bool {
		tried++
		c := check(v)
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
		}
		return c.OK
	}, gen)
	res := p.Check(params)
	o := Outcome{Cases: tried, WorstRatio: worst, Parts: []Part{{Name: name, Kind: kind, WorstRatio: worst}}}
	if !res.Passed() {
		o.Failed = true
		o.Counterexample = firstBad
		if res.Error != nil {
			o.Counterexample = fmt.Sprintf("%s: checker error: %v %s", name, res.Error, strings.TrimSpace(firstBad))
		}
	}
	return o
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
		if p.Failed && !out.Failed {
			out.Failed = true
			out.Counterexample = p.Counterexample
		}
	}
	return out
}
