package report

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteCSV: one row per cell and spec, sorted by method, bag size and
// seed, with the header's columns; recorded metrics in their columns and
// empty fields for what a cell did not record.
func TestWriteCSV(t *testing.T) {
	a := tableCell("kl", 64, 1, nil)
	b := tableCell("kl", 32, 0, nil)
	auc, sel := 0.75, 2
	b.Metrics.Scores = &experiments.Scores{MacroF1: 0.5, AUC: &auc}
	b.Metrics.SelectedEpoch = &sel
	b.Metrics.Device = "opencl:0:0 (x)"
	var buf bytes.Buffer
	require.NoError(t, WriteCSV(&buf, []*grid.Result{a, b}))
	rows, err := csv.NewReader(&buf).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 3)
	assert.Equal(t, CSVColumns, rows[0])
	col := func(row []string, name string) string {
		for i, c := range CSVColumns {
			if c == name {
				return row[i]
			}
		}
		t.Fatalf("no column %s", name)
		return ""
	}
	assert.Equal(t, "32", col(rows[1], "bag_size"), "sorted by bag size")
	assert.Equal(t, "0.5", col(rows[1], "macro_f1"))
	assert.Equal(t, "0.75", col(rows[1], "auc"))
	assert.Equal(t, "2", col(rows[1], "selected_epoch"))
	assert.Equal(t, "opencl:0:0 (x)", col(rows[1], "device"))
	assert.Equal(t, "0.8", col(rows[1], "test_accuracy"))
	assert.Equal(t, "", col(rows[2], "macro_f1"), "not recorded")
	assert.Equal(t, "cpu", col(rows[2], "device"))
	assert.Equal(t, a.Key, col(rows[2], "key"))
}

// TestReportMetric: --metric tabulates another metric's mean ± std (no
// paper rows), labels it, and a cell without it is a MissingMetricError
// naming the cell; the default is test accuracy, as before.
func TestReportMetric(t *testing.T) {
	rs := []*grid.Result{tableCell("kl", 32, 0, nil), tableCell("kl", 32, 1, nil)}
	for i, f1 := range []float64{0.5, 0.7} {
		rs[i].Metrics.Scores = &experiments.Scores{MacroF1: f1}
	}
	tables, err := buildTables(rs, nil, nil, MetricMacroF1)
	require.NoError(t, err)
	var sb bytes.Buffer
	tables[0].Markdown(&sb)
	assert.Contains(t, sb.String(), "Test macro-F1, mean ± population std over 2 seeds")
	assert.Contains(t, sb.String(), "| KL | 0.6000 ± 0.1000 |")
	tables, err = buildTables(rs, nil, nil, "")
	require.NoError(t, err)
	sb.Reset()
	tables[0].Markdown(&sb)
	assert.Contains(t, sb.String(), "Test accuracy, mean ± population std")
	rs[1].Metrics.Scores = nil
	_, err = buildTables(rs, nil, nil, MetricMacroF1)
	var missing *MissingMetricError
	require.ErrorAs(t, err, &missing)
	assert.Equal(t, rs[1].Key, missing.Key)
	_, err = buildTables(rs, nil, nil, "f2")
	assert.ErrorContains(t, err, "want one of")
}

// TestReportPeakRSS: --metric peak_rss_bytes tabulates each
// cell's peak resident memory in MiB, mean ± population std over the seeds
// (1,000 and 1,200 MiB: 1100 ± 100), labelled; a cell that did not record
// it is a MissingMetricError naming the cell.
func TestReportPeakRSS(t *testing.T) {
	rs := []*grid.Result{tableCell("kl", 32, 0, nil), tableCell("kl", 32, 1, nil)}
	rs[0].Metrics.PeakRSSBytes, rs[1].Metrics.PeakRSSBytes = 1000<<20, 1200<<20
	tables, err := buildTables(rs, nil, nil, MetricPeakRSS)
	require.NoError(t, err)
	var sb bytes.Buffer
	tables[0].Markdown(&sb)
	assert.Contains(t, sb.String(), "Peak resident memory of the cell's process (MiB), mean ± population std over 2 seeds")
	assert.Contains(t, sb.String(), "| KL | 1100 ± 100 |")
	assert.Contains(t, ReportMetrics(), MetricPeakRSS)
	rs[1].Metrics.PeakRSSBytes = 0
	_, err = buildTables(rs, nil, nil, MetricPeakRSS)
	var missing *MissingMetricError
	require.ErrorAs(t, err, &missing)
	assert.Equal(t, rs[1].Key, missing.Key)
}
