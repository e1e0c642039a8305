package data

import (
	"fmt"
	"sort"
	"strconv"
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
			return nil, nil, fmt.Errorf("%s: line %d: label %q is not one of the %d training classes %v", name, lines[i], l, len(classes), classes)
		}
		y[i] = c
	}
	return y, classes, nil
}
