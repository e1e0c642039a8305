// Package lossclaims registers the verify claims of the newer methods'
// identities, whose losses live in training/loss:
// EasyLLP's unbiasedness (its debiased soft labels make the bag loss an
// unbiased estimate of the supervised loss when bags are drawn i.i.d. from
// the population), LLP-PVC's count likelihood (the bag loss is −log of the
// probability of the bag's counts under independent per-class labels), and
// MixBag's mixed bags (their proportions are the instance-weighted mixture of
// their two bags', and their confidence interval covers the mixed bag's true
// proportions at its level). Each claim lists its hypotheses, probed as
// those of the paper's claims are. It sits above training/loss (theory/
// cannot import training) and is imported by `llpfc verify`, proofs_tests and
// cmd/mutate, as estimators/algclaims is for Algorithms 1–3.
package lossclaims
