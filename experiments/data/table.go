package data

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// A table is a tabular file as read, before its columns become features: a
// CSV file (every value text; a column whose values are all numbers is
// numeric) or a Parquet file (typed columns). ReadCSV, ReadParquet and the
// bag-only readers turn tables into Datasets: numeric columns as they are,
// categorical columns one-hot (Column).

// table holds a file's columns.
type table struct {
	name   string
	header bool     // CSV: whether the first line named the columns
	names  []string // column names (a headerless CSV: "0", "1", …)
	cols   []*tcol
	rows   int
	lines  []int // CSV: the line of each row; nil for Parquet (row i is "row i+1")
	// parquet marks a Parquet table (its messages name rows, not lines).
	parquet bool
	// na says which values are missing (the data set's @na option).
	na naRule
}

// tcol is one column: numbers or text.
type tcol struct {
	text bool
	num  []float64
	str  []string
	// firstRow is the row whose value fixed the column's kind, and
	// firstText that value as written (for the message of a mixed column).
	firstRow  int
	firstText string
}

// value returns row i of a column as text: the text as read, or a number
// in Go's shortest form.
func (c *tcol) value(i int) string {
	if c.text {
		return c.str[i]
	}
	return strconv.FormatFloat(c.num[i], 'g', -1, 64)
}

// where names row i for a message: "line L" (CSV) or "row R" (Parquet,
// 1-based).
func (t *table) where(i int) string {
	if t.lines != nil {
		return fmt.Sprintf("line %d", t.lines[i])
	}
	return fmt.Sprintf("row %d", i+1)
}

// at names row i and column j: "line L, column J" (1-based, as the CSV
// readers always have) or `row R, column "name"`.
func (t *table) at(i, j int) string {
	if t.parquet {
		return fmt.Sprintf("row %d, column %q", i+1, t.names[j])
	}
	return fmt.Sprintf("%s, column %d", t.where(i), j+1)
}

// colText names column j: its header name, or its 0-based index.
func (t *table) colText(j int) string {
	if t.header || t.parquet {
		return fmt.Sprintf("column %q", t.names[j])
	}
	return fmt.Sprintf("column %d", j)
}

// find returns the column named ref (case-insensitive) or, when ref is an
// integer, the column of that 0-based index; -1 when there is none.
func (t *table) find(ref string) int {
	if t.header || t.parquet {
		for j, n := range t.names {
			if strings.EqualFold(n, ref) {
				return j
			}
		}
	}
	if k, err := strconv.Atoi(ref); err == nil && k >= 0 && k < len(t.names) {
		return k
	}
	return -1
}

// colMode is how a column is read: by its values (auto), as text whatever
// its values (labels, bag ids, declared categorical columns), or as numbers
// only (a proportions table's class columns).
type colMode int

const (
	auto colMode = iota
	asText
	asNumber
)

// csvTextColumns says how each column of a table is read (columns it does
// not name are auto), given the header names (nil without a header) and
// the column count.
type csvTextColumns func(header []string, ncols int) (map[int]colMode, error)

