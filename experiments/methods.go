package experiments

import (
	"strings"

	"github.com/llpfc/llpfc/training"
)

// The methods a cell may train, and their names in the paper's tables: what
// every room names a method by. A new method is added here (Methods, and its
// row in methodOrder and methodNames) and in package training.

// Methods are the training methods a cell may name (Section 6): the LLPFC
// algorithms (Algorithms 1–3) and the baselines of Appendix `suppsec: exp`
// (KL, `subsec:KL`; LLP-VAT; LLPGAN).
// "supervised" is the fully supervised ceiling: the same instances with their
// true labels. easyllp, mixbag and llppvc are the newer methods of issue 39
// (EasyLLP, NeurIPS 2023; MixBag, ICCV 2023; LLP-PVC, ICLR 2026), each
// trained on minibatches of bags.
var Methods = []string{training.MethodLLPFCIdeal, training.MethodLLPFCUniform, training.MethodLLPFCApprox,
	training.MethodKL, training.MethodLLPVAT, training.MethodLLPGAN, training.Supervised,
	training.MethodEasyLLP, training.MethodMixBag, training.MethodLLPPVC}

// IsLLPFC reports whether method is one of the LLPFC algorithms.
func IsLLPFC(method string) bool { return strings.HasPrefix(method, "llpfc-") }

// UsesKL reports whether method trains with the KL proportion loss (kl and
// llpvat), whose scale Hyper.KLScale sets.
func UsesKL(method string) bool {
	return method == training.MethodKL || method == training.MethodLLPVAT
}

// CountsInstances reports whether method's batch size counts instances (the
// LLPFC algorithms and the supervised ceiling) rather than bags (kl, llpvat,
// llpgan).
func CountsInstances(method string) bool { return IsLLPFC(method) || method == training.Supervised }

// NewerMethods are the methods of issue 39 set beside LLPFC on the same bags:
// EasyLLP, MixBag and LLP-PVC.
var NewerMethods = []string{training.MethodEasyLLP, training.MethodMixBag, training.MethodLLPPVC}

// IsNewer reports whether method is one of NewerMethods.
func IsNewer(method string) bool { return containsStr(NewerMethods, method) }

// methodOrder is the row order of the paper's tables (baselines first).
var methodOrder = []string{"kl", "llpvat", "llpgan", "easyllp", "mixbag", "llppvc", "llpfc-ideal", "llpfc-uniform", "llpfc-approx", "supervised"}

// methodNames are the paper's spellings.
var methodNames = map[string]string{"kl": "KL", "llpvat": "LLPVAT", "llpgan": "LLPGAN",
	"easyllp": "EasyLLP", "mixbag": "MixBag", "llppvc": "LLP-PVC",
	"llpfc-ideal": "LLPFC-ideal", "llpfc-uniform": "LLPFC-uniform", "llpfc-approx": "LLPFC-approx",
	"supervised": "Supervised (ceiling)"}

// MethodRank is method m's row in the paper's tables (methodOrder); a
// method not listed comes last.
func MethodRank(m string) int {
	for i, x := range methodOrder {
		if x == m {
			return i
		}
	}
	return len(methodOrder)
}

// MethodLabel is method m as the paper spells it (methodNames), for tables,
// plots and messages; m itself when it has no spelling of its own.
func MethodLabel(m string) string {
	if n, ok := methodNames[m]; ok {
		return n
	}
	return m
}
