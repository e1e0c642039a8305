package experiments

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
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
	if err != nil {
		t.Fatal(err)
	}
	cb, err := b.Cells()
	if err != nil {
		t.Fatal(err)
	}
	if len(ca) != 3*2*2 || len(ca) != len(cb) {
		t.Fatalf("got %d and %d cells, want 12", len(ca), len(cb))
	}
	seen := map[string]bool{}
	for i := range ca {
		if ca[i].Key != cb[i].Key {
			t.Errorf("cell %d: key %s vs %s after reordering", i, ca[i].Key, cb[i].Key)
		}
		if ca[i].Key != ca[i].Config.Key() {
			t.Errorf("cell %d: key %s, config hashes to %s", i, ca[i].Key, ca[i].Config.Key())
		}
		if seen[ca[i].Key] {
			t.Errorf("cell %d: duplicate key", i)
		}
		seen[ca[i].Key] = true
		if ca[i].Config.Method == "kl" && ca[i].Config.Hyper.BatchSize != 2 {
			t.Errorf("cell %d: override not applied: batch size %d", i, ca[i].Config.Hyper.BatchSize)
		}
	}
	// A config decoded from the canonical JSON of another, with its keys
	// shuffled by a round trip through a map, hashes the same.
	var m map[string]any
	js := ca[0].Config.CanonicalJSON()[len(canonicalPrefix):]
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	back, _ := json.Marshal(m) // map keys come out sorted: another order
	var c Config
	if err := json.Unmarshal(back, &c); err != nil {
		t.Fatal(err)
	}
	if c.Key() != ca[0].Key {
		t.Errorf("round trip through a map changed the key")
	}
}

// Every single change of setting changes the key.
func TestSpecKeyChangesWithEverySetting(t *testing.T) {
	base := mustParse(t, tinySpecJSON)
	cells, err := base.Cells()
	if err != nil {
		t.Fatal(err)
	}
	c0 := cells[0].Config
	mutations := map[string]func(c *Config){
		"learner":              func(c *Config) { c.Learner = "gorgonia" },
		"dataset":              func(c *Config) { c.Dataset += "x" },
		"model":                func(c *Config) { c.Model = "mlp" },
		"method":               func(c *Config) { c.Method = "kl" },
		"protocol":             func(c *Config) { c.Protocol = "shuffle" },
		"bag_size":             func(c *Config) { c.BagSize = 16 },
		"num_points":           func(c *Config) { c.NumPoints = 768 },
		"test_points":          func(c *Config) { c.TestPoints = 100 },
		"seed":                 func(c *Config) { c.Seed = 3 },
		"shortfall":            func(c *Config) { c.Shortfall = "strict" },
		"hyper.epochs":         func(c *Config) { c.Hyper.Epochs = 4 },
		"hyper.optimizer":      func(c *Config) { c.Hyper.Optimizer = "sgd" },
		"hyper.lr":             func(c *Config) { c.Hyper.LR = 0.0500000001 },
		"hyper.momentum":       func(c *Config) { c.Hyper.Momentum = 0.9 },
		"hyper.weight_decay":   func(c *Config) { c.Hyper.WeightDecay = 1e-4 },
		"hyper.beta1":          func(c *Config) { c.Hyper.Beta1 = 0.5 },
		"hyper.beta2":          func(c *Config) { c.Hyper.Beta2 = 0.99 },
		"hyper.batch_size":     func(c *Config) { c.Hyper.BatchSize = 64 },
		"hyper.schedule.kind":  func(c *Config) { c.Hyper.Schedule.Kind = "cosine" },
		"hyper.schedule.ms":    func(c *Config) { c.Hyper.Schedule.Milestones = []int{1} },
		"hyper.schedule.f":     func(c *Config) { c.Hyper.Schedule.Factor = 0.1 },
		"hyper.schedule.p":     func(c *Config) { c.Hyper.Schedule.Period = 2 },
		"hyper.schedule.mult":  func(c *Config) { c.Hyper.Schedule.Mult = 2 },
		"hyper.regroup_every":  func(c *Config) { c.Hyper.RegroupEvery = 5 },
		"hyper.dropout":        func(c *Config) { c.Hyper.Dropout = 0.3 },
		"hyper.augment":        func(c *Config) { c.Hyper.Augment = true },
		"hyper.vat_eps":        func(c *Config) { c.Hyper.VATEps = 1 },
		"hyper.vat_xi":         func(c *Config) { c.Hyper.VATXi = 1e-6 },
		"hyper.weights":        func(c *Config) { c.Hyper.Weights = "hm" },
		"hyper.compat":         func(c *Config) { c.Hyper.Compat = "original" },
		"normalize":            func(c *Config) { c.Normalize = "none" },
		"hyper.kl_scale":       func(c *Config) { c.Hyper.KLScale = "paper" },
		"hyper.vat_rampup":     func(c *Config) { c.Hyper.VATRampup = "llpvat" },
		"hyper.ms order":       func(c *Config) { c.Hyper.Schedule.Milestones = []int{2, 1} },
		"hyper.ms order (ref)": func(c *Config) { c.Hyper.Schedule.Milestones = []int{1, 2} },
	}
	keys := map[string]string{c0.Key(): "base"}
	for name, mut := range mutations {
		c := c0
		c.Hyper.Schedule.Milestones = append([]int(nil), c0.Hyper.Schedule.Milestones...)
		mut(&c)
		k := c.Key()
		if prev, dup := keys[k]; dup {
			t.Errorf("mutation %s gives the same key as %s", name, prev)
		}
		keys[k] = name
	}
	// Every field of Config and Hyper is covered by a mutation above.
	nf := reflect.TypeOf(Config{}).NumField() - 1 + reflect.TypeOf(Hyper{}).NumField() - 1 + reflect.TypeOf(Schedule{}).NumField()
	if nf > len(mutations) {
		t.Errorf("Config has %d settings but only %d mutations are tested", nf, len(mutations))
	}
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
	if got := string(c.CanonicalJSON()); got != want {
		t.Errorf("canonical JSON\n got %s\nwant %s", got, want)
	}
	if len(c.Key()) != 32 {
		t.Errorf("key %q: want 32 hex digits", c.Key())
	}
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
		{"bad override", `{"hyper": {"batch_size": 2}}`, `{"hyper": {"batchsize": 2}}`, `overrides[0].set: json: unknown field "batchsize"`},
		{"override moves a cell", `{"hyper": {"batch_size": 2}}`, `{"method": "llpfc-uniform"}`, "overrides: may not set"},
		{"too many bags per batch", `"batch_size": 2}}`, `"batch_size": 100}}`, "hyper.batch_size: 100 bags"},
		{"negative bag size", `[8, 32]`, `[8, -32]`, "bag_size: is -32"},
		{"trailing", "\n}", "\n} {}", "trailing data"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			js := strings.Replace(tinySpecJSON, tc.from, tc.to, 1)
			if js == tinySpecJSON {
				t.Fatalf("test case does not change the spec: %q not found", tc.from)
			}
			_, err := ParseSpec("x.json", strings.NewReader(js))
			if err == nil {
				t.Fatalf("no error; want one containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "spec x.json: ") {
				t.Errorf("error %q does not name the spec", err)
			}
		})
	}
}

