package par

import (
	"bytes"
	"fmt"
	"math/rand"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
)

// TestEveryIndexOnce: each loop calls f for every chunk, channel or element
// exactly once, whatever GOMAXPROCS, including sizes smaller than the number
// of workers and sizes that do not divide evenly.
func TestEveryIndexOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 3, 8} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{1, 2, 7, 64, 1<<16 + 3} {
			name := fmt.Sprintf("procs=%d/n=%d", procs, n)
			hits := make([]atomic.Int32, n)
			if n <= 64 {
				Chunks(n, func(j, worker int) {
					assert.Less(t, worker, procs, "%s: worker index", name)
					hits[j].Add(1)
				})
				for j := range hits {
					assert.EqualValues(t, 1, hits[j].Load(), "%s: Chunks, chunk %d", name, j)
					hits[j].Store(0)
				}
				Channels(n, func(lo, hi int) {
					for c := lo; c < hi; c++ {
						hits[c].Add(1)
					}
				})
				for c := range hits {
					assert.EqualValues(t, 1, hits[c].Load(), "%s: Channels, channel %d", name, c)
					hits[c].Store(0)
				}
			}
			Range(n, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					hits[i].Add(1)
				}
			})
			for i := range hits {
				if hits[i].Load() != 1 {
					t.Fatalf("%s: Range, element %d seen %d times", name, i, hits[i].Load())
				}
			}
		}
	}
}

// TestChunkBoundsPartition: the chunks' bounds tile [0, n) in order.
func TestChunkBoundsPartition(t *testing.T) {
	for _, n := range []int{0, 1, 5, 100} {
		for _, nc := range []int{1, 3, 8} {
			next := 0
			for j := 0; j < nc; j++ {
				lo, hi := ChunkBounds(j, nc, n)
				assert.Equal(t, next, lo, "n=%d nc=%d chunk %d", n, nc, j)
				assert.LessOrEqual(t, lo, hi)
				next = hi
			}
			assert.Equal(t, n, next, "n=%d nc=%d: the chunks end at n", n, nc)
		}
	}
}

// TestPropertyRangesCoverEveryElementOnce: over generated arrays (empty ones
// among them, totals below and above the split's threshold), Ranges calls f
// with pieces inside one array each, and every element of every array is
// in exactly one piece, whatever GOMAXPROCS.
func TestPropertyRangesCoverEveryElementOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	props := gopter.NewProperties(gopter.DefaultTestParametersWithSeed(7))
	props.Property("each element once", prop.ForAll(func(seed int64, procs int) string {
		runtime.GOMAXPROCS(procs)
		r := rand.New(rand.NewSource(seed))
		sizes := make([]int, r.Intn(6))
		for i := range sizes {
			switch r.Intn(3) {
			case 0:
				sizes[i] = r.Intn(5)
			case 1:
				sizes[i] = r.Intn(3 * grain)
			default:
				sizes[i] = r.Intn(200)
			}
		}
		hits := make([][]atomic.Int32, len(sizes))
		for i, s := range sizes {
			hits[i] = make([]atomic.Int32, s)
		}
		var bad atomic.Value
		Ranges(sizes, func(i, lo, hi int) {
			if i < 0 || i >= len(sizes) || lo < 0 || hi > sizes[i] || lo >= hi {
				bad.Store(fmt.Sprintf("piece (%d, %d, %d) of sizes %v", i, lo, hi, sizes))
				return
			}
			for j := lo; j < hi; j++ {
				hits[i][j].Add(1)
			}
		})
		if b := bad.Load(); b != nil {
			return b.(string)
		}
		for i := range hits {
			for j := range hits[i] {
				if n := hits[i][j].Load(); n != 1 {
					return fmt.Sprintf("sizes %v: element %d of array %d seen %d times", sizes, j, i, n)
				}
			}
		}
		return ""
	}, gen.Int64(), gen.IntRange(1, 8)))
	var log bytes.Buffer
	if !props.Run(gopter.NewFormatedReporter(false, 200, &log)) {
		t.Error(log.String())
	}
}
