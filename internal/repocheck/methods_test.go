package repocheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/training/methods"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// methodNameUses are the places, beside a method's own file, where a string
// literal spelled like a method's name is allowed, because it names
// something else: file → literal → how many times, and why
// (TestMethodNamesOnlyInDescriptors).
var methodNameUses = map[string]map[string]int{
	// VATRampupLLPVAT, the consistency-weight schedule of LLP-VAT's own code
	"training/loss/vat.go": {"llpvat": 1},
	// the binary kernel experiment's own learners (training/kernel), not
	// these methods
	"experiments/binary/run.go": {"llpfc-uniform": 3, "llpfc-approx": 3},
	// the built-in table called llpgan (Table 4), named after the method it
	// compares, and its place among reproduce's tables
	"experiments/grid/builtin.go": {"llpgan": 2},
	"cmd/llpfc/reproduce.go":      {"llpgan": 3},
}

// methodFiles returns, for each registered method, the files under
// training/methods/ that declare its name (the constant its descriptor's
// Name takes, or the literal itself).
func methodFiles(t *testing.T, names map[string]bool) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range repoFiles(t) {
		if !strings.HasPrefix(f, "training/methods/") || !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") {
			continue
		}
		for _, lit := range stringLiterals(t, f) {
			if names[lit] {
				out[lit] = f
			}
		}
	}
	return out
}

// stringLiterals returns the string literals of the Go file f, unquoted.
func stringLiterals(t *testing.T, f string) []string {
	t.Helper()
	af, err := parser.ParseFile(token.NewFileSet(), root+"/"+f, nil, parser.SkipObjectResolution)
	require.NoError(t, err)
	var out []string
	ast.Inspect(af, func(n ast.Node) bool {
		if bl, ok := n.(*ast.BasicLit); ok && bl.Kind == token.STRING {
			if s, err := strconv.Unquote(bl.Value); err == nil {
				out = append(out, s)
			}
		}
		return true
	})
	return out
}

// TestMethodNamesOnlyInDescriptors: a method's name is spelled,
// as a string literal, only in its own file under training/methods/ (its
// descriptor and implementation) and in tests: every other place reads the
// registry (methods.All, methods.Lookup) or the name's constant, so that a
// new method is its files and one registration, not a name typed in ten
// places. methodNameUses lists the files where the spelling names something
// else.
func TestMethodNamesOnlyInDescriptors(t *testing.T) {
	names := map[string]bool{}
	for _, d := range methods.All() {
		names[d.Name] = true
	}
	require.GreaterOrEqual(t, len(names), 10, "the registry should hold the built-in methods")
	own := methodFiles(t, names)
	for n := range names {
		assert.NotEmpty(t, own[n], "method %s: no file under training/methods/ spells its name", n)
	}
	var bad []string
	checked := 0
	for _, f := range repoFiles(t) {
		if !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") || strings.Contains(f, "/testdata/") ||
			strings.HasPrefix(f, "experiments/internal/") || strings.HasPrefix(f, "training/internal/") { // tests' support code
			continue
		}
		if f == "cmd/mutate/mutations.go" {
			continue // the realistic bugs: fragments of the code they mutate
		}
		checked++
		count := map[string]int{}
		for _, lit := range stringLiterals(t, f) {
			if names[lit] && own[lit] != f {
				count[lit]++
			}
		}
		for lit, n := range count {
			if n > methodNameUses[f][lit] {
				bad = append(bad, fmt.Sprintf("%s: %q %d times", f, lit, n))
			}
		}
		for lit, n := range methodNameUses[f] {
			assert.Equal(t, n, count[lit], "methodNameUses: %s spells %q %d times, not %d: update the list", f, lit, count[lit], n)
		}
	}
	sort.Strings(bad)
	assert.Empty(t, bad, "method names spelled outside their descriptors: use the registry (training/methods) or the name's constant")
	assert.Greater(t, checked, 100, "the walk should read the repository's Go files")
	for f := range methodNameUses {
		_, err := os.Stat(root + "/" + f)
		assert.NoError(t, err, "methodNameUses lists %s", f)
	}
	// The check finds a name spelled where it should not be.
	assert.Contains(t, stringLiterals(t, "experiments/grid/builtin.go"), "llpgan", "the walk reads literals")
}
