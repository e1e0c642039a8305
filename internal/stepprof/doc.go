// Package stepprof measures where a training step's time goes on the CPU,
// operation by operation, and how much of it could run on more cores: the
// measurements behind the many-core model (training/scaling) that predicts
// a step at 16 threads from what a 2-core machine can measure.
//
// A recorder (Start) splits the time of the goroutine that runs the step
// into regions (Begin … End: one per operation of a program, the optimizer
// update, the gradients' checks) and, inside each region, into the
// parallel sections that internal/par's loops and internal/sgemm's
// products open (Parallel … End) and the serial time between them. For
// each it adds up the wall time and the process's CPU time
// (CLOCK_PROCESS_CPUTIME_ID: every thread's, so a section's CPU time is the
// work of all its workers), and for each section its width: the number of
// independent pieces it offers, and whether they are fixed chunks (a
// chunk is never split, so P workers take ⌈w/P⌉ rounds) or divisible work.
// CPU time is what a shared machine measures best: other processes slow
// the wall clock, not the CPU seconds a step costs (bench/NOTES.md).
//
// A section whose loop reports its workers' busy time (Mark.Busy: each
// worker's thread CPU time, as internal/par's loops do while a recorder
// runs) also adds to its region's Balance: how long the section waited on
// its slowest worker beyond an even split of the work, and how long it
// took beyond that worker's work (starting and scheduling the goroutines)
// — the two things the many-core model leaves out, measured where the
// threads have cores of their own.
//
// Sections opened inside a section (a product inside a chunk) belong to the
// outer one; regions opened inside a section are ignored. With no recorder
// started, Begin and Parallel cost one atomic load.
package stepprof
