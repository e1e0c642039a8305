package opencl_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
)

// TestDropoutKeyReadAtEachRun: a program compiled once computes each run's
// masks from the key as it is when the run is enqueued — the model's
// Resample sets it after Compile, before every step — bit for bit as the
// CPU's nn.DropoutApply with that key (forward, and the backward pass's
// mask computed again), with nothing uploaded; a key never set is the
// identity. A key read at compile time trains the device without dropout.
func TestDropoutKeyReadAtEachRun(t *testing.T) {
	be := openBackend(t)
	g := gorgonia.NewGraph()
	r := rand.New(rand.NewPCG(3, 4))
	x := tensorOf(g, r, "x", -2, 2, 3, 5, 7)
	key := nn.NewDropoutKey()
	y := must(nn.Dropout(x, 0.4, key, 2))
	dx := grads(must(gorgonia.Sum(y)), x)[0]
	p, err := be.Compile(g, gorgonia.Nodes{y, dx}, device.Options{Params: gorgonia.Nodes{x}})
	require.NoError(t, err)
	defer p.Close()
	xs := x.Value().Data().([]float32)
	var last []float32
	for run, k := range []uint64{0, 0x0123456789abcdef, 42} {
		if run > 0 {
			key.Set(k)
		}
		before := be.Costs()
		require.NoError(t, p.Run())
		assert.Zero(t, be.Costs().Sub(before).BytesHtoD, "run %d uploaded", run)
		got := values(t, p, y)
		gotDx := values(t, p, dx)
		m := nn.DropoutMask{Threshold: 0, Scale: 1}
		if run > 0 {
			m = nn.DropoutMask{Key: [2]uint32{uint32(k), uint32(k >> 32)}, Layer: 2, Threshold: nn.DropoutThreshold(0.4), Scale: 1 / 0.6}
		}
		want := make([]float32, len(xs))
		nn.DropoutApply(m, xs, want)
		ones := make([]float32, len(xs))
		for i := range ones {
			ones[i] = 1
		}
		wantDx := make([]float32, len(xs))
		nn.DropoutApply(m, ones, wantDx)
		for i := range want {
			require.Equal(t, math.Float32bits(want[i]), math.Float32bits(got[i]), "run %d: y[%d] = %v, the CPU's %v", run, i, got[i], want[i])
			require.Equal(t, math.Float32bits(wantDx[i]), math.Float32bits(gotDx[i]), "run %d: ∂Σy/∂x[%d] = %v, the CPU's %v", run, i, gotDx[i], wantDx[i])
		}
		assert.NotEqual(t, last, got, "run %d: the same output as the run before under another key", run)
		last = got
	}
}

func values(t *testing.T, p device.Program, n *gorgonia.Node) []float32 {
	t.Helper()
	v, err := p.Value(n)
	require.NoError(t, err)
	return append([]float32(nil), v.Data().([]float32)...)
}
