package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/methods"
)

// throwawayName is the method TestANewMethodChangesNothingCommitted
// registers for the length of one test.
const throwawayName = "throwaway-l1"

// throwawayL1 is the throwaway method's objective: the L1 distance between
// each bag's mean predicted distribution and its proportions, averaged over
// the minibatch's bags (a subgradient at ties), on the softmax outputs,
// times its setting throwaway_scale.
type throwawayL1 struct{ scale float64 }

func (throwawayL1) Head() loss.Head { return loss.HeadSoftmax }

func (l throwawayL1) Loss(out []float64, C int, bags []loss.BagRef, grad []float64) (float64, error) {
	var total float64
	start := 0
	for _, b := range bags {
		m := len(b.Indices)
		for c := 0; c < C; c++ {
			mean := 0.0
			for i := start; i < start+m; i++ {
				mean += out[i*C+c] / float64(m)
			}
			d := mean - b.Proportions[c]
			total += abs(d) / float64(len(bags))
			sign := 0.0
			if d > 0 {
				sign = 1
			} else if d < 0 {
				sign = -1
			}
			for i := start; i < start+m; i++ {
				grad[i*C+c] = l.scale * sign / float64(m*len(bags))
			}
		}
		start += m
	}
	return l.scale * total, nil
}

// throwawayScale is the throwaway method's own setting, declared in its
// descriptor alone.
var throwawayScale = methods.Setting{Name: "throwaway_scale", Kind: methods.KindFloat, Default: "1", Min: 0, MinExcluded: true, Max: 10,
	Help: "a factor on the throwaway loss (a test's)"}

// throwawaySeen is the scale the throwaway objective was last built with.
var throwawaySeen float64

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// registerThrowaway registers the throwaway bag objective, as a new method
// is registered (one RegisterBag call: its descriptor declares no plot
// style, an order among the baselines', the default search space and a
// setting of its own), and removes it when t ends.
func registerThrowaway(t *testing.T) {
	t.Helper()
	methods.RegisterBag(methods.Descriptor{Name: throwawayName, Label: "Throwaway-L1", Order: 75, DefaultBatch: 4,
		Search: methods.DefaultSearch, Paper: "a test's throwaway method", Settings: []*methods.Setting{&throwawayScale},
		Help: "the L1 distance between each bag's proportions and its mean predicted distribution (a test's)"},
		methods.BagSpec{Objective: func(env *methods.Env) (loss.BagObjective, error) {
			throwawaySeen = env.Config.Setting(throwawayScale.Name).Num
			return throwawayL1{scale: throwawaySeen}, nil
		}})
	t.Cleanup(func() { methods.Unregister(throwawayName) })
}

// builtinCellKeys are the cell keys of every built-in grid, by grid.
func builtinCellKeys(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, name := range grid.BuiltinNames() {
		s, ok := grid.BuiltinSpec(name)
		require.True(t, ok, name)
		cells, err := s.Cells()
		require.NoError(t, err, name)
		for _, c := range cells {
			out[name] = append(out[name], c.Key)
		}
	}
	return out
}

