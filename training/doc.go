// Package training holds the models, losses, optimizers and training loops
// (Section 6 and Appendix A of Zhang, Wang, Scott, NeurIPS 2022) built on
// gorgonia with float32 tensors: the forward-correction loss with a
// per-instance T̂ and weight for LLPFC, and the KL (DLLP), LLP-VAT and LLPGAN
// baselines.
//
// This build trains on the CPU only: gorgonia's CUDA back end needs
// gorgonia.org/cu, which the module proxy reachable here does not serve.
package training
