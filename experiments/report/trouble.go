package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/internal/atomicfile"
	"github.com/llpfc/llpfc/training"
)

// TroublePoint is one finished cell set against how alike its bags are
// (near-uniform bags break LLPFC): its test accuracy and, for the LLPFC methods, InvNorm1 — the
// geometric mean over the run's regroupings of the median ‖T̂⁻¹‖₁ of each
// regrouping's groups (for ideal and approx, of the T̂ that Algorithm 2's
// noisy prior gives on the same groups, since approx's own T̂ is singular by
// design). Proposition `theorem: cali_lowerb` loosens the calibration bound
// by √2‖T̂⁻¹‖₁, so the theory expects accuracy to fall as InvNorm1 grows.
type TroublePoint struct {
	Key, Method, Protocol string
	BagSize               int
	Seed                  int64
	Accuracy              float64
	InvNorm1              float64 // 0 for cells without groups (KL)
}

// TroublePoints returns one point per result, ordered by protocol, method,
// bag size and seed.
func TroublePoints(results []*grid.Result) []TroublePoint {
	var out []TroublePoint
	for _, r := range results {
		if !r.Metrics.HasTest() {
			continue // no accuracy to set against the groups (a bag-only set without a test split)
		}
		p := TroublePoint{Key: r.Key, Method: r.Config.Method, Protocol: r.Config.Protocol,
			BagSize: r.Config.BagSize, Seed: r.Seed, Accuracy: r.Metrics.TestAccuracy}
		p.InvNorm1 = cellInvNorm1(r.Metrics)
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Protocol != b.Protocol {
			return a.Protocol < b.Protocol
		}
		if a.Method != b.Method {
			return experiments.MethodRank(a.Method) < experiments.MethodRank(b.Method)
		}
		if a.BagSize != b.BagSize {
			return a.BagSize < b.BagSize
		}
		return a.Seed < b.Seed
	})
	return out
}

// cellInvNorm1 is a cell's ‖T̂⁻¹‖₁ (TroublePoint.InvNorm1): the geometric
// mean over its regroupings of the median of the groups (of Algorithm 2's
// noisy prior's T̂ for ideal and approx); 0 without regroupings.
func cellInvNorm1(m experiments.Metrics) float64 {
	n := len(m.Regroupings)
	if n == 0 {
		return 0
	}
	logSum := 0.0
	for _, rg := range m.Regroupings {
		s := rg.Groups
		if rg.Uniform != nil {
			s = *rg.Uniform
		}
		logSum += math.Log(s.InvNorm1Median)
	}
	return math.Exp(logSum / float64(n))
}

// Spearman returns the rank correlation of x and y (ties get their mean
// rank), NaN for fewer than 3 pairs or a constant variable.
func Spearman(x, y []float64) float64 {
	if len(x) != len(y) || len(x) < 3 {
		return math.NaN()
	}
	return stat.Correlation(ranks(x), ranks(y), nil)
}

// ranks returns the 1-based ranks of v, ties sharing their mean rank.
func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
			j++
		}
		mean := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = mean
		}
		i = j + 1
	}
	return r
}

// ClearRho is the size of a rank correlation that TroubleMarkdown calls a
// relation; below it the text says there is no clear one.
const ClearRho = 0.3

