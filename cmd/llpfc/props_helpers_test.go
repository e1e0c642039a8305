package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
)

// Helpers of the properties of issue 27 (props_test.go, exitprops_test.go):
// a gopter driver, and a reading of the files a store and a report hold that
// does not go through package experiments, so that the report is checked
// against the cells by an independent count.

// gridCases is the number of generated cases of a property: def in `make
// test`, or LLPFC_GRID_CASES cases of each property when that is set.
func gridCases(def int) int {
	if n, err := strconv.Atoi(os.Getenv("LLPFC_GRID_CASES")); err == nil && n > 0 {
		return n
	}
	return def
}

// gridSeed is gopter's master seed: fixed, so a failure replays, or
// LLPFC_GRID_SEED.
func gridSeed() int64 {
	if n, err := strconv.ParseInt(os.Getenv("LLPFC_GRID_SEED"), 10, 64); err == nil {
		return n
	}
	return 20270127
}

// forAllCases runs check on n cases drawn by gen with gopter and fails t
// with the first case whose check returns an error (the case is printed;
// gopter's seed replays it). It returns the number of cases run.
func forAllCases[T any](t *testing.T, name string, n int, gen func(r *rand.Rand) T, check func(c T) error) int {
	t.Helper()
	params := gopter.DefaultTestParametersWithSeed(gridSeed())
	params.MinSuccessfulTests = n
	params.MaxShrinkCount = 0
	params.Workers = 1
	g := func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(gen(p.Rng), gopter.NoShrinker)
	}
	tried := 0
	var firstErr error
	var firstCase T
	props := gopter.NewProperties(params)
	props.Property(name, prop.ForAll(func(c T) bool {
		tried++
		if err := check(c); err != nil {
			if firstErr == nil {
				firstErr, firstCase = err, c
			}
			return false
		}
		return true
	}, gopter.Gen(g)))
	var log bytes.Buffer
	if !props.Run(gopter.NewFormatedReporter(false, 160, &log)) {
		t.Errorf("property %s failed on case %d (LLPFC_GRID_SEED=%d): %v\ncase: %+v\n%s", name, tried, gridSeed(), firstErr, firstCase, log.String())
	}
	return tried
}

// cellFile is what the properties read of a cell file, without package
// experiments.
type cellFile struct {
	Key    string   `json:"key"`
	Spec   string   `json:"spec"`
	Specs  []string `json:"specs"`
	Config struct {
		Learner  string `json:"learner"`
		Dataset  string `json:"dataset"`
		Model    string `json:"model"`
		Method   string `json:"method"`
		Protocol string `json:"protocol"`
		BagSize  int    `json:"bag_size"`
	} `json:"config"`
	Metrics struct {
		Regroupings []json.RawMessage `json:"regroupings"`
	} `json:"metrics"`
}

// readCells reads the sound cell files of the stores, each key once (the
// union of its spec names), and counts the damaged ones (files that do not
// parse, or whose key is not their name).
func readCells(dirs ...string) (map[string]*cellFile, int) {
	cells := map[string]*cellFile{}
	damaged := 0
	seen := map[string]bool{}
	for _, d := range dirs {
		abs, _ := filepath.Abs(d)
		if seen[abs] {
			continue
		}
		seen[abs] = true
		files, _ := filepath.Glob(filepath.Join(d, "cells", "*.json"))
		for _, f := range files {
			var c cellFile
			b, err := os.ReadFile(f)
			if err != nil || json.Unmarshal(b, &c) != nil || c.Key+".json" != filepath.Base(f) {
				damaged++
				continue
			}
			if prev, ok := cells[c.Key]; ok {
				prev.Specs = append(prev.Specs, append([]string{c.Spec}, c.Specs...)...)
				continue
			}
			cells[c.Key] = &c
		}
	}
	return cells, damaged
}

