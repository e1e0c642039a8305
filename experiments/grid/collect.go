package grid

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// SpecNames returns the names of every spec the cell belongs to (Spec and
// Specs), sorted and without repeats.
func (r *Result) SpecNames() []string {
	names := append([]string{r.Spec}, r.Specs...)
	sort.Strings(names)
	out := names[:0]
	for i, n := range names {
		if n != "" && (i == 0 || n != names[i-1]) {
			out = append(out, n)
		}
	}
	return out
}

// withSpecs returns r when it already belongs to every spec of names, else
// a copy whose Specs name the others too, and whether it added any.
func (r *Result) withSpecs(names []string) (*Result, bool) {
	have := map[string]bool{}
	for _, n := range r.SpecNames() {
		have[n] = true
	}
	var add []string
	for _, n := range names {
		if !have[n] {
			add = append(add, n)
			have[n] = true
		}
	}
	if len(add) == 0 {
		return r, false
	}
	c := *r
	c.Specs = append(append([]string(nil), r.Specs...), add...)
	sort.Strings(c.Specs)
	return &c, true
}

// Damage is a cell file that holds no finished cell: truncated, edited, or
// named for another key.
type Damage struct {
	Path string
	Err  error
}

// Error says what is wrong with the file and how to repair it (one
// truncated cell once made report and merge fail with "unexpected EOF" and
// no hint).
func (d Damage) Error() string {
	store := filepath.Dir(filepath.Dir(d.Path))
	return fmt.Sprintf("damaged cell file %s (%v): `llpfc run SPEC --results %s` sets it aside in %s and runs the cell again; or move the file away",
		d.Path, d.Err, store, filepath.Join(store, "damaged"))
}

// Scan reads every cell file of the store: the finished cells, sorted by
// key, and the damaged files, which it leaves where they are. Hidden files
// (temporary files of an interrupted write) are skipped.
func (s *Store) Scan() ([]*Result, []Damage, error) {
	ents, err := os.ReadDir(filepath.Join(s.Dir, "cells"))
	if err != nil {
		return nil, nil, fmt.Errorf("results directory %s: %w", s.Dir, err)
	}
	var out []*Result
	var damaged []Damage
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ".json") {
			continue
		}
		path := filepath.Join(s.Dir, "cells", n)
		r, err := readResult(path)
		if err != nil {
			damaged = append(damaged, Damage{Path: path, Err: err})
			continue
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, damaged, nil
}

// All reads every result, sorted by key; a damaged cell file is an error
// that names it and says how to repair it (Scan reads past them).
func (s *Store) All() ([]*Result, error) {
	out, damaged, err := s.Scan()
	if err != nil {
		return nil, err
	}
	if len(damaged) > 0 {
		return nil, damaged[0]
	}
	return out, nil
}

// Collection is the finished cells of several stores read together, each
// key once (a store given twice, or a shard beside the merged store, once
// counted its cells twice).
type Collection struct {
	// Results are the cells, sorted by key; a cell found in several stores
	// belongs to every spec any of them names (Result.SpecNames).
	Results []*Result
	// From lists, per key, the stores that hold the cell.
	From map[string][]string
	// Damaged are the damaged cell files, left out.
	Damaged []Damage
	// Failed are the stores' failure records (Failure), each key once,
	// sorted by key, leaving out a cell any of the stores holds finished.
	Failed []*Failure
}

// ConflictError is a key whose results in two stores differ in outcome
// (Result.SameOutcome).
type ConflictError struct {
	Key        string
	DirA, DirB string
	AccA, AccB float64
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("cell %s: conflicting results in %s (test accuracy %v) and %s (test accuracy %v): one configuration, two outcomes; remove the wrong file or keep the stores apart",
		e.Key, e.DirA, e.AccA, e.DirB, e.AccB)
}

