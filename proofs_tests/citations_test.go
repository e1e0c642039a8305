package proofs_tests

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/fixtures/paper"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pinnedRepo is one pinned list of fixtures/authors/lines-*.tsv: the files
// of a repository at one commit and their line counts
// (fixtures/authors/linecounts.sh writes it from a clone).
type pinnedRepo struct {
	repo, commit string
	lines        map[string]int
}

// loadPinned reads every fixtures/authors/lines-*.tsv.
func loadPinned(t *testing.T) []*pinnedRepo {
	t.Helper()
	paths, err := filepath.Glob("../fixtures/authors/lines-*.tsv")
	require.NoError(t, err)
	require.NotEmpty(t, paths, "no pinned list of the authors' files under fixtures/authors")
	var out []*pinnedRepo
	for _, p := range paths {
		f, err := os.Open(p)
		require.NoError(t, err)
		r := &pinnedRepo{lines: map[string]int{}}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "# ") {
				h := strings.Fields(line[2:])
				require.Lenf(t, h, 2, "%s: header %q, want '# REPO COMMIT'", p, line)
				r.repo, r.commit = h[0], h[1]
				continue
			}
			path, n, ok := strings.Cut(line, "\t")
			require.Truef(t, ok, "%s: line %q is not PATH<TAB>COUNT", p, line)
			c, err := strconv.Atoi(n)
			require.NoErrorf(t, err, "%s: line %q", p, line)
			r.lines[path] = c
		}
		require.NoError(t, sc.Err())
		f.Close()
		require.Regexpf(t, `^[0-9a-f]{40}$`, r.commit, "%s: no full commit in its header", p)
		require.NotEmptyf(t, r.lines, "%s lists no file", p)
		out = append(out, r)
	}
	return out
}

// pinnedFor returns the pinned list whose commit starts with c.
func pinnedFor(pins []*pinnedRepo, c string) *pinnedRepo {
	for _, p := range pins {
		if strings.HasPrefix(p.commit, c) {
			return p
		}
	}
	return nil
}

// resolve finds the file a citation names: the path itself, or else the one
// file of the list whose path ends in /name ("make_groups.py" is
// llpfclib/make_groups.py). An ambiguous short name resolves to nothing.
func (p *pinnedRepo) resolve(name string) (string, bool) {
	if _, ok := p.lines[name]; ok {
		return name, true
	}
	found := ""
	for path := range p.lines {
		if strings.HasSuffix(path, "/"+name) {
			if found != "" {
				return "", false
			}
			found = path
		}
	}
	return found, found != ""
}

var (
	// citationRe matches PATH@COMMIT with an optional :LINES, LINES a
	// comma-separated list of lines and ranges (hyphen or en dash).
	citationRe = regexp.MustCompile(`([A-Za-z0-9_][A-Za-z0-9_./-]*\.[A-Za-z0-9]+)@([0-9a-f]{7,40})(?::(\d+(?:[-–]\d+)?(?:,\d+(?:[-–]\d+)?)*))?`)
	// contRe matches a backticked continuation `:LINES` of the last file
	// cited in the same table row or paragraph.
	contRe = regexp.MustCompile("`:(\\d+(?:[-–]\\d+)?(?:,\\d+(?:[-–]\\d+)?)*)`")
	// itemRe matches the first line of a list item.
	itemRe = regexp.MustCompile(`^\s*(?:[-*]|\d+\.) `)
	// bareRe matches PATH:LINES without a commit.
	bareRe = regexp.MustCompile(`([A-Za-z0-9_][A-Za-z0-9_./-]*\.(?:py|m|yml|ipynb|md)):(\d+)`)
)

// checkLines reports the ranges of spec that do not lie within a file of n
// lines (or are reversed).
func checkLines(spec string, n int) []string {
	var bad []string
	for _, part := range strings.Split(spec, ",") {
		a, b, isRange := strings.Cut(strings.ReplaceAll(part, "–", "-"), "-")
		lo, _ := strconv.Atoi(a)
		hi := lo
		if isRange {
			hi, _ = strconv.Atoi(b)
		}
		if lo < 1 || hi < lo || hi > n {
			bad = append(bad, fmt.Sprintf("%s (the file has %d lines)", part, n))
		}
	}
	return bad
}

