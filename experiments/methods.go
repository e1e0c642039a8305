package experiments

import (
	"github.com/llpfc/llpfc/training/methods"
)

// The methods a cell may train are the methods registered in
// training/methods, each with its descriptor: the helpers below
// read the descriptor, so that no list of method names is kept here. A new
// method is a descriptor and its implementation there, nothing here.

// Methods returns the methods a cell may name, in the tables' row order:
// the LLPFC algorithms (Algorithms 1–3), the baselines of Appendix
// `suppsec: exp` (KL, `subsec:KL`; LLP-VAT; LLPGAN), the newer methods set
// beside them and the fully supervised ceiling.
func Methods() []string { return methods.Select(func(*methods.Descriptor) bool { return true }) }

// Method returns the descriptor of the method named m.
func Method(m string) (*methods.Descriptor, bool) { return methods.Lookup(m) }

// Is reports whether m is a registered method of family f.
func Is(m string, f methods.Family) bool {
	return is(m, func(d *methods.Descriptor) bool { return d.Family == f })
}

// is reports whether m is a registered method for which p holds.
func is(m string, p func(*methods.Descriptor) bool) bool {
	d, ok := methods.Lookup(m)
	return ok && p(d)
}

// IsLLPFC reports whether method is one of the LLPFC algorithms.
func IsLLPFC(method string) bool {
	return is(method, func(d *methods.Descriptor) bool { return d.Family == methods.FamilyLLPFC })
}

// UsesKL reports whether method trains with the KL proportion loss (it reads
// the KL scale, Hyper.KLScale).
func UsesKL(method string) bool {
	return is(method, func(d *methods.Descriptor) bool { return d.Reads(methods.SettingKLScale) })
}

// MeasuresAssumptions reports whether learn.CellAssumptions measures an
// assumption of method on a cell's bags: the LLPFC algorithms'
// grouping assumption and invertible T̂_i, EasyLLP's i.i.d. bags, LLP-PVC's
// independent labels, KL's and LLP-VAT's pure bags, MixBag's coverage and
// equal sizes. The supervised ceiling, LLP-GAN and a bag objective without a
// stated assumption (SqProp) have none; a report counts a cell without
// diagnostics as written before them only when its method has some
// (TestMeasuresAssumptionsMatchesCellAssumptions holds the two together).
func MeasuresAssumptions(method string) bool {
	if IsLLPFC(method) {
		return true
	}
	switch method {
	case methods.EasyLLP, methods.LLPPVC, methods.KL, methods.LLPVAT, methods.MixBag:
		return true
	}
	return false
}

// CountsInstances reports whether method's minibatch counts instances (the
// LLPFC algorithms and the supervised ceiling) rather than bags.
func CountsInstances(method string) bool {
	return is(method, func(d *methods.Descriptor) bool { return d.Batch == methods.Instances })
}

// UsesLabels reports whether method trains on instance labels (the
// supervised ceiling).
func UsesLabels(method string) bool { return is(method, (*methods.Descriptor).UsesLabels) }

// IsNewer reports whether method trains with its authors' own optimizer and
// rate in a table (its descriptor's Authors preset: EasyLLP, MixBag and
// LLP-PVC) rather than the table's.
func IsNewer(method string) bool {
	return is(method, func(d *methods.Descriptor) bool { return d.Authors != nil })
}

// NewerMethods are the methods with an authors' preset (IsNewer), in row
// order.
func NewerMethods() []string {
	return methods.Select(func(d *methods.Descriptor) bool { return d.Authors != nil })
}

// TakesAllBags reports whether a minibatch of method larger than the bags
// there are is one minibatch of all of them (the bag objectives, as their
// authors' PyTorch DataLoader makes it), rather than an error.
func TakesAllBags(method string) bool {
	return is(method, func(d *methods.Descriptor) bool { return d.Bag != nil })
}

// MethodRank is method m's row in the tables (its descriptor's Order); a
// method not registered comes last.
func MethodRank(m string) int {
	if d, ok := methods.Lookup(m); ok {
		return d.Order
	}
	return int(^uint(0) >> 1)
}

// MethodLabel is method m as its tables spell it (its descriptor's Label),
// for tables, plots and messages; m itself when it is not registered.
func MethodLabel(m string) string {
	if d, ok := methods.Lookup(m); ok {
		return d.Label
	}
	return m
}
