package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	_ "github.com/llpfc/llpfc/estimators/algclaims" // Algorithms 1–3
	"github.com/llpfc/llpfc/theory/verify"
	_ "github.com/llpfc/llpfc/theory/verify/claims"     // registers every claim
	_ "github.com/llpfc/llpfc/training/loss/lossclaims" // EasyLLP, LLP-PVC, MixBag
)

func init() {
	register(command{
		name:    "verify",
		summary: "check the paper's theorems, lemmas and propositions numerically, claim by claim",
		run:     runVerify,
	})
}

const verifySynopsis = `Runs the property checker of every numbered result of the paper (the same checkers
the tests in proofs_tests run) on random and adversarial inputs, and prints one row per
result: its LaTeX label, the statement, the cases tried, the worst ratio of left side to
right side observed (for a bound: how close it came to being violated, ≤ 1 means it held;
for an identity: the ratio farthest from 1), the ratio floor the search must reach (a bound
whose search stays below its floor was loosened: the row fails; a claim made of several
properties shows and checks each part), pass/fail, whether its negative control — the same
checker run against a deliberately wrong implementation — was caught, and its kind:
theorem, identity or definitional (counted apart in the summary). Floors are calibrated at
500 cases and checked at --cases 500 or more.
A second table lists every claim's hypotheses as its statement gives them (the LaTeX line,
the loss, T, the grouping, the function class and its constants, every parameter's range
with its ends as printed), each probed by re-running the claim with that hypothesis
violated: needed (with the counterexample and the seed that replays it), not needed in
what was tried (with what was tried) or not probeable here (with why); then the ends of
printed ranges where the statement is undefined, infinite, vacuous or false. Probing
never fails a row (--json: "hypotheses").
Exit status 1 if any result fails, falls below a floor, or any negative control is missed.`

func runVerify(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("verify [--cases N] [--seed S] [--json] [--only SUBSTR]", verifySynopsis, stderr)
	cases := fs.Int("cases", verify.DefaultCases, "random cases per property (the tests use the same default; try 100000 for a deep search)")
	seed := fs.Int64("seed", 1, "master seed; each property derives its own stream from it and its name, so a failure replays with the same seed")
	asJSON := fs.Bool("json", false, "print a JSON array of {label, section, statement, kind, cases, worst_ratio, ratio_floor, parts, status, negative_control, ..., hypotheses} instead of a table")
	only := fs.String("only", "", "run only the claims whose label contains this substring")
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	if *cases < 1 {
		fmt.Fprintf(stderr, "llpfc verify: --cases is %d, want ≥ 1\n", *cases)
		return exitBadUsage
	}
	cfg := verify.Config{Cases: *cases, Seed: *seed, Hypotheses: true}
	var results []verify.Result
	for _, c := range verify.Claims() {
		if *only != "" && !strings.Contains(c.Label, *only) {
			continue
		}
		start := time.Now()
		r := verify.Run(c, cfg)
		if !*asJSON {
			fmt.Fprintf(stderr, "  %-50s %-4s %6d cases  %s\n", c.Label, verdict(r, cfg), r.Cases, time.Since(start).Round(time.Millisecond))
		}
		results = append(results, r)
	}
	if len(results) == 0 {
		fmt.Fprintf(stderr, "llpfc verify: no claim label contains %q\n", *only)
		return exitBadUsage
	}
	failed := 0
	for _, r := range results {
		if verdict(r, cfg) != "pass" {
			failed++
		}
	}
	if *asJSON {
		if err := printVerifyJSON(stdout, results); err != nil {
			fmt.Fprintf(stderr, "llpfc verify: %v\n", err)
			return exitFailed
		}
	} else {
		printVerifyTable(stdout, results, failed, cfg)
		printHypotheses(stdout, results)
	}
	if failed > 0 {
		return exitFailed
	}
	return exitOK
}

// floorCell prints a ratio floor, or "–" for none (identities).
func floorCell(f float64) string {
	if f <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.4g", f)
}

