package training

import (
	"testing"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/stretchr/testify/assert"
)

// TestMinibatchWeightsBothCompats checks MinibatchWeights against what each
// mode's weights are for, over one epoch of n = 12 instances with random
// estimator weights ω in minibatches of B = 4:
//
//   - default (scale n/(Σω·B)): each weight is proportional to ω, and the
//     minibatches' weight sums average 1 over the epoch (Σ_epoch = n/B), so
//     a minibatch's loss is an unbiased estimate of the ω-weighted risk;
//   - compat original: each minibatch's weights are proportional to ω and
//     sum to exactly 1 (the authors' loss_f divides by their sum).
func TestMinibatchWeightsBothCompats(t *testing.T) {
	const n, B = 12, 4
	r := rng.New(3, "minibatch-weights")
	omega := make([]float64, n)
	var sum float64
	for i := range omega {
		omega[i] = 0.1 + 3*r.Float64()
		sum += omega[i]
	}
	scale := float64(n) / sum / float64(B)
	for _, compat := range []estimators.Compat{estimators.CompatPaper, estimators.CompatOriginal} {
		var epoch float64
		for start := 0; start < n; start += B {
			dst := make([]float32, B)
			MinibatchWeights(dst, func(k int) float64 { return omega[start+k] }, scale, compat)
			var batch float64
			for k, v := range dst {
				batch += float64(v)
				ratio := float64(v) / omega[start+k]
				first := float64(dst[0]) / omega[start]
				assert.InEpsilon(t, first, ratio, 1e-6, "%v: weight %d not proportional to ω", compat, start+k)
			}
			if compat == estimators.CompatOriginal {
				assert.InDelta(t, 1, batch, 1e-6, "compat original: minibatch at %d sums to %v, want 1", start, batch)
			}
			epoch += batch
		}
		if compat != estimators.CompatOriginal {
			assert.InDelta(t, float64(n)/B, epoch, 1e-5, "default: the epoch's weights sum to %v, want n/B = %v", epoch, float64(n)/B)
		}
	}
}
