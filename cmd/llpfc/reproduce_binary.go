package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/llpfc/llpfc/experiments/binary"
	"github.com/llpfc/llpfc/internal/atomicfile"
	"github.com/llpfc/llpfc/training/kernel"
)

// isBinaryTable reports whether args select `reproduce --table binary`.
func isBinaryTable(args []string) bool {
	for i, a := range args {
		if a == "--table=binary" || a == "-table=binary" || ((a == "--table" || a == "-table") && i+1 < len(args) && args[i+1] == "binary") {
			return true
		}
	}
	return false
}

const reproduceBinarySynopsis = `Runs the binary experiment of the appendix (Table tab:binary exp): InvCal, alter-∝SVM,
LMMCM, LLPFC-uniform and LLPFC-approx with kernel models on Adult and MAGIC, label proportions
drawn from [0,1/2] or [1/2,1], bag sizes 8, 32, 128, 512, 5 trials, each method's hyperparameters
chosen by 5-fold bag-level cross-validation, test AUC reported as mean ± std beside the paper's.
The protocol is the LMMCM code's (see PAPER_MAP.md, "Binary experiment").

The UCI files are read from --data-dir (or $LLPFC_DATA), in DIR or DIR/adult and DIR/magic:
adult.data and adult.test (https://archive.ics.uci.edu/dataset/2/adult) and magic04.data
(https://archive.ics.uci.edu/dataset/159/magic+gamma+telescope).

--offline runs the same methods and protocol on a binary task made from Fashion-MNIST
(T-shirt/top vs shirt, found as for the other tables, e.g. /usr/share/datasets/fashion-mnist):
bag sizes 8, 32, 128 on 1280 bagged instances, 2 trials, 1000 test points. It has no paper
column.

Every finished cell is stored at once (DIR/cells/<key>.json, atomically), so an interrupted run
resumes. Progress goes to standard error, the table to standard output and OUT/report.md.`

// binaryFlags are `llpfc reproduce --table binary`'s flags.
type binaryFlags struct {
	offline, dryRun                          *bool
	results, out, dataDir, methods, bagSizes *string
	trials, trainSize, testSize, maxExact    *int
}

func defineBinaryFlags(fs *flag.FlagSet) *binaryFlags {
	f := &binaryFlags{}
	fs.String("table", "binary", "binary: the appendix's kernel experiment (Table tab:binary exp)")
	f.offline = fs.Bool("offline", false, "run the small grid on the offline Fashion-MNIST binary task instead of Adult and MAGIC")
	f.results = fs.String("results", "", "results store directory (default results/binary or results/binary-offline)")
	f.out = fs.String("out", "", "directory for report.md (default reports/binary or reports/binary-offline)")
	f.dataDir = fs.String("data-dir", "", "directory holding the data files, or a root with one sub-directory per data set (default $LLPFC_DATA)")
	f.trials = fs.Int("trials", 0, "number of trials (default: 5 for the paper's grid, 2 offline)")
	f.methods = fs.String("methods", "", "comma-separated subset of "+strings.Join(binary.MethodNames, ","))
	f.bagSizes = fs.String("bag-sizes", "", "comma-separated subset of the bag sizes")
	f.trainSize = fs.Int("train-size", 0, "bagged training instances per data set (default: 8192 Adult, 5120 MAGIC as in the LMMCM code; 1280 offline)")
	f.testSize = fs.Int("test-size", -1, "cap on the test points, a random subset (default: all for Adult and MAGIC, 1000 offline)")
	f.maxExact = fs.Int("max-exact", kernel.DefaultMaxExact, "LLPFC and LMMCM use the exact kernel matrix up to this many training instances, a Nyström basis of this many landmarks above")
	f.dryRun = fs.Bool("dry-run", false, "print the plan (cells, fits, data found) and exit without training")
	return f
}

