package training

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/methods"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/llpfc/llpfc/training/optim"
	"gorgonia.org/tensor"
)

// withDefaults fills the zero fields of c with their defaults and checks
// what its types leave open (the numbers' ranges, the flooding method). The
// settings that name a choice (the KL scale, the VAT schedule, the
// batch-norm statistics, the group weights, the compat mode, the device) are
// typed values parsed where they enter — a spec, a flag — and are
// not parsed again here; their zero values read as their defaults.
func withDefaults(c Config) (Config, error) {
	if c.ChunkSize == 0 {
		c.ChunkSize = DefaultChunkSize
	}
	if c.EvalBatch == 0 {
		c.EvalBatch = DefaultEvalBatch
	}
	if c.CheckpointEvery == 0 {
		c.CheckpointEvery = 1
	}
	if c.Schedule == nil {
		c.Schedule = optim.ConstantLR{}
	}
	if c.KLScale == 0 {
		c.KLScale = loss.KLScaleAuthors
	}
	if c.VATRampup == 0 {
		c.VATRampup = loss.VATRampupAuthors
	}
	if c.BNStats == 0 {
		c.BNStats = nn.BNStatsMinibatch
	}
	if err := checkSelection(c); err != nil {
		return c, err
	}
	if c.Model.Dtype == tensor.Float64 {
		return c, errors.New("config: training runs in float32 (Model.Dtype float64 is for gradient checks only)")
	}
	d, ok := methods.Lookup(c.Method)
	switch {
	case !ok:
		return c, fmt.Errorf("config: %w", methods.UnknownError(c.Method))
	case c.BatchSize < 1:
		return c, fmt.Errorf("config: batch size %d, want ≥ 1", c.BatchSize)
	case c.Steps < 0:
		return c, fmt.Errorf("config: steps %d, want ≥ 1, or 0 for a number of epochs", c.Steps)
	case c.Steps > 0 && c.Epochs != 0:
		return c, fmt.Errorf("config: epochs %d and steps %d, want one of them (the other 0)", c.Epochs, c.Steps)
	case c.Steps == 0 && c.Epochs < 1:
		return c, fmt.Errorf("config: epochs %d, want ≥ 1", c.Epochs)
	case c.RegroupEvery < 0:
		return c, fmt.Errorf("config: regroup every %d epochs, want ≥ 1, or 0 for never", c.RegroupEvery)
	case c.ChunkSize < 1:
		return c, fmt.Errorf("config: chunk size %d, want ≥ 1", c.ChunkSize)
	case !(c.Flood >= 0) || math.IsInf(c.Flood, 0) || (c.Flood != 0 && !d.Reads(methods.SettingFlood)):
		return c, fmt.Errorf("config: flood %v, want a finite level ≥ 0, and only for a method with flooding (method %s)", c.Flood, c.Method)
	case c.PVCLikelihood != 0 && !d.Reads(methods.SettingPVCLikelihood):
		return c, fmt.Errorf("config: pvc likelihood %s, but method %s is not llppvc", c.PVCLikelihood, c.Method)
	case c.EvalBatch < 1:
		return c, fmt.Errorf("config: eval batch %d, want ≥ 1", c.EvalBatch)
	case c.EvalEvery < 0:
		return c, fmt.Errorf("config: eval every %d epochs, want ≥ 0", c.EvalEvery)
	case c.CheckpointEvery < 1:
		return c, fmt.Errorf("config: checkpoint every %d epochs, want ≥ 1", c.CheckpointEvery)
	case !d.RunsOn(string(c.Device)):
		return c, fmt.Errorf("config: method %s does not run on device %s (it runs on %s)", c.Method, c.Device, strings.Join(d.Backends(), ", "))
	}
	if err := methods.CheckSettings(c.Method, c.Settings); err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	if c.VAT != (loss.VATConfig{}) {
		if err := c.VAT.Validate(); err != nil {
			return c, fmt.Errorf("config: %w", err)
		}
	}
	if ms, ok := c.Schedule.(optim.MultiStep); ok {
		if err := ms.Validate(); err != nil {
			return c, err
		}
	}
	if err := c.Optimizer.Validate(); err != nil {
		return c, err
	}
	return c, nil
}

// checkSelection validates ValBags and Select.
func checkSelection(c Config) error {
	switch {
	case c.ValBags < 0 || math.IsNaN(c.ValBags) || math.IsInf(c.ValBags, 0):
		return fmt.Errorf("config: val bags %v, want a fraction in (0, 1), a number of bags ≥ 1, or 0 for none", c.ValBags)
	case c.ValBags >= 1 && c.ValBags != math.Trunc(c.ValBags):
		return fmt.Errorf("config: val bags %v, want a whole number of bags (or a fraction below 1)", c.ValBags)
	case c.Select == SelectBestVal && c.ValBags == 0:
		return fmt.Errorf("config: select %s needs held-out bags (val bags > 0) to select on", SelectBestVal)
	}
	return nil
}

// HeldOut splits bags as Config.ValBags holds them out of training (stream
// "val-bags" of seed): the bags trained on and the held-out ones, each in
// their original order. valBags is a fraction below 1 or a number of bags;
// 0 holds none out. Callers that count what a run trains on (its points,
// its bags) use it, so that the counts are training's.
func HeldOut(valBags float64, seed int64, bags []estimators.Bag) (train, val []estimators.Bag, err error) {
	if valBags == 0 {
		return bags, nil, nil
	}
	k, err := HeldOutCount(valBags, len(bags))
	if err != nil {
		return nil, nil, err
	}
	held := map[int]bool{}
	for _, i := range rng.New(seed, "val-bags").Perm(len(bags))[:k] {
		held[i] = true
	}
	for i, b := range bags {
		if held[i] {
			val = append(val, b)
		} else {
			train = append(train, b)
		}
	}
	return train, val, nil
}

// HeldOutCount is the number of bags of n that valBags holds out (HeldOut),
// or an error when it holds none or all of them.
func HeldOutCount(valBags float64, n int) (int, error) {
	k := int(valBags)
	if valBags < 1 {
		k = int(math.Round(valBags * float64(n)))
	}
	if k < 1 || k >= n {
		return 0, fmt.Errorf("val bags %v of %d bags: want at least one bag held out and one left to train on", valBags, n)
	}
	return k, nil
}

// splitValidation draws the held-out bags of cfg.ValBags from data's bags
// (HeldOut) and returns the training data without them and the held-out
// bags.
func splitValidation(cfg Config, data *TrainData) (*TrainData, []estimators.Bag, error) {
	if cfg.ValBags == 0 {
		return data, nil, nil
	}
	trainBags, val, err := HeldOut(cfg.ValBags, cfg.Seed, data.Bags.Bags)
	if err != nil {
		return nil, nil, err
	}
	train := *data
	set := *data.Bags
	set.Bags = trainBags
	train.Bags = &set
	return &train, val, nil
}
