package experiments

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const tinySpecJSON = `{
  "name": "tiny",
  "learner": "logreg",
  "model": "linear",
  "datasets": ["gmm:classes=3,dim=4,train=1200,test=300,sep=3"],
  "methods": ["llpfc-uniform", "llpfc-approx", "kl"],
  "bag_sizes": [8, 32],
  "seeds": [1, 2],
  "protocol": "paper",
  "num_points": 384,
  "hyper": {"epochs": 3, "optimizer": "adam", "lr": 0.05, "batch_size": 32,
            "schedule": {"kind": "constant"}, "regroup_every": 2},
  "overrides": [{"when": {"methods": ["kl"]}, "set": {"hyper": {"batch_size": 2}}}]
}`

// Reordering the keys of a spec file, and re-spelling its numbers, keeps every
// cell's key; the keys are those of the configs.
func TestSpecKeyIgnoresKeyOrder(t *testing.T) {
	reordered := `{
  "overrides": [{"set": {"hyper": {"batch_size": 2}}, "when": {"methods": ["kl"]}}],
  "hyper": {"schedule": {"kind": "constant"}, "regroup_every": 2, "batch_size": 32,
            "lr": 5e-2, "optimizer": "adam", "epochs": 3},
  "num_points": 384, "protocol": "paper", "seeds": [1, 2], "bag_sizes": [8, 32],
  "methods": ["llpfc-uniform", "llpfc-approx", "kl"],
  "datasets": ["gmm:classes=3,dim=4,train=1200,test=300,sep=3"],
  "model": "linear", "learner": "logreg", "name": "tiny"
}`
	a := mustParse(t, tinySpecJSON)
	b := mustParse(t, reordered)
	ca, err := a.Cells()
	require.NoError(t, err)
	cb, err := b.Cells()
	require.NoError(t, err)
	require.Lenf(t, ca, 3*2*2, "got %d and %d cells, want 12", len(ca), len(cb))
	require.Lenf(t, cb, len(ca), "got %d and %d cells, want 12", len(ca), len(cb))
	seen := map[string]bool{}
	for i := range ca {
		assert.Equalf(t, ca[i].Key, cb[i].Key, "cell %d: key %s vs %s after reordering", i, ca[i].Key, cb[i].Key)
		assert.Equalf(t, ca[i].Config.Key(), ca[i].Key, "cell %d: key %s, config hashes to %s", i, ca[i].Key, ca[i].Config.Key())
		assert.Falsef(t, seen[ca[i].Key], "cell %d: duplicate key", i)
		seen[ca[i].Key] = true
		if ca[i].Config.Method == "kl" {
			assert.Equalf(t, 2, ca[i].Config.Hyper.BatchSize, "cell %d: override not applied: batch size %d", i, ca[i].Config.Hyper.BatchSize)
		}
	}
	// A config decoded from the canonical JSON of another, with its keys
	// shuffled by a round trip through a map, hashes the same.
	var m map[string]any
	js := ca[0].Config.CanonicalJSON()[len(canonicalPrefix):]
	require.NoError(t, json.Unmarshal(js, &m))
	back, _ := json.Marshal(m) // map keys come out sorted: another order
	var c Config
	require.NoError(t, json.Unmarshal(back, &c))
	assert.Equal(t, ca[0].Key, c.Key(), "round trip through a map changed the key")
}