// citationProblems returns what is wrong with the code citations of doc
// (named name in the messages): a PATH@COMMIT whose commit has no pinned
// list, whose file the pinned list lacks (or names ambiguously), or whose
// lines lie outside the file; a backticked `:LINES` continuation with no
// file cited before it in its table row or paragraph, or outside that file;
// and, when bare is set, an authors' file cited with lines but no commit.
func citationProblems(name, doc string, pins []*pinnedRepo, bare bool) []string {
	var probs []string
	for _, block := range blocks(doc) {
		var last *pinnedRepo
		lastPath := ""
		type hit struct {
			at   int
			cont bool
			m    []string
		}
		var hits []hit
		for _, idx := range citationRe.FindAllStringSubmatchIndex(block, -1) {
			hits = append(hits, hit{at: idx[0], m: submatches(block, idx)})
		}
		for _, idx := range contRe.FindAllStringSubmatchIndex(block, -1) {
			hits = append(hits, hit{at: idx[0], cont: true, m: submatches(block, idx)})
		}
		sortHits := func(i, j int) bool { return hits[i].at < hits[j].at }
		for i := 1; i < len(hits); i++ {
			for j := i; j > 0 && sortHits(j, j-1); j-- {
				hits[j], hits[j-1] = hits[j-1], hits[j]
			}
		}
		for _, h := range hits {
			if h.cont {
				if last == nil {
					probs = append(probs, fmt.Sprintf("%s: `:%s` follows no cited file in %q", name, h.m[1], clip(block)))
					continue
				}
				for _, b := range checkLines(h.m[1], last.lines[lastPath]) {
					probs = append(probs, fmt.Sprintf("%s: `:%s` (continuing %s@%s): line %s", name, h.m[1], lastPath, last.commit[:7], b))
				}
				continue
			}
			file, commit, lines := h.m[1], h.m[2], h.m[3]
			p := pinnedFor(pins, commit)
			if p == nil {
				probs = append(probs, fmt.Sprintf("%s: %s@%s: no pinned list of commit %s under fixtures/authors", name, file, commit, commit))
				last = nil
				continue
			}
			path, ok := p.resolve(file)
			if !ok {
				probs = append(probs, fmt.Sprintf("%s: %s@%s: %s at %s has no such file (or several end so; give the path)", name, file, commit, p.repo, p.commit[:7]))
				last = nil
				continue
			}
			last, lastPath = p, path
			if lines == "" {
				continue
			}
			for _, b := range checkLines(lines, p.lines[path]) {
				probs = append(probs, fmt.Sprintf("%s: %s@%s:%s: line %s", name, file, commit, lines, b))
			}
		}
		if bare {
			for _, m := range bareRe.FindAllStringSubmatch(block, -1) {
				for _, p := range pins {
					if _, ok := p.resolve(m[1]); ok {
						probs = append(probs, fmt.Sprintf("%s: %s:%s cites %s's file without its commit; write %s@%s:%s", name, m[1], m[2], p.repo, m[1], p.commit[:7], m[2]))
						break
					}
				}
			}
		}
	}
	return probs
}

func submatches(s string, idx []int) []string {
	out := make([]string, len(idx)/2)
	for i := range out {
		if idx[2*i] >= 0 {
			out[i] = s[idx[2*i]:idx[2*i+1]]
		}
	}
	return out
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// blocks splits a document into the units a continuation `:LINES` refers
// within: each table row is one, and each paragraph or list item (lines up
// to a blank line, a table row or the next item) another.
func blocks(doc string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(strings.TrimSpace(line), "|"):
			flush()
			out = append(out, line)
		case strings.TrimSpace(line) == "":
			flush()
		case itemRe.MatchString(line):
			flush()
			cur = append(cur, line)
		default:
			cur = append(cur, line)
		}
	}
	flush()
	return out
}

