// Package gridtest holds the small grid that the tests of several rooms of
// experiments run: a logistic-regression grid on a Gaussian mixture (3
// methods × 2 bag sizes × 2 seeds = 12 cells, a few seconds), parsed and run
// into a store the way `llpfc run` does.
package gridtest

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/experiments/grid"
)

// TinySpecJSON is the grid "tiny" of the logreg learner: 3 methods × 2 bag
// sizes × 2 seeds = 12 cells.
const TinySpecJSON = `{
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

// Parse parses the spec js, failing the test on an error.
func Parse(t testing.TB, js string) *grid.Spec {
	t.Helper()
	s, err := grid.ParseSpec("test", strings.NewReader(js))
	require.NoError(t, err)
	return s
}

// Tiny is the grid of TinySpecJSON.
func Tiny(t testing.TB) *grid.Spec {
	t.Helper()
	return Parse(t, TinySpecJSON)
}

// Run runs shard of the grid Tiny into the store at dir, failing the test
// when the run or a cell fails.
func Run(t testing.TB, dir string, shard grid.Shard) grid.Summary {
	t.Helper()
	st, err := grid.OpenStore(dir)
	require.NoError(t, err)
	var log bytes.Buffer
	sum, err := (&grid.Runner{Store: st, Shard: shard, Log: &log}).Run(context.Background(), Tiny(t))
	require.NoErrorf(t, err, "run: %v\n%s", err, log.String())
	require.Emptyf(t, sum.Failed, "failed cells: %v", sum.Failed)
	return sum
}
