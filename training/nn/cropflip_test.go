package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/llpfc/llpfc/internal/philox"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// chi2 is Pearson's statistic of counts against equal expected counts.
func chi2(counts []float64) float64 {
	total := 0.0
	for _, c := range counts {
		total += c
	}
	e := total / float64(len(counts))
	s := 0.0
	for _, c := range counts {
		s += (c - e) * (c - e) / e
	}
	return s
}

// TestCropFlipDrawsAreUniform: over 40,000 steps' keys (from a fixed
// seed), one image's offsets are uniform on [0, 2·Pad] and its flips occur
// at FlipProb, for pads 4 (the paper's) and 1 and flip probabilities 1/2
// and 1/4, at the first row and at row 1000 (a later chunk's). The bounds
// are far in the tails: a correct sampler with a random seed fails one of
// them with probability < 10⁻⁶ (χ²(8) > 45 and χ²(2) > 28 each < 10⁻⁶;
// 6 binomial standard deviations < 2·10⁻⁹). Caught: an offset range of
// [0, 2·Pad) or [0, Pad], a flip threshold of ⌊p·2³¹⌋ compared with all
// 32 bits (flips at p/2), top and left from one word (top = left would
// then be certain: its frequency is checked against 1/(2·Pad+1)).
func TestCropFlipDrawsAreUniform(t *testing.T) {
	const steps = 40000
	for _, tc := range []struct {
		pad   int
		p     float64
		row   int
		bound float64 // χ²(2·pad) quantile at 1 − 10⁻⁶
	}{
		{4, 0.5, 0, 45}, {4, 0.5, 1000, 45}, {1, 0.25, 3, 28},
	} {
		a := CropFlip{Pad: tc.pad, FlipProb: tc.p}
		r := rand.New(rand.NewPCG(1, 2))
		span := 2*tc.pad + 1
		top, left := make([]float64, span), make([]float64, span)
		same, flips := 0.0, 0.0
		for range steps {
			d := a.Draw(philox.KeyOf(r.Uint64()), tc.row)
			require.True(t, d.Top >= 0 && d.Top < span && d.Left >= 0 && d.Left < span, "draw %+v outside [0, %d]", d, 2*tc.pad)
			top[d.Top]++
			left[d.Left]++
			if d.Top == d.Left {
				same++
			}
			if d.Flip {
				flips++
			}
		}
		assert.LessOrEqual(t, chi2(top), tc.bound, "pad %d: top offsets %v", tc.pad, top)
		assert.LessOrEqual(t, chi2(left), tc.bound, "pad %d: left offsets %v", tc.pad, left)
		// top = left has probability 1/span for independent offsets.
		pSame := 1 / float64(span)
		assert.InDelta(t, steps*pSame, same, 6*math.Sqrt(steps*pSame*(1-pSame)), "pad %d: top = left %v times of %d", tc.pad, same, steps)
		assert.InDelta(t, steps*tc.p, flips, 6*math.Sqrt(steps*tc.p*(1-tc.p)), "p %v: %v flips of %d", tc.p, flips, steps)
	}
}

// TestCropFlipFlipThresholdEnds: the flip rule's ends are exact (never at
// 0, always at 1, ⌊p·2³¹⌋ between) and the offsets of pad 0 are 0.
func TestCropFlipFlipThresholdEnds(t *testing.T) {
	assert.Equal(t, uint32(0), CropFlip{FlipProb: 0}.FlipThreshold())
	assert.Equal(t, uint32(1<<31), CropFlip{FlipProb: 1}.FlipThreshold())
	assert.Equal(t, uint32(1<<30), CropFlip{FlipProb: 0.5}.FlipThreshold())
	for k := range uint64(200) {
		key := philox.KeyOf(k * 0x9E3779B97F4A7C15)
		assert.False(t, CropFlip{Pad: 3, FlipProb: 0}.Draw(key, int(k)).Flip)
		assert.True(t, CropFlip{Pad: 3, FlipProb: 1}.Draw(key, int(k)).Flip)
		assert.Equal(t, CropFlipDraw{}, CropFlip{}.Draw(key, int(k)))
	}
}

// cropFlipRun runs x → CropFlip(x) on gorgonia's tape machine.
func cropFlipRun(t *testing.T, a CropFlip, key *CropFlipKey, x []float32, shape ...int) []float32 {
	t.Helper()
	g := gorgonia.NewGraph()
	xn, xt := NewInputNode(g, tensor.Float32, "x", tensor.Shape(shape))
	copy(xt.Data().([]float32), x)
	y, err := a.Apply(xn, key)
	require.NoError(t, err)
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	require.NoError(t, vm.RunAll())
	return slices.Clone(y.Value().Data().([]float32))
}

