package grid_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
)

// What "tune" replaces is never dropped without a word, and a search
// never trains one trial twice. Generated tuned specs with overrides that
// set a method's rate, its minibatch, its own search (at times with a rate
// or a minibatch listed twice), in any combination. The oracle is the
// spec as generated: an override's rate under tune (without a search of its
// own) is refused naming the override and hyper.lr; its minibatch, when the
// cell's search lists minibatches; a repeated rate or minibatch is refused
// naming both places; otherwise every cell searches its override's space,
// or its method's, and trains the override's minibatch.

// tunedSpec is the base of the generated specs: tuned, bags held out.
const tunedSpec = `{"name": "tuned", "learner": "gorgonia", "model": "mlp",
  "datasets": ["gmm:classes=3,dim=4,train=600,test=100"],
  "methods": ["llpfc-uniform", "kl", "llpfc-approx"], "bag_sizes": [8], "seeds": [0], "protocol": "paper", "num_points": 256,
  "tune": true,
  "hyper": {"epochs": 1, "optimizer": "adam", "lr": 0.05, "batch_size": 4, "val_bags": 0.25, "schedule": {"kind": "constant"}}}`

type tuneOverride struct {
	method  string
	lr      bool   // sets hyper.lr
	batch   int    // sets hyper.batch_size (0: not)
	search  []any  // hyper.search.lr (nil: no search)
	sbatch  []any  // hyper.search.batch_size
	repeats string // the search's field listing a value twice
}

func TestPropertyTuneOverrides(t *testing.T) {
	r := rand.New(rand.NewSource(62))
	methods := []string{"llpfc-uniform", "kl", "llpfc-approx"}
	counts := map[string]int{}
	for n := 0; n < 300; n++ {
		var ovs []tuneOverride // at most one a method, in the spec's order of methods
		for _, m := range methods {
			if r.Intn(2) == 0 {
				continue
			}
			o := tuneOverride{method: m, lr: r.Intn(3) == 0}
			if r.Intn(3) == 0 {
				o.batch = 2 + r.Intn(3)
			}
			if r.Intn(2) == 0 {
				o.search = []any{0.001, 0.01}
				if r.Intn(3) == 0 {
					o.search, o.repeats = []any{0.001, 0.01, 1e-3}, "lr"
				}
				if r.Intn(3) == 0 {
					o.sbatch = []any{2, 3}
					if r.Intn(3) == 0 {
						o.sbatch = []any{2, 3, 2}
						if o.repeats == "" { // the rates are checked first
							o.repeats = "batch_size"
						}
					}
				}
			}
			ovs = append(ovs, o)
		}
		// At times the spec's own search lists minibatches: every cell
		// without a search of its own searches them.
		specBatches := r.Intn(3) == 0
		var spec map[string]any
		require.NoError(t, json.Unmarshal([]byte(tunedSpec), &spec))
		if specBatches {
			spec["hyper"].(map[string]any)["search"] = map[string]any{"lr": []any{0.001, 0.01}, "batch_size": []any{2, 4}}
			spec["hyper"].(map[string]any)["batch_size"] = 0
		}
		var list []any
		for _, o := range ovs {
			h := map[string]any{}
			if o.lr {
				h["lr"] = 0.3
			}
			if o.batch > 0 {
				h["batch_size"] = o.batch
			}
			if o.search != nil {
				s := map[string]any{"lr": o.search}
				if o.sbatch != nil {
					s["batch_size"] = o.sbatch
				}
				h["search"] = s
			}
			list = append(list, map[string]any{"when": map[string]any{"methods": []any{o.method}}, "set": map[string]any{"hyper": h}})
		}
		spec["overrides"] = list
		js, _ := json.Marshal(spec)
		_, err := grid.ParseSpec("gen", strings.NewReader(string(js)))
		// The oracle: the first cell (in the spec's order of methods) whose
		// override "tune" overrules, then the first repeated trial.
		want := ""
		for i, o := range ovs {
			if want != "" || o.search != nil {
				continue // an override with a search says what is searched
			}
			d, _ := experiments.Method(o.method)
			batches := specBatches || len(d.Search.BatchSize) > 0
			switch {
			case o.lr:
				want = fmt.Sprintf("overrides[%d].set: hyper.lr under \"tune\"", i)
			case o.batch > 0 && batches:
				want = fmt.Sprintf("overrides[%d].set: hyper.batch_size under \"tune\"", i)
			}
		}
		for _, o := range ovs {
			if want == "" && o.repeats != "" {
				want = "hyper.search." + o.repeats + "["
			}
		}
		switch {
		case want != "":
			counts["refused"]++
			require.Error(t, err, "%s: want %q", js, want)
			assert.Contains(t, err.Error(), want, "%s", js)
			if strings.HasPrefix(want, "hyper.search") {
				assert.Contains(t, err.Error(), "list it once")
			} else {
				assert.Contains(t, err.Error(), `or leave "tune" out`)
			}
		default:
			counts["run"]++
			require.NoError(t, err, "%s", js)
		}
	}
	t.Logf("300 tuned specs: %v", counts)
	assert.Positive(t, counts["refused"])
	assert.Positive(t, counts["run"])
}

// An override's search is its cells' alone: the spec's hyper.search was one
// value every cell pointed at, so that an override decoding its search into
// it set every cell's (the last override won everywhere, without a word).
func TestOverrideSearchIsItsCellsAlone(t *testing.T) {
	var spec map[string]any
	require.NoError(t, json.Unmarshal([]byte(tunedSpec), &spec))
	h := spec["hyper"].(map[string]any)
	h["search"], h["lr"] = map[string]any{"lr": []any{0.001, 0.01}}, 0
	spec["overrides"] = []any{map[string]any{"when": map[string]any{"methods": []any{"kl"}}, "set": map[string]any{"hyper": map[string]any{"search": map[string]any{"lr": []any{0.5}}}}}}
	js, _ := json.Marshal(spec)
	s, err := grid.ParseSpec("gen", strings.NewReader(string(js)))
	require.NoError(t, err)
	cells, err := s.Cells()
	require.NoError(t, err)
	for _, c := range cells {
		want := []float64{0.001, 0.01}
		if c.Config.Method == "kl" {
			want = []float64{0.5}
		}
		assert.Equal(t, want, c.Config.Hyper.Search.LR, c.Config.Method)
	}
	assert.Equal(t, []float64{0.001, 0.01}, s.Hyper.Search.LR, "the spec's own search changed")
}