// printVerifyJSON writes the rows as a JSON array.
func printVerifyJSON(w io.Writer, results []verify.Result) error {
	// JSON has no NaN: a claim without a finite ratio reports null.
	type row struct {
		verify.Result
		WorstRatio *float64 `json:"worst_ratio"`
	}
	rows := make([]row, len(results))
	for i, r := range results {
		rows[i].Result = r
		if !math.IsNaN(r.WorstRatio) && !math.IsInf(r.WorstRatio, 0) {
			v := r.WorstRatio
			rows[i].WorstRatio = &v
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}

// printVerifyTable writes one row per claim (and per part of a merged
// claim), the failures and missed controls, and the summary line.
func printVerifyTable(w io.Writer, results []verify.Result, failed int, cfg verify.Config) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LABEL\tWHERE\tKIND\tCASES\tWORST LHS/RHS\tFLOOR\tSTATUS\tNEGATIVE CONTROL\tSTATEMENT")
	for _, r := range results {
		neg := r.NegativeControl
		if neg == "missed" && !controlsChecked(cfg) {
			neg = "not caught (too few cases)"
		}
		if r.NegativeName != "" {
			neg += " (" + r.NegativeName + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", r.Label, r.Section, r.Kind, r.Cases, ratioCell(r.WorstRatio), floorCell(r.RatioFloor), verdict(r, cfg), neg, r.Statement)
		if len(r.Parts) > 1 {
			for _, p := range r.Parts {
				ratio := math.NaN()
				if p.WorstRatio != nil {
					ratio = *p.WorstRatio
				}
				fmt.Fprintf(tw, "  part %s\t\t\t%d\t%s\t%s\t\t\t\n", p.Name, p.Cases, ratioCell(ratio), floorCell(p.Floor))
			}
		}
	}
	tw.Flush()
	for _, r := range results {
		if r.Status != "pass" {
			fmt.Fprintf(w, "\nFAIL %s: %s\n", r.Label, r.Counterexample)
		}
		if r.NegativeControl == "missed" && controlsChecked(cfg) {
			fmt.Fprintf(w, "\nMISSED negative control of %s (%s): the checker passed a wrong implementation\n", r.Label, r.NegativeName)
		}
	}
	kinds := map[verify.ClaimKind]int{}
	uncaught := 0
	for _, r := range results {
		kinds[r.Kind]++
		if r.NegativeControl == "missed" {
			uncaught++
		}
	}
	fmt.Fprintf(w, "\n%d claims, %d passed, %d failed (cases per property: %d, seed: %d); %d theorem, %d identity, %d definitional\n",
		len(results), len(results)-failed, failed, cfg.Cases, cfg.Seed, kinds[verify.Theorem], kinds[verify.IdentityKind], kinds[verify.Definitional])
	if !controlsChecked(cfg) {
		fmt.Fprintf(w, "ratio floors and negative controls not checked: they are calibrated at %d cases or more", verify.DefaultCases)
		if uncaught > 0 {
			fmt.Fprintf(w, " (%d negative controls went uncaught at %d cases per property, which is not a failure of the claims)", uncaught, cfg.Cases)
		}
		fmt.Fprintln(w)
	}
}

// controlsChecked reports whether cfg's search is long enough for a missed
// negative control to be a failure: the floors' calibration, DefaultCases
// (`verify --cases 1` once reported "20 failed" and exited 1 although
// every claim held; only tiny searches had missed the controls).
func controlsChecked(cfg verify.Config) bool { return cfg.Cases >= verify.DefaultCases }

// ratioCell prints a worst ratio, or "n/a" when no case had a finite one
// (the table once printed NaN).
func ratioCell(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return fmt.Sprintf("%.4g", v)
}

// verdict is the row's STATUS: "pass" only when the claim held and its
// negative control (if any) was caught, or the search was too short to
// check controls (controlsChecked) — the rows the summary counts as passed
// (a row with a missed control once said "pass").
func verdict(r verify.Result, cfg verify.Config) string {
	switch {
	case r.Status != "pass":
		return "fail"
	case r.NegativeControl == "missed" && controlsChecked(cfg):
		return "fail (control missed)"
	}
	return "pass"
}
