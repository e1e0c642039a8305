package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/learn"
	"github.com/llpfc/llpfc/training"
)

// cellFlags maps a cell field, as experiments' errors name it, to the flag
// of `llpfc train` that sets it.
var cellFlags = []struct{ field, flag string }{
	{"model:", "--model:"}, {"method:", "--method:"}, {"hyper.augment:", "--augment:"},
	{"hyper.optimizer:", "--optimizer:"}, {"dataset:", "--data:"}, {"hyper.val_bags:", "--val-bags:"},
	{"protocol:", "--protocol:"}, {"bag_size:", "--bag-size:"}, {"hyper.batch_size:", "--batch-size:"},
	{"num_points:", "--num-points:"}, {"bags file:", "--bags:"},
}

// flagNamed returns err with the cell fields it names renamed to their
// flags: the one it starts with said to be its default when given (the
// flags on the command line) lacks it (kl on one bag once blamed a
// --batch-size nobody gave), and every other in the message too ("less
// the 7 that hyper.val_bags 7 holds out" named the spec's field to a
// train user).
func flagNamed(err error, given map[string]bool) error {
	msg := err.Error()
	for _, m := range cellFlags {
		if strings.HasPrefix(msg, m.field) {
			flag := m.flag
			if name := strings.TrimSuffix(strings.TrimPrefix(flag, "--"), ":"); given != nil && !given[name] {
				flag = strings.TrimSuffix(flag, ":") + " (not given: its default):"
			}
			msg = flag + strings.TrimPrefix(msg, m.field)
			break
		}
	}
	out := cellFieldWord.ReplaceAllStringFunc(msg, func(f string) string {
		word, after := f[:len(f)-1], f[len(f)-1:]
		for _, m := range cellFlags {
			if strings.TrimSuffix(m.field, ":") == word {
				return strings.TrimSuffix(m.flag, ":") + after
			}
		}
		return f
	})
	if out == err.Error() {
		return err
	}
	return renamedError{out, err}
}

// renamedError is an error said in train's words (flagNamed), still the
// error it was for errors.As.
type renamedError struct {
	msg string
	err error
}

func (e renamedError) Error() string { return e.msg }
func (e renamedError) Unwrap() error { return e.err }

// cellFieldWord matches a cell field of cellFlags named inside a message,
// followed by its value.
var cellFieldWord = regexp.MustCompile(`\b(hyper\.val_bags|hyper\.batch_size|hyper\.optimizer|num_points|bag_size)\b(?:[ =])`)

// ioPlan is what the run reads (--data, --data-dir, --bags) and writes
// (--save-model's two files, --out's folder), for the output guard.
func (r *trainRun) ioPlan() ioPlan {
	var p ioPlan
	p.readData("--data", r.cell.Dataset, r.dir)
	p.read("--bags", r.bagsFile)
	if r.saveModel != "" {
		npz, manifest := learn.ModelFiles(r.saveModel)
		p.writeAs(saveOut, "--save-model", npz, manifest)
	}
	p.makeDir("--out", r.out, []string{"checkpoint.gob", "result.json"})
	return p
}

// finishedRun is --out's result.json: the result and the history of every
// epoch.
type finishedRun struct {
	trainResult
	History []training.EpochStats `json:"history"`
}

// checkOut looks at what --out holds before training: a
// checkpoint is continued only with --resume (without it, another run's
// checkpoint was overwritten silently); one that holds more epochs than
// --epochs cannot be continued (the message said "next epoch 4 outside
// 0..2"); a finished run whose result.json is this run's is returned, to be
// reported as it is (item 8: a resume rewrote it with the resuming call's
// wall time and 0 images/s). It records the epochs a resume continues.
func (r *trainRun) checkOut(prob *learn.Problem) (*finishedRun, error) {
	ckPath := filepath.Join(r.out, "checkpoint.gob")
	if _, err := os.Stat(ckPath); err != nil {
		return nil, nil
	}
	if !r.resume {
		return nil, fmt.Errorf("--out %s holds the checkpoint of an earlier run (%s): pass --resume to continue it, or name another --out to start afresh", r.out, ckPath)
	}
	ck, err := training.ReadCheckpoint(ckPath)
	if err != nil {
		return nil, fmt.Errorf("--resume: %v", err)
	}
	r.resumedEpochs = ck.NextEpoch
	if epochs := r.cell.Hyper.Epochs; ck.NextEpoch > epochs {
		return nil, fmt.Errorf("--epochs %d: the checkpoint %s holds %d finished epochs; pass --epochs %d or more to continue it, or name another --out to start afresh",
			epochs, ckPath, ck.NextEpoch, ck.NextEpoch)
	} else if ck.NextEpoch < epochs {
		return nil, nil
	}
	b, err := os.ReadFile(filepath.Join(r.out, "result.json"))
	if err != nil {
		return nil, nil // killed before writing it: the resume evaluates the checkpoint
	}
	var done finishedRun
	if json.Unmarshal(b, &done) != nil || done.Key != r.cell.Key() {
		return nil, nil // not this run's: the resume refuses the checkpoint, naming the field
	}
	// The key is the settings; the data are the run's too (a finished run
	// was once served after its test split changed).
	now, err := learn.CellSettings(r.cell, prob)
	if err != nil {
		return nil, err
	}
	if d := training.SettingsDiff(done.Settings, now); len(d) > 0 {
		return nil, fmt.Errorf("--resume: %s holds this run, finished, but not on these data: %s; %s", r.out, strings.Join(d, "; "), r.dataChanged(d))
	}
	return &done, nil
}

