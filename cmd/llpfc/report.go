package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/llpfc/llpfc/experiments"
)

func init() {
	register(command{
		name:    "report",
		summary: "render a results store as markdown tables (beside the paper's numbers) and PNG plots",
		run:     runReport,
	})
}

const reportSynopsis = `Reads every finished cell of the results store and writes, in the paper's layout,
one table per (spec, model, data set, protocol): test accuracy mean ± std over seeds, one
row per method, one column per bag size, with the paper's own row (Tables 1–4) beneath
ours where model, data set and protocol match. Writes OUT/report.md and one PNG plot per
table (accuracy against bag size on a log2 axis, error bars ±std, the paper's numbers
dashed), prints the markdown to standard output and the file paths to standard error.`

func runReport(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("report [--results DIR] [--out DIR]", reportSynopsis, stderr)
	results := fs.String("results", "results", "results store directory written by 'llpfc run' or 'llpfc merge'")
	out := fs.String("out", "", "directory for report.md and the plots (default: DIR/report)")
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	if st, err := os.Stat(filepath.Join(*results, "cells")); err != nil || !st.IsDir() {
		fmt.Fprintf(stderr, "llpfc report: --results %s: not a results directory (no cells/ inside); run 'llpfc run SPEC --results %s' first\n", *results, *results)
		return exitBadUsage
	}
	if *out == "" {
		*out = filepath.Join(*results, "report")
	}
	files, md, err := experiments.WriteReport(&experiments.Store{Dir: *results}, *out)
	if err != nil {
		fmt.Fprintf(stderr, "llpfc report: %v\n", err)
		return exitFailed
	}
	stdout.Write(md)
	fmt.Fprintf(stderr, "report: %s\n", files.Markdown)
	for _, p := range files.Plots {
		fmt.Fprintf(stderr, "plot:   %s\n", p)
	}
	return exitOK
}
