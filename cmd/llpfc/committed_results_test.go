package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/experiments/report"
	"github.com/llpfc/llpfc/internal/docs"
)

// committedTables are the result stores committed under results/ (the
// Fashion-MNIST tables a CPU can run), each made by the built-in spec of the same name; a report reads
// the store and its companions (reportCompanions).
var committedTables = []string{"fashion-mnist", "fashion-mnist-shuffle", "fashion-mnist-tuned", "fashion-mnist-shuffle-tuned", "fashion-mnist-step-matched", "fashion-mnist-shuffle-step-matched",
	"fashion-mnist-steps", "fashion-mnist-shuffle-steps"}

// The committed report of each committed results store is what `llpfc
// report` makes of its cells, byte for byte (markdown and plots); every cell
// is a finished cell of the built-in spec of the same name — its key one of
// the spec's, its configuration exactly the spec's cell — made by committed
// code (a code version recorded, no uncommitted changes). It reads the
// stores as git tracks them (trackedResults), so a run adding cells to a
// store in the working tree does not fail it part-way.
func TestCommittedReportsRegenerate(t *testing.T) { checkCommittedResults(t) }

// checkCommittedResults is TestCommittedReportsRegenerate with the methods
// registered now (TestANewMethodChangesNothingCommitted calls it with a
// throwaway method beside the built-in ones).
func checkCommittedResults(t *testing.T) {
	t.Helper()
	t.Chdir("../..")
	t.Chdir(trackedResults(t))
	found := 0
	for _, name := range committedTables {
		dir := filepath.Join("results", name)
		if _, err := os.Stat(filepath.Join(dir, "cells")); os.IsNotExist(err) {
			continue
		}
		found++
		spec, ok := grid.BuiltinSpec(name)
		require.True(t, ok, name)
		cells, err := spec.Cells()
		require.NoError(t, err)
		want := map[string]experiments.Config{}
		for _, c := range cells {
			want[c.Key] = c.Config
		}
		rs, err := (&grid.Store{Dir: dir}).All()
		require.NoError(t, err)
		require.NotEmpty(t, rs, "%s: no finished cell", dir)
		for _, r := range rs {
			cfg, ok := want[r.Key]
			if assert.True(t, ok, "%s: cell %s is not a cell of the built-in spec %s", dir, r.Key, name) {
				assert.Equal(t, cfg, r.Config, "%s: cell %s", dir, r.Key)
			}
			assert.NotEmpty(t, r.Provenance.CodeVersion, "%s: cell %s has no code version", dir, r.Key)
			assert.NotEqual(t, "unknown", r.Provenance.CodeVersion, "%s: cell %s", dir, r.Key)
			assert.False(t, r.Provenance.Dirty, "%s: cell %s was made by uncommitted code", dir, r.Key)
		}
		// A committed failure record is of a cell of the spec that the store
		// does not hold finished.
		st := &grid.Store{Dir: dir}
		fs, err := st.Failures()
		require.NoError(t, err)
		for _, f := range fs {
			assert.False(t, st.Has(f.Key), "%s: failure record %s of a finished cell", dir, f.Key)
			cfg, ok := want[f.Key]
			if assert.True(t, ok, "%s: failure record %s is not of a cell of the built-in spec %s", dir, f.Key, name) {
				assert.Equal(t, cfg, f.Config, "%s: failure record %s", dir, f.Key)
			}
			assert.False(t, f.Provenance.Dirty, "%s: failure record %s was made by uncommitted code", dir, f.Key)
		}
		// No committed cell is at chance without its measured reason: a
		// collapse unexplained would read as the method's verdict.
		for _, c := range report.Collapses(rs) {
			assert.NotContains(t, c.Reasons, "no measured reason", "%s: cell %s (%s, bag size %d, seed %d) at %.4f", dir, c.Key, c.Method, c.BagSize, c.Seed, c.Accuracy)
		}

		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		args := []string{"report", "--results", dir}
		for _, c := range reportCompanions(name, "results") {
			args = append(args, "--results", c)
		}
		require.Equal(t, exitOK, dispatch(append(args, "--out", out), &stdout, &stderr), stderr.String())
		committed := filepath.Join(dir, "report")
		remake := "llpfc " + strings.Join(append(args, "--out", committed), " ")
		ents, err := os.ReadDir(out)
		require.NoError(t, err)
		for _, e := range ents {
			got, err := os.ReadFile(filepath.Join(out, e.Name()))
			require.NoError(t, err)
			old, err := os.ReadFile(filepath.Join(committed, e.Name()))
			if assert.NoError(t, err, "%s: the report file %s is not committed; run %s", dir, e.Name(), remake) {
				assert.True(t, bytes.Equal(old, got), "%s: %s differs from what llpfc report makes of the committed cells; run %s", dir, e.Name(), remake)
			}
		}
		olds, err := os.ReadDir(committed)
		require.NoError(t, err)
		assert.Len(t, olds, len(ents), "%s: the committed report has files llpfc report does not make", committed)
	}
	require.Positive(t, found, "no committed results store under results/")
}