// citingFiles lists the repository's documents and sources that may cite
// the authors' code: every .md, .go, .py and .sh file outside .git and
// testdata.
func citingFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if filepath.Base(p) == "citations_test.go" {
			return nil // this file: its made-up citations are the checker's own tests
		}
		switch filepath.Ext(p) {
		case ".md", ".go", ".py", ".sh":
			out = append(out, p)
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// TestCodeCitationsExist checks every citation of the authors' code in the
// repository's documents and sources (PAPER_MAP's audit, "Paper vs original
// code", and the doc comments that cite file@commit:lines) against the pinned
// line counts of fixtures/authors/lines-*.tsv: the file exists at that
// commit and every cited line and range lies within it. In PAPER_MAP.md a
// backticked `:LINES` after a citation continues it, and an authors' file
// cited with lines must name its commit.
func TestCodeCitationsExist(t *testing.T) {
	pins := loadPinned(t)
	require.NotNil(t, pinnedFor(pins, "1d0cbc5"), "fixtures/authors has no pinned list of 1d0cbc5")
	total := 0
	for _, f := range citingFiles(t) {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		doc := string(b)
		total += len(citationRe.FindAllString(doc, -1))
		isMap := filepath.Base(f) == "PAPER_MAP.md"
		for _, p := range citationProblems(f, doc, pins, isMap) {
			t.Error(p)
		}
	}
	assert.GreaterOrEqual(t, total, 60, "found only %d file@commit citations; is the pattern broken?", total)
}

// The citation checker catches what it exists to catch: each case is a
// citation a person could get wrong, and each must be reported.
func TestCitationProblemsCatchMadeUpCitations(t *testing.T) {
	pins := []*pinnedRepo{{repo: "github.com/x/y", commit: "1d0cbc5349a07e69e73737ec86ec2651a3d0ebe7",
		lines: map[string]int{"llpfc.py": 93, "llpfclib/make_groups.py": 188, "kllib/utils.py": 64, "utils.py": 382, "llpfclib/utils.py": 63, "kllib/train_fun.py": 46, "llpganlib/train_fun.py": 109}}}
	cases := []struct {
		name, doc string
		bad       bool
	}{
		{"exact", "`llpfc.py@1d0cbc5:12-17`", false},
		{"short name", "`make_groups.py@1d0cbc5:188`", false},
		{"root file wins", "`utils.py@1d0cbc5:232–281`", false},
		{"line list", "`make_groups.py@1d0cbc5:43,83`", false},
		{"continuation", "| `llpfc.py@1d0cbc5:12-17` and `:20-24` |", false},
		{"no lines", "`llpfc.py@1d0cbc5`", false},
		{"line past the end", "`llpfc.py@1d0cbc5:94`", true},
		{"range past the end", "`make_groups.py@1d0cbc5:175-189`", true},
		{"reversed range", "`llpfc.py@1d0cbc5:17-12`", true},
		{"line zero", "`llpfc.py@1d0cbc5:0`", true},
		{"no such file", "`llpgan_lib.py@1d0cbc5:3`", true},
		{"ambiguous short name", "`train_fun.py@1d0cbc5:3`", true},
		{"unpinned commit", "`llpfc.py@be71b76:3`", true},
		{"continuation past the end", "| `llpfc.py@1d0cbc5:12` then `:99` |", true},
		{"orphan continuation", "| see `:12` |", true},
		{"continuation of the previous row", "| `llpfc.py@1d0cbc5:12` |\n| `:13` |", true},
		{"no commit", "`llpganlib/train_fun.py:41`", true},
		{"continuation of the previous list item", "- `llpfc.py@1d0cbc5:12`\n- see `:13`", true},
		{"continuation within a wrapped item", "- `llpfc.py@1d0cbc5:12`,\n  and `:13`", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			probs := citationProblems("doc", c.doc, pins, true)
			if c.bad {
				assert.NotEmpty(t, probs, "%q passed", c.doc)
			} else {
				assert.Empty(t, probs, "%q", c.doc)
			}
		})
	}
}

