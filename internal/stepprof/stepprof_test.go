package stepprof

import (
	"bytes"
	"fmt"
	"math/rand"
	"runtime"
	"sync"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// fakeClock is a clock the test advances by hand.
type fakeClock struct{ wall, cpu int64 }

func (c *fakeClock) read() (int64, int64) { return c.wall, c.cpu }
func (c *fakeClock) tick(w, cp int64)     { c.wall += w; c.cpu += cp }

// node is a piece of a generated step: a region with children, a parallel
// section (with sections nested in it and a region opened by a worker, both
// of which belong to it), or a stretch of time spent where it stands.
type node struct {
	region   string
	section  *Width
	children []node
	wall     int64 // a stretch's time
	cpu      int64
	busy     []int64 // a section's workers' busy times, handed to Mark.Busy
}

// expected holds a region's totals summed from the tree itself.
type expected struct {
	calls, sections                        int64
	serialWall, serialCPU, secWall, secCPU int64
	work                                   map[Width][2]int64 // wall, cpu
	workSections                           map[Width]int64
	balance                                Balance
}

// genTree draws a random step: depth levels of regions, sections and
// stretches of time.
func genTree(r *rand.Rand, depth int, inSection bool) []node {
	var out []node
	for range r.Intn(4) + 1 {
		switch k := r.Intn(4); {
		case k == 0 || depth == 0:
			out = append(out, node{wall: r.Int63n(1000), cpu: r.Int63n(3000)})
		case k == 1:
			out = append(out, node{region: fmt.Sprintf("op%d", r.Intn(4)), children: genTree(r, depth-1, inSection)})
		default:
			w := Width{N: 1 + r.Intn(16), Fixed: r.Intn(2) == 0}
			busy := make([]int64, r.Intn(5)) // none: a section that reports no workers (sgemm's)
			for i := range busy {
				busy[i] = r.Int63n(5000)
			}
			out = append(out, node{section: &w, children: genTree(r, depth-1, true), busy: busy})
		}
	}
	return out
}

// play runs the tree's events against the recorder, advancing the clock by
// each stretch, and sums what each region should get, from the tree: a
// stretch belongs to the innermost region around it, to that region's
// outermost section when it is inside one.
func play(c *fakeClock, ns []node, cur string, section *Width, want map[string]*expected) {
	get := func(name string) *expected {
		if want[name] == nil {
			want[name] = &expected{work: map[Width][2]int64{}, workSections: map[Width]int64{}}
		}
		return want[name]
	}
	for _, n := range ns {
		switch {
		case n.region != "":
			m := Begin(n.region, 0)
			inner := cur
			if section == nil {
				inner = n.region
				get(n.region).calls++
			}
			play(c, n.children, inner, section, want)
			m.End()
		case n.section != nil:
			m := Parallel(n.section.N, n.section.Fixed)
			outer := section
			if outer == nil {
				outer = n.section
				e := get(cur)
				e.sections++
				e.workSections[*n.section]++
			}
			w0 := c.wall
			play(c, n.children, cur, outer, want)
			m.Busy(n.busy) // a nested section's is ignored
			if section == nil && len(n.busy) > 0 {
				var mx, sum int64
				for _, b := range n.busy {
					mx, sum = max(mx, b), sum+b
				}
				b := &get(cur).balance
				b.Sections++
				b.Max += mx
				b.Mean += sum / int64(len(n.busy))
				b.Wall += c.wall - w0
			}
			m.End()
		default:
			c.tick(n.wall, n.cpu)
			e := get(cur)
			if section == nil {
				e.serialWall += n.wall
				e.serialCPU += n.cpu
				continue
			}
			e.secWall += n.wall
			e.secCPU += n.cpu
			t := e.work[*section]
			e.work[*section] = [2]int64{t[0] + n.wall, t[1] + n.cpu}
		}
	}
}

// TestPropertyAttribution: on generated steps (regions within regions,
// sections with sections and regions nested in them, time everywhere, the
// busy times of some sections' workers), each region's serial and section
// times, calls, sections, work by width and balance (its outermost
// sections' busy times and walls) are the sums the step's tree gives, and
// they add up to the profile's total.
func TestPropertyAttribution(t *testing.T) {
	props := gopter.NewProperties(gopter.DefaultTestParametersWithSeed(58))
	props.Property("time goes to the innermost region, a section's to the outermost section", prop.ForAll(func(seed int64) string {
		r := rand.New(rand.NewSource(seed))
		c := &fakeClock{wall: 1e6, cpu: 5e5}
		rec := start(c.read)
		if rec == nil {
			return "a recorder was already running"
		}
		want := map[string]*expected{}
		play(c, genTree(r, 4, false), Outside, nil, want)
		p := rec.Stop()
		return compare(p, want, c)
	}, gen.Int64()))
	var log bytes.Buffer
	if !props.Run(gopter.NewFormatedReporter(false, 200, &log)) {
		t.Error(log.String())
	}
}

func compare(p Profile, want map[string]*expected, c *fakeClock) string {
	got := map[string]*Region{}
	var wall, cpu int64
	for _, g := range p.Regions {
		got[g.Name] = g
		wall += g.Wall()
		cpu += g.CPU()
	}
	if wall != p.Wall || cpu != p.CPU || p.Wall != c.wall-1e6 || p.CPU != c.cpu-5e5 {
		return fmt.Sprintf("totals: regions %d/%d ns, profile %d/%d, clock %d/%d", wall, cpu, p.Wall, p.CPU, c.wall-1e6, c.cpu-5e5)
	}
	for name, e := range want {
		g := got[name]
		if g == nil {
			if name == Outside && e.serialWall == 0 && e.serialCPU == 0 && e.secWall == 0 && e.secCPU == 0 && e.sections == 0 {
				continue // never current: Outside is made when time or a section falls to it
			}
			return fmt.Sprintf("region %s missing", name)
		}
		if g.Calls != e.calls || g.Sections != e.sections || g.SerialWall != e.serialWall || g.SerialCPU != e.serialCPU ||
			g.SectionWall != e.secWall || g.SectionCPU != e.secCPU {
			return fmt.Sprintf("region %s: got calls %d sections %d serial %d/%d sections %d/%d, want %d %d %d/%d %d/%d", name,
				g.Calls, g.Sections, g.SerialWall, g.SerialCPU, g.SectionWall, g.SectionCPU,
				e.calls, e.sections, e.serialWall, e.serialCPU, e.secWall, e.secCPU)
		}
		if g.Balance != e.balance {
			return fmt.Sprintf("region %s: balance %+v, want %+v", name, g.Balance, e.balance)
		}
		byWidth := map[Width]WidthWork{}
		for _, w := range g.Work {
			byWidth[w.Width] = w
		}
		for w, t := range e.work {
			if b := byWidth[w]; b.Wall != t[0] || b.CPU != t[1] || b.Sections != e.workSections[w] {
				return fmt.Sprintf("region %s width %+v: got %+v, want %v ns and %d sections", name, w, b, t, e.workSections[w])
			}
		}
		for w, n := range e.workSections {
			if byWidth[w].Sections != n {
				return fmt.Sprintf("region %s width %+v: %d sections, want %d", name, w, byWidth[w].Sections, n)
			}
		}
		if len(byWidth) != len(e.workSections) {
			return fmt.Sprintf("region %s: widths %v, want %v", name, g.Work, e.workSections)
		}
	}
	if len(got) > len(want) {
		return fmt.Sprintf("regions %d, want %d", len(got), len(want))
	}
	return ""
}

// TestWorkersNestSections: sections and regions that a section's workers
// open, on their own goroutines, belong to the section: one section, no
// region, and the depth back at zero for the next.
func TestWorkersNestSections(t *testing.T) {
	c := &fakeClock{}
	var mu sync.Mutex
	clock := func() (int64, int64) { mu.Lock(); defer mu.Unlock(); return c.read() }
	rec := start(clock)
	require.NotNil(t, rec)
	op := Begin("conv", 100)
	c.tick(10, 10)
	sec := Parallel(8, true)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			inner := Parallel(3, false)
			r := Begin("inside a worker", 0)
			mu.Lock()
			c.tick(5, 50)
			mu.Unlock()
			r.End()
			inner.End()
		}()
	}
	wg.Wait()
	sec.End()
	assert.EqualValues(t, 0, rec.depth.Load())
	sec = Parallel(2, false)
	c.tick(1, 2)
	sec.End()
	op.End()
	p := rec.Stop()
	require.Len(t, p.Regions, 1, "the workers' region must not appear: %+v", p.Regions)
	g := p.Regions[0]
	assert.Equal(t, "conv", g.Name)
	assert.EqualValues(t, 100, g.Bytes)
	assert.EqualValues(t, 2, g.Sections)
	assert.EqualValues(t, 10, g.SerialCPU)
	assert.EqualValues(t, 202, g.SectionCPU)
	assert.Equal(t, []WidthWork{{Width: Width{N: 2}, Sections: 1, CPU: 2, Wall: 1}, {Width: Width{N: 8, Fixed: true}, Sections: 1, CPU: 200, Wall: 20}}, g.Work)
}

