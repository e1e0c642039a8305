package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/experiments/learn"
	"github.com/llpfc/llpfc/training"
	"github.com/llpfc/llpfc/training/methods"
)

// The flags several commands define with the same meaning and help text,
// defined once here.

// defineDataDir defines --data-dir as bags and train have it: one data set's
// files.
func defineDataDir(fs *flag.FlagSet) *string {
	return fs.String("data-dir", "", "directory holding the data set's files (default: $LLPFC_DATA, then /usr/share/datasets/fashion-mnist for fashion-mnist)")
}

// defineDevice defines --device, shared by train, bench, run
// and reproduce.
func defineDevice(fs *flag.FlagSet) *string {
	return fs.String("device", "", "compute back end that trains: cpu (the default), opencl (the first OpenCL device), opencl:P:D (platform P, device D, as 'llpfc devices' lists them), cuda (the first CUDA device) or cuda:N; every result records it")
}

// defineModel defines --model as bench and train have it: any classifier
// (learn.ClassifierModels: not LLPGAN's generator), mlp by default.
func defineModel(fs *flag.FlagSet) *string {
	return fs.String("model", training.ModelMLP, "architecture: "+strings.Join(learn.ClassifierModels(), ", "))
}

// defineResultJSON defines --json as bench and train have it: the result as
// one JSON line.
func defineResultJSON(fs *flag.FlagSet) *bool {
	return fs.Bool("json", false, "print the result as one JSON object on the last line of standard output")
}

// givenFlags returns the names of the flags set explicitly on the command
// line (after fs.Parse).
func givenFlags(fs *flag.FlagSet) map[string]bool {
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	return given
}

// flagCheck is one validation of a flag's value: when ok is false, the
// error is "--FLAG is V, want WANT" (a zero or negative size, count or
// rate is an error naming its flag, never silently replaced).
type flagCheck struct {
	flag string
	ok   bool
	want string
	v    any
}

// atLeast checks an integer flag against its least allowed value.
func atLeast(name string, v, least int) flagCheck {
	return flagCheck{name, v >= least, fmt.Sprintf("≥ %d", least), v}
}

// checkFlags returns the error of the first failed check, or nil.
func checkFlags(checks ...flagCheck) error {
	for _, c := range checks {
		if !c.ok {
			return fmt.Errorf("--%s is %v, want %s", c.flag, c.v, c.want)
		}
	}
	return nil
}

// usageError marks an error in the flags or the input: exit status 2.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// usagef returns a usageError.
func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// exitWith prints "PREFIX: err" to stderr and returns the exit status:
// exitBadUsage for a usageError, exitFailed otherwise.
func exitWith(stderr io.Writer, prefix string, err error) int {
	fmt.Fprintf(stderr, "%s: %v\n", prefix, err)
	if errors.As(err, new(usageError)) {
		return exitBadUsage
	}
	return exitFailed
}

// parseShardFlag parses --shard ("" is the whole grid): i/n, or auto and
// auto/N inside a Slurm job array (grid.ParseShardAuto).
func parseShardFlag(s string) (grid.Shard, error) {
	if s == "" {
		return grid.Shard{}, nil
	}
	parse := grid.ParseShard
	if strings.HasPrefix(s, "auto") {
		parse = func(s string) (grid.Shard, error) { return grid.ParseShardAuto(s, os.Getenv) }
	}
	shard, err := parse(s)
	if err != nil {
		return shard, usagef("--shard: %v", err)
	}
	return shard, nil
}

// runGrid trains the cells of spec (its shard's) that store does not hold
// yet, as run and reproduce do. On an error it prints it — for an
// interruption, how many cells (unit) finished and how to resume — and
// returns the exit status: exitBadUsage when the spec or its data fail
// their checks before any cell (experiments.InputError), else exitFailed;
// exitOK when the grid ran (its cells may have failed: Summary.Failed).
func runGrid(ctx context.Context, cmd, unit string, r *grid.Runner, spec *grid.Spec, stderr io.Writer) (grid.Summary, int) {
	sum, err := r.Run(ctx, spec)
	switch {
	case err == nil:
		return sum, lateInterrupt(ctx, stderr, cmd, fmt.Sprintf("every cell of the grid finished (%d now) and is stored", sum.Finished), exitOK)
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(stderr, "llpfc %s: interrupted after %d %s; run the same command again to resume\n", cmd, sum.Finished, unit)
		return sum, exitFailed
	case errors.As(err, new(*experiments.InputError)):
		fmt.Fprintf(stderr, "llpfc %s: %v\n", cmd, err)
		return sum, exitBadUsage
	}
	fmt.Fprintf(stderr, "llpfc %s: %v\n", cmd, err)
	return sum, exitFailed
}

