package data

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// Tables are read one way: generated headers — names
// drawn so that some repeat (as written, or in another case), some are
// empty (a pandas index column), some class names are one number written
// two ways — for labelled CSV and Parquet pairs and for bag-only training,
// proportions and test tables. The oracle is the header as generated: the
// set is refused, naming its file and the name at fault, exactly when a
// name is empty, two names are equal without case, or two class names are
// equal as numbers; otherwise every feature of the test split is the value
// the test file holds under the training column's name (the columns are
// laid out by name, whatever their order in the test file), every bag's
// proportions are the row written for it over its sum, and every test
// label is the class of the name written.

// headerCase is one generated set of tables.
type headerCase struct {
	BagOnly bool
	Parquet bool
	Feats   []string // feature column names, training order
	Classes []string // class names (bag-only: the proportions header)
	Perm    []int    // the test file's order of the features
	Seed    int64
}

func (c headerCase) String() string {
	return fmt.Sprintf("bag-only %v, parquet %v, features %q, classes %q, test order %v", c.BagOnly, c.Parquet, c.Feats, c.Classes, c.Perm)
}

// The names a header is drawn from: mostly distinct ones, and with odds of
// about one in four a name that repeats another without case, is empty, or
// (a class) is another's number.
var (
	featNames  = []string{"f0", "f1", "x y", "2", "w", "v", "q"}
	badFeats   = []string{"F0", "", " ", "Bag", "LABEL", "f0"}
	classNames = []string{"a", "b", "1", "2", "c", "d", "0.5"}
	badClasses = []string{"A", "1.0", "01", "", "a", "5e-1"}
)

// pick draws k names: distinct ones of good, each replaced by one of bad
// with probability ⅕.
func pick(r *rand.Rand, k int, good, bad []string) []string {
	var out []string
	for _, i := range r.Perm(len(good))[:k] {
		if r.Intn(5) == 0 {
			out = append(out, bad[r.Intn(len(bad))])
		} else {
			out = append(out, good[i])
		}
	}
	return out
}

func genHeaderCase(r *rand.Rand) headerCase {
	c := headerCase{BagOnly: r.Intn(2) == 0, Parquet: r.Intn(3) == 0, Seed: r.Int63()}
	c.Feats = pick(r, 1+r.Intn(4), featNames, badFeats)
	c.Classes = pick(r, 2+r.Intn(3), classNames, badClasses)
	c.Perm = r.Perm(len(c.Feats))
	return c
}

// refusal is the oracle: the name at fault ("empty name" for an empty
// one), or "" when the set is sound. The readers check a header name by
// name, in the order of the columns, the training file first, then (bag-
// only) the instance-label rule, then the proportions header.
func (c headerCase) refusal() string {
	key := "label"
	if c.BagOnly {
		key = "bag"
	}
	if f := headerFault(append(append([]string(nil), c.Feats...), key), false); f != "" || !c.BagOnly {
		return f
	}
	for _, n := range c.Feats {
		if strings.EqualFold(strings.TrimSpace(n), "label") {
			return strings.TrimSpace(n)
		}
	}
	return headerFault(append([]string{"bag"}, c.Classes...), true)
}

// headerFault returns the first empty or repeated name of a header (and,
// with numbers, the first name equal as a number to an earlier one, after
// the whole header's names), or "".
func headerFault(names []string, numbers bool) string {
	seen := map[string]bool{}
	for _, n := range names {
		t := strings.TrimSpace(n)
		if t == "" {
			return "empty name"
		}
		if seen[strings.ToLower(t)] {
			return t
		}
		seen[strings.ToLower(t)] = true
	}
	num := map[float64]bool{}
	for _, n := range names[1:] {
		if v, err := strconv.ParseFloat(strings.TrimSpace(n), 64); err == nil && numbers {
			if num[v] {
				return strings.TrimSpace(n)
			}
			num[v] = true
		}
	}
	return ""
}

// value is the feature named n of row i of a split: distinct per name.
func value(n string, i int, test bool) float64 {
	h := 0
	for _, b := range []byte(strings.ToLower(strings.TrimSpace(n))) {
		h = h*31 + int(b)
	}
	v := float64(h%997) + float64(i)/8
	if test {
		v += 0.5
	}
	return v
}

// table writes a table of names and columns of strings as CSV or Parquet
// (numbers as float64) and returns its path.
func (c headerCase) table(dir, base string, names []string, cols [][]string) (string, error) {
	empty := false
	for _, n := range names {
		empty = empty || n == ""
	}
	if c.Parquet && !empty { // parquet-go names a field with an empty tag after its Go field
		var pc []ParquetColumn
		for j, n := range names {
			if _, err := strconv.ParseFloat(cols[j][0], 64); err == nil && n != "label" {
				f := make([]float64, len(cols[j]))
				for i, s := range cols[j] {
					f[i], _ = strconv.ParseFloat(s, 64)
				}
				pc = append(pc, ParquetColumn{Name: n, Values: f})
			} else {
				pc = append(pc, ParquetColumn{Name: n, Values: cols[j]})
			}
		}
		var b bytes.Buffer
		if err := WriteParquet(&b, pc); err == nil {
			p := filepath.Join(dir, base+".parquet")
			return p, os.WriteFile(p, b.Bytes(), 0o644)
		}
		// parquet-go refuses some headers (a repeated or empty field
		// name): such a header can only come as CSV.
	}
	var b strings.Builder
	b.WriteString(strings.Join(names, ",") + "\n")
	for i := range cols[0] {
		row := make([]string, len(cols))
		for j := range cols {
			row[j] = cols[j][i]
		}
		b.WriteString(strings.Join(row, ",") + "\n")
	}
	p := filepath.Join(dir, base+".csv")
	return p, os.WriteFile(p, []byte(b.String()), 0o644)
}

