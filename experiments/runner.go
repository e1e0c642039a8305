package experiments

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/llpfc/llpfc/training"
)

// Shard selects part of a grid: shard Index of Count (1 ≤ Index ≤ Count).
// The zero Shard selects everything.
type Shard struct {
	Index, Count int
}

// ParseShard reads "i/n" with 1 ≤ i ≤ n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want i/n, e.g. 1/4", s)
	}
	if n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("shard %q: want 1 ≤ i ≤ n", s)
	}
	return Shard{Index: i, Count: n}, nil
}

// Slurm's job-array variables, read by ParseShardAuto.
const (
	SlurmArrayTaskID    = "SLURM_ARRAY_TASK_ID"
	SlurmArrayTaskMin   = "SLURM_ARRAY_TASK_MIN"
	SlurmArrayTaskMax   = "SLURM_ARRAY_TASK_MAX"
	SlurmArrayTaskCount = "SLURM_ARRAY_TASK_COUNT"
	SlurmArrayTaskStep  = "SLURM_ARRAY_TASK_STEP"
)

// ParseShardAuto reads the shard of a Slurm array task from its environment
// (getenv, e.g. os.Getenv). s is "auto" or "auto/N":
//
//   - "auto": the array is the grid: the task with ID i of an array with
//     IDs MIN, MIN+STEP, …, MAX (COUNT of them) runs shard
//     (i − MIN)/STEP + 1 of COUNT, so one job line serves any array size
//     (`--array=1-16`, `--array=0-7`, `--array=1-31:2`). The array must be a
//     range: a list such as `--array=1,2,5` is refused, since its COUNT
//     does not say how many shards the grid was cut into.
//   - "auto/N": the task IDs are the shard numbers of a grid cut into N:
//     the task with ID i runs shard i/N (1 ≤ i ≤ N), whatever the array's
//     other tasks. This is the form for running some shards again:
//     `--array=3,7` reruns shards 3 and 7 of N.
//
// A missing, non-numeric or inconsistent variable is an error that names it.
func ParseShardAuto(s string, getenv func(string) string) (Shard, error) {
	num := func(name string) (int, error) {
		v := getenv(name)
		if v == "" {
			return 0, fmt.Errorf("shard %q: $%s is not set (not inside a Slurm job array? submit with sbatch --array, or give --shard i/n)", s, name)
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, fmt.Errorf("shard %q: $%s = %q is not an integer", s, name, v)
		}
		return n, nil
	}
	id, err := num(SlurmArrayTaskID)
	if err != nil {
		return Shard{}, err
	}
	if rest, ok := strings.CutPrefix(s, "auto/"); ok {
		n, err := strconv.Atoi(rest)
		if err != nil || n < 1 {
			return Shard{}, fmt.Errorf("shard %q: want auto/N with N ≥ 1 shards", s)
		}
		if id < 1 || id > n {
			return Shard{}, fmt.Errorf("shard %q: $%s = %d, want a shard number 1 ≤ ID ≤ %d (submit with --array within 1-%d)", s, SlurmArrayTaskID, id, n, n)
		}
		return Shard{Index: id, Count: n}, nil
	}
	if s != "auto" {
		return Shard{}, fmt.Errorf("shard %q: want auto, auto/N or i/n", s)
	}
	lo, err := num(SlurmArrayTaskMin)
	if err != nil {
		return Shard{}, err
	}
	count, err := num(SlurmArrayTaskCount)
	if err != nil {
		return Shard{}, err
	}
	step := 1
	if getenv(SlurmArrayTaskStep) != "" {
		if step, err = num(SlurmArrayTaskStep); err != nil {
			return Shard{}, err
		}
	}
	if step < 1 || count < 1 {
		return Shard{}, fmt.Errorf("shard %q: $%s = %d and $%s = %d, want both ≥ 1", s, SlurmArrayTaskStep, step, SlurmArrayTaskCount, count)
	}
	hi := lo + (count-1)*step
	if v := getenv(SlurmArrayTaskMax); v != "" {
		if hi2, err := num(SlurmArrayTaskMax); err != nil {
			return Shard{}, err
		} else if hi2 != hi {
			return Shard{}, fmt.Errorf("shard %q: the array is not a range (MIN %d, MAX %d, STEP %d, but COUNT %d): with a list of task IDs use --shard auto/N, the task IDs being the shard numbers", s, lo, hi2, step, count)
		}
	}
	if id < lo || id > hi || (id-lo)%step != 0 {
		return Shard{}, fmt.Errorf("shard %q: $%s = %d is not in the array %d-%d:%d", s, SlurmArrayTaskID, id, lo, hi, step)
	}
	return Shard{Index: (id-lo)/step + 1, Count: count}, nil
}

