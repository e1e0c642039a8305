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
// parts added in order (as one loop over them would), on every core. out
// may be parts[0] itself.
//
// Seven parts at a time in one loop (addParts): the value being summed
// stays in a register, so each value of out is loaded and stored once for
// ∂/∂W's eight partial sums, not once a part. The order of the additions,
// and so every bit, is the one-part-at-a-time loop's. On the Intel Xeon
// here this took the sum of eight parts of 327,680 or 589,824 values (about
// Winograd's 16 products of 128×128, and 256×2304) from 2.2 and 5.9 ms to
// 1.15 and 2.3 ms at one thread (medians; bench/NOTES.md, "∂/∂W's partial
// sums in one pass").
func sumPartials[F float](out []F, parts [][]F) {
	par.Range(len(out), func(lo, hi int) {
		o := out[lo:hi]
		if len(o) == 0 {
			return
		}
		if &o[0] != &parts[0][lo] {
			copy(o, parts[0][lo:hi])
		}
		for ps := parts[1:]; len(ps) > 0; {
			k := min(len(ps), 7)
			addParts(o, ps[:k], lo)
			ps = ps[k:]
		}
	})
}

// addParts adds ps[0][lo:], ps[1][lo:], … (at most seven) to o in that
// order, value by value.
func addParts[F float](o []F, ps [][]F, lo int) {
	n := len(o)
	switch len(ps) {
	case 7:
		a, b, c, d := ps[0][lo:lo+n], ps[1][lo:lo+n], ps[2][lo:lo+n], ps[3][lo:lo+n]
		e, f, g := ps[4][lo:lo+n], ps[5][lo:lo+n], ps[6][lo:lo+n]
		for i := range o {
			s := o[i]
			s += a[i]
			s += b[i]
			s += c[i]
			s += d[i]
			s += e[i]
			s += f[i]
			s += g[i]
			o[i] = s
		}
	case 3:
		a, b, c := ps[0][lo:lo+n], ps[1][lo:lo+n], ps[2][lo:lo+n]
		for i := range o {
			s := o[i]
			s += a[i]
			s += b[i]
			s += c[i]
			o[i] = s
		}
	default:
		for _, p := range ps {
			for i, v := range p[lo : lo+n] {
				o[i] += v
			}
		}
	}
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
