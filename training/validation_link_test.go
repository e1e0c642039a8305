package training

import (
	"context"
	"math"
	"testing"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/training/loss"
	"github.com/stretchr/testify/require"
)

// TestValidationReadsTheMethodsProbabilities holds the held-out bags' score
// to the probabilities each method trains (methods.Descriptor.Output): the
// validation KL a run records is recomputed here, by hand, from the trained
// network's logits — per-class sigmoids for LLP-PVC, the softmax for KL —
// and the other reading of the same logits must give another number, so
// that a score read from the wrong output fails.
func TestValidationReadsTheMethodsProbabilities(t *testing.T) {
	data := synthLLP(t, 3, 5, 16, 10, 30, 5)
	for _, c := range []struct {
		method  string
		sigmoid bool
	}{{"llppvc", true}, {"kl", false}} {
		cfg := baseConfig(c.method)
		cfg.BatchSize, cfg.Epochs, cfg.ValBags, cfg.KeepModel = 2, 2, 4, true
		res, err := Train(context.Background(), cfg, data, nil)
		require.NoError(t, err, c.method)
		got := *res.History[len(res.History)-1].ValKL

		p, err := NewPredictor(res.Model, "", 0)
		require.NoError(t, err)
		n, C := len(data.X)/data.Features, data.Bags.NumClasses
		logits := make([]float32, n*C)
		require.NoError(t, p.ev.forEachBatch(context.Background(), data.X, func(start, end int, z []float32) {
			copy(logits[start*C:end*C], z[:(end-start)*C])
		}))
		p.Close()
		var val []estimators.Bag
		for _, id := range res.ValBagIDs {
			for _, b := range data.Bags.Bags {
				if b.ID == id {
					val = append(val, b)
				}
			}
		}
		require.Len(t, val, 4)
		score := func(sigmoid bool) float64 {
			var kl float64
			for _, b := range val {
				mean := make([]float64, C)
				for _, i := range b.Indices {
					z := logits[i*C : (i+1)*C]
					var s, zmax float64 = 0, math.Inf(-1)
					for _, v := range z {
						zmax = math.Max(zmax, float64(v))
					}
					for _, v := range z {
						s += math.Exp(float64(v) - zmax)
					}
					for k, v := range z {
						if sigmoid {
							mean[k] += 1 / (1 + math.Exp(-float64(v)))
						} else {
							mean[k] += math.Exp(float64(v)-zmax) / s
						}
					}
				}
				var tot float64
				for k := range mean {
					mean[k] /= float64(len(b.Indices))
					tot += mean[k]
				}
				for k, g := range b.Proportions {
					if g > 0 {
						kl += g * math.Log(g/(mean[k]/tot+loss.KLFloor))
					}
				}
			}
			return kl / float64(len(val))
		}
		want, other := score(c.sigmoid), score(!c.sigmoid)
		require.InDelta(t, want, got, 1e-9*math.Max(1, want), "%s: recorded validation KL %v, by hand %v", c.method, got, want)
		require.Greater(t, math.Abs(other-want), 1e-4, "%s: the two readings of the logits agree (%v, %v): the test cannot tell them apart", c.method, want, other)
	}
}
