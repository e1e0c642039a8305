package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// interruptible returns a context cancelled by the first SIGINT or SIGTERM,
// and the function that releases it. The long commands stop at the next
// step boundary, which can take a while (one LLPGAN step on a large bag
// takes seconds), so at the first signal it says so and restores the
// default handling: a second signal stops the process at once. Checkpoints
// and result cells are written atomically between steps, so nothing
// finished is lost either way.
// (A variable, so that a test can interrupt a command at a point of its
// choosing without a signal.)
var interruptible = signalContext

// signalContext is interruptible's implementation.
func signalContext(name string, stderr io.Writer) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
			signal.Stop(sig) // the next signal gets the default action: terminate
			fmt.Fprintf(stderr, "llpfc %s: interrupted; stopping after the current step (interrupt again to stop at once; finished work is kept)\n", name)
			cancel()
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(sig)
			close(done)
			cancel()
		})
	}
}

// lateInterrupt returns exitFailed, saying so, when the command was
// interrupted after its last step (the work finished, but the interrupt
// came: an interrupt during the last step once exited 0 as if none had
// come), else status. what says what was finished and kept.
func lateInterrupt(ctx context.Context, stderr io.Writer, name, what string, status int) int {
	if status != exitOK || ctx.Err() == nil {
		return status
	}
	fmt.Fprintf(stderr, "llpfc %s: interrupted, but only after the last step: %s; exit status 1 records the interrupt\n", name, what)
	return exitFailed
}
