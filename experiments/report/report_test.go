package report

import (
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/experiments/internal/gridtest"
	"github.com/llpfc/llpfc/fixtures/paper"
	"github.com/llpfc/llpfc/training"
	"github.com/llpfc/llpfc/training/methods"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The report renders a markdown table in the paper's layout whose entries are
// the mean and population std over seeds of the stored accuracies (computed
// here independently), and a readable PNG plot.
func TestReportFromStore(t *testing.T) {
	dir := t.TempDir()
	gridtest.Run(t, dir, grid.Shard{})
	st, _ := grid.OpenStore(dir)
	out := t.TempDir()
	files, md, err := WriteReport(st, out)
	require.NoError(t, err)
	text := string(md)
	b, _ := os.ReadFile(files.Markdown)
	assert.Equal(t, text, string(b), "report.md differs from the returned markdown")
	rs, _ := st.All()
	for _, method := range []string{"llpfc-uniform", "llpfc-approx", "kl"} {
		var row []string
		for _, bag := range []int{8, 32} {
			var xs []float64
			for _, r := range rs {
				if r.Config.Method == method && r.Config.BagSize == bag {
					xs = append(xs, r.Metrics.TestAccuracy)
				}
			}
			require.Lenf(t, xs, 2, "%s/%d: %d results", method, bag, len(xs))
			mean := (xs[0] + xs[1]) / 2
			std := math.Abs(xs[0]-xs[1]) / 2 // population std of two numbers
			row = append(row, fmt.Sprintf("%.4f ± %.4f", mean, std))
		}
		want := fmt.Sprintf("| %s | %s | %s |", experiments.MethodLabel(method), row[0], row[1])
		assert.Containsf(t, text, want, "report lacks row %q:\n%s", want, text)
	}
	assert.Containsf(t, text, "| Method | 8 | 32 |", "unexpected layout (a gmm data set has no paper row):\n%s", text)
	assert.NotContainsf(t, text, "(paper)", "unexpected layout (a gmm data set has no paper row):\n%s", text)
	require.Lenf(t, files.Plots, 1, "%d plots, want 1", len(files.Plots))
	f, err := os.Open(files.Plots[0])
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoErrorf(t, err, "plot is not a PNG: %v", err)
	bounds := img.Bounds()
	assert.GreaterOrEqualf(t, bounds.Dx(), 300, "plot is %v, too small to read", bounds)
	assert.GreaterOrEqualf(t, bounds.Dy(), 200, "plot is %v, too small to read", bounds)
}

// Where model, data set and protocol match a paper table, the paper's row is
// printed under ours, with "Out of RAM" where the paper has it.
func TestReportPaperRows(t *testing.T) {
	st, _ := grid.OpenStore(t.TempDir())
	for _, seed := range []int64{0, 1} {
		for _, bag := range []int{32, 2048} {
			c := experiments.Config{Learner: "gorgonia", Normalize: "standardize", Dataset: experiments.CIFAR10, Model: "wrn-16-4", Method: "kl", Protocol: "paper",
				BagSize: bag, NumPoints: 40960, Seed: seed,
				Hyper: experiments.Hyper{Epochs: 1, Optimizer: "sgd", LR: 0.1, BatchSize: 2, Schedule: experiments.Schedule{Kind: "constant"}}}
			r := &grid.Result{Format: grid.ResultFormat, Key: c.Key(), Spec: "wrn16-4", Seed: seed, Config: c,
				Metrics: experiments.Metrics{TestAccuracy: 0.5 + 0.1*float64(seed), Epochs: 1}}
			require.NoError(t, st.Put(r))
		}
	}
	rs, _ := st.All()
	entries, err := paper.Entries()
	require.NoError(t, err)
	tables, err := BuildTables(rs, entries)
	require.NoError(t, err)
	require.Lenf(t, tables, 1, "%d tables", len(tables))
	var sb strings.Builder
	tables[0].Markdown(&sb)
	for _, want := range []string{
		"| KL | 0.5500 ± 0.0500 | 0.5500 ± 0.0500 |",
		"| KL (paper) | 0.4255 ± 0.13 | Out of RAM |",
		"Table `tab: wideresnet.acc`",
	} {
		assert.Containsf(t, sb.String(), want, "report lacks %q:\n%s", want, sb.String())
	}
	assert.NoError(t, tables[0].Plot(t.TempDir()+"/p.png"))
}

// Two configurations in one slot are an error naming both cells.
func TestReportRejectsMixedConfigurations(t *testing.T) {
	var rs []*grid.Result
	for _, epochs := range []int{1, 2} {
		c := experiments.Config{Learner: "logreg", Normalize: "standardize", Dataset: "gmm:", Model: "linear", Method: "kl", Protocol: "paper",
			BagSize: 8, NumPoints: 64, Seed: 0,
			Hyper: experiments.Hyper{Epochs: epochs, Optimizer: "sgd", LR: 0.1, BatchSize: 2, Schedule: experiments.Schedule{Kind: "constant"}}}
		rs = append(rs, &grid.Result{Format: grid.ResultFormat, Key: c.Key(), Spec: "s", Config: c})
	}
	_, err := BuildTables(rs, nil)
	assert.ErrorContainsf(t, err, rs[0].Key, "err %v, want one naming both keys", err)
	assert.ErrorContainsf(t, err, rs[1].Key, "err %v, want one naming both keys", err)
}

// The plot's axes and title: bag size on a log₂ axis (equal distances per
// doubling) whose ticks are exactly the table's bag sizes, and a title with
// room above it (the top rows of the image blank, the title drawn below).
func TestPlotLogAxisTicksAndTitle(t *testing.T) {
	tb := &Table{TableKey: grid.TableKey{Spec: "quick", Model: "mlp", Dataset: "fashion-mnist-fixture", Protocol: "paper"},
		Methods: []string{"kl"}, BagSizes: []int{64, 512, 2048}, Ours: map[Slot]Stat{}}
	for i, b := range tb.BagSizes {
		m := 0.8 - 0.1*float64(i)
		tb.Ours[Slot{"kl", b}] = Stat{Mean: m, Std: 0.01, Lo: m - 0.02, Hi: m + 0.01}
	}
	p, leg, err := tb.newPlot()
	require.NoError(t, err)
	_, isLog := p.X.Scale.(plot.LogScale)
	assert.True(t, isLog, "bag size on a log scale")
	var labels []string
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		labels = append(labels, tk.Label)
	}
	assert.Equal(t, []string{"64", "512", "2048"}, labels, "the ticks are the bag sizes")
	pos := func(b float64) float64 { return p.X.Norm(b) }
	assert.InDelta(t, 1.5, (pos(512)-pos(64))/(pos(2048)-pos(512)), 1e-9, "3 doublings from 64 to 512, 2 from 512 to 2048")
	path := filepath.Join(t.TempDir(), "p.png")
	require.NoError(t, tb.Plot(path))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	dark := func(y int) bool { // a dark, opaque pixel in row y
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			if r, g, b, a := img.At(x, y).RGBA(); a > 0x8000 && r+g+b < 3*0x8000 {
				return true
			}
		}
		return false
	}
	top := img.Bounds().Min.Y
	for y := top; y < top+5; y++ {
		assert.False(t, dark(y), "row %d of the image has ink: the title touches the top edge", y)
	}
	drawn := false
	for y := top + 5; y < top+60; y++ {
		drawn = drawn || dark(y)
	}
	assert.True(t, drawn, "the title is drawn near the top")
	// The legend is beside the axes (off the data, which it once hid): the plot's
	// own legend is empty, and the column right of the axes has ink.
	probe := draw.New(vgimg.New(100, 100))
	assert.Zero(t, p.Legend.Rectangle(probe).Size().Y, "nothing drawn over the data")
	assert.Positive(t, leg.Rectangle(probe).Size().Y, "the methods' legend")
	inkRight := false
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Max.X * 7 / 9; x < img.Bounds().Max.X; x++ { // right of the 7-inch axes
			if r, g, b, a := img.At(x, y).RGBA(); a > 0x8000 && r+g+b < 3*0x8000 {
				inkRight = true
			}
		}
	}
	assert.True(t, inkRight, "the legend is drawn in its column")
}

