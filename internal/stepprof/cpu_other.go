//go:build !unix

package stepprof

// processCPU is 0 where the process's CPU clock is not read: profiles then
// have wall times only.
func processCPU() int64 { return 0 }

// ThreadCPU is 0 where the thread's CPU clock is not read: sections then
// report no imbalance.
func ThreadCPU() int64 { return 0 }
