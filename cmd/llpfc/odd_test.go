package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/experiments/data"
)

// TestPropertyOddInvocations: generated bad or unusual invocations, none
// of them the cases first found by hand — headers repeated in other cases and
// spellings, class names that are one number written otherwise, archives
// with aliases of one role, outputs onto inputs through generated paths,
// non-finite and out-of-range numbers, Slurm values, edited manifests,
// held-out bags against the bags there are. The oracle is the generator:
// it knows whether it made the input bad. Every case: no crash, exit 2 on
// bad input (never 0), exit 0 or 1 on the unusual but valid, no message
// saying a prefix twice or printing a Go struct, and every input file
// byte-identical. `make test` draws a modest number;
// LLPFC_ODD_CASES=N draws N (LLPFC_GRID_SEED changes them).

// oddCase is one generated invocation.
type oddCase struct {
	Family string
	Dir    string // where its inputs are
	Args   []string
	Bad    bool   // the oracle: bad input, which must exit 2
	Why    string // what the generator did
}

func (c oddCase) String() string {
	return fmt.Sprintf("[%s] bad=%v (%s): llpfc %q", c.Family, c.Bad, c.Why, c.Args)
}

// oddFamily makes a case in dir (its inputs; outputs go to dir/out).
type oddFamily = caseFamily[oddCase]

// put writes body to dir/name and returns the path.
func put(dir, name, body string) string {
	p := filepath.Join(dir, name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(body), 0o644)
	return p
}

// pickOf returns one of xs.
func pickOf[T any](r *rand.Rand, xs ...T) T { return xs[r.Intn(len(xs))] }

// oddTable writes a CSV file of a header and n rows of small integers (the
// column named "bag" or "label" gets ids or labels).
func oddTable(dir, name string, header []string, n int) string {
	var b strings.Builder
	b.WriteString(strings.Join(header, ",") + "\n")
	for i := 0; i < n; i++ {
		row := make([]string, len(header))
		for j, h := range header {
			switch strings.TrimSpace(h) {
			case "bag":
				row[j] = strconv.Itoa(i % 6)
			case "label":
				row[j] = strconv.Itoa(i % 2)
			default:
				row[j] = strconv.Itoa((i*(j+3) + j) % 7)
			}
		}
		b.WriteString(strings.Join(row, ",") + "\n")
	}
	p := filepath.Join(dir, name)
	os.WriteFile(p, []byte(b.String()), 0o644)
	return p
}

// oddProportions writes a proportions table of 6 bags over the classes.
func oddProportions(dir string, classes []string) string {
	var b strings.Builder
	b.WriteString("bag," + strings.Join(classes, ",") + "\n")
	for k := 0; k < 6; k++ {
		row := []string{strconv.Itoa(k)}
		for j := range classes {
			row = append(row, strconv.Itoa(1+(k+j)%3))
		}
		b.WriteString(strings.Join(row, ",") + "\n")
	}
	p := filepath.Join(dir, "props.csv")
	os.WriteFile(p, []byte(b.String()), 0o644)
	return p
}

