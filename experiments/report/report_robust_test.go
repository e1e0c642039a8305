package report

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/experiments/internal/gridtest"
	"github.com/llpfc/llpfc/training"
)

// cellConfig is a valid cell of the gorgonia learner on the fixture.
func cellConfig(method, protocol string, bag int, seed int64) experiments.Config {
	c := experiments.Config{Learner: "gorgonia", Dataset: experiments.FashionFixture, Model: training.ModelMLP, Method: method,
		Protocol: protocol, BagSize: bag, NumPoints: 1024, Normalize: "standardize", Seed: seed,
		Hyper: experiments.Hyper{Epochs: 1, Optimizer: "adam", LR: 1e-3, BatchSize: 128, Schedule: experiments.Schedule{Kind: "constant"}}}
	if experiments.UsesKL(method) {
		c.Hyper.KLScale, c.Hyper.BatchSize = training.KLScaleAuthors, 2
	}
	return c
}

// fakeResult is a finished cell of spec with accuracy acc; an LLPFC cell
// records one regrouping whose groups' median ‖T̂⁻¹‖₁ is inv (+Inf: every
// group singular, stored as null).
func fakeResult(spec string, c experiments.Config, acc, inv float64) *grid.Result {
	m := experiments.Metrics{TestAccuracy: acc, Epochs: c.Hyper.Epochs, TrainPoints: c.NumPoints, StepsPerEpoch: 8}
	if experiments.IsLLPFC(c.Method) {
		m.Regroupings = []training.Regrouping{{Epoch: 0, Groups: estimators.GroupingSummary{Partitions: 1, Groups: 10, InvNorm1Median: inv}}}
	}
	return &grid.Result{Format: grid.ResultFormat, Key: c.Key(), Spec: spec, Seed: c.Seed, Config: c, Metrics: m,
		Provenance: grid.Provenance{CodeVersion: "test"}}
}

// putAll writes results into a new store under t's temporary directory.
func putAll(t *testing.T, results ...*grid.Result) *grid.Store {
	t.Helper()
	st, err := grid.OpenStore(t.TempDir())
	require.NoError(t, err)
	for _, r := range results {
		require.NoError(t, st.Put(r))
	}
	return st
}

var imageLink = regexp.MustCompile(`!\[[^\]]*\]\(([^)]+)\)`)

// checkReportFiles checks what every report must satisfy: report.md exists,
// every plot it links is a distinct file that exists, and every file in
// files.Plots is linked once.
func checkReportFiles(t *testing.T, files ReportFiles, md []byte) {
	t.Helper()
	_, err := os.Stat(files.Markdown)
	require.NoError(t, err, "report.md")
	seen := map[string]bool{}
	for _, m := range imageLink.FindAllStringSubmatch(string(md), -1) {
		assert.False(t, seen[m[1]], "plot %s linked twice", m[1])
		seen[m[1]] = true
		_, err := os.Stat(filepath.Join(filepath.Dir(files.Markdown), m[1]))
		assert.NoError(t, err, "linked plot %s", m[1])
	}
	assert.Len(t, seen, len(files.Plots), "plots written vs linked")
}

// LLPFC cells without a KL cell beside them (one LLPFC method only, approx
// only, mixed protocols with KL in one of them) once made the
// trouble plot panic ("Values must be greater than 0 for a log scale") and
// no report was written.
func TestReportLLPFCWithoutKL(t *testing.T) {
	for name, rs := range map[string][]*grid.Result{
		"uniform only": {
			fakeResult("u", cellConfig("llpfc-uniform", "paper", 64, 0), 0.8, 70),
			fakeResult("u", cellConfig("llpfc-uniform", "paper", 64, 1), 0.81, 75)},
		"approx only": {fakeResult("a", cellConfig("llpfc-approx", "paper", 64, 0), 0.8, 70)},
		"mixed protocols, KL in one": {
			fakeResult("m", cellConfig("llpfc-uniform", "paper", 64, 0), 0.8, 70),
			fakeResult("m", cellConfig("llpfc-uniform", "shuffle", 64, 0), 0.7, 300),
			fakeResult("m", cellConfig("kl", "paper", 64, 0), 0.75, 0)},
	} {
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			files, md, err := WriteReports([]*grid.Store{putAll(t, rs...)}, out)
			require.NoError(t, err)
			checkReportFiles(t, files, md)
			assert.Contains(t, string(md), "trouble.png")
		})
	}
}

