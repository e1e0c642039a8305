package learn

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/training"
	"gonum.org/v1/gonum/diff/fd"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// smallProblem is a random 3-class problem in R^4 with 4 bags of 5 points.
func smallProblem(t *testing.T) (*data.Dataset, *estimators.BagSet) {
	t.Helper()
	train, _, err := GaussianMixture("gmm:classes=3,dim=4,train=200,test=10,sep=2")
	require.NoError(t, err)
	res, err := MakeBags(train, experiments.Config{Protocol: "paper", BagSize: 5, NumPoints: 30, Seed: 7})
	require.NoError(t, err)
	return train, res.Bags
}

func randomTheta(m *logregModel, seed int64) {
	r := rng.New(seed, "theta")
	m.theta = make([]float64, (m.D+1)*m.C)
	for i := range m.theta {
		m.theta[i] = r.NormFloat64()
	}
}

// gradCheck compares grad of obj with central finite differences (gonum
// diff/fd) at θ.
func gradCheck(t *testing.T, name string, m *logregModel, obj func(grad []float64) float64) {
	t.Helper()
	theta0 := append([]float64(nil), m.theta...)
	grad := make([]float64, len(m.theta))
	obj(grad)
	f := func(x []float64) float64 {
		copy(m.theta, x)
		return obj(nil)
	}
	num := fd.Gradient(nil, f, theta0, &fd.Settings{Formula: fd.Central, Step: 1e-6})
	copy(m.theta, theta0)
	for i := range grad {
		assert.InDeltaf(t, num[i], grad[i], 1e-6*math.Max(1, math.Abs(num[i])), "%s: ∂/∂θ[%d] analytic %.10g, finite differences %.10g", name, i, grad[i], num[i])
	}
}

// The gradients of the FC objective (Algorithm 2/3 line 11) and of the KL
// proportion loss (App. `subsec:KL`), each with weight decay, equal central
// finite differences.
func TestLogRegGradientFiniteDifferences(t *testing.T) {
	X, bags := smallProblem(t)
	m := &logregModel{D: X.D, C: 3}
	randomTheta(m, 1)
	for _, method := range []string{"llpfc-uniform", "llpfc-approx"} {
		red, err := Reduce(bags, experiments.Config{Method: method}, rng.New(1, "groups"))
		require.NoError(t, err)
		gradCheck(t, method, m, func(g []float64) float64 {
			return m.fcObjective(X, red.Inst, red.T, 1.7, g) + m.decay(0.3, g)
		})
	}
	gradCheck(t, "kl", m, func(g []float64) float64 {
		return m.klObjective(X, bags.Bags[:2], g) + m.decay(0.3, g)
	})
}

// The FC objective equals a direct evaluation of its definition with the
// theory package's forward-corrected log loss, −log (T̂ softmax(z))_ỹ, and the
// KL objective equals the formula of App. `subsec:KL` evaluated naively.
func TestLogRegObjectivesMatchDefinitions(t *testing.T) {
	X, bags := smallProblem(t)
	m := &logregModel{D: X.D, C: 3}
	randomTheta(m, 2)
	red, err := Reduce(bags, experiments.Config{Method: "llpfc-uniform"}, rng.New(2, "groups"))
	require.NoError(t, err)
	want := 0.0
	for _, in := range red.Inst {
		q := predict(m, X.Row(in.Index))
		l, err := theory.ForwardCorrected(theory.LogLoss, red.T[in.Group], q, in.Noisy)
		require.NoError(t, err)
		want += in.Weight * l
	}
	got := m.fcObjective(X, red.Inst, red.T, 1, nil)
	assert.InDeltaf(t, want, got, 1e-12*math.Max(1, want), "FC objective %.15g, definition %.15g", got, want)
	B := 3
	want = 0
	for _, b := range bags.Bags[:B] {
		for c := 0; c < 3; c++ {
			mean := 0.0
			for _, ix := range b.Indices {
				mean += predict(m, X.Row(ix))[c] / float64(len(b.Indices))
			}
			want -= b.Proportions[c] * math.Log(mean) / float64(3*B)
		}
	}
	got = m.klObjective(X, bags.Bags[:B], nil)
	assert.InDeltaf(t, want, got, 1e-12*math.Max(1, want), "KL objective %.15g, definition %.15g", got, want)
	// The authors' scale (Σ over classes, mean over bags) is C = 3 times the paper's.
	got = m.klObjectiveAt(X, bags.Bags[:B], nil, B)
	assert.InDeltaf(t, 3*want, got, 1e-12*math.Max(1, want), "KL objective at the authors' scale %.15g, definition %.15g", got, 3*want)
}

func predict(m *logregModel, x []float32) []float64 {
	z := make([]float64, m.C)
	m.logits(x, z)
	softmax(z)
	return z
}

