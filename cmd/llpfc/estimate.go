package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sort"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/experiments/learn"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training"
)

// The compute estimate of a grid: reproduce's plan and --dry-run print it,
// and --sbatch takes a job script's time limit and memory from it
// (sbatch.go), so it sits below both.

// pendingCells returns the cells store does not hold yet.
func pendingCells(cells []experiments.Cell, store *grid.Store) []experiments.Cell {
	var todo []experiments.Cell
	for _, c := range cells {
		if !store.Has(c.Key) {
			todo = append(todo, c)
		}
	}
	return todo
}

// planEstimate is the compute estimate of a grid's pending cells.
type planEstimate struct {
	// InstanceEpochs is Σ over the pending cells of epochs × training points,
	// times exactBNFactor.
	InstanceEpochs int64
	// Rates holds one measured throughput per (model, input shape).
	Rates []measuredRate
	// Seconds is the estimated training time on this machine.
	Seconds float64
	// Failed lists the (model, shape) groups whose measurement failed; their
	// cells are not in Seconds.
	Failed []string
	// CellSeconds is each measured cell's share of Seconds, by key (the
	// Slurm job script's time limit is its slowest shard's sum: sbatch.go).
	CellSeconds map[string]float64
}

type measuredRate struct {
	Model, Shape   string
	BatchSize      int
	ImagesPerSec   float64
	PeakRSS        int64
	InstanceEpochs int64
}

func (e planEstimate) print(w io.Writer) {
	fmt.Fprintf(w, "  work: %d instance-epochs (Σ over the runs of epochs × training points; kl and llpvat with K batch-norm layers and a bag minibatch larger than a chunk count K + 1 times: exact whole-minibatch statistics)\n", e.InstanceEpochs)
	for _, r := range e.Rates {
		fmt.Fprintf(w, "  measured on this machine: %s on %s inputs, LLPFC minibatch %d: %.1f training images/s, process peak RSS %.0f MiB (%d instance-epochs)\n",
			r.Model, r.Shape, r.BatchSize, r.ImagesPerSec, float64(r.PeakRSS)/(1<<20), r.InstanceEpochs)
	}
	for _, f := range e.Failed {
		fmt.Fprintf(w, "  cannot train %s; those runs are left out of the estimate and will fail\n", f)
	}
	h := e.Seconds / 3600
	cores := runtime.NumCPU()
	fmt.Fprintf(w, "  estimate: %s of this machine (%d cores), i.e. %.3g CPU-hours; KL and LLP-VAT take more time per instance than LLPFC, so read it as a lower bound\n",
		fmtHours(h), cores, h*float64(cores))
}

func fmtHours(h float64) string {
	switch {
	case h > 0 && h*3600 < 1:
		return "under a second"
	case h < 1.0/60:
		return fmt.Sprintf("%.0f seconds", h*3600)
	case h < 1:
		return fmt.Sprintf("%.1f minutes", h*60)
	case h < 48:
		return fmt.Sprintf("%.1f hours", h)
	case h < 24*365:
		return fmt.Sprintf("%.0f hours (%.1f days)", h, h/24)
	}
	return fmt.Sprintf("%.0f hours (%.1f years)", h, h/24/365)
}

// trainingPoints is the number of training points of a cell: NumPoints,
// or for a set's own bags (NumPoints 0) every training instance
// (reproduce --dry-run on bag-only data once estimated "0 instance-epochs,
// 0 seconds").
func trainingPoints(c experiments.Config, shape inputShape) int {
	if c.NumPoints == 0 {
		return shape.Train
	}
	return c.NumPoints
}

