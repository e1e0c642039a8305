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
//   - LLP-VAT's ξ and ε reach training only through the package variable
//     training.LLPVATConfig (Config has no field for them); Gorgonia.Train
//     sets it under a mutex, so concurrent llpvat cells would serialise.
//   - vgg16 rejects 28×28 inputs; the learner resizes EMNIST to 32×32
//     (InputSide, ResizeBilinear) as the authors' code does.

package experiments

import (
	"context"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/training"
)

// miniCell is a miniature cell of the gorgonia learner: the mlp on a
// three-class Gaussian mixture (2048 training points in bags of 16), a few
// epochs of Adam — seconds on one core.
func miniCell(method string) Cell {
	c := Config{
		Learner: "gorgonia", Dataset: "gmm:classes=3,dim=5,train=2400,test=600,sep=4", Model: "mlp",
		Method: method, Protocol: "paper", BagSize: 16, NumPoints: 2048, Normalize: "standardize", Seed: 7,
		Hyper: Hyper{Epochs: 4, Optimizer: "adam", LR: 3e-3, BatchSize: 64,
			Schedule: Schedule{Kind: "constant"}, RegroupEvery: 2},
	}
	if method == "kl" {
		c.Hyper.BatchSize, c.Hyper.KLScale = 2, "authors"
	}
	return Cell{Spec: "mini", Key: c.Key(), Config: c}
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
	l, err := LookupLearner("gorgonia")
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{"llpfc-uniform", "llpfc-approx", "kl"} {
		t.Run(method, func(t *testing.T) {
			cell := miniCell(method)
			if err := cell.Config.Validate(); err != nil {
				t.Fatal(err)
			}
			var log gorgoniaEpochs
			m, err := l.Train(context.Background(), cell, &log)
			if err != nil {
				t.Fatal(err)
			}
			if m.Epochs != 4 || m.TrainPoints != 2048 || m.TestPoints != 600 {
				t.Errorf("epochs %d, train points %d, test points %d; want 4, 2048, 600", m.Epochs, m.TrainPoints, m.TestPoints)
			}
			if !(m.WallSeconds > 0 && m.TrainImagesPerSecond > 0 && m.PeakRSSBytes > 0) {
				t.Errorf("performance figures not filled: %+v", m)
			}
			if len(log.done) != 4 || log.done[3] != 4 || log.total[0] != 4 {
				t.Errorf("progress epochs %v of %v, want 1..4 of 4", log.done, log.total)
			}
			if m.TestAccuracy < 0.8 {
				t.Errorf("test accuracy %.4f, want ≥ 0.8 (chance is 1/3)", m.TestAccuracy)
			}
			// The LLPFC cells carry their groups' diagnostics, one summary per
			// regrouping (issue 16); KL has no groups.
			if wantRegroup := IsLLPFC(method); (len(m.Regroupings) > 0) != wantRegroup ||
				wantRegroup && (m.Regroupings[0].Epoch != 0 || m.Regroupings[0].Groups.Groups == 0) {
				t.Errorf("%s: regroupings %+v", method, m.Regroupings)
			}
			again, err := l.Train(context.Background(), cell, nil)
			if err != nil {
				t.Fatal(err)
			}
			if again.TestAccuracy != m.TestAccuracy || again.FinalLoss != m.FinalLoss {
				t.Errorf("same cell twice: accuracy %v then %v, loss %v then %v", m.TestAccuracy, again.TestAccuracy, m.FinalLoss, again.FinalLoss)
			}
		})
	}
}

// TestGorgoniaLearnerCancel checks that a cancelled context stops training
// with the context's error.
func TestGorgoniaLearnerCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Gorgonia{}.Train(ctx, miniCell("llpfc-uniform"), nil)
	if err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("err = %v, want context canceled", err)
	}
}

