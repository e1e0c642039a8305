package experiments

import (
	"reflect"
	"testing"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/training"
	"github.com/llpfc/llpfc/training/methods"
	"github.com/stretchr/testify/assert"
)

// Every single change of setting changes the key (c0 is the first cell of
// the tiny grid of package experiments/internal/gridtest).
func TestSpecKeyChangesWithEverySetting(t *testing.T) {
	c0 := Config{Learner: "logreg", Dataset: "gmm:classes=3,dim=4,train=1200,test=300,sep=3", Model: "linear",
		Method: "llpfc-uniform", Protocol: "paper", BagSize: 8, NumPoints: 384, Normalize: "standardize", Seed: 1,
		Hyper: Hyper{Epochs: 3, Optimizer: "adam", LR: 0.05, BatchSize: 32, Schedule: Schedule{Kind: "constant"}, RegroupEvery: 2}}
	mutations := map[string]func(c *Config){
		"learner":               func(c *Config) { c.Learner = "gorgonia" },
		"dataset":               func(c *Config) { c.Dataset += "x" },
		"model":                 func(c *Config) { c.Model = "mlp" },
		"method":                func(c *Config) { c.Method = "kl" },
		"protocol":              func(c *Config) { c.Protocol = "shuffle" },
		"bag_size":              func(c *Config) { c.BagSize = 16 },
		"num_points":            func(c *Config) { c.NumPoints = 768 },
		"test_points":           func(c *Config) { c.TestPoints = 100 },
		"seed":                  func(c *Config) { c.Seed = 3 },
		"shortfall":             func(c *Config) { c.Shortfall = "strict" },
		"hyper.epochs":          func(c *Config) { c.Hyper.Epochs = 4 },
		"hyper.optimizer":       func(c *Config) { c.Hyper.Optimizer = "sgd" },
		"hyper.lr":              func(c *Config) { c.Hyper.LR = 0.0500000001 },
		"hyper.momentum":        func(c *Config) { c.Hyper.Momentum = 0.9 },
		"hyper.weight_decay":    func(c *Config) { c.Hyper.WeightDecay = 1e-4 },
		"hyper.beta1":           func(c *Config) { c.Hyper.Beta1 = 0.5 },
		"hyper.beta2":           func(c *Config) { c.Hyper.Beta2 = 0.99 },
		"hyper.batch_size":      func(c *Config) { c.Hyper.BatchSize = 64 },
		"hyper.schedule.kind":   func(c *Config) { c.Hyper.Schedule.Kind = "cosine" },
		"hyper.schedule.ms":     func(c *Config) { c.Hyper.Schedule.Milestones = []int{1} },
		"hyper.schedule.f":      func(c *Config) { c.Hyper.Schedule.Factor = 0.1 },
		"hyper.schedule.p":      func(c *Config) { c.Hyper.Schedule.Period = 2 },
		"hyper.schedule.mult":   func(c *Config) { c.Hyper.Schedule.Mult = 2 },
		"hyper.regroup_every":   func(c *Config) { c.Hyper.RegroupEvery = 5 },
		"hyper.dropout":         func(c *Config) { c.Hyper.Dropout = 0.3 },
		"hyper.augment":         func(c *Config) { c.Hyper.Augment = true },
		"hyper.vat_eps":         func(c *Config) { c.Hyper.VATEps = 1 },
		"hyper.vat_xi":          func(c *Config) { c.Hyper.VATXi = 1e-6 },
		"hyper.flood":           func(c *Config) { c.Hyper.Flood = 0.3 },
		"hyper.weights":         func(c *Config) { c.Hyper.Weights = estimators.WeightsHM },
		"hyper.compat":          func(c *Config) { c.Hyper.Compat = estimators.CompatOriginal },
		"hyper.pvc_likelihood":  func(c *Config) { c.Hyper.PVCLikelihood = training.PVCExact },
		"hyper.pvc_lik (fft)":   func(c *Config) { c.Hyper.PVCLikelihood = training.PVCFFT },
		"normalize":             func(c *Config) { c.Normalize = "none" },
		"hyper.kl_scale":        func(c *Config) { c.Hyper.KLScale = training.KLScalePaper },
		"hyper.vat_rampup":      func(c *Config) { c.Hyper.VATRampup = training.VATRampupLLPVAT },
		"hyper.bn_stats":        func(c *Config) { c.Hyper.BNStats = training.BNStatsChunk },
		"hyper.chunk_size":      func(c *Config) { c.Hyper.ChunkSize = 64 },
		"hyper.search":          func(c *Config) { c.Hyper.Search = &Search{LR: []float64{1e-3}} },
		"hyper.vat_power_iters": func(c *Config) { c.Hyper.VATPowerIters = 2 },
		"hyper.settings":        func(c *Config) { c.Hyper.Settings = methods.Values{"x": methods.NumValue(1)} },
		"hyper.ms order":        func(c *Config) { c.Hyper.Schedule.Milestones = []int{2, 1} },
		"hyper.ms order (ref)":  func(c *Config) { c.Hyper.Schedule.Milestones = []int{1, 2} },
	}
	keys := map[string]string{c0.Key(): "base"}
	for name, mut := range mutations {
		c := c0
		c.Hyper.Schedule.Milestones = append([]int(nil), c0.Hyper.Schedule.Milestones...)
		mut(&c)
		k := c.Key()
		prev, dup := keys[k]
		assert.Falsef(t, dup, "mutation %s gives the same key as %s", name, prev)
		keys[k] = name
	}
	// Every field of Config and Hyper is covered by a mutation above.
	nf := reflect.TypeOf(Config{}).NumField() - 1 + reflect.TypeOf(Hyper{}).NumField() - 1 + reflect.TypeOf(Schedule{}).NumField()
	assert.LessOrEqualf(t, nf, len(mutations), "Config has %d settings but only %d mutations are tested", nf, len(mutations))
}

