package data

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// The table layout of a bag-only set (see bagonly.go): a training table of
// features and bag ids, a proportions table, an optional labelled test
// table, CSV or Parquet.

// readTableFile reads a CSV or Parquet file (by extension) into a table.
func readTableFile(path string, na naRule, text csvTextColumns) (*table, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return readCSVTable(f, path, na, text)
	case ".parquet", ".pq":
		return readParquetTable(f, size, path, na, text)
	}
	return nil, fmt.Errorf("%s: want a .csv or .parquet file", path)
}

// readBagTables reads the table layout: the training table (features and
// bag ids), the proportions table and the optional test table.
func readBagTables(src sourceSpec, trainPath, propPath, testPath string) (train, test *Dataset, err error) {
	bagCol := -1
	tr, err := readTableFile(trainPath, src.na, func(header []string, ncols int) (map[int]colMode, error) {
		if bagCol, err = findBagColumn(trainPath, header, ncols, src.bag); err != nil {
			return nil, err
		}
		for j, h := range header {
			if j != bagCol && contains(defaultLabelNames, strings.ToLower(h)) {
				return nil, fmt.Errorf("%s: column %q: a bag-only training file holds no instance labels (columns named %s are labels); drop the column, or rename it if it is a feature",
					trainPath, h, strings.Join(defaultLabelNames, ", "))
			}
		}
		if ncols < 2 {
			return nil, fmt.Errorf("%s: %d column(s), want a bag id column and at least one feature", trainPath, ncols)
		}
		text, err := declaredText(trainPath, header, ncols, TabularOptions{Categorical: src.categorical})
		if err != nil {
			return nil, err
		}
		text[bagCol] = asText
		return text, nil
	})
	if err != nil {
		return nil, nil, err
	}
	if tr.rows == 0 {
		return nil, nil, fmt.Errorf("%s: no data rows", trainPath)
	}
	var feats []int
	for j := range tr.cols {
		if j != bagCol {
			feats = append(feats, j)
		}
	}
	train = &Dataset{Name: trainPath, N: tr.rows, Columns: fitColumns(tr, feats)}
	train.D = width(train.Columns)
	if train.Raw, err = encode(tr, feats, train.Columns); err != nil {
		return nil, nil, err
	}
	train.X = narrow(train.Raw)
	classes, err := tableBags(src, tr, bagCol, propPath, train)
	if err != nil {
		return nil, nil, err
	}
	train.ClassNames = classes
	if testPath != "" {
		test, err = readBagTableTest(src, testPath, train)
	}
	return train, test, err
}

// findBagColumn finds the bag id column of a bag-only table: want (a name or
// 0-based index), else the column named bag, bag_id or bags, else column
// 0 of a file without a header.
func findBagColumn(path string, header []string, ncols int, want string) (int, error) {
	if want != "" {
		j, err := columnRef(path, "bags:…@bag", header, ncols, want)
		if err != nil || j >= 0 {
			return j, err
		}
		return -1, fmt.Errorf("%s: no bag id column %q among %d columns: %s", path, want, ncols, nameAColumn(header, ncols))
	}
	if header == nil {
		return 0, nil
	}
	if j, err := bagRole.find(path, header, "bags"); j >= 0 || err != nil {
		return j, err
	}
	return -1, fmt.Errorf("%s: no column named %s: name the bag id column (…@bag=COLUMN, a header name or 0-based index)", path, strings.Join(bagColumnNames, ", "))
}

// tableBags reads the proportions table and sets train's bags; it returns
// the class names (the proportions' column names).
func tableBags(src sourceSpec, tr *table, bagCol int, propPath string, train *Dataset) ([]string, error) {
	pbag := -1
	pt, err := readTableFile(propPath, src.na, func(header []string, ncols int) (map[int]colMode, error) {
		if header == nil { // its first line is numbers: class names without a bag column (once read as rows: "line 10 repeats bag 8")
			return nil, fmt.Errorf("%s: line 1 holds only numbers, so it reads as a row, not a header: a proportions table's header names its bag id column (%s) and its classes, e.g. bag,0,1,2",
				propPath, strings.Join(bagColumnNames, ", "))
		}
		want := src.bag
		if want != "" && columnByName(header, want) < 0 {
			want = "" // the training file's bag column, by index or by a name this table lacks
		}
		var err error
		if pbag, err = findBagColumn(propPath, header, ncols, want); err != nil {
			return nil, err
		}
		if ncols < 3 {
			return nil, fmt.Errorf("%s: %d column(s), want a bag id column and a column per class (at least 2)", propPath, ncols)
		}
		modes := map[int]colMode{pbag: asText}
		for j := 0; j < ncols; j++ {
			if j != pbag {
				modes[j] = asNumber
			}
		}
		return modes, nil
	})
	if err != nil {
		return nil, err
	}
	var classes []string
	var classCols []int
	for j, c := range pt.cols {
		if j == pbag {
			continue
		}
		if c.text {
			return nil, fmt.Errorf("%s: %s: %q is not a number: want a proportion or count in every class column", propPath, pt.at(c.firstRow, j), c.firstText)
		}
		if containsFold(bagColumnNames, pt.names[j]) {
			return nil, fmt.Errorf("%s: column %q goes by a bag id's name (%s) but would be read as a class beside the bag id column %q: a proportions table has one bag id column; drop the other or rename it",
				propPath, pt.names[j], strings.Join(bagColumnNames, ", "), pt.names[pbag])
		}
		classes = append(classes, pt.names[j])
		classCols = append(classCols, j)
	}
	if err := distinctClasses(propPath, classes); err != nil {
		return nil, err
	}
	if pt.rows == 0 {
		return nil, fmt.Errorf("%s: no data rows", propPath)
	}
	if err := noMissing(pt, pbag); err != nil {
		return nil, err
	}
	if err := noMissing(tr, bagCol); err != nil {
		return nil, err
	}
	rows := make([]propRow[string], pt.rows)
	for i := range rows {
		rows[i] = propRow[string]{id: canonicalID(pt.cols[pbag].str[i]), where: pt.where(i), vals: make([]float64, len(classCols))}
		for c, j := range classCols {
			rows[i].vals[c] = pt.cols[j].num[i]
		}
	}
	bc := tr.cols[bagCol]
	train.Bags, err = buildBags(bagSource[string]{
		instFile: tr.name, n: tr.rows, id: func(i int) string { return canonicalID(bc.str[i]) },
		where:    func(i int) string { return tr.where(i) },
		propFile: propPath, rows: rows, classes: len(classes), classNames: classes, normalize: src.normalize,
		idText: func(id string) string { return strconv.Quote(id) },
		intID: func(id string) (int, bool) {
			v, err := strconv.Atoi(id)
			return v, err == nil
		},
	})
	if err != nil {
		return nil, err
	}
	train.NumClasses = len(classes)
	return classes, nil
}

