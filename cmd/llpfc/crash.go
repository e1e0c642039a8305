package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"
)

// The exit-code rule: 0 success, 1 failure, 2 bad flags or
// input. A panic or a fatal runtime error (out of memory, a panic in a
// worker goroutine) is a failure of llpfc, never bad input: it exits 1 with
// a one-line message and the stack written to a file. runCommand recovers a
// panic of the command's own goroutine; supervise (supervise_linux.go)
// catches what no recover can, by running the command in a child process
// when no standard stream is a terminal.

// crashFilePattern names the files a crash's stack is written to, in
// os.TempDir.
const crashFilePattern = "llpfc-crash-*.txt"

// runCommand runs c with args and returns its exit status; a panic of the
// command is reported on stderr (its value and the file holding its stack)
// and exits exitFailed.
func runCommand(c command, args []string, stdout, stderr io.Writer) (status int) {
	defer func() {
		if v := recover(); v != nil {
			status = reportPanic(stderr, c.name, v, debug.Stack())
		}
	}()
	return c.run(args, stdout, stderr)
}

// reportPanic writes the panic's value and stack to a new file and prints
// where; it returns exitFailed.
func reportPanic(stderr io.Writer, name string, v any, stack []byte) int {
	where := "(the stack could not be written to a file)"
	if f, err := os.CreateTemp("", crashFilePattern); err == nil {
		fmt.Fprintf(f, "llpfc %s: panic: %v\ntime: %s\nargs: %q\n\n%s", name, v, time.Now().UTC().Format(time.RFC3339), os.Args, stack)
		if f.Close() == nil {
			where = "the stack is in " + f.Name()
		}
	}
	fmt.Fprintf(stderr, "llpfc %s: internal error (a bug in llpfc, not in your input): %v; %s; please report it\n", name, v, where)
	return exitFailed
}
