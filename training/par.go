package training

import (
	"runtime"
	"sync"
)

// chunkBounds returns the image range of chunk j of n images in nc chunks.
func chunkBounds(j, nc, n int) (int, int) { return j * n / nc, (j + 1) * n / nc }

// parallelChunks runs f(j, worker) for chunks j = 0..nc−1 on up to
// GOMAXPROCS goroutines; worker identifies the goroutine's scratch space.
func parallelChunks(nc int, f func(j, worker int)) {
	workers := min(runtime.GOMAXPROCS(0), nc)
	if workers <= 1 {
		for j := 0; j < nc; j++ {
			f(j, 0)
		}
		return
	}
	var wg sync.WaitGroup
	for p := 0; p < workers; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for j := p; j < nc; j += workers {
				f(j, p)
			}
		}(p)
	}
	wg.Wait()
}

// parallelChannels runs f over channel ranges [lo, hi) on up to GOMAXPROCS
// goroutines; each channel is handled by exactly one call.
func parallelChannels(c int, f func(lo, hi int)) {
	nc := min(c, 4*runtime.GOMAXPROCS(0))
	parallelChunks(nc, func(j, _ int) {
		lo, hi := chunkBounds(j, nc, c)
		f(lo, hi)
	})
}
