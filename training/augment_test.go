package training

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/llpfc/llpfc/internal/philox"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/device/cpu"
	"github.com/llpfc/llpfc/training/nn"
)

// tiny2x3 is one 2×3 image with two channels: channel 0 holds 1…6 row by row,
// channel 1 holds 10·(1…6).
func tiny2x3() Batch {
	return Batch{N: 1, C: 2, H: 2, W: 3, Data: []float32{
		1, 2, 3,
		4, 5, 6,
		10, 20, 30,
		40, 50, 60,
	}}
}

// TestCropFlipExactPixels checks the crop/flip map against hand-derived
// outputs. With Pad = 1 the padded channel 0 is
//
//	0 0 0 0 0
//	0 1 2 3 0
//	0 4 5 6 0
//	0 0 0 0 0
//
// and a crop with top-left (Top, Left) reads rows Top…Top+1, columns
// Left…Left+2 of it; Flip mirrors the crop's columns.
func TestCropFlipExactPixels(t *testing.T) {
	cases := []struct {
		name string
		pad  int
		draw CropFlipDraw
		want []float32 // channel 0; channel 1 must be 10× it
	}{
		{"corner top-left", 1, CropFlipDraw{0, 0, false}, []float32{0, 0, 0, 0, 1, 2}},
		{"corner bottom-right", 1, CropFlipDraw{2, 2, false}, []float32{5, 6, 0, 0, 0, 0}},
		{"centre is identity", 1, CropFlipDraw{1, 1, false}, []float32{1, 2, 3, 4, 5, 6}},
		{"centre flipped", 1, CropFlipDraw{1, 1, true}, []float32{3, 2, 1, 6, 5, 4}},
		{"shifted right then flipped", 1, CropFlipDraw{1, 0, true}, []float32{2, 1, 0, 5, 4, 0}},
		{"shifted down", 1, CropFlipDraw{0, 1, false}, []float32{0, 0, 0, 1, 2, 3}},
		{"pad 4 centre", 4, CropFlipDraw{4, 4, false}, []float32{1, 2, 3, 4, 5, 6}},
		{"pad 4 all padding", 4, CropFlipDraw{0, 0, false}, []float32{0, 0, 0, 0, 0, 0}},
		{"pad 4 one pixel in", 4, CropFlipDraw{3, 2, false}, []float32{0, 0, 0, 0, 0, 1}},
		{"pad 4 one pixel in, flipped", 4, CropFlipDraw{3, 2, true}, []float32{0, 0, 0, 1, 0, 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := tiny2x3()
			dst := Batch{N: 1, C: 2, H: 2, W: 3, Data: make([]float32, 12)}
			a := CropFlip{Pad: tc.pad, FlipProb: 0.5}
			require.NoError(t, a.ApplyDraw(dst, src, 0, tc.draw))
			if got := dst.Data[:6]; !slices.Equal(got, tc.want) {
				t.Errorf("channel 0 = %v, want %v", got, tc.want)
			}
			for i, v := range tc.want {
				assert.Equal(t, 10*v, dst.Data[6+i], "channel 1 pixel %d = %v, want %v (same draw as channel 0)", i, dst.Data[6+i], 10*v)
			}
		})
	}
}

// slowDraw decodes image r's draw under a step's key from the Philox
// words as the doc of nn.CropFlip states it, separately from
// nn.CropFlip.Draw: the generic (rolled) philox.Block, the offsets as
// ⌊w·(2·Pad+1)/2³²⌋ in big integers, the flip as w2 < 2·⌊p·2³¹⌋ with the
// threshold from exact big-float arithmetic.
func slowDraw(a CropFlip, key uint64, r int) CropFlipDraw {
	w := philox.Block(philox.Counter{uint32(r), 0xFFFFFFFF, 0, 0}, philox.Key{uint32(key), uint32(key >> 32)}, 10)
	span := big.NewInt(int64(2*a.Pad + 1))
	off := func(w uint32) int {
		v := new(big.Int).Mul(big.NewInt(int64(w)), span)
		return int(v.Div(v, big.NewInt(1<<32)).Int64())
	}
	thr, _ := new(big.Float).SetMantExp(big.NewFloat(a.FlipProb), 31).Int(nil) // ⌊p·2³¹⌋, p ≥ 0
	flip := big.NewInt(int64(w[2])).Cmp(new(big.Int).Lsh(thr, 1)) < 0
	return CropFlipDraw{Top: off(w[0]), Left: off(w[1]), Flip: flip}
}

