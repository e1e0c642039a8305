package vec

import (
	"fmt"
	"math"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// TestDropout: each entry is x·scale where its number reaches the
// threshold (unsigned: numbers at and above 2³¹ too) and x·0 elsewhere —
// so a NaN or an infinity dropped is NaN — checked entry by entry against
// the definition, bits equal, on the AVX2 routine and the Go twin, for
// generated lengths (the routine's groups of eight and a tail), numbers
// around the threshold and thresholds across the range; y may be x.
func TestDropout(t *testing.T) {
	for _, asm := range []bool{false, true} {
		if asm && !HasAVX2 {
			continue
		}
		t.Run(fmt.Sprintf("asm=%v", asm), func(t *testing.T) {
			defer func(v bool) { useAsm = v }(useAsm)
			useAsm = asm
			p := gopter.NewProperties(gopter.DefaultTestParametersWithSeed(1))
			p.Property("Dropout = x·(w ≥ thr ? scale : 0)", prop.ForAll(func(n int, thr, seed uint32, scale float32, inPlace bool) bool {
				x, w := make([]float32, n), make([]uint32, n)
				s := seed | 1
				for i := range x {
					s = s*1664525 + 1013904223
					switch i % 7 {
					case 0:
						w[i] = thr
					case 1:
						w[i] = thr - 1
					case 2:
						w[i] = s ^ 0x80000000
					default:
						w[i] = s
					}
					x[i] = float32(int32(s>>8)) / (1 << 20)
					switch i % 11 {
					case 3:
						x[i] = float32(math.NaN())
					case 5:
						x[i] = float32(math.Inf(-1))
					case 7:
						x[i] = float32(math.Copysign(0, -1))
					}
				}
				want := make([]float32, n)
				for i := range x {
					k := float32(0)
					if w[i] >= thr {
						k = scale
					}
					want[i] = x[i] * k
				}
				y := make([]float32, n)
				if inPlace {
					y = x
				}
				Dropout(y, x, w, thr, scale)
				for i := range want {
					if math.Float32bits(y[i]) != math.Float32bits(want[i]) {
						t.Logf("entry %d of %d: x·k = %v, want %v (w %08x thr %08x)", i, n, y[i], want[i], w[i], thr)
						return false
					}
				}
				return true
			}, gen.IntRange(0, 100), gen.UInt32(), gen.UInt32(), gen.Float32Range(0.5, 4), gen.Bool()))
			p.TestingRun(t)
		})
	}
}
