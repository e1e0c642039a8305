// Notes on package training found while building the gorgonia learner (not
// bugs of this package; see the helper's report):
//   - Memory: one LLPFC training step of wrn-16-4 at the appendix's minibatch
//     of 128 (evaluation batch 256) on 3×32×32 inputs grew the process past
//     21 GB RSS; vgg16 at a minibatch of 16 passed 5.7 GB. The appendix's
//     minibatches do not fit a 24 GB machine, so `reproduce --dry-run` times
//     the deep networks at a minibatch of 8.
//   - Speed: at a minibatch of 8 on 3×32×32 inputs wrn-16-4 trains at about
//     2 images/s on 2 shared cores, nine times slower than resnet18 (about
//     18 images/s), although it needs a similar number of FLOPs per image.
//   - LLP-VAT's ξ and ε reach training through training.Config.VAT (they
//     once went through a package variable set under a mutex, so
//     concurrent llpvat cells serialised).
//   - vgg16 rejects 28×28 inputs; the learner resizes EMNIST to 32×32
//     (InputSide, ResizeBilinear) as the authors' code does.

package learn

import (
	"context"
	"slices"
	"testing"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/training"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// miniCell is a miniature cell of the gorgonia learner: the mlp on a
// three-class Gaussian mixture (2048 training points in bags of 16), a few
// epochs of Adam — seconds on one core.
func miniCell(method string) experiments.Cell {
	c := experiments.Config{
		Learner: "gorgonia", Dataset: "gmm:classes=3,dim=5,train=2400,test=600,sep=4", Model: "mlp",
		Method: method, Protocol: "paper", BagSize: 16, NumPoints: 2048, Normalize: "standardize", Seed: 7,
		Hyper: experiments.Hyper{Epochs: 4, Optimizer: "adam", LR: 3e-3, BatchSize: 64,
			Schedule: experiments.Schedule{Kind: "constant"}, RegroupEvery: 2},
	}
	if method == "kl" {
		c.Hyper.BatchSize, c.Hyper.KLScale = 2, training.KLScaleAuthors
	}
	return experiments.Cell{Spec: "mini", Key: c.Key(), Config: c}
}

type gorgoniaEpochs struct{ done, total []int }

func (l *gorgoniaEpochs) Epoch(done, total int, _ string) {
	l.done = append(l.done, done)
	l.total = append(l.total, total)
}

// TestGorgoniaLearnerTrains trains the miniature cell with each method the
// quick grid uses and checks that the learner is registered, that the metrics
// are filled and consistent with the cell, that progress is reported once per
// epoch, that the accuracy is far above chance (1/3; a Bayes classifier of
// this mixture is above 0.95) and that the same cell gives the same accuracy
// twice.
func TestGorgoniaLearnerTrains(t *testing.T) {
	l, err := experiments.LookupLearner("gorgonia")
	require.NoError(t, err)
	for _, method := range []string{"llpfc-uniform", "llpfc-approx", "kl"} {
		t.Run(method, func(t *testing.T) {
			cell := miniCell(method)
			require.NoError(t, cell.Config.Validate())
			var log gorgoniaEpochs
			m, err := l.Train(context.Background(), cell, &log)
			require.NoError(t, err)
			assert.Equalf(t, 4, m.Epochs, "epochs %d, train points %d, test points %d; want 4, 2048, 600", m.Epochs, m.TrainPoints, m.TestPoints)
			assert.Equalf(t, 2048, m.TrainPoints, "epochs %d, train points %d, test points %d; want 4, 2048, 600", m.Epochs, m.TrainPoints, m.TestPoints)
			assert.Equalf(t, 600, m.TestPoints, "epochs %d, train points %d, test points %d; want 4, 2048, 600", m.Epochs, m.TrainPoints, m.TestPoints)
			assert.Positivef(t, m.WallSeconds, "performance figures not filled: %+v", m)
			assert.Positivef(t, m.TrainImagesPerSecond, "performance figures not filled: %+v", m)
			assert.Positivef(t, m.PeakRSSBytes, "performance figures not filled: %+v", m)
			assert.Containsf(t, m.Numerics, "conv3x3 ", "the result records the numerics that trained it: %+v", m)
			if assert.Lenf(t, log.done, 4, "progress epochs %v of %v, want 1..4 of 4", log.done, log.total) {
				assert.Equalf(t, 4, log.done[3], "progress epochs %v of %v, want 1..4 of 4", log.done, log.total)
				assert.Equalf(t, 4, log.total[0], "progress epochs %v of %v, want 1..4 of 4", log.done, log.total)
			}
			assert.GreaterOrEqualf(t, m.TestAccuracy, 0.8, "test accuracy %.4f, want ≥ 0.8 (chance is 1/3)", m.TestAccuracy)
			// The LLPFC cells carry their groups' diagnostics, one summary per
			// regrouping; KL has no groups.
			wantRegroup := experiments.IsLLPFC(method)
			assert.Equalf(t, wantRegroup, len(m.Regroupings) > 0, "%s: regroupings %+v", method, m.Regroupings)
			if wantRegroup && len(m.Regroupings) > 0 {
				assert.Zerof(t, m.Regroupings[0].Epoch, "%s: regroupings %+v", method, m.Regroupings)
				assert.NotZerof(t, m.Regroupings[0].Groups.Groups, "%s: regroupings %+v", method, m.Regroupings)
			}
			again, err := l.Train(context.Background(), cell, nil)
			require.NoError(t, err)
			assert.Equalf(t, m.TestAccuracy, again.TestAccuracy, "same cell twice: accuracy %v then %v, loss %v then %v", m.TestAccuracy, again.TestAccuracy, m.FinalLoss, again.FinalLoss)
			assert.Equalf(t, m.FinalLoss, again.FinalLoss, "same cell twice: accuracy %v then %v, loss %v then %v", m.TestAccuracy, again.TestAccuracy, m.FinalLoss, again.FinalLoss)
		})
	}
}

// TestGorgoniaLearnerCancel checks that a cancelled context stops training
// with the context's error.
func TestGorgoniaLearnerCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Gorgonia{}.Train(ctx, miniCell("llpfc-uniform"), nil)
	require.ErrorContainsf(t, err, "canceled", "err = %v, want context canceled", err)
}

