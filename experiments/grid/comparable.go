package grid

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/llpfc/llpfc/experiments"
)

// methodFields are the settings a table may give each method its own value
// of (the appendix's per-method hyperparameters, set by a spec's overrides):
// the minibatch (instances for LLPFC, bags for the baselines), LLPFC's
// regrouping period, group weights and compat mode, LLP-VAT's ε and ξ, the
// KL loss's scale, LLP-PVC's likelihood.
var methodFields = map[string]bool{
	"hyper.batch_size": true, "hyper.regroup_every": true, "hyper.weights": true, "hyper.compat": true,
	"hyper.vat_eps": true, "hyper.vat_xi": true, "hyper.kl_scale": true,
	"hyper.vat_rampup": true, "hyper.pvc_likelihood": true,
}

// perBagSizeFields are the settings one method's cells may set per bag
// size: the minibatch, which a step-matched grid gives in bags so that a
// step sees about the same instances at every bag size (stepsSpec: 2 bags
// of 64, 1 of 256). Cells of one bag size, which the paired comparisons
// hold side by side, still share it; a report states it per bag size.
var perBagSizeFields = map[string]bool{"hyper.batch_size": true}

// newerFields are the settings each newer method (NewerMethods: EasyLLP,
// MixBag, LLP-PVC) takes from its authors' code (AuthorsHyper):
// its optimizer and rate may differ from the table's, and the other methods
// must still agree among themselves on them.
var newerFields = map[string]bool{
	"hyper.optimizer": true, "hyper.lr": true, "hyper.momentum": true, "hyper.weight_decay": true,
	"hyper.beta1": true, "hyper.beta2": true, "hyper.flood": true,
}

// withoutOwnSettings is fields less the methods' own settings declared
// without a field (hyper.settings.NAME, methods.Setting), which are
// per-method as methodFields are: a method's cells state them, another
// method's cannot (whether or not the binary reading them declares them).
func withoutOwnSettings(fields []string) []string {
	return slices.DeleteFunc(fields, func(f string) bool { return strings.HasPrefix(f, "hyper.settings.") })
}

// axisFields are the grid's own axes, which vary across a table's cells.
var axisFields = map[string]bool{"method": true, "bag_size": true, "seed": true}

