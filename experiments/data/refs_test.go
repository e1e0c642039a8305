package data

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One rule for a column an @-option names (columnRef): its header name,
// else its 0-based index, and a name that reads both ways onto two columns
// refused. Before, @label=4 with a column named "4" took the index and
// @bag=4 the name, without a word. Generated headers mix words and
// numbers (pandas' numbered columns); the option (@label, @bag,
// @categorical) names a column by a word or a number. The oracle is a
// brute-force reading of the header: which column has the name, which the
// index; the reader must refuse exactly when they differ, report "no
// column" when neither exists, and otherwise read the column chosen in its
// role (labels or bag ids as written, or its values as categories).

// refCase is one generated table and option.
type refCase struct {
	header []string
	kind   string // "label", "bag", "categorical"
	ref    string
}

func (c refCase) String() string {
	return fmt.Sprintf("header %q, @%s=%s", c.header, c.kind, c.ref)
}

// oracle returns the column the option names (-1: none) and whether it is
// ambiguous, by reading the header both ways.
func (c refCase) oracle() (int, bool) {
	name, index := -1, -1
	for j, h := range c.header {
		if strings.EqualFold(h, c.ref) && name < 0 {
			name = j
		}
	}
	if k, err := strconv.Atoi(c.ref); err == nil && k >= 0 && k < len(c.header) {
		index = k
	}
	switch {
	case name >= 0 && index >= 0 && name != index:
		return -1, true
	case name >= 0:
		return name, false
	}
	return index, false
}

// refValue is row i of column j: bag ids 10…15 in every column (any
// column may be chosen as the bag id; no value is a header name).
func refValue(i, j int) int { return 10 + (i+j)%6 }

func genRefCase(r *rand.Rand) refCase {
	n := 3 + r.Intn(4)
	var c refCase
	used := map[string]bool{}
	words := 0
	for len(c.header) < n {
		h := []string{"a", "b", "c", "w", "z"}[r.Intn(5)]
		if r.Intn(2) == 0 && (words > 0 || len(c.header) < n-1) { // a word somewhere: a line of numbers is no header
			h = strconv.Itoa(r.Intn(8))
		}
		if !used[strings.ToLower(h)] {
			used[strings.ToLower(h)] = true
			c.header = append(c.header, h)
			if _, err := strconv.Atoi(h); err != nil {
				words++
			}
		}
	}
	c.kind = []string{"label", "bag", "categorical"}[r.Intn(3)]
	if c.kind == "categorical" {
		c.header = append(c.header, "label") // the label by its default name
		n++
	}
	if r.Intn(2) == 0 {
		c.ref = c.header[r.Intn(n)]
	} else {
		c.ref = strconv.Itoa(r.Intn(n + 2))
	}
	return c
}

// check writes the case's tables in dir and reads them.
func (c refCase) check(dir string) error {
	var b strings.Builder
	b.WriteString(strings.Join(c.header, ",") + "\n")
	for i := 0; i < 24; i++ {
		row := make([]string, len(c.header))
		for j := range row {
			row[j] = strconv.Itoa(refValue(i, j))
		}
		b.WriteString(strings.Join(row, ",") + "\n")
	}
	train := filepath.Join(dir, "t.csv")
	if err := os.WriteFile(train, []byte(b.String()), 0o644); err != nil {
		return err
	}
	want, ambiguous := c.oracle()
	var d *Dataset
	var err error
	switch c.kind {
	case "bag":
		props := "bag,p,q\n"
		for k := 10; k < 16; k++ {
			props += fmt.Sprintf("%d,%d,%d\n", k, 1+k%2, 2-k%2)
		}
		pp := filepath.Join(dir, "p.csv")
		if err := os.WriteFile(pp, []byte(props), 0o644); err != nil {
			return err
		}
		d, _, err = ReadBagOnly("bags:" + train + "," + pp + "@normalize@bag=" + c.ref)
	case "label":
		d, err = Load("csv:"+train+"@label="+c.ref, "", Train)
	default:
		d, err = Load("csv:"+train+"@categorical="+c.ref, "", Train)
	}
	switch {
	case ambiguous && (err == nil || !strings.Contains(err.Error(), "is ambiguous")):
		return fmt.Errorf("ambiguous reference not refused: %v", err)
	case ambiguous:
		if !strings.Contains(err.Error(), "@"+c.kind+"=") {
			return fmt.Errorf("the refusal does not name the option: %v", err)
		}
		return nil
	case want == -1 && err == nil:
		return fmt.Errorf("a reference to no column was read")
	case want == -1:
		if !strings.Contains(err.Error(), strconv.Quote(c.ref)) {
			return fmt.Errorf("the refusal does not name %q: %v", c.ref, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("column %d not read: %v", want, err)
	}
	switch c.kind {
	case "label":
		for i, y := range d.Y {
			if got := d.ClassNames[y]; got != strconv.Itoa(refValue(i, want)) {
				return fmt.Errorf("row %d: label %q, the file says %d in column %d", i, got, refValue(i, want), want)
			}
		}
	case "bag":
		for _, bag := range d.Bags.Bags {
			for _, i := range bag.Indices {
				if bag.ID != refValue(i, want) {
					return fmt.Errorf("row %d in bag %d, the file says %d in column %d", i, bag.ID, refValue(i, want), want)
				}
			}
		}
	default:
		var cats []string
		for _, col := range d.Columns {
			if col.Categorical() {
				cats = append(cats, col.Name)
			}
		}
		wantCats := []string{c.header[want]}
		if c.header[want] == "label" {
			wantCats = nil // the label: read as text, never a feature
		}
		if fmt.Sprint(cats) != fmt.Sprint(wantCats) {
			return fmt.Errorf("columns %q read as categories, want %q", cats, wantCats)
		}
	}
	return nil
}

func TestPropertyColumnRefs(t *testing.T) {
	n := 400
	if v, err := strconv.Atoi(os.Getenv("LLPFC_GRID_CASES")); err == nil && v > 0 {
		n = v
	}
	r := rand.New(rand.NewSource(62))
	counts := map[string]int{}
	for i := 0; i < n; i++ {
		c := genRefCase(r)
		want, amb := c.oracle()
		switch {
		case amb:
			counts["ambiguous"]++
		case want < 0:
			counts["none"]++
		default:
			counts["read"]++
		}
		if err := c.check(t.TempDir()); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
	}
	t.Logf("%d generated references: %v", n, counts)
	for _, k := range []string{"ambiguous", "none", "read"} {
		assert.Positive(t, counts[k], "the generator made no %s reference", k)
	}
}

// Options that name one thing, given twice, are refused naming both (the
// last one won, without a word); @categorical adds, as before.
func TestOptionsNamedOnce(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"csv:a.csv@label=x@label=y", "the label column is named twice (@label=x and @label=y)"},
		{"csv:a.csv@x@label=y", "the label column is named twice (@x and @label=y)"},
		{"bags:a.csv,b.csv@bag=i@bag=j", "the bag id column is named twice (@bag=i and @bag=j)"},
		{"csv:a.csv@na=@na=NA", "named twice (@na= and @na=NA)"},
	} {
		_, err := parseSource(c.name)
		require.Error(t, err, c.name)
		assert.Contains(t, err.Error(), c.want)
		assert.Contains(t, err.Error(), "name it once")
	}
	s, err := parseSource("csv:a.csv@categorical=x@categorical=y+z")
	require.NoError(t, err)
	assert.Equal(t, []string{"x", "y", "z"}, s.categorical)
}

