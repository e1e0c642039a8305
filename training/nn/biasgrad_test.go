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

// TestFillBiasWritesEveryValue: fillBias writes each channel's bias over
// every one of its hw values, whatever the buffer held (planes below 128
// values a value at a time, larger ones by doubling copies: both sides of
// the cut, powers of two and not), and returns the β the product then
// adds with; without a bias it writes nothing and returns 0.
func TestFillBiasWritesEveryValue(t *testing.T) {
	for _, hw := range []int{1, 4, 127, 128, 129, 196, 256, 784, 1023, 1024} {
		for _, channels := range []int{1, 3} {
			b := make([]float32, channels)
			for o := range b {
				b[o] = float32(o) - 0.75
			}
			y := make([]float32, channels*hw)
			for i := range y {
				y[i] = float32(i) + 100 // stale values
			}
			if beta := fillBias(y, b, hw); beta != 1 {
				t.Fatalf("hw=%d: β %v, want 1", hw, beta)
			}
			for i, v := range y {
				if v != b[i/hw] {
					t.Fatalf("hw=%d, %d channels: y[%d] = %v, want channel %d's bias %v", hw, channels, i, v, i/hw, b[i/hw])
				}
			}
			if beta := fillBias(y, nil, hw); beta != 0 {
				t.Fatalf("hw=%d, no bias: β %v, want 0", hw, beta)
			}
		}
	}
}
