package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/experiments/report"
	"github.com/llpfc/llpfc/internal/atomicfile"
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
dashed), and, when LLPFC cells recorded their groups' diagnostics, a section and a plot
(trouble.png) of LLPFC's accuracy against the median ‖T̂⁻¹‖₁ of its groups beside KL's
against bag size. Prints the markdown to standard output and the file paths to standard
error.`

func runReport(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("report [--results DIR]... [--out DIR]", reportSynopsis, stderr)
	var results stringList
	fs.Var(&results, "results", "results store directory written by 'llpfc run' or 'llpfc merge' (default results); repeat it to read several stores into one report, e.g. one per bag protocol, whose LLPFC cells are then plotted together against ‖T̂⁻¹‖₁")
	out := fs.String("out", "", "directory for report.md and the plots (default: the first --results DIR/report)")
	metric := fs.String("metric", report.MetricTestAccuracy, "what the tables show: "+strings.Join(report.ReportMetrics(), ", ")+" (the paper's rows only beside test_accuracy; a cell that did not record the metric is an error naming it). Unless given, bag_proportion_error when no cell had a labelled test split (bag-only data without one)")
	csvPath := fs.String("csv", "", "also write every cell to `FILE` in long format, one row per cell (spec, key, data set, model, method, protocol, bag size, seed, test accuracy, macro-F1, AUC, bag proportion error, selected epoch, validation KL, device, …), for pandas")
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	if len(results) == 0 {
		results = stringList{"results"}
	}
	stores, err := resultStores("--results", results)
	if err != nil {
		return exitWith(stderr, "llpfc report", err)
	}
	if *out == "" {
		*out = filepath.Join(results[0], "report")
	}
	if err := guardIO(reportPlan(stores, *out, *csvPath)); err != nil {
		return exitWith(stderr, "llpfc report", err)
	}
	if !contains(report.ReportMetrics(), *metric) {
		return exitWith(stderr, "llpfc report", usagef("--metric %q: want one of %s", *metric, strings.Join(report.ReportMetrics(), ", ")))
	}
	ctx, stop := interruptible("report", stderr)
	defer stop()
	m := *metric
	if !givenFlags(fs)["metric"] {
		m = "" // the default: test accuracy, or a bag-level figure when no cell has one
	}
	files, md, err := report.WriteReportsMetric(ctx, stores, *out, m)
	for _, d := range files.Damaged {
		fmt.Fprintf(stderr, "llpfc report: warning: left out a %v\n", d)
	}
	if len(files.Stale) > 0 {
		fmt.Fprintf(stderr, "llpfc report: warning: %d cells are stale, reported as they ran: %s\n", len(files.Stale), files.StaleNote)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "llpfc report: interrupted; the files written in %s are whole; run the same command again\n", *out)
			return exitFailed
		}
		return exitWith(stderr, "llpfc report", storeError(err))
	}
	if *csvPath != "" {
		if err := writeReportCSV(*csvPath, stores); err != nil {
			return exitWith(stderr, "llpfc report", err)
		}
		fmt.Fprintf(stderr, "csv:    %s\n", *csvPath)
	}
	stdout.Write(md)
	fmt.Fprintf(stderr, "report: %s\n", files.Markdown)
	for _, p := range files.Plots {
		fmt.Fprintf(stderr, "plot:   %s\n", p)
	}
	return exitOK
}

// reportPlan is what report reads (the stores' cells) and writes (--out's
// report, --csv), for the output guard.
func reportPlan(stores []*grid.Store, out, csvPath string) ioPlan {
	var plan ioPlan
	for _, st := range stores {
		cells, _ := filepath.Glob(filepath.Join(st.Dir, "cells", "*.json"))
		plan.read("--results", cells...)
	}
	plan.makeDirAs(reportOut, "--out", out, []string{"report.md"})
	plan.writeAs(reportOut, "--csv", csvPath)
	return plan
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

// Set appends one value.
func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// writeReportCSV writes every cell of the stores (each once) to path in
// long format (report.WriteCSV), atomically.
func writeReportCSV(path string, stores []*grid.Store) error {
	col, err := grid.Collect(stores...)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error { return report.WriteCSV(w, col.Results) })
}
