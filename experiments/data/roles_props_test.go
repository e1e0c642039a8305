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

// One column rule for every reader: generated tables —
// labelled CSV and Parquet pairs, bag-only training, proportions and test
// tables — whose headers hold one or two columns going by a role's names
// (label, class, y, target; bag, bag_id, bags) in any case, with or without
// the @-option that chooses, and at times a missing value (NA, N/A, NaN,
// null, None, empty, in any case) where a label or a bag id must be. The
// oracle is the case as generated: two columns of one role without the
// option are refused naming both and the option; a class column of a
// proportions table going by a bag id's name is refused by name; a missing
// label or bag id is refused naming its line or row; otherwise the label
// (or bag) is the column chosen and every other column of the role is a
// feature, and the labels and bags read are those written.

// roleCase is one generated set.
type roleCase struct {
	BagOnly, Parquet bool
	Roles            []string // the label-named (labelled) or bag-named (bag-only training) columns
	PropRoles        []string // bag-only: the bag-named columns of the proportions table
	Option           string   // the column the @-option chooses, or ""
	Missing          string   // a missing value's spelling, or "-" for none
	MissIn           string   // where: "label", "bag" (training table), "prop"
	MissRow          int
}

func (c roleCase) String() string {
	return fmt.Sprintf("bag-only %v parquet %v roles %q prop roles %q option %q missing %q in %s row %d",
		c.BagOnly, c.Parquet, c.Roles, c.PropRoles, c.Option, c.Missing, c.MissIn, c.MissRow)
}

var (
	roleSpellings = []string{"NA", "na", "N/A", "n/a", "NaN", "nan", "NAN", "null", "NULL", "None", "none", "", "<NA>", "#N/A", "?"}
	labelNamesAny = []string{"label", "class", "y", "target", "Label", "CLASS", "Y", "Target"}
	bagNamesAny   = []string{"bag", "bag_id", "bags", "Bag", "BAG_ID", "Bags"}
)