// TestTrainingConfig checks the mapping of a cell's Hyper onto
// training.Config field by field.
func TestTrainingConfig(t *testing.T) {
	base := miniCell("llpfc-approx").Config
	tests := []struct {
		name  string
		edit  func(*experiments.Config)
		check func(*testing.T, training.Config)
		err   string
	}{
		{name: "adam", edit: func(c *experiments.Config) { c.Hyper.Beta1, c.Hyper.Beta2, c.Hyper.WeightDecay = 0.5, 0.99, 1e-4 },
			check: func(t *testing.T, tc training.Config) {
				o := tc.Optimizer
				assert.Equalf(t, "adam", o.Name, "optimizer %+v", o)
				assert.Equalf(t, 3e-3, o.LR, "optimizer %+v", o)
				assert.Equalf(t, 0.5, o.Beta1, "optimizer %+v", o)
				assert.Equalf(t, 0.99, o.Beta2, "optimizer %+v", o)
				assert.Equalf(t, 1e-4, o.WeightDecay, "optimizer %+v", o)
				assert.Equalf(t, 0.0, o.Momentum, "optimizer %+v", o)
				assert.Equalf(t, "llpfc-approx", tc.Method, "config %+v", tc)
				assert.Equalf(t, "mlp", tc.Model.Name, "config %+v", tc)
				assert.Equalf(t, 64, tc.BatchSize, "config %+v", tc)
				assert.Equalf(t, 4, tc.Epochs, "config %+v", tc)
				assert.Equalf(t, 2, tc.RegroupEvery, "config %+v", tc)
				assert.Equalf(t, int64(7), tc.Seed, "config %+v", tc)
				assert.Equalf(t, 1.0, tc.Schedule.LR(1, 3), "constant schedule gives %v at epoch 3", tc.Schedule.LR(1, 3))
			}},
		{name: "nesterov multistep", edit: func(c *experiments.Config) {
			c.Hyper.Optimizer, c.Hyper.Momentum, c.Hyper.Beta1 = "nesterov", 0.9, 0.9
			c.Hyper.Epochs = 10
			c.Hyper.Schedule = experiments.Schedule{Kind: "multistep", Milestones: []int{3, 6}, Factor: 0.2}
		}, check: func(t *testing.T, tc training.Config) {
			assert.Equalf(t, 0.9, tc.Optimizer.Momentum, "optimizer %+v", tc.Optimizer)
			assert.Equalf(t, 0.0, tc.Optimizer.Beta1, "optimizer %+v", tc.Optimizer)
			assert.Equalf(t, 0.0, tc.Optimizer.Dampening, "optimizer %+v", tc.Optimizer)
			// Both schedules must agree epoch by epoch.
			s := experiments.Schedule{Kind: "multistep", Milestones: []int{3, 6}, Factor: 0.2}
			for e := 0; e < 10; e++ {
				assert.Equalf(t, s.LR(0.1, e), tc.Schedule.LR(0.1, e), "epoch %d: lr", e)
			}
		}},
		{name: "cosine", edit: func(c *experiments.Config) {
			c.Hyper.Epochs = 30
			c.Hyper.Schedule = experiments.Schedule{Kind: "cosine", Period: 5, Mult: 2}
		}, check: func(t *testing.T, tc training.Config) {
			s := experiments.Schedule{Kind: "cosine", Period: 5, Mult: 2}
			for e := 0; e < 30; e++ {
				assert.InDeltaf(t, s.LR(0.1, e), tc.Schedule.LR(0.1, e), 1e-12, "epoch %d: lr", e)
			}
		}},
		{name: "never regroup", edit: func(c *experiments.Config) { c.Hyper.RegroupEvery = 0 },
			check: func(t *testing.T, tc training.Config) {
				assert.Equalf(t, 0, tc.RegroupEvery, "regroup every %d, want 0: never, training's zero too (groups drawn once)", tc.RegroupEvery)
			}},
		{name: "weights and compat", edit: func(c *experiments.Config) {
			c.Hyper.Weights, c.Hyper.Compat = estimators.WeightsHM, estimators.CompatOriginal
		},
			check: func(t *testing.T, tc training.Config) {
				w, _ := estimators.ParseWeights("hm")
				cp, _ := estimators.ParseCompat("original")
				assert.Equalf(t, w, tc.GroupWeights, "weights %v compat %v", tc.GroupWeights, tc.Compat)
				assert.Equalf(t, cp, tc.Compat, "weights %v compat %v", tc.GroupWeights, tc.Compat)
			}},
		{name: "gd", edit: func(c *experiments.Config) { c.Hyper.Optimizer = "gd" }, err: "logreg learner only"},
		{name: "bad schedule", edit: func(c *experiments.Config) { c.Hyper.Schedule.Kind = "exp" }, err: "hyper.schedule.kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base
			tt.edit(&c)
			tc, err := TrainingConfig(c)
			if tt.err != "" {
				require.ErrorContainsf(t, err, tt.err, "err = %v, want one containing %q", err, tt.err)
				return
			}
			require.NoError(t, err)
			tt.check(t, tc)
		})
	}
}