// TestTrainingConfig checks the mapping of a cell's Hyper onto
// training.Config field by field.
func TestTrainingConfig(t *testing.T) {
	base := miniCell("llpfc-approx").Config
	tests := []struct {
		name  string
		edit  func(*Config)
		check func(*testing.T, training.Config)
		err   string
	}{
		{name: "adam", edit: func(c *Config) { c.Hyper.Beta1, c.Hyper.Beta2, c.Hyper.WeightDecay = 0.5, 0.99, 1e-4 },
			check: func(t *testing.T, tc training.Config) {
				o := tc.Optimizer
				if o.Name != "adam" || o.LR != 3e-3 || o.Beta1 != 0.5 || o.Beta2 != 0.99 || o.WeightDecay != 1e-4 || o.Momentum != 0 {
					t.Errorf("optimizer %+v", o)
				}
				if tc.Method != "llpfc-approx" || tc.Model.Name != "mlp" || tc.BatchSize != 64 || tc.Epochs != 4 || tc.RegroupEvery != 2 || tc.Seed != 7 {
					t.Errorf("config %+v", tc)
				}
				if tc.Schedule.LR(1, 3) != 1 {
					t.Errorf("constant schedule gives %v at epoch 3", tc.Schedule.LR(1, 3))
				}
			}},
		{name: "nesterov multistep", edit: func(c *Config) {
			c.Hyper.Optimizer, c.Hyper.Momentum, c.Hyper.Beta1 = "nesterov", 0.9, 0.9
			c.Hyper.Epochs = 10
			c.Hyper.Schedule = Schedule{Kind: "multistep", Milestones: []int{3, 6}, Factor: 0.2}
		}, check: func(t *testing.T, tc training.Config) {
			if tc.Optimizer.Momentum != 0.9 || tc.Optimizer.Beta1 != 0 || tc.Optimizer.Dampening != 0 {
				t.Errorf("optimizer %+v", tc.Optimizer)
			}
			// Both schedules must agree epoch by epoch.
			s := Schedule{Kind: "multistep", Milestones: []int{3, 6}, Factor: 0.2}
			for e := 0; e < 10; e++ {
				if got, want := tc.Schedule.LR(0.1, e), s.LR(0.1, e); got != want {
					t.Errorf("epoch %d: lr %v, want %v", e, got, want)
				}
			}
		}},
		{name: "cosine", edit: func(c *Config) {
			c.Hyper.Epochs = 30
			c.Hyper.Schedule = Schedule{Kind: "cosine", Period: 5, Mult: 2}
		}, check: func(t *testing.T, tc training.Config) {
			s := Schedule{Kind: "cosine", Period: 5, Mult: 2}
			for e := 0; e < 30; e++ {
				if got, want := tc.Schedule.LR(0.1, e), s.LR(0.1, e); got-want > 1e-12 || want-got > 1e-12 {
					t.Errorf("epoch %d: lr %v, want %v", e, got, want)
				}
			}
		}},
		{name: "never regroup", edit: func(c *Config) { c.Hyper.RegroupEvery = 0 },
			check: func(t *testing.T, tc training.Config) {
				if tc.RegroupEvery != 4 {
					t.Errorf("regroup every %d, want the 4 epochs (groups drawn once)", tc.RegroupEvery)
				}
			}},
		{name: "weights and compat", edit: func(c *Config) { c.Hyper.Weights, c.Hyper.Compat = "hm", "original" },
			check: func(t *testing.T, tc training.Config) {
				w, _ := estimators.ParseWeights("hm")
				cp, _ := estimators.ParseCompat("original")
				if tc.GroupWeights != w || tc.Compat != cp {
					t.Errorf("weights %v compat %v", tc.GroupWeights, tc.Compat)
				}
			}},
		{name: "gd", edit: func(c *Config) { c.Hyper.Optimizer = "gd" }, err: "logreg learner only"},
		{name: "bad schedule", edit: func(c *Config) { c.Hyper.Schedule.Kind = "exp" }, err: "hyper.schedule.kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base
			tt.edit(&c)
			tc, err := TrainingConfig(c)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, tc)
		})
	}
}

// TestGorgoniaLearnerAugmentNeedsImages checks that augmentation of a
// tabular data set is an error naming the field, not a panic.
func TestGorgoniaLearnerAugmentNeedsImages(t *testing.T) {
	cell := miniCell("llpfc-uniform")
	cell.Config.Hyper.Augment = true
	_, err := Gorgonia{}.Train(context.Background(), cell, nil)
	if err == nil || !strings.Contains(err.Error(), "hyper.augment") {
		t.Fatalf("err = %v, want a hyper.augment error", err)
	}
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
	if got := ResizeBilinear(ramp, c, h, w, h, w); !equalF32(got, ramp) {
		t.Error("resize to the same size is not the identity")
	}
	big := ResizeBilinear(ramp, c, h, w, H, W)
	if len(big) != c*H*W {
		t.Fatalf("%d values, want %d", len(big), c*H*W)
	}
	for p := 0; p < c; p++ {
		for y := 0; y < H; y++ {
			for x := 0; x < W; x++ {
				want := (float64(x)+0.5)*float64(w)/float64(W) - 0.5
				want = min(max(want, 0), float64(w-1)) + float64(10*p)
				if got := float64(big[(p*H+y)*W+x]); got-want > 1e-4 || want-got > 1e-4 {
					t.Fatalf("plane %d (%d,%d): %v, want %v", p, y, x, got, want)
				}
			}
		}
	}
	if h2, w2 := InputSide("vgg16", 28, 28); h2 != 32 || w2 != 32 {
		t.Errorf("vgg16 on 28×28: %d×%d, want 32×32", h2, w2)
	}
	if h2, w2 := InputSide("wrn-16-4", 28, 28); h2 != 28 || w2 != 28 {
		t.Errorf("wrn-16-4 on 28×28: %d×%d, want 28×28", h2, w2)
	}
}

func equalF32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
