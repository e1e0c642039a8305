// Package bagproto makes LLP data sets from labelled data: it draws bags of
// instance indices by one of the bag protocols below and records each bag's
// empirical label proportions γ̂ (the labels themselves are then dropped).
//
// Protocols (Appendix `suppsec: exp`, "Datasets", and Section 6):
//
//   - paper: the paper's protocol. For each bag, γ ~ Dirichlet(1,…,1) (the
//     uniform distribution on the simplex Δ^C), counts ~ Multinomial(B, γ),
//     then that many points of each class are drawn without replacement from
//     what remains of the class pools (so no point is in two bags). All bags
//     have size B.
//   - dirichlet:a: the same with γ ~ Dirichlet(a,…,a), a > 0 (paper = dirichlet:1).
//   - shuffle: the protocol of the prior work the paper compares against
//     (DulacArnold2019, Tsai20LLPVAT, Liu19LLPGAN): shuffle all points and cut
//     every B consecutive points into a bag.
//
// # Shortfall
//
// Under paper and dirichlet:a a class pool can run out: the 20 bags of 2,048
// drawn from Fashion-MNIST's 6,000 images per class ask more than 6,000 of
// some class for about one seed in six. Policy Redraw (the default) then
// redraws that bag's γ and counts, up to MaxRedraws times for the bag,
// and records how many redraws each bag needed (Result.Redraws); note that
// redrawing conditions the bag's γ on fitting the remaining pools, so late
// bags lean away from depleted classes. Policy Strict returns an error that
// names the bag, the class and the shortfall instead. Either way the result
// is an error, never a crash, when the data cannot supply the bags.
//
// The same seed gives the same BagSet: all randomness comes from
// internal/rng stream "bags" of the seed.
package bagproto
