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
)

// The flags several commands define with the same meaning and help text,
// defined once here.

// defineDataDir defines --data-dir as bags and train have it: one data set's
// files.
func defineDataDir(fs *flag.FlagSet) *string {
	return fs.String("data-dir", "", "directory holding the data set's files (default: $LLPFC_DATA, then /usr/share/datasets/fashion-mnist for fashion-mnist)")
}

// defineDevice defines --device (issue 33), shared by train, bench, run
// and reproduce.
func defineDevice(fs *flag.FlagSet) *string {
	return fs.String("device", "", "compute back end that trains: cpu (the default), opencl (the first OpenCL device) or opencl:P:D (platform P, device D, as 'llpfc devices' lists them); every result records it")
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
// error is "--FLAG is V, want WANT" (issue 13: a zero or negative size,
// count or rate is an error naming its flag, never silently replaced).
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