// TestCropFlipKeyDeterminesPixels: the same key gives the same pixels
// (run twice), another step's key other pixels, a key never set the
// identity; and an image's pixels depend on its minibatch row, not on the
// chunk it is computed in (two chunks of 4 with SetFirst(4) give the
// 8-image batch's pixels) — the property that lets every program of a
// step (KL's passes, LLP-VAT's) recompute the same augmented batch.
func TestCropFlipKeyDeterminesPixels(t *testing.T) {
	const N, C, H, W = 8, 3, 6, 5
	x := make([]float32, N*C*H*W)
	for i := range x {
		x[i] = float32(i%97) + 1 // no pixel equals the padding 0
	}
	a := CropFlip{Pad: 2, FlipProb: 0.5}
	key := NewCropFlipKey()
	assert.Equal(t, x, cropFlipRun(t, a, key, x, N, C, H, W), "a key never set is the identity")
	key.Set(11)
	first := cropFlipRun(t, a, key, x, N, C, H, W)
	assert.Equal(t, first, cropFlipRun(t, a, key, x, N, C, H, W), "same key, other pixels")
	assert.NotEqual(t, x, first, "a set key left every image as it was")
	key.Set(12)
	assert.NotEqual(t, first, cropFlipRun(t, a, key, x, N, C, H, W), "another step's key gave the same pixels")

	key.Set(11)
	half := N / 2 * C * H * W
	lo := cropFlipRun(t, a, key, x[:half], N/2, C, H, W)
	key.SetFirst(N / 2)
	hi := cropFlipRun(t, a, key, x[half:], N/2, C, H, W)
	assert.Equal(t, first, append(lo, hi...), "chunks of 4 at rows 0 and 4 differ from the whole batch")
	key.Set(11) // Set resets the first row to 0
	assert.Equal(t, first, cropFlipRun(t, a, key, x, N, C, H, W))
}

// TestCropFlipHasNoGradient: a gradient through the augmentation (with
// respect to the raw input) is an error, never a silent zero; the
// parameters' gradient of a graph that reads the augmented input is not
// affected (the op is not on its path).
func TestCropFlipHasNoGradient(t *testing.T) {
	g := gorgonia.NewGraph()
	x, _ := NewInputNode(g, tensor.Float32, "x", tensor.Shape{2, 1, 3, 3})
	w := gorgonia.NewTensor(g, tensor.Float32, 4, gorgonia.WithShape(2, 1, 3, 3), gorgonia.WithName("w"), gorgonia.WithInit(gorgonia.Ones()))
	key := NewCropFlipKey()
	key.Set(5)
	xa, err := CropFlip{Pad: 1, FlipProb: 0.5}.Apply(x, key)
	require.NoError(t, err)
	prod, err := gorgonia.HadamardProd(xa, w)
	require.NoError(t, err)
	cost, err := gorgonia.Sum(prod)
	require.NoError(t, err)
	_, err = Grad(cost, x)
	assert.Error(t, err, "a gradient with respect to the raw input through the augmentation")
	_, err = Grad(cost, w)
	assert.NoError(t, err, "the weights' gradient does not pass through the augmentation")
	_, err = (&cropFlipOp{}).SymDiff(nil, nil, nil)
	assert.ErrorIs(t, err, ErrCropFlipGrad)
}

// TestCropFlipRejectsBadSettings: settings out of range, a non-image
// input, padding values for another number of channels.
func TestCropFlipRejectsBadSettings(t *testing.T) {
	g := gorgonia.NewGraph()
	img, _ := NewInputNode(g, tensor.Float32, "img", tensor.Shape{2, 3, 4, 4})
	flat, _ := NewInputNode(g, tensor.Float32, "flat", tensor.Shape{2, 48})
	key := NewCropFlipKey()
	for _, tc := range []struct {
		name string
		a    CropFlip
		x    *gorgonia.Node
		key  *CropFlipKey
	}{
		{"negative pad", CropFlip{Pad: -1}, img, key},
		{"flip probability above 1", CropFlip{Pad: 4, FlipProb: 1.5}, img, key},
		{"NaN padding value", CropFlip{Pad: 4, PadValues: []float64{0, math.NaN(), 0}}, img, key},
		{"flat input", CropFlip{Pad: 4}, flat, key},
		{"two padding values for three channels", CropFlip{Pad: 4, PadValues: []float64{0, 1}}, img, key},
		{"no key", CropFlip{Pad: 4}, img, nil},
	} {
		_, err := tc.a.Apply(tc.x, tc.key)
		assert.Error(t, err, tc.name)
	}
	_, err := Dropout(img, 0.5, NewDropoutKey(), CropFlipLayer)
	assert.Error(t, err, "a dropout layer numbered as augmentation's counter word")
}
