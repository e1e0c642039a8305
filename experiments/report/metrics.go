package report

import (
	"fmt"
	"sort"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
)

// The metrics a report can tabulate (report --metric).
const (
	MetricTestAccuracy       = "test_accuracy"
	MetricMacroF1            = "macro_f1"
	MetricAUC                = "auc"
	MetricBagProportionError = "bag_proportion_error"
	MetricValKL              = "val_kl"
	// MetricPeakRSS is the peak resident memory of the process that ran a
	// cell (Metrics.PeakRSSBytes), tabulated in MiB (a grid's memory per
	// cell, beside PyTorch's).
	MetricPeakRSS = "peak_rss_bytes"
)

// reportMetrics labels each metric of ReportMetrics.
var reportMetrics = map[string]string{
	MetricTestAccuracy:       "Test accuracy",
	MetricMacroF1:            "Test macro-F1",
	MetricAUC:                "Test AUC",
	MetricBagProportionError: "Training bags' proportion error ‖p̄ − γ‖₁",
	MetricValKL:              "Held-out bags' validation KL",
	MetricPeakRSS:            "Peak resident memory of the cell's process (MiB)",
}

// ReportMetrics returns the metrics a report can tabulate, sorted.
func ReportMetrics() []string {
	var ms []string
	for m := range reportMetrics {
		ms = append(ms, m)
	}
	sort.Strings(ms)
	return ms
}

// metricLabel names a metric in a table's caption and plot.
func metricLabel(metric string) string {
	if metric == "" {
		metric = MetricTestAccuracy
	}
	return reportMetrics[metric]
}

// metricValue reads a metric from a cell's metrics, and whether the cell
// recorded it.
func metricValue(m experiments.Metrics, metric string) (float64, bool) {
	switch metric {
	case "", MetricTestAccuracy:
		return m.TestAccuracy, m.HasTest()
	case MetricMacroF1:
		if m.Scores != nil && m.HasTest() {
			return m.Scores.MacroF1, true
		}
	case MetricAUC:
		if m.Scores != nil && m.Scores.AUC != nil && m.HasTest() {
			return *m.Scores.AUC, true
		}
	case MetricBagProportionError:
		return m.BagProportionError, m.BagProportionError != 0
	case MetricValKL:
		if m.ValKL != nil {
			return *m.ValKL, true
		}
	case MetricPeakRSS:
		return float64(m.PeakRSSBytes) / (1 << 20), m.PeakRSSBytes > 0
	}
	return 0, false
}

// meanStd writes a table cell's mean ± std: four decimals, or whole MiB
// for the peak memory.
func meanStd(metric string, mean, std float64) string {
	if metric == MetricPeakRSS {
		return fmt.Sprintf("%.0f ± %.0f", mean, std)
	}
	return fmt.Sprintf("%.4f ± %.4f", mean, std)
}

// anyBagLevel reports whether a table shows the bag-level default
// (tableMetric).
func anyBagLevel(tables []*Table) bool {
	for _, t := range tables {
		if t.Metric == MetricBagProportionError {
			return true
		}
	}
	return false
}

// anyTest reports whether some result was evaluated on a test split.
func anyTest(results []*grid.Result) bool {
	for _, r := range results {
		if r.Metrics.HasTest() {
			return true
		}
	}
	return false
}

// testMetric reports whether metric is measured on the labelled test split.
func testMetric(metric string) bool {
	return metric == "" || metric == MetricTestAccuracy || metric == MetricMacroF1 || metric == MetricAUC
}

// metricName is metric with "" spelled out.
func metricName(metric string) string {
	if metric == "" {
		return MetricTestAccuracy
	}
	return metric
}

// MissingMetricError is a report of a metric that a cell did not record.
type MissingMetricError struct {
	Key, Method, Metric string
	BagSize             int
	Seed                int64
	// NoTestSplit: the cell's data had no labelled test split (a bag-only
	// set without one), so it has no test metric at all.
	NoTestSplit bool
	// Classes, set for the AUC of a cell of other than two classes: the
	// AUC is measured for two ("--metric auc" on three classes once
	// blamed the results' age).
	Classes int
}
