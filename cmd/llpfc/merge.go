package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/llpfc/llpfc/experiments/grid"
)

func init() {
	register(command{
		name:    "merge",
		summary: "combine results stores (e.g. the shards of a grid) into one",
		run:     runMerge,
	})
}

const mergeSynopsis = `Copies every finished cell of the stores SRC... into the store --out (created if
missing). A cell present in several stores must have the same outcome in each (same
configuration and metrics; wall time, memory and host may differ), and it belongs to every
spec any of them names; the cells of one spec name must be comparable (as a report's table
requires). Otherwise nothing is written, the error names the cell's key and both stores, and
the exit status is 2. Damaged cell files are not merged: each is named, and the exit status
is 1 ('llpfc run SPEC --results SRC' sets them aside and runs their cells again). The
failure records of cells no store finished (failed/KEY.json: why the cell did not train)
are copied too.`

func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("merge --out DIR SRC...", mergeSynopsis, stderr)
	out := fs.String("out", "", "destination results store (required); may already hold results")
	pos, ok, status := parsePositional(fs, args)
	if !ok {
		return status
	}
	if *out == "" || len(pos) == 0 {
		fmt.Fprintln(stderr, "llpfc merge: want --out DIR and at least one SRC store")
		fs.Usage()
		return exitBadUsage
	}
	srcs, err := resultStores("source", pos)
	if err != nil {
		return exitWith(stderr, "llpfc merge", err)
	}
	var plan ioPlan
	for _, src := range pos {
		plan.read("SRC", src)
		cells, _ := filepath.Glob(filepath.Join(src, "cells", "*.json"))
		plan.read("SRC", cells...)
	}
	plan.makeDirAs(storeOut, "--out", *out, nil, "cells")
	if err := guardIO(plan); err != nil {
		return exitWith(stderr, "llpfc merge", err)
	}
	// The store is created only once no cell conflicts, so a refused merge
	// leaves nothing behind.
	dst := &grid.Store{Dir: *out}
	sum, err := grid.MergeStores(dst, srcs...)
	if err != nil {
		return exitWith(stderr, "llpfc merge", storeError(err))
	}
	all, err := dst.All()
	if err != nil {
		return exitWith(stderr, "llpfc merge", err)
	}
	fmt.Fprintf(stdout, "merged %d new results from %d stores into %s (%d results in all)\n", sum.Written, len(srcs), *out, len(all))
	if sum.Failures > 0 {
		fmt.Fprintf(stdout, "copied %d failure records of cells no store finished to %s\n", sum.Failures, filepath.Join(*out, "failed"))
	}
	for _, d := range sum.Damaged {
		fmt.Fprintf(stderr, "llpfc merge: not merged: %v\n", d)
	}
	if len(sum.Damaged) > 0 {
		return exitFailed
	}
	return exitOK
}