// A cell whose median ‖T̂⁻¹‖₁ is infinite (stored as null: every group
// singular, as with bag size 1 or dirichlet:0.01) once made
// the plot fail with "plotter: infinite data point" and no report.md.
func TestReportInfiniteInvNorm(t *testing.T) {
	st := putAll(t,
		fakeResult("s", cellConfig("llpfc-uniform", "paper", 1, 0), 0.3, math.Inf(1)),
		fakeResult("s", cellConfig("llpfc-uniform", "paper", 2, 0), 0.4, 900),
		fakeResult("s", cellConfig("kl", "paper", 1, 0), 0.75, 0))
	files, md, err := WriteReports([]*grid.Store{st}, t.TempDir())
	require.NoError(t, err)
	checkReportFiles(t, files, md)
	assert.Contains(t, string(md), "| paper | LLPFC-uniform | 1 | 0 | 0.3000 | ∞ |", "the infinite cell's row")
	t.Run("only infinite", func(t *testing.T) {
		st := putAll(t, fakeResult("s", cellConfig("llpfc-uniform", "dirichlet:0.01", 64, 0), 0.2, math.Inf(1)))
		files, md, err := WriteReports([]*grid.Store{st}, t.TempDir())
		require.NoError(t, err)
		checkReportFiles(t, files, md)
	})
}

// Plot files were once named spec-model-dataset, so tables
// differing in protocol (or learner), or data sets whose names differ only
// in characters a file name cannot hold, wrote one file over the other and
// linked it from two tables.
func TestReportPlotNamesUnique(t *testing.T) {
	withData := func(c experiments.Config, ds string) experiments.Config { c.Dataset = ds; return c }
	st := putAll(t,
		fakeResult("p", cellConfig("kl", "paper", 64, 0), 0.8, 0),
		fakeResult("p", cellConfig("kl", "shuffle", 64, 0), 0.7, 0),
		fakeResult("p", cellConfig("kl", "dirichlet:1", 64, 0), 0.7, 0),
		fakeResult("p", withData(cellConfig("kl", "paper", 64, 0), "csv:x y.csv"), 0.6, 0),
		fakeResult("p", withData(cellConfig("kl", "paper", 64, 0), "csv:x_y.csv"), 0.6, 0),
		fakeResult("trouble", withData(cellConfig("kl", "paper", 64, 1), "csv:x_y.csv"), 0.6, 0))
	files, md, err := WriteReports([]*grid.Store{st}, t.TempDir())
	require.NoError(t, err)
	checkReportFiles(t, files, md)
	assert.Len(t, files.Plots, 6, "one plot per table")
	pngs, _ := filepath.Glob(filepath.Join(filepath.Dir(files.Markdown), "*.png"))
	assert.Len(t, pngs, 6, "one file per plot")
}

