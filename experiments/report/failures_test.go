package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/experiments/internal/gridtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A report names every cell that did not train, with its whole reason on
// one row of its table; a store without failures has no such section.
func TestFailuresMarkdown(t *testing.T) {
	var none bytes.Buffer
	FailuresMarkdown(&none, nil)
	assert.Empty(t, none.String())

	f := &grid.Failure{Key: "3b1224b3266b15aba9355ea92ce6ef24", Spec: "fashion-mnist-shuffle-tuned", Seed: 4,
		Config:     experiments.Config{Method: "llpfc-ideal", Protocol: "shuffle", BagSize: 1024, Seed: 4},
		Error:      "grouping at epoch 1: Assumption `grouping assumption: ch` fails: |α| entry\n0 = -0.05",
		Provenance: grid.Provenance{CodeVersion: "b3aeb2ba08f253eaeb173a8336a53867a3026981"}}
	var md bytes.Buffer
	FailuresMarkdown(&md, []*grid.Failure{f})
	out := md.String()
	assert.Contains(t, out, "## Cells that did not train, and why")
	assert.Contains(t, out, "1 cell of the grids")
	assert.Contains(t, out, "| fashion-mnist-shuffle-tuned | `3b1224b3` | shuffle | "+experiments.MethodLabel("llpfc-ideal")+" | 1024 | 4 | b3aeb2b | grouping at epoch 1: Assumption `grouping assumption: ch` fails: \\|α\\| entry 0 = -0.05 |")
	// Rows by grid, method, bag size and seed, not by key.
	g := *f
	g.Key, g.Config.BagSize = "0000", 2048
	h := *f
	h.Key, h.Spec = "ffff", "a-grid"
	md.Reset()
	FailuresMarkdown(&md, []*grid.Failure{&g, f, &h})
	assert.Regexp(t, "(?s)`ffff`.*`3b1224b3`.*`0000`", md.String())
	FailuresMarkdown(&md, []*grid.Failure{f})
	out = md.String()[strings.LastIndex(md.String(), "## Cells"):]
	rows := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| fashion") {
			rows++
		}
	}
	assert.Equal(t, 1, rows, "one row a cell, the reason on it:\n%s", out)
}

// WriteReports reads the stores' failure records: the section lists a
// failed cell of the grid, not one that finished since.
func TestReportListsFailedCells(t *testing.T) {
	dir := t.TempDir()
	gridtest.Run(t, dir, grid.Shard{Index: 1, Count: 1})
	st := &grid.Store{Dir: dir}
	rs, err := st.All()
	require.NoError(t, err)
	missing := *rs[0]
	require.NoError(t, os.Remove(filepath.Join(dir, "cells", missing.Key+".json")))
	require.NoError(t, st.PutFailure(&grid.Failure{Key: missing.Key, Spec: missing.Spec, Seed: missing.Seed, Config: missing.Config, Error: "it refused"}))
	require.NoError(t, st.PutFailure(&grid.Failure{Key: rs[1].Key, Spec: rs[1].Spec, Config: rs[1].Config, Error: "an old failure of a cell that finished since"}))
	_, md, err := WriteReports([]*grid.Store{st}, t.TempDir())
	require.NoError(t, err)
	assert.Contains(t, string(md), "## Cells that did not train, and why")
	assert.Contains(t, string(md), "`"+shortKey(missing.Key)+"`")
	assert.Contains(t, string(md), "| it refused |")
	assert.NotContains(t, string(md), "an old failure")
}