// caseOf returns the name written in another case: upper, title or as is.
func caseOf(r *rand.Rand, s string) string {
	switch r.Intn(3) {
	case 0:
		return strings.ToUpper(s)
	case 1:
		return strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

var oddFamilies = []oddFamily{
	{"labelled header", func(r *rand.Rand, dir string) oddCase {
		names := []string{"alpha", "beta", "gamma", "delta"}[:2+r.Intn(3)]
		header := append(append([]string(nil), names...), "label")
		c := oddCase{Why: "distinct names"}
		switch r.Intn(4) {
		case 0:
			i := r.Intn(len(names))
			header = append(header, caseOf(r, names[i])+pickOf(r, "", " ", "  "))
			c.Bad, c.Why = true, "a feature name again in another case or with spaces"
		case 1:
			header[r.Intn(len(names))] = pickOf(r, " ", "\t", "")
			c.Bad, c.Why = true, "a blank name"
		case 2:
			header = append(header, pickOf(r, "LABEL", "Label"))
			c.Bad, c.Why = true, "the label column twice"
		}
		r.Shuffle(len(header), func(i, j int) { header[i], header[j] = header[j], header[i] })
		p := oddTable(dir, "t.csv", header, 60)
		c.Args = []string{"train", "--data", "csv:" + p + "," + p, "--bag-size", "6", "--epochs", "1", "--quiet", "--batch-size", "12"}
		return c
	}},
	{"proportions header", func(r *rand.Rand, dir string) oddCase {
		tr := oddTable(dir, "train.csv", []string{"u", "v", "bag"}, 36)
		classes := []string{"k1", "k2", "k3"}[:2+r.Intn(2)]
		c := oddCase{Why: "distinct class names"}
		switch r.Intn(4) {
		case 0:
			classes = []string{"2", pickOf(r, "2.0", "+2", "2e0", "02", "2.00"), "3"}
			c.Bad, c.Why = true, "one class number written two ways"
		case 1:
			i := r.Intn(len(classes))
			classes = append(classes, strings.ToUpper(classes[i]))
			c.Bad, c.Why = true, "a class name again in another case"
		case 2:
			classes = append([]string{""}, classes...)
			c.Bad, c.Why = true, "an empty class column name (an index column)"
		}
		c.Args = []string{"train", "--data", "bags:" + tr + "," + oddProportions(dir, classes) + "@normalize", "--epochs", "1", "--quiet", "--method", "kl"}
		return c
	}},
	{"archive roles", func(r *rand.Rand, dir string) oddCase {
		arrays := []data.NPYArray{{Key: "X", Shape: []int{12, 2}, F64: make([]float64, 24)},
			{Key: "bag", Shape: []int{12}, I64: []int64{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}},
			{Key: "proportions", Shape: []int{3, 2}, F64: []float64{0.5, 0.5, 0.25, 0.75, 1, 0}}}
		for i := range arrays[0].F64 {
			arrays[0].F64[i] = float64(i % 5)
		}
		c := oddCase{Why: "one array per role"}
		alias := map[string]string{"X": "x", "bag": "bags", "proportions": "label_proportions"}
		switch r.Intn(4) {
		case 0:
			k := pickOf(r, "X", "bag", "proportions")
			for _, a := range arrays {
				if a.Key == k {
					a.Key = alias[k]
					arrays = append(arrays, a)
					break
				}
			}
			c.Bad, c.Why = true, "an alias of "+k+" beside it"
		case 1:
			arrays = append(arrays, data.NPYArray{Key: "test_x", Shape: []int{2, 2}, F64: []float64{1, 2, 3, 4}},
				data.NPYArray{Key: "x_test", Shape: []int{2, 2}, F64: []float64{1, 2, 3, 4}}, data.NPYArray{Key: "test_y", Shape: []int{2}, I64: []int64{0, 1}})
			c.Bad, c.Why = true, "test_x and x_test"
		case 2:
			arrays = append(arrays, data.NPYArray{Key: pickOf(r, "weights", "meta", "Y"), Shape: []int{1}, I64: []int64{1}})
			c.Bad, c.Why = true, "an array the layout does not have"
		}
		var b bytes.Buffer
		data.WriteNPZ(&b, arrays)
		p := filepath.Join(dir, "a.npz")
		os.WriteFile(p, b.Bytes(), 0o644)
		c.Args = []string{"groups", "--data", "bags:" + p, "--mode", "uniform", "--trouble-rounds", "0"}
		return c
	}},
	{"output onto input", func(r *rand.Rand, dir string) oddCase {
		p := oddTable(dir, "in.csv", []string{"label", "p", "q"}, 80)
		os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
		os.Symlink(dir, filepath.Join(dir, "self"))
		forms := []string{p, dir + "/./in.csv", dir + "/sub/../in.csv", dir + "/self/in.csv", dir + "/self/self/sub/../in.csv", dir + strings.Repeat("/", 2) + "in.csv"}
		out := pickOf(r, forms...)
		if r.Intn(2) == 0 {
			return oddCase{Args: []string{"bags", "--data", "csv:" + p, "--bag-size", "8", "--num-points", "64", "--out", out}, Bad: true, Why: "bags --out onto its table"}
		}
		return oddCase{Args: []string{"train", "--data", "csv:" + p + "," + p, "--bag-size", "8", "--epochs", "1", "--quiet", "--out", out}, Bad: true, Why: "train --out onto its table"}
	}},
	{"number flags", func(r *rand.Rand, dir string) oddCase {
		f := pickOf(r, "--lr", "--weight-decay", "--momentum", "--beta1", "--beta2", "--gamma", "--dropout", "--vat-eps", "--vat-xi", "--val-bags")
		v := pickOf(r, "NaN", "nan", "-NaN", "Inf", "+Inf", "-inf", "infinity", "1e400", "-1e999", "0x1p2000")
		return oddCase{Args: []string{"train", "--data", gmmSet, "--bag-size", "8", "--num-points", "64", "--epochs", "1", "--quiet", f, v}, Bad: true, Why: f + " " + v}
	}},
	{"slurm values", func(r *rand.Rand, dir string) oddCase {
		spec := put(dir, "s.json", tinySpec)
		args := []string{"run", spec, "--results", filepath.Join(dir, "out", "r"), "--sbatch", "--shards", "1"}
		times := []string{"30", "1:00:00", "2-12", "2-12:30", "0:30", "UNLIMITED"}
		mems := []string{"100", "4G", "512m", "2T"}
		badTimes := []string{"1h", "1:2:3:4", "2-", "-1", "1.5", "tomorrow", "1:xx"}
		badMems := []string{"4GB", "1.5G", "-1", "G", "lots", "4 G"}
		c := oddCase{Why: "valid limits"}
		t, m := pickOf(r, times...), pickOf(r, mems...)
		switch r.Intn(3) {
		case 0:
			t, c.Bad, c.Why = pickOf(r, badTimes...), true, "a time limit not in Slurm's syntax"
		case 1:
			m, c.Bad, c.Why = pickOf(r, badMems...), true, "a memory not in Slurm's syntax"
		}
		c.Args = append(args, "--time-limit", t, "--mem", m)
		return c
	}},
	{"spec numbers", func(r *rand.Rand, dir string) oddCase {
		var spec map[string]any
		json.Unmarshal([]byte(tinySpec), &spec)
		var field, v string
		if r.Intn(2) == 0 { // a number past float64's range
			field, v = pickOf(r, "hyper.lr", "hyper.momentum", "hyper.beta1", "hyper.weight_decay", "hyper.beta2"), pickOf(r, "1e999", "-1e500", "1e309")
		} else { // not a whole number in an int's range
			field, v = pickOf(r, "hyper.epochs", "num_points", "hyper.batch_size", "hyper.regroup_every"), pickOf(r, "1e999", "99999999999999999999", "2.5", "-1e30")
		}
		setField(spec, field, json.RawMessage(v))
		b, _ := json.Marshal(spec)
		p := put(dir, "s.json", string(b))
		return oddCase{Args: []string{"run", p, "--list", "--results", filepath.Join(dir, "out", "r")}, Bad: true, Why: field + " out of its type's range"}
	}},
	{"edited manifest", func(r *rand.Rand, dir string) oddCase {
		m := filepath.Join(dir, "m")
		put(dir, "m.npz", string(oddModel.npz))
		var man map[string]any
		json.Unmarshal(oddModel.manifest, &man)
		c := oddCase{Bad: true}
		switch r.Intn(6) {
		case 0:
			setField(man, "normalization.std", []any{pickOf[any](r, -1, 0, 1e-320), 1})
			c.Why = "a standard deviation that is not > 0"
		case 1:
			setField(man, "num_classes", pickOf[any](r, 1, 0, -3))
			c.Why = "too few classes"
		case 2:
			sum := []byte(man["weights_sha256"].(string))
			sum[r.Intn(len(sum))] ^= 1
			man["weights_sha256"] = string(sum)
			c.Why = "a checksum that is not the weights'"
		case 3:
			man["format"] = pickOf(r, "llpfc-model/3", "", "llpfc-model")
			c.Why = "another format"
		case 4:
			setField(man, "normalization.mean", []any{"zero", 0})
			c.Why = "a mean of the wrong type"
		default:
			c.Bad, c.Why = false, "the manifest as saved"
		}
		b, _ := json.Marshal(man)
		put(dir, "m.json", string(b))
		c.Args = []string{"predict", "--model", m, "--data", gmmSet}
		return c
	}},
	{"tables to score", func(r *rand.Rand, dir string) oddCase {
		put(dir, "m.npz", string(oddTableModel.npz))
		put(dir, "m.json", string(oddTableModel.manifest))
		cols := []string{caseOf(r, "x1"), caseOf(r, "x2")}
		c := oddCase{Why: "the model's columns, in any order and case"}
		switch r.Intn(5) {
		case 0:
			cols = append(cols, pickOf(r, "x3", "extra"))
			c.Why = "a column the model does not read"
		case 1:
			cols = cols[:1]
			c.Bad, c.Why = true, "a column the model reads is missing"
		case 2:
			cols = append(cols, "label")
			c.Why = "labels of the model's classes"
		case 3:
			cols = append(cols, "label")
			c.Bad, c.Why = true, "a label the model never saw"
		}
		r.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
		var b strings.Builder
		b.WriteString(strings.Join(cols, ",") + "\n")
		for i := 0; i < 8; i++ {
			row := make([]string, len(cols))
			for j, h := range cols {
				row[j] = strconv.Itoa((i + j) % 5)
				if h == "label" {
					row[j] = pickOf(r, "no", "yes")
					if c.Bad {
						row[j] = "maybe"
					}
				}
			}
			b.WriteString(strings.Join(row, ",") + "\n")
		}
		p := put(dir, "score.csv", b.String())
		c.Args = []string{"predict", "--model", filepath.Join(dir, "m"), "--data", "csv:" + p, "--out", filepath.Join(dir, "out", "p.csv")}
		return c
	}},
	{"held-out bags", func(r *rand.Rand, dir string) oddCase {
		tr := oddTable(dir, "train.csv", []string{"u", "v", "bag"}, 36)
		props := oddProportions(dir, []string{"a", "b", "c"})
		v := pickOf(r, 0.1, 0.2, 0.34, 0.5, 0.9, 1, 2, 3, 4, 5, 6, 7)
		k := int(v)
		if v < 1 {
			k = int(v*6 + 0.5)
		}
		bad := k < 1 || k >= 6 || 6-k < 3 // 6 bags, and LLPFC's groups take 3
		return oddCase{Args: []string{"train", "--data", "bags:" + tr + "," + props + "@normalize", "--val-bags", fmt.Sprint(v), "--epochs", "1", "--quiet"},
			Bad: bad, Why: fmt.Sprintf("--val-bags %v of 6 bags: %d held out", v, k)}
	}},
}

// oddFamiliesRolesAndOwnership are the families of a user's own tables and
// outputs: column roles and missing values, stores and models written by
// other commands through path
// spellings, spec and bags-file keys in another case, text encodings,
// device strings.
var oddFamiliesRolesAndOwnership = []oddFamily{
	{"column roles", func(r *rand.Rand, dir string) oddCase {
		labels := []string{"label", "class", "y", "target"}
		bags := []string{"bag", "bag_id", "bags"}
		c := oddCase{Why: "one column per role"}
		if r.Intn(2) == 0 { // labelled: csv:T,T
			roles := []string{caseOf(r, pickOf(r, labels...))}
			if r.Intn(2) == 0 {
				for len(roles) < 2 {
					if n := caseOf(r, pickOf(r, labels...)); !strings.EqualFold(n, roles[0]) {
						roles = append(roles, n)
					}
				}
			}
			header := append([]string{"p", "q"}, roles...)
			r.Shuffle(len(header), func(i, j int) { header[i], header[j] = header[j], header[i] })
			p := oddRoleTable(dir, "t.csv", header, roles[0], "label", r)
			opt := ""
			switch {
			case len(roles) == 2 && r.Intn(2) == 0:
				opt, c.Why = "@label="+roles[0], "two label columns, one chosen"
			case len(roles) == 2:
				c.Bad, c.Why = true, "two label columns, none chosen"
			}
			if m, ok := oddMissing(r, p, header, roles[0]); ok {
				c.Bad, c.Why = true, c.Why+"; a missing label "+strconv.Quote(m)
			}
			c.Args = []string{"train", "--data", "csv:" + p + "," + p + opt, "--bag-size", "6", "--epochs", "1", "--quiet", "--batch-size", "12"}
			return c
		}
		roles := []string{caseOf(r, pickOf(r, bags...))}
		if r.Intn(2) == 0 {
			for len(roles) < 2 {
				if n := caseOf(r, pickOf(r, bags...)); !strings.EqualFold(n, roles[0]) {
					roles = append(roles, n)
				}
			}
		}
		header := append([]string{"u", "v"}, roles...)
		tr := oddRoleTable(dir, "train.csv", header, roles[0], "bag", r)
		props := oddProportions(dir, []string{"a", "b", "c"})
		opt := ""
		switch {
		case len(roles) == 2 && r.Intn(2) == 0:
			opt, c.Why = "@bag="+roles[0], "two bag id columns, one chosen"
		case len(roles) == 2:
			c.Bad, c.Why = true, "two bag id columns, none chosen"
		}
		if m, ok := oddMissing(r, tr, header, roles[0]); ok {
			c.Bad, c.Why = true, c.Why+"; a missing bag id "+strconv.Quote(m)
		}
		c.Args = []string{"train", "--data", "bags:" + tr + "," + props + "@normalize" + opt, "--epochs", "1", "--quiet"}
		return c
	}},
	{"stores and models", func(r *rand.Rand, dir string) oddCase {
		for rel, body := range oddStore {
			put(dir, rel, string(body))
		}
		os.Symlink(dir, filepath.Join(dir, "self"))
		os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
		spell := func(rel string) string {
			return pickOf(r, dir+"/"+rel, dir+"/./"+rel, dir+"/sub/../"+rel, dir+"/self/"+rel, dir+"/self/self/sub/../"+rel)
		}
		var cell, model string
		for rel := range oddStore {
			if strings.HasPrefix(rel, "store/cells/") {
				cell = rel
			}
			if strings.HasPrefix(rel, "store/models/") && strings.HasSuffix(rel, ".json") {
				model = strings.TrimSuffix(rel, ".json")
			}
		}
		train := []string{"train", "--data", "bags:" + dir + "/bo", "--epochs", "1", "--quiet"}
		report := []string{"report", "--results", dir + "/store"}
		switch r.Intn(9) {
		case 0:
			return oddCase{Args: append(report, "--csv", spell(pickOf(r, model+".json", model+".npz", cell))), Bad: true, Why: "report --csv over a store's file"}
		case 1:
			return oddCase{Args: append(report, "--out", spell(pickOf(r, "store/cells", "store/models", "store/damaged"))), Bad: true, Why: "a report in a store's own folders"}
		case 2:
			return oddCase{Args: append(train, "--save-model", spell(pickOf(r, strings.TrimSuffix(cell, ".json"), model, "store/cells/new"))), Bad: true, Why: "--save-model inside a store"}
		case 3:
			return oddCase{Args: append(train, "--out", spell(pickOf(r, "store", "store/cells", "store/report"))), Bad: true, Why: "train --out inside a store"}
		case 4:
			return oddCase{Args: []string{"bags", "--data", gmmSet, "--bag-size", "8", "--num-points", "64", "--out", spell(pickOf(r, "m.json", model+".json"))}, Bad: true, Why: "bags --out over a manifest"}
		case 5:
			return oddCase{Args: append(train, "--save-model", spell("notes")), Bad: true, Why: "--save-model over a file of no model"}
		case 6: // the model it replaces is an output (dir/out is not held byte for byte)
			put(dir, "out/m.npz", string(oddStore["m.npz"]))
			put(dir, "out/m.json", string(oddStore["m.json"]))
			return oddCase{Args: append(train, "--save-model", spell("out/m")), Why: "--save-model over a saved model: a model replaces a model"}
		case 7:
			return oddCase{Args: append(report, "--out", spell(pickOf(r, "store", "store/report", "store/extra/r"))), Why: "a report in the store, outside its own folders"}
		}
		return oddCase{Args: []string{"merge", "--out", spell("store"), dir + "/other"}, Why: "merge into a store"}
	}},
	{"key case", func(r *rand.Rand, dir string) oddCase {
		var spec map[string]any
		json.Unmarshal([]byte(tinySpec), &spec)
		c := oddCase{Why: "keys as documented"}
		if r.Intn(2) == 0 {
			key := pickOf(r, "name", "seeds", "model", "hyper")
			v := spec[key]
			if r.Intn(2) == 0 {
				delete(spec, key)
			}
			spec[pickOf(r, strings.ToUpper(key), strings.ToUpper(key[:1])+key[1:])] = v
			c.Bad, c.Why = true, "a spec key in another case"
		} else if r.Intn(2) == 0 {
			h := spec["hyper"].(map[string]any)
			h[pickOf(r, "EPOCHS", "Lr", "Batch_Size")] = 3
			c.Bad, c.Why = true, "a hyper key in another case"
		}
		b, _ := json.Marshal(spec)
		return oddCase{Args: []string{"run", put(dir, "s.json", string(b)), "--list", "--results", filepath.Join(dir, "out", "r")}, Bad: c.Bad, Why: c.Why}
	}},
	{"encodings", func(r *rand.Rand, dir string) oddCase {
		p := oddTable(dir, "t.csv", []string{"label", "p", "q"}, 60)
		body, _ := os.ReadFile(p)
		c := oddCase{Why: "UTF-8 with LF"}
		switch r.Intn(4) {
		case 0:
			body, c.Bad, c.Why = []byte(strings.ReplaceAll(string(body), "\n", "\r")), true, "lines ended by CR alone"
		case 1:
			body, c.Bad, c.Why = []byte(utf16File(string(body))), true, "UTF-16"
		case 2:
			body, c.Why = []byte(strings.ReplaceAll(string(body), "\n", "\r\n")), "CRLF line endings"
		}
		os.WriteFile(p, body, 0o644)
		return oddCase{Args: []string{"train", "--data", "csv:" + p + "," + p, "--bag-size", "6", "--epochs", "1", "--quiet", "--batch-size", "12"}, Bad: c.Bad, Why: c.Why}
	}},
	{"device strings", func(r *rand.Rand, dir string) oddCase {
		d := pickOf(r, "opencl:-0:0", "opencl:+0:0", "opencl:0:-0", "opencl: 0:0", "opencl:0:0:0", "opencl:99:0", "opencl:0:99", "gpu", "cuda:0", "cpu")
		args := []string{"train", "--data", gmmSet, "--bag-size", "8", "--num-points", "64", "--epochs", "1", "--quiet", "--device", d}
		if d != "cpu" && r.Intn(2) == 0 {
			args = []string{"devices", "--check", "--parity", "none", d}
		}
		return oddCase{Args: args, Bad: d != "cpu", Why: "--device " + d}
	}},
}

// oddRoleTable writes a table of header and 60 rows: the column role
// holds the role's values (labels 0/1, or bag ids 0…5), every other a
// small integer.
func oddRoleTable(dir, name string, header []string, role, kind string, r *rand.Rand) string {
	var b strings.Builder
	b.WriteString(strings.Join(header, ",") + "\n")
	for i := 0; i < 60; i++ {
		row := make([]string, len(header))
		for j, h := range header {
			row[j] = strconv.Itoa((i*(j+3) + j) % 7)
			if h == role && kind == "label" {
				row[j] = strconv.Itoa(i % 2)
			} else if h == role {
				row[j] = strconv.Itoa(i % 6)
			}
		}
		b.WriteString(strings.Join(row, ",") + "\n")
	}
	return put(dir, name, b.String())
}

// oddMissing, one time in three, writes a missing value's spelling into
// the column role of the table at p (a row after the first), and returns
// it and true.
func oddMissing(r *rand.Rand, p string, header []string, role string) (string, bool) {
	if r.Intn(3) > 0 {
		return "", false
	}
	m := pickOf(r, "NA", "na", "N/A", "NaN", "nan", "null", "NULL", "None", "", "<NA>", "#N/A")
	body, _ := os.ReadFile(p)
	lines := strings.Split(string(body), "\n")
	i := 2 + r.Intn(50)
	fields := strings.Split(lines[i], ",")
	for j, h := range header {
		if h == role {
			fields[j] = m
		}
	}
	lines[i] = strings.Join(fields, ",")
	os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644)
	return m, true
}

// oddStore is a results store with one cell and its model, a second
// store, a saved model m, the bag-only tables bo and a file of no model,
// relative path to contents, made once for the stores-and-models family.
var oddStore map[string][]byte

// oddModel is a model saved once for the edited-manifest family;
// oddTableModel one trained on a table of columns x1 and x2, classes no
// and yes, for the table family.
var oddModel, oddTableModel struct{ npz, manifest []byte }

// hashTree maps every file under dir but dir/out to its SHA-256.
func hashTree(dir string) map[string]string {
	out := map[string]string{}
	for f, h := range treeHashes(dir) {
		if !strings.HasPrefix(f, "out"+string(filepath.Separator)) {
			out[f] = hex.EncodeToString(h[:])
		}
	}
	return out
}

// check runs the case and compares it with the oracle.
func (c oddCase) check(dir string) error {
	before := hashTree(dir)
	code, stdout, stderr := runCmd(c.Args...)
	if err := noCrash(c.Args, stderr); err != nil {
		return err
	}
	switch {
	case c.Bad && code != exitBadUsage:
		return fmt.Errorf("exit %d on bad input, want 2: %s%s", code, stdout, stderr)
	case !c.Bad && code != exitOK && code != exitFailed:
		return fmt.Errorf("exit %d on valid input: %s", code, stderr)
	case repeatedPrefix(stderr) != "":
		return fmt.Errorf("a prefix said twice (%q): %s", repeatedPrefix(stderr), stderr)
	case strings.Contains(stderr, "Go struct") || strings.Contains(stderr, "{Name:"):
		return fmt.Errorf("a Go struct in the message: %s", stderr)
	}
	after := hashTree(dir)
	for f, h := range before {
		if after[f] != h {
			return fmt.Errorf("input %s changed", f)
		}
	}
	return nil
}

// oddCases is the number of generated invocations: def in make test, or
// LLPFC_ODD_CASES.
func oddCases(def int) int {
	if n, err := strconv.Atoi(os.Getenv("LLPFC_ODD_CASES")); err == nil && n > 0 {
		return n
	}
	return def
}

func TestPropertyOddInvocations(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "m")
	saveGMMModel(t, m, "1")
	var err error
	oddModel.npz, err = os.ReadFile(m + ".npz")
	require.NoError(t, err)
	oddModel.manifest, err = os.ReadFile(m + ".json")
	require.NoError(t, err)
	writeBagOnlyInputs(t, dir)
	code, _, stderr := runCmd("train", "--data", "bags:"+dir+"/bo", "--epochs", "1", "--quiet", "--save-model", m)
	require.Equal(t, exitOK, code, stderr)
	oddTableModel.npz, err = os.ReadFile(m + ".npz")
	require.NoError(t, err)
	oddTableModel.manifest, err = os.ReadFile(m + ".json")
	require.NoError(t, err)
	oddStore = oddStoreFiles(t)
	families := append(append([]oddFamily(nil), oddFamilies...), oddFamiliesRolesAndOwnership...)
	n, counts := forAllFamilies(t, "odd invocations: no crash, exit 2 on bad input, inputs untouched", oddCases(200), families,
		func(c *oddCase, family, dir string) { c.Family, c.Dir = family, dir },
		func(c oddCase) (string, bool) { return c.Family, c.Bad },
		func(c oddCase) error {
			if err := os.MkdirAll(filepath.Join(c.Dir, "out"), 0o755); err != nil {
				return err
			}
			return c.check(c.Dir)
		})
	t.Logf("%d generated invocations (family: bad, valid): %v", n, counts)
}