// estimate measures, for every model and input shape of the pending cells,
// the training throughput of a few LLPFC minibatches on this machine
// (measureRate) and divides each cell's instance-epochs by it.
func estimate(ctx context.Context, todo []experiments.Cell) (planEstimate, error) {
	type group struct {
		cell  experiments.Cell // a representative cell
		shape inputShape
		work  int64
		cells map[string]int64 // each cell's instance-epochs, by key
	}
	groups := map[string]*group{}
	bnLayers := map[string]int{}
	var order []string
	var est planEstimate
	for _, c := range todo {
		shape, err := shapeOf(c.Config.Dataset, c.DataDir)
		if err != nil {
			return est, err
		}
		k := c.Config.Model + "\x00" + shape.String()
		g := groups[k]
		if g == nil {
			g = &group{cell: c, shape: shape, cells: map[string]int64{}}
			groups[k] = g
			order = append(order, k)
		}
		// Prefer an LLPFC cell as the representative: its batch size counts
		// instances.
		if !experiments.CountsInstances(g.cell.Config.Method) && experiments.CountsInstances(c.Config.Method) {
			g.cell = c
		}
		w, err := cellWork(c.Config, shape, bnLayers)
		if err != nil {
			return est, err
		}
		g.work += w
		g.cells[c.Key] += w
		est.InstanceEpochs += w
	}
	sort.Strings(order)
	est.CellSeconds = map[string]float64{}
	for _, k := range order {
		g := groups[k]
		ips, batch, err := measureRate(ctx, g.cell.Config, g.shape)
		if err != nil {
			if ctx.Err() != nil {
				return est, err
			}
			// The plan goes on: the cells of this group will fail the same way.
			est.Failed = append(est.Failed, fmt.Sprintf("%s on %s inputs (%d instance-epochs): %v", g.cell.Config.Model, g.shape, g.work, err))
			continue
		}
		est.Rates = append(est.Rates, measuredRate{Model: g.cell.Config.Model, Shape: fedShape(g.cell.Config.Model, g.shape),
			BatchSize: batch, ImagesPerSec: ips, PeakRSS: experiments.PeakRSSBytes(), InstanceEpochs: g.work})
		est.Seconds += float64(g.work) / ips
		for key, w := range g.cells {
			est.CellSeconds[key] += float64(w) / ips
		}
	}
	return est, nil
}

// cellWork is cell c's instance-epochs as the estimate counts them: its
// passes over its training points (Config.Passes: epochs, or a step
// budget's), the batch-norm factor (exactBNFactor), and every trial of its
// search, each of which trains the cell again (an extending search's extra
// trials are not counted: a lower bound).
func cellWork(c experiments.Config, shape inputShape, bnLayers map[string]int) (int64, error) {
	f, err := exactBNFactor(c, shape, bnLayers)
	if err != nil {
		return 0, err
	}
	tp := trainingPoints(c, shape)
	w := f * int64(c.Passes(tp)) * int64(tp)
	if sp := c.Hyper.Search; sp != nil {
		w *= int64(sp.Trials())
	}
	return w, nil
}

// fedShape names the shape the model is fed: s, or s resized to what the
// model takes (learn.InputSide).
func fedShape(model string, s inputShape) string {
	fed := s
	fed.H, fed.W = learn.InputSide(model, fed.H, fed.W)
	if fed != s {
		return s.String() + " resized to " + fed.String()
	}
	return fed.String()
}

// exactBNFactor is the cost of a cell's training relative to LLPFC's per
// instance-epoch as the estimate counts it: K + 1 for kl and llpvat with a
// model of K batch-norm layers when a minibatch of bags spans several chunks
// and the statistics are the minibatch's (training.BatchNormLayers: the
// statistics and adjoint sweeps), else 1. cache holds K per model and shape.
func exactBNFactor(c experiments.Config, s inputShape, cache map[string]int) (int64, error) {
	if !experiments.UsesKL(c.Method) || c.Hyper.BNStats == training.BNStatsChunk ||
		c.BagSize*c.Hyper.BatchSize <= training.DefaultChunkSize || s.C == 0 {
		return 1, nil
	}
	key := c.Model + "\x00" + s.String()
	k, ok := cache[key]
	if !ok {
		h, w := learn.InputSide(c.Model, s.H, s.W)
		var err error
		k, err = training.BatchNormLayers(training.ModelSpec{Name: c.Model, Channels: s.C, Height: h, Width: w, NumClasses: s.Classes})
		if err != nil {
			return 0, fmt.Errorf("estimate for %s: %w", c.Model, err)
		}
		cache[key] = k
	}
	return int64(k + 1), nil
}

// inputShape is a data set's instance shape and number of classes.
// inputShape is a data set's inputs, and (Train) its training instances
// when known: a bag-only set's cells train on all of them (NumPoints 0).
type inputShape struct{ C, H, W, Features, Classes, Train int }

func (s inputShape) String() string {
	if s.C > 0 {
		return fmt.Sprintf("%d×%d×%d", s.C, s.H, s.W)
	}
	return fmt.Sprintf("%d-feature", s.Features)
}

// knownShapes are the shapes of the named data sets, so that a plan can be
// estimated before the data are downloaded.
var knownShapes = map[string]inputShape{
	"cifar10":               {C: 3, H: 32, W: 32, Classes: 10},
	"svhn":                  {C: 3, H: 32, W: 32, Classes: 10},
	"emnist-letters":        {C: 1, H: 28, W: 28, Classes: 26},
	"fashion-mnist":         {C: 1, H: 28, W: 28, Classes: 10},
	"mnist":                 {C: 1, H: 28, W: 28, Classes: 10},
	"fixture":               {C: 1, H: 28, W: 28, Classes: 10},
	"fashion-mnist-fixture": {C: 1, H: 28, W: 28, Classes: 10},
}