// trackedResults copies the files under results/ that git tracks (the index's
// list, read from the working tree) into a new folder of the same layout and
// returns it; a cell a running store has written but no one has added stays
// out, as it is out of a clean clone. Outside a git checkout (an exported
// tree) it returns the working tree itself, and says so.
func trackedResults(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "ls-files", "-z", "--", "results").Output()
	if err != nil {
		t.Logf("not a git checkout (%v): reading results/ as it stands", err)
		return "."
	}
	root := t.TempDir()
	n := 0
	for _, f := range strings.Split(string(out), "\x00") {
		if f == "" {
			continue
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err, "%s is tracked by git", f)
		dst := filepath.Join(root, f)
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		require.NoError(t, os.WriteFile(dst, b, 0o644))
		n++
	}
	require.Positive(t, n, "git tracks no file under results/")
	return root
}

// The committed step-matched cells make as many optimizer steps as
// LLPFC-uniform's cell of the same seed and bag size in the comparison they
// stand beside (within one epoch's steps), and saw the same bags: the
// epochs in grid.StepMatchedEpochs and grid.ShuffleStepMatchedEpochs are
// computed by hand, so this reads the steps the cells recorded.
func TestCommittedStepMatchedSteps(t *testing.T) {
	t.Chdir("../..")
	t.Chdir(trackedResults(t))
	for _, name := range []string{"fashion-mnist-step-matched", "fashion-mnist-shuffle-step-matched"} {
		dir := filepath.Join("results", name)
		if _, err := os.Stat(filepath.Join(dir, "cells")); os.IsNotExist(err) {
			continue
		}
		comp := reportCompanions(name, "results")
		require.Len(t, comp, 1, "%s: its comparison's store", name)
		matched, err := (&grid.Store{Dir: dir}).All()
		require.NoError(t, err)
		base, err := (&grid.Store{Dir: comp[0]}).All()
		require.NoError(t, err)
		for _, m := range matched {
			var llpfc *grid.Result
			for _, b := range base {
				if b.Config.Method == "llpfc-uniform" && b.Config.BagSize == m.Config.BagSize && b.Seed == m.Seed {
					llpfc = b
				}
			}
			if !assert.NotNil(t, llpfc, "%s: cell %s has no LLPFC-uniform cell beside it in %s", name, m.Key, comp[0]) {
				continue
			}
			assert.InDelta(t, llpfc.Metrics.Steps, m.Metrics.Steps, float64(m.Metrics.StepsPerEpoch), "%s: %s's steps against LLPFC-uniform's", name, m.Config.Method)
			assert.Equal(t, llpfc.Metrics.BagsDigest, m.Metrics.BagsDigest, "%s: %s trained on other bags than the comparison's seed", name, m.Config.Method)
		}
	}
}

// groupsBlock is a block of generated ranking sentences in the documentation
// (docs/comparison.md): the groups of the table of one committed grid, one
// bullet a bag size.
var groupsBlock = regexp.MustCompile(`(?s)<!-- groups ([a-z0-9-]+) -->\n(.*?)<!-- /groups -->`)

// TestReadmeRankingsAreTheReports: every sentence of the documentation
// (README.md and docs/, where the comparison lives) that ranks methods
// stands in a groups block, and each block is, line for line, the groups
// (report.Group.Sentence) of its grid's table made from the committed cells
// — so a regeneration that changes a group fails here until the guide's
// sentence changes with it. Every tuned comparison the guides show has its
// block, once.
func TestReadmeRankingsAreTheReports(t *testing.T) {
	readme, err := docs.Text("../..")
	require.NoError(t, err)
	t.Chdir("../..")
	t.Chdir(trackedResults(t))
	blocks := groupsBlock.FindAllStringSubmatch(readme, -1)
	seen := map[string]bool{}
	for _, b := range blocks {
		name, body := b[1], b[2]
		assert.False(t, seen[name], "two groups blocks of %s: keep one", name)
		seen[name] = true
		rs, err := (&grid.Store{Dir: filepath.Join("results", name)}).All()
		require.NoError(t, err, name)
		tables, err := report.BuildTables(rs, nil)
		require.NoError(t, err, name)
		var want strings.Builder
		n := 0
		for _, tab := range tables {
			if tab.Spec != name {
				continue
			}
			n++
			for _, g := range tab.Groups() {
				fmt.Fprintf(&want, "- %s\n", g.Sentence())
			}
		}
		require.Equal(t, 1, n, "%s: one table of the grid", name)
		assert.Equal(t, want.String(), body, "the guide's groups block of %s is not its report's groups: write the block as the report's \"Groups\" lines", name)
	}
	for _, name := range []string{"fashion-mnist-tuned", "fashion-mnist-shuffle-tuned", "fashion-mnist-steps", "fashion-mnist-shuffle-steps"} {
		if _, err := os.Stat(filepath.Join("results", name, "cells")); err == nil {
			assert.True(t, seen[name], "the documentation shows no groups block of %s", name)
		}
	}
}