func (s Shard) String() string {
	if s.Count == 0 {
		return "all"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Select returns the cells of shard s, in their original order. Cells are
// ranked by key and dealt round-robin, so the n shards partition the grid,
// differ in size by at most one, and depend only on the set of keys (the same
// on every machine).
func (s Shard) Select(cells []Cell) []Cell {
	if s.Count <= 1 {
		return cells
	}
	keys := make([]string, len(cells))
	for i, c := range cells {
		keys[i] = c.Key
	}
	sort.Strings(keys)
	mine := map[string]bool{}
	for r, k := range keys {
		if r%s.Count == s.Index-1 {
			mine[k] = true
		}
	}
	var out []Cell
	for _, c := range cells {
		if mine[c.Key] {
			out = append(out, c)
		}
	}
	return out
}

// Runner runs the cells of a spec into a Store, one at a time, skipping the
// finished ones.
type Runner struct {
	Store   *Store
	Shard   Shard
	DataDir string
	// Device, when set, is the compute back end of every cell, in place of
	// the spec's Device ("" leaves the spec's; see Spec.Device).
	Device string
	// SaveModels keeps every cell's trained network in the store, as
	// STORE/models/KEY.npz with its manifest KEY.json (SaveModel; learners
	// that cannot export skip it); false keeps none.
	SaveModels bool
	// Log receives progress: bars when it is a terminal, plain lines
	// otherwise. Nil discards progress.
	Log io.Writer
	// Now is the clock (tests may replace it); nil means time.Now.
	Now func() time.Time
}

// Summary counts what Run did.
type Summary struct {
	Cells    int // cells of the whole grid
	InShard  int // cells of this shard
	Skipped  int // already in the store
	Finished int // run and stored now
	Failed   []CellError
	// Damaged lists where damaged result files were moved (DIR/damaged/…);
	// their cells were run again.
	Damaged []string
	// With Runner.SaveModels: Remodelled counts the finished cells trained
	// again to save the model they lacked (their stored results kept), and
	// Unsaved the cells whose learner or model saves no network (issue 38,
	// item 9: --save-models on a finished store wrote nothing and said
	// nothing).
	Remodelled, Unsaved int
}

// ModelSaver is implemented by a Learner that saves a cell's trained
// network when Cell.ModelPath is set: SavesModel reports whether it does
// for c.
type ModelSaver interface {
	SavesModel(c Config) bool
}

// SavesModel implements ModelSaver: every network that exports a state
// dict (training.CanExport).
func (Gorgonia) SavesModel(c Config) bool { return training.CanExport(c.Model) == nil }

// savesModel reports whether c's learner saves its network.
func savesModel(c Config) bool {
	l, err := LookupLearner(c.Learner)
	if err != nil {
		return false
	}
	ms, ok := l.(ModelSaver)
	return ok && ms.SavesModel(c)
}

// modelPath is where the store keeps cell key's network (Runner.SaveModels).
func (r *Runner) modelPath(key string) string { return filepath.Join(r.Store.Dir, "models", key) }

// lacksModel reports whether the finished cell c should have a saved model
// that the store does not hold.
func (r *Runner) lacksModel(c Cell) bool {
	if !r.SaveModels || !savesModel(c.Config) {
		return false
	}
	npz, manifest := ModelFiles(r.modelPath(c.Key))
	_, e1 := os.Stat(npz)
	_, e2 := os.Stat(manifest)
	return e1 != nil || e2 != nil
}

// CellError is a cell whose learner failed.
type CellError struct {
	Key string
	Err error
}

func (e CellError) Error() string { return fmt.Sprintf("cell %s: %v", e.Key, e.Err) }

// Run expands spec, checks it against its data (Spec.CheckData: an
// *InputError when that fails), keeps the runner's shard, and trains every
// cell not yet in the store with the spec's learner, storing each result as
// soon as it is finished. A failing cell is reported in Summary.Failed and the grid goes
// on; a cancelled ctx stops the grid at once (the cell in flight is lost).
func (r *Runner) Run(ctx context.Context, spec *Spec) (Summary, error) {
	cells, err := spec.Cells()
	if err != nil {
		return Summary{}, &InputError{err}
	}
	sum := Summary{Cells: len(cells)}
	// What would fail every cell fails now, before any cell (issue 27).
	missing, err := spec.CheckData(r.DataDir)
	if err != nil {
		return sum, &InputError{fmt.Errorf("spec %s: %w", spec.Name, err)}
	}
	if len(missing) > 0 {
		return sum, &InputError{fmt.Errorf("spec %s: data not found, nothing was run: %w", spec.Name, errors.Join(missing...))}
	}
	mine := r.Shard.Select(cells)
	sum.InShard = len(mine)
	var todo, remodel []Cell
	for _, c := range mine {
		if r.SaveModels && !savesModel(c.Config) {
			sum.Unsaved++
		}
		done, bad := r.Store.Get(c.Key)
		switch {
		case bad == nil:
			// Finished, perhaps by another spec with an identical cell: it
			// belongs to this spec too (issue 27, item 6).
			if named, added := done.withSpecs([]string{spec.Name}); added {
				if err := r.Store.Put(named); err != nil {
					return sum, err
				}
			}
			if r.lacksModel(c) {
				remodel = append(remodel, c)
			}
			sum.Skipped++
			continue
		case !errors.Is(bad, os.ErrNotExist):
			// A damaged file is not a finished cell: keep it aside, run again.
			moved, err := r.Store.SetAside(c.Key)
			if err != nil {
				return sum, err
			}
			if r.Log != nil {
				fmt.Fprintf(r.Log, "cell %s: damaged result (%v); moved to %s, the cell runs again\n", c.Key, bad, moved)
			}
			sum.Damaged = append(sum.Damaged, moved)
		}
		todo = append(todo, c)
	}
	for _, c := range todo {
		if _, err := LookupLearner(c.Config.Learner); err != nil {
			return sum, fmt.Errorf("spec %s: %w", spec.Name, err)
		}
	}
	now := r.Now
	if now == nil {
		now = time.Now
	}
	pr := newGridProgress(r.Log, spec.Name, r.Shard, len(todo), sum.Skipped, now)
	for i, c := range todo {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		c.DataDir = r.DataDir
		c.Device = spec.Device
		if r.Device != "" {
			c.Device = r.Device
		}
		if r.SaveModels {
			c.ModelPath = r.modelPath(c.Key)
		}
		l, _ := LookupLearner(c.Config.Learner)
		pr.startCell(i, c)
		start := now()
		m, err := l.Train(ctx, c, pr)
		end := now()
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return sum, ctxErr
			}
			pr.failCell(c, err)
			sum.Failed = append(sum.Failed, CellError{Key: c.Key, Err: err})
			continue
		}
		prov := newProvenance(start, end)
		if m.WallSeconds == 0 {
			m.WallSeconds = prov.WallSeconds
		}
		if m.PeakRSSBytes == 0 {
			m.PeakRSSBytes = prov.PeakRSSBytes
		}
		res := &Result{Format: ResultFormat, Key: c.Key, Spec: c.Spec, Seed: c.Config.Seed,
			Config: c.Config, Metrics: m, Provenance: prov}
		if err := r.Store.Put(res); err != nil {
			return sum, err
		}
		sum.Finished++
		pr.endCell(c, m, end.Sub(start))
	}
	pr.finish()
	return sum, r.remodel(ctx, spec, remodel, &sum)
}

