package training

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/internal/rng"
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

// TestCropFlipDrawsAreUniformAndReproducible: offsets are uniform on
// {0,…,2·Pad} and flips have frequency FlipProb (checked with a chi-square
// bound far in the tail: a correct sampler fails with probability < 1e-6),
// and the same stream gives the same augmented batch.
func TestCropFlipDrawsAreUniformAndReproducible(t *testing.T) {
	const n = 9000
	src := Batch{N: n, C: 1, H: 2, W: 3, Data: make([]float32, n*6)}
	for i := range src.Data {
		src.Data[i] = float32(i%6 + 1)
	}
	out1 := Batch{N: n, C: 1, H: 2, W: 3, Data: make([]float32, n*6)}
	out2 := Batch{N: n, C: 1, H: 2, W: 3, Data: make([]float32, n*6)}
	draws, err := PaperCropFlip.Apply(out1, src, rng.New(3, "augment"))
	require.NoError(t, err)
	if _, err := PaperCropFlip.Apply(out2, src, rng.New(3, "augment")); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out1.Data, out2.Data) {
		t.Error("same seed gave different augmented batches")
	}
	var top, left [9]float64
	flips := 0.0
	for i, d := range draws {
		top[d.Top]++
		left[d.Left]++
		if d.Flip {
			flips++
		}
		// Every image must equal ApplyDraw with its recorded draw.
		if i < 20 {
			one := Batch{N: n, C: 1, H: 2, W: 3, Data: make([]float32, n*6)}
			require.NoError(t, PaperCropFlip.ApplyDraw(one, src, i, d))
			if !slices.Equal(one.Data[i*6:i*6+6], out1.Data[i*6:i*6+6]) {
				t.Errorf("image %d differs from its replayed draw %+v", i, d)
			}
		}
	}
	chi2 := func(counts []float64) float64 {
		e := float64(n) / float64(len(counts))
		s := 0.0
		for _, c := range counts {
			s += (c - e) * (c - e) / e
		}
		return s
	}
	// χ²(8) exceeds 45 with probability < 1e-6.
	c := chi2(top[:])
	assert.LessOrEqual(t, c, 45.0, "top offsets not uniform: χ² = %.1f, counts %v", c, top)
	c = chi2(left[:])
	assert.LessOrEqual(t, c, 45.0, "left offsets not uniform: χ² = %.1f, counts %v", c, left)
	// Binomial(9000, 1/2): sd ≈ 47.4; 5 sd ≈ 237.
	assert.InDelta(t, n/2, flips, 237, "%v flips out of %d, want about %d", flips, n, n/2)
}

func TestCropFlipRejectsBadInput(t *testing.T) {
	src := tiny2x3()
	good := Batch{N: 1, C: 2, H: 2, W: 3, Data: make([]float32, 12)}
	r := rng.New(1, "augment")
	cases := []struct {
		name     string
		a        CropFlip
		dst, src Batch
	}{
		{"negative pad", CropFlip{Pad: -1, FlipProb: 0.5}, good, src},
		{"flip probability above 1", CropFlip{Pad: 4, FlipProb: 1.5}, good, src},
		{"short data", PaperCropFlip, good, Batch{N: 1, C: 2, H: 2, W: 3, Data: make([]float32, 11)}},
		{"shape mismatch", PaperCropFlip, Batch{N: 1, C: 1, H: 2, W: 6, Data: make([]float32, 12)}, src},
		{"aliasing", PaperCropFlip, src, src},
	}
	for _, tc := range cases {
		if _, err := tc.a.Apply(tc.dst, tc.src, r); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	if err := PaperCropFlip.ApplyDraw(good, src, 0, CropFlipDraw{Top: 9}); err == nil {
		t.Error("offset 9 with pad 4: no error")
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

// TestCropFlipHookAndPadValues: the loop hook augments in place exactly as
// Apply does with the same stream, and PadValues fill the border.
func TestCropFlipHookAndPadValues(t *testing.T) {
	src := tiny2x3()
	want := Batch{N: 1, C: 2, H: 2, W: 3, Data: make([]float32, 12)}
	a := CropFlip{Pad: 1, FlipProb: 0.5, PadValues: []float64{-7, -8}}
	if _, err := a.Apply(want, src, rng.New(9, "augment")); err != nil {
		t.Fatal(err)
	}
	x := append([]float32(nil), src.Data...)
	require.NoError(t, a.Hook(2, 2, 3)(x, 1, rng.New(9, "augment")))
	if !slices.Equal(x, want.Data) {
		t.Errorf("hook gave %v, Apply %v", x, want.Data)
	}
	// Corner crop (0, 0): the first row and column come from the padding.
	dst := Batch{N: 1, C: 2, H: 2, W: 3, Data: make([]float32, 12)}
	require.NoError(t, a.ApplyDraw(dst, src, 0, CropFlipDraw{0, 0, false}))
	if w := []float32{-7, -7, -7, -7, 1, 2, -8, -8, -8, -8, 10, 20}; !slices.Equal(dst.Data, w) {
		t.Errorf("padded crop %v, want %v", dst.Data, w)
	}
	if err := a.Hook(3, 2, 3)(x, 1, rng.New(9, "augment")); err == nil {
		t.Error("2 padding values for 3 channels: no error")
	}
}
