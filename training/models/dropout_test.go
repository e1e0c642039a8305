package models

import (
	"fmt"
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/internal/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestDropoutMaskIsInvertedDropout checks the masks Resample draws against
// torch.nn.Dropout's documented semantics (inverted dropout): in training
// each unit is zeroed with probability p and the kept ones are scaled by
// 1/(1−p), so E[mask] = 1. Per dtype and p, over 40,000 units, every entry is
// 0 or exactly 1/(1−p), and the share of zeros is p within 5 binomial
// standard deviations; a mask with its scale forgotten, or one that keeps a
// unit with probability p, fails.
func TestDropoutMaskIsInvertedDropout(t *testing.T) {
	const units = 40000
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		for _, p := range []float64{0.2, 0.3, 0.5} {
			t.Run(fmt.Sprintf("%v_p=%g", dt, p), func(t *testing.T) {
				g := gorgonia.NewGraph()
				s := &netState{g: g, dt: dt}
				x := testutil.RandInput(g, dt, "x", tensor.Shape{units / 100, 100}, rng.New(1, "x"))
				_, err := s.dropout(x, p, true)
				require.NoError(t, err)
				require.Len(t, s.Masks(), 1)
				s.Resample(rng.New(2, "dropout"))
				vals := testutil.Values(t, s.Masks()[0])
				require.Len(t, vals, units)
				scale := 1 / (1 - p)
				zeros := 0
				for i, v := range vals {
					switch {
					case v == 0:
						zeros++
					case math.Abs(v-scale) > 1e-6*scale:
						t.Fatalf("mask[%d] = %v, want 0 or 1/(1−p) = %v", i, v, scale)
					}
				}
				sd := math.Sqrt(units * p * (1 - p))
				assert.InDelta(t, p*units, float64(zeros), 5*sd, "zeros %d of %d, want p·n = %v", zeros, units, p*units)
			})
		}
	}
}