// remodel trains the finished cells again whose saved model the store
// lacks (Runner.SaveModels on a store filled without it), and keeps the
// network only when the run's outcome is the stored result's
// (Result.SameOutcome): a model beside a result it did not make would be
// a model of another run. A cell whose outcome differs (other code made
// its result) is a failure naming both; its result stays as stored.
func (r *Runner) remodel(ctx context.Context, spec *Spec, cells []Cell, sum *Summary) error {
	for _, c := range cells {
		if err := ctx.Err(); err != nil {
			return err
		}
		stored, err := r.Store.Get(c.Key)
		if err != nil {
			return err
		}
		c.DataDir, c.Device = r.DataDir, spec.Device
		if r.Device != "" {
			c.Device = r.Device
		}
		tmp, err := os.MkdirTemp(r.Store.Dir, ".remodel-")
		if err != nil {
			return err
		}
		c.ModelPath = filepath.Join(tmp, c.Key)
		if r.Log != nil {
			fmt.Fprintf(r.Log, "cell %s: finished, but the store has no saved model of it (--save-models): training it again to save it\n", c.Key)
		}
		l, _ := LookupLearner(c.Config.Learner)
		m, err := l.Train(ctx, c, NoProgress{})
		again := &Result{Key: c.Key, Config: c.Config, Metrics: m}
		switch {
		case err != nil && ctx.Err() != nil:
			os.RemoveAll(tmp)
			return ctx.Err()
		case err != nil:
			sum.Failed = append(sum.Failed, CellError{Key: c.Key, Err: fmt.Errorf("trained again to save its model: %w", err)})
		case !stored.SameOutcome(again):
			sum.Failed = append(sum.Failed, CellError{Key: c.Key, Err: fmt.Errorf("trained again to save its model, but this code's run differs from the stored result (test accuracy %v, stored %v; the stored result was made by %s): the model was not kept; run the grid into a new store to have models and results of one code",
				m.TestAccuracy, stored.Metrics.TestAccuracy, stored.Provenance.CodeVersion)})
		default:
			if err := r.keepModel(tmp, c.Key); err != nil {
				os.RemoveAll(tmp)
				return err
			}
			sum.Remodelled++
		}
		os.RemoveAll(tmp)
	}
	return nil
}

