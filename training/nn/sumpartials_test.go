package nn

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// TestSumPartialsIsTheLoopOverParts: for generated part counts (one to
// seventeen: the groups of seven and three addParts unrolls, and what is
// left after them), lengths (none to a few thousand values, cut into any
// number of ranges), threads (one to six) and out either parts[0] itself
// (Winograd's ∂/∂W) or a buffer of its own, sumPartials writes bit for bit
// what the obvious loop writes — out = parts[0], then each later part added
// value by value in order — in float32 and float64, with values whose order
// of addition decides their rounding; and it leaves every part but an
// aliased parts[0] as it was.
func TestSumPartialsIsTheLoopOverParts(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 300
	p := gopter.NewProperties(params)
	p.Property("same bits", prop.ForAll(func(nparts, n, threads int, alias bool, seed uint64) bool {
		runtime.GOMAXPROCS(threads)
		return sameSumPartials[float32](nparts, n, alias, seed) && sameSumPartials[float64](nparts, n, alias, seed)
	}, gen.IntRange(1, 17), gen.IntRange(0, 3000), gen.IntRange(1, 6), gen.Bool(), gen.UInt64()))
	p.TestingRun(t)
}

func sameSumPartials[F float](nparts, n int, alias bool, seed uint64) bool {
	r := rand.New(rand.NewPCG(seed, 17))
	parts := make([][]F, nparts)
	for j := range parts {
		parts[j] = make([]F, n)
		for i := range parts[j] {
			parts[j][i] = F(r.NormFloat64() * math.Pow(2, float64(r.IntN(48)-24)))
		}
	}
	want := make([]F, n)
	for i := range want {
		s := parts[0][i]
		for _, p := range parts[1:] {
			s += p[i]
		}
		want[i] = s
	}
	before := make([][]F, nparts)
	for j := range parts {
		before[j] = append([]F(nil), parts[j]...)
	}
	out := make([]F, n)
	if alias {
		out = parts[0]
	}
	sumPartials(out, parts)
	for i := range want {
		if math.Float64bits(float64(out[i])) != math.Float64bits(float64(want[i])) {
			return false
		}
	}
	for j := range parts {
		if alias && j == 0 {
			continue
		}
		for i := range parts[j] {
			if math.Float64bits(float64(parts[j][i])) != math.Float64bits(float64(before[j][i])) {
				return false
			}
		}
	}
	return true
}
