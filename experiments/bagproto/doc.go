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
//   - feature:COL[,COL…][,min=M][,max=M] (MakeFeature): one bag per distinct
//     combination of the values of the named columns, the bags of fewer than
//     min or more than max instances dropped (LLP-Bench's feature bags).
//   - kmeans:K (MakeKMeans): the K clusters of k-means over the feature
//     vectors, seeded (LLP-VAT's k-means bags).
//
// The last two make bags of varying sizes from the instances' features
// (features.go); the others draw bags of one size B from the labels.
//
// # Shortfall
//
// Under paper and dirichlet:a a class pool can run out: the 20 bags of 2,048
// drawn from Fashion-MNIST's 6,000 images per class ask more than 6,000 of
// some class for about one seed in five (TestShortfallRate). The policies:
//
//   - Restart (the default): start the whole draw again at the first
//     shortfall, up to MaxRestarts (default 100) times. The accepted bags are
//     then distributed exactly as the paper's protocol conditioned on not
//     running short: the bags stay exchangeable and each bag's γ keeps the
//     protocol's distribution up to that conditioning. This is also what the
//     authors' code does (it redraws all γ and counts when the class totals
//     exceed the class sizes, giving up after 100 tries). It is cheap: about
//     1.2 draws on average for the fixture at B=2048.
//   - Redraw: redraw that bag's γ and counts, up to MaxRedraws
//     times for the bag, recording how many redraws each bag needed
//     (Result.Redraws). Redrawing conditions a bag's γ on fitting the
//     remaining pools, so late bags lean away from depleted classes. If a bag
//     still does not fit (a nearly exhausted pool at the last bags: about one
//     seed in 2,000 for the fixture), the whole draw starts again
//     (Result.Restarts), up to MaxRestarts times.
//   - Strict: return an error naming the bag, the class and the shortfall,
//     e.g. "bag 7: class 3 needs 412 more points than remain (have 96)".
//
// Whatever the policy, data that cannot supply the bags give an error, never
// a crash.
//
// The same seed gives the same BagSet: all randomness comes from
// internal/rng stream "bags" of the seed. Every protocol records each bag's
// empirical proportions and puts an instance in at most one bag
// (TestPropertyFeatureProtocol, TestPropertyKMeansProtocol and the tests of
// the others).
package bagproto
