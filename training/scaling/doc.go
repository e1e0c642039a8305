// Package scaling measures a CPU training step operation by operation at
// several thread counts (GOMAXPROCS) and holds the model that predicts the
// step on more cores than the measuring machine has: how the pure-Go build
// goes from the 2 cores it was tuned on to a GPU host's 16 (bench/NOTES.md,
// "Many cores as well as two").
//
// Each operation kind (a region of internal/stepprof's step profile) is
// split into its serial CPU time S (one goroutine ran: nothing more cores
// can shorten), its parallel sections' CPU time W by width w (the pieces a
// section offers: fixed chunks, which P workers take in ⌈w/P⌉ rounds, or
// work divided among up to w workers), and the bytes B its values move. On
// P cores the operation takes, by Amdahl's law with the sections' widths
// and a bandwidth floor,
//
//	T(P) = S + max( Σ_w W_w / eff(w, P),  B / BW(P) ),
//	eff(w, P) = w / ⌈w/P⌉ (fixed chunks), min(w, P) (divisible work),
//
// where BW(P) is the memory bandwidth P threads reach (Bandwidth measures
// it). Predict evaluates it two ways: Extrapolated, from the two smallest
// thread counts measured (what a 2-core machine can measure: S from the
// larger, W at P from W at 1 plus the growth per added worker that the
// second count shows), and Structural, from the CPU times measured at P
// itself — the code paths that P threads take, which on a machine with
// fewer cores than P threads still run and can be timed in CPU seconds.
// The GPU kit (scripts/gpu-kit) runs Measure at 1, 2, 4, 8 and 16 threads
// on its host and writes both predictions beside the measured wall time.
package scaling
