package report

import (
	"bytes"
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// collapseCell is a ten-class cell of method at bag size 512 with accuracy
// acc, edited by edit.
func collapseCell(method string, seed int64, acc float64, edit func(*experiments.Metrics)) *grid.Result {
	r := tableCell(method, 512, seed, nil)
	r.Metrics.TestAccuracy, r.Metrics.TestPoints = acc, 100
	r.Metrics.Scores = &experiments.Scores{Confusion: make([][]int, 10)}
	if edit != nil {
		edit(&r.Metrics)
	}
	return r
}

// TestCollapsesCarryTheirReasons: every cell at most twice chance
// is listed with the reasons its metrics measure — LLP-PVC's floored
// likelihood terms, EasyLLP's flooded steps and negative soft labels, few
// optimizer steps — or "no measured reason"; a healthy cell is not listed,
// unless its search had a trial diverge, which is named with where.
func TestCollapsesCarryTheirReasons(t *testing.T) {
	rs := []*grid.Result{
		collapseCell("llppvc", 0, 0.10, func(m *experiments.Metrics) {
			m.Objective = &experiments.ObjectiveDiagnostics{Steps: 200, FlooredShare: 0.8}
		}),
		collapseCell("easyllp", 0, 0.19, func(m *experiments.Metrics) {
			m.Objective = &experiments.ObjectiveDiagnostics{Steps: 100, FloodedShare: 0.5, SoftMin: -3, SoftMax: 4, SoftNegativeShare: 0.25}
		}),
		collapseCell("mixbag", 0, 0.12, func(m *experiments.Metrics) { m.Epochs, m.StepsPerEpoch, m.Steps = 10, 3, 30 }),
		collapseCell("kl", 0, 0.11, nil),
		collapseCell("kl", 1, 0.12, func(m *experiments.Metrics) { m.FirstLoss, m.FinalLoss = 2.31, 2.30 }),
		collapseCell("llppvc", 1, 0.10, func(m *experiments.Metrics) {
			m.Objective = &experiments.ObjectiveDiagnostics{Steps: 100, MeanLoss: 38, MeanRawLoss: 38, MeanReferenceLoss: 36}
		}),
		collapseCell("llpfc-uniform", 0, 0.84, nil),
		collapseCell("llpfc-uniform", 1, 0.83, func(m *experiments.Metrics) {
			m.Search = &experiments.SearchRecord{Trials: []experiments.Trial{{LR: 3e-3, Diverged: "epoch 2 step 7: loss is NaN"}, {LR: 1e-3}}, Chosen: 1}
		}),
	}
	cs := Collapses(rs)
	require.Len(t, cs, 7)
	got := map[string]string{}
	for _, c := range cs {
		got[c.Method+"/"+string(rune('0'+c.Seed))] = c.Reasons[0] + "|" + c.Reasons[len(c.Reasons)-1]
	}
	assert.Contains(t, got["llppvc/0"], "80.0% of LLP-PVC's likelihood terms below the numerics' floor")
	assert.Contains(t, got["easyllp/0"], "50.0% of EasyLLP's steps flooded")
	assert.Contains(t, got["easyllp/0"], "25.0% below 0")
	assert.Contains(t, got["mixbag/0"], "30 optimizer steps in the whole run")
	assert.Equal(t, "no measured reason|no measured reason", got["kl/0"])
	assert.Contains(t, got["kl/1"], "the training loss fell 0.4% over the run (2.31 to 2.3)")
	assert.Contains(t, got["llppvc/1"], "its loss per step (38) within 6% of what giving every instance its bag's own proportions scores (36)")
	assert.Contains(t, got["llpfc-uniform/1"], "1 of 2 search trials diverged (lr 0.003: epoch 2 step 7: loss is NaN)")
	assert.NotContains(t, got, "llpfc-uniform/0")

	var md bytes.Buffer
	CollapsesMarkdown(&md, rs)
	assert.Contains(t, md.String(), "## Cells near chance, and why")
	assert.Contains(t, md.String(), "| paper | LLP-PVC | 512 | 0 | 0.1000 | 80.0% of LLP-PVC's")
	for _, r := range rs {
		if r.Config.Method == "llppvc" && r.Seed == 0 {
			// the grid and the cell named, so that a companion's cell of the
			// same method, bag size and seed is told apart
			assert.Contains(t, md.String(), "| "+r.Spec+" | `"+r.Key[:8]+"` | paper | LLP-PVC | 512 | 0 |")
		}
	}
	md.Reset()
	CollapsesMarkdown(&md, rs[6:7])
	assert.Empty(t, md.String(), "nothing near chance: no section")
}
