package par

import (
	"bytes"
	"fmt"
	"math/rand"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
)

// TestEveryIndexOnce: each loop calls f for every chunk, channel or element
// exactly once, whatever GOMAXPROCS, including sizes smaller than the number
// of workers and sizes that do not divide evenly, under either schedule and
// either start (the pool's workers grown and then used by fewer).
func TestEveryIndexOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	defer SetSchedule(SetSchedule(Dynamic))
	defer SetStart(SetStart(Spawned))
	for _, mode := range []struct {
		sched Schedule
		start Start
	}{{Dynamic, Spawned}, {Static, Spawned}, {Dynamic, Pooled}, {Static, Pooled}} {
		SetSchedule(mode.sched)
		SetStart(mode.start)
		for _, procs := range []int{1, 3, 8} {
			runtime.GOMAXPROCS(procs)
			for _, n := range []int{1, 2, 7, 64, 1<<16 + 3, 1 << 20} {
				name := fmt.Sprintf("%s/%s/procs=%d/n=%d", mode.sched, mode.start, procs, n)
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

// TestWorkerScratchIsExclusive: under either schedule and either start, a
// worker index is never in two calls at once (callers give each worker its
// own scratch space), every index is below min(GOMAXPROCS, nc), and under
// the static schedule worker p runs chunks p, p+w, … (its documented order).
func TestWorkerScratchIsExclusive(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	defer SetSchedule(SetSchedule(Dynamic))
	defer SetStart(SetStart(Spawned))
	props := gopter.NewProperties(gopter.DefaultTestParametersWithSeed(11))
	props.Property("one call per worker at a time", prop.ForAll(func(procs, nc int, static, pooled bool, seed int64) string {
		runtime.GOMAXPROCS(procs)
		SetSchedule(map[bool]Schedule{true: Static, false: Dynamic}[static])
		SetStart(map[bool]Start{true: Pooled, false: Spawned}[pooled])
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
	}, gen.IntRange(1, 9), gen.IntRange(1, 70), gen.Bool(), gen.Bool(), gen.Int64()))
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

// TestStartFromEnv: the environment's names, the default, and an unknown
// name (spawned, with a word on standard error).
func TestStartFromEnv(t *testing.T) {
	for in, want := range map[string]Start{"": Spawned, "spawned": Spawned, "pooled": Pooled, "pool": Spawned, "Pooled": Spawned} {
		assert.Equal(t, want, startFromEnv(in), "%q", in)
	}
}

// TestPooledLoopsNestAndOverlap: under the pooled start, loops opened inside
// a loop's calls (the pool is held: they are spawned) and loops opened by
// several goroutines at once (one holds the pool, the others spawn) give
// every index to exactly one call and finish, at any GOMAXPROCS and any
// pause between loops (the workers spinning, or asleep and woken), and
// with workers that do not spin at all (so that loops come while they fall
// asleep, the wake-up's race).
func TestPooledLoopsNestAndOverlap(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	defer SetStart(SetStart(Pooled))
	spin := poolSpin.Load()
	defer poolSpin.Store(spin)
	props := gopter.NewProperties(gopter.DefaultTestParametersWithSeed(12))
	props.Property("every index once, every loop ends", prop.ForAll(func(procs, outer, inner, callers, loops int, sleep, noSpin bool) string {
		runtime.GOMAXPROCS(procs)
		poolSpin.Store(spin)
		if noSpin {
			poolSpin.Store(0)
			loops *= 20
		}
		errs := make(chan string, callers)
		for c := 0; c < callers; c++ {
			go func() {
				for l := 0; l < loops; l++ {
					hits := make([]atomic.Int32, outer*inner)
					Chunks(outer, func(j, _ int) {
						Chunks(inner, func(k, _ int) { hits[j*inner+k].Add(1) })
					})
					for i := range hits {
						if hits[i].Load() != 1 {
							errs <- fmt.Sprintf("loop %d: index %d seen %d times", l, i, hits[i].Load())
							return
						}
					}
					if sleep {
						time.Sleep(2 * time.Duration(spin)) // the workers go to sleep before the next loop
					}
				}
				errs <- ""
			}()
		}
		for c := 0; c < callers; c++ {
			select {
			case e := <-errs:
				if e != "" {
					return e
				}
			case <-time.After(time.Minute):
				return "a loop did not end within a minute"
			}
		}
		return ""
	}, gen.IntRange(1, 9), gen.IntRange(1, 20), gen.IntRange(1, 12), gen.IntRange(1, 3), gen.IntRange(1, 6), gen.Bool(), gen.Bool()))
	var log bytes.Buffer
	if !props.Run(gopter.NewFormatedReporter(false, 200, &log)) {
		t.Error(log.String())
	}
}

// TestSleeperWakesOnce: a sleeper whose wait is over when it raises its
// flag returns awake — the flag lowered, no token left for a later sleep —
// whether or not a waker came between the flag and the look (ready calls
// wake); one that sleeps is woken by exactly one wake; and a wake finds no
// one to wake once the sleeper has returned.
func TestSleeperWakesOnce(t *testing.T) {
	for _, wakerInBetween := range []bool{false, true} {
		s := newSleeper()
		s.sleepUnless(func() bool {
			if wakerInBetween {
				assert.True(t, s.wake(), "the flag is raised while the sleeper looks")
			}
			return true
		})
		assert.False(t, s.asleep.Load(), "waker in between %v: the flag is lowered", wakerInBetween)
		assert.Zero(t, len(s.token), "waker in between %v: no token is left over", wakerInBetween)
		assert.False(t, s.wake(), "waker in between %v: no one to wake", wakerInBetween)
	}
	s := newSleeper()
	var ready atomic.Bool
	done := make(chan struct{})
	go func() {
		s.sleepUnless(ready.Load)
		close(done)
	}()
	for !s.asleep.Load() {
		runtime.Gosched()
	}
	ready.Store(true)
	for !s.wake() { // the flag may be down for a moment between two looks
		runtime.Gosched()
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the sleeper was not woken")
	}
	assert.False(t, s.asleep.Load())
	assert.Zero(t, len(s.token))
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
