package learn

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/training"
	"github.com/llpfc/llpfc/training/loss"
)

// SearchRule is how a label-free search chooses its trial: the
// lowest proportion loss of the held-out bags (their validation KL) under
// the trial's last network. No instance label is read: the held-out bags'
// proportions are all it sees.
const SearchRule = "min val_kl"

// trialCell is cell c with one configuration of its search: the rate lr and,
// when batch > 0, the minibatch batch; no search of its own.
func trialCell(c experiments.Cell, lr float64, batch int) experiments.Cell {
	t := c
	t.Config.Hyper.Search = nil
	t.Config.Hyper.LR = lr
	if batch > 0 {
		t.Config.Hyper.BatchSize = batch
	}
	return t
}

// runSearch runs every trial of cell's search (Hyper.Search) on prob — the
// same bags, the same held-out bags — and returns the chosen trial's run
// with the search recorded in its Metrics (experiments.SearchRecord): every
// trial's rate, minibatch, validation scores, steps, wall time and test
// accuracy (for the reader; selectTrial never reads it), and which it
// chose. A trial whose loss goes non-finite is recorded as diverged and not
// chosen; when every trial diverges the error of the first is returned.
// With Search.Extend, the rates go on past an end of the grid while the
// choice sits there (nextRate), each new rate a trial for every minibatch
// of the search, marked Extended. The run's wall time is the whole
// search's.
func runSearch(ctx context.Context, cell experiments.Cell, prob *Problem, opt RunOptions) (*CellRun, error) {
	rec := &experiments.SearchRecord{Rule: SearchRule, Chosen: -1}
	s := cell.Config.Hyper.Search
	var runs []*CellRun
	var firstDiverged error
	var wall float64
	try := func(lr float64, batch int, extended bool) error {
		t := experiments.Trial{LR: lr, BatchSize: batch, Extended: extended}
		if batch == 0 {
			t.BatchSize = cell.Config.Hyper.BatchSize
		}
		run, terr := RunCell(ctx, trialCell(cell, lr, batch), prob, opt)
		switch {
		case diverged(terr):
			t.Diverged = terr.Error()
			if firstDiverged == nil {
				firstDiverged = terr
			}
		case terr != nil:
			return fmt.Errorf("search trial lr %g, batch %d: %w", lr, t.BatchSize, terr)
		default:
			m := run.Metrics
			t.ValKL, t.TestAccuracy, t.Steps, t.WallSeconds = m.ValKL, m.TestAccuracy, m.Steps, m.WallSeconds
			if n := len(run.History); n > 0 {
				t.ValPropError = run.History[n-1].ValPropError
			}
			wall += m.WallSeconds
		}
		rec.Trials = append(rec.Trials, t)
		runs = append(runs, run)
		return nil
	}
	var err error
	s.Each(func(lr float64, batch int) {
		if err == nil {
			err = try(lr, batch, false)
		}
	})
	for err == nil {
		lr, ok := nextRate(rec.Trials, s)
		if !ok {
			break
		}
		s2 := experiments.Search{LR: []float64{lr}, BatchSize: s.BatchSize}
		s2.Each(func(lr float64, batch int) {
			if err == nil {
				err = try(lr, batch, true)
			}
		})
	}
	if err != nil {
		return nil, err
	}
	if rec.Chosen = selectTrial(rec.Trials); rec.Chosen < 0 {
		return nil, fmt.Errorf("every trial of the search diverged (%d of %d); the first: %w", len(rec.Trials), len(rec.Trials), firstDiverged)
	}
	run := runs[rec.Chosen]
	run.Metrics.Search = rec
	run.Metrics.WallSeconds = wall
	return run, nil
}

// nextRate is the rate a search that extends (Search.Extend) tries next
// after trials: the next on the ladder below the lowest rate tried when the
// choice is that rate, or when every trial diverged (a rate that diverges is
// too large); the next above the highest when the choice is that rate; ok
// false when the choice lies inside, or the next rate is past the limit.
// It reads what selectTrial reads, the held-out bags' scores: no label.
func nextRate(trials []experiments.Trial, s *experiments.Search) (lr float64, ok bool) {
	if s.Extend == nil || len(trials) == 0 {
		return 0, false
	}
	lo, hi := trials[0].LR, trials[0].LR
	for _, t := range trials {
		lo, hi = min(lo, t.LR), max(hi, t.LR)
	}
	chosen := selectTrial(trials)
	if chosen < 0 || trials[chosen].LR == lo {
		if next, ok := experiments.LadderStep(lo, true); ok && next >= s.Extend.Min {
			return next, true
		}
	}
	if chosen >= 0 && trials[chosen].LR == hi {
		if next, ok := experiments.LadderStep(hi, false); ok && next <= s.Extend.Max {
			return next, true
		}
	}
	return 0, false
}

// diverged reports whether a trial's error is its training diverging: a
// non-finite loss or gradient caught before an update (training.NonFiniteError),
// or a finite update that left the network's outputs non-finite, caught
// when the held-out bags or the test set are scored
// (training.NonFiniteOutputError; LLP-PVC at bag 2048, lr 1e-3, Nesterov,
// once stopped a whole search that way). Either is recorded as the trial's
// divergence; any other error stops the search.
func diverged(err error) bool {
	var nf *training.NonFiniteError
	var out *training.NonFiniteOutputError
	return errors.As(err, &nf) || errors.As(err, &out)
}

// selectTrial returns the index of the trial with the lowest validation KL
// (the first of equal ones), or −1 when no trial has one (every one
// diverged). It reads the held-out bags' scores alone: a trial's test
// accuracy is recorded beside them, never compared (the mutation
// search-selects-on-labels is caught by TestSelectionReadsNoLabel).
func selectTrial(trials []experiments.Trial) int {
	best, score := -1, math.Inf(1)
	for i, t := range trials {
		if t.ValKL == nil || math.IsNaN(*t.ValKL) {
			continue
		}
		if v := *t.ValKL; v < score {
			best, score = i, v
		}
	}
	return best
}

// objectiveDiagnostics summarizes a run's objective diagnostics for the
// cell's Metrics; nil when the objective counted nothing.
func objectiveDiagnostics(d *loss.BagDiagnostics) *experiments.ObjectiveDiagnostics {
	if d == nil || d.Calls == 0 {
		return nil
	}
	share := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	}
	return &experiments.ObjectiveDiagnostics{
		Steps: d.Calls, MeanLoss: d.Loss / float64(d.Calls), MeanRawLoss: d.RawLoss / float64(d.Calls),
		MeanReferenceLoss: d.ReferenceLoss / float64(d.Calls),
		FlooredShare:      d.FlooredShare(), TinyShare: share(d.Tiny, d.Terms), InsideShare: share(d.Inside, d.Terms),
		FloodedShare: d.FloodedShare(), SoftMin: d.SoftMin, SoftMax: d.SoftMax, SoftStd: d.SoftStd(),
		SoftNegativeShare: share(d.SoftNegative, d.SoftLabels),
	}
}
