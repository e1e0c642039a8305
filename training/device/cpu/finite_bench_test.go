package cpu

import (
	"math/rand"
	"sync/atomic"
	"testing"

	"github.com/llpfc/llpfc/internal/par"
	"github.com/llpfc/llpfc/internal/vec"
)

// allFiniteSums is the check firstNonFinite ran before vec.AllFinite, kept
// for the benchmark as its baseline: four float32 sums of v·0, which stay 0
// unless a value is NaN or ±Inf. vec.AllFinite's Go twin (allFiniteGo, what
// processors without AVX2 run) is the same loop; vec does not export it.
func allFiniteSums(g []float32) bool {
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(g); i += 4 {
		s0 += g[i] * 0
		s1 += g[i+1] * 0
		s2 += g[i+2] * 0
		s3 += g[i+3] * 0
	}
	for ; i < len(g); i++ {
		s0 += g[i] * 0
	}
	return s0+s1+s2+s3 == 0
}

// resnet18Sizes are ResNet18's parameter arrays for 1000 classes (the
// convolutions' weights, the shortcut projections, batch norm's scales and
// shifts, the classifier): 11.7 M float32, 47 MB.
func resnet18Sizes() []int {
	s := []int{64 * 3 * 7 * 7, 64, 64}
	stage := func(cin, cout int, project bool) {
		s = append(s, cout*cin*9, cout, cout, cout*cout*9, cout, cout)
		if project {
			s = append(s, cout*cin, cout, cout)
		}
		s = append(s, cout*cout*9, cout, cout, cout*cout*9, cout, cout)
	}
	stage(64, 64, false)
	stage(64, 128, true)
	stage(128, 256, true)
	stage(256, 512, true)
	return append(s, 512*1000, 1000)
}

// BenchmarkGradsFinite: the check before each update over ResNet18's
// gradients (all finite, the common case), on every core by par.Ranges as
// firstNonFinite runs it: the old float sums beside vec.AllFinite on the
// bits. "l3" checks one set of gradients, which stays in this machine's
// 480 MB L3 between iterations; "dram" turns through 12 copies (560 MB), so
// each is read from memory, as after a backward pass whose activations
// evicted it. Run with -cpu 1,2; MB/s is the rate through the gradients.
func BenchmarkGradsFinite(b *testing.B) {
	sizes := resnet18Sizes()
	r := rand.New(rand.NewSource(60))
	const copies = 12
	sets := make([][][]float32, copies)
	bytes := 0
	for k := range sets {
		sets[k] = make([][]float32, len(sizes))
		for i, n := range sizes {
			sets[k][i] = make([]float32, n)
			if k == 0 {
				for j := range sets[k][i] {
					sets[k][i][j] = float32(r.NormFloat64() * 1e-3)
				}
				bytes += 4 * n
			} else {
				copy(sets[k][i], sets[0][i])
			}
		}
	}
	for _, mem := range []struct {
		name string
		sets int
	}{{"l3", 1}, {"dram", copies}} {
		for _, c := range []struct {
			name  string
			check func([]float32) bool
		}{{"sums", allFiniteSums}, {"bits", vec.AllFinite}} {
			b.Run(mem.name+"/"+c.name, func(b *testing.B) {
				b.SetBytes(int64(bytes))
				k := 0
				for b.Loop() {
					gs := sets[k%mem.sets]
					k++
					var any atomic.Bool
					par.Ranges(sizes, func(i, lo, hi int) {
						if !c.check(gs[i][lo:hi]) {
							any.Store(true)
						}
					})
					if any.Load() {
						b.Fatal("a non-finite value")
					}
				}
			})
		}
	}
}