// keepModel moves the model saved in tmp into the store's models/.
func (r *Runner) keepModel(tmp, key string) error {
	if err := os.MkdirAll(filepath.Join(r.Store.Dir, "models"), 0o755); err != nil {
		return err
	}
	srcNPZ, srcMan := ModelFiles(filepath.Join(tmp, key))
	dstNPZ, dstMan := ModelFiles(r.modelPath(key))
	if err := os.Rename(srcNPZ, dstNPZ); err != nil {
		return err
	}
	return os.Rename(srcMan, dstMan)
}

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
	cell     Cell
	cellT0   time.Time
	lastLine time.Time
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

func describe(c Cell) string {
	return fmt.Sprintf("%s %s bag %d seed %d", c.Config.Dataset, c.Config.Method, c.Config.BagSize, c.Config.Seed)
}

func (g *gridProgress) startCell(i int, c Cell) {
	g.idx, g.cell, g.cellT0 = i, c, g.now()
	desc := fmt.Sprintf("[%d/%d, grid ETA %s] %s", i+1, g.total, g.gridETA(), describe(c))
	if g.tty {
		g.bar = progressbar.NewOptions(c.Config.Hyper.Epochs,
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

func (g *gridProgress) endCell(c Cell, m Metrics, d time.Duration) {
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

func (g *gridProgress) failCell(c Cell, err error) {
	g.done++
	if g.bar != nil {
		g.bar.Exit()
		g.bar = nil
		fmt.Fprintln(g.w)
	}
	fmt.Fprintf(g.w, "cell %d/%d FAILED: %s (key %s): %v\n", g.idx+1, g.total, describe(c), c.Key, err)
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
