package scaling

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/llpfc/llpfc/internal/sgemm"
	"github.com/llpfc/llpfc/internal/stepprof"
	"github.com/llpfc/llpfc/training"
)

// Work is the CPU time per step of an operation's parallel sections of one
// width.
type Work struct {
	stepprof.Width
	// CPU seconds per step.
	CPU float64 `json:"cpu_s"`
	// Sections per step.
	Sections float64 `json:"sections"`
}

// Op is one operation kind's share of a step (per step: times in seconds).
type Op struct {
	Name  string  `json:"name"`
	Class string  `json:"class"`
	Calls float64 `json:"calls"`
	Bytes float64 `json:"bytes"`
	// Wall is the measured wall time; CPU the process's CPU time.
	Wall float64 `json:"wall_s"`
	CPU  float64 `json:"cpu_s"`
	// SerialCPU is the CPU time outside parallel sections (one goroutine);
	// SectionCPU inside them (every worker's).
	SerialCPU  float64 `json:"serial_cpu_s"`
	SectionCPU float64 `json:"section_cpu_s"`
	Sections   float64 `json:"sections"`
	Work       []Work  `json:"work,omitempty"`
	// Balance is the per-step time the sections of internal/par's loops
	// lost to their slowest worker (stepprof.Balance, in seconds).
	Balance Balance `json:"balance"`
}

// Balance is stepprof.Balance per step, in seconds: the sections of
// internal/par's loops, their slowest workers' busy time, the workers'
// mean and the sections' wall time.
type Balance struct {
	Sections float64 `json:"sections"`
	Max      float64 `json:"max_busy_s"`
	Mean     float64 `json:"mean_busy_s"`
	Wall     float64 `json:"wall_s"`
}

// Imbalance is the time the sections waited on their slowest worker
// beyond an even split of the same work (Max − Mean); StartStop what they
// took beyond the slowest worker's work (Wall − Max: starting, waking and
// scheduling the goroutines).
func (b Balance) Imbalance() float64 { return b.Max - b.Mean }

func (b Balance) StartStop() float64 { return b.Wall - b.Max }

// Run is one thread count's measurement.
type Run struct {
	Threads int `json:"threads"`
	// StepSeconds is the wall time per timed step, CPUSeconds the process's
	// CPU time per step, GCSeconds the garbage collector's share of it.
	StepSeconds     float64 `json:"step_s"`
	CPUSeconds      float64 `json:"cpu_s"`
	GCSeconds       float64 `json:"gc_cpu_s"`
	ImagesPerSecond float64 `json:"images_per_second"`
	// Bandwidth is the memory bandwidth Threads threads reached (GB/s; 0:
	// not measured).
	Bandwidth float64 `json:"bandwidth_gbs"`
	// CacheBytes is the last-level cache the operating system reports (0:
	// unknown): the memory floor spares operations whose values fit it.
	CacheBytes int64 `json:"cache_bytes"`
	Ops        []Op  `json:"ops"`
}

// SerialCPU returns the run's serial CPU seconds per step, SectionCPU its
// sections'.
func (r Run) SerialCPU() float64 { return sum(r.Ops, func(o Op) float64 { return o.SerialCPU }) }

func (r Run) SectionCPU() float64 { return sum(r.Ops, func(o Op) float64 { return o.SectionCPU }) }

// sum adds f over xs in order (a step's figures summed over its operations).
func sum[T any](xs []T, f func(T) float64) (s float64) {
	for _, x := range xs {
		s += f(x)
	}
	return s
}

// FromProfile turns a step profile of steps steps into per-step figures.
func FromProfile(p *stepprof.Profile, steps int) []Op {
	n := float64(steps)
	sec := func(ns int64) float64 { return float64(ns) / 1e9 / n }
	var ops []Op
	for _, g := range p.Regions {
		o := Op{Name: g.Name, Class: Class(g.Name), Calls: float64(g.Calls) / n, Bytes: float64(g.Bytes) / n,
			Wall: sec(g.Wall()), CPU: sec(g.CPU()), SerialCPU: sec(g.SerialCPU), SectionCPU: sec(g.SectionCPU), Sections: float64(g.Sections) / n}
		for _, w := range g.Work {
			o.Work = append(o.Work, Work{Width: w.Width, CPU: sec(w.CPU), Sections: float64(w.Sections) / n})
		}
		b := g.Balance
		o.Balance = Balance{Sections: float64(b.Sections) / n, Max: sec(b.Max), Mean: sec(b.Mean), Wall: sec(b.Wall)}
		ops = append(ops, o)
	}
	return ops
}

