package data

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
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
}

var defaultLabelNames = []string{"label", "class", "y", "target"}

// ReadCSV decodes comma-separated numeric data with one label column. The
// first row is a header when any of its fields is not a number. Every row
// must have the same number of fields; features must be finite numbers;
// labels are mapped to classes 0…K−1 as TabularOptions.Classes says. Errors
// name the line (and column) that broke a rule.
func ReadCSV(r io.Reader, name string, opt TabularOptions) (*Dataset, error) {
	cr := csv.NewReader(r)
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
	if len(first) > 0 { // a UTF-8 byte-order mark hid the first header (issue 27)
		first[0] = strings.TrimPrefix(first[0], "\ufeff")
	}
	header := false
	for _, f := range first {
		if _, err := strconv.ParseFloat(strings.TrimSpace(f), 64); err != nil {
			header = true
			break
		}
	}
	if len(first) < 2 {
		return nil, fmt.Errorf("%s: line 1: %d column(s), want a label column and at least one feature", name, len(first))
	}
	labelCol := -1
	if opt.LabelColumn != "" {
		if k, err := strconv.Atoi(opt.LabelColumn); err == nil {
			labelCol = k
		} else if header {
			for j, f := range first {
				if strings.EqualFold(strings.TrimSpace(f), opt.LabelColumn) {
					labelCol = j
				}
			}
		}
		if labelCol < 0 || labelCol >= len(first) {
			return nil, fmt.Errorf("%s: line 1: no label column %q among %d columns", name, opt.LabelColumn, len(first))
		}
	} else if header {
	search:
		for _, want := range defaultLabelNames {
			for j, f := range first {
				if strings.EqualFold(strings.TrimSpace(f), want) {
					labelCol = j
					break search
				}
			}
		}
		if labelCol < 0 {
			return nil, fmt.Errorf("%s: line 1: header has no column named %s; name the label column as csv:TRAIN[,TEST]@COLUMN (a header name or a 0-based index)", name, strings.Join(defaultLabelNames, ", "))
		}
	} else {
		labelCol = 0
	}
	d := len(first) - 1
	var x []float64
	var labels []string
	var lines []int
	row := func(rec []string, line int) error {
		for j, f := range rec {
			f = strings.TrimSpace(f)
			if j == labelCol {
				if f == "" {
					return fmt.Errorf("%s: line %d, column %d: empty label", name, line, j+1)
				}
				labels = append(labels, f)
				continue
			}
			v, err := strconv.ParseFloat(f, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > math.MaxFloat32 {
				return fmt.Errorf("%s: line %d, column %d: feature %q is not a finite float32 number", name, line, j+1, f)
			}
			x = append(x, v)
		}
		lines = append(lines, line)
		return nil
	}
	if !header {
		if err := row(first, 1); err != nil {
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
		if err := row(rec, line); err != nil {
			return nil, err
		}
	}
	if len(labels) == 0 {
		return nil, fmt.Errorf("%s: no data rows after the header", name)
	}
	y, classes, err := classIndex(name, labels, lines, opt.Classes)
	if err != nil {
		return nil, err
	}
	return &Dataset{Name: name, X: narrow(x), Raw: x, Y: y, N: len(y), D: d, NumClasses: len(classes), ClassNames: classes}, nil
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
