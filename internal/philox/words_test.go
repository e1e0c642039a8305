package philox

import (
	"fmt"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"
)

// TestWordsAreBlocks: Words writes Block10's words, block after block, on
// the vector path (where this processor has it) and on the Go loop alike:
// generated keys, counters (near the 2³² wrap too) and lengths (the
// vector path's groups of eight blocks and a remainder). A swapped word, a
// transposed pair of blocks, a lane offset or a key bumped once too often
// fails.
func TestWordsAreBlocks(t *testing.T) {
	for _, asm := range []bool{false, true} {
		if asm && !hasAsm {
			continue
		}
		t.Run(fmt.Sprintf("asm=%v", asm), func(t *testing.T) {
			defer func(v bool) { useAsm = v }(useAsm)
			useAsm = asm
			p := gopter.NewProperties(gopter.DefaultTestParametersWithSeed(1))
			p.Property("Words = Block10 block by block", prop.ForAll(func(g0, c1, k0, k1 uint32, blocks int, wrap bool) bool {
				if wrap {
					g0 = 0xffffffff - uint32(blocks/2)
				}
				dst := make([]uint32, 4*blocks+4)
				dst[4*blocks] = 0xdeadbeef
				Words(dst[:4*blocks], g0, c1, Key{k0, k1})
				for b := 0; b < blocks; b++ {
					want := Block10(Counter{g0 + uint32(b), c1, 0, 0}, Key{k0, k1})
					if [4]uint32(dst[4*b:4*b+4]) != want {
						t.Logf("block %d of %d from %d: %08x, want %08x", b, blocks, g0, dst[4*b:4*b+4], want)
						return false
					}
				}
				return dst[4*blocks] == 0xdeadbeef // nothing written past the end
			}, gen.UInt32(), gen.UInt32(), gen.UInt32(), gen.UInt32(), gen.IntRange(0, 70), gen.Bool()))
			p.TestingRun(t)
		})
	}
	require.Panics(t, func() { Words(make([]uint32, 6), 0, 0, Key{}) })
}

// BenchmarkWords times a dropout mask's numbers, 4096 a call, on the
// vector path and on Block10's loop (ns per number).
func BenchmarkWords(b *testing.B) {
	dst := make([]uint32, 4096)
	for _, asm := range []bool{false, true} {
		if asm && !hasAsm {
			continue
		}
		b.Run(fmt.Sprintf("asm=%v", asm), func(b *testing.B) {
			defer func(v bool) { useAsm = v }(useAsm)
			useAsm = asm
			for i := 0; i < b.N; i++ {
				Words(dst, uint32(i)*1024, 3, Key{1, 2})
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(dst)), "ns/number")
		})
	}
}
