package training

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/llpfc/llpfc/estimators"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withoutBags returns data without the bags of the given ids.
func withoutBags(data *TrainData, ids []int) *TrainData {
	drop := map[int]bool{}
	for _, id := range ids {
		drop[id] = true
	}
	out := *data
	set := *data.Bags
	set.Bags = nil
	for _, b := range data.Bags.Bags {
		if !drop[b.ID] {
			set.Bags = append(set.Bags, b)
		}
	}
	out.Bags = &set
	return &out
}

// TestValBagsAreNeverTrainedOn: with a quarter of the bags held
// out, training gives bit for bit the network of training on the other
// bags alone; every epoch records the held-out bags' validation KL and
// proportion error, and the last epoch's equal what a Predictor of the
// saved network gives those bags by the definitions (KL(γ‖p̄+ε), ‖p̄ − γ‖₁).
func TestValBagsAreNeverTrainedOn(t *testing.T) {
	data := imageLLP(t, 8, 12, 8, 3)
	cfg := baseConfig(MethodLLPFCUniform)
	cfg.ValBags, cfg.KeepModel = 0.25, true
	res, err := Train(context.Background(), cfg, data, nil)
	require.NoError(t, err)
	require.Len(t, res.ValBagIDs, 3, "a quarter of 12 bags")
	cfg.ValBags = 0
	alone, err := Train(context.Background(), cfg, withoutBags(data, res.ValBagIDs), nil)
	require.NoError(t, err)
	assert.Equal(t, alone.Params, res.Params, "held-out bags changed training")
	assert.Equal(t, alone.TestAccuracy, res.TestAccuracy)
	for _, h := range res.History {
		require.NotNil(t, h.ValKL, "epoch %d", h.Epoch)
		assert.GreaterOrEqual(t, *h.ValKL, 0.0)
		assert.GreaterOrEqual(t, *h.ValPropError, 0.0)
	}
	assert.Nil(t, alone.History[0].ValKL, "no held-out bags, no validation")

	pr, err := NewPredictor(res.Model, "", 16)
	require.NoError(t, err)
	defer pr.Close()
	probs, err := pr.Probabilities(context.Background(), data.X)
	require.NoError(t, err)
	C := data.Bags.NumClasses
	var kl, pe float64
	held := withoutBags(data, nil)
	var val []estimators.Bag
	for _, b := range held.Bags.Bags {
		for _, id := range res.ValBagIDs {
			if b.ID == id {
				val = append(val, b)
			}
		}
	}
	for _, b := range val {
		for c, g := range b.Proportions {
			var m float64
			for _, i := range b.Indices {
				m += probs[i*C+c]
			}
			m /= float64(len(b.Indices))
			pe += math.Abs(m - g)
			if g > 0 {
				kl += g * math.Log(g/(m+1e-12))
			}
		}
	}
	last := res.History[len(res.History)-1]
	assert.InDelta(t, kl/3, *last.ValKL, 1e-9)
	assert.InDelta(t, pe/3, *last.ValPropError, 1e-9)
}

// TestSelectBestVal: best-val reports the epoch of the lowest validation
// KL, and its network and test accuracy are those of a run stopped after
// that epoch; a run interrupted and resumed from its checkpoint selects
// the same; bad settings are refused naming them.
func TestSelectBestVal(t *testing.T) {
	// Two overlapping features and a large rate: the validation loss goes
	// down and up again, so an earlier epoch than the last is selected.
	data := synthLLP(t, 3, 2, 12, 8, 30, 5)
	cfg := baseConfig(MethodLLPFCUniform)
	cfg.Epochs, cfg.ValBags, cfg.Select = 6, 3, SelectBestVal
	cfg.Optimizer.LR = 0.02
	res, err := Train(context.Background(), cfg, data, nil)
	require.NoError(t, err)
	best := 0
	for e, h := range res.History {
		if *h.ValKL < *res.History[best].ValKL {
			best = e
		}
	}
	assert.Equal(t, best, res.SelectedEpoch)
	require.Less(t, best, cfg.Epochs-1, "the case should select an earlier epoch than the last; validation KL %v", valKLs(res.History))
	short := cfg
	short.Epochs, short.Select = best+1, SelectLast
	stopped, err := Train(context.Background(), short, data, nil)
	require.NoError(t, err)
	assert.Equal(t, stopped.Params, res.Params, "the selected network is epoch %d's", best)
	assert.Equal(t, stopped.TestAccuracy, res.TestAccuracy)
	t.Logf("selected epoch %d of %d; validation KL by epoch %v", best, cfg.Epochs, valKLs(res.History))

	path := filepath.Join(t.TempDir(), "ck.gob")
	part := cfg
	part.Checkpoint = path
	ctx, cancel := context.WithCancel(context.Background())
	steps := 0
	_, err = Train(ctx, part, data, func(ev ProgressEvent) {
		if ev.EpochDone {
			if steps++; steps == 3 {
				cancel()
			}
		}
	})
	require.Error(t, err)
	part.Resume = true
	resumed, err := Train(context.Background(), part, data, nil)
	require.NoError(t, err)
	assert.Equal(t, res.SelectedEpoch, resumed.SelectedEpoch)
	assert.Equal(t, res.Params, resumed.Params)

	for _, bad := range []Config{{ValBags: -1}, {ValBags: 2.5}, {Select: SelectBestVal}} {
		c := baseConfig(MethodLLPFCUniform)
		c.ValBags, c.Select = bad.ValBags, bad.Select
		_, err := Train(context.Background(), c, data, nil)
		var in *InputError
		assert.ErrorAs(t, err, &in, "%+v", bad)
	}
	c := baseConfig(MethodLLPFCUniform)
	c.ValBags = 12
	_, err = Train(context.Background(), c, data, nil)
	assert.ErrorContains(t, err, "one left to train on")
}

func valKLs(h []EpochStats) []float64 {
	var v []float64
	for _, s := range h {
		v = append(v, math.Round(*s.ValKL*1e4)/1e4)
	}
	return v
}