// write writes the case's tables in dir and returns the data set's name
// ("" when the generated pair cannot be one kind) and the test labels as
// written.
func (c headerCase) write(dir string) (string, []string, error) {
	r := rand.New(rand.NewSource(c.Seed))
	const n, bags = 24, 6
	featCols := func(test bool, order []int) ([]string, [][]string) {
		var names []string
		var cols [][]string
		for _, j := range order {
			col := make([]string, n)
			for i := range col {
				col[i] = strconv.FormatFloat(value(c.Feats[j], i, test), 'g', -1, 64)
			}
			names, cols = append(names, c.Feats[j]), append(cols, col)
		}
		return names, cols
	}
	ident := make([]int, len(c.Feats))
	for j := range ident {
		ident[j] = j
	}
	labels := make([]string, n)
	for i := range labels {
		labels[i] = c.Classes[r.Intn(len(c.Classes))]
		if !c.BagOnly {
			labels[i] = strconv.Itoa(i % 3)
		}
	}
	trNames, trCols := featCols(false, ident)
	teNames, teCols := featCols(true, c.Perm)
	teNames, teCols = append(teNames, "label"), append(teCols, labels)
	if !c.BagOnly {
		trNames, trCols = append(trNames, "label"), append(trCols, labels)
		tr, err := c.table(dir, "train", trNames, trCols)
		if err != nil {
			return "", nil, err
		}
		te, err := c.table(dir, "test", teNames, teCols)
		kind := "csv"
		if strings.HasSuffix(tr, ".parquet") && strings.HasSuffix(te, ".parquet") {
			kind = "parquet"
		} else if strings.HasSuffix(tr, ".parquet") || strings.HasSuffix(te, ".parquet") {
			return "", nil, nil // one of the two fell back to CSV: not a pair of one kind
		}
		return kind + ":" + tr + "," + te, labels, err
	}
	bagCol := make([]string, n)
	for i := range bagCol {
		bagCol[i] = strconv.Itoa(i % bags)
	}
	tr, err := c.table(dir, "train", append(trNames, "bag"), append(trCols, bagCol))
	if err != nil {
		return "", nil, err
	}
	propCols := [][]string{make([]string, bags)}
	for k := range propCols[0] {
		propCols[0][k] = strconv.Itoa(k)
	}
	for j := range c.Classes {
		col := make([]string, bags)
		for k := range col {
			col[k] = strconv.Itoa(1 + (k+j)%3)
		}
		propCols = append(propCols, col)
	}
	pr, err := c.table(dir, "proportions", append([]string{"bag"}, c.Classes...), propCols)
	if err != nil {
		return "", nil, err
	}
	te, err := c.table(dir, "test", teNames, teCols)
	return "bags:" + tr + "," + pr + "," + te + "@normalize", labels, err
}

// check reads the case's set and compares it with the oracle.
func (c headerCase) check(dir string) error {
	name, labels, err := c.write(dir)
	if err != nil || name == "" {
		return err
	}
	var train, test *Dataset
	if c.BagOnly {
		train, test, err = ReadBagOnly(name)
	} else if train, err = Load(name, "", Train); err == nil {
		test, err = Load(name, "", Test)
	}
	want := c.refusal()
	switch {
	case want != "" && err == nil:
		return fmt.Errorf("read, want a refusal naming %q", want)
	case want != "" && !strings.Contains(err.Error(), want) && !strings.Contains(err.Error(), strconv.Quote(want)):
		return fmt.Errorf("refused, but the message does not name %q: %v", want, err)
	case want != "":
		return nil
	case err != nil:
		return fmt.Errorf("refused a sound set: %v", err)
	}
	for k, col := range train.Columns {
		for i := 0; i < test.N; i++ {
			if got, w := test.Raw[i*test.D+k], value(col.Name, i, true); got != w {
				return fmt.Errorf("test row %d, feature %d (column %q): %v, the test file holds %v under that name", i, k, col.Name, got, w)
			}
		}
	}
	if c.BagOnly {
		for k, b := range train.Bags.Bags {
			for j, p := range b.Proportions {
				sum := 0.0
				for jj := range c.Classes {
					sum += float64(1 + (k+jj)%3)
				}
				if w := float64(1+(k+j)%3) / sum; p-w > 1e-12 || w-p > 1e-12 {
					return fmt.Errorf("bag %d, class %q: proportion %v, want %v", k, c.Classes[j], p, w)
				}
			}
		}
	}
	for i, y := range test.Y {
		if got := train.ClassNames[y]; got != strings.TrimSpace(labels[i]) {
			return fmt.Errorf("test row %d: class %q, the file says %q", i, got, labels[i])
		}
	}
	return nil
}

func TestPropertyTableHeaders(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(38)
	params.MinSuccessfulTests = 300
	if n, err := strconv.Atoi(os.Getenv("LLPFC_GRID_CASES")); err == nil && n > 0 {
		params.MinSuccessfulTests = n // as cmd/llpfc's properties
	}
	props := gopter.NewProperties(params)
	refused := 0
	props.Property("a header is read one way or refused by name", prop.ForAll(func(seed int64) string {
		c := genHeaderCase(rand.New(rand.NewSource(seed)))
		if c.refusal() != "" {
			refused++
		}
		if err := c.check(t.TempDir()); err != nil {
			return fmt.Sprintf("%v: %v", c, err)
		}
		return ""
	}, gen.Int64()))
	var log bytes.Buffer
	if !props.Run(gopter.NewFormatedReporter(false, 200, &log)) {
		t.Error(log.String())
	}
	t.Logf("%d of the generated sets refused by the oracle", refused)
}
