package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/methods"
)

// throwawayName is the method TestANewMethodChangesNothingCommitted
// registers for the length of one test.
const throwawayName = "throwaway-l1"

// throwawayL1 is the throwaway method's objective: the L1 distance between
// each bag's mean predicted distribution and its proportions, averaged over
// the minibatch's bags (a subgradient at ties), on the softmax outputs.
type throwawayL1 struct{}

func (throwawayL1) Head() loss.Head { return loss.HeadSoftmax }

func (throwawayL1) Loss(out []float64, C int, bags []loss.BagRef, grad []float64) (float64, error) {
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
				grad[i*C+c] = sign / float64(m*len(bags))
			}
		}
		start += m
	}
	return total, nil
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// registerThrowaway registers the throwaway bag objective, as a new method
// is registered (one RegisterBag call: its descriptor declares no plot
// style, an order among the baselines' and the default search space), and
// removes it when t ends.
func registerThrowaway(t *testing.T) {
	t.Helper()
	methods.RegisterBag(methods.Descriptor{Name: throwawayName, Label: "Throwaway-L1", Order: 75, DefaultBatch: 4,
		Search: methods.DefaultSearch, Paper: "a test's throwaway method",
		Help: "the L1 distance between each bag's proportions and its mean predicted distribution (a test's)"},
		methods.BagSpec{Objective: func(*methods.Env) (loss.BagObjective, error) { return throwawayL1{}, nil }})
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
