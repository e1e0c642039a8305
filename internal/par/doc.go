// Package par holds the parallel loops the training engine shares: a fixed
// number of chunks shared out to GOMAXPROCS goroutines (Chunks, with each
// goroutine's index for its scratch space), channel ranges (Channels) and
// element ranges (Range). Every loop gives each index to exactly one call,
// so a result computed per chunk, channel or element does not depend on the
// number of cores, nor on which goroutine ran the call: by default the
// goroutines take the chunks as they come free (the dynamic Schedule), so
// that one that starts late, or whose core is slower or busy, takes fewer;
// LLPFC_PAR_SCHEDULE=static gives goroutine p chunks p, p+w, … for
// comparison. Each loop spawns its goroutines by default;
// LLPFC_PAR_START=pooled runs them on persistent workers that spin between
// loops, with the loop's own goroutine as worker 0 (pool.go), as OpenMP's
// threads wait for the peer's next loop — the same bits either way. While
// the step profile records, each loop also reports its goroutines' busy
// time (internal/stepprof's Balance).
//
// The pool is hand-written: errgroup and the worker-pool libraries park a
// goroutine that waits (a futex wake-up of microseconds, one thread after
// another), which is what the pool is there to avoid; its sleep protocol is
// the small sleeper type, tested on its own.
//
// It sits below training/nn and training/optim (the loops were once
// defined in the convolution file and borrowed by the optimizer and batch
// norm).
package par