// TestANewMethodChangesNothingCommitted: registering a method changes nothing
// under results/. With a throwaway bag objective registered beside the
// built-in methods, every built-in grid has the cells it had without it
// (the same keys, in the same order: a grid names its methods, none joins
// by being registered), and every committed store's report — the tables
// and the plots, whose colours and markers are each method's own — is
// what llpfc report makes of it byte for byte (checkCommittedResults). The
// method is registered all the same: llpfc methods and train -h list it,
// and a spec may name it.
func TestANewMethodChangesNothingCommitted(t *testing.T) {
	before := builtinCellKeys(t)
	registerThrowaway(t)
	assert.Equal(t, before, builtinCellKeys(t), "registering a method changed a built-in grid's cells")
	checkCommittedResults(t)

	var stdout, stderr bytes.Buffer
	require.Equal(t, exitOK, dispatch([]string{"methods", "--markdown"}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stdout.String(), fmt.Sprintf("| `%s` | Throwaway-L1 | bag | 4 bags |", throwawayName))
	stdout.Reset()
	dispatch([]string{"train", "-h"}, &stdout, &stdout)
	assert.Contains(t, stdout.String(), ", "+throwawayName+" (4)", "--batch-size's help")
	js := strings.Replace(`{"name": "t", "learner": "gorgonia", "model": "mlp", "datasets": ["gmm:classes=3,dim=4,train=200,test=50,sep=3"],
		"methods": ["M"], "bag_sizes": [8], "num_points": 160, "seeds": [0], "protocol": "shuffle",
		"hyper": {"epochs": 1, "optimizer": "adam", "lr": 0.001, "schedule": {"kind": "constant"}}}`, "M", throwawayName, 1)
	s, err := grid.ParseSpec("t.json", strings.NewReader(js))
	require.NoError(t, err)
	cells, err := s.Cells()
	require.NoError(t, err)
	require.Len(t, cells, 1)
	assert.Equal(t, 4, cells[0].Config.Hyper.BatchSize, "a spec that leaves the minibatch out gets the method's default")
}

// TestANewMethodsSettingReachesFlagSpecKeyAndResult: the throwaway method's
// setting, declared in its descriptor and nowhere else, is an llpfc train
// flag (--throwaway-scale, checked at the edge: out of range or for another
// method, exit 2 naming it), a spec field (hyper.settings.throwaway_scale),
// a part of the cell's key (its default is not: the key of the run without
// the flag), the value the method's objective is built with in the run, a
// field of the result's configuration, and a line of llpfc methods --json.
func TestANewMethodsSettingReachesFlagSpecKeyAndResult(t *testing.T) {
	registerThrowaway(t)
	args := []string{"train", "--data", "gmm:classes=3,dim=4,train=200,test=50,sep=3", "--method", throwawayName,
		"--bag-size", "8", "--num-points", "160", "--epochs", "1", "--quiet", "--json"}
	var stdout, stderr bytes.Buffer
	for _, bad := range [][]string{{"--throwaway-scale", "0"}, {"--throwaway-scale", "11"}, {"--throwaway-scale", "2", "--method", "kl"}} {
		stderr.Reset()
		assert.Equal(t, exitBadUsage, dispatch(append(append([]string(nil), args...), bad...), io.Discard, &stderr), "%v", bad)
		assert.Contains(t, stderr.String(), "--throwaway-scale", "%v", bad)
	}
	plain, status := parseTrain(append(append([]string(nil), args[1:]...), "--throwaway-scale", "1"), io.Discard)
	require.Equal(t, exitOK, status)
	assert.Nil(t, plain.cell.Hyper.Settings, "the default, not stated")

	stdout.Reset()
	require.Equal(t, exitOK, dispatch(append(args, "--throwaway-scale", "2.5"), &stdout, &stderr), stderr.String())
	assert.Equal(t, 2.5, throwawaySeen, "the objective of the run")
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var res struct {
		Key    string
		Config experiments.Config
	}
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &res))
	assert.Equal(t, methods.Values{"throwaway_scale": methods.NumValue(2.5)}, res.Config.Hyper.Settings)
	assert.Equal(t, res.Config.Key(), res.Key)
	assert.NotEqual(t, plain.cell.Key(), res.Key)

	// The same cell as a spec writes it: the run's hyper as JSON, its
	// setting under "settings".
	c := res.Config
	hyper, err := json.Marshal(c.Hyper)
	require.NoError(t, err)
	assert.Contains(t, string(hyper), `"settings":{"throwaway_scale":2.5}`)
	spec := fmt.Sprintf(`{"name": "t", "learner": %q, "model": %q, "datasets": [%q], "methods": [%q], "bag_sizes": [%d],
		"num_points": %d, "seeds": [%d], "protocol": %q, "normalize": %q, "hyper": %s}`,
		c.Learner, c.Model, c.Dataset, c.Method, c.BagSize, c.NumPoints, c.Seed, c.Protocol, c.Normalize, hyper)
	s, err := grid.ParseSpec("t.json", strings.NewReader(spec))
	require.NoError(t, err)
	cells, err := s.Cells()
	require.NoError(t, err)
	assert.Equal(t, res.Key, cells[0].Key, "the spec's cell is the flags' run")

	stdout.Reset()
	require.Equal(t, exitOK, dispatch([]string{"methods", "--json"}, &stdout, &stderr))
	assert.Contains(t, stdout.String(), `"name": "throwaway_scale",
        "kind": "float",
        "default": "1",
        "want": "a number in (0, 10]",`)
	assert.Contains(t, stdout.String(), `"flag": "--throwaway-scale"`)
	assert.Contains(t, stdout.String(), `"path": "hyper.settings.throwaway_scale"`)
}