// readCSVTable reads a CSV file into a table. The first line is a header
// when any of its fields is not a number. A column is text when text(…)
// says so; otherwise its first value fixes its kind — a number (a finite
// float32) makes a numeric column, anything else a categorical one — and a
// later value of the other kind is an error naming both places (mixed
// dtypes; declare such a column categorical). Every row must have the same
// number of fields. Errors name the line and column.
func readCSVTable(r io.Reader, name string, na naRule, text csvTextColumns) (*table, error) {
	br := bufio.NewReader(r)
	if err := textEncoding(br, name); err != nil {
		return nil, err
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	cr.TrimLeadingSpace = true
	first, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: line 1: empty CSV file", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	first = append([]string(nil), first...)
	if len(first) > 0 { // a UTF-8 byte-order mark once hid the first header
		first[0] = strings.TrimPrefix(first[0], "\ufeff")
	}
	if hint := separatorHint(first); hint != "" { // every reader: predict read the line as one column and named no separator
		return nil, fmt.Errorf("%s%s", name, hint)
	}
	t := &table{name: name, na: na}
	for _, f := range first {
		if _, err := strconv.ParseFloat(strings.TrimSpace(f), 64); err != nil {
			t.header = true
			break
		}
	}
	for j, f := range first {
		if t.header {
			t.names = append(t.names, strings.TrimSpace(f))
		} else {
			t.names = append(t.names, strconv.Itoa(j))
		}
	}
	var hdr []string
	if t.header {
		hdr = t.names
		if err := t.checkHeader(); err != nil {
			return nil, err
		}
	}
	isText, err := text(hdr, len(first))
	if err != nil {
		return nil, err
	}
	t.cols = make([]*tcol, len(first))
	for j := range t.cols {
		t.cols[j] = &tcol{text: isText[j] == asText, firstRow: -1}
	}
	if !t.header {
		if err := t.addCSVRow(first, 1, isText); err != nil {
			return nil, err
		}
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err) // csv.ParseError names line and column
		}
		line, _ := cr.FieldPos(0)
		if err := t.addCSVRow(rec, line, isText); err != nil {
			return nil, err
		}
	}
	if t.header {
		if err := t.headerLooksLikeData(); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// missingSpellings are the ways files write a missing value (R's NA,
// pandas' NaN and <NA>, SQL's NULL, Python's None, Excel's #N/A, UCI's ?),
// compared without case.
var missingSpellings = append([]string{""}, MissingSpellings()...)

// naRule says which values of a table are missing: missingSpellings
// compared without case, or, when the data set's name gives them
// (@na=SPELLING+…), those spellings exactly; an empty field always.
type naRule struct {
	given     bool
	spellings []string
}

// parseNA reads @na='s value: "+"-separated spellings; empty for none but
// the empty field.
func parseNA(val string) naRule {
	r := naRule{given: true}
	if val != "" {
		r.spellings = strings.Split(val, "+")
	}
	return r
}

// missing reports whether v, as read from a table, is a missing value:
// never a class nor a bag id (R's "NA" once became a class of its own,
// and the accuracy fell from 0.56 to 0.31), nor a feature.
func (r naRule) missing(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" || !r.given {
		return containsFold(missingSpellings, v)
	}
	for _, s := range r.spellings {
		if v == strings.TrimSpace(s) {
			return true
		}
	}
	return false
}

// missingValue is missing under the default rule.
func missingValue(v string) bool { return naRule{}.missing(v) }

// MissingWayOut is the way out every missing-value message gives, in the
// words of docs/exit-status.md: the value is dropped or filled by the user, never by the
// reader.
const MissingWayOut = "drop the row, or fill it in"

// missingError is the error of a missing value at row i of column j, where
// role ("label", "bag id", "feature") needs one.
func missingError(t *table, i, j int, role string) error {
	return t.missingError(i, j, role, t.cols[j].value(i), false)
}

// missingError is the error of the missing value v at row i of column j,
// in role ("label", "bag id", "feature"); categories says that the column
// is a feature of categories. The way out is the documentation's (MissingWayOut),
// and, where the spelling may be a real value, how to read it as written:
// @na for a class or bag id spelled "none" or "Na", @categorical for a
// category.
func (t *table) missingError(i, j int, role, v string, categories bool) error {
	v = strings.TrimSpace(v)
	what := "empty " + role
	if v != "" {
		what = fmt.Sprintf("%s %q is a missing value", role, v)
	}
	never := "never a number nor a category"
	switch role {
	case "label":
		never = "never a class"
	case "bag id":
		never = "never a bag"
	}
	pandas := fmt.Sprintf("df.dropna(subset=[%q])", t.names[j])
	if role == "feature" {
		pandas = fmt.Sprintf("df.dropna(subset=[%q]) or df.fillna(…)", t.names[j])
	}
	asWritten := ""
	switch {
	case v == "":
	case role == "feature" && categories:
		asWritten = fmt.Sprintf("; to keep %q as a category of its own, declare the column categorical (@categorical=%s)", v, t.names[j])
	case role == "feature":
	case !t.na.given:
		asWritten = fmt.Sprintf("; if %q is a %s as written, name the file's missing values with @na=SPELLING[+SPELLING…] (@na= for empty fields only)", v, map[bool]string{true: "class", false: "bag id"}[role == "label"])
	}
	return fmt.Errorf("%s: %s: %s (%s are %s): %s (pandas: %s)%s",
		t.name, t.at(i, j), what, t.na.text(), never, MissingWayOut, pandas, asWritten)
}