// Every single change of setting changes the key.
func TestSpecKeyChangesWithEverySetting(t *testing.T) {
	base := mustParse(t, tinySpecJSON)
	cells, err := base.Cells()
	require.NoError(t, err)
	c0 := cells[0].Config
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
		"hyper.weights":         func(c *Config) { c.Hyper.Weights = "hm" },
		"hyper.compat":          func(c *Config) { c.Hyper.Compat = "original" },
		"normalize":             func(c *Config) { c.Normalize = "none" },
		"hyper.kl_scale":        func(c *Config) { c.Hyper.KLScale = "paper" },
		"hyper.vat_rampup":      func(c *Config) { c.Hyper.VATRampup = "llpvat" },
		"hyper.bn_stats":        func(c *Config) { c.Hyper.BNStats = "chunk" },
		"hyper.chunk_size":      func(c *Config) { c.Hyper.ChunkSize = 64 },
		"hyper.vat_power_iters": func(c *Config) { c.Hyper.VATPowerIters = 2 },
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

// Invalid specs are rejected with an error naming the field.
func TestSpecInvalid(t *testing.T) {
	cases := []struct {
		name, from, to, want string
	}{
		{"unknown field", `"protocol": "paper"`, `"protocl": "paper"`, `unknown field "protocl"`},
		{"unknown hyper field", `"epochs": 3`, `"epoch": 3`, `unknown field "epoch"`},
		{"bad method", `"kl"]`, `"kll"]`, `method: is "kll"`},
		{"bad protocol", `"protocol": "paper"`, `"protocol": "dirichlet:-1"`, "protocol:"},
		{"bad lr", `"lr": 0.05`, `"lr": -1`, "hyper.lr: is -1"},
		{"zero epochs", `"epochs": 3`, `"epochs": 0`, "hyper.epochs: is 0"},
		{"bad optimizer", `"optimizer": "adam"`, `"optimizer": "lbfgs"`, "hyper.optimizer"},
		{"points not multiple", `"num_points": 384`, `"num_points": 380`, "num_points: 380 is not a multiple of bag size 8"},
		{"no seeds", `"seeds": [1, 2]`, `"seeds": []`, "seeds: is empty"},
		{"dup seeds", `"seeds": [1, 2]`, `"seeds": [1, 1]`, "seeds[1]: repeats seeds[0]"},
		{"no name", `"name": "tiny"`, `"name": ""`, "name: is empty"},
		{"bad schedule", `{"kind": "constant"}`, `{"kind": "multistep", "milestones": [5], "factor": 0.1}`, "hyper.schedule.milestones[0]: is 5"},
		{"bad override", `{"hyper": {"batch_size": 2}}`, `{"hyper": {"batchsize": 2}}`, `overrides[0].set: unknown field "batchsize"`},
		{"override moves a cell", `{"hyper": {"batch_size": 2}}`, `{"method": "llpfc-uniform"}`, "overrides: may not set"},
		{"too many bags per batch", `"batch_size": 2}}`, `"batch_size": 100}}`, "hyper.batch_size: 100 bags"},
		{"negative bag size", `[8, 32]`, `[8, -32]`, "bag_size: is -32"},
		{"trailing", "\n}", "\n} {}", "trailing data"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			js := strings.Replace(tinySpecJSON, tc.from, tc.to, 1)
			require.NotEqualf(t, tinySpecJSON, js, "test case does not change the spec: %q not found", tc.from)
			_, err := ParseSpec("x.json", strings.NewReader(js))
			require.Errorf(t, err, "no error; want one containing %q", tc.want)
			assert.ErrorContainsf(t, err, tc.want, "error %q does not contain %q", err, tc.want)
			assert.Truef(t, strings.HasPrefix(err.Error(), "spec x.json: "), "error %q does not name the spec", err)
		})
	}
}

