package data

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// classIndex maps the original labels of a tabular file to classes 0…K−1.
// With classes == nil the classes are the file's distinct labels in
// increasing order (numeric order when every label is a number, else
// lexicographic); otherwise classes fixes the map (the test split uses the
// training split's classes, so both splits agree even when one lacks a
// class) and an unseen label is an error naming its line.
func classIndex(name string, labels []string, lines []int, classes []string) ([]int, []string, error) {
	if classes == nil {
		seen := map[string]bool{}
		for _, l := range labels {
			if !seen[l] {
				seen[l] = true
				classes = append(classes, l)
			}
		}
		numeric := true
		vals := map[string]float64{}
		for _, c := range classes {
			v, err := strconv.ParseFloat(c, 64)
			if err != nil {
				numeric = false
				break
			}
			vals[c] = v
		}
		if err := continuousLabels(name, labels, lines, classes, vals, numeric); err != nil {
			return nil, nil, err
		}
		if numeric {
			sort.Slice(classes, func(i, j int) bool { return vals[classes[i]] < vals[classes[j]] })
			// Distinct spellings of one number ("1", "1.0") would be two classes.
			for i := 1; i < len(classes); i++ {
				if vals[classes[i]] == vals[classes[i-1]] {
					return nil, nil, fmt.Errorf("%s: labels %q and %q are the same number; write each class one way", name, classes[i-1], classes[i])
				}
			}
		} else {
			sort.Strings(classes)
		}
	}
	idx := make(map[string]int, len(classes))
	for i, c := range classes {
		idx[c] = i
	}
	y := make([]int, len(labels))
	for i, l := range labels {
		c, ok := idx[l]
		if !ok {
			return nil, nil, fmt.Errorf("%s: line %d: label %q is not one of the %d training classes %s%s", name, lines[i], l, len(classes), listSome(classes), SameNumberHint(l, classes))
		}
		y[i] = c
	}
	return y, classes, nil
}

// SameNumberHint says, for a label that is not a training class, which
// training class writes the same number another way ("1" against "1.0":
// labels are classes by their text), or "". train's test split and
// predict's labels both say it.
func SameNumberHint(label string, classes []string) string {
	v, err := strconv.ParseFloat(label, 64)
	if err != nil {
		return ""
	}
	for _, c := range classes {
		if w, err := strconv.ParseFloat(c, 64); err == nil && w == v {
			return fmt.Sprintf(": the training file writes this number as %q; write the labels the same way in both files", c)
		}
	}
	return ""
}

// maxClasses is the most classes a label column may hold: a column with
// more distinct values than this and than half its rows is not a label.
const maxClasses = 100

// continuousLabels returns an error when the labels of a training file
// cannot be classes (a continuous column was once read as 256 classes
// and listed them all): a number that is not an integer, or more distinct
// values than maxClasses and than half the rows.
func continuousLabels(name string, labels []string, lines []int, classes []string, vals map[string]float64, numeric bool) error {
	const hint = "a label column holds classes; name it as csv:TRAIN[,TEST]@COLUMN (a header name or a 0-based index)"
	if numeric {
		for i, l := range labels {
			if v := vals[l]; v != math.Trunc(v) {
				return fmt.Errorf("%s: line %d: label %q is not an integer: the label column looks continuous; %s", name, lines[i], l, hint)
			}
		}
	}
	if len(classes) > maxClasses && 2*len(classes) > len(labels) {
		return fmt.Errorf("%s: the label column has %d distinct values in %d rows (%s): it does not look like classes; %s",
			name, len(classes), len(labels), listSome(classes), hint)
	}
	return nil
}

// listSome lists the first 10 of xs, and how many there are in all.
func listSome(xs []string) string {
	if len(xs) <= 10 {
		return "[" + strings.Join(xs, " ") + "]"
	}
	return fmt.Sprintf("[%s … %d in all]", strings.Join(xs[:10], " "), len(xs))
}
