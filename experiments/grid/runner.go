package grid

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/experiments/learn"
)

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
	// Unsaved the cells whose learner or model saves no network
	// (--save-models on a finished store once wrote nothing and said
	// nothing).
	Remodelled, Unsaved int
	// Elsewhere counts the cells of Skipped that another run on the store
	// trained while this one ran (claims: claim.go).
	Elsewhere int
}

// savesModel reports whether c's learner saves its network.
func savesModel(c experiments.Config) bool {
	l, err := experiments.LookupLearner(c.Learner)
	if err != nil {
		return false
	}
	ms, ok := l.(experiments.ModelSaver)
	return ok && ms.SavesModel(c)
}

// modelPath is where the store keeps cell key's network (Runner.SaveModels).
func (r *Runner) modelPath(key string) string { return filepath.Join(r.Store.Dir, "models", key) }

// lacksModel reports whether the finished cell c should have a saved model
// that the store does not hold.
func (r *Runner) lacksModel(c experiments.Cell) bool {
	if !r.SaveModels || !savesModel(c.Config) {
		return false
	}
	npz, manifest := learn.ModelFiles(r.modelPath(c.Key))
	_, e1 := os.Stat(npz)
	_, e2 := os.Stat(manifest)
	return e1 != nil || e2 != nil
}

// codeVersion is experiments.CodeVersion (a variable so that the tests can
// make it unknown).
var codeVersion = experiments.CodeVersion

// CellError is a cell whose learner failed.
type CellError struct {
	Key string
	Err error
}

func (e CellError) Error() string { return fmt.Sprintf("cell %s: %v", e.Key, e.Err) }

