package nn

import (
	"fmt"
	"testing"
)

// BenchmarkWinogradLayers times the forward, ∂/∂x and ∂/∂W of the 3×3
// stride-1 layers of WRN-16-4 at batch 32 and of VGG16 at batch 32 (32×32
// inputs) by F(2×2, 3×3) and by F(4×4, 3×3) (bench/NOTES.md, "Lever 17"):
//
//	go test ./training/nn -run X -bench WinogradLayers -benchtime 10x
func BenchmarkWinogradLayers(b *testing.B) {
	defer func(v int) { winoF4MinMap = v }(winoF4MinMap)
	defer SetWinogradF4(SetWinogradF4(true))
	winoF4MinMap = 1
	for _, l := range []struct {
		name          string
		n, c, o, h, w int
	}{
		{"wrn-16to64-32x32", 32, 16, 64, 32, 32},
		{"wrn-64to64-32x32", 32, 64, 64, 32, 32},
		{"wrn-64to128-32x32", 32, 64, 128, 32, 32},
		{"wrn-128to128-16x16", 32, 128, 128, 16, 16},
		{"wrn-128to256-16x16", 32, 128, 256, 16, 16},
		{"wrn-256to256-8x8", 32, 256, 256, 8, 8},
		{"vgg-128to128-16x16", 32, 128, 128, 16, 16},
		{"vgg-256to256-8x8", 32, 256, 256, 8, 8},
	} {
		c := convCase{l.n, l.c, l.h, l.w, l.o, 3, 1, 1}
		g := newConvGeom(c.c, c.h, c.w, c.o, c.k, c.pad, c.stride)
		x, w, bias, dy, rand := convInputs(c, 1)
		y, dx, dw := rand(len(dy)), rand(len(x)), rand(len(w))
		for _, f4 := range []bool{false, true} {
			alg := "F2"
			if f4 {
				alg = "F4"
			}
			var sc scratch[float32]
			for pass, run := range []func(){
				func() { convForwardPacked(g, c.n, x, w, bias, y, &sc) },
				func() { _ = convBackwardPacked(g, 0, c.n, w, dy, dx, &sc) },
				func() { _ = convBackwardPacked(g, 1, c.n, x, dy, dw, &sc) },
			} {
				b.Run(fmt.Sprintf("%s/%s/%s", l.name, []string{"fwd", "dx", "dw"}[pass], alg), func(b *testing.B) {
					SetWinogradF4(f4)
					run()
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						run()
					}
				})
			}
		}
	}
}
