package training

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/llpfc/llpfc/estimators"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ckFixtureData is the training set the committed checkpoint
// testdata/checkpoint-180ab95.gob was written with (the checkpoint records
// its hash): 6 bags of 4 instances of 3 features, given by a formula.
func ckFixtureData() *TrainData {
	const n, d, c, m = 24, 3, 2, 4
	x := make([]float32, n*d)
	for i := range x {
		x[i] = float32((i*37)%11) / 11
	}
	bs := &estimators.BagSet{NumClasses: c}
	for b := 0; b < n/m; b++ {
		bag := estimators.Bag{ID: b, Size: m, Proportions: []float64{float64(b%3+1) / 4, 1 - float64(b%3+1)/4}}
		for i := 0; i < m; i++ {
			bag.Indices = append(bag.Indices, b*m+i)
		}
		bs.Bags = append(bs.Bags, bag)
	}
	return &TrainData{X: x, Features: d, Bags: bs, TestX: x[:6*d], TestY: []int{0, 1, 0, 1, 0, 1}}
}

// TestCheckpointFromBeforeTheSplitResumes: a checkpoint written by the code
// before training/ was split into rooms (commit 180ab95: 2 epochs of
// llpfc-uniform with Adam on test-tiny, its optimizer state then named
// training.OptimizerState) is read by today's code, and resuming it to 4
// epochs gives bit for bit the parameters of an uninterrupted 4-epoch run —
// so the parameters, Adam's moments and step count and the history were all
// restored (old checkpoints stay readable).
func TestCheckpointFromBeforeTheSplitResumes(t *testing.T) {
	old, err := os.ReadFile(filepath.Join("testdata", "checkpoint-180ab95.gob"))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "checkpoint.gob")
	require.NoError(t, os.WriteFile(path, old, 0o644))
	cfg := Config{Method: MethodLLPFCUniform, Model: ModelSpec{Name: "test-tiny"}, Optimizer: OptimizerConfig{Name: "adam", LR: 1e-2}, BatchSize: 8, Epochs: 4, Seed: 3}
	whole, err := Train(context.Background(), cfg, ckFixtureData(), nil)
	require.NoError(t, err)
	cfg.Checkpoint, cfg.Resume = path, true
	resumed, err := Train(context.Background(), cfg, ckFixtureData(), nil)
	require.NoError(t, err)
	require.Len(t, resumed.History, 4, "the checkpoint's two epochs and the two trained now")
	assert.Equal(t, whole.Params, resumed.Params, "resumed from the old checkpoint vs uninterrupted")
	assert.Equal(t, whole.History[1].Loss, resumed.History[1].Loss, "epoch 1's loss, read from the old checkpoint's history")
}