// A missing value (docs/exit-status.md: "drop the row, or fill it in") is one message
// for every role, and @na= reads a class or bag id spelled like one as
// written (issue: "Na" and "none" as classes had no way through). A
// feature's missing value is never advice to declare a column of numbers
// categorical.
func TestMissingValuesOneWayOut(t *testing.T) {
	dir := t.TempDir()
	put := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	rows := func(label func(i int) string, feat func(i int) string) string {
		s := "a,b,label\n"
		for i := 0; i < 12; i++ {
			s += fmt.Sprintf("%s,%d,%s\n", feat(i), i%5, label(i))
		}
		return s
	}
	num := func(i int) string { return strconv.Itoa(i % 7) }
	for _, spelling := range MissingSpellings() {
		for _, at := range []int{0, 5} { // the first value fixes a column's kind: both places
			feat := put("f.csv", rows(func(i int) string { return strconv.Itoa(i % 2) }, func(i int) string {
				if i == at {
					return spelling
				}
				return num(i)
			}))
			_, err := Load("csv:"+feat, "", Train)
			require.Error(t, err, "%q at row %d", spelling, at)
			assert.Contains(t, err.Error(), fmt.Sprintf("feature %q is a missing value", spelling))
			assert.Contains(t, err.Error(), MissingWayOut)
			assert.NotContains(t, err.Error(), "declare it categorical")
		}
		for _, class := range []string{spelling, strings.ToLower(spelling), strings.ToUpper(spelling)} {
			lab := put("l.csv", rows(func(i int) string {
				if i%2 == 0 {
					return class
				}
				return "yes"
			}, num))
			_, err := Load("csv:"+lab, "", Train)
			require.Error(t, err, class)
			assert.Contains(t, err.Error(), fmt.Sprintf("label %q is a missing value", class))
			assert.Contains(t, err.Error(), MissingWayOut)
			assert.Contains(t, err.Error(), "@na=")
			d, err := Load("csv:"+lab+"@na=", "", Train) // only empty fields are missing
			require.NoError(t, err, class)
			assert.ElementsMatch(t, []string{class, "yes"}, d.ClassNames)
			for i, y := range d.Y {
				assert.Equal(t, map[bool]string{true: class, false: "yes"}[i%2 == 0], d.ClassNames[y])
			}
		}
	}
	// A spelling with a slash is an @na= spelling, not a path.
	slash := put("s.csv", rows(func(i int) string { return []string{"N/A", "yes"}[i%2] }, num))
	d, err := Load("csv:"+slash+"@na=#N/A", "", Train)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"N/A", "yes"}, d.ClassNames)
	// @na= names the file's own spelling: "-" is missing, "NA" a class.
	lab := put("m.csv", rows(func(i int) string { return []string{"NA", "yes", "-"}[min(i, 2)%3] }, num))
	_, err = Load("csv:"+lab+"@na=-", "", Train)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `line 4, column 3: label "-" is a missing value (empty, -, as @na= names them, are never a class)`)
	// A category column keeps "NA" only when declared categorical.
	cat := put("c.csv", "a,b,label\nred,1,0\nNA,2,1\nblue,3,0\n")
	_, err = Load("csv:"+cat, "", Train)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "declare the column categorical (@categorical=a)")
	d, err = Load("csv:"+cat+"@categorical=a", "", Train)
	require.NoError(t, err)
	assert.Contains(t, d.Columns[0].Categories, "NA")
}
