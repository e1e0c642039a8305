package data

import (
	"fmt"
	"os"
	"strings"
)

// Data sets read from files are named by a kind, their paths and options:
//
//	csv:TRAIN[,TEST][@LABEL][@categorical=COL[+COL…]][@na=SPELLING[+SPELLING…]]
//	parquet:TRAIN[,TEST][@LABEL][@categorical=COL[+COL…]][@na=…]
//	libsvm:TRAIN[,TEST]
//	bags:PATH[@normalize][@bag=COL][@label=COL][@categorical=COL[+COL…]][@na=…]
//	npz:PATH
//
// where a bag-only PATH is an .npz file, a directory, or
// TRAIN,PROPORTIONS[,TEST] (CSV or Parquet files; ReadBagOnly). LABEL (or
// label=COL) is the label column; a column is named by its header name or
// its 0-based index (columnRef: when the two name different columns, the
// name is refused as ambiguous). na lists the file's spellings of a
// missing value, as written (an empty field is always one), in place of
// missingSpellings: bags:…@na= reads "NA" and "none" as classes. A file name may itself hold "," or "@", so
// every reading of the name is tried, the one with the most options first,
// and the first whose paths all exist wins; when none does, the reading
// with the most options stands, for the error to name its missing file.

// sourceSpec is a parsed csv:, parquet:, libsvm: or bags: name.
type sourceSpec struct {
	kind  string
	paths []string
	// label is the label column (of the test file, for bags:); bag the bag
	// id column of a bag-only table; categorical the columns read as
	// categories whatever their values.
	label, bag  string
	categorical []string
	// na, when given (@na=…), is the file's spellings of a missing value,
	// replacing missingSpellings: a class or bag id spelled "NA" or "none"
	// is then read as written.
	na naRule
	// normalize rescales a bag-only set's proportion rows that do not sum
	// to 1 (bags: only; otherwise such a row is an error).
	normalize bool
}

// fileKinds are the kinds of data set named by files.
var fileKinds = []string{"csv", "parquet", "libsvm", "bags", "npz"}

