package data

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// TabularOptions controls ReadCSV and ReadLIBSVM.
type TabularOptions struct {
	// LabelColumn names the CSV label column: a header name or a 0-based
	// column index. Empty means the header column called label, class, y or
	// target (case-insensitive), or column 0 when the file has no header.
	LabelColumn string
	// Classes fixes the map from original labels to classes 0…K−1 (pass the
	// training split's ClassNames when reading its test split). Nil derives
	// it from the file: its distinct labels in increasing order.
	Classes []string
	// Dim, when > 0, fixes the LIBSVM feature count (pass the training
	// split's D for its test split); an index above it is an error.
	Dim int
	// Categorical names the CSV or Parquet columns read as categories
	// whatever their values (header names or 0-based indices); columns
	// whose values are not numbers are categorical without being named.
	Categorical []string
	// Columns, when set, are the training file's feature columns (its
	// Dataset.Columns): a test file is encoded with them, so that both
	// splits have the same features and categories.
	Columns []Column
	// na says which values are missing (the data set's @na option; the
	// zero value: missingSpellings).
	na naRule
}

var defaultLabelNames = []string{"label", "class", "y", "target"}

// columnRole is a role a table's column plays other than a feature's — the
// label, the bag id — with the names it goes by and the option that names
// it otherwise (the column rule of every reader). At most one
// column of a header may go by the role's names (compared without case, as
// columns are looked up); with two, the role is ambiguous, and the second
// was read as a feature (a label leak: "label" and "y"), or a bag id as a
// class ("bag" and "bag_id" in a proportions table).
type columnRole struct {
	what   string
	names  []string
	option string // the @-option that chooses, "label" or "bag"
}

var (
	labelRole = columnRole{"the label", defaultLabelNames, "label"}
	bagRole   = columnRole{"the bag id", bagColumnNames, "bag"}
)

// find returns the column of header going by one of the role's names, -1
// when none does, and an error naming both columns and the option that
// chooses when two do. kind is the data set's kind (csv, parquet, bags).
func (r columnRole) find(where string, header []string, kind string) (int, error) {
	found := -1
	for j, f := range header {
		if !containsFold(r.names, f) {
			continue
		}
		if found >= 0 {
			return -1, fmt.Errorf("%s: columns %q (column %d) and %q (column %d) are both named as %s (the names it goes by: %s): which one is %s is ambiguous; choose it with %s:…@%s=COLUMN (the other is then a feature), or rename one",
				where, header[found], found+1, f, j+1, r.what, strings.Join(r.names, ", "), r.what, kind, r.option)
		}
		found = j
	}
	return found, nil
}

// containsFold reports whether list holds s, compared without case.
func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// separatorHint says, for a one-column header, which other separator it
// holds (';', a tab or '|': a file written with another separator reads as
// one column), or "".
func separatorHint(header []string) string {
	if len(header) != 1 {
		return ""
	}
	for _, sep := range []string{";", "\t", "|"} {
		if strings.Contains(header[0], sep) {
			return fmt.Sprintf(": line 1 holds %q, whose fields are separated by %q, not by commas: the file reads as one column; save it comma-separated (pandas: df.to_csv(path, sep=\",\"); a spreadsheet: CSV with the field delimiter \",\")", header[0], sep)
		}
	}
	return ""
}

// ReadCSV decodes comma-separated data with one label column. The first row
// is a header when any of its fields is not a number. Every row must have
// the same number of fields. A feature column whose values are all numbers
// (finite float32) is numeric; one whose values are all non-numbers, or
// that TabularOptions.Categorical declares, is categorical and becomes a
// one-hot block (Column; the categories of this file, or of
// TabularOptions.Columns for a test file); a column mixing both is an
// error. Labels are mapped to classes 0…K−1 as TabularOptions.Classes says.
// Errors name the line (and column) that broke a rule.
func ReadCSV(r io.Reader, name string, opt TabularOptions) (*Dataset, error) {
	labelCol := -1
	t, err := readCSVTable(r, name, opt.na, func(header []string, ncols int) (map[int]colMode, error) {
		if ncols < 2 {
			return nil, tooFewColumns(fmt.Sprintf("%s: line 1: %d column(s), want a label column and at least one feature%s", name, ncols, separatorHint(header)),
				name+": line 1", "csv", header, ncols, opt.LabelColumn)
		}
		var text map[int]colMode
		var err error
		labelCol, text, err = labelledModes(name+": line 1", "csv", header, ncols, opt.LabelColumn, opt)
		return text, err
	})
	if err != nil {
		return nil, err
	}
	return t.labelled(labelCol, opt)
}

