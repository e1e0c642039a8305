// Package training trains the paper's models with its LLP methods (Section
// 6 and Appendix A of Zhang, Wang, Scott, NeurIPS 2022): LLPFC (Algorithms
// `algo:LLPFC`, `algo:LLPFC-uniform`, `algo:LLPFC-approx`: the
// forward-correction loss with a per-instance T̂ and weight) and the KL
// (DLLP), LLP-VAT and LLPGAN baselines, plus the fully supervised ceiling.
//
// It holds the methods (each registered by name: RegisterMethod), the loop
// (Train: epochs, steps, evaluation, progress, checkpoints that resume bit
// for bit), the regroupings of LLPFC and the step benchmark. The rooms below
// it hold the rest: training/nn the engine and its fused ops,
// training/models the architectures, training/loss the losses,
// training/optim the optimizers and schedules, and training/device the seam
// to the hardware: every graph a method runs is a program compiled on the
// run's back end (Config.Device: the CPU by default; see
// training/device/cpu), never a gorgonia machine of its own.
//
// aliases.go repeats the names experiments/ and cmd/ use from the rooms, so
// a Config can be written with this package alone.
package training
