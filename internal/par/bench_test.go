package par

import (
	"fmt"
	"runtime"
	"testing"
)

// BenchmarkLoopStart: what a loop of GOMAXPROCS chunks of a few
// microseconds' work each costs beyond that work, loops back to back as a
// training step opens them, with its goroutines spawned or pooled
// (bench/NOTES.md, "The loops' goroutines pooled").
func BenchmarkLoopStart(b *testing.B) {
	defer SetStart(SetStart(Spawned))
	procs := runtime.GOMAXPROCS(0)
	sink := make([]float64, 64*procs)
	for _, work := range []int{0, 2000} {
		for _, s := range []Start{Spawned, Pooled} {
			b.Run(fmt.Sprintf("%s/work=%d", s, work), func(b *testing.B) {
				SetStart(s)
				for i := 0; i < b.N; i++ {
					Chunks(procs, func(j, _ int) {
						x := sink[64*j]
						for k := 0; k < work; k++ {
							x = x*0.999 + 1
						}
						sink[64*j] = x
					})
				}
			})
		}
	}
}
