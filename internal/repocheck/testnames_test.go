package repocheck

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// testName matches a Go test's name as the documents cite it.
var testName = regexp.MustCompile(`\bTest[A-Z][A-Za-z0-9_]*`)

// TestCitedTestsExist: every Go test the architecture, the README,
// MUTATIONS.md and the guides name is a test of the repository, as
// proofs_tests' TestPaperMapTestsExist holds PAPER_MAP.md's. A renamed or
// removed test otherwise leaves a "checked by" pointing at nothing, and a
// reader auditing the claim finds no test to run (bench/NOTES.md is a
// dated log and may name the tests of its day).
func TestCitedTestsExist(t *testing.T) {
	defined := map[string]bool{}
	decl := regexp.MustCompile(`(?m)^func (Test[A-Z][A-Za-z0-9_]*)\(`)
	for _, f := range repoFiles(t) {
		if !strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		require.NoError(t, err)
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			defined[m[1]] = true
		}
	}
	docs := []string{"ARCHITECTURE.md", "README.md", "MUTATIONS.md"}
	guides, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	for _, g := range guides {
		rel, _ := filepath.Rel(root, g)
		docs = append(docs, rel)
	}
	missing := map[string][]string{}
	for _, d := range docs {
		b, err := os.ReadFile(filepath.Join(root, d))
		require.NoError(t, err)
		for _, n := range testName.FindAllString(string(b), -1) {
			if !defined[n] && !strings.HasSuffix(n, "_") {
				missing[d] = append(missing[d], n)
			}
		}
	}
	var lines []string
	for d, ns := range missing {
		sort.Strings(ns)
		lines = append(lines, d+": "+strings.Join(ns, ", "))
	}
	sort.Strings(lines)
	require.Empty(t, lines, "tests these documents name that no _test.go defines")
}
