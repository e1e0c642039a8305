package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// TestBiasGradIsChannelByChannel: for generated batches, channel counts
// (below, at and past multiples of the four chains) and plane sizes,
// biasGrad over any range of channels writes bit for bit what one channel
// at a time writes — each plane summed value by value in the element type,
// the planes added image by image — in float32 and float64, with values
// whose order of addition decides their rounding.
func TestBiasGradIsChannelByChannel(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 300
	p := gopter.NewProperties(params)
	p.Property("same bits", prop.ForAll(func(n, o, hw, lo int, seed uint64) bool {
		lo = min(lo, o)
		return sameBiasGrad[float32](n, o, hw, lo, seed) && sameBiasGrad[float64](n, o, hw, lo, seed)
	}, gen.IntRange(0, 6), gen.IntRange(1, 19), gen.IntRange(1, 40), gen.IntRange(0, 5), gen.UInt64()))
	p.TestingRun(t)
}

func sameBiasGrad[F float](n, o, hw, lo int, seed uint64) bool {
	r := rand.New(rand.NewPCG(seed, 9))
	dy := make([]F, n*o*hw)
	for i := range dy {
		dy[i] = F(r.NormFloat64() * math.Pow(2, float64(r.IntN(40)-20)))
	}
	want := make([]F, o)
	for c := lo; c < o; c++ {
		var t F
		for i := 0; i < n; i++ {
			var s F
			for _, v := range dy[i*o*hw+c*hw : i*o*hw+(c+1)*hw] {
				s += v
			}
			t += s
		}
		want[c] = t
	}
	got := make([]F, o)
	biasGrad(got, dy, n, hw, o*hw, lo, o)
	for c := range got {
		if math.Float64bits(float64(got[c])) != math.Float64bits(float64(want[c])) {
			return false
		}
	}
	return true
}
