package grid_test

import (
	"context"
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/experiments/internal/gridtest"
	"github.com/llpfc/llpfc/experiments/learn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunnerDevice: the learner gets the spec's device, or the runner's
// when set; the device is not part of a cell's key; a spec naming an
// unknown back end is refused at validation.
func TestRunnerDevice(t *testing.T) {
	got := map[string]int{}
	experiments.RegisterLearner("test-device", experiments.LearnerFunc(func(ctx context.Context, c experiments.Cell, p experiments.Progress) (experiments.Metrics, error) {
		got[c.Device]++
		m, err := learn.LogReg{}.Train(ctx, c, p)
		m.Device = c.Device
		return m, err
	}))
	s := gridtest.Tiny(t)
	s.Learner = "test-device"
	keys := func() []string {
		cells, err := s.Cells()
		require.NoError(t, err)
		var ks []string
		for _, c := range cells {
			ks = append(ks, c.Key)
		}
		return ks
	}
	before := keys()
	s.Device = "cpu"
	assert.Equal(t, before, keys(), "the device is not part of the key")
	st, _ := grid.OpenStore(t.TempDir())
	_, err := (&grid.Runner{Store: st}).Run(context.Background(), s)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"cpu": 12}, got)
	st2, _ := grid.OpenStore(t.TempDir())
	_, err = (&grid.Runner{Store: st2, Device: "test-elsewhere"}).Run(context.Background(), s)
	require.NoError(t, err)
	assert.Equal(t, 12, got["test-elsewhere"], "the runner's device wins")
	rs, err := st2.All()
	require.NoError(t, err)
	require.NotEmpty(t, rs)
	assert.Equal(t, "test-elsewhere", rs[0].Metrics.Device, "the result records the device")

	s.Device = "tpu"
	err = s.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "device")
	assert.Contains(t, err.Error(), "tpu")
}
