package models

import (
	"fmt"
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/internal/testutil"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// dropoutRun builds two dropout layers of probability p on a tensor of
// ones, ∂(Σ y₀)/∂x beside them, and returns a function that runs the tape
// and returns (y₀, y₁, ∂/∂x).
func dropoutRun(t *testing.T, dt tensor.Dtype, p float64, units int) (*netState, func() (y0, y1, dx []float64)) {
	t.Helper()
	g := gorgonia.NewGraph()
	s := &netState{g: g, dt: dt}
	x := gorgonia.NewTensor(g, dt, 2, gorgonia.WithShape(units/100, 100), gorgonia.WithName("x"),
		gorgonia.WithValue(nn.ConstTensor(dt, tensor.Shape{units / 100, 100}, 1)))
	y0, err := s.dropout(x, p, true)
	require.NoError(t, err)
	y1, err := s.dropout(x, p, true)
	require.NoError(t, err)
	cost, err := gorgonia.Sum(y0)
	require.NoError(t, err)
	dx, err := nn.Grad(cost, x)
	require.NoError(t, err)
	assert.Empty(t, s.Masks(), "the masks are no inputs")
	return s, func() ([]float64, []float64, []float64) {
		vm := gorgonia.NewTapeMachine(g)
		defer vm.Close()
		require.NoError(t, vm.RunAll())
		return testutil.Values(t, y0), testutil.Values(t, y1), testutil.Values(t, dx[0])
	}
}

// TestDropoutMaskIsInvertedDropout checks the masks against
// torch.nn.Dropout's documented semantics (inverted dropout): in training
// each unit is zeroed with probability p and the kept ones are scaled by
// 1/(1−p), so E[mask] = 1. Per dtype and p, over 40,000 units of a tensor
// of ones: every entry is 0 or exactly 1/(1−p); the share of zeros is p
// within 5 binomial standard deviations; the backward pass multiplies by
// the same mask (∂Σy/∂x = y, the mask computed again, not stored); the
// second layer's mask is another draw (the two agree on a share p² +
// (1−p)² of the units, within 5 standard deviations, not on all); before
// any Resample the layers are the identity. A mask with its scale
// forgotten, one that keeps a unit with probability p, a backward pass
// with another mask and two layers sharing one mask all fail.
func TestDropoutMaskIsInvertedDropout(t *testing.T) {
	const units = 40000
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		for _, p := range []float64{0.2, 0.3, 0.5} {
			t.Run(fmt.Sprintf("%v_p=%g", dt, p), func(t *testing.T) {
				s, run := dropoutRun(t, dt, p, units)
				y0, _, dx := run()
				for i := range y0 {
					require.Equal(t, 1.0, y0[i], "before Resample: unit %d", i)
					require.Equal(t, 1.0, dx[i], "before Resample: gradient %d", i)
				}
				s.Resample(rng.New(2, "dropout"))
				y0, y1, dx := run()
				require.Len(t, y0, units)
				scale := 1 / (1 - p)
				if dt == tensor.Float32 {
					scale = float64(float32(scale))
				}
				zeros, agree := 0, 0
				for i, v := range y0 {
					switch v {
					case 0:
						zeros++
					case scale:
					default:
						t.Fatalf("mask[%d] = %v, want 0 or 1/(1−p) = %v", i, v, scale)
					}
					require.Equal(t, v, dx[i], "∂Σy/∂x[%d] = %v, the forward mask %v", i, dx[i], v)
					if (y1[i] == 0) == (v == 0) {
						agree++
					}
				}
				sd := math.Sqrt(units * p * (1 - p))
				assert.InDelta(t, p*units, float64(zeros), 5*sd, "zeros %d of %d, want p·n = %v", zeros, units, p*units)
				q := p*p + (1-p)*(1-p)
				assert.InDelta(t, q*units, float64(agree), 5*math.Sqrt(units*q*(1-q)), "layers 0 and 1 agree on %d of %d units", agree, units)
			})
		}
	}
}

// TestDropoutMasksFollowTheStream: the masks are a function of the
// stream's draws — the same stream state gives the same masks, the next
// draw (the next step) other masks.
func TestDropoutMasksFollowTheStream(t *testing.T) {
	s, run := dropoutRun(t, tensor.Float32, 0.5, 1000)
	s.Resample(rng.New(7, "dropout"))
	a, _, _ := run()
	s.Resample(rng.New(7, "dropout"))
	b, _, _ := run()
	assert.Equal(t, a, b, "the same stream state, other masks")
	r := rng.New(7, "dropout")
	r.Uint64()
	s.Resample(r)
	c, _, _ := run()
	assert.NotEqual(t, a, c, "the next step's draw gave the same masks")
}
