// Package estimators implements the reduction of learning from label
// proportions (LLP) to learning with multiple noise transition matrices
// (Section 5 of Zhang, Wang, Scott, NeurIPS 2022): bags with label proportions
// γ̂, their random partition into groups of C bags, the estimates σ̂, Γ̂_i, α̂_i,
// σ̂_i and T̂_i of Algorithms 1–3 (LLPFC-ideal, -uniform and -approx), instance
// and group weights, and per-group diagnostics.
//
// The package knows nothing of networks or files beyond the JSON bags format;
// it uses package theory for the mathematics.
package estimators
