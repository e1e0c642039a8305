package cpu

import (
	"math/rand"
	"runtime"
	"testing"
)

// BenchmarkReLUMask times gorgonia.Rectify's mask x ≥ 0 as the plan
// computes it (geq, without a branch) beside the loop it replaced (a store
// under a branch on the sign), on one thread and 65,536 values of random
// sign, as a ReLU's inputs are (bench/NOTES.md, "The ReLU mask without a
// branch").
func BenchmarkReLUMask(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	r := rand.New(rand.NewSource(1))
	x, out := make([]float32, 1<<16), make([]float32, 1<<16)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	mask := elementwise["gorgonia.elemBinOp(>= same)"].ts
	b.Run("branch-free", func(b *testing.B) {
		b.SetBytes(8 << 16)
		for b.Loop() {
			mask(x, 0, out)
		}
	})
	b.Run("branchy", func(b *testing.B) {
		b.SetBytes(8 << 16)
		for b.Loop() {
			for i := range out {
				out[i] = 0
				if x[i] >= 0 {
					out[i] = 1
				}
			}
		}
	})
}
