package repocheck

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// choiceParsers are the parsers of the settings that name a choice, with
// the package that defines each: the KL scale, the VAT schedule,
// the batch-norm statistics, the model selection, the group weights, the
// compat mode and the grouping mode.
var choiceParsers = map[string]string{
	"ParseKLScale": "training/loss", "ParseVATRampup": "training/loss", "ParseBNStats": "training/nn",
	"ParseSelection": "training/methods", "ParseWeights": "estimators", "ParseCompat": "estimators", "ParseMode": "estimators",
}

// choiceParseCalls returns "file: Parser" for every call of a choice parser
// in the Go source src of file f outside the edge (cmd/: the flags) and
// the parser's own package (its UnmarshalText, which encoding/json calls
// where a spec or a result enters).
func choiceParseCalls(f, src string) []string {
	var out []string
	for name, pkg := range choiceParsers {
		if strings.HasPrefix(f, "cmd/") || path2pkg(f) == pkg {
			continue
		}
		if regexp.MustCompile(`\b` + name + `\(`).MatchString(src) {
			out = append(out, f+": "+name)
		}
	}
	return out
}

func path2pkg(f string) string { return filepath.Dir(f) }

// TestChoicesParsedAtTheEdge: a setting that names a choice is
// parsed once, where it enters — a flag (cmd/llpfc), a spec or a result (its
// type's UnmarshalText) — into its type, and no layer below calls its parser
// (training's withDefaults, experiments' validation and the learner did).
func TestChoicesParsedAtTheEdge(t *testing.T) {
	var bad []string
	for _, f := range repoFiles(t) {
		if !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		require.NoError(t, err)
		bad = append(bad, choiceParseCalls(f, string(b))...)
	}
	sort.Strings(bad)
	assert.Empty(t, bad, "a choice parsed below the edge: take the typed value (its UnmarshalText parsed it)")
	assert.Equal(t, []string{"training/config.go: ParseKLScale"},
		choiceParseCalls("training/config.go", "scale, err := loss.ParseKLScale(string(c.KLScale))"), "the check finds a deep parse")
	assert.Empty(t, choiceParseCalls("cmd/llpfc/train_flags.go", "training.ParseKLScale(*f.klScale)"), "flags are the edge")
}
