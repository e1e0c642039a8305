package training

import (
	"fmt"
	"math"

	"github.com/llpfc/llpfc/training/nn"
)

// Batch is a float32 image batch laid out N×C×H×W in row-major order (the
// layout gorgonia's Conv2d expects): pixel (n, c, y, x) is at
// Data[((n*C+c)*H+y)*W+x].
type Batch struct {
	N, C, H, W int
	Data       []float32
}

// Check reports whether the batch's dimensions are positive and agree with
// the length of its data.
func (b Batch) Check() error {
	if b.N <= 0 || b.C <= 0 || b.H <= 0 || b.W <= 0 {
		return fmt.Errorf("batch: dimensions N=%d C=%d H=%d W=%d, want all > 0", b.N, b.C, b.H, b.W)
	}
	if want := b.N * b.C * b.H * b.W; len(b.Data) != want {
		return fmt.Errorf("batch: %d values, want N·C·H·W = %d·%d·%d·%d = %d", len(b.Data), b.N, b.C, b.H, b.W, want)
	}
	return nil
}

// CropFlip is the augmentation of Appendix `suppsec: exp` ("Architecture
// and Hyperparameters"): Pad pixels of value 0 are added on each side, a
// crop of the original size is sampled uniformly from the padded image, and
// with probability FlipProb the crop is mirrored horizontally. The
// appendix's setting is Pad = 4, FlipProb = 0.5 (torchvision's
// RandomCrop(size, padding=4) followed by RandomHorizontalFlip() in the
// authors' code).
//
// PadValues, if set, gives each channel's padding value (nil means 0). The
// reference pads raw pixels with 0 and normalizes afterwards; on data that
// are already normalized, PadValues[c] = (0 − mean[c])/std[c] reproduces
// that.
//
// Training augments in its graphs, where the program runs (nn.CropFlip,
// Config.Augment = Op()); this type is the settings and the host's
// pixel-by-pixel reference (ApplyDraw) that the tests hold the op to.
type CropFlip struct {
	Pad       int
	FlipProb  float64
	PadValues []float64
}

// PaperCropFlip is the appendix's augmentation: zero-pad 4, random crop,
// horizontal flip with probability 1/2.
var PaperCropFlip = CropFlip{Pad: 4, FlipProb: 0.5}

// CropFlipDraw is one image's random choice: the crop's top-left corner
// (Top, Left) in padded coordinates, each in [0, 2·Pad], and whether the crop
// is mirrored.
type CropFlipDraw struct {
	Top, Left int
	Flip      bool
}

func (a CropFlip) check() error { return nn.CropFlip(a).Check() }

// Op returns the augmentation as training graphs run it (nn.CropFlip, the
// value of Config.Augment): drawn and applied where the program runs.
func (a CropFlip) Op() *nn.CropFlip {
	op := nn.CropFlip(a)
	return &op
}

// ApplyDraw augments image n of src into image n of dst with a given draw,
// pixel by pixel: the host's reference of the training graphs' op
// (nn.CropFlip, nn.ApplyCropFlip), which the tests hold the op and its
// OpenCL kernel to.
func (a CropFlip) ApplyDraw(dst, src Batch, n int, d CropFlipDraw) error {
	if err := a.check(); err != nil {
		return err
	}
	if err := src.Check(); err != nil {
		return fmt.Errorf("crop-flip source: %w", err)
	}
	if err := dst.Check(); err != nil {
		return fmt.Errorf("crop-flip destination: %w", err)
	}
	if n < 0 || n >= src.N || n >= dst.N || dst.C != src.C || dst.H != src.H || dst.W != src.W {
		return fmt.Errorf("crop-flip: image %d of a %d-image batch, or mismatched shapes", n, src.N)
	}
	if d.Top < 0 || d.Top > 2*a.Pad || d.Left < 0 || d.Left > 2*a.Pad {
		return fmt.Errorf("crop-flip: offset (%d, %d), want each in [0, %d]", d.Top, d.Left, 2*a.Pad)
	}
	a.applyOne(dst, src, n, d)
	return nil
}

// applyOne: output pixel (y, x) of the crop is padded pixel (Top+y, Left+x),
// i.e. source pixel (Top+y−Pad, Left+x−Pad), 0 outside the source. With Flip
// the crop is mirrored: output (y, x) takes crop column W−1−x.
func (a CropFlip) applyOne(dst, src Batch, n int, d CropFlipDraw) {
	H, W := src.H, src.W
	for c := 0; c < src.C; c++ {
		base := (n*src.C + c) * H * W
		for y := 0; y < H; y++ {
			sy := d.Top + y - a.Pad
			for x := 0; x < W; x++ {
				cx := x
				if d.Flip {
					cx = W - 1 - x
				}
				sx := d.Left + cx - a.Pad
				var v float32
				if a.PadValues != nil {
					v = float32(a.PadValues[c])
				}
				if sy >= 0 && sy < H && sx >= 0 && sx < W {
					v = src.Data[base+sy*W+sx]
				}
				dst.Data[base+y*W+x] = v
			}
		}
	}
}

// Normalize is per-channel standardization, x ↦ (x − Mean[c]) / Std[c]
// (torchvision's Normalize, applied after augmentation in the authors' code
// with each data set's channel means and standard deviations).
type Normalize struct {
	Mean, Std []float64
}

// Apply standardizes b in place.
func (nz Normalize) Apply(b Batch) error {
	if err := b.Check(); err != nil {
		return fmt.Errorf("normalize: %w", err)
	}
	if len(nz.Mean) != b.C || len(nz.Std) != b.C {
		return fmt.Errorf("normalize: %d means and %d standard deviations for %d channels", len(nz.Mean), len(nz.Std), b.C)
	}
	for c, s := range nz.Std {
		if !(s > 0) || math.IsInf(s, 0) {
			return fmt.Errorf("normalize: channel %d standard deviation %v, want finite and > 0", c, s)
		}
		if math.IsNaN(nz.Mean[c]) || math.IsInf(nz.Mean[c], 0) {
			return fmt.Errorf("normalize: channel %d mean %v, want finite", c, nz.Mean[c])
		}
	}
	hw := b.H * b.W
	for n := 0; n < b.N; n++ {
		for c := 0; c < b.C; c++ {
			m, inv := nz.Mean[c], 1/nz.Std[c]
			px := b.Data[(n*b.C+c)*hw : (n*b.C+c+1)*hw]
			for i, v := range px {
				px[i] = float32((float64(v) - m) * inv)
			}
		}
	}
	return nil
}

// ChannelStats returns each channel's mean and (population) standard
// deviation over all images and pixels of b, the statistics Normalize uses.
func ChannelStats(b Batch) (mean, std []float64, err error) {
	if err := b.Check(); err != nil {
		return nil, nil, fmt.Errorf("channel stats: %w", err)
	}
	mean, std = make([]float64, b.C), make([]float64, b.C)
	hw := b.H * b.W
	count := float64(b.N * hw)
	for c := 0; c < b.C; c++ {
		var s float64
		for n := 0; n < b.N; n++ {
			for _, v := range b.Data[(n*b.C+c)*hw : (n*b.C+c+1)*hw] {
				s += float64(v)
			}
		}
		mean[c] = s / count
		var ss float64
		for n := 0; n < b.N; n++ {
			for _, v := range b.Data[(n*b.C+c)*hw : (n*b.C+c+1)*hw] {
				d := float64(v) - mean[c]
				ss += d * d
			}
		}
		std[c] = math.Sqrt(ss / count)
	}
	return mean, std, nil
}
