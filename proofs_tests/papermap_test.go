package proofs_tests

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/fixtures/paper"
	"github.com/llpfc/llpfc/theory/verify"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readPaperMap(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../PAPER_MAP.md")
	require.NoErrorf(t, err, "PAPER_MAP.md at the repository root: %v", err)
	return string(b)
}

// TestPaperMapCoversEveryNumberedItem checks that every labelled result,
// equation, assumption, algorithm and table of the paper appears in
// PAPER_MAP.md (as `label` in backticks). The list of items is the committed
// fixtures/paper/labels.txt, which TestNumberedLabelsMatchLaTeX re-derives from
// the LaTeX source where it is present, so this test needs nothing outside the
// repository.
func TestPaperMapCoversEveryNumberedItem(t *testing.T) {
	pm := readPaperMap(t)
	labels := paper.NumberedLabels()
	require.GreaterOrEqualf(t, len(labels), 50, "fixtures/paper/labels.txt lists only %d labels; it is damaged", len(labels))
	for _, l := range labels {
		assert.Containsf(t, pm, "`"+l+"`", "PAPER_MAP.md does not list the paper's item `%s`", l)
	}
}

// TestPaperMapListsEveryClaim checks that every checker registered for
// `llpfc verify` is listed in PAPER_MAP.md.
func TestPaperMapListsEveryClaim(t *testing.T) {
	pm := readPaperMap(t)
	for _, c := range verify.Claims() {
		assert.Containsf(t, pm, "`"+c.Label+"`", "claim %q is checked but not listed in PAPER_MAP.md", c.Label)
	}
}

// TestPaperMapTestsExist checks that every test PAPER_MAP.md names exists as
// a test function somewhere in the repository.
func TestPaperMapTestsExist(t *testing.T) {
	pm := readPaperMap(t)
	defined := map[string]bool{}
	fn := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Example|Benchmark)\w*)\(`)
	err := filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, "_test.go") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range fn.FindAllStringSubmatch(string(b), -1) {
				defined[m[1]] = true
			}
		}
		return nil
	})
	require.NoError(t, err)
	named := regexp.MustCompile("`((?:Test|Fuzz|Example|Benchmark)\\w*)`").FindAllStringSubmatch(pm, -1)
	require.NotEmpty(t, named, "PAPER_MAP.md names no test")
	for _, m := range named {
		assert.Truef(t, defined[m[1]], "PAPER_MAP.md names %s, which no _test.go file defines", m[1])
	}
}
