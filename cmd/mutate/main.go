// Command mutate measures how many realistic bugs the checks of the module
// catch, so that a check that cannot fail on a realistic bug shows as a
// survivor. It applies a fixed, reviewed list of mutations —
// each a bug a person could write (a dropped factor C, 2√2 → 2, log(1/δ) for
// log(2/δ), a transposed matrix, a biased variance for an unbiased one, an
// off-by-one, …) — one at a time, and judges each in one of two ways:
//
//   - by the `verify` claims (the mutations of theory/ and the first ones of
//     estimators/): every registered claim is run at the default 500 cases,
//     and a claim catches the mutation when it fails (a counterexample, or a
//     search below its ratio floor);
//   - by the Go tests a mutation names (the mutations of training/,
//     experiments/ and the later ones of estimators/): `go test -run` of
//     those tests in one package, and a test catches the mutation when it
//     fails.
//
// A mutation is never written into the module: each is applied through
// `go build -overlay` / `go test -overlay` (a mutated copy of one file in a
// temporary directory), so mutations run in parallel (-j). A mutation that
// does not compile is reported as invalid, never as caught. The run prints
// which claims or tests caught each mutation and ends with `mutations: N
// caught of M` and the same count per folder (theory/, estimators/,
// training/, experiments/).
//
// Usage (from the module root; `make mutate`):
//
//	go run ./cmd/mutate [-only ID[,ID…]] [-j N] [-list [-markdown]] [-keep]
//
// `-list -markdown` prints MUTATIONS.md (TestMutationsMarkdownIsCurrent keeps
// the committed file equal to it). The driver mode `mutate -claims`, built
// with the overlay, runs the claims and prints one line per failing claim; it
// is how the parent reads the verdicts.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/llpfc/llpfc/theory/verify"

	_ "github.com/llpfc/llpfc/estimators/algclaims" // Algorithms 1–3
	_ "github.com/llpfc/llpfc/theory/verify/claims" // the paper's results
)

// testTimeout bounds one `go test` of a mutation (a mutation that makes a
// loop never end is caught by it: the test binary fails).
const testTimeout = "4m"

func main() {
	claims := flag.Bool("claims", false, "driver mode: run every claim and print `CAUGHT label: reason` for each that fails")
	only := flag.String("only", "", "run only the mutations with these IDs (comma-separated)")
	list := flag.Bool("list", false, "print the mutation list and exit")
	markdown := flag.Bool("markdown", false, "with -list: print the list as MUTATIONS.md")
	keep := flag.Bool("keep", false, "keep the temporary directory of mutated files and drivers (its path is printed)")
	jobs := flag.Int("j", runtime.NumCPU(), "mutations judged at once")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./cmd/mutate [-only ID[,ID…]] [-j N] [-list [-markdown]] [-keep]\n\n"+
			"Applies each mutation of a fixed list (through go's -overlay, the module is never written),\n"+
			"judges it by the verify claims or by the Go tests it names, and reports what caught it;\n"+
			"ends with `mutations: N caught of M` and a count per folder.\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	switch {
	case *claims:
		os.Exit(runClaims(os.Stdout))
	case *list && *markdown:
		fmt.Print(markdownList(mutations))
		return
	case *list:
		for _, m := range mutations {
			fmt.Printf("%-28s %-36s %-40s %s\n", m.ID, m.File, m.judgedBy(), m.Bug)
		}
		return
	}
	if err := run(*only, *jobs, *keep, os.Stdout, os.Stderr); err != nil {
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

// result is the verdict on one mutation: caught (by the claims or tests in
// By), missed, or invalid (By says why: it does not compile, or a driver
// failed).
type result struct {
	Verdict, By string
	Took        time.Duration
}

func run(only string, jobs int, keep bool, stdout, stderr io.Writer) error {
	start := time.Now()
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	todo, err := selectMutations(root, only)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "llpfc-mutate-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Fprintf(stderr, "mutated files kept at %s\n", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	jobs = max(jobs, 1)
	if err := baseline(root, tmp, todo, jobs, stderr); err != nil {
		return err
	}

	results := make([]result, len(todo))
	var mu sync.Mutex
	done := 0
	forEach(len(todo), jobs, func(i int) {
		t0 := time.Now()
		r := judge(root, filepath.Join(tmp, fmt.Sprintf("m%03d", i)), todo[i])
		r.Took = time.Since(t0)
		results[i] = r
		mu.Lock()
		done++
		fmt.Fprintf(stderr, "  [%d/%d] %s %s (%s)\n", done, len(todo), todo[i].ID, r.Verdict, r.Took.Round(time.Second))
		mu.Unlock()
	})

	return summarize(todo, results, jobs, start, stdout)
}

// summarize prints one line per mutation, the count overall and per folder
// and the wall time; it returns an error when a mutation was invalid or not
// caught.
func summarize(todo []mutation, results []result, jobs int, start time.Time, stdout io.Writer) error {
	fmt.Fprintf(stdout, "%-28s %-36s %-8s %s\n", "MUTATION", "FILE", "VERDICT", "CAUGHT BY (claims or tests)")
	caught := 0
	type tally struct{ caught, total int }
	folders := map[string]*tally{}
	var invalid []string
	for i, m := range todo {
		r := results[i]
		fmt.Fprintf(stdout, "%-28s %-36s %-8s %s\n", m.ID, m.File, r.Verdict, r.By)
		f := m.folder()
		if folders[f] == nil {
			folders[f] = &tally{}
		}
		folders[f].total++
		switch r.Verdict {
		case "caught":
			caught++
			folders[f].caught++
		case "invalid":
			invalid = append(invalid, m.ID)
		}
	}
	fmt.Fprintf(stdout, "mutations: %d caught of %d\n", caught, len(todo))
	for _, f := range folderOrder(folders) {
		fmt.Fprintf(stdout, "  %-13s %d caught of %d\n", f, folders[f].caught, folders[f].total)
	}
	fmt.Fprintf(stdout, "wall time %s with -j %d\n", time.Since(start).Round(time.Second), jobs)
	if len(invalid) > 0 {
		return fmt.Errorf("%d mutation(s) invalid (each must compile): %s", len(invalid), strings.Join(invalid, ", "))
	}
	if caught < len(todo) {
		return fmt.Errorf("%d mutation(s) not caught", len(todo)-caught)
	}
	return nil
}

// folderOrder lists the folders of a run: theory/, estimators/, training/,
// experiments/ first, then any other in name order.
func folderOrder[T any](m map[string]T) []string {
	rank := map[string]int{"theory/": 0, "estimators/": 1, "training/": 2, "experiments/": 3}
	out := make([]string, 0, len(m))
	for f := range m {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		ri, oki := rank[out[i]]
		rj, okj := rank[out[j]]
		if !oki {
			ri = len(rank)
		}
		if !okj {
			rj = len(rank)
		}
		if ri != rj {
			return ri < rj
		}
		return out[i] < out[j]
	})
	return out
}

