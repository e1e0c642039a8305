package loss

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// authorsRampupWeight transcribes the LLPFC authors' get_rampup_weight and
// sigmoid_rampup (llpvatlib/train_fun.py@1d0cbc5) with numpy's clip
// semantics, np.clip(x, lo, hi) = min(max(x, lo), hi), which llp_loss_f
// calls with weight 0.05 and rampup −1.
func authorsRampupWeight(weight float64, iteration int, rampup float64) float64 {
	if rampup == 0 {
		return weight
	}
	current := math.Min(math.Max(float64(iteration), 0), rampup)
	phase := 1 - current/rampup
	return weight * math.Exp(-5*phase*phase)
}

// The default VAT weight is what the authors' code computes at every step
// (a constant 0.05: their ramp-up length −1 disables the ramp-up); the
// llpvat schedule is LLP-VAT's own ramp-up, rising from near 0 to 0.05 over
// 40% of the steps; unknown names are refused.
func TestVATRampupSchedules(t *testing.T) {
	def, err := ParseVATRampup("")
	assert.NoError(t, err)
	assert.Equal(t, VATRampupAuthors, def)
	for _, step := range []int{0, 1, 99, 400, 999} {
		assert.Equal(t, authorsRampupWeight(0.05, step, -1), def.Weight(step, 1000), "step %d", step)
		assert.Equal(t, VATWeight(step, 1000), VATRampupLLPVAT.Weight(step, 1000), "step %d", step)
	}
	assert.Less(t, VATRampupLLPVAT.Weight(0, 1000), 0.001)
	assert.InDelta(t, 0.05, VATRampupLLPVAT.Weight(400, 1000), 1e-12)
	_, err = ParseVATRampup("linear")
	assert.ErrorContains(t, err, "linear")
}