// TroubleMarkdown writes the report section on where LLPFC breaks: per LLPFC cell its
// accuracy and InvNorm1, then what the data show, computed from them: the
// rank correlation of accuracy with InvNorm1 over all LLPFC cells and per
// protocol (the theory expects it negative), and the mean accuracy of the
// cells above and below estimators.TroubleInvNorm1.
func TroubleMarkdown(w io.Writer, pts []TroublePoint) {
	fmt.Fprintf(w, "## Where LLPFC breaks: accuracy against ‖T̂⁻¹‖₁\n\n")
	fmt.Fprintf(w, "‖T̂⁻¹‖₁ of a cell: geometric mean over its regroupings of the median ‖T̂⁻¹‖₁ of the groups "+
		"(for LLPFC-ideal and -approx, of the T̂ that Algorithm 2's noisy prior gives on the same groups). "+
		"Proposition `theorem: cali_lowerb` loosens the calibration bound by √2‖T̂⁻¹‖₁.\n\n")
	fmt.Fprintln(w, "| protocol | method | bag size | seed | test accuracy | ‖T̂⁻¹‖₁ |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	var xs, ys []float64
	byProto := map[string][2][]float64{}
	var above, below []float64
	for _, p := range pts {
		if p.InvNorm1 == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %d | %d | %.4f | %s |\n", p.Protocol, experiments.MethodLabel(p.Method), p.BagSize, p.Seed, p.Accuracy, fmtInvNorm(p.InvNorm1))
		xs, ys = append(xs, p.InvNorm1), append(ys, p.Accuracy)
		v := byProto[p.Protocol]
		v[0], v[1] = append(v[0], p.InvNorm1), append(v[1], p.Accuracy)
		byProto[p.Protocol] = v
		if p.InvNorm1 > estimators.TroubleInvNorm1 {
			above = append(above, p.Accuracy)
		} else {
			below = append(below, p.Accuracy)
		}
	}
	fmt.Fprintln(w)
	if len(xs) == 0 {
		fmt.Fprintln(w, "No LLPFC cell has finished yet.")
		fmt.Fprintln(w)
		return
	}
	fmt.Fprintf(w, "What the data show (computed from the %d LLPFC cells above):\n\n", len(xs))
	fmt.Fprintf(w, "- Rank correlation (Spearman) of test accuracy with ‖T̂⁻¹‖₁: %s over all cells", fmtRho(Spearman(xs, ys)))
	protos := make([]string, 0, len(byProto))
	for p := range byProto {
		protos = append(protos, p)
	}
	sort.Strings(protos)
	for _, p := range protos {
		fmt.Fprintf(w, "; %s within protocol %s", fmtRho(Spearman(byProto[p][0], byProto[p][1])), p)
	}
	rho := Spearman(xs, ys)
	switch {
	case math.IsNaN(rho):
		fmt.Fprint(w, ". Too few cells to tell.\n")
	case rho <= -ClearRho:
		fmt.Fprint(w, ". Negative, as the theory expects: the more alike the bags, the lower the accuracy.\n")
	case rho < ClearRho:
		fmt.Fprintf(w, ". No clear relation (|ρ| < %.1f) over these cells.\n", ClearRho)
	default:
		fmt.Fprint(w, ". Positive: this contradicts the expectation that accuracy falls as ‖T̂⁻¹‖₁ grows.\n")
	}
	fmt.Fprintf(w, "- Cells with ‖T̂⁻¹‖₁ above the warning threshold %d (`estimators.TroubleInvNorm1`): %s; at or below: %s.\n\n",
		estimators.TroubleInvNorm1, fmtMean(above), fmtMean(below))
}

func fmtRho(r float64) string {
	if math.IsNaN(r) {
		return "ρ = n/a"
	}
	return fmt.Sprintf("ρ = %.2f", r)
}

func fmtMean(v []float64) string {
	if len(v) == 0 {
		return "no cell"
	}
	return fmt.Sprintf("mean accuracy %.4f over %s", stat.Mean(v, nil), cellCount(len(v)))
}

// fmtInvNorm formats a cell's ‖T̂⁻¹‖₁: "∞" when its groups' T̂ were
// singular (an infinite norm once made the plot fail).
func fmtInvNorm(v float64) string {
	if math.IsInf(v, 1) {
		return "∞"
	}
	return fmt.Sprintf("%.4g", v)
}

// TroublePlot saves a PNG at path: the test accuracy of every LLPFC cell
// against its ‖T̂⁻¹‖₁ (log scale, the warning threshold as a vertical line),
// one colour per protocol and one marker per method, the cells whose
// ‖T̂⁻¹‖₁ is infinite (singular T̂) drawn at the right edge with a cross; and,
// when there are KL cells, beside it a panel of their accuracy against bag
// size (log₂ axis), one colour per protocol. Without KL cells the plot has
// the left panel only (an empty log-scale panel once panicked).
func TroublePlot(path string, pts []TroublePoint) (err error) {
	defer recoverPlot(path, &err)
	left := troubleLeft(pts)
	right := troubleRight(pts)
	const h = 4.8 * vg.Inch
	w := 6 * vg.Inch
	row := []*plot.Plot{left}
	if right != nil {
		w, row = 12*vg.Inch, append(row, right)
	}
	img := vgimg.New(w, h)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: len(row), PadX: vg.Points(12), PadTop: vg.Points(6), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(12)}
	canvases := plot.Align([][]*plot.Plot{row}, tiles, dc)
	for i, pl := range row {
		pl.Draw(canvases[0][i])
	}
	return atomicfile.Write(path, func(wr io.Writer) error {
		_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(wr)
		return err
	})
}

// recoverPlot turns a panic of the plotting library into the error of the
// plot at path (a plot must never take the report down with it).
func recoverPlot(path string, err *error) {
	if v := recover(); v != nil {
		*err = fmt.Errorf("plot %s: %v", path, v)
	}
}

// newTroublePanel returns an empty panel with the style of both panels.
func newTroublePanel(title, x string) *plot.Plot {
	pl := plot.New()
	pl.Title.Text = title
	pl.X.Label.Text, pl.Y.Label.Text = x, "test accuracy"
	pl.Title.Padding = vg.Points(10)
	pl.Y.Min, pl.Y.Max = 0, 1
	pl.Add(plotter.NewGrid())
	pl.Legend.Top, pl.Legend.Left = false, true
	return pl
}

