package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/training"
)

// assumptionResult is a hand-made result of method with one check.
func assumptionResult(key, method string, seed int64, value float64, holds bool) *grid.Result {
	r := &grid.Result{Key: key, Seed: seed, Config: experiments.Config{Method: method, Protocol: "paper", BagSize: 32, Seed: seed}}
	r.Metrics.Assumptions = &experiments.Assumptions{Checks: []experiments.AssumptionCheck{
		{Name: method + ": check", Statistic: "s", Value: value, Threshold: 1, Holds: holds}}}
	return r
}

// TestAssumptionsMarkdownNamesFailingCells: one row per (protocol, method,
// bag size, check) with the cells where it holds, the means of value and
// threshold (worked out by hand: (3 + 1)/2 = 2), and the failing cells by
// short key and seed; the count of failing cells; cells written before the
// diagnostics counted apart; nothing at all when no cell has diagnostics.
func TestAssumptionsMarkdownNamesFailingCells(t *testing.T) {
	results := []*grid.Result{
		assumptionResult("aaaaaaaa1111", training.MethodEasyLLP, 1, 3, false),
		assumptionResult("bbbbbbbb2222", training.MethodEasyLLP, 2, 1, true),
		assumptionResult("cccccccc3333", training.MethodMixBag, 1, 0.5, true),
		{Key: "dddddddd", Seed: 1, Config: experiments.Config{Method: training.MethodKL, Protocol: "paper", BagSize: 32}},
		{Key: "eeeeeeee", Seed: 1, Config: experiments.Config{Method: training.Supervised, Protocol: "paper", BagSize: 32}},
	}
	var b bytes.Buffer
	AssumptionsMarkdown(&b, results)
	md := b.String()
	assert.Contains(t, md, "| paper | EasyLLP | 32 | easyllp: check | 1 of 2 | 2 | 1 | `aaaaaaaa` (seed 1) |")
	assert.Contains(t, md, "| paper | MixBag | 32 | mixbag: check | 1 of 1 | 0.5 | 1 | — |")
	assert.Contains(t, md, "Cells whose method's assumption fails: 1 of the 3 cells with diagnostics. 1 cell carries none")
	assert.Less(t, strings.Index(md, "EasyLLP"), strings.Index(md, "MixBag"), "rows in the tables' method order")
	var none bytes.Buffer
	AssumptionsMarkdown(&none, results[3:])
	assert.Empty(t, none.String())
}
