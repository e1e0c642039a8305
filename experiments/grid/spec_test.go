package grid_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/experiments/internal/gridtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	a := gridtest.Parse(t, gridtest.TinySpecJSON)
	b := gridtest.Parse(t, reordered)
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
	_, js, _ := bytes.Cut(ca[0].Config.CanonicalJSON(), []byte("\n")) // after the prefix's line
	require.NoError(t, json.Unmarshal(js, &m))
	back, _ := json.Marshal(m) // map keys come out sorted: another order
	var c experiments.Config
	require.NoError(t, json.Unmarshal(back, &c))
	assert.Equal(t, ca[0].Key, c.Key(), "round trip through a map changed the key")
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
		// encoding/json kept the last of two keys of one name without a word
		// (found trying odd specs as a new user, 2026-11-28).
		{"seeds twice", `"seeds": [1, 2]`, `"seeds": [1, 2], "seeds": [3]`, `the key "seeds" appears twice in the top-level object`},
		{"lr twice", `"lr": 0.05`, `"lr": 0.05, "lr": 0.5`, `the key "lr" appears twice in the object at /hyper`},
		// and matched names without case: "EPOCHS" beside "epochs" once won.
		{"epochs in capitals", `"epochs": 3`, `"epochs": 3, "EPOCHS": 30`, `the key "EPOCHS" in the object at /hyper is not spelled as documented`},
		{"Name", `"name": "tiny"`, `"Name": "tiny"`, `the key "Name" in the top-level object is not spelled as documented; keys are read as written, not without case: write it "name"`},
		{"no name", `"name": "tiny"`, `"name": ""`, "name: is empty"},
		{"bad schedule", `{"kind": "constant"}`, `{"kind": "multistep", "milestones": [5], "factor": 0.1}`, "hyper.schedule.milestones[0]: is 5"},
		{"bad override", `{"hyper": {"batch_size": 2}}`, `{"hyper": {"batchsize": 2}}`, `overrides[0].set: unknown field "batchsize"`},
		{"override in capitals", `{"hyper": {"batch_size": 2}}`, `{"Hyper": {"batch_size": 2}}`, `overrides[0].set: the key "Hyper" in the top-level object is not spelled as documented`},
		{"override moves a cell", `{"hyper": {"batch_size": 2}}`, `{"method": "llpfc-uniform"}`, "overrides: may not set"},
		{"too many bags per batch", `"batch_size": 2}}`, `"batch_size": 100}}`, "hyper.batch_size: 100 bags"},
		{"negative bag size", `[8, 32]`, `[8, -32]`, "bag_size: is -32"},
		{"trailing", "\n}", "\n} {}", "trailing data"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			js := strings.Replace(gridtest.TinySpecJSON, tc.from, tc.to, 1)
			require.NotEqualf(t, gridtest.TinySpecJSON, js, "test case does not change the spec: %q not found", tc.from)
			_, err := grid.ParseSpec("x.json", strings.NewReader(js))
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
		"fashion-mnist-tuned": 10 * 4 * 5, "fashion-mnist-shuffle-tuned": 10 * 4 * 5, "fashion-mnist-step-matched": 4, "fashion-mnist-shuffle-step-matched": 4,
		"fashion-mnist-steps": 10 * 2 * 5, "fashion-mnist-shuffle-steps": 10 * 2 * 5,
	}
	for _, name := range grid.BuiltinNames() {
		s, _ := grid.BuiltinSpec(name)
		cells, err := s.Cells()
		if !assert.NoErrorf(t, err, "%s", name) {
			continue
		}
		assert.Lenf(t, cells, want[name], "%s: %d cells, want %d", name, len(cells), want[name])
		// Round trip through JSON: a built-in spec is an ordinary spec.
		b, _ := json.Marshal(s)
		s2, err := grid.ParseSpec(name, strings.NewReader(string(b)))
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
	find := func(spec, ds, method string, bag int) experiments.Config {
		s, _ := grid.BuiltinSpec(spec)
		cells, _ := s.Cells()
		for _, c := range cells {
			if c.Config.Dataset == ds && c.Config.Method == method && c.Config.BagSize == bag {
				return c.Config
			}
		}
		require.Failf(t, "no such cell", "%s: no cell %s/%s/%d", spec, ds, method, bag)
		return experiments.Config{}
	}
	c := find("wrn16-4", experiments.CIFAR10, "llpfc-approx", 32)
	msg := fmt.Sprintf("wrn16-4 CIFAR10: %+v", c)
	assert.Equal(t, 200, c.Hyper.Epochs, msg)
	assert.Equal(t, []int{60, 120, 160}, c.Hyper.Schedule.Milestones, msg)
	assert.Equal(t, 0.2, c.Hyper.Schedule.Factor, msg)
	assert.Equal(t, 0.3, c.Hyper.Dropout, msg)
	assert.Equal(t, "nesterov", c.Hyper.Optimizer, msg)
	assert.Equal(t, 5e-4, c.Hyper.WeightDecay, msg)
	assert.Equal(t, 40960, c.NumPoints, msg)
	assert.Equal(t, 20, c.Hyper.RegroupEvery, msg)
	c = find("wrn16-4", experiments.EMNISTLetters, "kl", 2048)
	msg = fmt.Sprintf("wrn16-4 EMNIST kl: %+v", c)
	assert.Equal(t, 160, c.Hyper.Epochs, msg)
	assert.Equal(t, []int{80, 120}, c.Hyper.Schedule.Milestones, msg)
	assert.Equal(t, 0.1, c.Hyper.Schedule.Factor, msg)
	assert.Equal(t, 0.4, c.Hyper.Dropout, msg)
	assert.Equal(t, 106496, c.NumPoints, msg)
	assert.Equal(t, 2, c.Hyper.BatchSize, msg)
	c = find("wrn16-4", experiments.CIFAR10, "llpvat", 64)
	msg = fmt.Sprintf("wrn16-4 CIFAR10 llpvat: %+v", c)
	assert.Equal(t, 6.0, c.Hyper.VATEps, msg)
	assert.Equal(t, 2, c.Hyper.BatchSize, msg)
	c = find("resnet18", experiments.SVHN, "llpfc-uniform", 256)
	msg = fmt.Sprintf("resnet18 SVHN: %+v", c)
	assert.Equal(t, 500, c.Hyper.Epochs, msg)
	assert.Equal(t, 0.1, c.Hyper.LR, msg)
	assert.Equal(t, "sgd", c.Hyper.Optimizer, msg)
	assert.Equal(t, 1e-4, c.Hyper.WeightDecay, msg)
	assert.Equal(t, []int{250, 375}, c.Hyper.Schedule.Milestones, msg)
	assert.Equal(t, 128, c.Hyper.BatchSize, msg)
	c = find("vgg16", experiments.SVHN, "llpfc-uniform", 256)
	msg = fmt.Sprintf("vgg16 SVHN: %+v", c)
	assert.Equal(t, 74, c.Hyper.Epochs, msg)
	assert.Equal(t, 256, c.Hyper.BatchSize, msg)
	assert.Equal(t, 5, c.Hyper.RegroupEvery, msg)
	assert.Equal(t, []int{19, 37, 56}, c.Hyper.Schedule.Milestones, msg)
	assert.Equal(t, 0.5, c.Hyper.Dropout, msg)
	c = find("llpgan", experiments.SVHN, "llpgan", 32)
	msg = fmt.Sprintf("llpgan SVHN: %+v", c)
	assert.Equal(t, 3000, c.Hyper.Epochs, msg)
	assert.Equal(t, "adam", c.Hyper.Optimizer, msg)
	assert.Equal(t, 3e-4, c.Hyper.LR, msg)
	assert.Equal(t, 0.5, c.Hyper.Beta1, msg)
	assert.Equal(t, 0.999, c.Hyper.Beta2, msg)
	assert.Equal(t, 1, c.Hyper.BatchSize, msg)
}