var (
	backtickRe = regexp.MustCompile("`([^`\n]+)`")
	dottedRe   = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$`)
	notLabelRe = regexp.MustCompile(`[@(/=\\"{]|\.(py|go|md|m|txt|json|jsonl|sh|yml|csv|png|npz|npy|tsv|gz|ipynb|mat)$`)
	// genericPrefixes are the usual LaTeX label prefixes, so that a made-up
	// `thm: …` or `eq: …` is taken for a label even where the paper has no
	// label of that prefix.
	genericPrefixes = []string{"eq", "eqn", "equation", "def", "definition", "thm", "theorem", "lem", "lemma",
		"prop", "proposition", "cor", "corollary", "sec", "subsec", "subsubsec", "suppsec", "app", "appendix",
		"fig", "figure", "tab", "table", "algo", "algorithm", "assump", "assumption", "rem", "remark"}
)

// labelShape decides which backticked tokens are written as labels of the
// paper: PREFIX:REST where PREFIX is what precedes the colon of one of the
// paper's (or the declared) labels or a generic LaTeX prefix, or a lowercase
// dotted name whose first part begins one of them (`llp.cali`,
// `lambda0.formula`). File names, code (calls, paths, assignments) and test
// names are not.
type labelShape struct{ colon, dotted map[string]bool }

func newLabelShape(names []string) labelShape {
	s := labelShape{colon: map[string]bool{}, dotted: map[string]bool{}}
	for _, g := range genericPrefixes {
		s.colon[g], s.dotted[g] = true, true
	}
	for _, l := range names {
		if p, _, ok := strings.Cut(l, ":"); ok {
			s.colon[strings.TrimSpace(p)] = true
		} else if p, _, ok := strings.Cut(l, "."); ok {
			s.dotted[p] = true
		}
	}
	return s
}

func (s labelShape) is(tok string) bool {
	if notLabelRe.MatchString(tok) {
		return false
	}
	if p, _, ok := strings.Cut(tok, ":"); ok {
		return s.colon[strings.TrimSpace(p)]
	}
	if dottedRe.MatchString(tok) {
		p, _, _ := strings.Cut(tok, ".")
		return s.dotted[p]
	}
	return false
}

// labelProblems returns the backticked tokens of doc written as labels that
// are neither a \label of the paper nor a declared unlabelled statement, and
// the declared statements that doc does not list with their line in a table
// row "| `NAME` | LINE |".
func labelProblems(doc string, labels []string, unl []paper.Unlabelled) []string {
	known := map[string]string{}
	var names []string
	for _, l := range labels {
		known[l] = "label"
		names = append(names, l)
	}
	for _, u := range unl {
		known[u.Name] = "unlabelled"
		names = append(names, u.Name)
	}
	shape := newLabelShape(names)
	var probs []string
	seen := map[string]bool{}
	for _, m := range backtickRe.FindAllStringSubmatch(doc, -1) {
		tok := m[1]
		if seen[tok] || !shape.is(tok) {
			continue
		}
		seen[tok] = true
		if known[tok] == "" {
			probs = append(probs, fmt.Sprintf("`%s` is written as a label, but the paper has no \\label{%s} and fixtures/paper/unlabelled.txt does not declare it", tok, tok))
		}
	}
	for _, u := range unl {
		row := fmt.Sprintf("| `%s` | %d |", u.Name, u.Line)
		if !strings.Contains(doc, row) {
			probs = append(probs, fmt.Sprintf("the unlabelled statement `%s` is not listed with its line: no row %q", u.Name, row))
		}
	}
	return probs
}

// TestPaperMapLabelsExist checks that every backticked label of PAPER_MAP.md
// is a \label of the paper's LaTeX source (fixtures/paper/all_labels.txt,
// re-derived from the source by TestAllLabelsMatchLaTeX) or one of our names
// for a statement the paper leaves unlabelled (fixtures/paper/unlabelled.txt,
// whose lines TestUnlabelledStatementsMatchLaTeX checks), and that PAPER_MAP
// lists each of the latter with its line.
func TestPaperMapLabelsExist(t *testing.T) {
	pm := readPaperMap(t)
	for _, p := range labelProblems(pm, paper.AllLabels(), paper.UnlabelledStatements()) {
		t.Error(p)
	}
}

// The label checker reports a made-up label, a real statement's name
// misspelt, and an unlabelled statement listed at a wrong line; it passes
// real labels, declared names and code.
func TestLabelProblemsCatchMadeUpLabels(t *testing.T) {
	labels := []string{"thm: geb", "llp.cali", "sec:exp", "main.first", "grouping assumption: ch"}
	unl := []paper.Unlabelled{{Name: "lambda0.formula", Line: 265, Text: "x"}}
	decl := "\n| `lambda0.formula` | 265 | … |\n"
	cases := []struct {
		name, doc string
		bad       bool
	}{
		{"labels and code", "`thm: geb`, `llp.cali`, `sec:exp`, `main.first`, `grouping assumption: ch`, `lambda0.formula`, `data.Fit`, `utils.py`, `llpfc.py@1d0cbc5:12`, `hyper.select`, `TestX`", false},
		{"made-up theorem", "`thm: made up`", true},
		{"made-up generic prefix", "`eq: made up`", true},
		{"misspelt label", "`thm:geb`", true},
		{"made-up dotted label", "`llp.calibration`", true},
		{"made-up name under an unlabelled prefix", "`lambda0.formulas`", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			probs := labelProblems(c.doc+decl, labels, unl)
			if c.bad {
				assert.NotEmpty(t, probs, "%q passed", c.doc)
			} else {
				assert.Empty(t, probs, "%q", c.doc)
			}
		})
	}
	assert.NotEmpty(t, labelProblems("| `lambda0.formula` | 264 | … |", labels, unl), "a declared statement at a wrong line passed")
}
