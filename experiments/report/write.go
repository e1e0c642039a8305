package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/fixtures/paper"
	"github.com/llpfc/llpfc/internal/atomicfile"
)

// ReportFiles are the files WriteReport made.
type ReportFiles struct {
	Markdown string
	Plots    []string
	// Damaged are the damaged cell files left out of the report (Damage
	// says how to repair each).
	Damaged []grid.Damage
	// Stale are the cells whose data's files changed since they ran
	// (grid.Stale; the named sets' files found as $LLPFC_DATA says):
	// reported as they ran, and named (they were once shown as finished
	// without a note), with StaleNote saying which data set, its files and what to
	// do.
	Stale     []*grid.Result
	StaleNote string
}

// WriteReport reads every result of store, builds the tables (with the
// paper's numbers from fixtures/paper), and writes outDir/report.md and one
// PNG plot per table (PlotNames). It returns the markdown as well.
func WriteReport(store *grid.Store, outDir string) (ReportFiles, []byte, error) {
	return WriteReports([]*grid.Store{store}, outDir)
}

// WriteReports is WriteReport over several stores read together (for
// example one per bag protocol): a table per spec as always, and, when any
// LLPFC cell recorded its groups' diagnostics, the section of TroubleMarkdown
// and the plot outDir/trouble.png over the cells of every store, so that the
// protocols stand side by side. Each cell counts once however
// many of the stores hold it (Collect); damaged cell files are left out and
// listed (ReportFiles.Damaged, and a line of the report).
func WriteReports(stores []*grid.Store, outDir string) (ReportFiles, []byte, error) {
	return WriteReportsContext(context.Background(), stores, outDir)
}

// WriteReportsContext is WriteReports, stopping between two files when ctx
// is cancelled (an interrupted report leaves whole files only: every file is
// written atomically, and the temporary files of an earlier report that was
// killed are removed first).
func WriteReportsContext(ctx context.Context, stores []*grid.Store, outDir string) (ReportFiles, []byte, error) {
	return WriteReportsMetric(ctx, stores, outDir, "")
}

// WriteReportsMetric is WriteReportsContext with the tables showing metric
// (ReportMetrics; "" is test accuracy) instead of test accuracy (`llpfc
// report --metric`).
func WriteReportsMetric(ctx context.Context, stores []*grid.Store, outDir, metric string) (ReportFiles, []byte, error) {
	col, err := grid.Collect(stores...)
	if err != nil {
		return ReportFiles{}, nil, err
	}
	files := ReportFiles{Damaged: col.Damaged}
	results := col.Results
	if files.Stale, _ = grid.Stale(results, ""); len(files.Stale) > 0 {
		files.StaleNote = grid.StaleNote(files.Stale, "")
	}
	if len(results) == 0 {
		msg := fmt.Sprintf("results directory %s: no finished cells (run `llpfc run SPEC --results %s` first)", stores[0].Dir, stores[0].Dir)
		if len(col.Damaged) > 0 {
			msg += "; " + col.Damaged[0].Error()
		}
		return files, nil, errors.New(msg)
	}
	entries, err := paper.Entries()
	if err != nil {
		return files, nil, err
	}
	noTest := metric == "" && !anyTest(results)
	if noTest { // the default, test accuracy, exists in no cell: show what they hold
		metric = MetricBagProportionError
	}
	tables, err := buildTables(results, entries, col.From, metric)
	if err != nil {
		return files, nil, err
	}
	if st, err := os.Stat(outDir); err == nil && !st.IsDir() {
		return files, nil, fmt.Errorf("report directory %s: is a file, want a directory", outDir)
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return files, nil, fmt.Errorf("report directory %s: %w", outDir, err)
	}
	names := PlotNames(tables)
	removeTemps(outDir, append([]string{"report.md", troublePNG}, names...))
	var md bytes.Buffer
	fmt.Fprintf(&md, "# llpfc results\n\n%d finished cells from %s.\n\n", len(results), storeList(stores))
	if noTest {
		fmt.Fprintf(&md, "No cell had a labelled test split (bag-only data without one), so the tables show a bag-level figure: the training bags' proportion error ‖p̄ − γ‖₁ under the final network (lower is better).\n\n")
	} else if metric == "" && anyBagLevel(tables) {
		fmt.Fprintf(&md, "The tables of data sets without a labelled test split (bag-only data without one) show a bag-level figure instead of test accuracy: the training bags' proportion error ‖p̄ − γ‖₁ under the final network (lower is better).\n\n")
	}
	if n := len(files.Stale); n > 0 {
		fmt.Fprintf(&md, "**Stale: %d of these cells ran on data that changed since**, shown as they ran: %s.\n\n", n, files.StaleNote)
	}
	if n := len(col.Damaged); n > 0 {
		fmt.Fprintf(&md, "Left out: %d damaged cell file(s), e.g. `%s` (`llpfc run` sets them aside and runs their cells again).\n\n", n, col.Damaged[0].Path)
	}
	for i, t := range tables {
		if err := ctx.Err(); err != nil {
			return files, nil, err
		}
		t.Markdown(&md)
		path := filepath.Join(outDir, names[i])
		if err := t.Plot(path); err != nil {
			return files, nil, err
		}
		fmt.Fprintf(&md, "![%s](%s)\n\n", t.Title(), names[i])
		files.Plots = append(files.Plots, path)
	}
	pts := TroublePoints(results)
	if hasGroups(pts) {
		if err := ctx.Err(); err != nil {
			return files, nil, err
		}
		TroubleMarkdown(&md, pts)
		path := filepath.Join(outDir, troublePNG)
		if err := TroublePlot(path, pts); err != nil {
			return files, nil, err
		}
		fmt.Fprintf(&md, "![LLPFC accuracy against ‖T̂⁻¹‖₁, and KL against bag size](%s)\n\n", troublePNG)
		files.Plots = append(files.Plots, path)
	}
	AssumptionsMarkdown(&md, results) // trouble_assumptions.go
	CollapsesMarkdown(&md, results)   // trouble_collapse.go
	EndChoicesMarkdown(&md, results)
	FailuresMarkdown(&md, col.Failed) // failures.go
	files.Markdown = filepath.Join(outDir, "report.md")
	if err := atomicfile.WriteFile(files.Markdown, md.Bytes()); err != nil {
		return files, nil, err
	}
	return files, md.Bytes(), nil
}

// troublePNG is the file name of the trouble plot.
const troublePNG = "trouble.png"

// storeList names the stores, each once, as the report's first line does.
func storeList(stores []*grid.Store) string {
	var dirs []string
	seen := map[string]bool{}
	for _, st := range stores {
		if !seen[st.Dir] {
			seen[st.Dir] = true
			dirs = append(dirs, "`"+st.Dir+"`")
		}
	}
	return strings.Join(dirs, " and ")
}

// removeTemps removes the temporary files that an atomic write of one of
// names left in dir when its process was killed (".NAME.tmp-*").
func removeTemps(dir string, names []string) {
	for _, n := range names {
		matches, _ := filepath.Glob(filepath.Join(dir, "."+n+".tmp-*"))
		for _, m := range matches {
			if st, err := os.Lstat(m); err == nil && st.Mode().IsRegular() {
				os.Remove(m)
			}
		}
	}
}

// hasGroups reports whether any point carries its groups' diagnostics.
func hasGroups(pts []TroublePoint) bool {
	for _, p := range pts {
		if p.InvNorm1 > 0 {
			return true
		}
	}
	return false
}
