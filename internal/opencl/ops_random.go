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