// The flat LLPFC problem handed to learners (Algorithms 2 and 3): 6 bags of
// 3 classes make 2 groups, every T̂_i is column-stochastic (σ̂_i = Γ̂_iᵀα̂_i
// makes it so), each instance appears once, and the weights sum to
// Σ_i w_i Σ_c α̂_i(c) = 1 (w_i = 1/N; n_i·w_i/n_i for uniform,
// |b|·w_i·α̂_i(c)/|b| for approx).
func TestReduceFlattensEstimators(t *testing.T) {
	_, bags := smallProblem(t)
	for _, method := range []string{"llpfc-uniform", "llpfc-approx"} {
		red, err := Reduce(bags, experiments.Config{Method: method}, rng.New(3, "groups"))
		require.NoError(t, err)
		assert.Lenf(t, red.T, 2, "%s: %d groups, %d left over; want 2, 0", method, len(red.T), red.Leftover)
		assert.Zerof(t, red.Leftover, "%s: %d groups, %d left over; want 2, 0", method, len(red.T), red.Leftover)
		for i, T := range red.T {
			assert.NoErrorf(t, theory.CheckColumnStochastic("T", T, 1e-12), "%s: group %d", method, i)
		}
		total := 0.0
		seen := map[int]bool{}
		for _, in := range red.Inst {
			total += in.Weight
			assert.Falsef(t, seen[in.Index], "%s: instance %d in two bags", method, in.Index)
			seen[in.Index] = true
		}
		assert.InDeltaf(t, 1, total, 1e-12, "%s: weights sum to %v, want Σ_i w_i Σ_c α̂_i(c) = 1", method, total)
	}
}

// The logistic learner learns: on a well-separated Gaussian mixture, each
// method beats chance (1/3) by far after a few epochs, and the same cell
// gives the same numbers twice.
func TestLogRegLearns(t *testing.T) {
	for _, method := range []string{"llpfc-uniform", "llpfc-approx", "kl"} {
		cfg := experiments.Config{Learner: "logreg", Normalize: "standardize", Dataset: "gmm:classes=3,dim=4,train=3000,test=600,sep=4", Model: "linear",
			Method: method, Protocol: "paper", BagSize: 16, NumPoints: 1536, Seed: 5,
			Hyper: experiments.Hyper{Epochs: 15, Optimizer: "adam", LR: 0.05, BatchSize: 64, RegroupEvery: 5, Schedule: experiments.Schedule{Kind: "constant"}}}
		if method == "kl" {
			cfg.Hyper.BatchSize, cfg.Hyper.KLScale = 2, training.KLScaleAuthors
		}
		require.NoError(t, cfg.Validate())
		cell := experiments.Cell{Key: cfg.Key(), Config: cfg}
		m1, err := LogReg{}.Train(context.Background(), cell, nil)
		require.NoErrorf(t, err, "%s: %v", method, err)
		m2, err := LogReg{}.Train(context.Background(), cell, nil)
		require.NoError(t, err)
		assert.GreaterOrEqualf(t, m1.TestAccuracy, 0.8, "%s: test accuracy %.3f, want ≥ 0.8", method, m1.TestAccuracy)
		assert.Equalf(t, m1.TestAccuracy, m2.TestAccuracy, "%s: not reproducible: %v/%v vs %v/%v", method, m1.TestAccuracy, m1.FinalLoss, m2.TestAccuracy, m2.FinalLoss)
		assert.Equalf(t, m1.FinalLoss, m2.FinalLoss, "%s: not reproducible: %v/%v vs %v/%v", method, m1.TestAccuracy, m1.FinalLoss, m2.TestAccuracy, m2.FinalLoss)
		assert.Equalf(t, 15, m1.Epochs, "%s: metrics %+v", method, m1)
		assert.Equalf(t, 600, m1.TestPoints, "%s: metrics %+v", method, m1)
		assert.Equalf(t, 1536, m1.TrainPoints, "%s: metrics %+v", method, m1)
		t.Logf("%s: accuracy %.3f, loss %.4f", method, m1.TestAccuracy, m1.FinalLoss)
	}
}

// Every optimizer decreases a convex objective: full-batch gd, sgd,
// nesterov, adam and adamw reach a lower KL loss than at θ = 0.
func TestLogRegOptimizers(t *testing.T) {
	X, bags := smallProblem(t)
	for _, opt := range []string{"gd", "sgd", "nesterov", "adam", "adamw"} {
		m := &logregModel{D: X.D, C: 3, theta: make([]float64, (X.D+1)*3)}
		start := m.klObjective(X, bags.Bags, nil)
		o := &optimizer{h: experiments.Hyper{Optimizer: opt, Momentum: 0.5, WeightDecay: 1e-4}}
		g := make([]float64, len(m.theta))
		for it := 0; it < 50; it++ {
			for i := range g {
				g[i] = 0
			}
			m.klObjective(X, bags.Bags, g)
			o.step(m.theta, g, 0.05)
		}
		end := m.klObjective(X, bags.Bags, nil)
		assert.Lessf(t, end, start-1e-3, "%s: KL loss %v → %v, want a decrease", opt, start, end)
	}
}

