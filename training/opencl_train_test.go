package training

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/llpfc/llpfc/experiments/bagproto"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/internal/opencl/ocltest"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/llpfc/llpfc/training/optim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixtureLLP is n training images of the embedded Fashion-MNIST fixture in
// bags of bagSize (the paper's protocol) and its first nTest test images.
func fixtureLLP(t *testing.T, n, bagSize, nTest int) *TrainData {
	t.Helper()
	tr, err := data.Load("fixture", "", data.Train)
	require.NoError(t, err)
	te, err := data.Load("fixture", "", data.Test)
	require.NoError(t, err)
	p, err := bagproto.ParseProtocol("paper")
	require.NoError(t, err)
	bags, err := bagproto.Make(tr.Y, tr.NumClasses, bagproto.Config{Protocol: p, BagSize: bagSize, NumPoints: n, Seed: 1})
	require.NoError(t, err)
	return &TrainData{X: tr.X, Channels: tr.Channels, Height: tr.Height, Width: tr.Width, Bags: bags.Bags,
		TestX: te.X[:nTest*te.D], TestY: te.Y[:nTest]}
}

// TestOpenCLTrainsLikeTheCPU: one epoch of LLPFC-uniform with the mlp and
// with cnn-bn on the embedded Fashion-MNIST fixture (4,096 and 1,536
// training images in bags of 16, Adam) gives, with Config.Device
// "opencl", the CPU's test accuracy on 4,000 and 2,000 test images within
// one percentage point, and the epoch's loss within 1e-3 relative.
func TestOpenCLTrainsLikeTheCPU(t *testing.T) {
	ocltest.Require(t)
	if testing.Short() {
		t.Skip("trains two networks on the OpenCL device (-short)")
	}
	for _, c := range []struct {
		model    string
		n, nTest int
	}{{ModelMLP, 4096, 4000}, {ModelCNNBN, 1536, 2000}} {
		d := fixtureLLP(t, c.n, 16, c.nTest)
		cfg := Config{Method: MethodLLPFCUniform, Model: nn.ModelSpec{Name: c.model}, Optimizer: optim.Config{Name: "adam", LR: 1e-3},
			BatchSize: 64, Epochs: 1, Seed: 5, EvalBatch: 500}
		cpuRes, err := Train(context.Background(), cfg, d, nil)
		require.NoError(t, err)
		cfg.Device = ocltest.Device()
		oclRes, err := Train(context.Background(), cfg, d, nil)
		require.NoError(t, err)
		t.Logf("%s, one epoch: test accuracy CPU %.4f, OpenCL %.4f; loss CPU %.6f, OpenCL %.6f (%.1f s, %.1f s)", c.model,
			cpuRes.TestAccuracy, oclRes.TestAccuracy, cpuRes.FinalLoss, oclRes.FinalLoss, cpuRes.WallSeconds, oclRes.WallSeconds)
		assert.Greater(t, cpuRes.TestAccuracy, 0.3, "%s learns something in one epoch", c.model)
		assert.InDelta(t, cpuRes.TestAccuracy, oclRes.TestAccuracy, 0.01, c.model)
		assert.InDelta(t, cpuRes.FinalLoss, oclRes.FinalLoss, 1e-3*math.Abs(cpuRes.FinalLoss), c.model)
	}
}

// TestOpenCLCheckpointResume: Train on the OpenCL device resumes bit for
// bit from its own checkpoint (cnn-bn: batch-norm running statistics;
// Nesterov momentum: optimizer state); a checkpoint written on the CPU
// resumes on the device and one written on the device resumes on the CPU
// (the device is no field of a checkpoint, RunSettings).
func TestOpenCLCheckpointResume(t *testing.T) {
	ocltest.Require(t)
	data := imageLLP(t, 8, 8, 6, 4)
	cfg := baseConfig(MethodLLPFCUniform)
	cfg.Model = nn.ModelSpec{Name: ModelCNNBN}
	cfg.Optimizer = optim.Config{Name: "nesterov", LR: 0.05, Momentum: 0.9, WeightDecay: 5e-4}
	cfg.BatchSize, cfg.Epochs = 8, 2
	cfg.Device = ocltest.Device()
	whole, err := Train(context.Background(), cfg, data, nil)
	require.NoError(t, err)

	path := filepath.Join(t.TempDir(), "ck")
	half := cfg
	half.Epochs, half.Checkpoint = 1, path
	_, err = Train(context.Background(), half, data, nil)
	require.NoError(t, err)
	resumed := cfg
	resumed.Checkpoint, resumed.Resume = path, true
	res, err := Train(context.Background(), resumed, data, nil)
	require.NoError(t, err)
	sameParams(t, "resumed on the OpenCL device", whole.Params, res.Params)
	assert.Equal(t, whole.TestAccuracy, res.TestAccuracy)
	assert.NotContains(t, RunSettings(cfg, data), "device")

	// CPU checkpoint → OpenCL, OpenCL checkpoint → CPU.
	for _, dev := range [][2]string{{"cpu", ocltest.Device()}, {ocltest.Device(), "cpu"}} {
		p := filepath.Join(t.TempDir(), "ck")
		first := half
		first.Checkpoint, first.Device = p, dev[0]
		_, err := Train(context.Background(), first, data, nil)
		require.NoError(t, err)
		second := resumed
		second.Checkpoint, second.Device = p, dev[1]
		res, err := Train(context.Background(), second, data, nil)
		require.NoError(t, err, "%s → %s", dev[0], dev[1])
		require.Len(t, res.History, 2)
		assert.InDelta(t, whole.History[1].Loss, res.History[1].Loss, 1e-3*math.Abs(whole.History[1].Loss), "%s → %s: the second epoch's loss", dev[0], dev[1])
	}
}
