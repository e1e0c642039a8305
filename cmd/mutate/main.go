// Command mutate measures how many realistic bugs the paper's claims catch
// (issue 11): it applies each mutation of a fixed, reviewed list to theory/
// or estimators/ in a temporary copy of the repository, one at a time, runs
// every `verify` claim there (500 cases, seed 1, the floors enforced), and
// prints which claims caught it, ending with `mutations: N caught of M`.
// Hand-computed unit values do not count: only verify claims are run. Exit
// status 1 if a mutation is not caught.
//
// Run it with `make mutate` (or `go run ./cmd/mutate`); `--claims` is the
// inner mode the copies run.
//
// Written here rather than with a mutation-testing library because the
// mutations are a short reviewed list of realistic slips (not every
// operator flip a generic tool would try), and the verdict must come from
// the verify claims alone.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/llpfc/llpfc/estimators/claims"
	"github.com/llpfc/llpfc/theory/verify"
	_ "github.com/llpfc/llpfc/theory/verify/claims"
)

func main() {
	claims := flag.Bool("claims", false, "inner mode: run every verify claim here and print the labels of those that fail, as JSON")
	only := flag.String("only", "", "run only the mutations whose id contains this substring")
	flag.Parse()
	if *claims {
		os.Exit(runClaims(os.Stdout))
	}
	os.Exit(runMutations(*only, os.Stdout, os.Stderr))
}

// runClaims prints the labels of the failing claims (a failed case, a search
// below its floor, a missed control does not count: that is the control's
// own business) as a JSON array.
func runClaims(w io.Writer) int {
	var failed []string
	for _, c := range verify.Claims() {
		if r := verify.Run(c, verify.Config{Cases: verify.DefaultCases, Seed: 1}); r.Status != "pass" {
			failed = append(failed, c.Label)
		}
	}
	if failed == nil {
		failed = []string{}
	}
	json.NewEncoder(w).Encode(failed)
	return 0
}

func runMutations(only string, stdout, stderr io.Writer) int {
	root, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "mutate:", err)
		return 2
	}
	for _, m := range mutations { // every mutation applies to the tree as it is
		b, err := os.ReadFile(filepath.Join(root, m.File))
		if err != nil || strings.Count(string(b), m.Old) != 1 {
			fmt.Fprintf(stderr, "mutate: %s: the text to mutate occurs %d times in %s, want once (%v)\n", m.ID, strings.Count(string(b), m.Old), m.File, err)
			return 2
		}
	}
	tmp, err := os.MkdirTemp("", "llpfc-mutate-")
	if err != nil {
		fmt.Fprintln(stderr, "mutate:", err)
		return 2
	}
	defer os.RemoveAll(tmp)
	if err := copyTree(root, tmp); err != nil {
		fmt.Fprintln(stderr, "mutate: copying the repository:", err)
		return 2
	}
	baseline, err := claimsIn(tmp)
	if err != nil || len(baseline) != 0 {
		fmt.Fprintf(stderr, "mutate: the unmutated claims must all pass first: failing %v, %v\n", baseline, err)
		return 2
	}
	caught, total := 0, 0
	fmt.Fprintln(stdout, "| mutation | bug | caught by |")
	fmt.Fprintln(stdout, "|---|---|---|")
	for _, m := range mutations {
		if only != "" && !strings.Contains(m.ID, only) {
			continue
		}
		total++
		start := time.Now()
		failing, err := mutated(tmp, m)
		if err != nil {
			fmt.Fprintf(stderr, "mutate: %s: %v\n", m.ID, err)
			return 2
		}
		by := "**not caught**"
		if len(failing) > 0 {
			caught++
			by = "`" + strings.Join(failing, "`, `") + "`"
		}
		fmt.Fprintf(stdout, "| `%s` (`%s`) | %s | %s |\n", m.ID, m.File, strings.ReplaceAll(m.Bug, "|", "\\|"), by)
		fmt.Fprintf(stderr, "  %-24s %3d claims fail  %s\n", m.ID, len(failing), time.Since(start).Round(time.Second))
	}
	fmt.Fprintf(stdout, "\nmutations: %d caught of %d\n", caught, total)
	if caught < total {
		return 1
	}
	return 0
}

// mutated applies m in the copy at dir, runs the claims there, and restores
// the file.
func mutated(dir string, m mutation) ([]string, error) {
	path := filepath.Join(dir, m.File)
	orig, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	defer os.WriteFile(path, orig, 0o644)
	if err := os.WriteFile(path, []byte(strings.Replace(string(orig), m.Old, m.New, 1)), 0o644); err != nil {
		return nil, err
	}
	return claimsIn(dir)
}

// claimsIn runs `go run ./cmd/mutate --claims` in dir. A mutation that does
// not compile would be caught by the compiler, not by a claim: an error.
func claimsIn(dir string) ([]string, error) {
	cmd := exec.Command("go", "run", "./cmd/mutate", "--claims")
	cmd.Dir = dir
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, errb.String())
	}
	var failing []string
	if err := json.Unmarshal(out, &failing); err != nil {
		return nil, fmt.Errorf("reading the claims' verdicts: %v (%q)", err, out)
	}
	return failing, nil
}

// copyTree copies the Go sources and module files the claims need (go.mod,
// go.sum and every .go file outside results/ and .git/).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if rel == ".git" || rel == "results" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !(strings.HasSuffix(p, ".go") || rel == "go.mod" || rel == "go.sum") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
}
