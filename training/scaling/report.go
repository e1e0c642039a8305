package scaling

import (
	"fmt"
	"sort"
	"strings"
)

// Row compares, at one thread count, the measured step with the two
// predictions (seconds per step).
type Row struct {
	Threads int `json:"threads"`
	// Measured is the wall time per step; SpeedUp the first run's over it.
	Measured float64 `json:"measured_s"`
	SpeedUp  float64 `json:"speed_up"`
	// Extrapolated is predicted from the first two runs, Structural from
	// this run's CPU times (Predict).
	Extrapolated float64 `json:"extrapolated_s"`
	Structural   float64 `json:"structural_s"`
	// Hybrid is predicted from this run's structure and the second run's
	// work (Hybrid).
	Hybrid float64 `json:"hybrid_s"`
	// SerialShare is the run's serial CPU over its CPU in operations.
	SerialShare float64 `json:"serial_share"`
	// CPUPerStep is the process's CPU seconds per step, Bandwidth the probe's
	// GB/s at this count.
	CPUPerStep float64 `json:"cpu_s"`
	Bandwidth  float64 `json:"bandwidth_gbs"`
	// Imbalance and StartStop are the run's Balance summed over its
	// operations (seconds per step): what internal/par's loops waited on
	// their slowest worker beyond an even split, and what they took beyond
	// that worker's work.
	Imbalance float64 `json:"imbalance_s"`
	StartStop float64 `json:"start_stop_s"`
}

// ClassRow is one class of operations at the largest thread count.
type ClassRow struct {
	Class string `json:"class"`
	// Measured is the class's wall time per step, Serial its serial CPU
	// time, Work its sections' CPU time.
	Measured float64 `json:"measured_s"`
	Serial   float64 `json:"serial_cpu_s"`
	Work     float64 `json:"section_cpu_s"`
	// Extrapolated, Structural and Hybrid are the three predictions.
	Extrapolated float64 `json:"extrapolated_s"`
	Structural   float64 `json:"structural_s"`
	Hybrid       float64 `json:"hybrid_s"`
	// Widest is the width of the class's sections that held the most CPU
	// time.
	Widest string `json:"widest"`
	// Imbalance and StartStop are the class's (Row's).
	Imbalance float64 `json:"imbalance_s"`
	StartStop float64 `json:"start_stop_s"`
}

// Report is a Measure's runs with the model's predictions.
type Report struct {
	Name    string     `json:"name"`
	Runs    []Run      `json:"runs"`
	Rows    []Row      `json:"rows"`
	Classes []ClassRow `json:"classes"`
}

// NewReport predicts every run's thread count both ways and compares.
// name says what was measured (the model, batch and image).
func NewReport(name string, runs []Run) Report {
	rep := Report{Name: name, Runs: runs}
	if len(runs) == 0 {
		return rep
	}
	a, b := runs[0], runs[0]
	if len(runs) > 1 {
		b = runs[1]
	}
	for _, r := range runs {
		row := Row{Threads: r.Threads, Measured: r.StepSeconds, CPUPerStep: r.CPUSeconds, Bandwidth: r.Bandwidth}
		if r.StepSeconds > 0 {
			row.SpeedUp = runs[0].StepSeconds / r.StepSeconds
		}
		row.Extrapolated = Extrapolated(a, b, r.Threads, r.Bandwidth).Seconds()
		row.Structural = Structural(r, r.Threads, r.Bandwidth).Seconds()
		row.Hybrid = Hybrid(b, r, r.Threads, r.Bandwidth).Seconds()
		if t := r.SerialCPU() + r.SectionCPU(); t > 0 {
			row.SerialShare = r.SerialCPU() / t
		}
		row.Imbalance = sum(r.Ops, func(o Op) float64 { return o.Balance.Imbalance() })
		row.StartStop = sum(r.Ops, func(o Op) float64 { return o.Balance.StartStop() })
		rep.Rows = append(rep.Rows, row)
	}
	last := runs[len(runs)-1]
	ex := Extrapolated(a, b, last.Threads, last.Bandwidth).ByClass()
	st := Structural(last, last.Threads, last.Bandwidth).ByClass()
	hy := Hybrid(b, last, last.Threads, last.Bandwidth).ByClass()
	measured, serial, work := map[string]float64{}, map[string]float64{}, map[string]float64{}
	imbalance, startStop := map[string]float64{}, map[string]float64{}
	widest := map[string]map[string]float64{}
	for _, o := range last.Ops {
		measured[o.Class] += o.Wall
		imbalance[o.Class] += o.Balance.Imbalance()
		startStop[o.Class] += o.Balance.StartStop()
		serial[o.Class] += o.SerialCPU
		work[o.Class] += o.SectionCPU
		for _, w := range o.Work {
			if widest[o.Class] == nil {
				widest[o.Class] = map[string]float64{}
			}
			widest[o.Class][widthName(w)] += w.CPU
		}
	}
	for _, c := range Classes {
		if measured[c] == 0 && st[c] == 0 && ex[c] == 0 {
			continue
		}
		rep.Classes = append(rep.Classes, ClassRow{Class: c, Measured: measured[c], Serial: serial[c], Work: work[c],
			Extrapolated: ex[c], Structural: st[c], Hybrid: hy[c], Widest: heaviest(widest[c]),
			Imbalance: imbalance[c], StartStop: startStop[c]})
	}
	return rep
}

