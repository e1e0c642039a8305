package training

import (
	"fmt"

	"github.com/llpfc/llpfc/training/loss"
)

// A 1×2×3 image, zero-padded by 1, cropped at offset (1, 0) of the padded
// image and mirrored.
func ExampleCropFlip_ApplyDraw() {
	src := Batch{N: 1, C: 1, H: 2, W: 3, Data: []float32{1, 2, 3, 4, 5, 6}}
	dst := Batch{N: 1, C: 1, H: 2, W: 3, Data: make([]float32, 6)}
	a := CropFlip{Pad: 1, FlipProb: 0.5}
	if err := a.ApplyDraw(dst, src, 0, CropFlipDraw{Top: 1, Left: 0, Flip: true}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(dst.Data[:3])
	fmt.Println(dst.Data[3:])
	// Output:
	// [2 1 0]
	// [5 4 0]
}

// LLP-VAT's consistency weight over a run of 100 steps: it ramps up over
// the first 40.
func ExampleVATWeight() {
	for _, step := range []int{0, 20, 40, 99} {
		fmt.Printf("w(%d) = %.5f\n", step, loss.VATWeight(step, 100))
	}
	// Output:
	// w(0) = 0.00034
	// w(20) = 0.01433
	// w(40) = 0.05000
	// w(99) = 0.05000
}