// Run expands spec, checks it against its data (Spec.CheckData: an
// *InputError when that fails), keeps the runner's shard, and trains every
// cell not yet in the store with the spec's learner, storing each result as
// soon as it is finished, with its data's digest (Result.DataDigest). A
// finished cell whose data's files changed since it ran is an *InputError
// naming the data set, its files and the cells, before any cell trains. A failing cell is reported in Summary.Failed and the grid goes
// on, its reason kept in the store (Store.PutFailure) until a run finishes
// it; a cancelled ctx stops the grid at once (the cell in flight is lost).
func (r *Runner) Run(ctx context.Context, spec *Spec) (Summary, error) {
	cells, err := spec.Cells()
	if err != nil {
		return Summary{}, &experiments.InputError{Err: err}
	}
	sum := Summary{Cells: len(cells)}
	// What would fail every cell fails now, before any cell.
	missing, err := spec.CheckData(r.DataDir)
	if err != nil {
		return sum, &experiments.InputError{Err: fmt.Errorf("spec %s: %w", spec.Name, err)}
	}
	if len(missing) > 0 {
		return sum, &experiments.InputError{Err: fmt.Errorf("spec %s: data not found, nothing was run: %w", spec.Name, errors.Join(missing...))}
	}
	if err := r.checkFits(spec, cells); err != nil {
		return sum, err
	}
	mine := r.Shard.Select(cells)
	sum.InShard = len(mine)
	digests := dataDigests{dir: r.DataDir, of: map[string]string{}}
	var changed []*Result // finished cells whose data changed since they ran
	unchecked := 0        // finished cells stored before their data's digest
	var todo, remodel []experiments.Cell
	for _, c := range mine {
		if r.SaveModels && !savesModel(c.Config) {
			sum.Unsaved++
		}
		done, bad := r.Store.Get(c.Key)
		switch {
		case bad == nil:
			now, err := digests.get(c.Config.Dataset)
			if err != nil {
				return sum, &experiments.InputError{Err: fmt.Errorf("spec %s: %w", spec.Name, err)}
			}
			switch {
			case done.DataDigest != "" && now != done.DataDigest:
				changed = append(changed, done)
				continue
			case done.DataDigest == "" && now != "":
				unchecked++
			}
			// Finished, perhaps by another spec with an identical cell: it
			// belongs to this spec too.
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
	if len(changed) > 0 {
		return sum, &experiments.InputError{Err: fmt.Errorf("spec %s: %s; nothing was run", spec.Name, staleCells(changed, r.DataDir))}
	}
	if rev, _ := codeVersion(); rev == "unknown" && len(todo)+len(remodel) > 0 && r.Log != nil {
		// A store whose cells cannot be traced to their code is worth a word
		// before they train: the cells would record "unknown".
		fmt.Fprintf(r.Log, "note: this binary's code version is unknown (it carries no VCS stamp, e.g. built with -buildvcs=false, and its source tree is not a git checkout any more): the cells will record \"unknown\"; build with -buildvcs=true, or keep the checkout it was built from\n")
	}
	if unchecked > 0 && r.Log != nil {
		fmt.Fprintf(r.Log, "note: %d finished cells were stored before results recorded their data's digest: whether their data changed since is not checked\n", unchecked)
	}
	for _, c := range todo {
		if _, err := experiments.LookupLearner(c.Config.Learner); err != nil {
			return sum, fmt.Errorf("spec %s: %w", spec.Name, err)
		}
	}
	now := r.Now
	if now == nil {
		now = time.Now
	}
	pr := newGridProgress(r.Log, spec.Name, r.Shard, len(todo), sum.Skipped, now)
	token := newClaimToken()
	i := 0
	for pending := todo; len(pending) > 0; {
		var held []experiments.Cell // claimed by another live run: waited for
		var holder string
		for _, c := range pending {
			if err := ctx.Err(); err != nil {
				return sum, err
			}
			ok, who, err := r.Store.Claim(c.Key, token)
			if err != nil {
				return sum, err
			}
			if !ok {
				held, holder = append(held, c), who
				continue
			}
			if r.Store.Has(c.Key) { // finished by another run since this one looked
				r.Store.Release(c.Key, token)
				sum.Skipped++
				sum.Elsewhere++
				pr.elsewhere(i, c)
				i++
				continue
			}
			err = r.trainCell(ctx, spec, c, token, i, pr, digests, now, &sum)
			r.Store.Release(c.Key, token)
			if err != nil {
				return sum, err
			}
			i++
		}
		if len(held) > 0 {
			pr.waiting(len(held), holder)
			select {
			case <-ctx.Done():
				return sum, ctx.Err()
			case <-time.After(ClaimPoll):
			}
		}
		pending = held
	}
	pr.finish()
	return sum, r.remodel(ctx, spec, remodel, &sum)
}

// trainCell trains cell c (the i-th of this run, claimed by token: the
// claim is kept fresh while it trains), stores its result, and counts it in
// sum; the error is one that stops the grid.
func (r *Runner) trainCell(ctx context.Context, spec *Spec, c experiments.Cell, token string, i int, pr *gridProgress, digests dataDigests, now func() time.Time, sum *Summary) error {
	c.DataDir = r.DataDir
	c.Device = spec.Device
	if r.Device != "" {
		c.Device = r.Device
	}
	if r.SaveModels {
		c.ModelPath = r.modelPath(c.Key)
	}
	// The data's digest before training: a file changed during the
	// cell makes the next run refuse it rather than keep it.
	digest, err := digests.get(c.Config.Dataset)
	if err != nil {
		return &experiments.InputError{Err: fmt.Errorf("spec %s: %w", spec.Name, err)}
	}
	l, _ := experiments.LookupLearner(c.Config.Learner)
	stop := r.Store.keepFresh(c.Key, token)
	defer stop()
	pr.startCell(i, c)
	start := now()
	m, err := l.Train(ctx, c, pr)
	end := now()
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		pr.failCell(c, err)
		sum.Failed = append(sum.Failed, CellError{Key: c.Key, Err: err})
		// The reason is kept in the store, not only in the log (Failure).
		return r.Store.PutFailure(&Failure{Key: c.Key, Spec: c.Spec, Seed: c.Config.Seed, Config: c.Config,
			Error: err.Error(), Provenance: newProvenance(start, end), DataDigest: digest})
	}
	prov := newProvenance(start, end)
	if m.WallSeconds == 0 {
		m.WallSeconds = prov.WallSeconds
	}
	if m.PeakRSSBytes == 0 {
		m.PeakRSSBytes = prov.PeakRSSBytes
	}
	res := &Result{Format: ResultFormat, Key: c.Key, Spec: c.Spec, Seed: c.Config.Seed,
		Config: c.Config, Metrics: m, Provenance: prov, DataDigest: digest}
	if err := r.Store.Put(res); err != nil {
		return err
	}
	if err := r.Store.ClearFailure(c.Key); err != nil {
		return err
	}
	sum.Finished++
	pr.endCell(c, m, end.Sub(start))
	return nil
}

// remodel trains the finished cells again whose saved model the store
// lacks (Runner.SaveModels on a store filled without it), and keeps the
// network only when the run's outcome is the stored result's
// (Result.SameOutcome): a model beside a result it did not make would be
// a model of another run. A cell whose outcome differs (other code made
// its result) is a failure naming both; its result stays as stored.
func (r *Runner) remodel(ctx context.Context, spec *Spec, cells []experiments.Cell, sum *Summary) error {
	token := newClaimToken()
	for _, c := range cells {
		if err := ctx.Err(); err != nil {
			return err
		}
		if ok, _, err := r.Store.Claim(c.Key, token); err != nil || !ok || !r.lacksModel(c) {
			r.Store.Release(c.Key, token)
			if err != nil {
				return err
			}
			continue // another run saves it, or saved it
		}
		err := r.remodelCell(ctx, spec, c, sum)
		r.Store.Release(c.Key, token)
		if err != nil {
			return err
		}
	}
	return nil
}

// remodelCell trains the finished cell c again to save its model (remodel).
func (r *Runner) remodelCell(ctx context.Context, spec *Spec, c experiments.Cell, sum *Summary) error {
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
	defer os.RemoveAll(tmp)
	c.ModelPath = filepath.Join(tmp, c.Key)
	if r.Log != nil {
		fmt.Fprintf(r.Log, "cell %s: finished, but the store has no saved model of it (--save-models): training it again to save it\n", c.Key)
	}
	l, _ := experiments.LookupLearner(c.Config.Learner)
	m, err := l.Train(ctx, c, experiments.NoProgress{})
	again := &Result{Key: c.Key, Config: c.Config, Metrics: m}
	switch {
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		sum.Failed = append(sum.Failed, CellError{Key: c.Key, Err: fmt.Errorf("trained again to save its model: %w", err)})
	case !stored.SameOutcome(again):
		sum.Failed = append(sum.Failed, CellError{Key: c.Key, Err: fmt.Errorf("trained again to save its model, but this code's run differs from the stored result (test accuracy %v, stored %v; the stored result was made by %s%s): the model was not kept; run the grid into a new store to have models and results of one code",
			m.TestAccuracy, stored.Metrics.TestAccuracy, stored.Provenance.CodeVersion, numericsNote(stored.Metrics.Numerics, m.Numerics))})
	default:
		if err := r.keepModel(tmp, c.Key); err != nil {
			return err
		}
		sum.Remodelled++
	}
	return nil
}

// keepModel moves the model saved in tmp into the store's models/.
func (r *Runner) keepModel(tmp, key string) error {
	if err := os.MkdirAll(filepath.Join(r.Store.Dir, "models"), 0o755); err != nil {
		return err
	}
	srcNPZ, srcMan := learn.ModelFiles(filepath.Join(tmp, key))
	dstNPZ, dstMan := learn.ModelFiles(r.modelPath(key))
	if err := os.Rename(srcNPZ, dstNPZ); err != nil {
		return err
	}
	return os.Rename(srcMan, dstMan)
}

// numericsNote says, for remodel's error, that the stored result and the
// run again were trained with different numerics (Metrics.Numerics), which
// alone makes their last bits differ; empty when they agree or the stored
// result predates the record.
func numericsNote(stored, again string) string {
	if stored == "" || stored == again {
		return ""
	}
	return fmt.Sprintf(" with numerics %q, this run with %q", stored, again)
}

// dataDigests computes data.Digest once per data set for one Run.
type dataDigests struct {
	dir string
	of  map[string]string
}

func (d dataDigests) get(name string) (string, error) {
	if v, ok := d.of[name]; ok {
		return v, nil
	}
	v, err := data.Digest(name, d.dir)
	if err != nil {
		return "", err
	}
	d.of[name] = v
	return v, nil
}

// staleCells describes the finished cells whose data changed since they ran,
// data set by data set, with the files that hold it and what to do.
func staleCells(rs []*Result, dataDir string) string {
	byData := map[string][]string{}
	var names []string
	for _, r := range rs {
		n := r.Config.Dataset
		if _, ok := byData[n]; !ok {
			names = append(names, n)
		}
		byData[n] = append(byData[n], r.Key)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		keys := byData[n]
		shown := keys
		if len(shown) > 3 {
			shown = shown[:3]
		}
		more := ""
		if len(keys) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(keys)-len(shown))
		}
		in := data.InputsOf(n, dataDir)
		files := append([]string(nil), in.Files...)
		for _, d := range in.Dirs {
			files = append(files, d.Dir)
		}
		parts = append(parts, fmt.Sprintf("%d finished cells (%s%s) ran on other contents of data set %s (%s)",
			len(keys), strings.Join(shown, ", "), more, n, strings.Join(files, ", ")))
	}
	return strings.Join(parts, "; ") + ": the store's results are of the data as it was; restore it, or run into a new --results directory to train on the data as it is"
}
