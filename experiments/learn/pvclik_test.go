package learn

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/training"
)

// TestTrainingConfigPVCLikelihood: an llppvc cell's empty
// hyper.pvc_likelihood trains the FFT, as every llppvc cell stored before
// the setting existed was trained; "exact" and "fft" train what they name;
// another method's training config has none; the cell's validation refuses
// a name other than exact or fft, or the setting on another method, naming
// the field.
func TestTrainingConfigPVCLikelihood(t *testing.T) {
	for _, c := range []struct {
		method, set string
		want        training.PVCLikelihood
		err         string
	}{
		{"llppvc", "", training.PVCFFT, ""},
		{"llppvc", "fft", training.PVCFFT, ""},
		{"llppvc", "exact", training.PVCExact, ""},
		{"llppvc", "dp", 0, "LLP-PVC likelihood \"dp\": want exact or fft"},
		{"kl", "", 0, ""},
		{"kl", "exact", 0, "hyper.pvc_likelihood"},
	} {
		cell := miniCell(c.method).Config
		err := cell.Hyper.PVCLikelihood.UnmarshalText([]byte(c.set)) // where a spec enters
		if err == nil {
			err = cell.Validate()
		}
		if c.err != "" {
			assert.ErrorContains(t, err, c.err, "%s %q", c.method, c.set)
			continue
		}
		require.NoError(t, err, "%s %q", c.method, c.set)
		tc, err := TrainingConfig(cell)
		require.NoError(t, err, "%s %q", c.method, c.set)
		assert.Equal(t, c.want, tc.PVCLikelihood, "%s %q", c.method, c.set)
	}
}
