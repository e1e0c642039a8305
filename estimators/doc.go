// Package estimators implements the reduction of learning from label
// proportions (LLP) to learning with multiple noise transition matrices
// (Section 5 of Zhang, Wang, Scott, NeurIPS 2022): bags with label proportions
// γ̂, their random partition into groups of C bags, the estimates σ̂, Γ̂_i, α̂_i,
// σ̂_i and T̂_i of Algorithms 1–3 (LLPFC-ideal, -uniform and -approx), instance
// and group weights, and per-group diagnostics.
//
// The package knows nothing of networks or files beyond the JSON bags format;
// it uses package theory for the mathematics.
//
// # Data flow
//
// A BagSet (the bags file) goes through Build (or BuildSeed / BuildRound,
// which derive the random stream from a run seed with internal/rng) and
// becomes a Reduction:
//
//   - SigmaHat: σ̂ = Σ_k |b_k|γ̂_k / Σ_k |b_k| (Algorithm 3, line 2);
//   - Groups: per group the bags in row order (row c = noisy label c), Γ̂_i,
//     α̂_i (Options.Mode: ideal = Algorithm 1, uniform = Algorithm 2,
//     approx = Algorithm 3 solved exactly by SimplexLS, merge = the authors'
//     code's mega-bags), σ̂_i = Γ̂_iᵀα̂_i, T̂_i, the weight w_i
//     (Options.Weights: uniform, hm, chvol) and Diagnostics;
//   - Leftover: bags in no group, redrawn at every Build;
//   - GeneralizationTerm: √(Σ_i w_i² Σ_c α̂_i(c)²/n_{i,c}).
//
// The trainer reads Reduction.Instances (instance index → noisy label, group,
// weight w_i·α̂_i(c)/|b|) and Reduction.TransitionMatrices, and calls
// BuildRound again at every regrouping.
//
// # No NaN reaches training
//
// T̂_i is always finite and column-stochastic: a class absent from a group
// (σ̂_i(c) = 0) gets the column e_c, and instances whose noisy label has
// α̂_i(c) = 0 (a zero row of T̂_i, weight 0) are left out of Instances. Build
// documents the reasons; Diagnostics report both cases.
//
// # Paper vs original code
//
// The paper's algorithms are the default. Options.Compat = CompatOriginal
// reproduces the authors' public code where it changes results (uniform
// α̂ = 1/C, instance weights without 1/|b|, merge and chvol details, 0/0 as
// an error); PAPER_MAP.md ("Paper vs original code") lists every difference with the test
// that shows it.
package estimators