// The built-in specs are valid and carry the appendix's settings.
func TestBuiltinSpecs(t *testing.T) {
	want := map[string]int{ // cells: datasets × methods × 7 bag sizes × 5 seeds
		"wrn16-4": 3 * 4 * 7 * 5, "resnet18": 3 * 4 * 7 * 5, "vgg16": 3 * 4 * 7 * 5, "llpgan": 2 * 3 * 7 * 5,
		"quick": 3 * 3 * 2, "fashion-mnist": 6 * 4 * 3, "fashion-mnist-shuffle": 3 * 4 * 3,
	}
	for _, name := range BuiltinNames() {
		s, _ := BuiltinSpec(name)
		cells, err := s.Cells()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(cells) != want[name] {
			t.Errorf("%s: %d cells, want %d", name, len(cells), want[name])
		}
		// Round trip through JSON: a built-in spec is an ordinary spec.
		b, _ := json.Marshal(s)
		s2, err := ParseSpec(name, strings.NewReader(string(b)))
		if err != nil {
			t.Errorf("%s: JSON round trip: %v", name, err)
			continue
		}
		c2, _ := s2.Cells()
		for i := range cells {
			if cells[i].Key != c2[i].Key {
				t.Errorf("%s: cell %d key changes in a JSON round trip", name, i)
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
		t.Fatalf("%s: no cell %s/%s/%d", spec, ds, method, bag)
		return Config{}
	}
	c := find("wrn16-4", CIFAR10, "llpfc-approx", 32)
	if c.Hyper.Epochs != 200 || !reflect.DeepEqual(c.Hyper.Schedule.Milestones, []int{60, 120, 160}) || c.Hyper.Schedule.Factor != 0.2 ||
		c.Hyper.Dropout != 0.3 || c.Hyper.Optimizer != "nesterov" || c.Hyper.WeightDecay != 5e-4 || c.NumPoints != 40960 || c.Hyper.RegroupEvery != 20 {
		t.Errorf("wrn16-4 CIFAR10: %+v", c)
	}
	c = find("wrn16-4", EMNISTLetters, "kl", 2048)
	if c.Hyper.Epochs != 160 || !reflect.DeepEqual(c.Hyper.Schedule.Milestones, []int{80, 120}) || c.Hyper.Schedule.Factor != 0.1 ||
		c.Hyper.Dropout != 0.4 || c.NumPoints != 106496 || c.Hyper.BatchSize != 2 {
		t.Errorf("wrn16-4 EMNIST kl: %+v", c)
	}
	c = find("wrn16-4", CIFAR10, "llpvat", 64)
	if c.Hyper.VATEps != 6 || c.Hyper.BatchSize != 2 {
		t.Errorf("wrn16-4 CIFAR10 llpvat: %+v", c)
	}
	c = find("resnet18", SVHN, "llpfc-uniform", 256)
	if c.Hyper.Epochs != 500 || c.Hyper.LR != 0.1 || c.Hyper.Optimizer != "sgd" || c.Hyper.WeightDecay != 1e-4 ||
		!reflect.DeepEqual(c.Hyper.Schedule.Milestones, []int{250, 375}) || c.Hyper.BatchSize != 128 {
		t.Errorf("resnet18 SVHN: %+v", c)
	}
	c = find("vgg16", SVHN, "llpfc-uniform", 256)
	if c.Hyper.Epochs != 74 || c.Hyper.BatchSize != 256 || c.Hyper.RegroupEvery != 5 ||
		!reflect.DeepEqual(c.Hyper.Schedule.Milestones, []int{19, 37, 56}) || c.Hyper.Dropout != 0.5 {
		t.Errorf("vgg16 SVHN: %+v", c)
	}
	c = find("llpgan", SVHN, "llpgan", 32)
	if c.Hyper.Epochs != 3000 || c.Hyper.Optimizer != "adam" || c.Hyper.LR != 3e-4 || c.Hyper.Beta1 != 0.5 ||
		c.Hyper.Beta2 != 0.999 || c.Hyper.BatchSize != 1 {
		t.Errorf("llpgan SVHN: %+v", c)
	}
}

func TestScheduleLR(t *testing.T) {
	ms := Schedule{Kind: "multistep", Milestones: []int{2, 4}, Factor: 0.1}
	for e, want := range []float64{1, 1, 0.1, 0.1, 0.01, 0.01} {
		if got := ms.LR(1, e); !closeTo(got, want, 1e-15) {
			t.Errorf("multistep epoch %d: %v, want %v", e, got, want)
		}
	}
	cos := Schedule{Kind: "cosine", Period: 2, Mult: 2}
	// periods: [0,2) then [2,6): restarts at 0 and 2.
	for e, want := range []float64{1, 0.5, 1, 0.5 * (1 + 0.7071067811865476), 0.5, 0.5 * (1 - 0.7071067811865476), 1} {
		if got := cos.LR(1, e); !closeTo(got, want, 1e-12) {
			t.Errorf("cosine epoch %d: %v, want %v", e, got, want)
		}
	}
}

func TestParseShard(t *testing.T) {
	for _, bad := range []string{"", "1", "0/2", "3/2", "a/b", "1/0", "-1/2"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q): no error", bad)
		}
	}
	s, err := ParseShard("2/3")
	if err != nil || s != (Shard{2, 3}) {
		t.Errorf("ParseShard(2/3) = %v, %v", s, err)
	}
}

func mustParse(t *testing.T, js string) *Spec {
	t.Helper()
	s, err := ParseSpec("test", strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func closeTo(a, b, tol float64) bool {
	d := a - b
	return d <= tol && -d <= tol
}

// The work of a grid is Σ_cells epochs × points: for wrn16-4, per seed and
// bag size, CIFAR10 has 4 methods × 200 epochs × 40960 points, SVHN 4 × 160
// × 40960 and EMNIST 4 × 160 × 106496.
func TestInstanceEpochs(t *testing.T) {
	s, _ := BuiltinSpec("wrn16-4")
	got, err := s.InstanceEpochs()
	if err != nil {
		t.Fatal(err)
	}
	want := int64(5*7) * 4 * (200*40960 + 160*40960 + 160*106496)
	if got != want {
		t.Errorf("wrn16-4: %d instance-epochs, want %d", got, want)
	}
}
