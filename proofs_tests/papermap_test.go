package proofs_tests

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/theory/verify"
)

// paperPath is the paper's LaTeX source, in ../shared beside the checkout.
const paperPath = "../../shared/paper/llpfc-neurips2022.tex"

func readPaperMap(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../PAPER_MAP.md")
	if err != nil {
		t.Fatalf("PAPER_MAP.md at the repository root: %v", err)
	}
	return string(b)
}

// numberedLabels returns the LaTeX labels of the paper's numbered items —
// every \label except those of sections, figures and footnotes — in order.
func numberedLabels(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(paperPath)
	if err != nil {
		t.Fatalf("the paper's source is expected at %s (../shared beside the checkout): %v", paperPath, err)
	}
	defer f.Close()
	re := regexp.MustCompile(`\\label\{([^}]*)\}`)
	var labels []string
	prev := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		for _, m := range re.FindAllStringSubmatchIndex(line, -1) {
			before := line[:m[0]]
			ctx := before
			if strings.TrimSpace(before) == "" {
				ctx = prev
			}
			if strings.Contains(ctx, `\section`) || strings.Contains(ctx, `\subsection`) ||
				strings.Contains(ctx, `\footnote`) || strings.Contains(ctx, `\begin{figure}`) {
				continue
			}
			labels = append(labels, line[m[2]:m[3]])
		}
		prev = line
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return labels
}

// TestPaperMapCoversEveryNumberedItem checks that every labelled result,
// equation, assumption, algorithm and table of the paper appears in
// PAPER_MAP.md (as `label` in backticks).
func TestPaperMapCoversEveryNumberedItem(t *testing.T) {
	pm := readPaperMap(t)
	labels := numberedLabels(t)
	if len(labels) < 50 {
		t.Fatalf("found only %d labels in the paper; the parser is broken", len(labels))
	}
	for _, l := range labels {
		if !strings.Contains(pm, "`"+l+"`") {
			t.Errorf("PAPER_MAP.md does not list the paper's item `%s`", l)
		}
	}
}

// TestPaperMapListsEveryClaim checks that every checker registered for
// `llpfc verify` is listed in PAPER_MAP.md.
func TestPaperMapListsEveryClaim(t *testing.T) {
	pm := readPaperMap(t)
	for _, c := range verify.Claims() {
		if !strings.Contains(pm, "`"+c.Label+"`") {
			t.Errorf("claim %q is checked but not listed in PAPER_MAP.md", c.Label)
		}
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
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile("`((?:Test|Fuzz|Example|Benchmark)\\w*)`").FindAllStringSubmatch(pm, -1)
	if len(named) == 0 {
		t.Fatal("PAPER_MAP.md names no test")
	}
	for _, m := range named {
		if !defined[m[1]] {
			t.Errorf("PAPER_MAP.md names %s, which no _test.go file defines", m[1])
		}
	}
}