// configDiff returns the dotted names of the fields in which a and b differ,
// leaving out those in skip, sorted.
func configDiff(a, b experiments.Config, skip ...map[string]bool) []string {
	fa, fb := a.Flat(), b.Flat()
	var out []string
	for k := range union(fa, fb) {
		if fa[k] == fb[k] {
			continue
		}
		skipped := false
		for _, s := range skip {
			skipped = skipped || s[k]
		}
		if !skipped {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func union(a, b map[string]string) map[string]bool {
	u := map[string]bool{}
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}

// TableKey identifies a table of a report: the cells of one spec, learner,
// model, data set and protocol, methods × bag sizes.
type TableKey struct {
	Spec, Learner, Model, Dataset, Protocol string
}

// Title names the table.
func (k TableKey) Title() string {
	return fmt.Sprintf("%s: %s on %s (learner %s, protocol %s)", k.Spec, k.Model, k.Dataset, k.Learner, k.Protocol)
}

// TableCells are the cells of one table, in the order of the results they
// were sorted from.
type TableCells struct {
	Key     TableKey
	Results []*Result
}

// Tables sorts results into the tables of a report, in the order each table
// is first met: one table per (spec, learner, model, data set, protocol), a
// cell in the table of every spec it belongs to (Result.SpecNames). Within a
// table each (method, bag size) slot must hold results of one configuration
// (up to the seed), and the cells must be comparable (checkComparable);
// otherwise the error names both keys. from, when not nil, names the stores
// that hold each key, for the errors (Collection.From). A merge checks its
// stores with it (MergeStores), and a report builds its tables on it.
func Tables(results []*Result, from map[string][]string) ([]TableCells, error) {
	type slot struct {
		method  string
		bagSize int
	}
	at := map[TableKey]int{}
	var out []TableCells
	proto := map[TableKey]map[slot]*Result{} // first result of each slot: its config up to the seed
	for _, r := range results {
		c := r.Config
		specs := r.SpecNames()
		if len(specs) == 0 {
			specs = []string{""}
		}
		for _, spec := range specs {
			k := TableKey{spec, c.Learner, c.Model, c.Dataset, c.Protocol}
			i, ok := at[k]
			if !ok {
				i, at[k] = len(out), len(out)
				out = append(out, TableCells{Key: k})
				proto[k] = map[slot]*Result{}
			}
			s := slot{c.Method, c.BagSize}
			if p, ok := proto[k][s]; ok {
				a, b := p.Config, c
				a.Seed, b.Seed = 0, 0
				if !reflect.DeepEqual(a, b) {
					return nil, incomparable(k, fmt.Sprintf("%s at bag size %d: results of two configurations,", c.Method, c.BagSize), p, r, configDiff(a, b), from)
				}
			} else {
				proto[k][s] = r
			}
			out[i].Results = append(out[i].Results, r)
		}
	}
	// Only comparable cells share a table.
	for _, tc := range out {
		if err := checkComparable(tc.Key, tc.Results, from); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkComparable refuses to put a table's cells side by side unless they
// differ only in the grid's axes (method, bag size, seed) and, between
// methods, in the per-method settings of methodFields (and, for a newer
// method, its authors' optimizer of newerFields): one method's cells
// must share every other setting (within a method even the per-method
// ones, but for its minibatch across bag sizes: perBagSizeFields), and
// every method must share the settings that are not per-method (data,
// points, normalization, epochs, optimizer, schedule, …). The error
// names the table, the two cells, the fields, and where the cells come
// from (from: the stores of each key; nil when unknown).
func checkComparable(t TableKey, rs []*Result, from map[string][]string) error {
	if len(rs) == 0 {
		return nil
	}
	type slot struct {
		method  string
		bagSize int
	}
	first, firstAtBag := map[string]*Result{}, map[slot]*Result{}
	ref := rs[0]
	for _, r := range rs { // the reference is a cell of an older method, when there is one
		if !experiments.IsNewer(r.Config.Method) {
			ref = r
			break
		}
	}
	for _, r := range rs {
		m, at := r.Config.Method, slot{r.Config.Method, r.Config.BagSize}
		if f, ok := firstAtBag[at]; !ok {
			firstAtBag[at] = r
		} else if d := configDiff(f.Config, r.Config, axisFields); len(d) > 0 {
			return incomparable(t, experiments.MethodLabel(m)+" cells", f, r, d, from)
		}
		if f, ok := first[m]; !ok {
			first[m] = r
		} else if d := configDiff(f.Config, r.Config, axisFields, perBagSizeFields); len(d) > 0 {
			return incomparable(t, experiments.MethodLabel(m)+" cells", f, r, d, from)
		}
		skip := []map[string]bool{axisFields, methodFields}
		if experiments.IsNewer(m) || experiments.IsNewer(ref.Config.Method) {
			skip = append(skip, newerFields)
		}
		if d := withoutOwnSettings(configDiff(ref.Config, r.Config, skip...)); len(d) > 0 {
			return incomparable(t, "cells", ref, r, d, from)
		}
	}
	return nil
}

// incomparable is the error of two cells a, b of table t that differ in
// fields. Its advice depends on where they come from: cells of one spec
// name in two stores (two stores whose grids share a name but not their
// epochs were once told to keep their settings in different directories,
// which they were) are to be reported separately; cells of one store were
// made by a spec edited between runs.
func incomparable(t TableKey, what string, a, b *Result, fields []string, from map[string][]string) error {
	advice := "keep different settings in different --results directories"
	if sa, sb := from[a.Key], from[b.Key]; len(sa) > 0 && len(sb) > 0 && disjoint(sa, sb) {
		advice = fmt.Sprintf("the stores %s and %s hold cells of spec %q with different settings: report them separately (one --results and one --out each), or rename the spec of one grid and run it again",
			strings.Join(sa, ", "), strings.Join(sb, ", "), t.Spec)
	} else if len(sa) > 0 {
		advice = fmt.Sprintf("the store %s holds cells of spec %q with different settings, as when a spec is edited between runs into one store: keep different settings in different --results directories", strings.Join(sa, ", "), t.Spec)
	}
	return &IncomparableError{fmt.Sprintf("table %q: %s %s (%s) and %s (%s) differ in %s; they are not comparable (%s)",
		t.Title(), what, a.Key, experiments.MethodLabel(a.Config.Method), b.Key, experiments.MethodLabel(b.Config.Method), strings.Join(fields, ", "), advice)}
}

// IncomparableError is two cells that one table would set side by side
// although their settings differ (checkComparable): a problem of the stores
// read, not of the code.
type IncomparableError struct{ msg string }

func (e *IncomparableError) Error() string { return e.msg }

// disjoint reports whether a and b have no element in common.
func disjoint(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return false
		}
	}
	return true
}