// TestMethodStylesAreDistinct: every registered method has its
// own colour and marker in every plot (KL and the supervised ceiling shared
// red), from the Okabe–Ito palette.
func TestMethodStylesAreDistinct(t *testing.T) {
	seen := map[string]string{}
	for _, d := range methods.All() {
		c, g, _ := methodStyle(d.Name)
		k := fmt.Sprintf("%v/%T%v", c, g, g)
		assert.NotContains(t, seen, k, "%s and %s look alike", d.Name, seen[k])
		seen[k] = d.Name
		assert.Contains(t, okabeIto, c, d.Name)
	}
}

// Every method's line in a report says which epoch's accuracy its cells
// report (the paper and the authors' scripts do not say which
// epoch their tables give; ours must): the last epoch under hyper.select
// last, or under best-val the epoch of lowest validation KL on the held-out
// bags, with the epochs the seeds chose, 1-based.
func TestReportStatesTheReportedEpoch(t *testing.T) {
	bestVal := func(bags float64, epochs ...int) []*grid.Result {
		var rs []*grid.Result
		for i, e := range epochs {
			r := tableCell("llpfc-uniform", 32, int64(i), func(c *experiments.Config) {
				c.Hyper.Select, c.Hyper.ValBags = training.SelectBestVal, bags
			})
			e := e
			r.Metrics.SelectedEpoch = &e
			rs = append(rs, r)
		}
		return rs
	}
	cases := []struct {
		name string
		rs   []*grid.Result
		want string
	}{
		{"default select", []*grid.Result{tableCell("kl", 32, 0, nil), tableCell("llpfc-uniform", 32, 0, nil)},
			"10 epochs, accuracy of the last epoch, adam"},
		{"select last", []*grid.Result{tableCell("llpfc-uniform", 32, 0, func(c *experiments.Config) { c.Hyper.Select = training.SelectLast })},
			"- LLPFC-uniform: 40960 training points, 10 epochs, accuracy of the last epoch, adam"},
		{"best-val, a number of bags", bestVal(4, 8, 4, 8),
			"10 epochs, accuracy of the epoch of lowest validation KL on 4 held-out bags (epochs chosen: 4, 8), adam"},
		{"best-val, a fraction", bestVal(0.1, 10),
			"10 epochs, accuracy of the epoch of lowest validation KL on 10% of the bags held out (epochs chosen: 10), adam"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tables, err := BuildTables(c.rs, nil)
			require.NoError(t, err)
			require.Len(t, tables, 1)
			var sb strings.Builder
			tables[0].Markdown(&sb)
			md := sb.String()
			assert.Contains(t, md, c.want)
			for _, m := range tables[0].Methods {
				assert.Regexpf(t, "(?m)^- "+regexp.QuoteMeta(experiments.MethodLabel(m))+": .*, accuracy of the (last epoch|epoch of lowest validation KL)", md, "%s's line states no reported epoch", m)
			}
		})
	}
}