// oddStoreFiles makes oddStore: the tiny mlp spec run with --save-models
// into store and other, a saved model m, the bag-only tables bo, a notes
// file of no model.
func oddStoreFiles(t *testing.T) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	spec := writeFile(t, dir, "tinym.json", strings.Replace(tinySpec, `"learner": "logreg", "model": "linear"`, `"learner": "gorgonia", "model": "mlp"`, 1))
	for _, st := range []string{"store", "other"} {
		code, _, stderr := runCmd("run", spec, "--results", filepath.Join(dir, st), "--save-models")
		require.Equal(t, exitOK, code, stderr)
	}
	os.Remove(spec)
	writeBagOnlyInputs(t, dir)
	code, _, stderr := runCmd("train", "--data", "bags:"+dir+"/bo", "--epochs", "1", "--quiet", "--save-model", filepath.Join(dir, "m"))
	require.Equal(t, exitOK, code, stderr)
	writeFile(t, dir, "notes.json", `{"mine": true}`)
	out := map[string][]byte{}
	for rel := range treeHashes(dir) {
		if strings.HasPrefix(rel, "bo-") {
			continue // the other bad bag-only sets of writeBagOnlyInputs
		}
		b, err := os.ReadFile(filepath.Join(dir, rel))
		require.NoError(t, err)
		out[rel] = b
	}
	return out
}