// TestOneRecorderAtATime: Start refuses while a recorder runs; after Stop,
// marks do nothing and a new recorder starts; without one, marks do nothing.
func TestOneRecorderAtATime(t *testing.T) {
	assert.False(t, On())
	Begin("x", 1).End()
	Parallel(4, true).End()
	c := &fakeClock{}
	rec := start(c.read)
	require.NotNil(t, rec)
	assert.True(t, On())
	assert.Nil(t, Start(), "a second recorder while one runs")
	open := Begin("open at stop", 0)
	c.tick(7, 7)
	p := rec.Stop()
	open.End()
	Begin("after", 0).End()
	assert.False(t, On())
	require.Len(t, p.Regions, 1)
	assert.EqualValues(t, 7, p.Regions[0].SerialWall, "a region open at Stop is closed there")
	again := Start()
	require.NotNil(t, again)
	again.Stop()
}

// TestSectionCPUCountsEveryWorker: with the process's own clocks, a
// section's CPU time holds the work of all its workers — each worker burns
// 20 ms of its own thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so the
// section holds at least workers × 20 ms whatever the load (a lower bound
// from the kernel's accounting, not a timing).
func TestSectionCPUCountsEveryWorker(t *testing.T) {
	if processCPU() == 0 {
		t.Skip("no process CPU clock here")
	}
	const workers, burn = 3, int64(20e6)
	rec := Start()
	require.NotNil(t, rec)
	m := Begin("burn", 0)
	sec := Parallel(workers, true)
	var wg sync.WaitGroup
	sink := make([]float64, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			t0 := threadCPU(t)
			x := 1.0
			for threadCPU(t)-t0 < burn {
				for i := 0; i < 10000; i++ {
					x = x*1.0000001 + 1e-9
				}
			}
			sink[w] = x
		}()
	}
	wg.Wait()
	sec.End()
	m.End()
	p := rec.Stop()
	var g *Region
	for _, r := range p.Regions {
		if r.Name == "burn" {
			g = r
		}
	}
	require.NotNil(t, g, "%+v", p.Regions)
	assert.EqualValues(t, 1, g.Sections)
	assert.GreaterOrEqual(t, g.SectionCPU, int64(workers)*burn, "the section's CPU time holds every worker's")
	assert.GreaterOrEqual(t, p.CPU, g.CPU())
}

func threadCPU(t *testing.T) int64 {
	var ts unix.Timespec
	require.NoError(t, unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts))
	return ts.Nano()
}
