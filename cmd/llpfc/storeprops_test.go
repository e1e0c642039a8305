package main

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/training"
)

// storeCase is a generated set of stores: finished cells of a few specs
// dealt to 1–3 stores with overlaps (a cell in several stores, as shards
// and merged stores hold them), perhaps damaged files, and perhaps a
// conflict (one key, two outcomes) or two stores giving one spec name
// different settings — the two refusals of merge and report.
type storeCase struct {
	Cells        []*grid.Result
	Where        [][]int // the stores of each cell
	Stores       int
	Damaged      []int // per damaged file, its store
	Conflict     bool
	Incomparable bool
	Order        []int // the stores in the order merge and report read them (repeats allowed)
}

func (c storeCase) String() string {
	return fmt.Sprintf("%d cells in %d stores %v; damaged %v; conflict %v; incomparable %v; order %v",
		len(c.Cells), c.Stores, c.Where, c.Damaged, c.Conflict, c.Incomparable, c.Order)
}

// genStoreCase draws a store case over configurations of both learners,
// every method, three protocols, bag sizes from 1 to 1024, data set names
// that differ only in characters a file name cannot hold, and LLPFC cells
// whose groups' ‖T̂⁻¹‖₁ is finite, large, infinite, or not recorded.
func genStoreCase(r *rand.Rand) storeCase {
	c := storeCase{Stores: 1 + r.Intn(3)}
	specs := []string{"a", "b", "g"}[:1+r.Intn(3)]
	datasets := []string{"csv:x y.csv", "csv:x_y.csv", "fashion-mnist-fixture"}[:1+r.Intn(3)]
	protocols := []string{"paper", "shuffle", "dirichlet:0.01"}
	methods := append([]string(nil), experiments.Methods()...)
	seen := map[string]bool{}
	for i := 0; i < 1+r.Intn(8); i++ {
		spec := specs[r.Intn(len(specs))]
		cfg := storeConfig(spec, datasets[r.Intn(len(datasets))], methods[r.Intn(len(methods))],
			protocols[r.Intn(len(protocols))], []int{1, 2, 16, 64, 1024}[r.Intn(5)], int64(r.Intn(3)), r.Intn(3) == 0)
		if seen[cfg.Key()] {
			continue
		}
		seen[cfg.Key()] = true
		c.Cells = append(c.Cells, storeResult(r, spec, cfg))
		where := []int{r.Intn(c.Stores)}
		if c.Stores > 1 && r.Intn(3) == 0 {
			where = append(where, (where[0]+1)%c.Stores)
		}
		c.Where = append(c.Where, where)
	}
	if r.Intn(4) == 0 {
		c.Damaged = append(c.Damaged, r.Intn(c.Stores))
	}
	c.Conflict = c.Stores > 1 && r.Intn(10) == 0
	c.Incomparable = c.Stores > 1 && r.Intn(10) == 0
	for i := 0; i < c.Stores; i++ {
		c.Order = append(c.Order, i)
	}
	r.Shuffle(len(c.Order), func(i, j int) { c.Order[i], c.Order[j] = c.Order[j], c.Order[i] })
	if r.Intn(3) == 0 {
		c.Order = append(c.Order, c.Order[0]) // a store given twice
	}
	return c
}

// storeConfig is a valid cell configuration; the settings of a spec name
// are its own (so its cells are comparable), and logreg trains the linear
// model.
func storeConfig(spec, dataset, method, protocol string, bag int, seed int64, logreg bool) experiments.Config {
	c := experiments.Config{Learner: "gorgonia", Dataset: dataset, Model: training.ModelMLP, Method: method,
		Protocol: protocol, BagSize: bag, NumPoints: 2048, Normalize: "standardize", Seed: seed,
		Hyper: experiments.Hyper{Epochs: 1 + len(spec), Optimizer: "adam", LR: 1e-3, BatchSize: 64, Schedule: experiments.Schedule{Kind: "constant"}}}
	if logreg {
		c.Learner, c.Model = "logreg", "linear"
	}
	if experiments.UsesKL(method) {
		c.Hyper.KLScale, c.Hyper.BatchSize = training.KLScaleAuthors, 2
	}
	if method == training.MethodLLPVAT {
		c.Hyper.VATRampup = training.VATRampupAuthors
	}
	return c
}

// storeResult is a finished cell of spec; an LLPFC cell records 0–2
// regroupings whose median ‖T̂⁻¹‖₁ is finite, above the warning threshold
// or infinite.
func storeResult(r *rand.Rand, spec string, c experiments.Config) *grid.Result {
	m := experiments.Metrics{TestAccuracy: math.Round(r.Float64()*1e4) / 1e4, Epochs: c.Hyper.Epochs, StepsPerEpoch: 1 + r.Intn(400)}
	if experiments.IsLLPFC(c.Method) {
		for k := 0; k < r.Intn(3); k++ {
			med := []float64{40, 600, math.Inf(1)}[r.Intn(3)]
			m.Regroupings = append(m.Regroupings, training.Regrouping{Epoch: k,
				Groups: estimators.GroupingSummary{Partitions: 1, Groups: 4, InvNorm1Median: med, InvNorm1P90: med, InvNorm1Max: med}})
		}
	}
	return &grid.Result{Format: grid.ResultFormat, Key: c.Key(), Spec: spec, Seed: c.Seed, Config: c, Metrics: m,
		Provenance: grid.Provenance{CodeVersion: "generated"}}
}

