package main

import (
	"fmt"
	"strings"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/bagproto"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/experiments/learn"
	"github.com/llpfc/llpfc/training"
)

// Bag-only data sets and the protocols of bags of varying sizes (issue 28)
// on the command line: `llpfc train --data bags:PATH` trains on the bags a
// bag-only set gives (protocol "given"); --protocol feature:… and kmeans:K
// make bags of varying sizes from a labelled set. Their cells have bag size
// 0 and NumPoints the instances the protocol takes (0: all).

// dataHelp is the help of --data of train and bags: every data set name.
const dataHelp = "data set: fixture, fashion-mnist, mnist, emnist-letters, cifar10, svhn, csv:TRAIN[,TEST][@LABEL][@categorical=COL+COL], parquet:TRAIN[,TEST][@LABEL][@categorical=COL+COL] (string columns, and those named, are one-hot), libsvm:TRAIN[,TEST], gmm:classes=C,dim=D,train=N,test=M,sep=S (a synthetic Gaussian mixture, as a spec names it), bags:PATH (a bag-only LLP set, no instance labels: an .npz file or a directory holding X, bag and proportions arrays [and test_X, test_y], or TRAIN,PROPORTIONS[,TEST] CSV or Parquet tables; options @normalize rescales proportion rows that do not sum to 1, @bag=COL and @label=COL name columns; see README, \"Your own data\"), npz:PATH (NumPy instances: an .npz file or a directory holding X and optionally y, test_X, test_y; without labels only predict reads it, with --split train), or a directory holding one of the named sets' files"

// protocolHelp is the help of --protocol of train and bags.
const protocolHelp = "bag protocol: paper (γ ~ uniform on the simplex, counts ~ Multinomial), shuffle, dirichlet:a, feature:COL[,COL…][,min=M][,max=M] (one bag per value combination of the columns, LLP-Bench's feature bags; min= and max= drop the bags of fewer or more instances) or kmeans:K (the K clusters of k-means on the inputs, LLP-VAT's); the last two make bags of varying sizes (no --bag-size; --num-points 0 takes the whole split). A bag-only --data bags:… gives its own bags (protocol given)"

// bagShape settles the protocol, bag size and points of the cell: the
// flags', or for a bag-only data set its own bags (protocol given, bag
// size and points 0), or for a protocol of bags of varying sizes bag size
// 0. A flag that would describe other bags conflicts, naming it; a method
// that needs instance labels refuses a bag-only set.
func (f *trainFlags) bagShape(given map[string]bool, dsName string) (protocol string, bagSize, numPoints int, err error) {
	switch {
	case experiments.IsBagOnly(dsName):
		for _, fl := range []string{"bags", "bag-size", "num-points", "protocol"} {
			if given[fl] && !(fl == "protocol" && *f.protocol == experiments.GivenProtocol) {
				return "", 0, 0, fmt.Errorf("--%s conflicts with --data %s: a bag-only data set gives its own bags (their ids, sizes and proportions); drop --%s", fl, dsName, fl)
			}
		}
		if *f.method == training.Supervised {
			return "", 0, 0, fmt.Errorf("--method %s trains on instance labels, and --data %s is bag-only (no instance labels, only its bags' proportions): choose an LLP method", training.Supervised, dsName)
		}
		return experiments.GivenProtocol, 0, 0, nil
	case *f.protocol == experiments.GivenProtocol:
		return "", 0, 0, fmt.Errorf("--protocol %s takes the bags of a bag-only data set (--data bags:…); %s is labelled", experiments.GivenProtocol, dsName)
	case experiments.VariableBags(*f.protocol):
		if given["bag-size"] {
			return "", 0, 0, fmt.Errorf("--bag-size conflicts with --protocol %s, which makes bags of varying sizes; drop --bag-size", *f.protocol)
		}
		return *f.protocol, 0, *f.numPoints, nil
	}
	return *f.protocol, *f.bagSize, *f.numPoints, nil
}

// bagsText describes the bags a run trains on for its plan: the bags and
// instances trained on, and those held out for validation (issue 38, item
// 8: "20 bags (600 instances)" for a run that trained on 15 bags and 451).
func bagsText(c experiments.Config, prob *learn.Problem) string {
	count := func(bags []estimators.Bag) (int, int) {
		n := 0
		for _, b := range bags {
			n += b.Size
		}
		return len(bags), n
	}
	trained, held, err := training.HeldOut(c.Hyper.ValBags, c.Seed, prob.Bags.Bags)
	if err != nil {
		trained = prob.Bags.Bags // training refuses it, naming --val-bags
	}
	k, n := count(trained)
	text := fmt.Sprintf("%d bags (%d instances)", k, n)
	if len(held) > 0 {
		hk, hn := count(held)
		text += fmt.Sprintf(" to train on and %d held out for validation (%d instances)", hk, hn)
	}
	return text
}

// bagSizeText describes a cell's bag size for a message: the size, or
// "varying".
func bagSizeText(b int) string {
	if b == 0 {
		return "varying"
	}
	return fmt.Sprint(b)
}

// bagOnlySet returns the bags of the bag-only data set name (groups --data).
func bagOnlySet(name string) (*estimators.BagSet, error) {
	if !experiments.IsBagOnly(name) {
		return nil, fmt.Errorf("--data %s: groups reads a bag-only data set (bags:PATH); for a labelled set, draw a bags file with llpfc bags and pass --bags FILE", name)
	}
	d, err := data.Load(name, "", data.Train)
	if err != nil {
		return nil, err
	}
	return d.Bags, nil
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

// ownData points the plan's grid at the data set --data names (nothing
// when empty): a bag-only set is trained on its own bags (no bag sizes or
// points; the supervised ceiling, which needs labels, left out), a
// labelled set with the grid's protocol, bag sizes and points.
func (p *reproducePlan) ownData(name string) error {
	if name == "" {
		return nil
	}
	if gpuTable(p.grid) {
		return usagef("--data applies to --quick and the Fashion-MNIST tables; the paper's tables (--table %s) fix their data sets", p.grid)
	}
	p.custom = true
	s := p.spec
	s.Datasets = []string{name}
	if experiments.IsBagOnly(name) {
		s.Protocol, s.BagSizes, s.NumPoints, s.Shortfall = experiments.GivenProtocol, nil, 0, ""
		var methods []string
		for _, m := range s.Methods {
			if m != training.Supervised {
				methods = append(methods, m)
			}
		}
		s.Methods = methods
	}
	s.Description = ownDataDescription(p.grid, s)
	return nil
}

// ownDataDescription describes a grid put on the user's data (--data) from
// the spec itself: the grid's name stands for its methods and settings,
// never for its own data set (issue 38: reproduce --quick --data bags:…
// announced the Fashion-MNIST fixture and its bag sizes).
func ownDataDescription(grid string, s *grid.Spec) string {
	bags := "its own bags (protocol given)"
	if len(s.BagSizes) > 0 {
		sizes := make([]string, len(s.BagSizes))
		for i, b := range s.BagSizes {
			sizes[i] = fmt.Sprint(b)
		}
		bags = fmt.Sprintf("bags of %s by protocol %s", strings.Join(sizes, ", "), s.Protocol)
	}
	return fmt.Sprintf("the %s grid's methods on %s: %s, %s, %s, %d seeds, %d epochs of %s",
		grid, s.Datasets[0], s.Model, strings.Join(s.Methods, ", "), bags, len(s.Seeds), s.Hyper.Epochs, s.Hyper.Optimizer)
}
