package par

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/llpfc/llpfc/internal/stepprof"
)

// ChunkBounds returns the image range of chunk j of n images in nc chunks.
func ChunkBounds(j, nc, n int) (int, int) { return j * n / nc, (j + 1) * n / nc }

// Chunks runs f(j, worker) for chunks j = 0..nc−1 on up to
// GOMAXPROCS goroutines; worker identifies the goroutine's scratch space.
func Chunks(nc int, f func(j, worker int)) {
	m := stepprof.Parallel(nc, true)
	defer m.End()
	chunks(nc, f, m)
}

// ChunksOf is Chunks for a loop that cut its work into nc chunks for the
// GOMAXPROCS of the moment, out of at most width pieces: the step profile
// (internal/stepprof) records the width the loop could use on more cores,
// not nc.
func ChunksOf(nc, width int, f func(j, worker int)) {
	m := stepprof.Parallel(width, false)
	defer m.End()
	chunks(nc, f, m)
}

// chunks runs f(j, worker) for j = 0..nc−1 on up to GOMAXPROCS
// goroutines. Under the dynamic schedule (the default) each goroutine takes
// the next chunk not yet taken, so a worker that a slow chunk, a busy core
// or a late start holds back takes fewer and the others more; under the
// static one goroutine p takes chunks p, p+workers, … Every chunk is one
// call either way and its result does not depend on which goroutine ran
// it (worker only selects scratch space), so the schedule changes no bit.
// While the step profile records (m measures), each goroutine's thread CPU
// time is handed to m, which adds the section's imbalance to its region.
// The goroutines are spawned for the loop, or under LLPFC_PAR_START=pooled
// the pool's persistent workers with the calling goroutine (pool.go).
func chunks(nc int, f func(j, worker int), m stepprof.Mark) {
	workers := min(runtime.GOMAXPROCS(0), nc)
	if workers <= 1 {
		for j := 0; j < nc; j++ {
			f(j, 0)
		}
		return
	}
	l := &loop{nc: nc, workers: workers, f: f, dynamic: schedule == Dynamic}
	if m.Measuring() {
		l.busy = make([]int64, workers)
	}
	if start != Pooled || !runPooled(l) {
		var wg sync.WaitGroup
		for p := 0; p < workers; p++ {
			wg.Add(1)
			go func(p int) {
				defer wg.Done()
				l.run(p)
			}(p)
		}
		wg.Wait()
	}
	m.Busy(l.busy)
}

// loop is one parallel loop: its chunks, its workers and how they share
// the chunks out, whether its goroutines are spawned or pooled.
type loop struct {
	nc, workers int
	f           func(j, worker int)
	dynamic     bool
	busy        []int64 // each worker's thread CPU time, while the profile measures
	next        atomic.Int64
	done        atomic.Int64 // pooled workers finished (pool.go)
}

// run is worker p's share of the loop: under the dynamic schedule the
// chunks not yet taken, one at a time, else chunks p, p+workers, … While
// the profile measures, the goroutine is locked to its thread and its
// thread CPU time recorded.
func (l *loop) run(p int) {
	if l.busy != nil {
		runtime.LockOSThread()
		t0 := stepprof.ThreadCPU()
		defer func() {
			l.busy[p] = stepprof.ThreadCPU() - t0
			runtime.UnlockOSThread()
		}()
	}
	if l.dynamic {
		for j := int(l.next.Add(1) - 1); j < l.nc; j = int(l.next.Add(1) - 1) {
			l.f(j, p)
		}
		return
	}
	for j := p; j < l.nc; j += l.workers {
		l.f(j, p)
	}
}

// Schedule is how chunks shares a loop's chunks out to its goroutines.
type Schedule string

const (
	// Dynamic: each goroutine takes the next chunk not yet taken.
	Dynamic Schedule = "dynamic"
	// Static: goroutine p of w takes chunks p, p+w, p+2w, …
	Static Schedule = "static"
)

// ScheduleEnv names the environment variable that chooses the schedule
// (dynamic, the default, or static), for benchmarks: the two give the same
// bits, so it is a speed knob only.
const ScheduleEnv = "LLPFC_PAR_SCHEDULE"

var schedule = scheduleFromEnv(os.Getenv(ScheduleEnv))

// scheduleFromEnv returns the schedule named s: Dynamic when s is empty,
// or unknown (reported on standard error once).
func scheduleFromEnv(s string) Schedule {
	return fromEnv(ScheduleEnv, "a schedule", s, Dynamic, Static)
}

// fromEnv returns the value of vals named s, the environment variable
// env's value: vals[0], the default, when s is empty, and when s names
// none of them (what says what s should have been, on standard error).
func fromEnv[T ~string](env, what, s string, vals ...T) T {
	if s == "" {
		return vals[0]
	}
	names := make([]string, len(vals))
	for i, v := range vals {
		if string(v) == s {
			return v
		}
		names[i] = string(v)
	}
	fmt.Fprintf(os.Stderr, "par: %s=%q is not %s (%s); using %s\n", env, s, what, strings.Join(names, " or "), vals[0])
	return vals[0]
}

// ActiveSchedule returns the schedule the loops use.
func ActiveSchedule() Schedule { return schedule }

// SetSchedule makes the loops use s and returns the one used before; it is
// not safe to call while loops run (tests and benchmarks).
func SetSchedule(s Schedule) Schedule {
	old := schedule
	schedule = s
	return old
}

// Channels runs f over channel ranges [lo, hi) on up to GOMAXPROCS
// goroutines; each channel is handled by exactly one call.
func Channels(c int, f func(lo, hi int)) {
	m := stepprof.Parallel(c, false)
	defer m.End()
	nc := min(c, 4*runtime.GOMAXPROCS(0))
	chunks(nc, func(j, _ int) {
		lo, hi := ChunkBounds(j, nc, c)
		f(lo, hi)
	}, m)
}

// Ranges runs f over the elements of several arrays (sizes[i] elements
// each) as if they were one: [0, Σ sizes) is split into contiguous ranges
// (rangeChunks) for up to GOMAXPROCS goroutines when it is large enough
// to pay for them, as Range splits [0, n), and each range is cut at the
// arrays' ends, so f sees (array i, its elements lo..hi−1), every element
// exactly once. It is
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
	m := stepprof.Parallel(n/grain, false)
	defer m.End()
	nc := rangeChunks(n)
	chunks(nc, func(j, _ int) {
		visit(ChunkBounds(j, nc, n))
	}, m)
}

// rangeChunks is the number of ranges Range and Ranges cut n elements
// into: one a goroutine when there are fewer pieces of grain elements than
// goroutines, else up to four a goroutine, a multiple of the goroutines
// (so that equal ranges end together, as the many-core model's divisible
// work does, and a goroutine that starts late or runs slow leaves its
// later ranges to the others under the dynamic schedule).
func rangeChunks(n int) int {
	w, p := n/grain, runtime.GOMAXPROCS(0)
	if w < p {
		return w
	}
	return p * min(4, w/p)
}

// grain is the fewest elements an element-wise loop gives a goroutine.
const grain = 1 << 15

// Range runs f over [0, n) split into contiguous ranges (rangeChunks) for
// up to GOMAXPROCS goroutines when n is large enough to pay for them
// (element-wise updates: the result does not depend on the split).
func Range(n int, f func(lo, hi int)) {
	if n < 2*grain {
		f(0, n)
		return
	}
	m := stepprof.Parallel(n/grain, false)
	defer m.End()
	nc := rangeChunks(n)
	chunks(nc, func(j, _ int) {
		lo, hi := ChunkBounds(j, nc, n)
		f(lo, hi)
	}, m)
}