// The same store given twice (or a shard beside the merged store) once
// counted every cell twice ("over 4 seeds" for a 2-seed grid)
// and the rank correlation ran over the duplicates.
func TestReportCountsEachCellOnce(t *testing.T) {
	a := putAll(t,
		fakeResult("d", cellConfig("llpfc-uniform", "paper", 64, 0), 0.8, 70),
		fakeResult("d", cellConfig("llpfc-uniform", "paper", 64, 1), 0.82, 80),
		fakeResult("d", cellConfig("llpfc-uniform", "paper", 128, 0), 0.7, 90),
		fakeResult("d", cellConfig("llpfc-uniform", "paper", 128, 1), 0.71, 95))
	shard := putAll(t, fakeResult("d", cellConfig("llpfc-uniform", "paper", 64, 0), 0.8, 70))
	for name, stores := range map[string][]*grid.Store{"same store twice": {a, a}, "shard and merged store": {shard, a}} {
		t.Run(name, func(t *testing.T) {
			_, md, err := WriteReports(stores, t.TempDir())
			require.NoError(t, err)
			text := string(md)
			assert.Contains(t, text, "4 finished cells")
			assert.Contains(t, text, "over 2 seeds")
			assert.Contains(t, text, "computed from the 4 LLPFC cells")
			assert.Equal(t, 1, strings.Count(text, "| paper | LLPFC-uniform | 64 | 0 |"), "one trouble row per cell")
		})
	}
	t.Run("conflicting outcomes", func(t *testing.T) {
		other := putAll(t, fakeResult("d", cellConfig("llpfc-uniform", "paper", 64, 0), 0.1, 70))
		_, _, err := WriteReports([]*grid.Store{a, other}, t.TempDir())
		require.Error(t, err)
		assert.Contains(t, err.Error(), cellConfig("llpfc-uniform", "paper", 64, 0).Key())
	})
}

// A cell once belonged to whichever spec wrote it first —
// running spec "three" into a store holding the identical KL cells of spec
// "onlykl" reported three's KL row from the one seed three ran itself and
// listed the others under onlykl — and merge kept the first source's spec
// name, so tables depended on the order of merge's arguments.
func TestCellBelongsToEverySpecThatRanIt(t *testing.T) {
	only := strings.NewReplacer(`"name": "tiny"`, `"name": "onlykl"`,
		`"methods": ["llpfc-uniform", "llpfc-approx", "kl"]`, `"methods": ["kl"]`,
		`"seeds": [1, 2]`, `"seeds": [1]`).Replace(gridtest.TinySpecJSON)
	three := strings.Replace(gridtest.TinySpecJSON, `"name": "tiny"`, `"name": "three"`, 1)
	run := func(dir, spec string) {
		st, err := grid.OpenStore(dir)
		require.NoError(t, err)
		_, err = (&grid.Runner{Store: st}).Run(context.Background(), gridtest.Parse(t, spec))
		require.NoError(t, err)
	}
	a, b := t.TempDir(), t.TempDir()
	run(a, only)
	run(a, three)
	_, md, err := WriteReport(&grid.Store{Dir: a}, t.TempDir())
	require.NoError(t, err)
	text := string(md)
	three3 := text[strings.Index(text, "### three"):]
	assert.Contains(t, three3[:strings.Index(three3, "\n\n|")], "over 2 seeds", "three's table counts both seeds")
	assert.Regexp(t, `\| KL \| [0-9.]+ ± [0-9.]+ \| [0-9.]+ ± [0-9.]+ \|\n`, three3, "three's KL row has both bag sizes at full count")
	assert.Contains(t, text, "### onlykl", "onlykl keeps its table")

	// Merge in either order: the same cells with the same specs.
	run(b, three)
	ab, ba := &grid.Store{Dir: t.TempDir()}, &grid.Store{Dir: t.TempDir()}
	_, err = grid.Merge(ab, &grid.Store{Dir: a}, &grid.Store{Dir: b})
	require.NoError(t, err)
	_, err = grid.Merge(ba, &grid.Store{Dir: b}, &grid.Store{Dir: a})
	require.NoError(t, err)
	ra, err := ab.All()
	require.NoError(t, err)
	rb, err := ba.All()
	require.NoError(t, err)
	require.Len(t, rb, len(ra))
	for i := range ra {
		assert.Equal(t, ra[i].SpecNames(), rb[i].SpecNames(), "cell %s", ra[i].Key)
	}
}

