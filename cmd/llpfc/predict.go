package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/experiments/learn"
	"github.com/llpfc/llpfc/internal/atomicfile"
	"github.com/llpfc/llpfc/internal/npy"
	"github.com/llpfc/llpfc/training"
)

func init() {
	register(command{name: "predict", summary: "score data with a saved model (train --save-model): class probabilities, and accuracy, macro-F1, AUC when labels are known", run: runPredict})
}

const predictSynopsis = `Scores the instances of a data set with a model written by 'llpfc train --save-model
FILE': each instance's class probabilities (softmax of the network in evaluation mode: batch
norm with its running statistics, no dropout) and the most probable class. The inputs are
normalized with the constants of the model's training split, kept in its manifest (FILE.json),
never refitted; vgg16 gets 28×28 images resized to 32×32 as in training.

--data takes what 'llpfc train --data' takes (a named set, fixture, csv:TRAIN[,TEST],
libsvm:TRAIN[,TEST], gmm:…, a directory); --split picks the split (default test). A table,
csv:FILE or parquet:FILE, is read on its own and may have no label column: every column is then a
feature, laid out by name as the model read them. When the split has labels, the accuracy,
macro-F1, per-class accuracy, the confusion matrix and, for two classes, the AUC are printed (with
--json, as one JSON object on the last line of standard output). Probabilities that are not
finite (a NaN weight) stop it with exit status 1, naming the instance. --out writes the
predictions: FILE.csv (one row per instance: index, predicted class,
then the probability of each class, then the label when known) or FILE.npy (the N×C float32
probabilities).`

type predictFlags struct {
	model, name, dataDir, split, out, device *string
	batch                                    *int
	asJSON                                   *bool
}

func definePredictFlags(fs *flag.FlagSet) *predictFlags {
	return &predictFlags{
		model:   fs.String("model", "", "the model `FILE` written by train --save-model (FILE.npz with FILE.json beside it; either name, or the stem)"),
		name:    fs.String("data", "", "data set to score, as train's --data"),
		dataDir: defineDataDir(fs),
		split:   fs.String("split", "test", "which split of --data to score: test or train"),
		out:     fs.String("out", "", "write the predictions to `FILE`.csv or FILE.npy"),
		device:  defineDevice(fs),
		batch:   fs.Int("batch-size", training.DefaultEvalBatch, "instances per forward pass"),
		asJSON:  defineResultJSON(fs),
	}
}

// predictResult is what --json prints.
type predictResult struct {
	Model  string              `json:"model"`
	Data   string              `json:"data"`
	Split  string              `json:"split"`
	N      int                 `json:"n"`
	Scores *experiments.Scores `json:"scores,omitempty"`
	Out    string              `json:"out,omitempty"`
}

func runPredict(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("predict --model FILE --data D [--split test|train] [--out preds.csv|.npy]", predictSynopsis, stderr)
	f := definePredictFlags(fs)
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	if err := f.check(); err != nil {
		return exitWith(stderr, "llpfc predict", usageError{err})
	}
	if err := guardIO(f.ioPlan()); err != nil {
		return exitWith(stderr, "llpfc predict", err)
	}
	m, err := learn.LoadModel(*f.model)
	if err != nil {
		return exitWith(stderr, "llpfc predict", usageError{err})
	}
	ds, err := f.dataset()
	if err != nil {
		return exitWith(stderr, "llpfc predict", usageError{err})
	}
	if cols := m.Manifest.Columns; len(cols) > 0 {
		if unused := ds.ColumnsNotIn(cols); len(unused) > 0 {
			fmt.Fprintf(stderr, "llpfc predict: %s: column(s) %q are not among the model's %d feature columns and are not used (a label column under another name: --data csv:FILE@COLUMN)\n",
				*f.name, unused, len(cols))
		}
	}
	ctx, stop := interruptible("predict", stderr)
	defer stop()
	p, err := m.Predict(ctx, ds, *f.device)
	if err != nil {
		var in *experiments.InputError
		if errors.As(err, &in) {
			return exitWith(stderr, "llpfc predict", usageError{err})
		}
		return exitWith(stderr, "llpfc predict", err)
	}
	if *f.out != "" {
		if err := writePredictions(*f.out, p, ds); err != nil {
			return exitWith(stderr, "llpfc predict", err)
		}
	}
	res := predictResult{Model: *f.model, Data: *f.name, Split: *f.split, N: p.N, Scores: p.Scores, Out: *f.out}
	printPrediction(stdout, res, m.Manifest, *f.asJSON)
	return exitOK
}