// shapeOf returns the input shape of a data set: known for the named sets,
// else read from the data.
func shapeOf(name, dataDir string) (inputShape, error) {
	if s, ok := knownShapes[name]; ok {
		return s, nil
	}
	d, err := learn.ShapeOf(name, dataDir) // the generated sets (gmm:…) too, from their names
	if err != nil {
		return inputShape{}, err
	}
	s := inputShape{C: d.Channels, H: d.Height, W: d.Width, Classes: d.Classes, Train: d.Train}
	if d.Channels == 0 {
		s.Features = d.Features
	}
	return s, nil
}

// measureBatch caps the minibatch of measureRate for the deep networks
// (the small mlp and cnn are timed at the cell's own minibatch, where the
// per-step overhead would dominate a tiny one).
const measureBatch = 8

// measureRate trains cell c's model with llpfc-uniform and c's
// hyperparameters for one epoch of two minibatches (of at most measureBatch
// instances for the deep networks) on random inputs of the given shape, and returns the measured training throughput (instances per
// second of optimizer steps, as training.Result reports it) and the
// minibatch size. The numbers are random: only the time counts.
func measureRate(ctx context.Context, c experiments.Config, s inputShape) (float64, int, error) {
	if !experiments.CountsInstances(c.Method) {
		c.Hyper.BatchSize = 128 // a baseline's batch counts bags; LLPFC's (App.) is 128 instances
	}
	c.Method = training.MethodLLPFCUniform
	c.Hyper.Epochs, c.Hyper.Steps = 1, 0 // one epoch of two minibatches, whatever the cell's budget
	if c.Hyper.Search != nil {           // one trial's rate: only the time counts
		c.Hyper.LR, c.Hyper.Search = c.Hyper.Search.LR[0], nil
	}
	c.Hyper.ValBags, c.Hyper.Select = 0, 0 // the throughput data's few bags are all trained on
	c.Hyper.Schedule = experiments.Schedule{Kind: "constant"}
	c.Hyper.Augment = false
	cfg, err := learn.TrainingConfig(c)
	if err != nil {
		return 0, 0, err
	}
	// The time of a step is linear in the minibatch size, but gorgonia's
	// memory for a deep network at the appendix's 128 or 256 images is tens
	// of GB: measure with at most measureBatch images per step, and
	// evaluate in batches as small.
	batch := cfg.BatchSize
	if c.Model != training.ModelMLP && c.Model != training.ModelCNN {
		batch = min(batch, measureBatch)
	}
	cfg.BatchSize, cfg.EvalBatch = batch, batch
	s.H, s.W = learn.InputSide(c.Model, s.H, s.W)
	res, err := training.Train(ctx, cfg, throughputData(s, batch), nil)
	if err != nil {
		return 0, 0, err
	}
	if !(res.TrainImagesPerSecond > 0) {
		return 0, 0, fmt.Errorf("no throughput measured (%v images/s)", res.TrainImagesPerSecond)
	}
	return res.TrainImagesPerSecond, batch, nil
}

// throughputData returns measureRate's random training data of shape s:
// Classes bags (one LLPFC group) of equal size covering two minibatches of
// batch instances.
func throughputData(s inputShape, batch int) *training.TrainData {
	per := (2*batch + s.Classes - 1) / s.Classes
	n := per * s.Classes
	dim := s.Features
	if s.C > 0 {
		dim = s.C * s.H * s.W
	}
	r := rng.New(0, "reproduce/throughput")
	td := &training.TrainData{X: make([]float32, n*dim), Channels: s.C, Height: s.H, Width: s.W, Features: s.Features,
		TestX: make([]float32, dim), TestY: []int{0}}
	for i := range td.X {
		td.X[i] = r.Float32()
	}
	td.Bags = &estimators.BagSet{NumClasses: s.Classes}
	for k := 0; k < s.Classes; k++ {
		// Bag k is 1/2 class k and 1/2 uniform, so the bags' proportion
		// matrix is invertible.
		p := make([]float64, s.Classes)
		for j := range p {
			p[j] = 0.5 / float64(s.Classes)
		}
		p[k] += 0.5
		idx := make([]int, per)
		for i := range idx {
			idx[i] = k*per + i
		}
		td.Bags.Bags = append(td.Bags.Bags, estimators.Bag{ID: k, Size: per, Proportions: p, Indices: idx})
	}
	return td
}
