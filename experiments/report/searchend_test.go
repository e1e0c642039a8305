package report

import (
	"bytes"
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSearchEndByHand: a choice between two rates tried is not flagged; a
// choice at the lowest or highest is, with what stopped the search there —
// no extension, or the limit its next rung would cross.
func TestSearchEndByHand(t *testing.T) {
	rec := func(chosen int, lrs ...float64) *experiments.SearchRecord {
		r := &experiments.SearchRecord{Chosen: chosen}
		for _, lr := range lrs {
			r.Trials = append(r.Trials, experiments.Trial{LR: lr})
		}
		return r
	}
	grid4 := []float64{1e-4, 3e-4, 1e-3, 3e-3}
	fixed := &experiments.Search{LR: grid4}
	ext := &experiments.Search{LR: grid4, Extend: &experiments.SearchExtend{Min: 1e-6, Max: 0.1}}
	for _, c := range []struct {
		name string
		rec  *experiments.SearchRecord
		sp   *experiments.Search
		want string
	}{
		{"inside", rec(1, grid4...), fixed, ""},
		{"inside, extended", rec(4, append(grid4, 1e-2, 3e-2)...), ext, ""},
		{"lowest, fixed grid", rec(0, grid4...), fixed, "the lowest rate tried, 0.0001; the search does not extend"},
		{"highest, fixed grid", rec(3, grid4...), fixed, "the highest rate tried, 0.003; the search does not extend"},
		{"lowest at the limit", rec(7, append(grid4, 3e-5, 1e-5, 3e-6, 1e-6)...), ext, "the lowest rate tried, 1e-06; the next, 3e-07, is under the search's limit 1e-06"},
		{"highest at the limit", rec(6, append(grid4, 1e-2, 3e-2, 0.1)...), ext, "the highest rate tried, 0.1; the next, 0.3, is over the search's limit 0.1"},
		{"an extension stopped short", rec(0, grid4...), ext, "the lowest rate tried, 0.0001; the search stopped short of its limit"},
		{"one rate", rec(0, 1e-3), nil, "the only rate tried, 0.001; the search does not extend"},
	} {
		assert.Equal(t, c.want, SearchEnd(c.rec, c.sp), c.name)
	}
	assert.Empty(t, SearchEnd(nil, fixed), "no search")
}

// TestReportFlagsEndChoices: the report lists every cell chosen at an end
// of its search, and the search line counts them per bag size.
func TestReportFlagsEndChoices(t *testing.T) {
	rs := pairedCells(pairedAcc)
	sp := &experiments.Search{LR: []float64{1e-4, 1e-3}}
	for i, r := range rs {
		r.Config.Hyper.Search, r.Config.Hyper.LR, r.Config.Hyper.ValBags = sp, 0, 0.1
		chosen := 1
		if i == 0 {
			chosen = 0
		}
		r.Metrics.Search = &experiments.SearchRecord{Rule: "min val_kl", Chosen: chosen,
			Trials: []experiments.Trial{{LR: 1e-4}, {LR: 1e-3}}}
	}
	var md bytes.Buffer
	EndChoicesMarkdown(&md, rs)
	require.Len(t, EndChoices(rs), len(rs), "every cell chose an end of its two rates")
	assert.Contains(t, md.String(), "| KL | 32 | 0 | the lowest rate tried, 0.0001; the search does not extend |")
	tables, err := buildTables(rs, nil, nil, "")
	require.NoError(t, err)
	assert.Equal(t, 5, tables[0].Ours[Slot{"kl", 32}].AtEnd)
	var sb bytes.Buffer
	tables[0].Markdown(&sb)
	assert.Contains(t, sb.String(), "5 of 5 at an end of the search")
}