// check validates the flags, each error naming its flag.
func (f *predictFlags) check() error {
	switch {
	case *f.model == "":
		return errors.New("--model is required (a FILE written by train --save-model)")
	case *f.name == "":
		return errors.New("--data is required")
	case *f.split != "test" && *f.split != "train":
		return fmt.Errorf("--split %q: want test or train", *f.split)
	case *f.batch < 1:
		return fmt.Errorf("--batch-size is %d, want ≥ 1", *f.batch)
	case *f.out != "" && !strings.HasSuffix(*f.out, ".csv") && !strings.HasSuffix(*f.out, ".npy"):
		return fmt.Errorf("--out %s: want a FILE.csv or FILE.npy", *f.out)
	}
	if err := training.CheckDevice(*f.device); err != nil {
		return fmt.Errorf("--device: %w", err)
	}
	return nil
}

// ioPlan is what predict reads (the model's two files, --data) and
// writes (--out), for the output guard.
func (f *predictFlags) ioPlan() ioPlan {
	var p ioPlan
	npz, manifest := learn.ModelFiles(*f.model)
	p.read("--model", npz, manifest)
	name, dir := *f.name, *f.dataDir
	if st, err := os.Stat(name); err == nil && st.IsDir() {
		if n, d, err := namedSetIn(name); err == nil {
			name, dir = n, d
		}
	}
	p.readData("--data", name, dir)
	p.write("--out", *f.out)
	return p
}

// dataset reads the split of --data to score, as train reads it but not
// normalized.
func (f *predictFlags) dataset() (*data.Dataset, error) {
	name, dir := *f.name, *f.dataDir
	if st, err := os.Stat(name); err == nil && st.IsDir() {
		if name, dir, err = namedSetIn(name); err != nil {
			return nil, fmt.Errorf("--data %s: %v", *f.name, err)
		}
	}
	if name == "fixture" {
		name = experiments.FashionFixture
	}
	if lower := strings.ToLower(name); strings.HasPrefix(lower, "csv:") || strings.HasPrefix(lower, "parquet:") {
		// A table is read on its own, labelled or not: the model lays its
		// columns out by name.
		split := data.Train
		if *f.split == "test" {
			split = data.Test
		}
		ds, err := data.LoadTable(name, split)
		if err != nil {
			return nil, dataFlagError(*f.name, err)
		}
		return ds, nil
	}
	train, test, err := learn.LoadRaw(name, dir)
	if err != nil {
		return nil, dataFlagError(*f.name, err)
	}
	if *f.split == "train" {
		return train, nil
	}
	if test.N == 0 {
		return nil, usagef("--data %s has no test split (no test_X): score its instances (X) with --split train, or give a test split", *f.name)
	}
	return test, nil
}

// printPrediction prints the scores (or that the split has no labels).
func printPrediction(w io.Writer, res predictResult, m learn.Manifest, asJSON bool) {
	fmt.Fprintf(w, "%s (%s, %d classes) on %s, %s split: %d instances\n", res.Model, m.Architecture, m.NumClasses, res.Data, res.Split, res.N)
	if s := res.Scores; s != nil {
		fmt.Fprintf(w, "accuracy %.4f, macro-F1 %.4f", s.Accuracy, s.MacroF1)
		if s.AUC != nil {
			fmt.Fprintf(w, ", AUC %.4f", *s.AUC)
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintln(w, "no labels: no scores")
	}
	if res.Out != "" {
		fmt.Fprintf(w, "predictions written to %s\n", res.Out)
	}
	if asJSON {
		b, _ := json.Marshal(res)
		fmt.Fprintf(w, "%s\n", b)
	}
}

// writePredictions writes p to path: CSV rows (index, predicted class, the
// class probabilities, the label when known) or the N×C probabilities as
// .npy float32, atomically.
func writePredictions(path string, p *learn.Predictions, ds *data.Dataset) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		if strings.HasSuffix(path, ".npy") {
			probs := make([]float32, len(p.Probs))
			for i, v := range p.Probs {
				probs[i] = float32(v)
			}
			return npy.WriteFloat32(w, []int{p.N, p.C}, probs)
		}
		cw := csv.NewWriter(w)
		head := []string{"index", "predicted"}
		for c := 0; c < p.C; c++ {
			head = append(head, "p_"+strconv.Itoa(c))
		}
		labelled := len(ds.Y) == p.N
		if labelled {
			head = append(head, "label")
		}
		if err := cw.Write(head); err != nil {
			return err
		}
		for i := 0; i < p.N; i++ {
			row := []string{strconv.Itoa(i), strconv.Itoa(p.Class[i])}
			for _, v := range p.Probs[i*p.C : (i+1)*p.C] {
				row = append(row, strconv.FormatFloat(v, 'g', 8, 64))
			}
			if labelled {
				row = append(row, strconv.Itoa(ds.Y[i]))
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	})
}
