// Package claims registers the `verify` claims of the paper's Algorithms
// 1–3 (LLPFC-ideal, LLPFC-uniform, LLPFC-approx; Section 5.4) against the
// estimators package (issue 11): σ̂ as the size-weighted label proportion of
// all the bags, the noisy priors α̂ of each algorithm (the inverse of
// Algorithm 1, the sizes of Algorithm 2, and Algorithm 3's constrained least
// squares checked by its KKT conditions, computed here), T̂ column-stochastic
// and equal to γ̂α̂/σ̂_i entry by entry, and instance weights that sum to the
// group weights. Each claim's negative control is a bug a person could
// write (an unweighted σ̂, a transposed T̂, the untransposed fit of Section
// 5.4's prose, instance weights without the bag size).
//
// It lives beside estimators rather than in theory/verify/claims because the
// layers import one way: theory cannot import estimators.
package claims
