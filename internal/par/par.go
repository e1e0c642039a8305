package par

import (
	"runtime"
	"sync"

	"github.com/llpfc/llpfc/internal/stepprof"
)

// ChunkBounds returns the image range of chunk j of n images in nc chunks.
func ChunkBounds(j, nc, n int) (int, int) { return j * n / nc, (j + 1) * n / nc }

// Chunks runs f(j, worker) for chunks j = 0..nc−1 on up to
// GOMAXPROCS goroutines; worker identifies the goroutine's scratch space.
func Chunks(nc int, f func(j, worker int)) {
	defer stepprof.Parallel(nc, true).End()
	chunks(nc, f)
}

// ChunksOf is Chunks for a loop that cut its work into nc chunks for the
// GOMAXPROCS of the moment, out of at most width pieces: the step profile
// (internal/stepprof) records the width the loop could use on more cores,
// not nc.
func ChunksOf(nc, width int, f func(j, worker int)) {
	defer stepprof.Parallel(width, false).End()
	chunks(nc, f)
}

func chunks(nc int, f func(j, worker int)) {
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

// Channels runs f over channel ranges [lo, hi) on up to GOMAXPROCS
// goroutines; each channel is handled by exactly one call.
func Channels(c int, f func(lo, hi int)) {
	defer stepprof.Parallel(c, false).End()
	nc := min(c, 4*runtime.GOMAXPROCS(0))
	chunks(nc, func(j, _ int) {
		lo, hi := ChunkBounds(j, nc, c)
		f(lo, hi)
	})
}

// Range runs f over [0, n) split into contiguous ranges on up to
// GOMAXPROCS goroutines when n is large enough to pay for them (element-wise
// updates: the result does not depend on the split).
func Range(n int, f func(lo, hi int)) {
	const grain = 1 << 15
	if n < 2*grain {
		f(0, n)
		return
	}
	defer stepprof.Parallel(n/grain, false).End()
	nc := min(runtime.GOMAXPROCS(0), n/grain)
	chunks(nc, func(j, _ int) {
		lo, hi := ChunkBounds(j, nc, n)
		f(lo, hi)
	})
}