// dataChanged says what to do when --data changed since --out's
// checkpoint or result was written: diff (training.SettingsDiff) names the
// data that changed, and the message where they live.
func (r *trainRun) dataChanged(diff []string) string {
	name := r.cell.Dataset
	var parts []string
	for _, d := range diff {
		switch k, _, _ := strings.Cut(d, ":"); k {
		case "inputs", "bags":
			if !contains(parts, "its training split") {
				parts = append(parts, "its training split")
			}
		case "test":
			test := "its test split"
			switch lower := strings.ToLower(name); {
			case experiments.IsBagOnly(name) && experiments.IsTabular(name):
				test = "its test split (the TEST table)"
			case experiments.IsBagOnly(name):
				test = "its test split (the test_X and test_y arrays, or the test table)"
			case strings.HasPrefix(lower, "csv:") || strings.HasPrefix(lower, "parquet:") || strings.HasPrefix(lower, "libsvm:"):
				test = "its test split (the TEST file)"
			}
			parts = append(parts, test)
		}
	}
	return fmt.Sprintf("%s of --data %s changed since then: restore it, or name another --out to train on these data afresh", strings.Join(parts, " and "), name)
}

// reportFinished reports the finished run of --out without training or
// rewriting its result.json.
func (r *trainRun) reportFinished(stdout, stderr io.Writer, done *finishedRun) int {
	fmt.Fprintf(stderr, "llpfc train: %s holds this run, finished (%d epochs); its result is reported as it is\n", r.out, done.Epochs)
	saved := r.out
	r.out = "" // report, do not rewrite
	defer func() { r.out = saved }()
	return r.report(stdout, stderr, done.trainResult, done.History)
}

// resumedTiming makes the time and throughput of a resumed run cover all its
// epochs: training times only the epochs of the call
// that resumes, so the earlier epochs' training times, which the checkpoint
// keeps in the history, are added to the wall time, and the throughput is
// the history's images over its seconds.
func (r *trainRun) resumedTiming(m *experiments.Metrics, hist []training.EpochStats) {
	if r.resumedEpochs == 0 {
		return
	}
	var secs, images float64
	for i, e := range hist {
		secs += e.Seconds
		images += float64(e.Images)
		if i < r.resumedEpochs {
			m.WallSeconds += e.Seconds
		}
	}
	if secs > 0 {
		m.TrainImagesPerSecond = images / secs
	}
}

// troubleRounds is the number of random groupings warnTrouble summarizes.
const troubleRounds = 5

// warnTrouble prints, for an LLPFC method, the warning `llpfc bags` and
// `llpfc groups` print when the bags predict trouble for LLPFC (LLPFC once
// trained on a bags file whose every group was singular, to chance,
// without a word). It is not progress: --quiet keeps it.
func (r *trainRun) warnTrouble(stderr io.Writer, prob *learn.Problem) {
	if w := absentClassWarning(&prob.Bags, prob.Train.ClassNames); w != "" {
		fmt.Fprintf(stderr, "llpfc train: %s\n", w)
	}
	if !experiments.IsLLPFC(r.cell.Method) || len(prob.Bags.Bags) < prob.Bags.NumClasses {
		return
	}
	s, err := estimators.PredictTrouble(&prob.Bags, estimators.Options{Mode: estimators.ModeUniform}, r.cell.Seed, troubleRounds)
	if err != nil {
		return // training reports it
	}
	if w := s.WarningFor(&prob.Bags); w != "" {
		fmt.Fprintf(stderr, "llpfc train: %s\n", w)
	}
}