// BenchmarkLogRegFCObjective measures one pass of the FC objective and its
// gradient over the 1280 instances of 20 bags of a 10-class, 784-feature
// problem.
func BenchmarkLogRegFCObjective(b *testing.B) {
	train, _, err := GaussianMixture("gmm:classes=10,dim=784,train=2048,test=10")
	require.NoError(b, err)
	res, err := MakeBags(train, experiments.Config{Protocol: "paper", BagSize: 64, NumPoints: 1280, Seed: 1})
	require.NoError(b, err)
	red, err := Reduce(res.Bags, experiments.Config{Method: "llpfc-uniform"}, rng.New(1, "groups"))
	require.NoError(b, err)
	m := &logregModel{D: train.D, C: 10}
	randomTheta(m, 1)
	grad := make([]float64, len(m.theta))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.fcObjective(train, red.Inst, red.T, 1, grad)
	}
	b.ReportMetric(float64(len(red.Inst)*b.N)/b.Elapsed().Seconds(), "instances/s")
}

// The learner reports every epoch to Progress and stops with ctx.Err() when
// the context is cancelled.
func TestLogRegProgressAndCancel(t *testing.T) {
	cfg := experiments.Config{Learner: "logreg", Normalize: "standardize", Dataset: "gmm:classes=3,dim=4,train=600,test=60", Model: "linear",
		Method: "llpfc-approx", Protocol: "paper", BagSize: 8, NumPoints: 240, Seed: 1,
		Hyper: experiments.Hyper{Epochs: 6, Optimizer: "sgd", LR: 0.1, Momentum: 0.9, BatchSize: 16, RegroupEvery: 2, Schedule: experiments.Schedule{Kind: "constant"}}}
	var log epochLog
	_, err := (LogReg{}).Train(context.Background(), experiments.Cell{Config: cfg}, &log)
	require.NoError(t, err)
	assert.Equalf(t, "[1 2 3 4 5 6]", fmt.Sprint(log.done), "progress %v of %d, want epochs 1…6 of 6", log.done, log.total)
	assert.Equalf(t, 6, log.total, "progress %v of %d, want epochs 1…6 of 6", log.done, log.total)
	ctx, cancel := context.WithCancel(context.Background())
	stop := &cancelAfter{n: 2, cancel: cancel}
	_, err = (LogReg{}).Train(ctx, experiments.Cell{Config: cfg}, stop)
	assert.ErrorIsf(t, err, context.Canceled, "after cancel at epoch 2: err %v, %d epochs; want context.Canceled after 2", err, stop.seen)
	assert.Equalf(t, 2, stop.seen, "after cancel at epoch 2: err %v, %d epochs; want context.Canceled after 2", err, stop.seen)
	// Unsupported models and methods are errors naming them.
	bad := cfg
	bad.Model = "mlp"
	_, err = (LogReg{}).Train(context.Background(), experiments.Cell{Config: bad}, nil)
	assert.ErrorContainsf(t, err, `model "mlp"`, "model mlp: %v", err)
	bad = cfg
	bad.Method = "llpvat"
	_, err = (LogReg{}).Train(context.Background(), experiments.Cell{Config: bad}, nil)
	assert.ErrorContainsf(t, err, `method "llpvat"`, "method llpvat: %v", err)
}

type epochLog struct {
	done  []int
	total int
}

func (l *epochLog) Epoch(done, total int, _ string) { l.done, l.total = append(l.done, done), total }

type cancelAfter struct {
	n, seen int
	cancel  func()
}

func (c *cancelAfter) Epoch(done, _ int, _ string) {
	c.seen = done
	if done == c.n {
		c.cancel()
	}
}

// End to end on the embedded Fashion-MNIST fixture (data → paper bags →
// LLPFC reduction → logistic regression): far above chance (0.1) after 3
// epochs on 4096 points in bags of 64.
func TestLogRegOnFixture(t *testing.T) {
	cfg := experiments.Config{Learner: "logreg", Normalize: "standardize", Dataset: experiments.FashionFixture, Model: "linear", Method: "llpfc-uniform",
		Protocol: "paper", BagSize: 64, NumPoints: 4096, TestPoints: 1000, Seed: 1,
		Hyper: experiments.Hyper{Epochs: 3, Optimizer: "adam", LR: 0.005, BatchSize: 64, RegroupEvery: 1, Schedule: experiments.Schedule{Kind: "constant"}}}
	m, err := LogReg{}.Train(context.Background(), experiments.Cell{Config: cfg}, nil)
	require.NoError(t, err)
	assert.GreaterOrEqualf(t, m.TestAccuracy, 0.6, "metrics %+v: want accuracy ≥ 0.6 on 1000 test points, 6 groups of 10 bags", m)
	assert.Equalf(t, 1000, m.TestPoints, "metrics %+v: want accuracy ≥ 0.6 on 1000 test points, 6 groups of 10 bags", m)
	assert.Equalf(t, 6.0, m.Extra["groups"], "metrics %+v: want accuracy ≥ 0.6 on 1000 test points, 6 groups of 10 bags", m)
	t.Logf("fixture, llpfc-uniform, bag 64, 3 epochs: accuracy %.3f", m.TestAccuracy)
}
