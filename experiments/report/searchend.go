package report

import (
	"fmt"
	"io"
	"sort"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
)

// SearchEnd says why a searched cell's chosen rate sits at an end of the
// rates its search tried, or "" when it lies between two of them: a choice
// at an end has not been tuned, only cut off, unless the search went on
// (experiments.Search.Extend) until a stated limit stopped it. The reason
// names the end and what stopped the search there: no extension, or the
// limit.
func SearchEnd(rec *experiments.SearchRecord, sp *experiments.Search) string {
	if rec == nil || rec.Chosen < 0 || rec.Chosen >= len(rec.Trials) {
		return ""
	}
	lo, hi := rec.Trials[0].LR, rec.Trials[0].LR
	for _, t := range rec.Trials {
		lo, hi = min(lo, t.LR), max(hi, t.LR)
	}
	lr := rec.Trials[rec.Chosen].LR
	var end string
	var down bool
	switch {
	case lo == hi:
		end = fmt.Sprintf("the only rate tried, %g", lr)
	case lr == lo:
		end, down = fmt.Sprintf("the lowest rate tried, %g", lr), true
	case lr == hi:
		end = fmt.Sprintf("the highest rate tried, %g", lr)
	default:
		return ""
	}
	if sp == nil || sp.Extend == nil {
		return end + "; the search does not extend"
	}
	next, ok := experiments.LadderStep(lr, down)
	switch {
	case !ok:
		return end + "; off the ladder the search extends along"
	case down && next < sp.Extend.Min:
		return fmt.Sprintf("%s; the next, %g, is under the search's limit %g", end, next, sp.Extend.Min)
	case !down && next > sp.Extend.Max:
		return fmt.Sprintf("%s; the next, %g, is over the search's limit %g", end, next, sp.Extend.Max)
	}
	return end + "; the search stopped short of its limit"
}

// EndChoice is a searched cell whose chosen rate sits at an end of its
// search (SearchEnd).
type EndChoice struct {
	Key, Spec, Method string
	BagSize           int
	Seed              int64
	Why               string
}

// EndChoices returns the cells of results whose choice sits at an end of
// their search, in the order of grid, method's row, bag size and seed.
func EndChoices(results []*grid.Result) []EndChoice {
	var out []EndChoice
	for _, r := range results {
		if why := SearchEnd(r.Metrics.Search, r.Config.Hyper.Search); why != "" {
			out = append(out, EndChoice{Key: r.Key, Spec: r.Spec, Method: r.Config.Method, BagSize: r.Config.BagSize, Seed: r.Seed, Why: why})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Spec != b.Spec {
			return a.Spec < b.Spec
		}
		if ra, rb := experiments.MethodRank(a.Method), experiments.MethodRank(b.Method); ra != rb {
			return ra < rb
		}
		if a.BagSize != b.BagSize {
			return a.BagSize < b.BagSize
		}
		return a.Seed < b.Seed
	})
	return out
}

// EndChoicesMarkdown writes the section that flags every cell chosen at an
// end of its search.
func EndChoicesMarkdown(w io.Writer, results []*grid.Result) {
	es := EndChoices(results)
	if len(es) == 0 {
		return
	}
	fmt.Fprintf(w, "## Choices at an end of their search\n\nEvery searched cell whose chosen rate is the lowest or the highest its search tried (%d): such a rate was not shown to be the method's best, only the best of what was tried.\n\n", len(es))
	fmt.Fprintln(w, "| grid | cell | method | bag size | seed | why |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, e := range es {
		fmt.Fprintf(w, "| %s | `%s` | %s | %s | %d | %s |\n", e.Spec, shortKey(e.Key), experiments.MethodLabel(e.Method), bagSizeText(e.BagSize), e.Seed, e.Why)
	}
	fmt.Fprintln(w)
}
