package nn

import (
	"runtime"

	"github.com/llpfc/llpfc/internal/par"
	"github.com/llpfc/llpfc/internal/sgemm"
)

// How the convolutions share their work among more threads than the fixed
// convChunks (bench/NOTES.md, "Many cores as well as two"): at 16 threads a
// loop of 8 chunks leaves half the cores idle. None of the cuts below
// changes a bit of any result: the forward and ∂/∂x sum nothing across
// images, and ∂/∂W keeps its convChunks partial sums, each summed in the
// same order, only their columns (or Winograd's 16 products) shared among
// several workers (TestConvBitsDoNotDependOnTheThreads).

// convImageChunks is the number of chunks of n images for a forward or
// ∂/∂x pass, whose images are independent: convChunks, or four per thread
// where more threads run, at most one image a chunk.
func convImageChunks(n int) int {
	return min(n, max(convChunks, 4*runtime.GOMAXPROCS(0)))
}

// convFilterPieces is the number of pieces each of ∂/∂W's nc chunks is cut
// into so that the nc·pieces tasks keep every thread busy: 1 while the
// chunks alone do.
func convFilterPieces(nc int) int {
	return max(1, (runtime.GOMAXPROCS(0)+nc-1)/nc)
}

// colStrips is the number of the active kernel's NR-column strips of n
// columns (the most pieces a product's columns are cut into).
func colStrips(n int) int { return max(1, (n+sgemm.Active().NR-1)/sgemm.Active().NR) }

// sumPartials writes out = parts[0] + parts[1] + … value by value, the
// parts added in order (as one loop over them would), on every core.
func sumPartials(out []float32, parts [][]float32) {
	par.Range(len(out), func(lo, hi int) {
		o := out[lo:hi]
		copy(o, parts[0][lo:hi])
		for _, p := range parts[1:] {
			for i, v := range p[lo:hi] {
				o[i] += v
			}
		}
	})
}

// convStackRegroup returns the images per stacked product for n images of
// hw values stacked gs at a time when the groups would be fewer than the
// threads: fewer images a group, so that there are at least as many groups
// as threads, but never fewer columns than one NR strip. The forward and
// ∂/∂x sum each entry over the same terms whatever the group, so the bits
// do not change.
func convStackRegroup(n, gs, hw int) int {
	threads := runtime.GOMAXPROCS(0)
	if (n+gs-1)/gs >= threads {
		return gs
	}
	least := (sgemm.Active().NR + hw - 1) / hw
	return max(1, min(gs, max(n/threads, least)))
}
