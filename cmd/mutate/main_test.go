package main

import (
	"flag"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMutationListIsCurrent keeps the reviewed list applicable: at least 25
// mutations judged by the verify claims and at least 50 outside theory/
// (the training, estimator and experiment code held as the theory is), unique IDs, each replacing text that occurs exactly once in
// today's sources by something different (a stale entry would make
// `make mutate` stop before it runs), in a non-test Go file of theory/,
// estimators/, training/, experiments/, internal/ or cmd/.
func TestMutationListIsCurrent(t *testing.T) {
	claims, outside := 0, 0
	seen := map[string]bool{}
	for _, m := range mutations {
		if m.Pkg == "" {
			claims++
		}
		if m.folder() != "theory/" {
			outside++
		}
		assert.False(t, seen[m.ID], "duplicate mutation ID %q", m.ID)
		seen[m.ID] = true
		assert.True(t, m.Old != m.New && m.Bug != "", "%s: empty change or no description", m.ID)
		// internal/ holds the numeric routines the training engine calls
		// (internal/vec's Adam update, for one); cmd/ the rules of what a
		// command may write and how it exits (cmd/llpfc/guard.go's
		// ownership).
		assert.Contains(t, []string{"theory/", "estimators/", "training/", "experiments/", "internal/", "cmd/"}, m.folder(),
			"%s: mutates %s, want a file under theory/, estimators/, training/, experiments/, internal/ or cmd/", m.ID, m.File)
		// A kernel file (OpenCL C, or the CUDA prelude) reaches its tests
		// through the package that embeds it (go:embed reads the overlay):
		// it names that package.
		kernel := kernelFile(m.File) && m.Pkg != "" && strings.HasPrefix(m.File, m.Pkg+"/kernels/")
		// A Go assembly file (the overlay replaces it like a Go file) in
		// the package it belongs to: the routine it holds has no other
		// oracle in the registry than its package's tests.
		asm := strings.HasSuffix(m.File, ".s") && m.Pkg != "" && path.Dir(m.File) == m.Pkg
		assert.True(t, kernel || asm || strings.HasSuffix(m.File, ".go") && !strings.HasSuffix(m.File, "_test.go"),
			"%s: mutates %s, want a non-test Go file, a Go assembly file of its package or a kernel file (.cl, .h) under its package's kernels/", m.ID, m.File)
		assert.NotContains(t, m.Bug, "\n", "%s: the description is one line", m.ID)
		_, err := m.apply(filepath.Join("..", ".."))
		assert.NoError(t, err, m.ID)
	}
	assert.GreaterOrEqual(t, claims, 25, "at least 25 mutations judged by the claims")
	assert.GreaterOrEqual(t, outside, 50, "at least 50 mutations outside theory/")
}

// TestMutationTestsExist checks that every test a mutation names is a
// top-level test function of its package (a misspelt name would match no
// test, and `go test -run` would pass: the mutation would be missed for the
// wrong reason).
func TestMutationTestsExist(t *testing.T) {
	funcs := map[string]map[string]bool{}
	testFunc := regexp.MustCompile(`(?m)^func (Test\w*)\(t \*testing\.T\)`)
	for _, m := range mutations {
		if m.Pkg == "" {
			assert.Empty(t, m.Tests, "%s: tests named but no package", m.ID)
			continue
		}
		require.NotEmpty(t, m.Tests, "%s: a package but no test named", m.ID)
		if funcs[m.Pkg] == nil {
			funcs[m.Pkg] = map[string]bool{}
			files, err := filepath.Glob(filepath.Join("..", "..", m.Pkg, "*_test.go"))
			require.NoError(t, err)
			require.NotEmpty(t, files, "%s: no test files in %s", m.ID, m.Pkg)
			for _, f := range files {
				b, err := os.ReadFile(f)
				require.NoError(t, err)
				for _, sm := range testFunc.FindAllStringSubmatch(string(b), -1) {
					funcs[m.Pkg][sm[1]] = true
				}
			}
		}
		for _, name := range m.Tests {
			assert.True(t, funcs[m.Pkg][name], "%s: no test %s in %s", m.ID, name, m.Pkg)
		}
	}
}

var updateMarkdown = flag.Bool("update", false, "rewrite MUTATIONS.md from the list of mutations")

//go:generate go test -count=1 -run ^TestMutationsMarkdownIsCurrent$ -update

// TestMutationsMarkdownIsCurrent: the committed MUTATIONS.md is what
// `go run ./cmd/mutate -list -markdown` prints, so the list of mutations and
// the tests that judge them cannot drift from the documentation (go
// generate ./... rewrites it: -update).
func TestMutationsMarkdownIsCurrent(t *testing.T) {
	path := filepath.Join("..", "..", "MUTATIONS.md")
	if *updateMarkdown {
		require.NoError(t, os.WriteFile(path, []byte(markdownList(mutations)), 0o644))
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, markdownList(mutations), string(b),
		"MUTATIONS.md is stale: regenerate it with `go run ./cmd/mutate -list -markdown > MUTATIONS.md`")
}

// TestRunRegexpMatchesOnlyNamedTests: the -run pattern of a mutation matches
// its tests by their whole names, not a test whose name merely starts with
// one of them.
func TestRunRegexpMatchesOnlyNamedTests(t *testing.T) {
	re := regexp.MustCompile(runRegexp([]string{"TestAdam", "TestSGD"}))
	for name, want := range map[string]bool{"TestAdam": true, "TestSGD": true, "TestAdamW": false, "XTestSGD": false} {
		assert.Equal(t, want, re.MatchString(name), name)
	}
}

// TestFailLineReadsTopLevelFailures: testVerdicts's pattern reads the name
// of a failing top-level test from `go test`'s output.
func TestFailLineReadsTopLevelFailures(t *testing.T) {
	m := failLine.FindStringSubmatch("--- FAIL: TestBatchNormRunningStats (0.01s)")
	require.NotNil(t, m)
	assert.Equal(t, "TestBatchNormRunningStats", m[1])
	assert.Nil(t, failLine.FindStringSubmatch("ok  	github.com/llpfc/llpfc/training/nn	0.1s"))
}

// TestNonCompilingMutationIsInvalid: a mutation that breaks the build is
// reported as invalid with the compiler's reason, never as caught (a
// failing build would otherwise look like a failing test), and the module's
// own file is left untouched (the mutation goes through an overlay).
func TestNonCompilingMutationIsInvalid(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	before, err := os.ReadFile(filepath.Join(root, "internal/rng/rng.go"))
	require.NoError(t, err)
	m := mutation{ID: "broken", File: "internal/rng/rng.go", Bug: "does not compile",
		Old: "func New(seed int64, name string) *rand.Rand {", New: "func New(seed int64, name string) *rand.Rand { undefinedName++;",
		Pkg: "internal/rng", Tests: []string{"TestNoSuchTest"}}
	r := judge(root, t.TempDir(), m)
	assert.Equal(t, "invalid", r.Verdict, "by: %s", r.By)
	assert.Contains(t, r.By, "does not compile")
	after, err := os.ReadFile(filepath.Join(root, "internal/rng/rng.go"))
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "the module's file was written")
}
