package repocheck

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// issueNumber matches a tracker's number as prose cites it: the word issue
// or issues, then spaces, a hyphen or an underscore, line breaks and the
// comment leaders of a wrapped comment (//, #, *), an optional #, digits;
// or # and one to four digits after a space or an opening parenthesis (a
// colour such as #0072B2 is not one).
var issueNumber = regexp.MustCompile(`(?i)\bissues?(?:[\s_-]|//|#|\*)+[0-9]+|(?:^|[\s(])#[0-9]{1,4}\b`)

// trackedFiles lists the files git tracks under root (the index's list:
// what a clone holds). Outside a git checkout — an exported tree — it
// lists every file under root and says so.
func trackedFiles(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Logf("not a git checkout (%v): reading every file under the root", err)
		return repoFiles(t)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files
}

// No tracked file names an issue by its number — code, comments, test
// names, scripts, the Makefile, CI, the documentation, committed reports:
// a reader outside the tracker cannot resolve one, so the text says the
// reason instead (what the code guards against, what once went wrong, the
// paper's item), and the history stays in the log. Nothing in the tree
// needs to keep one, so there is no allow-list; one would name its file
// and its reason here. Files that are not UTF-8 text (images, weights,
// archives) are not prose and are left out.
func TestNoIssueNumbers(t *testing.T) {
	files := trackedFiles(t)
	kinds := map[string]int{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if os.IsNotExist(err) {
			continue // deleted in the working tree, not yet in the index
		}
		require.NoError(t, err)
		if bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
			continue
		}
		kinds[filepath.Ext(f)]++
		for _, m := range issueNumber.FindAllIndex(b, -1) {
			t.Errorf("%s:%d: %q: say the reason, not the issue", f, 1+bytes.Count(b[:m[0]], []byte("\n")), strings.TrimSpace(string(b[m[0]:m[1]])))
		}
	}
	for _, ext := range []string{".go", ".md", ".sh", ".py", ".json"} {
		assert.Positive(t, kinds[ext], "no %s file was read: the check has nothing to check", ext)
	}
}

// The pattern finds the citations of a number in the shapes the tree held
// them, and not the words or numbers beside them.
func TestIssueNumberPattern(t *testing.T) {
	cite := func(format string, n int) string { return fmt.Sprintf(format, n) }
	for s, want := range map[string]bool{
		cite("issue %d", 50):             true,
		cite("(issue\n%d's", 50):         true,
		cite("Issues %d, 31", 11):        true,
		cite("see #%d", 62):              true,
		cite("(#%d)", 62):                true,
		cite("the issue-%d case", 53):    true,
		cite("Issue-%d small models", 5): true,
		cite("(issue\n// %d)", 27):       true,
		cite("(issue\n#   %d)", 28):      true,
		cite("(issue\n *  %d)", 28):      true,
		cite("issue_%d", 12):             true,
		cite("issue #%d", 7):             true,
		"an issue":                       false,
		"issues eight loads":             false,
		"tissue 5":                       false,
		"C# 7":                           false,
		"bag 2048":                       false,
		"`#L10`":                         false,
		"#0072B2":                        false,
		"colour #009E73":                 false,
		"## 2026-11-25":                  false,
	} {
		assert.Equal(t, want, issueNumber.MatchString(s), "%q", s)
	}
}

// Generated: the word, any run of the separators a wrapped comment puts
// between it and the number, and any number, in any case, is found; the
// same with a letter glued before the word, or a separator the pattern does
// not take (a full stop, a colon), is not.
func TestPropertyIssueNumberPattern(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 500
	properties := gopter.NewProperties(params)
	seps := []string{" ", "\n", "\t", "-", "_", "//", "#", "*", "\n// ", "\n# ", "\n * "}
	word := gen.OneConstOf("issue", "issues", "Issue", "ISSUES")
	sep := gen.SliceOfN(3, gen.IntRange(0, len(seps)-1))
	properties.Property("found with the separators of prose and comments", prop.ForAll(
		func(w string, s []int, n int) bool {
			var b strings.Builder
			for _, i := range s {
				b.WriteString(seps[i])
			}
			return issueNumber.MatchString(fmt.Sprintf("the %s%s%d said", w, b.String(), n))
		}, word, sep, gen.IntRange(0, 99999)))
	properties.Property("not found glued to a word or after another separator", prop.ForAll(
		func(w string, glue string, n int) bool {
			return !issueNumber.MatchString(fmt.Sprintf("a t%s %d", w, n)) &&
				!issueNumber.MatchString(fmt.Sprintf("an %s%s %d", w, glue, n))
		}, word, gen.OneConstOf(".", ":", ";", ","), gen.IntRange(0, 99999)))
	properties.TestingRun(t)
}
