// Package cpu is the CPU compute back end (training/device), registered as
// "cpu" and chosen when Config.Device is empty. A Program runs the compiled
// part of the graph with the project's fused operations (training/nn) in
// one of two ways:
//
//   - the activation plan (plan.go, the default; ActivationPlan): the
//     program's operations in gorgonia's order, each writing into a range
//     of one arena per element type that it holds from its step to its last
//     reader's, so values that are never live together share memory (a
//     WRN-16-4 step at batch 128 held 1.34 GB of activations and
//     activation gradients, now 0.63 GB); outputs in memory of their own,
//     which the gradients read in place (BorrowGradients);
//   - gorgonia's tape machine (tape.go), which keeps its buffers between
//     runs (Rewind instead of Reset) and drops them on Release: the
//     reference the plan is held to bit for bit (TestMemoryLeversMatchTape
//     in training), reaching into the tape's unexported fields, pinned to
//     gorgonia v0.9.18 (TestTapeRewindMatchesReset).
//
// Parameters and optimizer state are the nodes' own Go values, so Push and
// Pull copy nothing and a run on the CPU is bit for bit what it was before
// the seam existed (TestCheckpointFromBeforeTheSplitResumes, the committed
// reports).
package cpu
