package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
)

// NearChance is how close to chance a cell's test accuracy must be for the
// trouble section to give its reason (a collapse unexplained reads as the
// method's verdict): at most twice chance, 2/C.
const NearChance = 2.0

// Collapse is a cell near chance, or with a diverged search trial, and the
// measured reasons its result carries.
type Collapse struct {
	// Key is the cell's key, Spec the grid it belongs to (a report of a
	// store and its companions holds cells of several grids that may share
	// a method, bag size and seed, as the step-matched runs do the
	// comparison's).
	Key, Spec, Method, Protocol string
	BagSize                     int
	Seed                        int64
	Accuracy                    float64
	Classes                     int
	Reasons                     []string
}

// Collapses returns the cells of results whose test accuracy is at most
// NearChance/C (C the classes of their confusion matrix), or whose search
// had a trial diverge, each with every reason its metrics measure: few
// optimizer steps, LLP-PVC's likelihood terms below the numerics' floor,
// EasyLLP's flooded (reversed) steps and negative soft labels, MixBag's
// terms inside their interval, LLPFC's ‖T̂⁻¹‖₁, the diverged trials. A
// cell near chance whose metrics measure none of these says so: "no
// measured reason".
func Collapses(results []*grid.Result) []Collapse {
	var out []Collapse
	for _, r := range results {
		m := r.Metrics
		C := 0
		if m.Scores != nil {
			C = len(m.Scores.Confusion)
		}
		near := C > 0 && m.HasTest() && m.TestAccuracy <= NearChance/float64(C)
		diverged := diverged(m.Search)
		if !near && diverged == "" {
			continue
		}
		c := Collapse{Key: r.Key, Spec: r.Spec, Method: r.Config.Method, Protocol: r.Config.Protocol, BagSize: r.Config.BagSize,
			Seed: r.Seed, Accuracy: m.TestAccuracy, Classes: C}
		c.Reasons = collapseReasons(m)
		if diverged != "" {
			c.Reasons = append(c.Reasons, diverged)
		}
		if len(c.Reasons) == 0 {
			c.Reasons = []string{"no measured reason"}
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Protocol != b.Protocol {
			return a.Protocol < b.Protocol
		}
		if ra, rb := experiments.MethodRank(a.Method), experiments.MethodRank(b.Method); ra != rb {
			return ra < rb
		}
		if a.BagSize != b.BagSize {
			return a.BagSize < b.BagSize
		}
		return a.Seed < b.Seed
	})
	return out
}

// collapseReasons are the measured reasons of m's result.
func collapseReasons(m experiments.Metrics) []string {
	var out []string
	steps := m.Steps
	if steps == 0 {
		steps = int64(m.StepsPerEpoch * m.Epochs)
	}
	if steps > 0 && steps < MinSteps {
		out = append(out, fmt.Sprintf("%d optimizer steps in the whole run", steps))
	}
	if m.FirstLoss > 0 && m.FinalLoss > 0.95*m.FirstLoss {
		out = append(out, fmt.Sprintf("the training loss fell %.1f%% over the run (%.4g to %.4g): the objective moved the network little", 100*(1-m.FinalLoss/m.FirstLoss), m.FirstLoss, m.FinalLoss))
	}
	if o := m.Objective; o != nil {
		if o.FlooredShare > 0 {
			out = append(out, fmt.Sprintf("%.1f%% of LLP-PVC's likelihood terms below the numerics' floor (no gradient there)", 100*o.FlooredShare))
		}
		if o.FloodedShare > 0 {
			out = append(out, fmt.Sprintf("%.1f%% of EasyLLP's steps flooded (reversed)", 100*o.FloodedShare))
		}
		if o.SoftNegativeShare > 0 {
			out = append(out, fmt.Sprintf("EasyLLP's soft labels in [%.3g, %.3g], %.1f%% below 0 (its loss unbounded below)", o.SoftMin, o.SoftMax, 100*o.SoftNegativeShare))
		}
		if r := o.MeanReferenceLoss; r > 0 && o.MeanRawLoss <= 1.25*r {
			out = append(out, fmt.Sprintf("its loss per step (%.4g) within %.0f%% of what giving every instance its bag's own proportions scores (%.4g), which tells no instances apart", o.MeanRawLoss, 100*(o.MeanRawLoss/r-1), r))
		}
		if o.InsideShare > 0.5 {
			out = append(out, fmt.Sprintf("%.1f%% of MixBag's class terms inside their interval (no gradient)", 100*o.InsideShare))
		}
	}
	if inv := cellInvNorm1(m); inv > 0 {
		out = append(out, fmt.Sprintf("‖T̂⁻¹‖₁ %.3g (Proposition `theorem: cali_lowerb` loosens the bound by √2 of it)", inv))
	}
	return out
}

// diverged says which trials of a search diverged and where, "" when none.
func diverged(s *experiments.SearchRecord) string {
	if s == nil {
		return ""
	}
	var parts []string
	for _, t := range s.Trials {
		if t.Diverged != "" {
			parts = append(parts, fmt.Sprintf("lr %g: %s", t.LR, t.Diverged))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d search trials diverged (%s)", len(parts), len(s.Trials), strings.Join(parts, "; "))
}

// CollapsesMarkdown writes the trouble section's table of the cells near
// chance or with a diverged trial, each with its reasons (Collapses);
// nothing when there is none.
func CollapsesMarkdown(w io.Writer, results []*grid.Result) {
	cs := Collapses(results)
	if len(cs) == 0 {
		return
	}
	fmt.Fprintf(w, "## Cells near chance, and why\n\nEvery cell whose test accuracy is at most %g/C (C classes), or whose label-free search had a trial diverge, with the reasons its result measures: optimizer steps, the objective's own counters, ‖T̂⁻¹‖₁, the diverged trials.\n\n", NearChance)
	fmt.Fprintln(w, "| grid | cell | protocol | method | bag size | seed | test accuracy | reasons |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, c := range cs {
		fmt.Fprintf(w, "| %s | `%s` | %s | %s | %s | %d | %.4f | %s |\n", c.Spec, shortKey(c.Key), c.Protocol, experiments.MethodLabel(c.Method), bagSizeText(c.BagSize), c.Seed, c.Accuracy,
			strings.ReplaceAll(strings.Join(c.Reasons, "; "), "|", "\\|"))
	}
	fmt.Fprintln(w)
}
