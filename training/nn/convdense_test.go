package nn

import (
	"fmt"
	"testing"

	"github.com/llpfc/llpfc/internal/sgemm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// denseCases are geometries the dense path takes: ResNet18's 2×2 and 1×1
// stages and its 2×2 → 1×1 stride-2 layer (channel counts cut down, off the
// micro-kernels' MR and NR), a 3×3 map (every tap live for the centre
// output only), 3×3 → 1×1 without padding, a 1×1 kernel on a 1×1 map, a
// 2×2 kernel on a 2×2 map, a 5×5 kernel on a 4×4 map, a non-square map, one
// image, and a batch across several of the product's row blocks.
var denseCases = []convCase{
	{20, 24, 2, 2, 16, 3, 1, 1}, // ResNet18's 2×2 stage
	{9, 40, 1, 1, 33, 3, 1, 1},  // its 1×1 stage: only the centre tap is live
	{12, 20, 2, 2, 17, 3, 1, 2}, // its 2×2 → 1×1, stride 2
	{7, 10, 3, 3, 12, 3, 1, 1},  // 3×3 map
	{5, 7, 3, 3, 11, 3, 0, 1},   // 3×3 → 1×1 without padding
	{6, 30, 1, 1, 19, 1, 0, 1},  // 1×1 kernel on a 1×1 map
	{4, 9, 2, 2, 6, 2, 0, 1},    // 2×2 kernel, 2×2 map → 1×1
	{3, 5, 4, 4, 7, 5, 2, 1},    // 5×5 kernel on 4×4: 16 ≤ 25
	{5, 8, 2, 3, 10, 3, 1, 1},   // 2×3 map
	{1, 16, 2, 2, 16, 3, 1, 1},  // one image
	{130, 12, 2, 2, 9, 3, 1, 1}, // 130 images: several row blocks of the products
	{3, 2, 1, 1, 3, 1, 1, 2},    // 1×1 image, padding 1, stride 2: only padding is read
}

// TestDenseConvMatchesDirect: the dense path's forward (bias included), ∂/∂x
// and ∂/∂W agree with the convolution's definition computed in float64, to
// float32 rounding of each output's own terms, on every micro-kernel the
// machine runs; give the same bits on 1, 2 and 3 threads; and a second run
// on the same scratch gives the first's (convPackedAll).
func TestDenseConvMatchesDirect(t *testing.T) {
	eachKernel(t, func(kern sgemm.Kernel) {
		for i, c := range denseCases {
			t.Run(fmt.Sprintf("%s/%+v", kern.Name, c), func(t *testing.T) {
				g := newConvGeom(c.c, c.h, c.w, c.o, c.k, c.pad, c.stride)
				require.True(t, denseConvOK(g), "case does not take the dense path")
				requireMatchesDirect(t, c, int64(200+i), "the dense path")
			})
		}
	})
}

// TestDenseConvOnlyWhereItPays: the dense path takes the maps of at most k²
// values whose matrix M fits its bound, and no other: ResNet18's 4×4 maps
// stay Winograd's, its stride-2 4×4 → 2×2 and 1×1 shortcuts the stacked
// products', and a 2×2 layer of 1,448 channels (M of 33.5 Mi values) the
// others'.
func TestDenseConvOnlyWhereItPays(t *testing.T) {
	for _, tc := range []struct {
		g    convGeom
		want bool
	}{
		{newConvGeom(256, 2, 2, 256, 3, 1, 1), true},
		{newConvGeom(512, 1, 1, 512, 3, 1, 1), true},
		{newConvGeom(256, 2, 2, 512, 3, 1, 2), true},
		{newConvGeom(512, 2, 2, 512, 3, 1, 1), true}, // VGG16's last block at 32×32: M of 4 Mi values
		{newConvGeom(128, 4, 4, 128, 3, 1, 1), false},
		{newConvGeom(128, 4, 4, 256, 3, 1, 2), false},
		{newConvGeom(256, 2, 2, 512, 1, 0, 2), false},
		{newConvGeom(64, 8, 8, 64, 3, 1, 1), false},
		{newConvGeom(1448, 2, 2, 1448, 3, 1, 1), false},
	} {
		assert.Equal(t, tc.want, denseConvOK(tc.g), "%+v", tc.g)
	}
}