// distinctClasses refuses class names of a proportions header that name
// one class twice as the test labels are looked up (classLookup): the same
// number written two ways ("1" and "1.0": both were once accepted as two
// classes, and the test labels went to one of them).
// Names repeated as written are refused with the header (checkHeader).
func distinctClasses(path string, classes []string) error {
	num := map[float64]string{}
	for _, c := range classes {
		v, err := strconv.ParseFloat(c, 64)
		if err != nil {
			continue
		}
		if prev, dup := num[v]; dup {
			return fmt.Errorf("%s: class columns %q and %q are the same number, so a test label %q would match both: write each class once", path, prev, c, c)
		}
		num[v] = c
	}
	return nil
}

// canonicalID writes an integer bag id in decimal ("007" and "7" are one
// bag); any other id stays as written.
func canonicalID(s string) string {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return strconv.FormatInt(v, 10)
	}
	return s
}

// readBagTableTest reads the labelled test table of a bag-only set: the
// training file's feature columns and a label column whose values are
// class names of the proportions table.
func readBagTableTest(src sourceSpec, path string, train *Dataset) (*Dataset, error) {
	labelCol := -1
	t, err := readTableFile(path, src.na, func(header []string, ncols int) (map[int]colMode, error) {
		var text map[int]colMode
		var err error
		labelCol, text, err = labelledModes(path, "bags", header, ncols, src.label, TabularOptions{Columns: train.Columns})
		return text, err
	})
	if err != nil {
		return nil, err
	}
	if t.rows == 0 {
		return nil, fmt.Errorf("%s: no data rows", path)
	}
	var feats []int
	for j := range t.cols {
		if j != labelCol {
			feats = append(feats, j)
		}
	}
	if feats, err = matchColumns(t, feats, train.Columns, "test file"); err != nil {
		return nil, err
	}
	test := &Dataset{Name: path, N: t.rows, D: train.D, Columns: train.Columns, NumClasses: train.NumClasses, ClassNames: train.ClassNames}
	if test.Raw, err = encode(t, feats, train.Columns); err != nil {
		return nil, err
	}
	test.X = narrow(test.Raw)
	index := classLookup(train.ClassNames)
	test.Y = make([]int, t.rows)
	for i := range test.Y {
		l := t.cols[labelCol].value(i)
		c, ok := index(l)
		if !ok && t.na.missing(l) { // a class the proportions' header names ("none", "Na") is that class
			return nil, missingError(t, i, labelCol, "label")
		}
		if !ok {
			return nil, fmt.Errorf("%s: %s: label %q is not one of the classes %s (the class columns of the proportions)", path, t.at(i, labelCol), l, listSome(train.ClassNames))
		}
		test.Y[i] = c
	}
	return test, nil
}

// classLookup finds a label among class names: as written, or as the same
// number ("1.0" is class "1").
func classLookup(classes []string) func(string) (int, bool) {
	exact, num := map[string]int{}, map[float64]int{}
	for i, c := range classes {
		exact[c] = i
		if v, err := strconv.ParseFloat(c, 64); err == nil {
			num[v] = i
		}
	}
	return func(l string) (int, bool) {
		if i, ok := exact[l]; ok {
			return i, true
		}
		if v, err := strconv.ParseFloat(l, 64); err == nil {
			i, ok := num[v]
			return i, ok
		}
		return 0, false
	}
}

// noMissing refuses a missing value in the bag id column j of t.
func noMissing(t *table, j int) error {
	for i := 0; i < t.rows; i++ {
		if t.na.missing(t.cols[j].value(i)) {
			return missingError(t, i, j, "bag id")
		}
	}
	return nil
}