// Messages: two stores whose grids share a spec name but not their
// epochs were once advised to keep different settings in different
// --results directories (which they were), and merge combined them
// silently. The report now names both stores and says to report them
// separately; merge refuses, writing nothing.
func TestSpecNameSharedByDifferentSettings(t *testing.T) {
	c1 := cellConfig("kl", "paper", 64, 0)
	c2 := cellConfig("kl", "paper", 64, 1)
	c2.Hyper.Epochs = 2
	a, b := putAll(t, fakeResult("g", c1, 0.7, 0)), putAll(t, fakeResult("g", c2, 0.8, 0))
	_, _, err := WriteReports([]*grid.Store{a, b}, t.TempDir())
	var inc *grid.IncomparableError
	require.ErrorAs(t, err, &inc)
	assert.Contains(t, err.Error(), "hyper.epochs")
	assert.Contains(t, err.Error(), a.Dir)
	assert.Contains(t, err.Error(), b.Dir)
	assert.Contains(t, err.Error(), "report them separately")
	assert.NotContains(t, err.Error(), "keep different settings in different --results directories")

	dst := filepath.Join(t.TempDir(), "merged")
	_, err = grid.Merge(&grid.Store{Dir: dst}, a, b)
	require.ErrorAs(t, err, &inc, "merge combines them silently")
	_, statErr := os.Stat(dst)
	assert.True(t, os.IsNotExist(statErr), "a refused merge writes nothing")
}

// Messages: one truncated cell once made report and merge fail with
// "unexpected EOF" and no hint. The report leaves it out and says so; merge
// copies the sound cells and lists it; both name the file and the repair.
func TestDamagedCellIsNamedAndLeftOut(t *testing.T) {
	st := putAll(t, fakeResult("d", cellConfig("kl", "paper", 64, 0), 0.7, 0),
		fakeResult("d", cellConfig("kl", "paper", 64, 1), 0.72, 0))
	bad := cellConfig("kl", "paper", 128, 0).Key()
	path := filepath.Join(st.Dir, "cells", bad+".json")
	require.NoError(t, os.WriteFile(path, []byte(`{"format": "llpfc-result/1", "key": "`+bad), 0o644))
	files, md, err := WriteReports([]*grid.Store{st}, t.TempDir())
	require.NoError(t, err)
	require.Len(t, files.Damaged, 1)
	assert.Contains(t, files.Damaged[0].Error(), path)
	assert.Contains(t, files.Damaged[0].Error(), "llpfc run SPEC --results "+st.Dir)
	assert.Contains(t, string(md), "Left out: 1 damaged cell file")
	_, err = st.All()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sets it aside", "All's error says how to repair")

	sum, err := grid.MergeStores(&grid.Store{Dir: filepath.Join(t.TempDir(), "m")}, st)
	require.NoError(t, err)
	assert.Equal(t, 2, sum.Written)
	require.Len(t, sum.Damaged, 1)
	assert.Equal(t, path, sum.Damaged[0].Path)
}

// Messages: an interrupted report once left ".NAME.png.tmp-NNN"
// files. A cancelled report stops between files and leaves none; the
// leftovers of a killed one are removed by the next report.
func TestReportLeavesNoTemporaries(t *testing.T) {
	st := putAll(t, fakeResult("i", cellConfig("kl", "paper", 64, 0), 0.7, 0),
		fakeResult("i", cellConfig("llpfc-uniform", "shuffle", 64, 0), 0.6, 200))
	out := t.TempDir()
	stale := filepath.Join(out, ".i-mlp-fashion-mnist-fixture-paper-gorgonia.png.tmp-123")
	require.NoError(t, os.WriteFile(stale, []byte("half a png"), 0o644))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := WriteReportsContext(ctx, []*grid.Store{st}, out)
	require.ErrorIs(t, err, context.Canceled)
	_, _, err = WriteReportsContext(context.Background(), []*grid.Store{st}, out)
	require.NoError(t, err)
	temps, _ := filepath.Glob(filepath.Join(out, ".*"))
	assert.Empty(t, temps, "temporary files left in the report directory")
}
