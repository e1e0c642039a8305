package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/experiments/grid"
)

// TestPropertyRightNumberOrClearRefusal, in the style of
// TestPropertyOddInvocations: generated invocations on the paths where a
// user was once told something other than what happened, none of them the
// cases first found — missing values in every role under every option, columns named
// by numbers that are also indices, options given twice, stores edited,
// broken, nested or claimed from places that cannot be checked, searches
// and tuned overrides, held-out bags, tables in other separators. The
// oracle is the generator: it knows whether it made the input bad, and,
// for a valid one, the number the command must give (the classes read,
// the bags held out, the cells stored, the rows scored, the search each
// cell runs). Every case: no crash; exit 2 on bad input with a message by
// the one rule (wayOut), in the flags' words for train; on valid input,
// the right number, not merely exit 0 (a quietly-wrong result fails);
// every input file byte-identical; a store whatever run did reportable.
// `make test` draws LLPFC_TRIAL_CASES (default 400).

// trialCase is one generated invocation and what it must give.
type trialCase struct {
	Family string
	Dir    string
	Args   []string
	Bad    bool
	Why    string
	// verify checks a valid case's output (nil: exit 0 is enough); a bad
	// case's too, when set (the store it must leave as it was).
	verify func(stdout, stderr string) error
}

func (c trialCase) String() string {
	return fmt.Sprintf("[%s] bad=%v (%s): llpfc %q", c.Family, c.Bad, c.Why, c.Args)
}

// trialFamily makes a case in dir (outputs under dir/out).
type trialFamily = caseFamily[trialCase]

// trialResult is the last JSON line of train --json.
type trialResult struct {
	ValBags int `json:"val_bags"`
	NumBags int `json:"num_bags"`
	Scores  struct {
		Confusion [][]int `json:"confusion"`
	} `json:"scores"`
}

func trialJSON(stdout string) (trialResult, error) {
	var res trialResult
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	err := json.Unmarshal([]byte(lines[len(lines)-1]), &res)
	return res, err
}

// classesRead checks that train --json read k classes.
func classesRead(k int) func(stdout, _ string) error {
	return func(stdout, _ string) error {
		res, err := trialJSON(stdout)
		if err != nil {
			return err
		}
		if len(res.Scores.Confusion) != k {
			return fmt.Errorf("%d classes read, the file has %d", len(res.Scores.Confusion), k)
		}
		return nil
	}
}

// trialTemplate is the tiny spec's store, made once; trialKey its cell.
var (
	trialTemplate map[string][]byte
	trialKey      string
)

// copyStore writes the template store at dir/rel.
func copyStore(dir, rel string) string {
	for f, b := range trialTemplate {
		put(filepath.Join(dir, rel), f, string(b))
	}
	return filepath.Join(dir, rel)
}

// sameStore reports whether the store at p holds exactly the template.
func sameStore(p string) error {
	got := treeHashes(p)
	if len(got) != len(trialTemplate) {
		return fmt.Errorf("the store holds %d files, it held %d", len(got), len(trialTemplate))
	}
	for f := range trialTemplate {
		if _, ok := got[f]; !ok {
			return fmt.Errorf("the store lost %s", f)
		}
	}
	return nil
}

// reportable checks that report reads the store at p.
func reportable(p, out string) error {
	code, _, stderr := runCmd("report", "--results", p, "--out", out)
	if code != exitOK {
		return fmt.Errorf("the store is no longer reportable: %s", stderr)
	}
	return nil
}

var missingSpellings = []string{"NA", "na", "N/A", "NaN", "null", "None", "none", "Na", "<NA>", "#N/A", "?", "nil", "missing", ""}