// TestCropFlipOpIsTheReference: for generated batches (1–5 images of 1–4
// channels, 1–9 × 1–9 pixels, pads 0–10, wider than the image included),
// keys, first rows, flip probabilities and padding values, the training
// graphs' op (nn.CropFlip run by gorgonia's machine, its CPU path
// nn.ApplyCropFlip) gives exactly the pixels of the host reference
// ApplyDraw with the draws of slowDraw — the draws and the pixel map held
// to two separate implementations. Caught: top and left swapped, the
// mirrored column off by one, the padding of another channel, a chunk's
// first row ignored, the flip or offset decode changed.
func TestCropFlipOpIsTheReference(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(5)
	params.MinSuccessfulTests = 150
	props := gopter.NewProperties(params)
	props.Property("op = ApplyDraw(slowDraw)", prop.ForAll(func(n, c, h, w, pad int, key uint64, first int, pi int, withValues bool) string {
		a := CropFlip{Pad: pad, FlipProb: []float64{0, 0.25, 0.5, 0.7, 1}[pi]}
		if withValues {
			for ch := 0; ch < c; ch++ {
				a.PadValues = append(a.PadValues, float64(ch)-1.5)
			}
		}
		src := Batch{N: n, C: c, H: h, W: w, Data: make([]float32, n*c*h*w)}
		for i := range src.Data {
			src.Data[i] = float32(i%251) + 10 // distinct from the padding values
		}
		want := Batch{N: n, C: c, H: h, W: w, Data: make([]float32, len(src.Data))}
		for i := 0; i < n; i++ {
			if err := a.ApplyDraw(want, src, i, slowDraw(a, key, first+i)); err != nil {
				return err.Error()
			}
		}
		g := gorgonia.NewGraph()
		x, xt := nn.NewInputNode(g, tensor.Float32, "x", tensor.Shape{n, c, h, w})
		copy(xt.Data().([]float32), src.Data)
		k := nn.NewCropFlipKey()
		k.Set(key)
		k.SetFirst(first)
		y, err := a.Op().Apply(x, k)
		if err != nil {
			return err.Error()
		}
		prog, err := cpu.New().Compile(g, gorgonia.Nodes{y}, device.Options{Inputs: gorgonia.Nodes{x}})
		if err != nil {
			return err.Error()
		}
		defer prog.Close()
		if err := prog.Run(); err != nil {
			return err.Error()
		}
		v, err := prog.Value(y)
		if err != nil {
			return err.Error()
		}
		got := v.Data().([]float32)
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want.Data[i]) {
				return fmt.Sprintf("%+v, %d×%d×%d×%d, key %#x, first %d: entry %d = %v, reference %v", a, n, c, h, w, key, first, i, got[i], want.Data[i])
			}
		}
		return ""
	}, gen.IntRange(1, 5), gen.IntRange(1, 4), gen.IntRange(1, 9), gen.IntRange(1, 9), gen.IntRange(0, 10), gen.UInt64(),
		gen.IntRange(0, 5000), gen.IntRange(0, 4), gen.Bool()))
	props.TestingRun(t)
}

// TestCropFlipDrawIsTheDocumentedDecode: nn.CropFlip.Draw is slowDraw for
// many keys and rows (the draws the op, the OpenCL kernel and the
// distribution test use).
func TestCropFlipDrawIsTheDocumentedDecode(t *testing.T) {
	r := rng.New(7, "draws")
	for _, a := range []CropFlip{PaperCropFlip, {Pad: 1, FlipProb: 0.3}, {Pad: 13, FlipProb: 1}, {Pad: 0, FlipProb: 0}} {
		for i := 0; i < 2000; i++ {
			key, row := r.Uint64(), r.IntN(1<<20)
			require.Equal(t, slowDraw(a, key, row), CropFlipDraw(a.Op().Draw(philox.KeyOf(key), row)), "%+v key %#x row %d", a, key, row)
		}
	}
}

