package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/bagproto"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/experiments/learn"
	"github.com/llpfc/llpfc/internal/atomicfile"
)

func init() {
	register(command{
		name:    "bags",
		summary: "make an LLP data set: draw bags from a labelled data set by the paper's protocol (or another) into a bags file",
		run:     runBags,
	})
}

const bagsSynopsis = `Draws bags of instances from one split of a labelled data set and writes the bags file
read by ` + "`llpfc groups`" + `: {"num_classes": C, "bags": [{"id", "size", "proportions", "indices"}, ...]},
where proportions are each bag's empirical label proportions and indices index the split.
Protocols (Appendix A of the paper): paper = per bag γ ~ Dirichlet(1,…,1), counts ~
Multinomial(B, γ), drawn without replacement from the class pools; dirichlet:a = the same with
concentration a; shuffle = the prior work's shuffle-and-cut. Bags of varying sizes (no
--bag-size; --num-points, if given, a random subset): feature:COL[,COL…][,min=M][,max=M] =
one bag per value combination of the columns (LLP-Bench); kmeans:K = the K k-means clusters of
the standardized inputs (LLP-VAT), as train and the grid make them. A bag-only data set
(bags:…) has its bags already: read them with llpfc groups --data. The same flags and seed always
give a byte-identical file. Prints a one-line summary, then the predicted trouble for LLPFC:
the distribution of ‖T̂⁻¹‖₁ over random groupings of the bags (uniform mode), with a warning
when its median is large (near-uniform bags, where LLPFC breaks). Exit status 2 on any error.`

// bagsChoices parses --protocol, --shortfall and --split; each error names
// its flag.
func bagsChoices(protocol, shortfall, split string) (bagproto.Protocol, bagproto.Shortfall, data.Split, error) {
	proto, err := bagproto.ParseProtocol(protocol)
	if err != nil {
		return proto, 0, 0, fmt.Errorf("--protocol: %v", err)
	}
	policy, err := bagproto.ParseShortfall(shortfall)
	if err != nil {
		return proto, policy, 0, fmt.Errorf("--shortfall: %v", err)
	}
	switch split {
	case "train":
		return proto, policy, data.Train, nil
	case "test":
		return proto, policy, data.Test, nil
	}
	return proto, policy, 0, fmt.Errorf("--split is %q, want train or test", split)
}

// bagsFlags are `llpfc bags`'s flags.
type bagsFlags struct {
	name, dir, split, protocol, shortfall, out *string
	bagSize, numBags, numPoints, rounds        *int
	seed                                       *int64
}

func defineBagsFlags(fs *flag.FlagSet) *bagsFlags {
	f := &bagsFlags{}
	f.name = fs.String("data", "", "labelled data set: fixture (embedded Fashion-MNIST subset), fashion-mnist, mnist, emnist-letters, cifar10, svhn, csv:TRAIN[,TEST][@LABEL][@categorical=COL+COL][@na=SPELLING+SPELLING], parquet:TRAIN[,TEST][@LABEL][@categorical=COL+COL][@na=SPELLING+SPELLING] or libsvm:TRAIN[,TEST]")
	f.dir = defineDataDir(fs)
	f.split = fs.String("split", "train", "which split to draw bags from: train or test")
	f.bagSize = fs.Int("bag-size", 0, "B, the number of instances in every bag (the paper uses 32…2048)")
	f.numBags = fs.Int("num-bags", 0, "K, the number of bags (give this or --num-points)")
	f.numPoints = fs.Int("num-points", 0, "N, the total number of instances to put in bags, a multiple of --bag-size (the paper: 40960 for CIFAR10 and SVHN, 106496 for EMNIST)")
	f.protocol = fs.String("protocol", "paper", "bag protocol: paper, shuffle, dirichlet:a (a > 0), feature:COL[,COL…][,min=M][,max=M] or kmeans:K")
	f.shortfall = fs.String("shortfall", "restart", "when a class pool runs out: restart (draw the whole set of bags again; bags keep the paper protocol's distribution conditioned on fitting, as in the authors' code), redraw (only that bag's proportions, then restart) or strict (fail naming the bag and class)")
	f.seed = fs.Int64("seed", 1, "random seed; the same seed gives the same bags")
	f.out = fs.String("out", "", "path of the bags file to write (written atomically)")
	f.rounds = fs.Int("trouble-rounds", 20, "number of random groupings over which ‖T̂⁻¹‖₁ is summarized after writing, to predict trouble for LLPFC before training; 0 skips it")
	return f
}

// check validates the flags before any data is read; each error names its
// flag. A count given explicitly must be positive (0 is "not given" only
// when left out).
func (f *bagsFlags) check(given map[string]bool) error {
	if *f.name == "" {
		return errors.New("--data is required (e.g. --data fixture)")
	}
	if *f.out == "" {
		return errors.New("--out is required")
	}
	if *f.rounds < 0 {
		return fmt.Errorf("--trouble-rounds is %d, want ≥ 0", *f.rounds)
	}
	if experiments.IsBagOnly(*f.name) {
		return fmt.Errorf("--data %s is a bag-only data set: it gives its own bags; read them with llpfc groups --data %s, or train on them with llpfc train --data %s", *f.name, *f.name, *f.name)
	}
	if experiments.VariableBags(*f.protocol) {
		return f.checkVariable(given)
	}
	if *f.bagSize < 1 {
		return fmt.Errorf("--bag-size is %d, want ≥ 1", *f.bagSize)
	}
	for _, c := range []struct {
		flag string
		v    int
	}{{"num-bags", *f.numBags}, {"num-points", *f.numPoints}} {
		if given[c.flag] && c.v < 1 {
			return fmt.Errorf("--%s is %d, want ≥ 1", c.flag, c.v)
		}
	}
	if (*f.numBags > 0) == (*f.numPoints > 0) {
		return fmt.Errorf("give exactly one of --num-bags K > 0 and --num-points N > 0 (got %d and %d)", *f.numBags, *f.numPoints)
	}
	return nil
}

