package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image/color"
	"io"
	"strings"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/internal/atomicfile"
	"github.com/llpfc/llpfc/training/methods"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// errPoints are a method's means with ±std error bars.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// Plot draws test accuracy against bag size (log₂ axis) with one line per
// method, each in its own colour and marker (methodStyle: the Okabe–Ito
// palette, safe for colour-blind readers, and a shape, fixed per method
// across every plot), error bars the t interval of the mean at 1 − Alpha
// over the seeds (Stat.Lo, Stat.Hi), and the legend beside the
// axes, off the data; the paper's numbers, where they exist, are dashed
// lines of the same colour. The plot is saved as PNG at path.
func (t *Table) Plot(path string) error {
	p, leg, err := t.newPlot()
	if err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	// gonum/plot puts the title at the canvas's top edge (Title.Padding is
	// the gap below it), where its ascenders touched or were cut by the
	// image's border: the plot is drawn in the canvas less a top margin,
	// the legend in a column of its own at the right.
	const legendWidth = 2.1 * vg.Inch
	c := vgimg.New(7*vg.Inch+legendWidth, 4.5*vg.Inch)
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, 0, -legendWidth, 0, -vg.Points(8)))
	leg.Top, leg.Left = true, true
	leg.Draw(draw.Crop(dc, 7*vg.Inch+vg.Points(6), 0, 0, -vg.Points(30)))
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
		return err
	})
}

// okabeIto is Okabe and Ito's palette of eight colours told apart by
// readers with any common colour-vision deficiency.
// Yellow, the faintest on white, comes last.
var okabeIto = []color.NRGBA{{0, 0, 0, 255}, {230, 159, 0, 255}, {86, 180, 233, 255}, {0, 158, 115, 255},
	{213, 94, 0, 255}, {0, 114, 178, 255}, {204, 121, 167, 255}, {240, 228, 66, 255}}

// methodStyle is method m's colour, marker and dashes in every plot: its
// descriptor's style index i (methods.Descriptor.PlotStyle: declared, or a
// function of its name, never of the other methods registered), the colour
// cycling through okabeIto and the shape through gonum's seven, and the
// line dashed from index 8 on, where the colours repeat: no two of the first
// 56 indices share a colour and a shape, nor two of the first 8 a colour. A
// method not registered is drawn as index 0.
func methodStyle(m string) (color.Color, draw.GlyphDrawer, []vg.Length) {
	i := 0
	if d, ok := methods.Lookup(m); ok {
		i = d.PlotStyle()
	}
	var dashes []vg.Length
	if i >= len(okabeIto) {
		dashes = []vg.Length{vg.Points(6), vg.Points(2), vg.Points(1), vg.Points(2)}
	}
	return okabeIto[i%len(okabeIto)], plotutil.Shape(i % 7), dashes
}

// newPlot builds the plot that Plot draws and its legend.
func (t *Table) newPlot() (*plot.Plot, plot.Legend, error) {
	leg := plot.NewLegend()
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s on %s, protocol %s", t.Spec, t.Model, t.Dataset, t.Protocol)
	p.Title.Padding = vg.Points(10) // the gap between the title and the axes
	p.X.Label.Text = "bag size"
	p.Y.Label.Text = strings.ToLower(metricLabel(t.Metric))
	p.X.Scale = plot.LogScale{}
	var ticks []plot.Tick
	for _, b := range t.BagSizes {
		ticks = append(ticks, plot.Tick{Value: bagSizeX(b), Label: bagSizeText(b)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	if n := len(t.BagSizes); n > 0 { // a margin of a third of a doubling on each side
		p.X.Min, p.X.Max = bagSizeX(t.BagSizes[0])/1.25, bagSizeX(t.BagSizes[n-1])*1.25
	}
	lo, hi := 1.0, 0.0
	for s, st := range t.Ours {
		lo, hi = min(lo, st.Lo), max(hi, st.Hi)
		if e, ok := t.Paper[s]; ok && !e.OutOfRAM {
			lo, hi = min(lo, e.Mean), max(hi, e.Mean)
		}
	}
	// The accuracies' range with a margin, within [0,1].
	p.Y.Min, p.Y.Max = max(0, lo-0.05), min(1, hi+0.05)
	p.Add(plotter.NewGrid())
	for _, m := range t.Methods {
		var pts errPoints
		for _, b := range t.BagSizes {
			if s, ok := t.Ours[Slot{m, b}]; ok {
				pts.XYs = append(pts.XYs, plotter.XY{X: bagSizeX(b), Y: s.Mean})
				pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{s.Mean - s.Lo, s.Hi - s.Mean})
			}
		}
		if len(pts.XYs) == 0 {
			continue
		}
		col, shape, dashes := methodStyle(m)
		line, scatter, err := plotter.NewLinePoints(pts.XYs)
		if err != nil {
			return nil, leg, err
		}
		line.Color, scatter.Color = col, col
		line.Width = vg.Points(1.5)
		line.Dashes = dashes
		scatter.Shape = shape
		bars, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, leg, err
		}
		bars.Color = col
		bars.CapWidth = vg.Points(6)
		p.Add(line, scatter, bars)
		leg.Add(experiments.MethodLabel(m), line, scatter)
		var paperPts plotter.XYs
		for _, b := range t.BagSizes {
			if e, ok := t.Paper[Slot{m, b}]; ok && !e.OutOfRAM {
				paperPts = append(paperPts, plotter.XY{X: bagSizeX(b), Y: e.Mean})
			}
		}
		if len(paperPts) > 0 {
			pl, err := plotter.NewLine(paperPts)
			if err != nil {
				return nil, leg, err
			}
			pl.Color = col
			pl.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			p.Add(pl)
			leg.Add(experiments.MethodLabel(m)+" (paper)", pl)
		}
	}
	return p, leg, nil
}

// PlotNames returns the file name of each table's plot (names must not
// collide, or one plot overwrites another): spec-model-dataset, with -protocol-learner
// appended when tables share that, made portable (sanitize), shortened
// with a hash when long, and numbered -2, -3, … when two still collide
// (compared without case, as on case-insensitive file systems).
// "trouble.png" is reserved.
func PlotNames(tables []*Table) []string {
	base := func(t *Table) string { return fmt.Sprintf("%s-%s-%s", t.Spec, t.Model, t.Dataset) }
	count := map[string]int{}
	for _, t := range tables {
		count[base(t)]++
	}
	used := map[string]bool{troublePNG: true, "report.md": true}
	out := make([]string, len(tables))
	for i, t := range tables {
		n := base(t)
		if count[n] > 1 {
			n += "-" + t.Protocol + "-" + t.Learner
		}
		name := sanitize(n)
		if len(name) > 120 {
			sum := sha256.Sum256([]byte(n))
			name = name[:100] + "-" + hex.EncodeToString(sum[:4])
		}
		cand := name
		for k := 2; used[strings.ToLower(cand+".png")]; k++ {
			cand = fmt.Sprintf("%s-%d", name, k)
		}
		used[strings.ToLower(cand+".png")] = true
		out[i] = cand + ".png"
	}
	return out
}

// sanitize keeps a file name portable.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, s)
}