// Config is what Measure measures.
type Config struct {
	// Bench is the step (its ProfileCPU and CPUTime are set by Measure).
	Bench training.StepBenchConfig
	// Threads are the thread counts, in increasing order; the first two
	// are the extrapolation's.
	Threads []int
	// StreamBytes is the size of each of the two buffers the bandwidth probe
	// streams through (0: no probe).
	StreamBytes int64
	// CPUTime returns the process's CPU time (the step benchmark's).
	CPUTime func() time.Duration
}

// Measure runs the step at each thread count (GOMAXPROCS, restored after)
// with its step profile, and the bandwidth probe at the same count.
func Measure(ctx context.Context, cfg Config) ([]Run, error) {
	if err := checkThreads(cfg.Threads); err != nil {
		return nil, err
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var probe *stream
	if cfg.StreamBytes > 0 {
		probe = newStream(cfg.StreamBytes)
	}
	var runs []Run
	for _, p := range cfg.Threads {
		runtime.GOMAXPROCS(p)
		bc := cfg.Bench
		bc.ProfileCPU, bc.CPUTime = true, cfg.CPUTime
		res, err := training.RunStepBenchmark(ctx, bc)
		if err != nil {
			return nil, fmt.Errorf("%d threads: %w", p, err)
		}
		if res.CPUProfile == nil {
			return nil, fmt.Errorf("%d threads: no step profile (another one was being recorded)", p)
		}
		r := Run{Threads: p, StepSeconds: res.Seconds / float64(res.Steps), CPUSeconds: res.CPUSecondsPerStep,
			GCSeconds: res.GCCPUSecondsPerStep, ImagesPerSecond: res.ImagesPerSecond, Ops: FromProfile(res.CPUProfile, res.Steps),
			CacheBytes: int64(sgemm.ActiveBlocking().Caches.L3)}
		if probe != nil {
			r.Bandwidth = probe.measure(p)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// checkThreads refuses an empty, non-positive or unordered list.
func checkThreads(ts []int) error {
	if len(ts) == 0 {
		return fmt.Errorf("no thread count")
	}
	for i, t := range ts {
		if t < 1 {
			return fmt.Errorf("thread count %d, want ≥ 1", t)
		}
		if i > 0 && t <= ts[i-1] {
			return fmt.Errorf("thread counts %v: want them increasing", ts)
		}
	}
	return nil
}

// ParseThreads reads a comma-separated list of increasing thread counts.
func ParseThreads(s string) ([]int, error) {
	var ts []int
	for _, f := range strings.Split(s, ",") {
		var t int
		if _, err := fmt.Sscanf(strings.TrimSpace(f), "%d", &t); err != nil || fmt.Sprint(t) != strings.TrimSpace(f) {
			return nil, fmt.Errorf("%q is not a thread count", strings.TrimSpace(f))
		}
		ts = append(ts, t)
	}
	return ts, checkThreads(ts)
}

// stream is the bandwidth probe's two buffers.
type stream struct{ src, dst []float32 }

func newStream(bytes int64) *stream {
	n := int(bytes / 4)
	s := &stream{src: make([]float32, n), dst: make([]float32, n)}
	for i := range s.src {
		s.src[i] = float32(i & 1023)
	}
	return s
}

// measure returns the best of three passes of dst = 3·src, the buffers cut
// into p contiguous parts run by p goroutines, in GB/s (one read and one
// write of each value counted, as the operations' bytes are).
func (s *stream) measure(p int) float64 {
	best := math.Inf(1)
	for range 3 {
		t0 := time.Now()
		var wg sync.WaitGroup
		for j := range p {
			lo, hi := j*len(s.src)/p, (j+1)*len(s.src)/p
			wg.Add(1)
			go func() {
				defer wg.Done()
				src, dst := s.src[lo:hi], s.dst[lo:hi]
				for i, v := range src {
					dst[i] = 3 * v
				}
			}()
		}
		wg.Wait()
		best = min(best, time.Since(t0).Seconds())
	}
	return 8 * float64(len(s.src)) / best / 1e9
}