// text lists the rule's spellings, for messages.
func (r naRule) text() string {
	if r.given {
		return strings.Join(append([]string{"empty"}, r.spellings...), ", ") + ", as @na= names them,"
	}
	return "empty, " + strings.Join(MissingSpellings(), ", ") + ", in any case,"
}

// MissingSpellings are the spellings of a missing value every table reader
// knows, as docs/exit-status.md lists them.
func MissingSpellings() []string {
	return []string{"NA", "N/A", "NaN", "null", "None", "<NA>", "#N/A", "nil", "missing", "?"}
}

// textEncoding refuses a CSV file that encoding/csv would read as one odd
// line (both were once reported as a header without a label column):
// UTF-16 (a byte-order mark, or NUL bytes between the characters) and
// lines ended by a carriage return alone (classic Mac OS, some exports).
func textEncoding(br *bufio.Reader, name string) error {
	head, _ := br.Peek(4096)
	switch {
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}) || bytes.HasPrefix(head, []byte{0xfe, 0xff}) || bytes.Count(head, []byte{0}) > len(head)/4:
		return fmt.Errorf("%s: the file is UTF-16 (or another encoding with NUL bytes), not UTF-8 text: save it as UTF-8 (Excel: CSV UTF-8; iconv -f UTF-16 -t UTF-8; pandas: to_csv(..., encoding=\"utf-8\"))", name)
	case bytes.IndexByte(head, '\r') >= 0 && bytes.IndexByte(head, '\n') < 0 && bytes.IndexByte(head, '\r') < len(head)-1:
		return fmt.Errorf("%s: its lines end in a carriage return alone (CR, as classic Mac OS wrote them), which reads as one line: save it with LF or CRLF line endings (tr '\\r' '\\n')", name)
	}
	return nil
}

// pandasIndexHint is what an empty header name usually is.
const pandasIndexHint = "a pandas index column (DataFrame.to_csv writes the index as a first column with an empty name unless index=False): write the file with index=False, or give the column a name"

// checkHeader refuses the header names that would make a column ambiguous
// (once read silently): an empty name (a pandas index column read as a feature, or
// as a class of a proportions table) and a name given twice, compared as
// the readers look columns up (case-insensitively: with
// "f0,f0,label" the training split read columns by position and the test
// split and predict by name, feeding the second f0 twice). Every table —
// CSV or Parquet, labelled, bag-only training, proportions or test — is
// read through it.
func (t *table) checkHeader() error {
	seen := map[string]int{}
	for j, n := range t.names {
		col := fmt.Sprintf("column %d", j+1)
		if t.parquet {
			col = fmt.Sprintf("field %d", j+1)
		}
		if strings.TrimSpace(n) == "" {
			hint := "name it"
			if j == 0 {
				hint = pandasIndexHint
			}
			return fmt.Errorf("%s: the header's %s has an empty name; %s", t.name, col, hint)
		}
		key := strings.ToLower(n)
		if k, dup := seen[key]; dup {
			same := fmt.Sprintf("two columns %q", n)
			if t.names[k] != n {
				same = fmt.Sprintf("columns %q and %q, one name without case,", t.names[k], n)
			}
			return fmt.Errorf("%s: the header names %s (columns %d and %d): which one a reader means is ambiguous; give each column its own name",
				t.name, same, k+1, j+1)
		}
		seen[key] = j
	}
	return nil
}