// TestConfigFields: the settings a checkpoint keys beside training's own
// are every field of the cell's Config by its dotted path, strings
// unquoted, but hyper.epochs (a longer run continues a shorter one).
func TestConfigFields(t *testing.T) {
	c := miniCell("kl").Config
	c.Hyper.Augment = true
	f := ConfigFields(c)
	assert.Equal(t, c.Dataset, f["dataset"])
	assert.Equal(t, "16", f["bag_size"])
	assert.Equal(t, "true", f["hyper.augment"])
	assert.Equal(t, "authors", f["hyper.kl_scale"])
	assert.Equal(t, "constant", f["hyper.schedule.kind"])
	assert.NotContains(t, f, "hyper.epochs")
	d := c
	d.Hyper.Epochs++
	assert.Equal(t, f, ConfigFields(d), "epochs are not keyed")
	d.Hyper.Compat = estimators.CompatOriginal
	assert.Equal(t, "original", ConfigFields(d)["hyper.compat"])
}

// TestGorgoniaLearnerAugmentNeedsImages checks that augmentation of a
// tabular data set is an error naming the field, not a panic.
func TestGorgoniaLearnerAugmentNeedsImages(t *testing.T) {
	cell := miniCell("llpfc-uniform")
	cell.Config.Hyper.Augment = true
	_, err := Gorgonia{}.Train(context.Background(), cell, nil)
	require.ErrorContainsf(t, err, "hyper.augment", "err = %v, want a hyper.augment error", err)
}

// TestResizeBilinear checks the resize against closed forms: the identity
// at the same size, a constant image stays constant, and a ramp f(x) = x
// (linear, so bilinear interpolation is exact) takes at output column X the
// source coordinate (X+½)·w/W − ½ clamped to [0, w−1].
func TestResizeBilinear(t *testing.T) {
	const c, h, w, H, W = 2, 28, 28, 32, 32
	ramp := make([]float32, c*h*w)
	for p := 0; p < c; p++ {
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				ramp[(p*h+y)*w+x] = float32(x) + float32(10*p)
			}
		}
	}
	assert.True(t, slices.Equal(ResizeBilinear(ramp, c, h, w, h, w), ramp), "resize to the same size is not the identity")
	big := ResizeBilinear(ramp, c, h, w, H, W)
	require.Lenf(t, big, c*H*W, "%d values, want %d", len(big), c*H*W)
	for p := 0; p < c; p++ {
		for y := 0; y < H; y++ {
			for x := 0; x < W; x++ {
				want := (float64(x)+0.5)*float64(w)/float64(W) - 0.5
				want = min(max(want, 0), float64(w-1)) + float64(10*p)
				got := float64(big[(p*H+y)*W+x])
				require.InDeltaf(t, want, got, 1e-4, "plane %d (%d,%d): %v, want %v", p, y, x, got, want)
			}
		}
	}
	h2, w2 := InputSide("vgg16", 28, 28)
	assert.Equalf(t, 32, h2, "vgg16 on 28×28: %d×%d, want 32×32", h2, w2)
	assert.Equalf(t, 32, w2, "vgg16 on 28×28: %d×%d, want 32×32", h2, w2)
	h2, w2 = InputSide("wrn-16-4", 28, 28)
	assert.Equalf(t, 28, h2, "wrn-16-4 on 28×28: %d×%d, want 28×28", h2, w2)
	assert.Equalf(t, 28, w2, "wrn-16-4 on 28×28: %d×%d, want 28×28", h2, w2)
}