func widthName(w Work) string {
	if w.Fixed {
		return fmt.Sprintf("%d chunks", w.N)
	}
	return fmt.Sprintf("÷%d", w.N)
}

// heaviest returns the key with the largest value ("–" for none).
func heaviest(m map[string]float64) string {
	best, bv := "–", -1.0
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if m[k] > bv {
			best, bv = k, m[k]
		}
	}
	return best
}

// Markdown renders the report: the thread counts' rows, then the classes
// at the largest count.
func (r Report) Markdown() string {
	var b strings.Builder
	ms := func(s float64) string { return fmt.Sprintf("%.1f", 1e3*s) }
	fmt.Fprintf(&b, "### %s\n\n", r.Name)
	b.WriteString("Predictions (Amdahl per operation, training/scaling): A from the first two counts' CPU times, B from this count's, " +
		"C from this count's structure with the second count's work.\n\n")
	b.WriteString("| threads | measured ms/step | speed-up | A (ms) | B (ms) | C (ms) | serial share | CPU s/step | bandwidth GB/s | imbalance ms | start/stop ms |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, w := range r.Rows {
		fmt.Fprintf(&b, "| %d | %s | %.2f | %s (%+.0f %%) | %s (%+.0f %%) | %s (%+.0f %%) | %.3f | %.3f | %.1f | %s | %s |\n", w.Threads, ms(w.Measured), w.SpeedUp,
			ms(w.Extrapolated), pct(w.Extrapolated, w.Measured), ms(w.Structural), pct(w.Structural, w.Measured),
			ms(w.Hybrid), pct(w.Hybrid, w.Measured), w.SerialShare, w.CPUPerStep, w.Bandwidth, ms(w.Imbalance), ms(w.StartStop))
	}
	if len(r.Runs) > 0 {
		fmt.Fprintf(&b, "\nAt %d threads, by kind of operation (ms per step; serial and sections: CPU time; imbalance: what the parallel loops "+
			"waited on their slowest worker beyond an even split, start/stop: what they took beyond that worker's work — the model assumes both zero):\n\n",
			r.Runs[len(r.Runs)-1].Threads)
		b.WriteString("| operations | measured | serial | sections | widest sections | A | B | C | imbalance | start/stop |\n|---|---|---|---|---|---|---|---|---|---|\n")
		for _, c := range r.Classes {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c.Class, ms(c.Measured), ms(c.Serial), ms(c.Work), c.Widest,
				ms(c.Extrapolated), ms(c.Structural), ms(c.Hybrid), ms(c.Imbalance), ms(c.StartStop))
		}
	}
	return b.String()
}

// pct is the prediction's error relative to the measurement, in percent.
func pct(pred, meas float64) float64 {
	if meas <= 0 {
		return 0
	}
	return 100 * (pred - meas) / meas
}
