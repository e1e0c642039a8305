// Command mutate measures how many realistic bugs the `llpfc verify` claims
// catch (issue 11). It applies a fixed, reviewed list of mutations — each a
// bug a person could write in theory/ or estimators/ (a dropped factor C,
// 2√2 → 2, log(1/δ) for log(2/δ), the ∞-norm for the 1-norm, a transposed
// matrix, one sign vector skipped, …) — one at a time to a temporary copy of
// the module, runs every registered claim there at the default 500 cases,
// and prints which claims caught each mutation (a claim catches a mutation
// when it fails: a counterexample, or a search below its ratio floor). It
// ends with the line `mutations: N caught of M`. Unit tests with
// hand-computed values do not count: only verify claims are run.
//
// Usage (from the module root; `make mutate`):
//
//	go run ./cmd/mutate [-only ID] [-list] [-keep]
//
// The driver mode `mutate -claims`, run inside the copy, runs the claims and
// prints one line per failing claim; it is how the parent reads the verdicts.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/llpfc/llpfc/theory/verify"

	_ "github.com/llpfc/llpfc/estimators/algclaims" // Algorithms 1–3
	_ "github.com/llpfc/llpfc/theory/verify/claims" // the paper's results
)

func main() {
	claims := flag.Bool("claims", false, "driver mode: run every claim and print `CAUGHT label: reason` for each that fails")
	only := flag.String("only", "", "run only the mutation with this ID")
	list := flag.Bool("list", false, "print the mutation list and exit")
	keep := flag.Bool("keep", false, "keep the temporary copy of the module (its path is printed)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./cmd/mutate [-only ID] [-list] [-keep]\n\n"+
			"Applies each mutation of a fixed list to a temporary copy of the module, runs the verify\n"+
			"claims there, and reports which claims caught it; ends with `mutations: N caught of M`.\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	switch {
	case *claims:
		os.Exit(runClaims(os.Stdout))
	case *list:
		for _, m := range mutations {
			fmt.Printf("%-22s %-28s %s\n", m.ID, m.File, m.Bug)
		}
		return
	}
	if err := run(*only, *keep, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "mutate: %v\n", err)
		os.Exit(1)
	}
}

// runClaims runs every registered claim at the default cases and seed 1 and
// prints one CAUGHT line per claim that fails. Exit status 0 in all cases:
// the lines are the verdict.
func runClaims(w io.Writer) int {
	cfg := verify.Config{Cases: verify.DefaultCases, Seed: 1}
	for _, c := range verify.Claims() {
		r := verify.Run(c, cfg)
		if r.Status != "pass" {
			reason := r.Counterexample
			if i := strings.IndexByte(reason, '\n'); i >= 0 {
				reason = reason[:i]
			}
			if len(reason) > 160 {
				reason = reason[:160] + "…"
			}
			fmt.Fprintf(w, "CAUGHT %s\t%s\n", c.Label, reason)
		}
	}
	fmt.Fprintln(w, "DONE")
	return 0
}

// copied are the parts of the module the claims need.
var copied = []string{"go.mod", "go.sum", "theory", "estimators", "internal/rng", "cmd/mutate"}

func run(only string, keep bool, stdout, stderr io.Writer) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	tmp, cleanup, err := copyModule(root, keep, stderr)
	if err != nil {
		return err
	}
	defer cleanup()
	todo, err := selectMutations(root, only)
	if err != nil {
		return err
	}
	if err := baseline(tmp, stderr); err != nil {
		return err
	}
	caught := 0
	fmt.Fprintf(stdout, "%-22s %-28s %-8s %s\n", "MUTATION", "FILE", "VERDICT", "CAUGHT BY (claims)")
	for i, m := range todo {
		t0 := time.Now()
		verdict, by, err := apply(tmp, m)
		if err != nil {
			return err
		}
		if verdict == "caught" {
			caught++
		}
		fmt.Fprintf(stdout, "%-22s %-28s %-8s %s\n", m.ID, m.File, verdict, by)
		fmt.Fprintf(stderr, "  [%d/%d] %s %s (%s)\n", i+1, len(todo), m.ID, verdict, time.Since(t0).Round(time.Second))
	}
	fmt.Fprintf(stdout, "mutations: %d caught of %d\n", caught, len(todo))
	if caught < len(todo) {
		return fmt.Errorf("%d mutation(s) not caught", len(todo)-caught)
	}
	return nil
}

