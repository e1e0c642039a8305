package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
)

// FailuresMarkdown writes the section of the cells that did not train when
// they last ran, by grid, method, bag size and seed, each with the error its
// run reported, as the stores keep it
// (grid.Failure: STORE/failed/KEY.json); nothing when there is none. A cell
// missing from a table is then missing with its reason (LLPFC-ideal, whose
// estimator stops where its grouping assumption fails, once had no row and
// no word in the report).
func FailuresMarkdown(w io.Writer, failed []*grid.Failure) {
	if len(failed) == 0 {
		return
	}
	fmt.Fprintf(w, "## Cells that did not train, and why\n\n%s of the grids did not train when last run and are in no table above; each store keeps the reason in `failed/KEY.json`, and the next `llpfc run` of the grid tries them again.\n\n", cellCount(len(failed)))
	failed = slices.Clone(failed)
	slices.SortFunc(failed, func(a, b *grid.Failure) int {
		return cmp.Or(cmp.Compare(a.Spec, b.Spec), cmp.Compare(a.Config.Method, b.Config.Method),
			cmp.Compare(a.Config.BagSize, b.Config.BagSize), cmp.Compare(a.Config.Seed, b.Config.Seed), cmp.Compare(a.Key, b.Key))
	})
	fmt.Fprintln(w, "| grid | cell | protocol | method | bag size | seed | code version | why |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, f := range failed {
		c := f.Config
		why := strings.ReplaceAll(strings.Join(strings.Fields(f.Error), " "), "|", "\\|")
		fmt.Fprintf(w, "| %s | `%s` | %s | %s | %s | %d | %s | %s |\n", f.Spec, shortKey(f.Key), c.Protocol, experiments.MethodLabel(c.Method), bagSizeText(c.BagSize), c.Seed, shortVersion(f.Provenance.CodeVersion), why)
	}
	fmt.Fprintln(w)
}

// shortVersion is a code version's first 7 characters, as git abbreviates.
func shortVersion(v string) string {
	if len(v) > 7 {
		return v[:7]
	}
	return v
}