func TestParseShard(t *testing.T) {
	for _, bad := range []string{"", "1", "0/2", "3/2", "a/b", "1/0", "-1/2"} {
		_, err := grid.ParseShard(bad)
		assert.Errorf(t, err, "ParseShard(%q): no error", bad)
	}
	s, err := grid.ParseShard("2/3")
	assert.NoError(t, err, "ParseShard(2/3)")
	assert.Equal(t, grid.Shard{2, 3}, s, "ParseShard(2/3)")
}

// The work of a grid is Σ_cells epochs × points: for wrn16-4, per seed and
// bag size, CIFAR10 has 4 methods × 200 epochs × 40960 points, SVHN 4 × 160
// × 40960 and EMNIST 4 × 160 × 106496.
func TestInstanceEpochs(t *testing.T) {
	s, _ := grid.BuiltinSpec("wrn16-4")
	got, err := s.InstanceEpochs()
	require.NoError(t, err)
	want := int64(5*7) * 4 * (200*40960 + 160*40960 + 160*106496)
	assert.Equalf(t, want, got, "wrn16-4: %d instance-epochs, want %d", got, want)
}

// A spec that leaves hyper.batch_size out gives each cell its method's
// default minibatch, in the method's unit — KL's 2 bags (App. `subsec:KL`),
// EasyLLP's 8 bags (the authors' easyllp.py), LLPFC's 128 instances (App.
// `suppsec: exp`) — as llpfc train does without --batch-size; an override's
// minibatch wins, and a searched minibatch leaves the cell's 0. The key of a
// cell that states its default is the key of one that leaves it out.
func TestSpecGivesEachMethodItsDefaultMinibatch(t *testing.T) {
	noBatch := strings.Replace(gridtest.TinySpecJSON, `"batch_size": 32,`, ``, 1)
	noBatch = strings.Replace(noBatch, `"learner": "logreg",
  "model": "linear",`, `"learner": "gorgonia",
  "model": "mlp",`, 1)
	noBatch = strings.Replace(noBatch, `["llpfc-uniform", "llpfc-approx", "kl"]`, `["llpfc-uniform", "kl", "easyllp"]`, 1)
	for _, tc := range []struct {
		name, js string
		want     map[string]int
	}{
		{"left out", strings.Replace(noBatch, `"overrides": [{"when": {"methods": ["kl"]}, "set": {"hyper": {"batch_size": 2}}}]`, `"overrides": []`, 1),
			map[string]int{"llpfc-uniform": 128, "kl": 2, "easyllp": 8}},
		{"an override wins", strings.Replace(noBatch, `"batch_size": 2`, `"batch_size": 5`, 1),
			map[string]int{"llpfc-uniform": 128, "kl": 5, "easyllp": 8}},
	} {
		s := gridtest.Parse(t, tc.js)
		cells, err := s.Cells()
		require.NoError(t, err, tc.name)
		for _, c := range cells {
			assert.Equal(t, tc.want[c.Config.Method], c.Config.Hyper.BatchSize, "%s: %s", tc.name, c.Config.Method)
			stated := c.Config
			stated.Hyper.BatchSize = tc.want[c.Config.Method]
			assert.Equal(t, stated.Key(), c.Key, "%s: %s", tc.name, c.Config.Method)
		}
	}
	searched := strings.Replace(noBatch, `"overrides": [{"when": {"methods": ["kl"]}, "set": {"hyper": {"batch_size": 2}}}]`,
		`"tune": true, "overrides": [{"when": {"methods": ["kl"]}, "set": {"hyper": {"search": {"lr": [0.1], "batch_size": [1, 3]}}}}]`, 1)
	searched = strings.Replace(searched, `"regroup_every": 2}`, `"regroup_every": 2, "val_bags": 0.25, "lr": 0}`, 1)
	searched = strings.Replace(searched, `"lr": 0.05, `, ``, 1)
	cells, err := gridtest.Parse(t, searched).Cells()
	require.NoError(t, err)
	for _, c := range cells {
		if c.Config.Method == "kl" {
			assert.Zero(t, c.Config.Hyper.BatchSize, "a searched minibatch: the cell's is 0")
		}
	}
}