// Collect reads the stores (a directory named twice is read once) and
// returns their cells, each key once. Two results of one key must have the
// same outcome, else the error is a *ConflictError.
func Collect(stores ...*Store) (*Collection, error) {
	col := &Collection{From: map[string][]string{}}
	at := map[string]int{}
	var failed []*Failure
	seenDir := map[string]bool{}
	for _, st := range stores {
		id := filepath.Clean(st.Dir)
		if abs, err := filepath.Abs(st.Dir); err == nil {
			id = abs
		}
		if seenDir[id] {
			continue
		}
		seenDir[id] = true
		rs, damaged, err := st.Scan()
		if err != nil {
			return nil, err
		}
		col.Damaged = append(col.Damaged, damaged...)
		fs, err := st.Failures()
		if err != nil {
			return nil, err
		}
		failed = append(failed, fs...)
		for _, r := range rs {
			i, ok := at[r.Key]
			if !ok {
				at[r.Key] = len(col.Results)
				col.Results = append(col.Results, r)
				col.From[r.Key] = []string{st.Dir}
				continue
			}
			prev := col.Results[i]
			if !prev.SameOutcome(r) {
				return nil, &ConflictError{Key: r.Key, DirA: col.From[r.Key][0], DirB: st.Dir,
					AccA: prev.Metrics.TestAccuracy, AccB: r.Metrics.TestAccuracy}
			}
			col.Results[i], _ = prev.withSpecs(r.SpecNames())
			col.From[r.Key] = append(col.From[r.Key], st.Dir)
		}
	}
	sort.Slice(col.Results, func(i, j int) bool { return col.Results[i].Key < col.Results[j].Key })
	seenFail := map[string]bool{}
	for _, f := range failed {
		if _, finished := at[f.Key]; !finished && !seenFail[f.Key] {
			seenFail[f.Key] = true
			col.Failed = append(col.Failed, f)
		}
	}
	sort.Slice(col.Failed, func(i, j int) bool { return col.Failed[i].Key < col.Failed[j].Key })
	return col, nil
}

// Merge copies every result of the stores srcs into dst (MergeStores) and
// returns the number of cell files written.
func Merge(dst *Store, srcs ...*Store) (int, error) {
	sum, err := MergeStores(dst, srcs...)
	return sum.Written, err
}

// MergeSummary is what MergeStores did.
type MergeSummary struct {
	// Written counts the cell files written to the destination: the cells
	// it lacked, and its cells whose list of specs grew.
	Written int
	// Damaged are the damaged cell files of the sources, not merged.
	Damaged []Damage
	// Failures counts the failure records (Failure) copied to the
	// destination: of cells no store holds finished, which it lacked.
	Failures int
}

// MergeStores copies every finished cell of the stores srcs into dst. A key
// present in several stores (or already in dst) must have the same outcome
// everywhere (Result.SameOutcome); the merged cell belongs to every spec any
// of them names, so the result does not depend on the order of the stores
// (a cell once belonged to whichever spec wrote it first). The cells of one spec must stay comparable
// (checkComparable, what a report's table requires): stores that give one
// spec name different settings are refused, naming them. On a refusal
// nothing is written (dst is created only once nothing conflicts). Damaged
// cell files of the sources are left out and listed in the summary. The
// failure records of cells no store finished are copied too, so a merged
// store still says why they are missing.
func MergeStores(dst *Store, srcs ...*Store) (MergeSummary, error) {
	var sum MergeSummary
	existing := map[string]*Result{}
	all := srcs
	if _, err := os.Stat(filepath.Join(dst.Dir, "cells")); err == nil {
		rs, damaged, err := dst.Scan()
		if err != nil {
			return sum, err
		}
		if len(damaged) > 0 {
			return sum, fmt.Errorf("destination %s: %w", dst.Dir, damaged[0])
		}
		for _, r := range rs {
			existing[r.Key] = r
		}
		all = append([]*Store{dst}, srcs...)
	}
	col, err := Collect(all...)
	if err != nil {
		return sum, err
	}
	sum.Damaged = col.Damaged
	if err := col.checkSpecs(); err != nil {
		return sum, err
	}
	if _, err := OpenStore(dst.Dir); err != nil {
		return sum, err
	}
	for _, r := range col.Results {
		if old, ok := existing[r.Key]; ok && len(old.SpecNames()) == len(r.SpecNames()) {
			continue
		}
		if err := dst.Put(r); err != nil {
			return sum, err
		}
		sum.Written++
	}
	for _, f := range col.Failed {
		if _, err := os.Stat(dst.failurePath(f.Key)); err == nil {
			continue
		}
		if err := dst.PutFailure(f); err != nil {
			return sum, err
		}
		sum.Failures++
	}
	return sum, nil
}

// checkSpecs checks that the cells of each spec, table by table, are
// comparable (Tables), as a report requires of them.
func (col *Collection) checkSpecs() error {
	_, err := Tables(col.Results, col.From)
	return err
}