// specNames is the sorted set of a cell's spec names.
func (c *cellFile) specNames() []string {
	set := map[string]bool{c.Spec: true}
	for _, s := range c.Specs {
		set[s] = true
	}
	var out []string
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// slotKey is one (table, method, bag size) slot of a report.
type slotKey struct {
	title, method string
	bag           int
}

// tableTitle is a table's heading as the report spells it.
func tableTitle(spec, model, dataset, learner, protocol string) string {
	return fmt.Sprintf("%s: %s on %s (learner %s, protocol %s)", spec, model, dataset, learner, protocol)
}

// expectedSlots counts the cells of each slot: a cell in the table of every
// spec it belongs to.
func expectedSlots(cells map[string]*cellFile) map[slotKey]int {
	want := map[slotKey]int{}
	for _, c := range cells {
		for _, s := range c.specNames() {
			k := slotKey{tableTitle(s, c.Config.Model, c.Config.Dataset, c.Config.Learner, c.Config.Protocol), c.Config.Method, c.Config.BagSize}
			want[k]++
		}
	}
	return want
}

// methodByLabel maps the report's method labels (the paper's spellings) to
// method names.
var methodByLabel = map[string]string{"KL": "kl", "LLPVAT": "llpvat", "LLPGAN": "llpgan", "LLPFC-ideal": "llpfc-ideal",
	"LLPFC-uniform": "llpfc-uniform", "LLPFC-approx": "llpfc-approx", "Supervised (ceiling)": "supervised",
	"EasyLLP": "easyllp", "MixBag": "mixbag", "LLP-PVC": "llppvc"}

var (
	overSeeds = regexp.MustCompile(`mean ± population std over (\d+) seeds?`)
	nCell     = regexp.MustCompile(`\(n=(\d+)\)`)
	imgLink   = regexp.MustCompile(`^!\[(.*)\]\(([^)]+)\)$`)
)

// parsedReport is what a report.md says: the count of each slot, the plot
// linked after each table, and the rows of the trouble section.
type parsedReport struct {
	slots       map[slotKey]int
	titles      map[string]int
	plots       map[string]string // table title → plot file
	links       []string
	troubleRows int
}

// parseReport reads report.md's tables: the seeds of each slot are the
// table's "over N seeds", or the slot's "(n=k)"; "—" is an empty slot.
func parseReport(md string) (*parsedReport, error) {
	p := &parsedReport{slots: map[slotKey]int{}, titles: map[string]int{}, plots: map[string]string{}}
	lines := strings.Split(md, "\n")
	title, maxN := "", 0
	var bags []int
	inTrouble := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "### "):
			title, bags, maxN = strings.TrimPrefix(l, "### "), nil, 0
			p.titles[title]++
		case strings.HasPrefix(l, "## "):
			title, inTrouble = "", strings.Contains(l, "Where LLPFC breaks")
		case imgLink.MatchString(l):
			m := imgLink.FindStringSubmatch(l)
			p.links = append(p.links, m[2])
			if title != "" {
				p.plots[title] = m[2]
			}
		case inTrouble && strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "| protocol"):
			p.troubleRows++
		case title == "":
		case overSeeds.MatchString(l):
			maxN, _ = strconv.Atoi(overSeeds.FindStringSubmatch(l)[1])
		case strings.HasPrefix(l, "| Method |"):
			for _, f := range strings.Split(strings.Trim(l, "| "), "|")[1:] {
				b, err := strconv.Atoi(strings.TrimSpace(f))
				if err != nil {
					return nil, fmt.Errorf("table %q: bag-size column %q", title, f)
				}
				bags = append(bags, b)
			}
		case strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "|---") && !strings.Contains(l, "(paper)"):
			fs := strings.Split(strings.Trim(l, "|"), "|")
			method, ok := methodByLabel[strings.TrimSpace(fs[0])]
			if !ok {
				return nil, fmt.Errorf("table %q: unknown row %q", title, fs[0])
			}
			if len(fs)-1 != len(bags) {
				return nil, fmt.Errorf("table %q: row %q has %d cells for %d bag sizes", title, fs[0], len(fs)-1, len(bags))
			}
			for i, f := range fs[1:] {
				n := maxN
				switch {
				case strings.TrimSpace(f) == "—":
					n = 0
				case nCell.MatchString(f):
					n, _ = strconv.Atoi(nCell.FindStringSubmatch(f)[1])
				}
				k := slotKey{title, method, bags[i]}
				if _, dup := p.slots[k]; dup {
					return nil, fmt.Errorf("table %q: method %s has two rows", title, method)
				}
				p.slots[k] = n
			}
		}
	}
	return p, nil
}

// checkReport checks report.md in out against the cells of the stores:
// every cell counted once in the table of each of its specs, each table once
// with its own plot, every plot a distinct file that exists and no other
// file in out (no temporary left), one trouble row per LLPFC cell with
// groups.
func checkReport(out string, cells map[string]*cellFile) error {
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		return fmt.Errorf("no report.md: %v", err)
	}
	p, err := parseReport(string(md))
	if err != nil {
		return err
	}
	want := expectedSlots(cells)
	for k, n := range want {
		if p.slots[k] != n {
			return fmt.Errorf("slot %+v: report counts %d cells, the stores hold %d", k, p.slots[k], n)
		}
	}
	for k, n := range p.slots {
		if n != want[k] {
			return fmt.Errorf("slot %+v: report counts %d cells, the stores hold %d", k, n, want[k])
		}
	}
	for title, n := range p.titles {
		if n != 1 {
			return fmt.Errorf("table %q appears %d times", title, n)
		}
		if p.plots[title] == "" {
			return fmt.Errorf("table %q has no plot", title)
		}
	}
	seen := map[string]bool{}
	for _, l := range p.links {
		if seen[strings.ToLower(l)] {
			return fmt.Errorf("plot %s linked twice", l)
		}
		seen[strings.ToLower(l)] = true
		if _, err := os.Stat(filepath.Join(out, l)); err != nil {
			return fmt.Errorf("linked plot %s: %v", l, err)
		}
	}
	ents, _ := os.ReadDir(out)
	if len(ents) != len(p.links)+1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return fmt.Errorf("the report directory holds %v, want report.md and the %d linked plots", names, len(p.links))
	}
	llpfc := 0
	for _, c := range cells {
		if len(c.Metrics.Regroupings) > 0 {
			llpfc++
		}
	}
	if p.troubleRows != llpfc {
		return fmt.Errorf("trouble section: %d rows, %d LLPFC cells with groups", p.troubleRows, llpfc)
	}
	return nil
}