// labelledModes finds the label column of a table (labelColumn) and the
// columns read as text: the declared categorical ones (declaredText) and the
// label. CSV, Parquet and a bag-only set's test table read their header
// through it.
func labelledModes(where, kind string, header []string, ncols int, label string, opt TabularOptions) (int, map[int]colMode, error) {
	labelCol, err := labelColumn(where, kind, header, ncols, label)
	if err != nil {
		return -1, nil, err
	}
	text, err := declaredText(where, header, ncols, opt)
	if err != nil {
		return -1, nil, err
	}
	text[labelCol] = asText
	return labelCol, text, nil
}

// labelColumn finds the label column of a CSV or Parquet (kind) file: want
// (a header name or a 0-based index), else the header column called label,
// class, y or target, else column 0 of a file without a header. where
// starts the messages (the file, and for CSV its line 1).
func labelColumn(where, kind string, header []string, ncols int, want string) (int, error) {
	if want != "" {
		labelCol, err := columnRef(where, kind+":…@label", header, ncols, want)
		if err != nil {
			return -1, err
		}
		if labelCol < 0 {
			return -1, fmt.Errorf("%s: no label column %q among %d columns: %s", where, want, ncols, nameAColumn(header, ncols))
		}
		return labelCol, nil
	}
	if header == nil {
		return 0, nil
	}
	if j, err := labelRole.find(where, header, kind); j >= 0 || err != nil {
		return j, err
	}
	return -1, &noLabelColumnError{fmt.Sprintf("%s: header has no column named %s; name the label column as %s:TRAIN[,TEST]@COLUMN (a header name or a 0-based index)", where, strings.Join(defaultLabelNames, ", "), kind)}
}

// tooFewColumns is the error msg of a table with fewer than two columns:
// ErrNoLabelColumn (errors.Is) when its one column is not a label column,
// so that LoadTable reads it as an unlabelled table of one feature (predict
// then names the model's columns it lacks).
func tooFewColumns(msg, where, kind string, header []string, ncols int, want string) error {
	if ncols == 1 {
		if _, err := labelColumn(where, kind, header, ncols, want); errors.Is(err, ErrNoLabelColumn) {
			return &noLabelColumnError{msg}
		}
	}
	return errors.New(msg)
}

// ErrNoLabelColumn is the error (errors.Is) of a table whose header names
// no label column.
var ErrNoLabelColumn = errors.New("no label column")

type noLabelColumnError struct{ msg string }

func (e *noLabelColumnError) Error() string        { return e.msg }
func (e *noLabelColumnError) Is(target error) bool { return target == ErrNoLabelColumn }

// declaredText returns the columns read as categories whatever their
// values: those TabularOptions.Categorical names, and, for a test file,
// the training file's categorical columns (TabularOptions.Columns).
func declaredText(where string, header []string, ncols int, opt TabularOptions) (map[int]colMode, error) {
	text := map[int]colMode{}
	for _, ref := range opt.Categorical {
		j, err := columnRef(where, "@categorical", header, ncols, ref)
		if err != nil {
			return nil, err
		}
		if j < 0 {
			return nil, fmt.Errorf("%s: no column %q to read as categorical (among %d columns): %s", where, ref, ncols, nameAColumn(header, ncols))
		}
		text[j] = asText
	}
	for _, c := range opt.Columns {
		if c.Categorical() {
			if j := columnByName(header, c.Name); j >= 0 {
				text[j] = asText
			}
		}
	}
	return text, nil
}

