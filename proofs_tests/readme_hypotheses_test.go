package proofs_tests

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/internal/docs"
	"github.com/llpfc/llpfc/theory/verify"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite the hypotheses table of docs/claims.md (\"Checking the paper's claims\"), wherever in the documentation its markers are")

//go:generate go test -count=1 -run ^TestReadmeListsEveryHypothesis$ -update-readme

// The documentation's table of hypotheses (docs/claims.md) lies between
// these markers.
const (
	readmeHypBegin = "<!-- hypotheses: TestReadmeListsEveryHypothesis writes this table (-update-readme) -->"
	readmeHypEnd   = "<!-- end of hypotheses -->"
)

// hypothesesTable renders every claim's hypotheses, each with its LaTeX
// line, where it comes from (statement, definition, lemma, proof, method)
// and the status its probe finds at the default cases and seed 1
// (Hypothesis.Expect, which TestHypothesisProbesFindWhatTheyFound holds
// the probes to; "not probeable here" for those without a probe), a count
// per status, and the ends of printed ranges where the statement is not
// what it says.
func hypothesesTable() string {
	var b strings.Builder
	counts := map[verify.ProbeStatus]int{}
	var ends []string
	n := 0
	b.WriteString("| claim | hypothesis [printed range] | LaTeX line | from | status |\n|---|---|---|---|---|\n")
	for _, c := range verify.Claims() {
		for _, h := range verify.HypothesesOf(c.Label) {
			st := h.Expect
			if st == "" {
				st = verify.NotProbeable
			}
			counts[st]++
			n++
			name := h.Name
			if h.Range != nil && h.Range.Printed != h.Name {
				name += " [" + h.Range.Printed + "]"
			}
			line := "–"
			if h.Line > 0 {
				line = fmt.Sprint(h.Line)
			}
			from, _, _ := strings.Cut(h.From, ":")
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", c.Label, strings.ReplaceAll(name, "|", `\|`), line, from, st)
			if h.Range != nil && h.Range.Ends != nil {
				for _, e := range h.Range.Ends(verify.Config{Cases: verify.DefaultCases, Seed: 1}) {
					if e.Recorded() {
						ends = append(ends, fmt.Sprintf("- `%s`, %s, at %s (%s): %s", c.Label, h.Range.Printed, e.At, e.Where, e.Verdict))
					}
				}
			}
		}
	}
	var parts []string
	for _, s := range verify.ProbeStatuses {
		parts = append(parts, fmt.Sprintf("**%d %s**", counts[s], s))
	}
	head := fmt.Sprintf("%d hypotheses of %d claims: %s.\n\n", n, len(verify.Claims()), strings.Join(parts, ", "))
	tail := fmt.Sprintf("\nThe %d ends of printed ranges (closed ends, points just inside) where the statement is undefined, infinite, vacuous or false:\n\n%s\n",
		len(ends), strings.Join(ends, "\n"))
	return head + b.String() + tail
}

// TestReadmeListsEveryHypothesis: the guide "Checking the paper's claims"
// (docs/claims.md) lists every hypothesis of every claim with its status
// and the count per status, as the registry gives them (-update-readme
// rewrites it where it stands).
func TestReadmeListsEveryHypothesis(t *testing.T) {
	block, err := docs.Find("..", readmeHypBegin, readmeHypEnd)
	require.NoError(t, err)
	want := "\n" + hypothesesTable() + "\n"
	if *updateReadme {
		require.NoError(t, block.Replace(want))
		return
	}
	assert.Equal(t, want, block.Body, "%s's hypotheses table is stale: go test ./proofs_tests -run TestReadmeListsEveryHypothesis -update-readme", block.Path)
}
