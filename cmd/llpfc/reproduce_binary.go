package main

import (
	"context"
	"errors"
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

func runReproduceBinary(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("reproduce --table binary [--offline] [--results DIR] [--out DIR] [--data-dir DIR] [--trials N] [--methods M,…] [--bag-sizes B,…] [--train-size N] [--test-size N] [--dry-run]", reproduceBinarySynopsis, stderr)
	fs.String("table", "binary", "binary: the appendix's kernel experiment (Table tab:binary exp)")
	offline := fs.Bool("offline", false, "run the small grid on the offline Fashion-MNIST binary task instead of Adult and MAGIC")
	results := fs.String("results", "", "results store directory (default results/binary or results/binary-offline)")
	out := fs.String("out", "", "directory for report.md (default reports/binary or reports/binary-offline)")
	dataDir := fs.String("data-dir", "", "directory holding the data files, or a root with one sub-directory per data set (default $LLPFC_DATA)")
	trials := fs.Int("trials", 0, "number of trials (default: 5 for the paper's grid, 2 offline)")
	methods := fs.String("methods", "", "comma-separated subset of "+strings.Join(binary.MethodNames, ","))
	bagSizes := fs.String("bag-sizes", "", "comma-separated subset of the bag sizes")
	trainSize := fs.Int("train-size", 0, "bagged training instances per data set (default: 8192 Adult, 5120 MAGIC as in the LMMCM code; 1280 offline)")
	testSize := fs.Int("test-size", -1, "cap on the test points, a random subset (default: all for Adult and MAGIC, 1000 offline)")
	maxExact := fs.Int("max-exact", kernel.DefaultMaxExact, "LLPFC and LMMCM use the exact kernel matrix up to this many training instances, a Nyström basis of this many landmarks above")
	dryRun := fs.Bool("dry-run", false, "print the plan (cells, fits, data found) and exit without training")
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "llpfc reproduce --table binary: "+format+"\n", a...)
		return exitBadUsage
	}
	spec, name := binary.PaperSpec(), "binary"
	if *offline {
		spec, name = binary.OfflineSpec(), "binary-offline"
	}
	spec.MaxExact = *maxExact
	if *trials < 0 {
		return bad("--trials %d, want ≥ 1", *trials)
	} else if *trials > 0 {
		spec.Trials = *trials
	}
	if *methods != "" {
		spec.Methods = strings.Split(*methods, ",")
		for _, m := range spec.Methods {
			if _, err := binary.NewMethod(m, 0); err != nil {
				return bad("--methods: %v", err)
			}
		}
	}
	if *bagSizes != "" {
		var bs []int
		for _, s := range strings.Split(*bagSizes, ",") {
			var b int
			if _, err := fmt.Sscan(s, &b); err != nil || b <= 0 {
				return bad("--bag-sizes: %q is not a positive integer", s)
			}
			bs = append(bs, b)
		}
		spec.BagSizes = bs
	}
	if *trainSize < 0 {
		return bad("--train-size %d, want > 0", *trainSize)
	} else if *trainSize > 0 {
		spec.TrainSize = map[string]int{}
		for _, d := range spec.Datasets {
			spec.TrainSize[d] = *trainSize
		}
	}
	if *testSize >= 0 {
		spec.TestSize = *testSize
	}
	if *results == "" {
		*results = filepath.Join("results", name)
	}
	if *out == "" {
		*out = filepath.Join("reports", name)
	}
	st := binary.Store{Dir: *results}
	cells := spec.Cells()
	todo := 0
	for _, c := range cells {
		if r, err := st.Load(c); err != nil {
			fmt.Fprintf(stderr, "llpfc reproduce: %v\n", err)
			return exitFailed
		} else if r == nil {
			todo++
		}
	}
	fits := 0
	for _, m := range spec.Methods {
		meth, _ := binary.NewMethod(m, 0)
		fits += len(meth.Grid())*spec.Folds + 1
	}
	fmt.Fprintf(stderr, "llpfc reproduce --table binary%s: %d cells (%s × %d intervals × %d bag sizes × %d trials × %d methods); %d already in %s, %d to run\n",
		map[bool]string{true: " --offline", false: ""}[*offline], len(cells), strings.Join(spec.Datasets, ", "), len(spec.Intervals),
		len(spec.BagSizes), spec.Trials, len(spec.Methods), len(cells)-todo, *results, todo)
	fmt.Fprintf(stderr, "  %d model fits per (data set, interval, bag size, trial): the methods' grids × %d folds + the final fit\n", fits, spec.Folds)
	if !*offline {
		fmt.Fprintln(stderr, "  memory: InvCal and alter-∝SVM use the exact n×n kernel (n = 8192 at Adult bag size 8: 512 MiB per matrix); LLPFC and LMMCM switch to Nyström above --max-exact")
	}
	open := func(ds string) (binary.Source, error) { return binary.OpenSource(ds, *dataDir) }
	missing := false
	for _, ds := range spec.Datasets {
		if _, err := open(ds); err != nil {
			fmt.Fprintf(stderr, "  data: %v\n", err)
			missing = true
		}
	}
	if missing && !*offline {
		fmt.Fprintln(stderr, "  (without the UCI files, --offline runs the experiment on a Fashion-MNIST binary task)")
	}
	if *dryRun {
		return exitOK
	}
	if missing && todo > 0 {
		fmt.Fprintln(stderr, "llpfc reproduce: data sets missing (see above); nothing was run")
		return exitBadUsage
	}
	ctx, stop := interruptible("reproduce", stderr)
	defer stop()
	done, failed, err := binary.Run(ctx, spec, st, open, stderr)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "llpfc reproduce: interrupted after %d cells; run the same command again to resume\n", done)
		} else {
			fmt.Fprintf(stderr, "llpfc reproduce: %v\n", err)
		}
		return exitFailed
	}
	md, _, err := binary.Report(spec, st)
	if err != nil {
		fmt.Fprintf(stderr, "llpfc reproduce: report: %v\n", err)
		return exitFailed
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return bad("--out: %v", err)
	}
	path := filepath.Join(*out, "report.md")
	if err := atomicfile.WriteFile(path, []byte(md)); err != nil {
		fmt.Fprintf(stderr, "llpfc reproduce: %v\n", err)
		return exitFailed
	}
	io.WriteString(stdout, md)
	fmt.Fprintf(stdout, "\nreport: %s\n", path)
	for _, f := range failed {
		fmt.Fprintf(stderr, "llpfc reproduce: %v\n", f)
	}
	if len(failed) > 0 {
		return exitFailed
	}
	return exitOK
}
