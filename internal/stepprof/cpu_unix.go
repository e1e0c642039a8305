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