// write makes the stores under dir and returns their directories.
func (c storeCase) write(dir string) ([]string, error) {
	var dirs []string
	for i := 0; i < c.Stores; i++ {
		d := filepath.Join(dir, fmt.Sprintf("store%d", i))
		if _, err := grid.OpenStore(d); err != nil {
			return nil, err
		}
		dirs = append(dirs, d)
	}
	for i, res := range c.Cells {
		for _, s := range c.Where[i] {
			if err := (&grid.Store{Dir: dirs[s]}).Put(res); err != nil {
				return nil, err
			}
		}
	}
	for k, s := range c.Damaged {
		p := filepath.Join(dirs[s], "cells", fmt.Sprintf("%032x.json", k+1))
		if err := os.WriteFile(p, []byte(`{"format": "llpfc-result/1", "key": "`), 0o644); err != nil {
			return nil, err
		}
	}
	if len(c.Cells) > 0 && (c.Conflict || c.Incomparable) {
		res := *c.Cells[0]
		if c.Conflict {
			res.Metrics.TestAccuracy = 1 - res.Metrics.TestAccuracy + 0.5
		} else { // the same spec name with other epochs, in another store
			res.Config.Hyper.Epochs += 5
			res.Config.Seed += 10
			res.Key, res.Seed = res.Config.Key(), res.Config.Seed
		}
		other := (c.Where[0][0] + 1) % c.Stores
		if err := (&grid.Store{Dir: dirs[other]}).Put(&res); err != nil {
			return nil, err
		}
	}
	return dirs, nil
}

// TestPropertyStores: for generated stores (shards, overlaps, damaged
// files, the two refusals), `merge` in either order gives the same cells
// with the same specs, exits 0 or 1 naming each damaged file, or refuses
// (exit 2) a conflict or one spec name with two settings writing nothing;
// `report` over the stores (a store given twice included) renders every
// sound cell once per spec, every plot its own file (checkReport), or
// refuses the same two cases, or says there is no finished cell.
func TestPropertyStores(t *testing.T) {
	n := forAllCases(t, "merge and report on generated stores", gridCases(120), genStoreCase, func(c storeCase) error {
		return checkStoreCase(t, c)
	})
	t.Logf("%d generated sets of stores", n)
}

func checkStoreCase(t *testing.T, c storeCase) error {
	dir := t.TempDir()
	dirs, err := c.write(dir)
	if err != nil {
		return err
	}
	var order []string
	for _, i := range c.Order {
		order = append(order, dirs[i])
	}
	refused := (c.Conflict || c.Incomparable) && len(c.Cells) > 0
	ab, ba := filepath.Join(dir, "merged-ab"), filepath.Join(dir, "merged-ba")
	if err := expectMerge(ab, order, refused, len(c.Damaged)); err != nil {
		return err
	}
	rev := append([]string(nil), order...)
	sort.Sort(sort.Reverse(sort.StringSlice(rev)))
	if err := expectMerge(ba, rev, refused, len(c.Damaged)); err != nil {
		return err
	}
	if !refused {
		a, _ := readCells(ab)
		b, _ := readCells(ba)
		want, _ := readCells(dirs...)
		if err := sameCells(a, b); err != nil {
			return fmt.Errorf("merge depends on the order of its sources: %w", err)
		}
		if err := sameCells(a, want); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
	}
	out := filepath.Join(dir, "report")
	args := []string{"report", "--out", out}
	for _, d := range order {
		args = append(args, "--results", d)
	}
	if refused {
		code, _, stderr := runCmd(args...)
		if code != exitBadUsage || !containsAny(stderr, []string{"conflicting results", "not comparable"}) {
			return fmt.Errorf("report of refused stores: exit %d: %s", code, stderr)
		}
		return noCrash(args, stderr)
	}
	return expectReport(out, order...)
}

// expectMerge merges srcs into out: exit 2 writing nothing when refused,
// else exit 0, or 1 naming the damaged files when there are some.
func expectMerge(out string, srcs []string, refused bool, damaged int) error {
	args := append([]string{"merge", "--out", out}, srcs...)
	code, _, stderr := runCmd(args...)
	if err := noCrash(args, stderr); err != nil {
		return err
	}
	switch {
	case refused:
		if _, err := os.Stat(out); code != exitBadUsage || !os.IsNotExist(err) {
			return fmt.Errorf("refused merge: exit %d, output written: %v: %s", code, err == nil, stderr)
		}
	case damaged > 0:
		if code != exitFailed || strings.Count(stderr, "not merged: damaged cell file") != damaged {
			return fmt.Errorf("merge with %d damaged files: exit %d: %s", damaged, code, stderr)
		}
	case code != exitOK:
		return fmt.Errorf("merge: exit %d: %s", code, stderr)
	}
	return nil
}

// sameCells reports whether two stores hold the same keys with the same
// specs.
func sameCells(a, b map[string]*cellFile) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d cells against %d", len(a), len(b))
	}
	for k, x := range a {
		y, ok := b[k]
		if !ok {
			return fmt.Errorf("cell %s missing", k)
		}
		if !reflect.DeepEqual(x.specNames(), y.specNames()) {
			return fmt.Errorf("cell %s: specs %v against %v", k, x.specNames(), y.specNames())
		}
	}
	return nil
}
