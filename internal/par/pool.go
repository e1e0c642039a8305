package par

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Start is how a parallel loop gets its goroutines.
type Start string

const (
	// Spawned (the default): each loop starts its goroutines and waits for
	// them. The Go runtime wakes idle threads one after another, each woken
	// thread waking the next, so on many cores the last goroutine of a loop
	// starts several wake-ups after the first.
	Spawned Start = "spawned"
	// Pooled: persistent workers that, after a loop, spin for up to
	// poolSpin for the next one before they sleep, and the loop's own
	// goroutine as worker 0. A training step opens a few hundred loops
	// back to back, so its workers are still spinning when the next one
	// opens: they start it within a read of one atomic counter, as the
	// peer's OpenMP threads do (their spin-wait). A loop opened while
	// another holds the pool (a loop inside a loop's call, or two
	// goroutines at once) is spawned.
	Pooled Start = "pooled"
)

// StartEnv names the environment variable that chooses how the loops get
// their goroutines (spawned, the default, or pooled), for benchmarks: the
// two give the same bits, so it is a speed knob only.
const StartEnv = "LLPFC_PAR_START"

var start = startFromEnv(os.Getenv(StartEnv))

// startFromEnv returns the start named s: Spawned when s is empty, or
// unknown (reported on standard error).
func startFromEnv(s string) Start {
	return fromEnv(StartEnv, "a way to start the loops", s, Spawned, Pooled)
}

// ActiveStart returns how the loops get their goroutines.
func ActiveStart() Start { return start }

// SetStart makes the loops get their goroutines as s says and returns the
// way used before; it is not safe to call while loops run (tests and
// benchmarks).
func SetStart(s Start) Start {
	old := start
	start = s
	return old
}

// poolSpin is how long a pooled worker spins for the next loop before it
// sleeps (until a loop wakes it), and a loop's goroutine for its workers
// before it sleeps, in nanoseconds. The loops of a training step follow
// each other within microseconds (the serial share of a step is 1–2 %),
// so this is the gap between steps it does not bridge. The tests set it
// to 0, so that the workers fall asleep as loops come.
var poolSpin atomic.Int64

func init() { poolSpin.Store(int64(200 * time.Microsecond)) }

// spinUntil spins until ready reports true, for at most poolSpin, and
// reports whether it did. It yields its thread to other goroutines every
// 4096 looks (microseconds): often enough for them, rarely enough that
// fifteen spinning workers do not queue on the scheduler's lock that each
// runtime.Gosched takes.
func spinUntil(ready func() bool) bool {
	deadline := time.Now().Add(time.Duration(poolSpin.Load()))
	for i := 1; ; i++ {
		if ready() {
			return true
		}
		if i%256 == 0 {
			if time.Now().After(deadline) {
				return false
			}
			if i%4096 == 0 {
				runtime.Gosched()
			}
		}
	}
}

// sleeper is a goroutine's sleep that its waker cannot miss: the sleeper
// raises its flag, looks once more for what it waits for, and sleeps on
// its channel only if that has not come; a waker that finds the flag
// raised lowers it and sends the one token that wakes it.
type sleeper struct {
	asleep atomic.Bool   // raised (or about to sleep)
	token  chan struct{} // capacity 1
}

func newSleeper() *sleeper { return &sleeper{token: make(chan struct{}, 1)} }

// sleepUnless returns once ready reports true, sleeping until a wake if
// it does not when the flag is raised. It returns awake: the flag lowered
// and no token pending.
func (s *sleeper) sleepUnless(ready func() bool) {
	for {
		s.asleep.Store(true)
		if ready() {
			if !s.asleep.CompareAndSwap(true, false) {
				<-s.token // a waker lowered the flag: its token is on the way
			}
			return
		}
		<-s.token // a waker lowered the flag and sent this
		if ready() {
			return
		}
	}
}

// wake wakes the sleeper if its flag is raised and reports whether it did.
func (s *sleeper) wake() bool {
	if s.asleep.CompareAndSwap(true, false) {
		s.token <- struct{}{}
		return true
	}
	return false
}

// worker is a pooled goroutine: worker id of every loop with more than id
// workers.
type worker struct {
	id int
	*sleeper
}

// pool is the pooled workers and the loop they run.
type pool struct {
	mu      sync.Mutex           // held by the goroutine whose loop the pool runs
	cur     atomic.Pointer[loop] // the latest loop: a new pointer announces a new loop
	caller  *sleeper             // the goroutine of the loop, once it waits for its workers
	workers []*worker            // ids 1, 2, …; grown, never shrunk
}

var thePool = &pool{caller: newSleeper()}

// runPooled runs l on the pool and reports whether it did: false when
// another loop holds the pool (the caller then spawns).
func runPooled(l *loop) bool {
	p := thePool
	if !p.mu.TryLock() {
		return false
	}
	defer p.mu.Unlock()
	workers := l.workers
	for len(p.workers) < workers-1 {
		w := &worker{id: len(p.workers) + 1, sleeper: newSleeper()}
		p.workers = append(p.workers, w)
		go p.serve(w, p.cur.Load())
	}
	p.cur.Store(l) // announces l to the spinning workers
	for _, w := range p.workers[:workers-1] {
		w.wake()
	}
	l.run(0)
	finished := func() bool { return l.done.Load() >= int64(workers-1) }
	if !spinUntil(finished) {
		p.caller.sleepUnless(finished)
	}
	l.f = nil // the workers keep l as the last loop they saw, not what f holds
	return true
}

// serve is worker w's life: wait for a loop it takes part in (after last),
// run its share, and wake the loop's goroutine if it is the last to finish
// and that goroutine sleeps.
func (p *pool) serve(w *worker, last *loop) {
	for {
		last = p.await(w, last)
		last.run(w.id)
		if last.done.Add(1) == int64(last.workers-1) {
			p.caller.wake()
		}
	}
}

// await returns the first loop after last with a share for w: it spins for
// poolSpin, then sleeps until a loop wakes it. A loop with a share for w
// cannot end without it, so the loop await returns is still the current.
func (p *pool) await(w *worker, last *loop) *loop {
	var l *loop
	next := func() bool {
		for {
			l = p.cur.Load()
			if l == last {
				return false
			}
			if w.id < l.workers {
				return true
			}
			last = l // a loop of fewer workers: not w's
		}
	}
	if !spinUntil(next) {
		w.sleepUnless(next)
	}
	return l
}
