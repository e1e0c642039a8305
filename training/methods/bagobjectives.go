package methods

import "github.com/llpfc/llpfc/training/loss"

// The bag objectives that need nothing beyond their loss (training/loss): a
// new one is its loss, its loss's test and one RegisterBag call here
// (ARCHITECTURE.md, "How to add a method"); the help, the grids, the report,
// the parity, op-list and finite-difference cases and the Python client read
// it from the registry.

// SqProp is the squared-error proportion loss's name (loss.SqProp).
const SqProp = "sqprop"

func init() {
	RegisterBag(Descriptor{Name: SqProp, Label: "SqProp", Order: 70, Style: 7, DefaultBatch: 2, Search: DefaultSearch,
		Paper: "the squared error of each bag's mean prediction against its proportions (the L2 counterpart of App. `subsec:KL`'s loss)",
		Help:  "the squared error between each bag's proportions and its mean predicted distribution"},
		BagSpec{Objective: func(*Env) (loss.BagObjective, error) { return &loss.SqProp{}, nil }})
}