// check validates the sizes and counts; each error names its flag. A flag
// whose default is "the grid's" (0, or −1 for --test-size) must be positive
// when given.
func (f *binaryFlags) check(given map[string]bool) error {
	pos := func(name string, v int, leftOut bool) flagCheck {
		return flagCheck{name, leftOut || v >= 1, "≥ 1 (leave it out for the grid's default)", v}
	}
	return checkFlags(
		pos("trials", *f.trials, !given["trials"]),
		pos("train-size", *f.trainSize, !given["train-size"]),
		pos("test-size", *f.testSize, !given["test-size"] || *f.testSize == -1),
		atLeast("max-exact", *f.maxExact, 1),
	)
}

// spec returns the grid the flags describe, with the default directories
// (named binary or binary-offline) filled in.
func (f *binaryFlags) spec() (*binary.Spec, error) {
	spec, name := binary.PaperSpec(), "binary"
	if *f.offline {
		spec, name = binary.OfflineSpec(), "binary-offline"
	}
	spec.MaxExact = *f.maxExact
	if *f.trials > 0 {
		spec.Trials = *f.trials
	}
	if err := f.setLists(spec); err != nil {
		return nil, err
	}
	if *f.trainSize > 0 {
		spec.TrainSize = map[string]int{}
		for _, d := range spec.Datasets {
			spec.TrainSize[d] = *f.trainSize
		}
	}
	if *f.testSize >= 0 {
		spec.TestSize = *f.testSize
	}
	if *f.results == "" {
		*f.results = filepath.Join("results", name)
	}
	if *f.out == "" {
		*f.out = filepath.Join("reports", name)
	}
	return spec, nil
}

// setLists sets the methods and bag sizes of --methods and --bag-sizes.
func (f *binaryFlags) setLists(spec *binary.Spec) error {
	if *f.methods != "" {
		spec.Methods = strings.Split(*f.methods, ",")
		for _, m := range spec.Methods {
			if _, err := binary.NewMethod(m, 0); err != nil {
				return fmt.Errorf("--methods: %v", err)
			}
		}
	}
	if *f.bagSizes != "" {
		var bs []int
		for _, s := range strings.Split(*f.bagSizes, ",") {
			var b int
			if _, err := fmt.Sscan(s, &b); err != nil || b <= 0 {
				return fmt.Errorf("--bag-sizes: %q is not a positive integer", s)
			}
			bs = append(bs, b)
		}
		spec.BagSizes = bs
	}
	return nil
}

func runReproduceBinary(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("reproduce --table binary [--offline] [--results DIR] [--out DIR] [--data-dir DIR] [--trials N] [--methods M,…] [--bag-sizes B,…] [--train-size N] [--test-size N] [--dry-run]", reproduceBinarySynopsis, stderr)
	f := defineBinaryFlags(fs)
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	bad := func(err error) int { return exitWith(stderr, "llpfc reproduce --table binary", usageError{err}) }
	if err := f.check(givenFlags(fs)); err != nil {
		return bad(err)
	}
	spec, err := f.spec()
	if err != nil {
		return bad(err)
	}
	if !*f.dryRun {
		var plan ioPlan
		plan.makeDirAs(storeOut, "--results", *f.results, nil, "cells")
		plan.makeDirAs(reportOut, "--out", *f.out, []string{"report.md"})
		if err := guardIO(plan); err != nil {
			return exitWith(stderr, "llpfc reproduce --table binary", err)
		}
	}
	st := binary.Store{Dir: *f.results}
	todo, err := binaryPending(spec, st)
	if err != nil {
		return exitWith(stderr, "llpfc reproduce", err)
	}
	f.printPlan(stderr, spec, todo)
	open := func(ds string) (binary.Source, error) { return binary.OpenSource(ds, *f.dataDir) }
	missing := binaryDataMissing(stderr, spec, open, *f.offline)
	if *f.dryRun {
		return exitOK
	}
	if missing && todo > 0 {
		fmt.Fprintln(stderr, "llpfc reproduce: data sets missing (see above); nothing was run")
		return exitBadUsage
	}
	return f.run(stdout, stderr, spec, st, open)
}