func TestCropFlipRejectsBadInput(t *testing.T) {
	src := tiny2x3()
	good := Batch{N: 1, C: 2, H: 2, W: 3, Data: make([]float32, 12)}
	cases := []struct {
		name     string
		a        CropFlip
		dst, src Batch
		d        CropFlipDraw
	}{
		{"negative pad", CropFlip{Pad: -1, FlipProb: 0.5}, good, src, CropFlipDraw{}},
		{"flip probability above 1", CropFlip{Pad: 4, FlipProb: 1.5}, good, src, CropFlipDraw{}},
		{"short data", PaperCropFlip, good, Batch{N: 1, C: 2, H: 2, W: 3, Data: make([]float32, 11)}, CropFlipDraw{}},
		{"shape mismatch", PaperCropFlip, Batch{N: 1, C: 1, H: 2, W: 6, Data: make([]float32, 12)}, src, CropFlipDraw{}},
		{"offset 9 with pad 4", PaperCropFlip, good, src, CropFlipDraw{Top: 9}},
	}
	for _, tc := range cases {
		if err := tc.a.ApplyDraw(tc.dst, tc.src, 0, tc.d); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// TestNormalizeExactAndStandardizes: (x − m)/s pixel by pixel, and after
// normalizing with a batch's own ChannelStats each channel has mean 0 and
// standard deviation 1.
func TestNormalizeExactAndStandardizes(t *testing.T) {
	b := tiny2x3()
	nz := Normalize{Mean: []float64{3.5, 35}, Std: []float64{2, 10}}
	require.NoError(t, nz.Apply(b))
	want := []float32{-1.25, -0.75, -0.25, 0.25, 0.75, 1.25, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5}
	if !slices.Equal(b.Data, want) {
		t.Errorf("normalized = %v, want %v", b.Data, want)
	}

	c := tiny2x3()
	m, s, err := ChannelStats(c)
	require.NoError(t, err)
	// Channel 0 is 1…6: mean 3.5, population variance 35/12.
	if math.Abs(m[0]-3.5) > 1e-12 || math.Abs(s[0]-math.Sqrt(35.0/12)) > 1e-12 {
		t.Errorf("channel 0 stats (%v, %v), want (3.5, %v)", m[0], s[0], math.Sqrt(35.0/12))
	}
	require.NoError(t, (Normalize{Mean: m, Std: s}).Apply(c))
	m2, s2, _ := ChannelStats(c)
	for ch := range m2 {
		if math.Abs(m2[ch]) > 1e-6 || math.Abs(s2[ch]-1) > 1e-6 {
			t.Errorf("channel %d after normalization: mean %v sd %v, want 0 and 1", ch, m2[ch], s2[ch])
		}
	}

	for _, bad := range []Normalize{
		{Mean: []float64{0}, Std: []float64{1}},
		{Mean: []float64{0, 0}, Std: []float64{1, 0}},
		{Mean: []float64{math.NaN(), 0}, Std: []float64{1, 1}},
	} {
		if err := bad.Apply(tiny2x3()); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// TestCropFlipPadValues: PadValues fill the border of each channel.
func TestCropFlipPadValues(t *testing.T) {
	src := tiny2x3()
	a := CropFlip{Pad: 1, FlipProb: 0.5, PadValues: []float64{-7, -8}}
	// Corner crop (0, 0): the first row and column come from the padding.
	dst := Batch{N: 1, C: 2, H: 2, W: 3, Data: make([]float32, 12)}
	require.NoError(t, a.ApplyDraw(dst, src, 0, CropFlipDraw{0, 0, false}))
	if w := []float32{-7, -7, -7, -7, 1, 2, -8, -8, -8, -8, 10, 20}; !slices.Equal(dst.Data, w) {
		t.Errorf("padded crop %v, want %v", dst.Data, w)
	}
}