func runBags(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("bags --data NAME [--data-dir D] --bag-size B (--num-bags K | --num-points N) --protocol P [--shortfall restart|redraw|strict] --seed S --out FILE", bagsSynopsis, stderr)
	f := defineBagsFlags(fs)
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	if err := f.check(givenFlags(fs)); err != nil {
		return exitWith(stderr, "llpfc bags", usageError{err})
	}
	var plan ioPlan
	plan.readData("--data", *f.name, *f.dir)
	plan.write("--out", *f.out)
	if err := guardIO(plan); err != nil {
		return exitWith(stderr, "llpfc bags", err)
	}
	if err := f.run(stdout); err != nil {
		return exitWith(stderr, "llpfc bags", usageError{err})
	}
	return exitOK
}

// run reads the split, draws the bags, writes them to --out and prints the
// summary and the predicted trouble. Every error is the input's (exit 2).
func (f *bagsFlags) run(stdout io.Writer) error {
	proto, policy, sp, err := bagsChoices(*f.protocol, *f.shortfall, *f.split)
	if err != nil {
		return err
	}
	d, err := data.Resolve(*f.name, *f.dir)
	if err != nil {
		return err
	}
	ds, err := data.Load(*f.name, d, sp)
	if err != nil {
		return err
	}
	var res *bagproto.Result
	if proto.VariableSize() {
		res, err = f.variableBags(ds, sp)
	} else {
		res, err = bagproto.Make(ds.Y, ds.NumClasses, bagproto.Config{
			Protocol: proto, BagSize: *f.bagSize, NumBags: *f.numBags, NumPoints: *f.numPoints,
			Shortfall: policy, Seed: *f.seed, ClassNames: ds.ClassNames,
		})
	}
	if err != nil {
		return fmt.Errorf("%s (%s split, %d points): %v", *f.name, sp, ds.N, err)
	}
	if err := atomicfile.Write(*f.out, res.Bags.Write); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d bags of %s from %s (%s split, %d points, %d classes) to %s: protocol %v, seed %d, %d redraws, %d restarts%s\n",
		len(res.Bags.Bags), bagsSizeText(proto, *f.bagSize), *f.name, sp, ds.N, ds.NumClasses, *f.out, proto, *f.seed, res.TotalRedraws(), res.Restarts, droppedText(res))
	if *f.rounds > 0 && len(res.Bags.Bags) >= ds.NumClasses {
		if err := printTrouble(stdout, res.Bags, estimators.Options{Mode: estimators.ModeUniform}, *f.seed, *f.rounds); err != nil {
			return fmt.Errorf("predicting trouble: %v", err)
		}
	}
	return nil
}

// checkVariable checks bags' flags for a protocol of bags of varying
// sizes: no --bag-size or --num-bags, and --num-points ≥ 1 when given.
func (f *bagsFlags) checkVariable(given map[string]bool) error {
	for _, fl := range []string{"bag-size", "num-bags"} {
		if given[fl] {
			return fmt.Errorf("--%s conflicts with --protocol %s, which makes bags of varying sizes (and numbers); drop --%s", fl, *f.protocol, fl)
		}
	}
	if given["num-points"] && *f.numPoints < 1 {
		return fmt.Errorf("--num-points is %d, want ≥ 1 (or leave it out: the whole split)", *f.numPoints)
	}
	return nil
}

// variableBags makes the feature or kmeans bags of split sp of the data set,
// from its inputs standardized as train and the grid standardize them (the
// training split's constants), so that the same seed gives the same bags
// here and in a cell.
func (f *bagsFlags) variableBags(ds *data.Dataset, sp data.Split) (*bagproto.Result, error) {
	d := ds
	if sp == data.Train {
		norm, err := data.Fit(data.Standardize, ds)
		if err != nil {
			return nil, err
		}
		if d, err = norm.Apply(ds); err != nil {
			return nil, err
		}
	} else {
		splits, err := learn.LoadSplits(experiments.Cell{Config: experiments.Config{Dataset: *f.name, Normalize: data.Standardize}, DataDir: *f.dir})
		if err != nil {
			return nil, err
		}
		d = splits.Test
	}
	return learn.MakeBags(d, experiments.Config{Dataset: *f.name, Protocol: *f.protocol, NumPoints: *f.numPoints, Seed: *f.seed})
}

// bagsSizeText describes the bags' size for bags' summary line.
func bagsSizeText(p bagproto.Protocol, size int) string {
	if p.VariableSize() {
		return "varying sizes"
	}
	return fmt.Sprint(size)
}

// droppedText notes the instances the feature protocol's bounds dropped.
func droppedText(res *bagproto.Result) string {
	if res.Dropped == 0 {
		return ""
	}
	return fmt.Sprintf(", %d bags (%d instances) outside the size bounds dropped", res.DroppedBags, res.Dropped)
}