// forEach calls f(0) … f(n−1) on at most jobs goroutines.
func forEach(n, jobs int, f func(int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(jobs, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

// selectMutations returns the mutations to apply: all of them, or those
// whose IDs are listed (comma-separated) in only. Every one must apply to the
// original sources under root exactly once.
func selectMutations(root, only string) ([]mutation, error) {
	todo := mutations
	if only != "" {
		todo = nil
		for _, id := range strings.Split(only, ",") {
			found := false
			for _, m := range mutations {
				if m.ID == id {
					todo = append(todo, m)
					found = true
				}
			}
			if !found {
				return nil, fmt.Errorf("no mutation with ID %q (see -list)", id)
			}
		}
	}
	for _, m := range todo {
		if _, err := m.apply(root); err != nil {
			return nil, err
		}
	}
	return todo, nil
}

// apply returns the contents of m.File under root with the mutation applied;
// it is an error if m.Old does not occur exactly once (the list is stale).
func (m mutation) apply(root string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(root, m.File))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.ID, err)
	}
	if n := strings.Count(string(b), m.Old); n != 1 {
		return nil, fmt.Errorf("%s: the text to replace occurs %d times in %s, want once (the list is stale)", m.ID, n, m.File)
	}
	return []byte(strings.Replace(string(b), m.Old, m.New, 1)), nil
}

