package opencl

import "fmt"

// DropoutMask is a dropout layer's mask at one run, as training/nn
// defines it (nn.DropoutMask): element i is kept when word i mod 4 of
// Philox4x32-10((⌊i/4⌋, Layer, 0, 0), (Key0, Key1)) is at least Threshold,
// and a kept element is multiplied by Scale.
type DropoutMask struct {
	Key0, Key1, Layer, Threshold uint32
	Scale                        float32
}

// Dropout enqueues y = x ⊙ mask for n values (y may be x): the mask is
// computed in the kernel, one Philox block per four elements.
func (l *Lib) Dropout(x, y *Buffer, n int, m DropoutMask) error {
	const op = "dropout"
	if err := need(op, n, nb("x", x), nb("y", y)); err != nil {
		return err
	}
	return l.elem("dropout", (n+3)/4, x, y, n, m.Key0, m.Key1, m.Layer, m.Threshold, m.Scale)
}

// PhiloxBlocks enqueues out[4g … 4g+3] = Philox4x32-10((g, c1, 0, 0),
// (k0, k1)) for g < blocks, out read as uint32 words: the kernels' Philox,
// for tests against internal/philox.
func (l *Lib) PhiloxBlocks(out *Buffer, blocks int, c1, k0, k1 uint32) error {
	if blocks < 0 {
		return fmt.Errorf("opencl: philox: %d blocks", blocks)
	}
	if err := need("philox", 4*blocks, nb("out", out)); err != nil {
		return err
	}
	return l.elem("philox_block", blocks, out, blocks, c1, k0, k1)
}

// CropFlip is one run of the appendix's crop-and-flip augmentation, as
// training/nn defines it (nn.CropFlip, nn.ApplyCropFlip): images of
// C×H×W, padding Pad, image n's draw from block (First+n, 2³²−1, 0, 0)
// under (Key0, Key1), mirrored when its third word's top 31 bits are
// below FlipThreshold; PadValues the channels' padding values (nil: 0; at
// most 4 channels otherwise).
type CropFlip struct {
	C, H, W, Pad                     int
	FlipThreshold, First, Key0, Key1 uint32
	PadValues                        []float32
}

// CropFlip enqueues dst = the augmented images of src (n values, whole
// images; dst must not be src): one work item per output pixel, each
// computing its image's draw in the kernel.
func (l *Lib) CropFlip(src, dst *Buffer, n int, a CropFlip) error {
	const op = "crop-flip"
	if err := need(op, n, nb("src", src), nb("dst", dst)); err != nil {
		return err
	}
	if err := positive(op, namedInt{"C", a.C}, namedInt{"H", a.H}, namedInt{"W", a.W}); err != nil {
		return err
	}
	if a.Pad < 0 || n%(a.C*a.H*a.W) != 0 {
		return fmt.Errorf("opencl: %s: pad %d, %d values of %d×%d×%d images", op, a.Pad, n, a.C, a.H, a.W)
	}
	if src == dst {
		return fmt.Errorf("opencl: %s: dst is src", op)
	}
	var p [4]float32
	if a.PadValues != nil {
		if len(a.PadValues) != a.C || a.C > len(p) {
			return fmt.Errorf("opencl: %s: %d padding values for %d channels (at most %d)", op, len(a.PadValues), a.C, len(p))
		}
		copy(p[:], a.PadValues)
	}
	return l.elem("crop_flip", n, src, dst, n, a.C, a.H, a.W, a.Pad, a.FlipThreshold, a.First, a.Key0, a.Key1, p[0], p[1], p[2], p[3])
}
