// Package theory holds the pure mathematics of "Learning from Label Proportions
// by Learning with Label Noise" (Zhang, Wang, Scott, NeurIPS 2022): the
// probability simplex, column-stochastic noise transition matrices, proper
// losses and the forward-correction (FC) loss ℓ_T(q,c) = ℓ(Tq,c) (Section 2),
// inner risks, the calibration lower bound θ_T(ε) = ε²/(2‖T⁻¹‖₁²) (Section 3),
// the composite loss λ_{ℓ_T} with the softmax link, its Lipschitz constants,
// weighted Rademacher complexities and generalization bounds (Section 4 and
// Appendix C), and the harmonic-mean-optimal group weights (Section 4.3).
//
// Everything here is a deterministic function of small dense float64 matrices
// and vectors (gonum mat); randomness enters only through an explicit
// *rand.Rand argument. Every exported function validates its input and
// returns an error naming the argument and the rule it broke.
//
// The property checkers that try to falsify the paper's numbered results live
// in the sub-package verify, so that the tests in proofs_tests and the
// `llpfc verify` command run exactly the same code.
package theory
