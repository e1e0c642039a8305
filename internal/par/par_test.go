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
	defer SetSchedule(SetSchedule(Dynamic))
	for _, sched := range []Schedule{Dynamic, Static} {
		SetSchedule(sched)
		for _, procs := range []int{1, 3, 8} {
			runtime.GOMAXPROCS(procs)
			for _, n := range []int{1, 2, 7, 64, 1<<16 + 3, 1 << 20} {
				name := fmt.Sprintf("%s/procs=%d/n=%d", sched, procs, n)
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
}

// TestWorkerScratchIsExclusive: under either schedule, a worker index is
// never in two calls at once (callers give each worker its own scratch
// space), every index is below min(GOMAXPROCS, nc), and under the static
// schedule worker p runs chunks p, p+w, … (its documented order).
func TestWorkerScratchIsExclusive(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	defer SetSchedule(SetSchedule(Dynamic))
	props := gopter.NewProperties(gopter.DefaultTestParametersWithSeed(11))
	props.Property("one call per worker at a time", prop.ForAll(func(procs, nc int, static bool, seed int64) string {
		runtime.GOMAXPROCS(procs)
		SetSchedule(map[bool]Schedule{true: Static, false: Dynamic}[static])
		workers := min(procs, nc)
		inUse := make([]atomic.Int32, workers)
		ran := make([]atomic.Int32, nc)
		by := make([]int, nc)
		var bad atomic.Value
		Chunks(nc, func(j, p int) {
			if p < 0 || p >= workers {
				bad.Store(fmt.Sprintf("chunk %d on worker %d of %d", j, p, workers))
				return
			}
			if inUse[p].Add(1) != 1 {
				bad.Store(fmt.Sprintf("worker %d in two calls at once (chunk %d)", p, j))
			}
			by[j] = p
			// Uneven chunks, so that the dynamic schedule's workers interleave.
			r := rand.New(rand.NewSource(seed + int64(j)))
			x := 0
			for i := r.Intn(20000); i > 0; i-- {
				x += i
			}
			if x < 0 {
				bad.Store("overflow")
			}
			ran[j].Add(1)
			inUse[p].Add(-1)
		})
		if b := bad.Load(); b != nil {
			return b.(string)
		}
		for j := range ran {
			if ran[j].Load() != 1 {
				return fmt.Sprintf("chunk %d ran %d times", j, ran[j].Load())
			}
			if static && workers > 1 && by[j] != j%workers {
				return fmt.Sprintf("static: chunk %d on worker %d, want %d", j, by[j], j%workers)
			}
		}
		return ""
	}, gen.IntRange(1, 9), gen.IntRange(1, 70), gen.Bool(), gen.Int64()))
	var log bytes.Buffer
	if !props.Run(gopter.NewFormatedReporter(false, 200, &log)) {
		t.Error(log.String())
	}
}

// TestScheduleFromEnv: the environment's names, the default, and an
// unknown name (dynamic, with a word on standard error).
func TestScheduleFromEnv(t *testing.T) {
	for in, want := range map[string]Schedule{"": Dynamic, "dynamic": Dynamic, "static": Static, "Static": Dynamic, "round-robin": Dynamic} {
		assert.Equal(t, want, scheduleFromEnv(in), "%q", in)
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
