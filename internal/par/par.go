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

// Ranges runs f over the elements of several arrays (sizes[i] elements
// each) as if they were one: [0, Σ sizes) is split into contiguous ranges
// on up to GOMAXPROCS goroutines when it is large enough to pay for them,
// as Range splits [0, n), and each range is cut at the arrays' ends, so f
// sees (array i, its elements lo..hi−1), every element exactly once. It is
// one parallel section for a whole model's parameters, where a Range per
// array left each small array on one core and started goroutines for
// each large one (the optimizer's update, the gradients' checks).
func Ranges(sizes []int, f func(i, lo, hi int)) {
	n := 0
	for _, s := range sizes {
		n += s
	}
	// visit calls f for the pieces of the global range [a, b).
	visit := func(a, b int) {
		start := 0
		for i, s := range sizes {
			lo, hi := max(a-start, 0), min(b-start, s)
			if lo < hi {
				f(i, lo, hi)
			}
			start += s
			if start >= b {
				return
			}
		}
	}
	if n < 2*grain {
		visit(0, n)
		return
	}
	defer stepprof.Parallel(n/grain, false).End()
	nc := min(runtime.GOMAXPROCS(0), n/grain)
	chunks(nc, func(j, _ int) {
		visit(ChunkBounds(j, nc, n))
	})
}

// grain is the fewest elements an element-wise loop gives a goroutine.
const grain = 1 << 15

// Range runs f over [0, n) split into contiguous ranges on up to
// GOMAXPROCS goroutines when n is large enough to pay for them (element-wise
// updates: the result does not depend on the split).
func Range(n int, f func(lo, hi int)) {
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
