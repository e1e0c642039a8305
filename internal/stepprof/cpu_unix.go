//go:build unix

package stepprof

import "golang.org/x/sys/unix"

// processCPU returns the CPU time of every thread of the process
// (CLOCK_PROCESS_CPUTIME_ID), in nanoseconds.
func processCPU() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return ts.Nano()
}

// ThreadCPU returns the CPU time of the calling thread
// (CLOCK_THREAD_CPUTIME_ID), in nanoseconds: a parallel loop's worker,
// locked to its thread, reads it at its start and end (Mark.Busy).
func ThreadCPU() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return ts.Nano()
}
