package nn

import (
	"math"
	"runtime"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/llpfc/llpfc/internal/philox"
	"github.com/stretchr/testify/assert"
)

// TestDropoutApplyIsTheMask: for generated lengths (odd ones: a last block
// of 1 to 3 elements; past the runs of dropoutRun blocks and across the
// cores' ranges, the vector path's groups of eight blocks and a tail), keys, layers and probabilities, DropoutApply sets
// y[i] = x[i]·Scale where word i mod 4 of Philox4x32-10((⌊i/4⌋, layer, 0,
// 0), key) is at least the threshold and x[i]·0 elsewhere — the
// definition the OpenCL kernel is held to, element by element from
// philox.Block10 (not through Word or Keep).
func TestDropoutApplyIsTheMask(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 200
	p := gopter.NewProperties(params)
	p.Property("y = x ⊙ mask", prop.ForAll(func(n int, key uint64, layer uint32, prob float64) bool {
		m := DropoutMask{Key: philox.KeyOf(key), Layer: layer, Threshold: DropoutThreshold(prob), Scale: 1 / (1 - prob)}
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(i%7) - 2.5
		}
		y := make([]float32, n)
		DropoutApply(m, x, y)
		for i := range x {
			w := philox.Block10(philox.Counter{uint32(i / 4), layer, 0, 0}, philox.Key{uint32(key), uint32(key >> 32)})[i%4]
			keep := uint64(w) >= uint64(math.Floor(prob*4294967296))
			want := x[i] * 0
			if keep {
				want = x[i] * float32(1/(1-prob))
			}
			if math.Float32bits(y[i]) != math.Float32bits(want) || m.Keep(i) != keep {
				return false
			}
		}
		return true
	}, gen.IntRange(1, 3000), gen.UInt64(), gen.UInt32(), gen.Float64Range(0, 0.99)))
	p.TestingRun(t)

	// A layer large enough to be split over the cores (three here, whatever
	// the machine): each core's blocks keep their numbers.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	const n = 3*4*(1<<15) + 7
	m := DropoutMask{Key: philox.KeyOf(12345), Layer: 6, Threshold: DropoutThreshold(0.3), Scale: 1 / 0.7}
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i] = float32(i%5) + 1
	}
	DropoutApply(m, x, y)
	for i := range x {
		w := philox.Block10(philox.Counter{uint32(i / 4), 6, 0, 0}, m.Key)[i%4]
		want := x[i] * 0
		if w >= m.Threshold {
			want = x[i] * float32(1/0.7)
		}
		if math.Float32bits(y[i]) != math.Float32bits(want) {
			t.Fatalf("element %d of %d on 3 cores: %v, want %v", i, n, y[i], want)
		}
	}
}

// TestDropoutThreshold: ⌊p·2³²⌋ at the ends and in between, and a NaN
// among the inputs stays NaN when its unit is dropped (x·0, as the product
// with a stored mask).
func TestDropoutThreshold(t *testing.T) {
	assert.Equal(t, uint32(0), DropoutThreshold(0))
	assert.Equal(t, uint32(1<<31), DropoutThreshold(0.5))
	assert.Equal(t, uint32(1288490188), DropoutThreshold(0.3)) // 0.3·2³² = 1288490188.8
	assert.Equal(t, uint32(math.MaxUint32), DropoutThreshold(math.Nextafter(1, 0)))
	m := DropoutMask{Key: philox.KeyOf(9), Threshold: math.MaxUint32, Scale: 2}
	x := []float64{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
	y := make([]float64, 4)
	DropoutApply(m, x, y)
	for i, v := range y {
		assert.True(t, math.IsNaN(v), "y[%d] = %v", i, v)
	}
}