// binaryPending returns the number of cells of spec that st does not hold.
func binaryPending(spec *binary.Spec, st binary.Store) (int, error) {
	todo := 0
	for _, c := range spec.Cells() {
		if r, err := st.Load(c); err != nil {
			return 0, err
		} else if r == nil {
			todo++
		}
	}
	return todo, nil
}

// printPlan prints the grid's cells, the model fits each needs, and the
// memory the exact kernels take.
func (f *binaryFlags) printPlan(stderr io.Writer, spec *binary.Spec, todo int) {
	cells := len(spec.Cells())
	fits := 0
	for _, m := range spec.Methods {
		meth, _ := binary.NewMethod(m, 0)
		fits += len(meth.Grid())*spec.Folds + 1
	}
	fmt.Fprintf(stderr, "llpfc reproduce --table binary%s: %d cells (%s × %d intervals × %d bag sizes × %d trials × %d methods); %d already in %s, %d to run\n",
		map[bool]string{true: " --offline", false: ""}[*f.offline], cells, strings.Join(spec.Datasets, ", "), len(spec.Intervals),
		len(spec.BagSizes), spec.Trials, len(spec.Methods), cells-todo, *f.results, todo)
	fmt.Fprintf(stderr, "  %d model fits per (data set, interval, bag size, trial): the methods' grids × %d folds + the final fit\n", fits, spec.Folds)
	if !*f.offline {
		fmt.Fprintln(stderr, "  memory: InvCal and alter-∝SVM use the exact n×n kernel (n = 8192 at Adult bag size 8: 512 MiB per matrix); LLPFC and LMMCM switch to Nyström above --max-exact")
	}
}

// binaryDataMissing prints a line for every data set that cannot be opened
// and reports whether there was one.
func binaryDataMissing(stderr io.Writer, spec *binary.Spec, open func(string) (binary.Source, error), offline bool) bool {
	missing := false
	for _, ds := range spec.Datasets {
		if _, err := open(ds); err != nil {
			fmt.Fprintf(stderr, "  data: %v\n", err)
			missing = true
		}
	}
	if missing && !offline {
		fmt.Fprintln(stderr, "  (without the UCI files, --offline runs the experiment on a Fashion-MNIST binary task)")
	}
	return missing
}

// run trains the pending cells into st, then writes OUT/report.md and prints
// it. Exit status 1 if a cell failed.
func (f *binaryFlags) run(stdout, stderr io.Writer, spec *binary.Spec, st binary.Store, open func(string) (binary.Source, error)) int {
	ctx, stop := interruptible("reproduce", stderr)
	defer stop()
	done, failed, err := binary.Run(ctx, spec, st, open, stderr)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "llpfc reproduce: interrupted after %d cells; run the same command again to resume\n", done)
			return exitFailed
		}
		return exitWith(stderr, "llpfc reproduce", err)
	}
	md, _, err := binary.Report(spec, st)
	if err != nil {
		return exitWith(stderr, "llpfc reproduce", fmt.Errorf("report: %v", err))
	}
	if err := os.MkdirAll(*f.out, 0o755); err != nil {
		return exitWith(stderr, "llpfc reproduce --table binary", usagef("--out: %v", err))
	}
	path := filepath.Join(*f.out, "report.md")
	if err := atomicfile.WriteFile(path, []byte(md)); err != nil {
		return exitWith(stderr, "llpfc reproduce", err)
	}
	io.WriteString(stdout, md)
	fmt.Fprintf(stdout, "\nreport: %s\n", path)
	for _, e := range failed {
		fmt.Fprintf(stderr, "llpfc reproduce: %v\n", e)
	}
	if len(failed) > 0 {
		return exitFailed
	}
	return exitOK
}