var trialFamilies = []trialFamily{
	{"missing values", func(r *rand.Rand, dir string) trialCase {
		miss := pickOf(r, missingSpellings...)
		role := pickOf(r, "feature", "label", "category", "none")
		classes := []string{"yes", "no"}
		if role == "label" && miss != "" && r.Intn(2) == 0 {
			classes = []string{miss, "other"} // a class spelled as a missing value, everywhere
		}
		na := pickOf(r, "", "@na=", "@na=-", "@na="+miss)
		declare := role == "category" && r.Intn(2) == 0
		var b strings.Builder
		b.WriteString("a,color,b,label\n")
		for i := 0; i < 60; i++ {
			a, color, label := strconv.Itoa(i%7+3*(i%2)), []string{"red", "blue"}[i%2], classes[i%2]
			switch {
			case i == 11 && role == "feature":
				a = miss
			case i == 11 && role == "category":
				color = miss
			case i%5 == 1 && role == "label" && classes[0] != miss: // a class's worth of rows
				label = miss
			}
			fmt.Fprintf(&b, "%s,%s,%d,%s\n", a, color, (i*5)%7, label)
		}
		p := put(dir, "t.csv", b.String())
		opts := na
		if declare {
			opts += "@categorical=color"
		}
		// The oracle: which values the file's rule calls missing.
		missing := func(v string) bool {
			if v == "" {
				return true
			}
			switch na {
			case "":
				return containsFoldStr(missingSpellings, v)
			case "@na=":
				return false
			case "@na=-":
				return v == "-"
			}
			return v == miss
		}
		c := trialCase{Why: fmt.Sprintf("%q in the %s column, %s%s", miss, role, na, map[bool]string{true: " @categorical=color"}[declare])}
		switch {
		case role == "none":
		case role == "label" && missing(classes[0]):
			c.Bad = true
		case role == "label" && classes[0] != miss && missing(miss):
			c.Bad = true
		case role == "feature": // missing, or read as written in a column of numbers: a mixed column
			c.Bad = true
		case role == "category" && missing(miss) && !declare:
			c.Bad = true
		case role == "category" && !declare && isNumber(miss): // a number among categories: a mixed column
			c.Bad = true
		}
		want := 2
		if role == "label" && classes[0] != miss && !missing(miss) {
			want = 3 // the spelling is a class of its own, as the rule says
		}
		c.Args = []string{"train", "--data", "csv:" + p + "," + p + opts, "--bag-size", "6", "--epochs", "1", "--quiet", "--batch-size", "12", "--json"}
		if !c.Bad {
			c.verify = classesRead(want)
		}
		return c
	}},
	{"column options", func(r *rand.Rand, dir string) trialCase {
		n := 4 + r.Intn(3)
		header := make([]string, n)
		used := map[string]bool{}
		for j := range header {
			for {
				h := pickOf(r, "a", "b", "c", "w")
				if r.Intn(2) == 0 && j > 0 {
					h = strconv.Itoa(r.Intn(n + 1))
				}
				if !used[h] {
					used[h], header[j] = true, h
					break
				}
			}
		}
		// Column j holds j+2 distinct values: the classes read say which
		// column was the label.
		var b strings.Builder
		b.WriteString(strings.Join(header, ",") + "\n")
		for i := 0; i < 72; i++ {
			row := make([]string, n)
			for j := range row {
				row[j] = strconv.Itoa(10 + i%(j+2))
			}
			b.WriteString(strings.Join(row, ",") + "\n")
		}
		p := put(dir, "t.csv", b.String())
		ref := pickOf(r, header[r.Intn(n)], strconv.Itoa(r.Intn(n+1)))
		byName, byIndex := -1, -1
		for j, h := range header {
			if strings.EqualFold(h, ref) && byName < 0 {
				byName = j
			}
		}
		if k, err := strconv.Atoi(ref); err == nil && k < n {
			byIndex = k
		}
		opt := "@label=" + ref
		if r.Intn(2) == 0 {
			opt = "@" + ref
		}
		c := trialCase{Why: fmt.Sprintf("header %v, %s", header, opt)}
		twice := r.Intn(5) == 0
		if twice {
			opt += "@label=" + header[0]
			c.Bad, c.Why = true, c.Why+" and again"
		}
		want := byName
		switch {
		case byName >= 0 && byIndex >= 0 && byName != byIndex:
			c.Bad, c.Why = true, c.Why+": ambiguous"
		case byName < 0:
			want = byIndex
		}
		if want < 0 {
			c.Bad, c.Why = true, c.Why+": no such column"
		}
		c.Args = []string{"train", "--data", "csv:" + p + "," + p + opt, "--bag-size", "6", "--epochs", "1", "--quiet", "--batch-size", "12", "--json"}
		if !c.Bad {
			c.verify = classesRead(want + 2)
		}
		return c
	}},
	{"held-out bags", func(r *rand.Rand, dir string) trialCase {
		method := pickOf(r, "llpfc-uniform", "kl")
		v := pickOf(r, 0.05, 0.1, 0.25, 0.4, 0.5, 0.7, 0.95, 1, 2, 3, 5, 6, 7, 8, 9, 2.5, -1)
		sel := r.Intn(4) == 0
		args := []string{"train", "--data", gmmSet, "--bag-size", "8", "--num-points", "64", "--epochs", "1", "--quiet", "--json", "--method", method}
		if v != 0 {
			args = append(args, "--val-bags", strconv.FormatFloat(v, 'g', -1, 64))
		}
		if sel {
			args = append(args, "--select", "best-val")
		}
		k := int(v)
		if v < 1 {
			k = int(math.Round(v * 8))
		}
		need := 3 // LLPFC's groups of C bags
		if method == "kl" {
			need = 2 // a minibatch of 2 bags
		}
		bad := v < 0 || (v >= 1 && v != math.Trunc(v)) || k < 1 || k >= 8 || 8-k < need
		c := trialCase{Args: args, Bad: bad, Why: fmt.Sprintf("%s, --val-bags %v of 8 bags", method, v)}
		c.verify = func(stdout, stderr string) error {
			if c.Bad {
				for _, field := range []string{"hyper.", "num_points", "bag_size", "config:"} {
					if strings.Contains(stderr, field) {
						return fmt.Errorf("train's message names the spec's %q: %s", field, stderr)
					}
				}
				return nil
			}
			res, err := trialJSON(stdout)
			if err != nil {
				return err
			}
			if res.ValBags != k || res.NumBags != 8-k {
				return fmt.Errorf("%d bags held out and %d trained, want %d and %d", res.ValBags, res.NumBags, k, 8-k)
			}
			return nil
		}
		return c
	}},
	{"tables to predict", func(r *rand.Rand, dir string) trialCase {
		put(dir, "m.npz", string(oddTableModel.npz))
		put(dir, "m.json", string(oddTableModel.manifest))
		sep := pickOf(r, ",", ",", ";", "\t", "|")
		rows := 3 + r.Intn(8)
		var b strings.Builder
		b.WriteString(strings.Join([]string{"x1", "x2"}, sep) + "\n")
		for i := 0; i < rows; i++ {
			fmt.Fprintf(&b, "%d%s%d\n", i%5, sep, (i*3)%5)
		}
		p := put(dir, "s.csv", b.String())
		out := filepath.Join(dir, "out", "p.csv")
		c := trialCase{Args: []string{"predict", "--model", filepath.Join(dir, "m"), "--data", "csv:" + p, "--out", out}, Bad: sep != ",", Why: fmt.Sprintf("fields separated by %q", sep)}
		c.verify = func(_, _ string) error {
			if c.Bad {
				return nil
			}
			b, err := os.ReadFile(out)
			if err != nil {
				return err
			}
			if n := len(strings.Split(strings.TrimSpace(string(b)), "\n")) - 1; n != rows {
				return fmt.Errorf("%d rows scored, the table has %d", n, rows)
			}
			return nil
		}
		return c
	}},
	{"stores", func(r *rand.Rand, dir string) trialCase {
		var spec map[string]any
		json.Unmarshal([]byte(tinySpec), &spec)
		st := copyStore(dir, "out/st")
		c := trialCase{Why: "the spec again"}
		cells := 1
		switch r.Intn(6) {
		case 0:
			spec["hyper"].(map[string]any)[pickOf(r, "epochs", "lr", "batch_size")] = pickOf[any](r, 2, 0.01, 16)
			c.Bad, c.Why = true, "the spec edited under its name"
		case 1:
			spec["hyper"].(map[string]any)["epochs"], spec["name"] = 2, "t2"
			c.Why, cells = "the spec edited and renamed", 2
		case 2:
			spec["seeds"], cells = []any{0, 1}, 2
			c.Why = "another seed"
		case 3:
			part := pickOf(r, "claims", "failed", "models", "damaged")
			os.RemoveAll(filepath.Join(st, part))
			put(st, part, "x")
			trialTemplate2 := treeHashes(st)
			c.Bad, c.Why = true, "STORE/"+part+" a file"
			c.verify = func(_, _ string) error {
				if len(treeHashes(st)) != len(trialTemplate2) {
					return fmt.Errorf("the refused run changed the store")
				}
				return nil
			}
		case 4:
			os.RemoveAll(st)
			inner := copyStore(dir, filepath.Join("out", "wrap", strings.Repeat("d/", r.Intn(3)), "st"))
			_ = inner
			st = filepath.Join(dir, "out", "wrap")
			c.Bad, c.Why = true, "--results around a store"
			c.verify = func(_, _ string) error {
				if _, err := os.Stat(filepath.Join(st, "cells")); err == nil {
					return fmt.Errorf("a store was made around another")
				}
				return nil
			}
		}
		b, _ := json.Marshal(spec)
		p := put(dir, "s.json", string(b))
		c.Args = []string{"run", p, "--results", st}
		if c.verify == nil {
			c.verify = func(_, _ string) error {
				if c.Bad {
					return sameStore(st)
				}
				if n := len(treeHashes(filepath.Join(st, "cells"))); n != cells {
					return fmt.Errorf("%d cells stored, want %d", n, cells)
				}
				return reportable(st, filepath.Join(dir, "out", "rep"))
			}
		}
		return c
	}},
	{"claims", func(r *rand.Rand, dir string) trialCase {
		st := filepath.Join(dir, "out", "st")
		host, _ := os.Hostname()
		boot, ns := grid.ClaimIdentity()
		mod := time.Now()
		rec := map[string]any{"host": host, "pid": deadPIDForTrial(), "token": "other", "start": mod.Format(time.RFC3339)}
		waits := true
		why := ""
		switch r.Intn(5) {
		case 0:
			rec["boot_id"], rec["pid_ns"], waits, why = boot, ns, false, "a killed run of this namespace"
		case 1:
			rec["boot_id"], rec["pid_ns"], why = boot, "pid:[4026531999]", "another PID namespace"
		case 2:
			rec["boot_id"], rec["pid_ns"], why = "another-boot", ns, "another boot"
		case 3:
			why = "a claim of before (no namespace)"
		default:
			rec["host"], why = "elsewhere", "another host"
		}
		b, _ := json.Marshal(rec)
		put(st, "claims/"+trialKey, string(b))
		os.MkdirAll(filepath.Join(st, "cells"), 0o755)
		c := trialCase{Why: why, Args: []string{"run", put(dir, "s.json", tinySpec), "--results", st}}
		c.verify = func(_, stderr string) error {
			said := strings.Contains(stderr, "cannot be checked from here; taken over at ")
			if said != waits {
				return fmt.Errorf("waited %v, want %v: %s", said, waits, stderr)
			}
			var res struct {
				Provenance struct {
					Start time.Time `json:"start"`
				} `json:"provenance"`
			}
			b, err := os.ReadFile(filepath.Join(st, "cells", trialKey+".json"))
			if err != nil {
				return fmt.Errorf("the cell was not stored: %v", err)
			}
			json.Unmarshal(b, &res)
			if waits && res.Provenance.Start.Before(mod.Add(grid.ClaimStaleAfter).Add(-50*time.Millisecond)) {
				return fmt.Errorf("the live claim of %s was taken over at %v, before its age (%v)", why, res.Provenance.Start, mod.Add(grid.ClaimStaleAfter))
			}
			return reportable(st, filepath.Join(dir, "out", "rep"))
		}
		return c
	}},
	{"searches", func(r *rand.Rand, dir string) trialCase {
		var spec map[string]any
		json.Unmarshal([]byte(tinySpec), &spec)
		spec["learner"], spec["model"] = "gorgonia", "mlp"
		spec["methods"] = []any{"llpfc-uniform", "llpfc-approx"}
		h := spec["hyper"].(map[string]any)
		h["val_bags"] = 0.25
		c := trialCase{Why: "searches"}
		own := map[string][]float64{}
		tune := r.Intn(2) == 0
		if tune {
			spec["tune"] = true
		} else {
			h["lr"], h["search"] = 0, map[string]any{"lr": []any{0.001, 0.01}}
		}
		var ovs []any
		for _, m := range []string{"llpfc-uniform", "llpfc-approx"} {
			set := map[string]any{}
			switch r.Intn(4) {
			case 0:
				set["lr"] = 0.2
				if tune {
					c.Bad, c.Why = true, "an override's rate under tune"
				} else {
					c.Bad, c.Why = true, "a rate beside a search"
				}
			case 1:
				lrs := []any{0.003, 0.03}
				own[m] = []float64{0.003, 0.03}
				if r.Intn(3) == 0 {
					lrs = append(lrs, 3e-3)
					c.Bad, c.Why = true, "a rate listed twice"
				}
				set["search"] = map[string]any{"lr": lrs}
			}
			if len(set) > 0 {
				ovs = append(ovs, map[string]any{"when": map[string]any{"methods": []any{m}}, "set": map[string]any{"hyper": set}})
			}
		}
		spec["overrides"] = ovs
		b, _ := json.Marshal(spec)
		p := put(dir, "s.json", string(b))
		c.Args = []string{"run", p, "--list", "--results", filepath.Join(dir, "out", "r")}
		c.verify = func(_, _ string) error {
			if c.Bad {
				return nil
			}
			s, err := grid.LoadSpec(p)
			if err != nil {
				return err
			}
			cells, err := s.Cells()
			if err != nil {
				return err
			}
			for _, cell := range cells {
				want := []float64{0.001, 0.01}
				if tune {
					want = []float64{1e-4, 3e-4, 1e-3, 3e-3}
				}
				if o, ok := own[cell.Config.Method]; ok {
					want = o
				}
				if got := cell.Config.Hyper.Search.LR; fmt.Sprint(got) != fmt.Sprint(want) {
					return fmt.Errorf("%s searches %v, want %v", cell.Config.Method, got, want)
				}
			}
			return nil
		}
		return c
	}},
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func containsFoldStr(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// deadPIDForTrial is the PID of a process that has exited.
func deadPIDForTrial() int {
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	if err != nil {
		return 1 << 22
	}
	p.Wait()
	return p.Pid
}

// check runs the case against its oracle.
func (c trialCase) check() error {
	before := hashTree(c.Dir)
	code, stdout, stderr := runCmd(c.Args...)
	if err := noCrash(c.Args, stderr); err != nil {
		return err
	}
	switch {
	case c.Bad && code != exitBadUsage:
		return fmt.Errorf("exit %d on bad input, want 2: %s%s", code, stdout, stderr)
	case !c.Bad && code != exitOK:
		return fmt.Errorf("exit %d on valid input: %s", code, stderr)
	case c.Bad && wayOut(stderr) != nil:
		return wayOut(stderr)
	case repeatedPrefix(stderr) != "":
		return fmt.Errorf("a prefix said twice (%q): %s", repeatedPrefix(stderr), stderr)
	}
	if c.verify != nil {
		if err := c.verify(stdout, stderr); err != nil {
			return err
		}
	}
	after := hashTree(c.Dir)
	for f, h := range before {
		if after[f] != h {
			return fmt.Errorf("input %s changed", f)
		}
	}
	return nil
}

func TestPropertyRightNumberOrClearRefusal(t *testing.T) {
	defer func(stale, poll time.Duration) { grid.ClaimStaleAfter, grid.ClaimPoll = stale, poll }(grid.ClaimStaleAfter, grid.ClaimPoll)
	grid.ClaimStaleAfter, grid.ClaimPoll = 300*time.Millisecond, 50*time.Millisecond
	dir := t.TempDir()
	m := filepath.Join(dir, "m")
	writeBagOnlyInputs(t, dir)
	code, _, stderr := runCmd("train", "--data", "bags:"+dir+"/bo", "--epochs", "1", "--quiet", "--save-model", m)
	require.Equal(t, exitOK, code, stderr)
	var err error
	oddTableModel.npz, err = os.ReadFile(m + ".npz")
	require.NoError(t, err)
	oddTableModel.manifest, err = os.ReadFile(m + ".json")
	require.NoError(t, err)
	spec := writeFile(t, dir, "s.json", tinySpec)
	code, _, stderr = runCmd("run", spec, "--results", filepath.Join(dir, "st"))
	require.Equal(t, exitOK, code, stderr)
	trialTemplate = map[string][]byte{}
	for f := range treeHashes(filepath.Join(dir, "st")) {
		trialTemplate[f], _ = os.ReadFile(filepath.Join(dir, "st", f))
		if strings.HasPrefix(f, "cells"+string(filepath.Separator)) {
			trialKey = strings.TrimSuffix(filepath.Base(f), ".json")
		}
	}
	require.NotEmpty(t, trialKey)
	n := 400
	if v, err := strconv.Atoi(os.Getenv("LLPFC_TRIAL_CASES")); err == nil && v > 0 {
		n = v
	}
	tried, counts := forAllFamilies(t, "the right number or a clear refusal", n, trialFamilies,
		func(c *trialCase, family, dir string) { c.Family, c.Dir = family, dir },
		func(c trialCase) (string, bool) { return c.Family, c.Bad },
		func(c trialCase) error {
			if err := os.MkdirAll(filepath.Join(c.Dir, "out"), 0o755); err != nil {
				return err
			}
			return c.check()
		})
	t.Logf("%d generated invocations (family: bad, valid): %v", tried, counts)
	for _, f := range trialFamilies {
		if k := counts[f.name]; tried >= 100 && (k[0] == 0 && f.name != "claims" || k[1] == 0) { // a claim is never bad input: its cell is waited for or taken over
			t.Errorf("family %s drew %d bad and %d valid cases: the generator covers one side only", f.name, k[0], k[1])
		}
	}
}