// troubleLeft is the LLPFC panel of TroublePlot.
func troubleLeft(pts []TroublePoint) *plot.Plot {
	left := newTroublePanel("LLPFC: accuracy vs ‖inv(T)‖₁ of its groups", // the plot font has no combining hat nor superscript minus
		"‖inv(T)‖₁ (median over groups, log scale)")
	left.X.Scale, left.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	protos, methods := map[string]int{}, map[string]int{}
	lo, hi := float64(estimators.TroubleInvNorm1), float64(estimators.TroubleInvNorm1)
	anyInf := false
	for _, p := range pts {
		if _, ok := protos[p.Protocol]; !ok {
			protos[p.Protocol] = len(protos)
		}
		if p.InvNorm1 > 0 {
			if _, ok := methods[p.Method]; !ok {
				methods[p.Method] = len(methods)
			}
			if math.IsInf(p.InvNorm1, 1) {
				anyInf = true
			} else {
				lo, hi = min(lo, p.InvNorm1), max(hi, p.InvNorm1)
			}
		}
	}
	// A margin of a third of a decade on each side; the singular cells at
	// the right edge, in a wider margin.
	left.X.Min, left.X.Max = lo/2, hi*2
	edge := hi * 2.5
	if anyInf {
		left.X.Max = hi * 4
	}
	type series struct {
		proto, method string
		inf           bool
	}
	groups := map[series]plotter.XYs{}
	var order []series
	for _, p := range pts {
		if p.InvNorm1 == 0 {
			continue
		}
		s := series{p.Protocol, p.Method, math.IsInf(p.InvNorm1, 1)}
		if _, ok := groups[s]; !ok {
			order = append(order, s)
		}
		x := p.InvNorm1
		if s.inf {
			x = edge
		}
		groups[s] = append(groups[s], plotter.XY{X: x, Y: p.Accuracy})
	}
	for _, s := range order {
		sc, err := plotter.NewScatter(groups[s])
		if err != nil {
			panic(err) // unreachable: finite points
		}
		sc.Color = okabeIto[(protos[s.proto]+1)%len(okabeIto)] // colour-blind safe
		sc.Shape = plotutil.Shape(methods[s.method])
		label := fmt.Sprintf("%s, %s", experiments.MethodLabel(s.method), s.proto)
		if s.inf {
			sc.Shape = draw.CrossGlyph{}
			label += ": ∞ (singular T), at the edge"
		}
		left.Add(sc)
		left.Legend.Add(label, sc)
	}
	line, err := plotter.NewLine(plotter.XYs{{X: estimators.TroubleInvNorm1, Y: 0}, {X: estimators.TroubleInvNorm1, Y: 1}})
	if err != nil {
		panic(err) // unreachable: finite points
	}
	line.Color = color.Gray{Y: 128}
	line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	left.Add(line)
	left.Legend.Add(fmt.Sprintf("warning threshold %d", estimators.TroubleInvNorm1), line)
	return left
}

// troubleRight is the KL panel of TroublePlot, nil without KL cells.
func troubleRight(pts []TroublePoint) *plot.Plot {
	protos := map[string]int{}
	var bags []int
	groups := map[string]plotter.XYs{}
	var order []string
	for _, p := range pts {
		if _, ok := protos[p.Protocol]; !ok {
			protos[p.Protocol] = len(protos)
		}
		if p.InvNorm1 != 0 || p.Method != training.MethodKL || p.BagSize == 0 {
			continue // the other baselines, the ceiling and bags of varying sizes stay in the tables
		}
		if !slices.Contains(bags, p.BagSize) {
			bags = append(bags, p.BagSize)
		}
		if _, ok := groups[p.Protocol]; !ok {
			order = append(order, p.Protocol)
		}
		groups[p.Protocol] = append(groups[p.Protocol], plotter.XY{X: float64(p.BagSize), Y: p.Accuracy})
	}
	if len(bags) == 0 {
		return nil
	}
	sort.Ints(bags)
	right := newTroublePanel("KL: accuracy vs bag size", "bag size (log₂ scale)")
	right.X.Scale = plot.LogScale{}
	var ticks []plot.Tick
	for _, b := range bags {
		ticks = append(ticks, plot.Tick{Value: float64(b), Label: fmt.Sprint(b)})
	}
	right.X.Tick.Marker = plot.ConstantTicks(ticks)
	right.X.Min, right.X.Max = float64(bags[0])/1.25, float64(bags[len(bags)-1])*1.25
	for _, proto := range order {
		sc, err := plotter.NewScatter(groups[proto])
		if err != nil {
			panic(err) // unreachable: finite points
		}
		sc.Color = okabeIto[(protos[proto]+1)%len(okabeIto)]
		sc.Shape = draw.CircleGlyph{}
		right.Add(sc)
		right.Legend.Add(fmt.Sprintf("%s, %s", experiments.MethodLabel(training.MethodKL), proto), sc)
	}
	return right
}
