package grid

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/llpfc/llpfc/experiments"
)

// A store knows its specs: a spec is run into a store only when its cells
// sit beside the store's in the tables a report builds (Tables: one
// configuration per method and bag size, comparable cells), as report and
// merge already require. Before, `run` added a spec edited since (epochs 2
// where the store's cells of that name have 1) with exit status 0, after
// which the store's own report and merge refused it until cells were
// deleted by hand.

// CheckFits is the check Run makes before any cell trains, for the
// commands that plan or check a spec's cells in store without running
// them (`run --sbatch`, whose shards are merged into a store that must
// stay reportable, and `run --check`): nil when the store or its cells
// folder is missing, or its tables take spec's cells.
func CheckFits(store *Store, spec *Spec, cells []experiments.Cell) error {
	if _, err := os.Stat(filepath.Join(store.Dir, "cells")); errors.Is(err, fs.ErrNotExist) {
		return nil // no store yet, or one no cell has reached
	}
	return (&Runner{Store: store}).checkFits(spec, cells)
}

// checkFits refuses, before any cell trains, a spec whose cells would make
// the store's tables incomparable: a spec whose name the store holds with
// other settings (the error names the fields, the cells and the way out).
// A spec that cannot share tables with itself is left to the report (its
// overrides may be meant); only a conflict with the store's cells is
// refused, so whatever run does, the store stays reportable.
func (r *Runner) checkFits(spec *Spec, cells []experiments.Cell) error {
	col, err := Collect(r.Store)
	if err != nil {
		var conflict *ConflictError
		if errors.As(err, &conflict) {
			return &experiments.InputError{Err: fmt.Errorf("spec %s: %w; nothing was run", spec.Name, err)}
		}
		return err
	}
	if len(col.Results) == 0 {
		return nil
	}
	planned := make([]*Result, 0, len(cells))
	mine := map[string]bool{}
	for _, c := range cells {
		mine[c.Key] = true
		planned = append(planned, &Result{Key: c.Key, Spec: spec.Name, Seed: c.Config.Seed, Config: c.Config})
	}
	if _, err := Tables(planned, nil); err != nil {
		return nil // the spec's own cells do not share a table: the report says so, as before
	}
	from := map[string][]string{}
	var all []*Result // the store's first: the error names its cell, then the spec's
	for _, res := range col.Results {
		if mine[res.Key] {
			continue // the same cell: its configuration is the spec's
		}
		all = append(all, res)
		from[res.Key] = col.From[res.Key]
	}
	all = append(all, planned...)
	if _, err := Tables(all, from); err != nil {
		return &experiments.InputError{Err: fmt.Errorf("spec %s: %w; nothing was run (the store's report would refuse the two): run the edited spec into another --results, or give it another \"name\"", spec.Name, err)}
	}
	return nil
}