// addCSVRow appends one record at line to the table.
func (t *table) addCSVRow(rec []string, line int, isText map[int]colMode) error {
	i := t.rows
	t.lines = append(t.lines, line)
	t.rows++
	for j, f := range rec {
		f = strings.TrimSpace(f)
		c := t.cols[j]
		if isText[j] == auto && t.na.missing(f) {
			// A feature's missing value (a label's or bag id's is refused
			// after the read, naming the role): never a number nor a
			// category (a column of numbers and one "NA" was said to
			// mix kinds, and the user told to declare it categorical).
			return t.missingError(i, j, "feature", f, c.text)
		}
		if c.firstRow < 0 {
			c.firstRow, c.firstText = i, f
			if isText[j] == auto {
				if _, err := strconv.ParseFloat(f, 64); err != nil {
					c.text = true
				}
			}
		}
		if c.text {
			c.str = append(c.str, f)
			if isText[j] == auto {
				if _, err := strconv.ParseFloat(f, 64); err == nil {
					return fmt.Errorf("%s: %s: %q is a number, but %s holds categories (%s: %q); a column holds numbers or categories: declare it categorical to read every value as a category",
						t.name, t.at(i, j), f, t.colText(j), t.where(c.firstRow), c.firstText)
				}
			}
			continue
		}
		v, err := strconv.ParseFloat(f, 64)
		if err != nil && isText[j] == asNumber {
			return fmt.Errorf("%s: %s: %q is not a number, want a number in %s", t.name, t.at(i, j), f, t.colText(j))
		}
		if err != nil {
			return fmt.Errorf("%s: %s: %q is not a number, but %s holds numbers (%s: %q); a column holds numbers or categories: declare it categorical to read every value as a category",
				t.name, t.at(i, j), f, t.colText(j), t.where(c.firstRow), c.firstText)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > math.MaxFloat32 {
			what := "feature"
			if isText[j] == asNumber {
				what = "value"
			}
			return fmt.Errorf("%s: %s: %s %q is not a finite float32 number: write a finite value (|x| ≤ 3.4e38), or drop the row", t.name, t.at(i, j), what, f)
		}
		c.num = append(c.num, v)
	}
	return nil
}

// headerLooksLikeData refuses a first line read as a header that is in
// fact a row of data: a header name that is also a value of its own
// categorical column (a headerless file with categorical columns would
// otherwise lose its first row without a word).
func (t *table) headerLooksLikeData() error {
	for j, c := range t.cols {
		if !c.text || t.names[j] == "" {
			continue
		}
		for i, v := range c.str {
			if v == t.names[j] {
				return fmt.Errorf("%s: line 1 is read as a header, but its field %q (column %d) is also a value of that column at %s: give the file a header line naming its columns",
					t.name, v, j+1, t.where(i))
			}
		}
	}
	return nil
}

// Column describes one column of a tabular file as it enters X: a numeric
// column is one feature; a categorical column is a block of one-hot
// features, one per category of the training split (in Categories' order).
// A test value outside the training categories gets an all-zero block: the
// network sees "none of the known categories" rather than a guess.
type Column struct {
	Name string `json:"name"`
	// Categories are a categorical column's categories, sorted (in numeric
	// order when every category is a number, else lexicographically); nil
	// for a numeric column.
	Categories []string `json:"categories,omitempty"`
	// Offset and Width place the column in a row of X: features
	// Offset…Offset+Width−1.
	Offset int `json:"offset"`
	Width  int `json:"width"`
}

// Categorical reports whether the column is one-hot encoded.
func (c Column) Categorical() bool { return c.Categories != nil }

// fitColumns describes the feature columns feats of a training table: a
// text column's categories are its distinct values.
func fitColumns(t *table, feats []int) []Column {
	var out []Column
	off := 0
	for _, j := range feats {
		c := Column{Name: t.names[j], Offset: off, Width: 1}
		if t.cols[j].text {
			c.Categories = sortedCategories(t.cols[j].str)
			c.Width = len(c.Categories)
		}
		out = append(out, c)
		off += c.Width
	}
	return out
}

// sortedCategories returns the distinct values of vals in increasing order:
// numeric when every value is a number, else lexicographic.
func sortedCategories(vals []string) []string {
	seen := map[string]bool{}
	var cats []string
	for _, v := range vals {
		if !seen[v] {
			seen[v] = true
			cats = append(cats, v)
		}
	}
	num := map[string]float64{}
	for _, c := range cats {
		v, err := strconv.ParseFloat(c, 64)
		if err != nil {
			sort.Strings(cats)
			return cats
		}
		num[c] = v
	}
	sort.Slice(cats, func(a, b int) bool {
		if num[cats[a]] != num[cats[b]] {
			return num[cats[a]] < num[cats[b]]
		}
		return cats[a] < cats[b]
	})
	return cats
}

// width is the number of features of columns.
func width(columns []Column) int {
	w := 0
	for _, c := range columns {
		w += c.Width
	}
	return w
}

// encode writes the feature columns feats of t, described by columns, into
// a row-major N×width(columns) float64 matrix: numbers as they are, a
// category as a one-hot block (all zeros for a category the columns do not
// know). A numeric column given text is an error naming the place.
func encode(t *table, feats []int, columns []Column) ([]float64, error) {
	d := width(columns)
	if int64(t.rows)*int64(d) > denseLimit {
		return nil, fmt.Errorf("%s: %d rows × %d features would need %.3g GiB, more than the %.3g GiB allowed (half the memory available)",
			t.name, t.rows, d, float64(int64(t.rows)*int64(d)*valueBytes)/(1<<30), float64(denseLimit*valueBytes)/(1<<30))
	}
	x := make([]float64, t.rows*d)
	for k, j := range feats {
		col, c := columns[k], t.cols[j]
		if !col.Categorical() {
			if c.text {
				return nil, fmt.Errorf("%s: %s: %q is not a number, but %s is numeric in the training file", t.name, t.at(c.firstRow, j), c.firstText, t.colText(j))
			}
			for i, v := range c.num {
				x[i*d+col.Offset] = v
			}
			continue
		}
		index := make(map[string]int, len(col.Categories))
		for h, cat := range col.Categories {
			index[cat] = h
		}
		for i := 0; i < t.rows; i++ {
			if h, ok := index[c.value(i)]; ok {
				x[i*d+col.Offset+h] = 1
			}
		}
	}
	return x, nil
}

// matchColumns returns the columns of t that hold the features columns
// describes (a test file's, for the training file's columns): by name when
// both files name their columns, else by position among feats. Every
// feature must be present once, and t may hold no other column.
func matchColumns(t *table, feats []int, columns []Column, what string) ([]int, error) {
	if len(feats) != len(columns) {
		return nil, fmt.Errorf("%s: %d feature columns, the training file has %d (%s)%s", t.name, len(feats), len(columns), columnNames(columns), t.columnsDiffer(feats, columns))
	}
	// By name when the test file names its columns and holds every
	// training column's name; by position when the training file had no
	// header (its columns are called by their indices) and the names do
	// not match. (A header naming a column "2" was once taken for a
	// headerless file, and its columns were laid out by position.)
	found, indices := true, true
	for _, c := range columns {
		hit := false
		for _, j := range feats {
			hit = hit || strings.EqualFold(t.names[j], c.Name)
		}
		found = found && hit
		_, err := strconv.Atoi(c.Name)
		indices = indices && err == nil
	}
	if !(t.header || t.parquet) || !found && indices {
		return feats, nil
	}
	out := make([]int, len(columns))
	for k, c := range columns {
		out[k] = -1
		for _, j := range feats {
			if strings.EqualFold(t.names[j], c.Name) {
				out[k] = j
			}
		}
		if out[k] < 0 {
			return nil, fmt.Errorf("%s: no column %q; the %s has the training file's feature columns (%s)", t.name, c.Name, what, columnNames(columns))
		}
	}
	return out, nil
}

// columnsDiffer names, for a message, the feature columns feats of t that
// columns lacks and the columns t lacks (by name, without case), or "" for
// a table without a header.
func (t *table) columnsDiffer(feats []int, columns []Column) string {
	if !t.header && !t.parquet {
		return ""
	}
	var extra, missing []string
	for _, j := range feats {
		found := false
		for _, c := range columns {
			found = found || strings.EqualFold(c.Name, t.names[j])
		}
		if !found {
			extra = append(extra, t.names[j])
		}
	}
	for _, c := range columns {
		found := false
		for _, j := range feats {
			found = found || strings.EqualFold(c.Name, t.names[j])
		}
		if !found {
			missing = append(missing, c.Name)
		}
	}
	var out []string
	if len(extra) > 0 {
		out = append(out, "not in the training file: "+listSome(extra))
	}
	if len(missing) > 0 {
		out = append(out, "missing here: "+listSome(missing))
	}
	if len(out) == 0 {
		return ""
	}
	return "; " + strings.Join(out, "; ")
}

// columnNames lists the names of columns.
func columnNames(columns []Column) string {
	names := make([]string, len(columns))
	for i, c := range columns {
		names[i] = c.Name
	}
	return listSome(names)
}

// featureColumn finds the column ref of the feature protocol among columns
// (by name, case-insensitive, or by 0-based index) or, without columns,
// the feature of that index among dim: its offset in a row and, for a
// categorical column, its one-hot width (0 for a numeric one).
func featureColumn(columns []Column, dim int, ref string) (off, width int, ok bool) {
	pick := func(c Column) (int, int, bool) {
		if !c.Categorical() {
			return c.Offset, 0, true
		}
		return c.Offset, c.Width, true
	}
	for _, c := range columns {
		if strings.EqualFold(c.Name, ref) {
			return pick(c)
		}
	}
	k, err := strconv.Atoi(ref)
	switch {
	case err == nil && columns != nil && k >= 0 && k < len(columns):
		return pick(columns[k])
	case err == nil && columns == nil && k >= 0 && k < dim:
		return k, 0, true
	}
	return 0, 0, false
}

// NoFeatureColumn returns the error of a feature-protocol column ref that
// the data (its columns, or dim features without) do not have, or nil when
// they do: a check before any bag is made (llpfc run --list).
func NoFeatureColumn(columns []Column, dim int, ref string) error {
	if _, _, ok := featureColumn(columns, dim, ref); ok {
		return nil
	}
	names := "features 0…" + strconv.Itoa(dim-1)
	if columns != nil {
		names = columnNames(columns)
	}
	return fmt.Errorf("no column %q for the feature protocol (columns: %s)", ref, names)
}

// FeatureKeys returns, for the feature protocol (bagproto "feature:COL…"),
// the value combination of the columns cols of every instance as a small
// integer: equal combinations, equal keys, numbered in increasing order of
// the combination. A column is named by its name (Columns, case-insensitive)
// or by its 0-based index among the columns (a feature index when the data
// set has no Columns). A categorical column's value is its category (the
// one-hot block's set feature; none, for a test value unseen in training);
// a numeric column's value is the feature as held in X.
func (d *Dataset) FeatureKeys(cols []string) ([]int, error) {
	type span struct{ off, width int }
	var spans []span
	for _, ref := range cols {
		off, width, ok := featureColumn(d.Columns, d.D, ref)
		if !ok {
			return nil, fmt.Errorf("%s: %s", d.Name, NoFeatureColumn(d.Columns, d.D, ref))
		}
		s := span{off, width}
		spans = append(spans, s)
	}
	vals := make([][]float64, d.N)
	for i := range vals {
		row := d.Row(i)
		vals[i] = make([]float64, len(spans))
		for k, s := range spans {
			if s.width == 0 {
				vals[i][k] = float64(row[s.off])
				continue
			}
			vals[i][k] = -1
			for h := 0; h < s.width; h++ {
				if row[s.off+h] == 1 {
					vals[i][k] = float64(h)
				}
			}
		}
	}
	order := make([]int, d.N)
	for i := range order {
		order[i] = i
	}
	less := func(a, b []float64) int {
		for k := range a {
			if a[k] != b[k] {
				if a[k] < b[k] {
					return -1
				}
				return 1
			}
		}
		return 0
	}
	sort.SliceStable(order, func(a, b int) bool { return less(vals[order[a]], vals[order[b]]) < 0 })
	keys := make([]int, d.N)
	key := 0
	for p, i := range order {
		if p > 0 && less(vals[order[p-1]], vals[i]) != 0 {
			key++
		}
		keys[i] = key
	}
	return keys, nil
}

// ColumnsNotIn returns the names of d's feature columns that cols (a
// model's, Manifest.Columns) does not have, compared without case as
// AlignColumns finds them: the columns AlignColumns leaves unused.
func (d *Dataset) ColumnsNotIn(cols []Column) []string {
	want := map[string]bool{}
	for _, c := range cols {
		want[strings.ToLower(c.Name)] = true
	}
	var out []string
	for _, c := range d.Columns {
		if !want[strings.ToLower(c.Name)] {
			out = append(out, c.Name)
		}
	}
	return out
}

// AlignColumns lays d's feature columns out as cols, the columns of the
// training table a model was fitted on (Manifest.Columns): each column of
// cols is found in d by name; a numeric column is copied; a categorical
// one is one-hot over cols' categories, each of d's categories moved to the
// position of the same category there, and a category cols lacks becomes an
// all-zero block — what a test table's unseen category becomes in training
// (readTables). Without it a table read on its own is one-hot over its own
// categories, and a model fitted on other categories would read the wrong
// features, quietly, whenever the widths agree. A column of cols missing
// from d, or numeric in one and categorical in the other, is an error
// naming it; d's other columns are not used. d needs Columns.
func (d *Dataset) AlignColumns(cols []Column) (*Dataset, error) {
	if len(d.Columns) == 0 {
		return nil, fmt.Errorf("%s: no named columns to align with the model's", d.Name)
	}
	byName := map[string]Column{}
	for _, c := range d.Columns {
		byName[strings.ToLower(c.Name)] = c // as every table reader looks columns up: without case
	}
	width := 0
	for _, c := range cols {
		width += c.Width
	}
	src := d.Raw
	if src == nil {
		src = make([]float64, len(d.X))
		for i, v := range d.X {
			src[i] = float64(v)
		}
	}
	raw := make([]float64, d.N*width)
	for _, want := range cols {
		have, ok := byName[strings.ToLower(want.Name)]
		switch {
		case !ok:
			return nil, fmt.Errorf("%s: no column %q, which the model was trained on (its columns: %s)", d.Name, want.Name, columnNames(cols))
		case want.Categorical() != have.Categorical():
			return nil, fmt.Errorf("%s: column %q is %s here but was %s in training", d.Name, want.Name, columnKind(have), columnKind(want))
		}
		to := make([]int, have.Width) // d's feature → cols' position, −1 for an unseen category
		for j := range to {
			to[j] = j
		}
		if want.Categorical() {
			pos := map[string]int{}
			for j, cat := range want.Categories {
				pos[cat] = j
			}
			for j, cat := range have.Categories {
				if p, ok := pos[cat]; ok {
					to[j] = p
				} else {
					to[j] = -1
				}
			}
		}
		for i := 0; i < d.N; i++ {
			row, out := src[i*d.D:(i+1)*d.D], raw[i*width:(i+1)*width]
			for j, p := range to {
				if p >= 0 {
					out[want.Offset+p] = row[have.Offset+j]
				}
			}
		}
	}
	a := *d
	a.D, a.Raw, a.Columns = width, raw, cols
	a.X = make([]float32, len(raw))
	for i, v := range raw {
		a.X[i] = float32(v)
	}
	if a.Y == nil && a.Bags == nil {
		return &a, nil // an unlabelled table (LoadTable): no labels to check
	}
	return &a, a.Validate()
}

func columnKind(c Column) string {
	if c.Categorical() {
		return "categorical"
	}
	return "numeric"
}
