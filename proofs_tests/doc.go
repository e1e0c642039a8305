// Package proofs_tests holds one property test per numbered result of
// "Learning from Label Proportions by Learning with Label Noise" (Zhang, Wang,
// Scott, NeurIPS 2022), named after the result's LaTeX label. Each test runs
// the checker registered in theory/verify (the same code `llpfc verify` runs)
// against the reference implementation, and its negative control against a
// deliberately wrong one, which must be caught.
//
// The number of cases defaults to 500 per property; set LLPFC_CASES (for
// example LLPFC_CASES=100000 go test ./proofs_tests) for a deeper search, and
// LLPFC_SEED to replay a reported failure.
package proofs_tests