// drawNames draws k names of names that are distinct without case.
func drawNames(r *rand.Rand, k int, names []string) []string {
	var out []string
	for len(out) < k {
		n := names[r.Intn(len(names))]
		if !containsFold(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func genRoleCase(r *rand.Rand) roleCase {
	c := roleCase{BagOnly: r.Intn(2) == 0, Parquet: r.Intn(3) == 0, Missing: "-", MissRow: r.Intn(12)}
	if c.BagOnly {
		c.Roles = drawNames(r, 1+r.Intn(2), bagNamesAny)
		c.PropRoles = drawNames(r, 1+r.Intn(2), bagNamesAny)
		c.MissIn = []string{"label", "bag", "prop"}[r.Intn(3)]
	} else {
		c.Roles = drawNames(r, 1+r.Intn(3), labelNamesAny)
		c.MissIn = "label"
	}
	if r.Intn(3) == 0 {
		c.Option = c.Roles[r.Intn(len(c.Roles))]
	}
	if r.Intn(3) == 0 {
		c.Missing = roleSpellings[r.Intn(len(roleSpellings))]
	}
	return c
}

// chosen is the index among names of the role's column: the option's when
// it names one, else the only one; -1 when two go by the role's names.
func chosen(names []string, option string) int {
	for j, n := range names {
		if option != "" && strings.EqualFold(n, option) {
			return j
		}
	}
	if len(names) == 1 {
		return 0
	}
	return -1
}

// refusal is the oracle: the words the error must hold, or nil when the set
// is sound. The readers go through the training table's header, the
// proportions table's header, then the values.
func (c roleCase) refusal() []string {
	opt := "@label="
	if c.BagOnly {
		opt = "@bag="
	}
	if chosen(c.Roles, c.Option) < 0 {
		return []string{strconv.Quote(c.Roles[0]), strconv.Quote(c.Roles[1]), opt}
	}
	if c.BagOnly {
		pc := chosen(c.PropRoles, c.Option)
		if pc < 0 {
			return []string{strconv.Quote(c.PropRoles[0]), strconv.Quote(c.PropRoles[1]), opt}
		}
		for j, n := range c.PropRoles {
			if j != pc {
				return []string{strconv.Quote(n), "bag id"}
			}
		}
	}
	if c.Missing == "-" {
		return nil
	}
	if c.Missing == "" {
		return []string{"empty", "never"}
	}
	return []string{strconv.Quote(c.Missing), "missing value"}
}

// writeTable writes names and string columns as CSV or (c.Parquet)
// Parquet, the role columns as strings and the others as numbers.
func (c roleCase) writeTable(dir, base string, names []string, cols [][]string, text map[int]bool) (string, error) {
	if c.Parquet {
		var pc []ParquetColumn
		for j, n := range names {
			if text[j] {
				pc = append(pc, ParquetColumn{Name: n, Values: cols[j]})
				continue
			}
			f := make([]float64, len(cols[j]))
			for i, s := range cols[j] {
				f[i], _ = strconv.ParseFloat(s, 64)
			}
			pc = append(pc, ParquetColumn{Name: n, Values: f})
		}
		var b bytes.Buffer
		if err := WriteParquet(&b, pc); err != nil {
			return "", err
		}
		p := filepath.Join(dir, base+".parquet")
		return p, os.WriteFile(p, b.Bytes(), 0o644)
	}
	var b strings.Builder
	b.WriteString(strings.Join(names, ",") + "\n")
	for i := range cols[0] {
		for j := range cols {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(cols[j][i])
		}
		b.WriteByte('\n')
	}
	p := filepath.Join(dir, base+".csv")
	return p, os.WriteFile(p, []byte(b.String()), 0o644)
}

const roleRows, roleBags = 12, 4

// column makes a column of roleRows values.
func column(f func(i int) string) []string {
	col := make([]string, roleRows)
	for i := range col {
		col[i] = f(i)
	}
	return col
}

// features are the two feature columns every table has.
func features(test bool) ([]string, [][]string) {
	off := 0.0
	if test {
		off = 0.5
	}
	return []string{"f0", "f1"}, [][]string{
		column(func(i int) string { return strconv.FormatFloat(float64(i)+off, 'g', -1, 64) }),
		column(func(i int) string { return strconv.Itoa(100 - i) }),
	}
}

// roleColumns appends the role columns: the chosen one (k) holds vals, the
// others a number per row (features, when the set is sound); miss puts
// the case's missing value at its row of the chosen column.
func (c roleCase) roleColumns(names []string, cols [][]string, text map[int]bool, roles []string, k int, vals func(i int) string, miss bool) ([]string, [][]string) {
	for j, n := range roles {
		text[len(names)] = j == k || k < 0
		col := column(func(i int) string { return strconv.Itoa(7 * (i + j)) })
		if j == k || (k < 0 && j == 0) {
			col = column(vals)
			if miss {
				col[c.MissRow] = c.Missing
			}
		}
		names, cols = append(names, n), append(cols, col)
	}
	return names, cols
}

func className(i int) string { return []string{"a", "b", "c"}[i%3] }

// write writes the case's tables and returns the data set's name.
func (c roleCase) write(dir string) (string, error) {
	k := chosen(c.Roles, c.Option)
	opt := ""
	if c.Option != "" {
		opt = "@label=" + c.Option
		if c.BagOnly {
			opt = "@bag=" + c.Option
		}
	}
	label := func(i int) string { return className(i) }
	if !c.BagOnly {
		var paths []string
		for _, test := range []bool{false, true} {
			names, cols := features(test)
			text := map[int]bool{}
			names, cols = c.roleColumns(names, cols, text, c.Roles, k, label, c.Missing != "-" && !test)
			p, err := c.writeTable(dir, fmt.Sprint("t", test), names, cols, text)
			if err != nil {
				return "", err
			}
			paths = append(paths, p)
		}
		kind := "csv"
		if c.Parquet {
			kind = "parquet"
		}
		return kind + ":" + strings.Join(paths, ",") + opt, nil
	}
	names, cols := features(false)
	text := map[int]bool{}
	names, cols = c.roleColumns(names, cols, text, c.Roles, k, func(i int) string { return strconv.Itoa(i % roleBags) }, c.Missing != "-" && c.MissIn == "bag")
	tr, err := c.writeTable(dir, "train", names, cols, text)
	if err != nil {
		return "", err
	}
	pr, err := c.writeProportions(dir)
	if err != nil {
		return "", err
	}
	names, cols = features(true)
	text = map[int]bool{}
	for j, n := range c.Roles { // the training table's other bag-named columns are features
		if j != k {
			names, cols = append(names, n), append(cols, column(func(i int) string { return strconv.Itoa(7 * (i + j)) }))
		}
	}
	text[len(names)] = true
	names, cols = append(names, "label"), append(cols, column(label))
	if c.Missing != "-" && c.MissIn == "label" {
		cols[len(cols)-1][c.MissRow] = c.Missing
	}
	te, err := c.writeTable(dir, "test", names, cols, text)
	return "bags:" + tr + "," + pr + "," + te + "@normalize" + opt, err
}

// writeProportions writes the proportions table: the bag-named columns
// (the chosen one holding the bag ids) and the classes a, b, c (label
// counts 1…3).
func (c roleCase) writeProportions(dir string) (string, error) {
	k := chosen(c.PropRoles, c.Option)
	if k < 0 {
		k = 0
	}
	var names []string
	var cols [][]string
	text := map[int]bool{}
	for j, n := range c.PropRoles {
		col := make([]string, roleBags)
		for b := range col {
			col[b] = strconv.Itoa(b)
			if j != k {
				col[b] = strconv.Itoa(1 + b%2)
			}
		}
		if j == k && c.Missing != "-" && c.MissIn == "prop" {
			col[c.MissRow%roleBags] = c.Missing
		}
		text[len(names)] = j == k
		names, cols = append(names, n), append(cols, col)
	}
	for h := 0; h < 3; h++ {
		col := make([]string, roleBags)
		for b := range col {
			col[b] = strconv.Itoa(1 + (b+h)%3)
		}
		names, cols = append(names, className(h)), append(cols, col)
	}
	return c.writeTable(dir, "proportions", names, cols, text)
}

// check reads the case's set and compares it with the oracle.
func (c roleCase) check(dir string) error {
	name, err := c.write(dir)
	if err != nil {
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
	case want != nil && err == nil:
		return fmt.Errorf("read, want a refusal naming %q", want)
	case want != nil:
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				return fmt.Errorf("refused, but the message does not say %q: %v", w, err)
			}
		}
		return nil
	case err != nil:
		return fmt.Errorf("refused a sound set: %v", err)
	}
	if w := 2 + len(c.Roles) - 1; train.D != w || test.D != w {
		return fmt.Errorf("%d and %d features, want %d (the role's other columns are features)", train.D, test.D, w)
	}
	if c.BagOnly && len(train.Bags.Bags) != roleBags {
		return fmt.Errorf("%d bags, want %d", len(train.Bags.Bags), roleBags)
	}
	for _, d := range []*Dataset{train, test} {
		for i, y := range d.Y {
			if got := d.ClassNames[y]; got != className(i) {
				return fmt.Errorf("%s row %d: class %q, the file says %q", d.Name, i, got, className(i))
			}
		}
	}
	return nil
}

func TestPropertyColumnRoles(t *testing.T) {
	seed := int64(51)
	if n, err := strconv.ParseInt(os.Getenv("LLPFC_GRID_SEED"), 10, 64); err == nil {
		seed = n // as cmd/llpfc's properties
	}
	params := gopter.DefaultTestParametersWithSeed(seed)
	params.MinSuccessfulTests = 300
	if n, err := strconv.Atoi(os.Getenv("LLPFC_GRID_CASES")); err == nil && n > 0 {
		params.MinSuccessfulTests = n
	}
	props := gopter.NewProperties(params)
	refused := 0
	props.Property("a role's column is one, chosen, or refused by name", prop.ForAll(func(seed int64) string {
		c := genRoleCase(rand.New(rand.NewSource(seed)))
		if c.refusal() != nil {
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
