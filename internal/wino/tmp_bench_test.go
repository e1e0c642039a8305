package wino

import (
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
)

func BenchmarkTmp(b *testing.B) {
	h, w := 32, 32
	r := rng.New(1, "x")
	th, tw := F4Tiles(h, w)
	z := randPlane(r, 36*th*tw*4)
	pad := make([]float32, F4PadSize(h, w)+PadSize(h, w))
	dx := make([]float32, h*w)
	src := randPlane(r, h*w)
	v := make([]float32, 36*th*tw*4)
	b.Run("F4InputGrad", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			F4InputGrad(z, th*tw, h, w, pad, dx)
		}
	})
	b.Run("F4Output", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			F4Output(z, th*tw, h, w, 0.5, pad, dx)
		}
	})
	b.Run("F4Input", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			F4Input(src, h, w, pad, v, th*tw, Cols{})
		}
	})
	b.Run("F4OutGrad", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			F4OutGrad(src, h, w, v, th*tw, Cols{})
		}
	})
	th2, tw2 := Tiles(h, w)
	b.Run("F2InputGrad", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			InputGrad(z, th2*tw2, h, w, pad, dx)
		}
	})
	b.Run("F2Output", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			Output(z, th2*tw2, h, w, 0.5, pad, dx)
		}
	})
	b.Run("F2Input", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			Input(src, h, w, pad, v, th2*tw2, Cols{})
		}
	})
	b.Run("F2OutGrad", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			OutGrad(src, h, w, v, th2*tw2, Cols{})
		}
	})
}