// dataHelp is the help of --data of train and bags: every data set name.
const dataHelp = "data set: fixture, fashion-mnist, mnist, emnist-letters, cifar10, svhn, csv:TRAIN[,TEST][@LABEL][@categorical=COL+COL][@na=SPELLING+SPELLING], parquet:TRAIN[,TEST][@LABEL][@categorical=COL+COL][@na=SPELLING+SPELLING] (string columns, and those named, are one-hot), libsvm:TRAIN[,TEST], gmm:classes=C,dim=D,train=N,test=M,sep=S (a synthetic Gaussian mixture, as a spec names it), bags:PATH (a bag-only LLP set, no instance labels: an .npz file or a directory holding X, bag and proportions arrays [and test_X, test_y], or TRAIN,PROPORTIONS[,TEST] CSV or Parquet tables; options @normalize rescales proportion rows that do not sum to 1, @bag=COL and @label=COL name columns, @na= the file's spellings of a missing value; see docs/own-data.md), npz:PATH (NumPy instances: an .npz file or a directory holding X and optionally y, test_X, test_y; without labels only predict reads it, with --split train), or a directory holding one of the named sets' files"

// protocolHelp is the help of --protocol of train and bags.
const protocolHelp = "bag protocol: paper (γ ~ uniform on the simplex, counts ~ Multinomial), shuffle, dirichlet:a, feature:COL[,COL…][,min=M][,max=M] (one bag per value combination of the columns, LLP-Bench's feature bags; min= and max= drop the bags of fewer or more instances) or kmeans:K (the K clusters of k-means on the inputs, LLP-VAT's); the last two make bags of varying sizes (no --bag-size; --num-points 0 takes the whole split). A bag-only --data bags:… gives its own bags (protocol given)"

// parsePositional parses flags interleaved with positional arguments (Go's
// flag package stops at the first positional one) and returns the
// positional arguments in order.
func parsePositional(fs *flag.FlagSet, args []string) (pos []string, ok bool, status int) {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, false, exitOK
			}
			return nil, false, exitBadUsage
		}
		rest := fs.Args()
		if len(rest) == 0 {
			ok, status := finiteFlags(fs)
			return pos, ok, status
		}
		if rest[0] == "--" {
			ok, status := finiteFlags(fs)
			return append(pos, rest[1:]...), ok, status
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// batchHelp is --batch-size's help: what each method's minibatch counts and
// its default, from the descriptors ("instances for llpfc-ideal, …
// (default 128); bags for kl, llpvat (default 2), llpgan (1), …").
func batchHelp() string {
	var parts []string
	for _, unit := range []methods.Unit{methods.Instances, methods.Bags} {
		var groups []string
		var batches []int
		names := map[int][]string{}
		for _, d := range methods.All() {
			if d.Batch != unit {
				continue
			}
			if _, ok := names[d.DefaultBatch]; !ok {
				batches = append(batches, d.DefaultBatch)
			}
			names[d.DefaultBatch] = append(names[d.DefaultBatch], d.Name)
		}
		for i, b := range batches {
			if i == 0 {
				groups = append(groups, fmt.Sprintf("%s (default %d)", strings.Join(names[b], ", "), b))
			} else {
				groups = append(groups, fmt.Sprintf("%s (%d)", strings.Join(names[b], ", "), b))
			}
		}
		if len(groups) > 0 {
			parts = append(parts, unit.String()+" for "+strings.Join(groups, ", "))
		}
	}
	return "minibatch size: " + strings.Join(parts, "; ") + " (llpfc methods lists them)"
}

// methodHelp is --method's help.
func methodHelp(what string) string {
	return what + ": " + strings.Join(training.MethodNames(), ", ") + " (llpfc methods describes each)"
}

// methodsList lists the registered methods for a command's -h, one line
// each: "  name — help".
func methodsList() string {
	var b strings.Builder
	for _, d := range methods.All() {
		fmt.Fprintf(&b, "  %s — %s\n", d.Name, d.Help)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
