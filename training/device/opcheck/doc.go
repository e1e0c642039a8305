// Package opcheck checks a compute back end's operations against the CPU
// back end's, which are Go (gorgonia's and training/nn's): one small graph
// per operation kind the training graphs use (Cases), run on both back ends
// and compared entry by entry (Run). It is the kernel library's check that
// `llpfc devices --check` runs on a user's device and that
// TestEveryOpKindMatchesTheCPU (training/device/opencl) runs on PoCL: one
// code path.
//
// Imports training/device, training/device/cpu, training/nn, gorgonia.
// Imported by cmd/llpfc and the OpenCL back end's tests.
package opcheck
