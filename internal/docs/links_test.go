package docs

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every relative link of README.md and docs/*.md names a file of the
// repository, and every #fragment a heading of its target.
func TestEveryLinkResolves(t *testing.T) {
	broken, err := BrokenLinks(root)
	require.NoError(t, err)
	assert.Empty(t, broken, "links of the documentation that lead nowhere")
	files, err := Files(root)
	require.NoError(t, err)
	require.Greater(t, len(files), 5, "README.md and the guides")
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		require.NoError(t, err)
		for _, l := range Links(string(b)) {
			if strings.Contains(l.Target, "#") && !external.MatchString(l.Target) {
				n++
			}
		}
	}
	assert.Greater(t, n, 5, "the guides link to each other's headings: the check has something to check")
}

// Anchor gives the fragments GitHub gives these headings (read off the
// rendered pages' heading links).
func TestAnchorIsGitHubs(t *testing.T) {
	for h, want := range map[string]string{
		"Section 6 in miniature: `--table fashion-mnist`":                  "section-6-in-miniature---table-fashion-mnist",
		"The authors' settings: EasyLLP, MixBag and LLP-PVC beside LLPFC":  "the-authors-settings-easyllp-mixbag-and-llp-pvc-beside-llpfc",
		"A model out: `--save-model`, `llpfc predict`, PyTorch":            "a-model-out---save-model-llpfc-predict-pytorch",
		"Exit status, checks before a run, and what a report counts":       "exit-status-checks-before-a-run-and-what-a-report-counts",
		"From Python: `LLPClassifier`":                                     "from-python-llpclassifier",
		"Where LLPFC breaks: near-uniform bags":                            "where-llpfc-breaks-near-uniform-bags",
		"snake_case and **bold** (parens) [a link](x.md#y) ./path/file.go": "snake_case-and-bold-parens-a-link-pathfilego",
		"Café au lait, 2×2":                                                "café-au-lait-22",
	} {
		assert.Equal(t, want, Anchor(h), h)
	}
}

func TestAnchorsNumberRepeats(t *testing.T) {
	text := "# A\n\n## A\n\n```sh\n# A\n```\n\n### A #\n\n#NotAHeading\n\n    # indented code, not a heading\n"
	got := Anchors(text)
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	assert.Equal(t, []string{"a", "a-1", "a-2"}, keys, "the comment in the code block, #NotAHeading and the indented line are no headings")
}

func TestCodeBlocks(t *testing.T) {
	text := "x\n```sh\nllpfc train\n```\n\n````text\n```\ninner\n```\n````\n~~~\ntilde\n~~~\n```python\nopen"
	got := CodeBlocks(text)
	require.Len(t, got, 4)
	assert.Equal(t, CodeBlock{Lang: "sh", Body: "llpfc train\n", Line: 2}, got[0])
	assert.Equal(t, CodeBlock{Lang: "text", Body: "```\ninner\n```\n", Line: 6}, got[1], "a longer fence holds a shorter one")
	assert.Equal(t, CodeBlock{Lang: "", Body: "tilde\n", Line: 11}, got[2])
	assert.Equal(t, CodeBlock{Lang: "python", Body: "open\n", Line: 14}, got[3], "a block left open runs to the end")
}

func TestLinksSkipCode(t *testing.T) {
	text := "[a](a.md) `[b](b.md)` and ``[c](c.md)``\n~~~\n[d](d.md)\n~~~\n![e](img/e.png \"title\") [f](<https://x>) `multi\nline [g](g.md)` [h](#h)\n"
	var got []Link
	for _, l := range Links(text) {
		got = append(got, l)
	}
	assert.Equal(t, []Link{{"a.md", 1}, {"img/e.png", 5}, {"https://x", 5}, {"#h", 6}}, got)
}

// BrokenLinks finds each kind of broken link, and only those.
func TestBrokenLinksCanFail(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"README.md": "# Top\n\n[ok](docs/g.md#good) [frag](docs/g.md#bad) [gone](missing.md) [folder](docs/)\n" +
			"[self](#top) [noself](#nowhere) [abs](/etc/passwd) [out](../x.md) [web](https://example.com/#x)\n" +
			"[code frag](main.go#L1) `[span](missing2.md)`\n",
		"docs/g.md": "# G\n\n## Good\n\n[back](../README.md#top) [back bad](../README.md#g) [sib](h.md) [up dir](../docs/g.md#g)\n",
		"main.go":   "package main\n",
	})
	broken, err := BrokenLinks(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"README.md:3: docs/g.md#bad: docs/g.md has no heading #bad",
		"README.md:3: missing.md: no file missing.md",
		"README.md:4: #nowhere: README.md has no heading #nowhere",
		"README.md:4: /etc/passwd: an absolute path: write it relative to .",
		"README.md:4: ../x.md: leaves the repository",
		"README.md:5: main.go#L1: a #fragment on main.go, which has no headings",
		"docs/g.md:5: ../README.md#g: README.md has no heading #g",
		"docs/g.md:5: h.md: no file docs/h.md",
	}, broken)
}

// On generated headings, a link to each heading's Anchor resolves (repeats
// numbered as GitHub numbers them) and a link to a fragment no heading has
// is reported.
func TestPropertyAnchorsResolve(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 200
	params.Rng.Seed(61)
	props := gopter.NewProperties(params)
	word := gen.OneConstOf("LLPFC", "bag", "Size", "`--table`", "x_y", "2048", "near-uniform", "(paper)", "café", "T̂", "a/b.go", "**bold**", ":", ",", "'s", "–")
	head := gen.SliceOfN(4, word).Map(func(ws []string) string { return strings.Join(ws, " ") })
	props.Property("every heading's anchor resolves; a missing one is reported", prop.ForAll(
		func(hs []string) bool {
			var g, r strings.Builder
			g.WriteString("# Guide\n\n")
			seen := map[string]int{}
			r.WriteString("# Readme\n\n")
			for _, h := range hs {
				g.WriteString("## " + h + "\n\ntext\n\n")
				a := Anchor(h)
				if a == "" {
					continue
				}
				n := seen[a]
				seen[a]++
				if n > 0 {
					a += "-" + strconv.Itoa(n)
				}
				r.WriteString("[h](docs/g.md#" + a + ")\n")
			}
			r.WriteString("[none](docs/g.md#zz-no-such-heading)\n")
			dir := writeTree(t, map[string]string{"README.md": r.String(), "docs/g.md": g.String()})
			broken, err := BrokenLinks(dir)
			return err == nil && len(broken) == 1 && strings.Contains(broken[0], "#zz-no-such-heading")
		},
		gen.SliceOfN(6, head),
	))
	props.TestingRun(t)
}

// README.md is the newcomer's page: at most 400 lines, with the two set-up
// commands, and a map that links every guide of docs/.
func TestReadmeIsTheMap(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	readme := string(b)
	assert.LessOrEqual(t, strings.Count(readme, "\n"), 400, "README.md is read in ten minutes: move the detail to a guide in docs/")
	assert.Contains(t, readme, "go run ./cmd/llpfc reproduce --quick")
	assert.Contains(t, readme, "make test")
	linked := map[string]bool{}
	for _, l := range Links(readme) {
		path, _, _ := strings.Cut(l.Target, "#")
		linked[path] = true
	}
	files, err := Files(root)
	require.NoError(t, err)
	for _, f := range files[1:] {
		assert.True(t, linked[f], "README.md's map of the guides does not link %s", f)
	}
}
