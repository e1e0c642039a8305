// Package cpu is the CPU compute back end (training/device), registered as
// "cpu" and chosen when Config.Device is empty: a Program is gorgonia's tape
// machine over the compiled part of the graph, with the project's fused
// operations (training/nn), that keeps its buffers between runs (tape.go:
// Rewind instead of Reset) and drops them on Release. Parameters,
// gradients and optimizer state are the nodes' own Go values, so Push and
// Pull copy nothing and a run on the CPU is bit for bit what it was before
// the seam existed (TestCheckpointFromBeforeTheSplitResumes, the committed
// reports).
//
// Hand-written because gorgonia's tape machine frees every register on
// Reset (megabytes of garbage per step); the tape's rewind reaches into its
// unexported fields, pinned to gorgonia v0.9.18 (TestTapeRewindMatchesReset).
package cpu