// copyModule copies the parts of the module under root that the claims need
// to a temporary directory; cleanup removes it unless keep (then its path is
// printed).
func copyModule(root string, keep bool, stderr io.Writer) (tmp string, cleanup func(), err error) {
	tmp, err = os.MkdirTemp("", "llpfc-mutate-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	if keep {
		fmt.Fprintf(stderr, "copy kept at %s\n", tmp)
		cleanup = func() {}
	}
	for _, p := range copied {
		if err := copyTree(filepath.Join(root, p), filepath.Join(tmp, p)); err != nil {
			cleanup()
			return "", nil, err
		}
	}
	return tmp, cleanup, nil
}

// selectMutations returns the mutations to apply: all of them, or the one
// whose ID is only. Every one must apply to the original sources under root
// exactly once.
func selectMutations(root, only string) ([]mutation, error) {
	todo := mutations
	if only != "" {
		todo = nil
		for _, m := range mutations {
			if m.ID == only {
				todo = append(todo, m)
			}
		}
		if len(todo) == 0 {
			return nil, fmt.Errorf("no mutation with ID %q (see -list)", only)
		}
	}
	for _, m := range todo {
		b, err := os.ReadFile(filepath.Join(root, m.File))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.ID, err)
		}
		if n := strings.Count(string(b), m.Old); n != 1 {
			return nil, fmt.Errorf("%s: the text to replace occurs %d times in %s, want once (the list is stale)", m.ID, n, m.File)
		}
	}
	return todo, nil
}

// baseline checks that every claim passes on the copy at tmp before any
// mutation.
func baseline(tmp string, stderr io.Writer) error {
	start := time.Now()
	fmt.Fprintf(stderr, "baseline (no mutation) … ")
	base, err := verdicts(tmp)
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	if len(base) > 0 {
		return fmt.Errorf("baseline: claims fail without any mutation: %v", keys(base))
	}
	fmt.Fprintf(stderr, "all claims pass (%s)\n", time.Since(start).Round(time.Second))
	return nil
}

// apply applies m to the copy at tmp, runs the claims there and restores the
// file. The verdict is caught (by the claims listed in by), missed, or
// invalid (the mutated copy does not build or its driver failed: by says
// why).
func apply(tmp string, m mutation) (verdict, by string, err error) {
	path := filepath.Join(tmp, m.File)
	orig, err := os.ReadFile(path)
	if err != nil {
		return "", "", err
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(orig), m.Old, m.New, 1)), 0o644); err != nil {
		return "", "", err
	}
	v, verr := verdicts(tmp)
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		return "", "", err
	}
	switch {
	case verr != nil:
		return "invalid", verr.Error(), nil
	case len(v) > 0:
		return "caught", strings.Join(keys(v), "; "), nil
	}
	return "missed", "—", nil
}

// verdicts builds the driver in dir and returns, per failing claim, its reason.
func verdicts(dir string) (map[string]string, error) {
	bin := filepath.Join(dir, "mutate-driver")
	build := exec.Command("go", "build", "-o", bin, "./cmd/mutate")
	build.Dir = dir
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("does not compile: %s", firstLine(string(out)))
	}
	cmd := exec.Command(bin, "-claims")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("driver: %v", err)
	}
	got := map[string]string{}
	done := false
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "DONE" {
			done = true
		}
		if rest, ok := strings.CutPrefix(line, "CAUGHT "); ok {
			label, reason, _ := strings.Cut(rest, "\t")
			got[label] = reason
		}
	}
	if !done {
		return nil, fmt.Errorf("driver stopped early")
	}
	return got, nil
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func firstLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for _, l := range lines {
		if !strings.HasPrefix(l, "#") {
			return strings.TrimSpace(l)
		}
	}
	return strings.TrimSpace(s)
}

// moduleRoot walks up from the working directory to the directory of go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// copyTree copies the file or directory src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}