// The canonical encoding is pinned: this golden string is what
// CanonicalJSON's documentation describes. If it changes, every stored key
// changes — bump canonicalPrefix.
func TestCanonicalJSONGolden(t *testing.T) {
	c := Config{Learner: "logreg", Normalize: "standardize", Dataset: "d", Model: "linear", Method: "kl", Protocol: "paper",
		BagSize: 8, NumPoints: 64, Seed: 1,
		Hyper: Hyper{Epochs: 2, Optimizer: "sgd", LR: 1e-1, BatchSize: 2, Schedule: Schedule{Kind: "constant"}}}
	want := "llpfc-cell/v2\n" + `{"learner":"logreg","dataset":"d","model":"linear","method":"kl","protocol":"paper",` +
		`"bag_size":8,"num_points":64,"normalize":"standardize","seed":1,"hyper":{"epochs":2,"optimizer":"sgd","lr":0.1,"batch_size":2,"schedule":{"kind":"constant"}}}`
	assert.Equal(t, want, string(c.CanonicalJSON()), "canonical JSON")
	assert.Lenf(t, c.Key(), 32, "key %q: want 32 hex digits", c.Key())
}

func TestScheduleLR(t *testing.T) {
	ms := Schedule{Kind: "multistep", Milestones: []int{2, 4}, Factor: 0.1}
	for e, want := range []float64{1, 1, 0.1, 0.1, 0.01, 0.01} {
		assert.InDeltaf(t, want, ms.LR(1, e), 1e-15, "multistep epoch %d", e)
	}
	cos := Schedule{Kind: "cosine", Period: 2, Mult: 2}
	// periods: [0,2) then [2,6): restarts at 0 and 2.
	for e, want := range []float64{1, 0.5, 1, 0.5 * (1 + 0.7071067811865476), 0.5, 0.5 * (1 - 0.7071067811865476), 1} {
		assert.InDeltaf(t, want, cos.LR(1, e), 1e-12, "cosine epoch %d", e)
	}
}