// columnRef finds the column a user names in an @-option (opt: "@label",
// "@bag", "@categorical"): by its header name (compared without case) or
// its 0-based index; -1 when neither reading names one. One rule for every
// option: when the two readings name different columns — ref is the header
// of one column and the index of another, as with pandas' numbered columns
// — the reference is refused, saying how to name either (the label option
// took the index and the others the name, without a word).
func columnRef(where, opt string, header []string, ncols int, ref string) (int, error) {
	byName, byIndex := readRef(header, ncols, ref)
	if byName >= 0 && byIndex >= 0 && byName != byIndex {
		ways := make([]string, 0, 2)
		for _, j := range []int{byName, byIndex} {
			if r, ok := clearRef(header, ncols, j); ok {
				ways = append(ways, fmt.Sprintf("%s=%s for column %d (%q)", opt, r, j+1, header[j]))
			}
		}
		way := "rename one of the two columns"
		if len(ways) > 0 {
			way = "name the one you mean: " + strings.Join(ways, ", or ")
		}
		return -1, fmt.Errorf("%s: %s=%s is ambiguous: it is the header name of column %d and the 0-based index of column %d; %s",
			where, opt, ref, byName+1, byIndex+1, way)
	}
	if byName >= 0 {
		return byName, nil
	}
	return byIndex, nil
}

// readRef reads ref both ways: the column of that header name and the
// column of that 0-based index (-1 for none).
func readRef(header []string, ncols int, ref string) (byName, byIndex int) {
	byName, byIndex = columnByName(header, ref), -1
	if k, err := strconv.Atoi(ref); err == nil && k >= 0 && k < ncols {
		byIndex = k
	}
	return byName, byIndex
}

// clearRef is a reference to column j that names no other column (its
// header name, else its index), and whether there is one.
func clearRef(header []string, ncols, j int) (string, bool) {
	for _, r := range []string{header[j], strconv.Itoa(j)} {
		if n, i := readRef(header, ncols, r); (n == j || n < 0) && (i == j || i < 0) && n+i > -2 {
			return r, true
		}
	}
	return "", false
}

// nameAColumn says how to name a column of a table: its header's names,
// or an index below ncols.
func nameAColumn(header []string, ncols int) string {
	if len(header) == 0 {
		return fmt.Sprintf("name it by its 0-based index, 0 to %d", ncols-1)
	}
	names := header
	if len(names) > 8 {
		names = append(append([]string(nil), names[:8]...), "…")
	}
	return fmt.Sprintf("name it by its header name (%s) or its 0-based index, 0 to %d", strings.Join(names, ", "), ncols-1)
}

// columnByName finds a column by header name, compared without case; -1
// when there is none.
func columnByName(header []string, name string) int {
	for j, f := range header {
		if strings.EqualFold(f, name) {
			return j
		}
	}
	return -1
}

// labelled turns a table into a labelled Dataset: column labelCol gives the
// labels (mapped to classes as opt.Classes says), every other column is a
// feature, encoded with opt.Columns (a test file) or with columns fitted on
// this table.
func (t *table) labelled(labelCol int, opt TabularOptions) (*Dataset, error) {
	if t.rows == 0 {
		return nil, fmt.Errorf("%s: no data rows after the header", t.name)
	}
	lc := t.cols[labelCol]
	labels := make([]string, t.rows)
	lines := make([]int, t.rows)
	for i := range labels {
		labels[i] = lc.value(i)
		if t.na.missing(labels[i]) {
			return nil, missingError(t, i, labelCol, "label")
		}
		lines[i] = i + 1
		if t.lines != nil {
			lines[i] = t.lines[i]
		}
	}
	y, classes, err := classIndex(t.name, labels, lines, opt.Classes)
	if err != nil {
		return nil, err
	}
	var feats []int
	for j := range t.cols {
		if j != labelCol {
			feats = append(feats, j)
		}
	}
	columns := opt.Columns
	if columns == nil {
		columns = fitColumns(t, feats)
	} else if feats, err = matchColumns(t, feats, columns, "test file"); err != nil {
		return nil, err
	}
	x, err := encode(t, feats, columns)
	if err != nil {
		return nil, err
	}
	d := &Dataset{Name: t.name, X: narrow(x), Raw: x, Y: y, N: len(y), D: width(columns), NumClasses: len(classes), ClassNames: classes}
	if hasCategorical(columns) || t.header || t.parquet {
		d.Columns = columns
	}
	return d, nil
}

// hasCategorical reports whether any column is categorical.
func hasCategorical(columns []Column) bool {
	for _, c := range columns {
		if c.Categorical() {
			return true
		}
	}
	return false
}

// narrow returns x in float32.
func narrow(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

// ReadCSVFile reads the CSV file at path.
func ReadCSVFile(path string, opt TabularOptions) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadCSV(f, path, opt)
}
