package experiments

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/llpfc/llpfc/experiments/bagproto"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/training"
)

// knownDataset reports whether name is a data set the learners can load: a
// named set of package data, a csv:, parquet:, libsvm: or bag-only bags:
// one, or a synthetic gmm: one. A spec naming another fails before any cell
// runs.
func knownDataset(name string) bool {
	for _, p := range []string{"csv:", "parquet:", "libsvm:", "bags:", "gmm:"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return containsStr(data.Names, name)
}

// Validate checks one cell's configuration and names the offending field.
func (c Config) Validate() error {
	h := c.Hyper
	switch {
	case c.Learner == "":
		return errors.New("learner: is empty, want a registered learner (e.g. logreg, gorgonia)")
	case c.Dataset == "":
		return errors.New("dataset: is empty")
	case !knownDataset(c.Dataset):
		return fmt.Errorf("dataset: %q is unknown, want one of %s, or csv:…, parquet:…, libsvm:…, bags:…, gmm:…", c.Dataset, strings.Join(data.Names, ", "))
	case strings.HasPrefix(c.Dataset, "gmm:") && gmmError(c.Dataset) != nil:
		return fmt.Errorf("dataset: %w", gmmError(c.Dataset))
	case c.Model == "":
		return errors.New("model: is empty")
	case c.Learner == "gorgonia" && !containsStr(training.ModelNames(), c.Model):
		return fmt.Errorf("model: %q is unknown to the gorgonia learner, want one of %s", c.Model, strings.Join(training.ModelNames(), ", "))
	case !containsStr(Methods(), c.Method):
		return fmt.Errorf("method: is %q, want one of %s", c.Method, strings.Join(Methods(), ", "))
	case c.validateBagShape() != nil:
		return c.validateBagShape()
	case c.TestPoints < 0:
		return fmt.Errorf("test_points: is %d, want ≥ 0 (0 = the whole test split)", c.TestPoints)
	case h.Steps < 0:
		return fmt.Errorf("hyper.steps: is %d, want > 0 (a budget of optimizer steps), or 0 for hyper.epochs", h.Steps)
	case h.Steps > 0 && h.Epochs != 0:
		return fmt.Errorf("hyper.steps: is %d with hyper.epochs %d, want one of them (set the other to 0)", h.Steps, h.Epochs)
	case h.Steps > 0 && c.Learner != "gorgonia":
		return fmt.Errorf("hyper.steps: the %s learner counts epochs, not steps (set hyper.epochs)", c.Learner)
	case h.Steps > 0 && h.Schedule.Kind == "multistep":
		return errors.New("hyper.steps: a multistep schedule's milestones are epochs, which a step budget leaves open (set hyper.epochs, or another schedule)")
	case h.Steps == 0 && h.Epochs <= 0:
		return fmt.Errorf("hyper.epochs: is %d, want > 0", h.Epochs)
	case !containsStr([]string{"sgd", "nesterov", "adam", "adamw", "gd"}, h.Optimizer):
		return fmt.Errorf("hyper.optimizer: is %q, want sgd, nesterov, adam, adamw or gd", h.Optimizer)
	case h.Search == nil && (!(h.LR > 0) || math.IsInf(h.LR, 0)):
		return fmt.Errorf("hyper.lr: is %v, want a finite number > 0", h.LR)
	case !(h.Momentum >= 0 && h.Momentum < 1):
		return fmt.Errorf("hyper.momentum: is %v, want in [0, 1)", h.Momentum)
	case h.Optimizer == "nesterov" && h.Momentum == 0:
		return errors.New("hyper.momentum: is 0, want > 0 with optimizer nesterov")
	case !(h.WeightDecay >= 0) || math.IsInf(h.WeightDecay, 0):
		return fmt.Errorf("hyper.weight_decay: is %v, want a finite number ≥ 0", h.WeightDecay)
	case !(h.Beta1 >= 0 && h.Beta1 < 1):
		return fmt.Errorf("hyper.beta1: is %v, want in [0, 1)", h.Beta1)
	case !(h.Beta2 >= 0 && h.Beta2 < 1):
		return fmt.Errorf("hyper.beta2: is %v, want in [0, 1)", h.Beta2)
	case h.BatchSize <= 0 && (h.Search == nil || len(h.Search.BatchSize) == 0):
		return fmt.Errorf("hyper.batch_size: is %d, want > 0", h.BatchSize)
	case h.Search != nil && h.validateSearch() != nil:
		return h.validateSearch()
	case !(h.ValBags >= 0) || math.IsInf(h.ValBags, 0) || (h.ValBags >= 1 && h.ValBags != math.Trunc(h.ValBags)):
		return fmt.Errorf("hyper.val_bags: is %v, want a fraction in (0, 1), a whole number of bags, or 0 for none", h.ValBags)
	case h.Select != 0 && h.Select != training.SelectLast && h.Select != training.SelectBestVal:
		return fmt.Errorf("hyper.select: is %q, want %s or %s", h.Select, training.SelectLast, training.SelectBestVal)
	case h.Select == training.SelectBestVal && h.ValBags == 0:
		return errors.New("hyper.select: best-val needs hyper.val_bags > 0 (bags held out to select on)")
	case !CountsInstances(c.Method) && !TakesAllBags(c.Method) && c.NumBags() > 0 && slices.Max(h.batchSizes()) > c.NumBags():
		return fmt.Errorf("hyper.batch_size: %d bags, but method %s at bag size %d has only %d bags", slices.Max(h.batchSizes()), c.Method, c.BagSize, c.NumBags())
	case !(h.Dropout >= 0 && h.Dropout < 1):
		return fmt.Errorf("hyper.dropout: is %v, want in [0, 1)", h.Dropout)
	}
	if err := validateProtocol(c.Protocol); err != nil {
		return err
	}
	if c.Shortfall != "" {
		if _, err := bagproto.ParseShortfall(c.Shortfall); err != nil {
			return fmt.Errorf("shortfall: %w", err)
		}
	}
	if _, err := data.ParseNormalize(c.Normalize); err != nil {
		return fmt.Errorf("normalize: %w", err)
	}
	if err := checkMethodSettings(c.Method, h); err != nil {
		return err
	}
	if err := h.Schedule.validate(h.Epochs); err != nil {
		return err
	}
	return checkLearner(c)
}

// gmmError is ParseGMM's error for a gmm:… name.
func gmmError(name string) error {
	_, err := ParseGMM(name)
	return err
}

func validateProtocol(p string) error {
	switch {
	case p == "paper" || p == "shuffle" || p == GivenProtocol:
		return nil
	case strings.HasPrefix(p, "feature:") || strings.HasPrefix(p, "kmeans:"):
		if _, err := bagproto.ParseProtocol(p); err != nil {
			return fmt.Errorf("protocol: %w", err)
		}
		return nil
	case strings.HasPrefix(p, "dirichlet:"):
		a, err := strconv.ParseFloat(strings.TrimPrefix(p, "dirichlet:"), 64)
		if err != nil || !(a > 0) || math.IsInf(a, 0) {
			return fmt.Errorf("protocol: %q has concentration %q, want a finite number > 0", p, strings.TrimPrefix(p, "dirichlet:"))
		}
		return nil
	}
	return fmt.Errorf("protocol: is %q, want %s, or %s for a bag-only data set", p, bagproto.ProtocolSyntax, GivenProtocol)
}

// validateBagShape checks the bag size and points of a cell against its
// protocol and data set; each error names its field.
func (c Config) validateBagShape() error {
	if err := validateProtocol(c.Protocol); err != nil {
		return err // a bad protocol first: it decides the rules below
	}
	switch {
	case IsBagOnly(c.Dataset) && c.Protocol != GivenProtocol:
		return fmt.Errorf("protocol: is %q, but data set %s is bag-only: its bags are given (protocol %q); a protocol draws bags from labels, which it has none of", c.Protocol, c.Dataset, GivenProtocol)
	case c.Protocol == GivenProtocol && !IsBagOnly(c.Dataset):
		return fmt.Errorf("protocol: %q takes the bags of a bag-only data set (bags:…), but data set %s is labelled: draw its bags with paper, shuffle, dirichlet:a, feature:… or kmeans:K", GivenProtocol, c.Dataset)
	case c.Protocol == GivenProtocol && (c.BagSize != 0 || c.NumPoints != 0):
		return fmt.Errorf("bag_size, num_points: are %d and %d, but bag-only data set %s gives its bags: want 0 (leave bag_sizes and num_points out)", c.BagSize, c.NumPoints, c.Dataset)
	case VariableBags(c.Protocol) && c.BagSize != 0:
		return fmt.Errorf("bag_size: is %d, but protocol %s makes bags of varying sizes: want 0 (leave bag_sizes out)", c.BagSize, c.Protocol)
	case VariableBags(c.Protocol) && c.NumPoints < 0:
		return fmt.Errorf("num_points: is %d, want ≥ 0 (0: the whole training split)", c.NumPoints)
	case IsBagOnly(c.Dataset) && UsesLabels(c.Method):
		return fmt.Errorf("method: %s trains on instance labels, and bag-only data set %s has none (only its bags' proportions)", c.Method, c.Dataset)
	case VariableBags(c.Protocol):
		return nil
	case c.BagSize <= 0:
		return fmt.Errorf("bag_size: is %d, want > 0", c.BagSize)
	case c.NumPoints <= 0:
		return fmt.Errorf("num_points: is %d, want > 0", c.NumPoints)
	case c.NumPoints%c.BagSize != 0:
		return fmt.Errorf("num_points: %d is not a multiple of bag size %d (bags have equal sizes, Section 6)", c.NumPoints, c.BagSize)
	}
	return nil
}

// checkLearner checks c against its learner: registered, and willing to
// train c (CellChecker).
func checkLearner(c Config) error {
	l, err := LookupLearner(c.Learner)
	if err != nil {
		return err // "learner …": names the field
	}
	if ck, ok := l.(CellChecker); ok {
		return ck.CheckCell(c)
	}
	return nil
}

// validateSearch checks a label-free search (Hyper.Search): rates and
// minibatches in range, the cell's own rate (and minibatch, when searched)
// left 0, held-out bags to score the trials on, and the last epoch's
// network reported (the trial is chosen on it).
func (h Hyper) validateSearch() error {
	s := h.Search
	switch {
	case len(s.LR) == 0:
		return errors.New("hyper.search.lr: is empty, want the learning rates to try")
	case h.LR != 0:
		return fmt.Errorf("hyper.lr: is %v, but hyper.search tries its own rates: want 0", h.LR)
	case len(s.BatchSize) > 0 && h.BatchSize != 0:
		return fmt.Errorf("hyper.batch_size: is %d, but hyper.search tries its own minibatches: want 0", h.BatchSize)
	case !(h.ValBags > 0):
		return errors.New("hyper.search: needs hyper.val_bags > 0, the held-out bags whose proportion loss chooses a trial (no instance label is read)")
	case h.Select == training.SelectBestVal:
		return errors.New("hyper.select: best-val with hyper.search: a trial is scored and reported on its last epoch")
	}
	for i, lr := range s.LR {
		if !(lr > 0) || math.IsInf(lr, 0) {
			return fmt.Errorf("hyper.search.lr[%d]: is %v, want a finite number > 0", i, lr)
		}
		if j := slices.Index(s.LR, lr); j < i {
			return fmt.Errorf("hyper.search.lr[%d]: is %v, as hyper.search.lr[%d] is: each rate is a trial, and a rate listed twice trains the same trial twice; list it once", i, lr, j)
		}
	}
	for i, b := range s.BatchSize {
		if b <= 0 {
			return fmt.Errorf("hyper.search.batch_size[%d]: is %d, want > 0", i, b)
		}
		if j := slices.Index(s.BatchSize, b); j < i {
			return fmt.Errorf("hyper.search.batch_size[%d]: is %d, as hyper.search.batch_size[%d] is: each minibatch is a trial, and one listed twice trains the same trial twice; list it once", i, b, j)
		}
	}
	if e := s.Extend; e != nil {
		lo, hi := slices.Min(s.LR), slices.Max(s.LR)
		_, okLo := LadderStep(lo, true)
		_, okHi := LadderStep(hi, false)
		switch {
		case !okLo || !okHi:
			return fmt.Errorf("hyper.search.extend: the search's ends %g and %g must lie on the ladder {1, 3}×10^k that it extends along", lo, hi)
		case !(e.Min > 0 && e.Min <= lo):
			return fmt.Errorf("hyper.search.extend.min: is %v, want > 0 and ≤ the lowest rate %g", e.Min, lo)
		case !(e.Max >= hi) || math.IsInf(e.Max, 0):
			return fmt.Errorf("hyper.search.extend.max: is %v, want finite and ≥ the highest rate %g", e.Max, hi)
		}
	}
	return nil
}
