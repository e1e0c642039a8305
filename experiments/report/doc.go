// Package report turns finished cells into what a reader compares with the
// paper (Section 6, Tables 1–4): tables in the paper's layout — mean ±
// population std over seeds, methods × bag sizes, the paper's own rows
// (fixtures/paper) beneath ours — their PNG plots, the trouble section that
// sets LLPFC's accuracy against ‖T̂⁻¹‖₁ (Proposition `theorem: cali_lowerb`:
// where LLPFC breaks on near-uniform bags), and a long CSV table for pandas.
//
//   - BuildTables, Table.Markdown, Table.Plot (tables.go, markdown.go,
//     plot.go): one table per grid.TableKey, its
//     seeds aggregated (Stat); ReportMetrics picks what the cells show.
//   - WriteReport, WriteReports, WriteReportsMetric (write.go): the files of
//     `llpfc report` and `llpfc reproduce`, each written atomically.
//   - TroublePoints, TroubleMarkdown, TroublePlot, Spearman (trouble.go).
//   - WriteCSV (csv.go): `llpfc report --csv`.
//
// The cut: this room only reads results. Which cells share a table, and
// whether they are comparable, is the rule of grid.Tables, because a
// merge of stores must keep it too; how a table looks is this room's.
// Nothing below imports it.
package report
