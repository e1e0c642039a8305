// Package algclaims registers the verify claims of Algorithms 1–3 (Section 5):
// the estimated class prior σ̂, the noisy prior α̂ by the simplex-constrained
// least squares (checked against its KKT conditions), the transition matrix
// T̂ (column-stochastic, equal to γα/σ), and the unbiasedness of the LMNTM
// empirical risk of Algorithm 1. It sits above estimators (it checks that
// package) and is imported by `llpfc verify`, proofs_tests and cmd/mutate.
package algclaims
