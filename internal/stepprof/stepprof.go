package stepprof

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Outside names the time of the step spent in no region (the method's
// host-side work between operations: assembling the minibatch, its loss's
// host part).
const Outside = "(outside the operations)"

// Width is a parallel section's parallelism: N independent pieces, Fixed
// when each piece is a fixed chunk of work taken whole by one worker (so P
// workers need ⌈N/P⌉ rounds), else work that a loop divides evenly among
// up to N workers.
type Width struct {
	N     int  `json:"n"`
	Fixed bool `json:"fixed"`
}

// Region is what a recorder measured of one region (an operation kind),
// over all its calls. Times are nanoseconds and exclusive: a region nested
// in another counts for itself only.
type Region struct {
	Name  string `json:"name"`
	Calls int64  `json:"calls"`
	// Bytes are the bytes the region's calls said they read and write
	// (Begin's bytes: an operation's inputs and output).
	Bytes int64 `json:"bytes"`
	// Serial is the time outside parallel sections: one goroutine ran.
	SerialWall int64 `json:"serial_wall_ns"`
	SerialCPU  int64 `json:"serial_cpu_ns"`
	// Sections are the parallel sections, with their wall and CPU time.
	Sections    int64 `json:"sections"`
	SectionWall int64 `json:"section_wall_ns"`
	SectionCPU  int64 `json:"section_cpu_ns"`
	// Work is the sections' CPU and wall time by width.
	Work []WidthWork `json:"work,omitempty"`
	// Balance is what the sections that reported their workers' busy time
	// (internal/par's loops: Mark.Busy) lost to the slowest worker.
	Balance Balance `json:"balance"`
	work    map[Width]*WidthWork
}

// Balance adds up, over the parallel sections that reported their
// workers' busy time (each worker's thread CPU time from its start to its
// last chunk), the slowest worker's busy time (Max), the workers' mean
// (Mean) and the sections' wall time (Wall), in nanoseconds. Max − Mean is
// the time the section waited on its slowest worker beyond an even split
// of the same work (imbalance: uneven chunks, or chunks that ran slower on
// one core); Wall − Max is what the section took beyond its slowest
// worker's work (starting and waking the goroutines, waiting for them to
// be scheduled: on a machine with fewer cores than threads, mostly the
// latter). The many-core model assumes both are zero.
type Balance struct {
	Sections int64 `json:"sections"`
	Max      int64 `json:"max_busy_ns"`
	Mean     int64 `json:"mean_busy_ns"`
	Wall     int64 `json:"wall_ns"`
}

// WidthWork is the time of a region's sections of one width.
type WidthWork struct {
	Width
	Sections int64 `json:"sections"`
	CPU      int64 `json:"cpu_ns"`
	Wall     int64 `json:"wall_ns"`
}

// Wall returns the region's wall time; CPU its CPU time.
func (r *Region) Wall() int64 { return r.SerialWall + r.SectionWall }
func (r *Region) CPU() int64  { return r.SerialCPU + r.SectionCPU }

// Profile is a recorder's measurements: its regions in the order they were
// first entered.
type Profile struct {
	Regions []*Region `json:"regions"`
	// Wall and CPU are the time from Start to Stop.
	Wall int64 `json:"wall_ns"`
	CPU  int64 `json:"cpu_ns"`
}

// Recorder accumulates a Profile between Start and Stop.
type Recorder struct {
	clock func() (wall, cpu int64)
	depth atomic.Int32 // open parallel sections, nested ones included

	mu        sync.Mutex
	stack     []*Region
	inSection bool
	width     Width
	last      [2]int64
	start     [2]int64
	regions   map[string]*Region
	order     []*Region
	stopped   bool
	// busy is the open section's workers' slowest and mean busy time
	// (Mark.Busy), added with the section's wall time when it ends.
	busy    [2]int64
	hasBusy bool
}

var active atomic.Pointer[Recorder]

// On reports whether a recorder is started.
func On() bool { return active.Load() != nil }

// Start starts a recorder measuring with the process's clocks. Only one
// recorder runs at a time: Start returns nil while another runs.
func Start() *Recorder { return start(now) }

func start(clock func() (int64, int64)) *Recorder {
	r := &Recorder{clock: clock, regions: map[string]*Region{}}
	w, c := clock()
	r.last, r.start = [2]int64{w, c}, [2]int64{w, c}
	if !active.CompareAndSwap(nil, r) {
		return nil
	}
	return r
}

// Stop stops the recorder and returns its profile. Regions and sections
// still open are closed at this instant.
func (r *Recorder) Stop() Profile {
	active.CompareAndSwap(r, nil)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flush()
	r.stopped = true
	p := Profile{Wall: r.last[0] - r.start[0], CPU: r.last[1] - r.start[1]}
	for _, g := range r.order {
		if g.Calls == 0 && g.Sections == 0 && g.Wall() == 0 && g.CPU() == 0 {
			continue // Outside, made current by the first event and never given time
		}
		g.Work = g.Work[:0]
		for _, w := range g.work {
			g.Work = append(g.Work, *w)
		}
		sort.Slice(g.Work, func(i, j int) bool {
			a, b := g.Work[i], g.Work[j]
			if a.N != b.N {
				return a.N < b.N
			}
			return !a.Fixed && b.Fixed
		})
		p.Regions = append(p.Regions, g)
	}
	return p
}

// region returns the named region, created on first use.
func (r *Recorder) region(name string) *Region {
	g := r.regions[name]
	if g == nil {
		g = &Region{Name: name, work: map[Width]*WidthWork{}}
		r.regions[name] = g
		r.order = append(r.order, g)
	}
	return g
}

// widthWork returns the region's accumulator of sections of width w.
func (g *Region) widthWork(w Width) *WidthWork {
	acc := g.work[w]
	if acc == nil {
		acc = &WidthWork{Width: w}
		g.work[w] = acc
	}
	return acc
}

// current is the innermost open region, or Outside.
func (r *Recorder) current() *Region {
	if n := len(r.stack); n > 0 {
		return r.stack[n-1]
	}
	return r.region(Outside)
}

// flush gives the time since the last event to the current region: to its
// open section, or to its serial time.
// It returns that wall time.
func (r *Recorder) flush() int64 {
	if r.stopped {
		return 0
	}
	w, c := r.clock()
	dw, dc := w-r.last[0], c-r.last[1]
	r.last = [2]int64{w, c}
	g := r.current()
	if r.inSection {
		g.SectionWall += dw
		g.SectionCPU += dc
		acc := g.widthWork(r.width)
		acc.CPU += dc
		acc.Wall += dw
		return dw
	}
	g.SerialWall += dw
	g.SerialCPU += dc
	return dw
}

// Mark is an open region or section; End closes it. The zero Mark (no
// recorder) does nothing; a nested section's only undoes its depth.
type Mark struct {
	r       *Recorder
	section bool
	outer   bool // a section not nested in another: it is measured
}

// Measuring reports whether m is a section the recorder measures (opened
// outside any other while a recorder runs), whose workers' busy times Busy
// takes.
func (m Mark) Measuring() bool { return m.r != nil && m.outer }

// Busy hands the recorder the thread CPU time each worker of the section m
// spent (nanoseconds, one value a worker, in any order): the slowest and
// the mean are added to the region's Balance when the section ends. It
// does nothing when m is not Measuring or busy is empty.
func (m Mark) Busy(busy []int64) {
	if !m.Measuring() || len(busy) == 0 {
		return
	}
	var mx, sum int64
	for _, b := range busy {
		mx = max(mx, b)
		sum += b
	}
	r := m.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.inSection {
		r.busy, r.hasBusy = [2]int64{mx, sum / int64(len(busy))}, true
	}
}

// Begin opens the region name on the calling goroutine, which must be the
// one that runs the step, with bytes the bytes the region reads and
// writes. Inside a parallel section it does nothing.
func Begin(name string, bytes int64) Mark {
	r := active.Load()
	if r == nil || r.depth.Load() > 0 {
		return Mark{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return Mark{}
	}
	r.flush()
	g := r.region(name)
	g.Calls++
	g.Bytes += bytes
	r.stack = append(r.stack, g)
	return Mark{r: r}
}

// Parallel opens a parallel section of width n (fixed: n chunks taken
// whole) on the goroutine that then waits for its workers. A section opened
// inside another belongs to the outer one.
func Parallel(n int, fixed bool) Mark {
	r := active.Load()
	if r == nil {
		return Mark{}
	}
	if r.depth.Add(1) != 1 {
		return Mark{r: r, section: true} // nested: only the depth to undo
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.stopped {
		r.flush()
		r.inSection, r.width = true, Width{N: max(n, 1), Fixed: fixed}
	}
	return Mark{r: r, section: true, outer: true}
}

// End closes the region or section.
func (m Mark) End() {
	r := m.r
	if r == nil {
		return
	}
	if m.section {
		if r.depth.Load() != 1 {
			r.depth.Add(-1)
			return
		}
		r.mu.Lock()
		if !r.stopped && r.inSection {
			wall := r.flush()
			g := r.current()
			g.Sections++
			g.widthWork(r.width).Sections++
			if r.hasBusy {
				b := &g.Balance
				b.Sections++
				b.Max += r.busy[0]
				b.Mean += r.busy[1]
				b.Wall += wall
				r.hasBusy = false
			}
			r.inSection = false
		}
		r.mu.Unlock()
		r.depth.Add(-1)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped || len(r.stack) == 0 {
		return
	}
	r.flush()
	r.stack = r.stack[:len(r.stack)-1]
}

// now returns the monotonic clock and the process's CPU time, in
// nanoseconds.
func now() (int64, int64) {
	return int64(time.Since(epoch)), processCPU()
}

var epoch = time.Now()