// The built-in specs are valid and carry the appendix's settings.
func TestBuiltinSpecs(t *testing.T) {
	want := map[string]int{ // cells: datasets × methods × 7 bag sizes × 5 seeds
		"wrn16-4": 3 * 4 * 7 * 5, "resnet18": 3 * 4 * 7 * 5, "vgg16": 3 * 4 * 7 * 5, "llpgan": 2 * 3 * 7 * 5,
		"quick": 3 * 3 * 2, "fashion-mnist": 9 * 4 * 3, "fashion-mnist-shuffle": 6 * 4 * 3,
	}
	for _, name := range BuiltinNames() {
		s, _ := BuiltinSpec(name)
		cells, err := s.Cells()
		if !assert.NoErrorf(t, err, "%s", name) {
			continue
		}
		assert.Lenf(t, cells, want[name], "%s: %d cells, want %d", name, len(cells), want[name])
		// Round trip through JSON: a built-in spec is an ordinary spec.
		b, _ := json.Marshal(s)
		s2, err := ParseSpec(name, strings.NewReader(string(b)))
		if !assert.NoErrorf(t, err, "%s: JSON round trip", name) {
			continue
		}
		c2, _ := s2.Cells()
		for i := range cells {
			if !assert.Equalf(t, cells[i].Key, c2[i].Key, "%s: cell %d key changes in a JSON round trip", name, i) {
				break
			}
		}
	}
	// Spot checks of App. `suppsec: exp`.
	find := func(spec, ds, method string, bag int) Config {
		s, _ := BuiltinSpec(spec)
		cells, _ := s.Cells()
		for _, c := range cells {
			if c.Config.Dataset == ds && c.Config.Method == method && c.Config.BagSize == bag {
				return c.Config
			}
		}
		require.Failf(t, "no such cell", "%s: no cell %s/%s/%d", spec, ds, method, bag)
		return Config{}
	}
	c := find("wrn16-4", CIFAR10, "llpfc-approx", 32)
	msg := fmt.Sprintf("wrn16-4 CIFAR10: %+v", c)
	assert.Equal(t, 200, c.Hyper.Epochs, msg)
	assert.Equal(t, []int{60, 120, 160}, c.Hyper.Schedule.Milestones, msg)
	assert.Equal(t, 0.2, c.Hyper.Schedule.Factor, msg)
	assert.Equal(t, 0.3, c.Hyper.Dropout, msg)
	assert.Equal(t, "nesterov", c.Hyper.Optimizer, msg)
	assert.Equal(t, 5e-4, c.Hyper.WeightDecay, msg)
	assert.Equal(t, 40960, c.NumPoints, msg)
	assert.Equal(t, 20, c.Hyper.RegroupEvery, msg)
	c = find("wrn16-4", EMNISTLetters, "kl", 2048)
	msg = fmt.Sprintf("wrn16-4 EMNIST kl: %+v", c)
	assert.Equal(t, 160, c.Hyper.Epochs, msg)
	assert.Equal(t, []int{80, 120}, c.Hyper.Schedule.Milestones, msg)
	assert.Equal(t, 0.1, c.Hyper.Schedule.Factor, msg)
	assert.Equal(t, 0.4, c.Hyper.Dropout, msg)
	assert.Equal(t, 106496, c.NumPoints, msg)
	assert.Equal(t, 2, c.Hyper.BatchSize, msg)
	c = find("wrn16-4", CIFAR10, "llpvat", 64)
	msg = fmt.Sprintf("wrn16-4 CIFAR10 llpvat: %+v", c)
	assert.Equal(t, 6.0, c.Hyper.VATEps, msg)
	assert.Equal(t, 2, c.Hyper.BatchSize, msg)
	c = find("resnet18", SVHN, "llpfc-uniform", 256)
	msg = fmt.Sprintf("resnet18 SVHN: %+v", c)
	assert.Equal(t, 500, c.Hyper.Epochs, msg)
	assert.Equal(t, 0.1, c.Hyper.LR, msg)
	assert.Equal(t, "sgd", c.Hyper.Optimizer, msg)
	assert.Equal(t, 1e-4, c.Hyper.WeightDecay, msg)
	assert.Equal(t, []int{250, 375}, c.Hyper.Schedule.Milestones, msg)
	assert.Equal(t, 128, c.Hyper.BatchSize, msg)
	c = find("vgg16", SVHN, "llpfc-uniform", 256)
	msg = fmt.Sprintf("vgg16 SVHN: %+v", c)
	assert.Equal(t, 74, c.Hyper.Epochs, msg)
	assert.Equal(t, 256, c.Hyper.BatchSize, msg)
	assert.Equal(t, 5, c.Hyper.RegroupEvery, msg)
	assert.Equal(t, []int{19, 37, 56}, c.Hyper.Schedule.Milestones, msg)
	assert.Equal(t, 0.5, c.Hyper.Dropout, msg)
	c = find("llpgan", SVHN, "llpgan", 32)
	msg = fmt.Sprintf("llpgan SVHN: %+v", c)
	assert.Equal(t, 3000, c.Hyper.Epochs, msg)
	assert.Equal(t, "adam", c.Hyper.Optimizer, msg)
	assert.Equal(t, 3e-4, c.Hyper.LR, msg)
	assert.Equal(t, 0.5, c.Hyper.Beta1, msg)
	assert.Equal(t, 0.999, c.Hyper.Beta2, msg)
	assert.Equal(t, 1, c.Hyper.BatchSize, msg)
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

func TestParseShard(t *testing.T) {
	for _, bad := range []string{"", "1", "0/2", "3/2", "a/b", "1/0", "-1/2"} {
		_, err := ParseShard(bad)
		assert.Errorf(t, err, "ParseShard(%q): no error", bad)
	}
	s, err := ParseShard("2/3")
	assert.NoError(t, err, "ParseShard(2/3)")
	assert.Equal(t, Shard{2, 3}, s, "ParseShard(2/3)")
}

func mustParse(t *testing.T, js string) *Spec {
	t.Helper()
	s, err := ParseSpec("test", strings.NewReader(js))
	require.NoError(t, err)
	return s
}

// The work of a grid is Σ_cells epochs × points: for wrn16-4, per seed and
// bag size, CIFAR10 has 4 methods × 200 epochs × 40960 points, SVHN 4 × 160
// × 40960 and EMNIST 4 × 160 × 106496.
func TestInstanceEpochs(t *testing.T) {
	s, _ := BuiltinSpec("wrn16-4")
	got, err := s.InstanceEpochs()
	require.NoError(t, err)
	want := int64(5*7) * 4 * (200*40960 + 160*40960 + 160*106496)
	assert.Equalf(t, want, got, "wrn16-4: %d instance-epochs, want %d", got, want)
}