// isFileKind reports whether name is KIND:… for a kind of fileKinds.
func isFileKind(name string) bool {
	kind, _, ok := strings.Cut(name, ":")
	return ok && contains(fileKinds, kind)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// maxPaths is how many comma-separated paths a kind takes.
func maxPaths(kind string) int {
	switch kind {
	case "bags":
		return 3
	case "npz":
		return 1
	}
	return 2
}

// parseSource parses a csv:, parquet:, libsvm: or bags: data set name (see
// the comment above).
func parseSource(name string) (sourceSpec, error) {
	kind, body, ok := strings.Cut(name, ":")
	if !ok || !contains(fileKinds, kind) {
		return sourceSpec{}, fmt.Errorf("%q is not a file data set: want csv:, parquet:, libsvm: or bags:", name)
	}
	type reading struct {
		base string
		opts []string
	}
	readings := []reading{{body, nil}}
	base := body
	var opts []string
	for kind != "libsvm" && kind != "npz" {
		k := strings.LastIndexByte(base, '@')
		// A "/" or "," after the last "@" is a path's (a folder named
		// a@b), but for @na=, whose spellings may hold one (N/A, #N/A).
		if k < 0 || strings.ContainsAny(base[k+1:], "/,") && !strings.HasPrefix(base[k+1:], "na=") {
			break
		}
		opts = append([]string{base[k+1:]}, opts...)
		base = base[:k]
		readings = append([]reading{{base, append([]string(nil), opts...)}}, readings...)
	}
	var first *sourceSpec
	var firstErr error
	for _, r := range readings {
		spec, err := parseOptions(name, kind, r.opts)
		if err != nil {
			if firstErr == nil && first == nil {
				firstErr = err
			}
			continue
		}
		spec.kind = kind
		if paths, ok := existingPaths(r.base, maxPaths(kind)); ok {
			spec.paths = paths
			return spec, nil
		}
		if first == nil {
			spec.paths = strings.SplitN(r.base, ",", maxPaths(kind))
			first = &spec
			if err := tooManyPaths(name, kind, r.base); err != nil && firstErr == nil {
				firstErr = err
			}
		}
	}
	if firstErr != nil {
		return sourceSpec{}, firstErr
	}
	if first.paths[0] == "" {
		return sourceSpec{}, fmt.Errorf("%s: no file named: want %s", name, kindSyntax(kind))
	}
	return *first, nil
}

// tooManyPaths is the error of a name whose comma-separated parts are all
// files but more than its kind takes (bags:A,B,C,D once said "open C,D:
// no such file"), or nil.
func tooManyPaths(name, kind, base string) error {
	parts := strings.Split(base, ",")
	if len(parts) <= maxPaths(kind) {
		return nil
	}
	for _, p := range parts {
		if _, err := os.Stat(p); p == "" || err != nil {
			return nil
		}
	}
	return fmt.Errorf("%s: %d files named, but %s: takes at most %d: want %s", name, len(parts), kind, maxPaths(kind), kindSyntax(kind))
}

// kindSyntax is the syntax of a kind's names, for messages.
func kindSyntax(kind string) string {
	switch kind {
	case "bags":
		return "bags:PATH (an .npz file, a directory, or TRAIN,PROPORTIONS[,TEST] tables)"
	case "libsvm":
		return "libsvm:TRAIN[,TEST]"
	case "npz":
		return "npz:PATH (an .npz file or a directory of .npy files)"
	}
	return kind + ":TRAIN[,TEST][@LABEL]"
}

// parseOptions reads the @-options of a name of kind. An option that
// names one thing (the label column, the bag id column, the missing
// values) given twice is refused, naming both: the last one won, without a
// word.
func parseOptions(name, kind string, opts []string) (sourceSpec, error) {
	var s sourceSpec
	said := map[string]string{} // option → how it was first written
	once := func(what, o string) error {
		if first, dup := said[what]; dup {
			return fmt.Errorf("%s: the %s is named twice (@%s and @%s): name it once", name, what, first, o)
		}
		said[what] = o
		return nil
	}
	for _, o := range opts {
		key, val, hasVal := strings.Cut(o, "=")
		var err error
		switch {
		case o == "":
			if kind == "bags" {
				return s, fmt.Errorf("%s: empty option after @: want %s", name, optionSyntax(kind))
			}
			return s, fmt.Errorf("%s: empty label column after @: want %s:TRAIN[,TEST]@COLUMN", name, kind)
		case o == "normalize" && kind == "bags":
			s.normalize = true
		case hasVal && key == "categorical" && val != "":
			s.categorical = append(s.categorical, strings.Split(val, "+")...)
		case hasVal && key == "label" && val != "":
			s.label, err = val, once("label column", o)
		case hasVal && key == "bag" && val != "" && kind == "bags":
			s.bag, err = val, once("bag id column", o)
		case hasVal && key == "na":
			s.na, err = parseNA(val), once("spelling of a missing value", o)
		case !hasVal && kind != "bags":
			s.label, err = o, once("label column", o) // csv:…@COLUMN, as before
		default:
			return s, fmt.Errorf("%s: option %q: want %s", name, o, optionSyntax(kind))
		}
		if err != nil {
			return s, err
		}
	}
	return s, nil
}

// optionSyntax lists the @-options of a kind, for messages.
func optionSyntax(kind string) string {
	if kind == "bags" {
		return "normalize, bag=COL, label=COL, categorical=COL[+COL…] or na=SPELLING[+SPELLING…]"
	}
	return "LABEL, label=COL, categorical=COL[+COL…] or na=SPELLING[+SPELLING…]"
}

// existingPaths splits base into at most max comma-separated paths that all
// exist (a file, or for a single path also a directory), trying the whole
// first, then every split.
func existingPaths(base string, max int) ([]string, bool) {
	exists := func(p string) bool {
		_, err := os.Stat(p)
		return p != "" && err == nil
	}
	if exists(base) {
		return []string{base}, true
	}
	var try func(rest string, left int) []string
	try = func(rest string, left int) []string {
		if exists(rest) {
			if st, _ := os.Stat(rest); !st.IsDir() {
				return []string{rest}
			}
		}
		if left == 1 {
			return nil
		}
		for i := 0; i < len(rest); i++ {
			if rest[i] != ',' || !exists(rest[:i]) {
				continue
			}
			if st, _ := os.Stat(rest[:i]); st.IsDir() {
				continue
			}
			if tail := try(rest[i+1:], left-1); tail != nil {
				return append([]string{rest[:i]}, tail...)
			}
		}
		return nil
	}
	if p := try(base, max); len(p) > 1 {
		return p, true
	}
	return nil, false
}