// baseline checks, without any mutation, that every claim passes (if any
// selected mutation is judged by the claims) and that every test named by a
// selected mutation passes.
func baseline(root, tmp string, todo []mutation, jobs int, stderr io.Writer) error {
	start := time.Now()
	fmt.Fprintf(stderr, "baseline (no mutation) … ")
	type job struct {
		pkg   string
		tests []string
	}
	var jobsList []job
	needClaims := false
	byPkg := map[string]map[string]bool{}
	for _, m := range todo {
		if m.Pkg == "" {
			needClaims = true
			continue
		}
		if byPkg[m.Pkg] == nil {
			byPkg[m.Pkg] = map[string]bool{}
		}
		for _, t := range m.Tests {
			byPkg[m.Pkg][t] = true
		}
	}
	for pkg, ts := range byPkg {
		jobsList = append(jobsList, job{pkg, keys(ts)})
	}
	sort.Slice(jobsList, func(i, j int) bool { return jobsList[i].pkg < jobsList[j].pkg })
	errs := make([]error, len(jobsList)+1)
	forEach(len(jobsList)+1, jobs, func(i int) {
		if i == len(jobsList) {
			if !needClaims {
				return
			}
			base, err := claimVerdicts(root, filepath.Join(tmp, "baseline"), "")
			switch {
			case err != nil:
				errs[i] = fmt.Errorf("baseline: %w", err)
			case len(base) > 0:
				errs[i] = fmt.Errorf("baseline: claims fail without any mutation: %v", keys(base))
			}
			return
		}
		j := jobsList[i]
		failed, err := testVerdicts(root, "", j.pkg, j.tests)
		switch {
		case err != nil:
			errs[i] = fmt.Errorf("baseline of %s: %w", j.pkg, err)
		case len(failed) > 0:
			errs[i] = fmt.Errorf("baseline: tests of %s fail without any mutation: %v", j.pkg, failed)
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "every claim and named test passes (%s)\n", time.Since(start).Round(time.Second))
	return nil
}

// judge applies m through an overlay written under dir and returns the
// verdict: caught (by the claims or tests listed in By), missed, or invalid
// (the mutated package does not compile, or a driver failed: By says why).
func judge(root, dir string, m mutation) result {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return result{Verdict: "invalid", By: err.Error()}
	}
	src, err := m.apply(root)
	if err != nil {
		return result{Verdict: "invalid", By: err.Error()}
	}
	mutated := filepath.Join(dir, filepath.Base(m.File))
	if err := os.WriteFile(mutated, src, 0o644); err != nil {
		return result{Verdict: "invalid", By: err.Error()}
	}
	overlay := filepath.Join(dir, "overlay.json")
	ov, _ := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(root, m.File): mutated}})
	if err := os.WriteFile(overlay, ov, 0o644); err != nil {
		return result{Verdict: "invalid", By: err.Error()}
	}
	// Every mutation must compile, whatever judges it: a Go file's package,
	// or, for a kernel file (.cl or .h, embedded by the package Pkg), Pkg —
	// the overlay replaces the embedded file as it does a source file.
	build := exec.Command("go", "build", "-overlay", overlay, "./"+m.buildDir())
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return result{Verdict: "invalid", By: "does not compile: " + firstLine(string(out))}
	}
	if m.Pkg == "" {
		v, err := claimVerdicts(root, dir, overlay)
		switch {
		case err != nil:
			return result{Verdict: "invalid", By: err.Error()}
		case len(v) > 0:
			return result{Verdict: "caught", By: strings.Join(keys(v), "; ")}
		}
		return result{Verdict: "missed", By: "—"}
	}
	failed, err := testVerdicts(root, overlay, m.Pkg, m.Tests)
	switch {
	case err != nil:
		return result{Verdict: "invalid", By: err.Error()}
	case len(failed) > 0:
		return result{Verdict: "caught", By: m.Pkg + ": " + strings.Join(failed, ", ")}
	}
	return result{Verdict: "missed", By: "—"}
}

// claimVerdicts builds the driver (with the overlay, if any) under dir,
// runs it in root and returns, per failing claim, its reason.
func claimVerdicts(root, dir, overlay string) (map[string]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, "mutate-driver")
	args := []string{"build", "-o", bin}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	build := exec.Command("go", append(args, "./cmd/mutate")...)
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("does not compile: %s", firstLine(string(out)))
	}
	cmd := exec.Command(bin, "-claims")
	cmd.Dir = root
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

// failLine matches the line `go test` prints for a failing top-level test.
var failLine = regexp.MustCompile(`^--- FAIL: (Test\w*)`)

// testVerdicts runs `go test -run '^(T1|T2…)$'` of pkg (with the overlay, if
// any) in root and returns the named tests that failed, or "test binary" when
// the binary failed outside any named test (a panic, the timeout). A package
// whose tests do not compile is an error, never a verdict.
func testVerdicts(root, overlay, pkg string, tests []string) ([]string, error) {
	args := []string{"test", "-count=1", "-timeout", testTimeout, "-run", runRegexp(tests)}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", append(args, "./"+pkg+"/")...)
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	text := out.String()
	if strings.Contains(text, "[build failed]") || strings.Contains(text, "[setup failed]") {
		return nil, fmt.Errorf("tests do not compile: %s", firstLine(text))
	}
	if err == nil {
		return nil, nil
	}
	if _, ok := err.(*exec.ExitError); !ok {
		return nil, fmt.Errorf("go test: %v", err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		if m := failLine.FindStringSubmatch(strings.TrimSpace(line)); m != nil && !strings.HasPrefix(line, " ") {
			seen[m[1]] = true
		}
	}
	if len(seen) == 0 {
		return []string{"test binary (" + lastFailure(text) + ")"}, nil
	}
	return keys(seen), nil
}

// runRegexp is the -run pattern matching exactly the named top-level tests.
func runRegexp(tests []string) string {
	return "^(" + strings.Join(tests, "|") + ")$"
}

// lastFailure returns a short reason for a test binary that failed outside
// the named tests: its first panic or timeout line.
func lastFailure(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "panic:") || strings.Contains(l, "test timed out") {
			return strings.TrimSpace(l)
		}
	}
	return "exit status 1"
}

func keys[V any](m map[string]V) []string {
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
