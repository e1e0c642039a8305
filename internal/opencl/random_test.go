package opencl_test

import (
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/internal/philox"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
)

// TestPhiloxKernelIsTheGoOne: the kernels' Philox4x32-10 gives
// internal/philox's blocks (itself held to Random123's known answers) for
// 1,000 counters under three keys, the all-ones key among them (the key
// schedule's additions wrap).
func TestPhiloxKernelIsTheGoOne(t *testing.T) {
	l := testLib(t)
	const blocks = 1000
	out := alloc(t, l, 4*blocks)
	for _, k := range []philox.Key{{0, 0}, {0xffffffff, 0xffffffff}, {0xa4093822, 0x299f31d0}} {
		for _, c1 := range []uint32{0, 5, 0xffffffff} {
			must(t, l.PhiloxBlocks(out, blocks, c1, k[0], k[1]))
			got := download(t, out, 4*blocks)
			for g := 0; g < blocks; g++ {
				want := philox.Block10(philox.Counter{uint32(g), c1, 0, 0}, k)
				for j := range want {
					if w := math.Float32bits(got[4*g+j]); w != want[j] {
						t.Fatalf("key %08x, counter (%d, %d, 0, 0): word %d = %08x, internal/philox %08x", k, g, c1, j, w, want[j])
					}
				}
			}
		}
	}
}

// TestDropoutKernel: the dropout kernel keeps element i exactly when word
// i mod 4 of block ⌊i/4⌋ (internal/philox) is at least the threshold, and
// multiplies a kept value by the scale, a dropped one by 0, bit for bit
// (a NaN stays a NaN, −0 and ±Inf included); lengths that leave a last
// block of 1 to 3 elements; in place (y = x) as well. A threshold of 0
// keeps everything.
func TestDropoutKernel(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	for _, c := range []struct {
		n     int
		m     opencl.DropoutMask
		place bool
	}{
		{1, opencl.DropoutMask{Key0: 1, Key1: 2, Layer: 0, Threshold: 1 << 31, Scale: 2}, false},
		{7, opencl.DropoutMask{Key0: 3, Key1: 4, Layer: 1, Threshold: 1288490188, Scale: float32(1 / 0.7)}, false},
		{1001, opencl.DropoutMask{Key0: 0xffffffff, Key1: 9, Layer: 6, Threshold: 1 << 31, Scale: 2}, true},
		{4096, opencl.DropoutMask{Key0: 5, Key1: 6, Layer: 2, Threshold: 0, Scale: 1}, false},
	} {
		x := randn(rng, c.n, -3, 3)
		if c.n >= 4 {
			x[0], x[1], x[2], x[3] = float32(math.NaN()), float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1))
		}
		xb := upload(t, l, x)
		yb := xb
		if !c.place {
			yb = alloc(t, l, c.n)
		}
		must(t, l.Dropout(xb, yb, c.n, c.m))
		got := download(t, yb, c.n)
		kept := 0
		for i := range x {
			w := philox.Block10(philox.Counter{uint32(i / 4), c.m.Layer, 0, 0}, philox.Key{c.m.Key0, c.m.Key1})[i%4]
			want := x[i] * 0
			if w >= c.m.Threshold {
				want = x[i] * c.m.Scale
				kept++
			}
			if math.Float32bits(got[i]) != math.Float32bits(want) && !(got[i] != got[i] && want != want) {
				t.Fatalf("n %d, mask %+v: y[%d] = %g, want %g (x %g, word %08x)", c.n, c.m, i, got[i], want, x[i], w)
			}
		}
		if c.m.Threshold == 0 && kept != c.n {
			t.Errorf("threshold 0 kept %d of %d", kept, c.n)
		}
	}
}

// TestCropFlipKernel: the crop_flip kernel gives nn.ApplyCropFlip's
// pixels bit for bit (itself held to the host reference ApplyDraw with
// draws decoded separately, training's TestCropFlipOpIsTheReference): the
// paper's pad 4 with three channels' padding values, a first row past 2³²
// (the counter word wraps as the Go one), an odd image with a pad wider
// than it, every image mirrored, pad 0 with no flip (a copy), −0, ±Inf
// and NaN copied as they are. Caught: top and left swapped, the mirrored
// column off by one, another channel's padding value, the first row
// ignored, the flip's threshold on all 32 bits.
func TestCropFlipKernel(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	for _, c := range []struct {
		n, C, H, W int
		a          nn.CropFlip
		first      int
	}{
		{9, 3, 8, 8, nn.CropFlip{Pad: 4, FlipProb: 0.5, PadValues: []float64{-1.5, 0.25, 3}}, 37},
		{16, 1, 7, 5, nn.CropFlip{Pad: 9, FlipProb: 0.5}, 1<<32 - 3},
		{5, 2, 6, 9, nn.CropFlip{Pad: 1, FlipProb: 1}, 0},
		{4, 4, 3, 3, nn.CropFlip{Pad: 0, FlipProb: 0, PadValues: []float64{1, 2, 3, 4}}, 2},
		{64, 3, 32, 32, nn.CropFlip{Pad: 4, FlipProb: 0.5}, 100},
	} {
		size := c.n * c.C * c.H * c.W
		x := randn(rng, size, -3, 3)
		x[0], x[1], x[2], x[3] = float32(math.NaN()), float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1))
		key := rng.Uint64()
		r := nn.CropFlipRun{CropFlip: c.a, Key: philox.KeyOf(key), First: c.first}
		want := make([]float32, size)
		nn.ApplyCropFlip(r, x, want, c.n, c.C, c.H, c.W)
		xb, yb := upload(t, l, x), alloc(t, l, size)
		a := opencl.CropFlip{C: c.C, H: c.H, W: c.W, Pad: c.a.Pad, FlipThreshold: c.a.FlipThreshold(), First: uint32(c.first), Key0: r.Key[0], Key1: r.Key[1]}
		for _, v := range c.a.PadValues {
			a.PadValues = append(a.PadValues, float32(v))
		}
		must(t, l.CropFlip(xb, yb, size, a))
		got := download(t, yb, size)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%+v first %d key %#x: pixel %d = %g, nn.ApplyCropFlip %g", c.a, c.first, key, i, got[i], want[i])
			}
		}
	}
	xb, yb := alloc(t, l, 12), alloc(t, l, 12)
	assert.Error(t, l.CropFlip(xb, xb, 12, opencl.CropFlip{C: 1, H: 3, W: 4}), "in place")
	assert.Error(t, l.CropFlip(xb, yb, 12, opencl.CropFlip{C: 5, H: 1, W: 1, PadValues: make([]float32, 5)}), "5 padding values")
	assert.Error(t, l.CropFlip(xb, yb, 12, opencl.CropFlip{C: 1, H: 5, W: 5}), "12 values of 5×5 images")
}
