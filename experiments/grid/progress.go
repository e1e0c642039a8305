package grid

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/llpfc/llpfc/experiments"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// gridProgress shows the grid's progress (cells, ETA from the mean time per
// finished cell) and the running cell's (epochs, ETA from the mean time per
// finished epoch).
type gridProgress struct {
	w        io.Writer
	tty      bool
	bar      *progressbar.ProgressBar
	name     string
	shard    Shard
	total    int
	skipped  int
	now      func() time.Time
	gridT0   time.Time
	done     int
	idx      int
	cell     experiments.Cell
	cellT0   time.Time
	lastLine time.Time
	lastWait time.Time
}

func newGridProgress(w io.Writer, name string, shard Shard, total, skipped int, now func() time.Time) *gridProgress {
	g := &gridProgress{w: w, name: name, shard: shard, total: total, skipped: skipped, now: now, gridT0: now()}
	if w == nil {
		g.w = io.Discard
		return g
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		g.tty = true
	}
	fmt.Fprintf(g.w, "llpfc run %s (shard %s): %d cells to run, %d already finished\n", name, shard, total, skipped)
	return g
}

func (g *gridProgress) gridETA() string {
	if g.done == 0 {
		return "?"
	}
	per := g.now().Sub(g.gridT0) / time.Duration(g.done)
	return fmtDur(per * time.Duration(g.total-g.done))
}

func describe(c experiments.Cell) string {
	return fmt.Sprintf("%s %s bag %d seed %d", c.Config.Dataset, c.Config.Method, c.Config.BagSize, c.Config.Seed)
}

func (g *gridProgress) startCell(i int, c experiments.Cell) {
	g.idx, g.cell, g.cellT0 = i, c, g.now()
	desc := fmt.Sprintf("[%d/%d, grid ETA %s] %s", i+1, g.total, g.gridETA(), describe(c))
	if g.tty {
		g.bar = progressbar.NewOptions(c.Config.Passes(c.Config.NumPoints),
			progressbar.OptionSetWriter(g.w),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetWidth(20),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(g.w) }),
		)
		return
	}
	fmt.Fprintf(g.w, "cell %d/%d start: %s (key %s); grid ETA %s\n", i+1, g.total, describe(c), c.Key, g.gridETA())
	g.lastLine = g.now()
}

// Epoch implements Progress for the running cell.
func (g *gridProgress) Epoch(done, total int, status string) {
	if g.bar != nil {
		if total > 0 && total != g.bar.GetMax() {
			g.bar.ChangeMax(total)
		}
		g.bar.Describe(fmt.Sprintf("[%d/%d, grid ETA %s] %s %s", g.idx+1, g.total, g.gridETA(), describe(g.cell), status))
		g.bar.Set(done)
		return
	}
	if g.w == io.Discard {
		return
	}
	t := g.now()
	if done < total && t.Sub(g.lastLine) < 5*time.Second {
		return // plain output: at most one line every 5 s, and the last epoch
	}
	g.lastLine = t
	eta := "?"
	if done > 0 {
		eta = fmtDur(t.Sub(g.cellT0) / time.Duration(done) * time.Duration(total-done))
	}
	fmt.Fprintf(g.w, "  cell %d/%d epoch %d/%d %s; cell ETA %s\n", g.idx+1, g.total, done, total, status, eta)
}

func (g *gridProgress) endCell(c experiments.Cell, m experiments.Metrics, d time.Duration) {
	g.done++
	if g.bar != nil {
		g.bar.Finish()
		g.bar = nil
	}
	outcome := fmt.Sprintf("test accuracy %.4f", m.TestAccuracy)
	if !m.HasTest() {
		outcome = fmt.Sprintf("no test split, bags' proportion error %.4f", m.BagProportionError)
	}
	fmt.Fprintf(g.w, "cell %d/%d done: %s %s in %s; grid ETA %s\n",
		g.idx+1, g.total, describe(c), outcome, fmtDur(d), g.gridETA())
}

func (g *gridProgress) failCell(c experiments.Cell, err error) {
	g.done++
	if g.bar != nil {
		g.bar.Exit()
		g.bar = nil
		fmt.Fprintln(g.w)
	}
	fmt.Fprintf(g.w, "cell %d/%d FAILED: %s (key %s): %v\n", g.idx+1, g.total, describe(c), c.Key, err)
}

// elsewhere says that cell i, c, was finished by another run on the store.
func (g *gridProgress) elsewhere(i int, c experiments.Cell) {
	g.done++
	fmt.Fprintf(g.w, "cell %d/%d finished by another run on the store: %s (key %s)\n", i+1, g.total, describe(c), c.Key)
}

// waiting says, at most once a minute, that n cells are claimed by another
// run (holder, one of them) and waited for.
func (g *gridProgress) waiting(n int, holder string) {
	if t := g.now(); !g.lastWait.IsZero() && t.Sub(g.lastWait) < time.Minute {
		return
	}
	g.lastWait = g.now()
	fmt.Fprintf(g.w, "waiting for %d cells that another run on the store is training (%s)\n", n, holder)
}

func (g *gridProgress) finish() {
	fmt.Fprintf(g.w, "llpfc run %s (shard %s): %d cells run in %s\n", g.name, g.shard, g.done, fmtDur(g.now().Sub(g.gridT0)))
}

func fmtDur(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
