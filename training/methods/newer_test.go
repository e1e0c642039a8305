package methods

import (
	"math"
	"testing"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/device/cpu"
	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/llpfc/llpfc/training/optim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
)

// newerEnv builds an Env for the mlp on 2-feature data with bags of the
// given sizes and labels (their proportions computed from them).
func newerEnv(t *testing.T, labels [][]int, C int) *Env {
	t.Helper()
	set := &estimators.BagSet{NumClasses: C}
	n := 0
	for b, ls := range labels {
		bag := estimators.Bag{ID: b, Size: len(ls), Proportions: make([]float64, C)}
		for _, y := range ls {
			bag.Indices = append(bag.Indices, n)
			bag.Proportions[y] += 1 / float64(len(ls))
			n++
		}
		set.Bags = append(set.Bags, bag)
	}
	spec := nn.ModelSpec{Name: models.ModelMLP, Features: 2, NumClasses: C}
	g := gorgonia.NewGraph()
	m, err := models.NewModel(g, spec, rng.New(1, "init"))
	require.NoError(t, err)
	cfg := Config{Method: LLPPVC, Model: spec, Optimizer: optim.Config{Name: "sgd", LR: 1e-3}, BatchSize: 1, Epochs: 1, ChunkSize: DefaultChunkSize}
	return &Env{Config: &cfg, Data: &TrainData{X: make([]float32, 2*n), Features: 2, Bags: set}, Spec: spec, Graph: g, Model: m, Backend: cpu.New()}
}

// TestEasyLLPPriorIsTheClassFrequency: EasyLLP's prior is the class
// frequency of the training instances, computed from the bags' proportions
// weighted by their sizes (bags of 1, 3 and 6 instances: counted by hand,
// 4 of class 0, 3 of 1, 3 of 2).
func TestEasyLLPPriorIsTheClassFrequency(t *testing.T) {
	env := newerEnv(t, [][]int{{0}, {1, 1, 2}, {0, 0, 0, 1, 2, 2}}, 3)
	assert.InDeltaSlice(t, []float64{0.4, 0.3, 0.3}, bagPrior(env), 1e-15)
}

// TestLLPPVCOutputStartsAtOneOverC: LLP-PVC starts the output bias at
// −log(C−1), so every sigmoid output of a zero input starts at 1/C (the
// authors' init_fc_bias_sigmoid_to_1_over_k; the mlp's earlier layers'
// biases are small but not zero, so the output is checked at the bias).
func TestLLPPVCOutputStartsAtOneOverC(t *testing.T) {
	for _, C := range []int{2, 3, 10} {
		env := newerEnv(t, [][]int{{0, 1}, {1, 1}}, C)
		m, err := MustLookup(LLPPVC).New(env)
		require.NoError(t, err)
		m.Close()
		ps := env.Model.Learnables()
		b := ps[len(ps)-1].Value().Data().([]float32)
		require.Len(t, b, C)
		for _, v := range b {
			assert.InDelta(t, 1/float64(C), 1/(1+math.Exp(-float64(v))), 1e-7, "C %d", C)
		}
	}
}
