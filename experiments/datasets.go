package experiments

import (
	"strings"

	"github.com/llpfc/llpfc/experiments/bagproto"
)

// The data sets and protocols every room names: the paper's data sets, and
// the predicates on a data set's name and on a protocol.

// Paper data-set names, as resolved by package experiments/data.
const (
	CIFAR10       = "cifar10"
	SVHN          = "svhn"
	EMNISTLetters = "emnist-letters"
	// FashionFixture is the embedded Fashion-MNIST subset of fixtures/.
	FashionFixture = "fashion-mnist-fixture"
	// FashionMNIST is the full Fashion-MNIST (Debian's dataset-fashion-mnist
	// or --data-dir).
	FashionMNIST = "fashion-mnist"
)

// IsTabular reports whether the data set name denotes feature vectors
// (csv:…, parquet:…, libsvm:…, gmm:…, and bags:… of CSV or Parquet files)
// rather than images (the named sets). A bag-only .npz file or directory
// may hold either: its shape decides (CheckCellData).
func IsTabular(name string) bool {
	for _, p := range []string{"csv:", "parquet:", "libsvm:", "gmm:"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	if IsBagOnly(name) {
		lower := strings.ToLower(name)
		return strings.Contains(lower, ".csv") || strings.Contains(lower, ".parquet") || strings.Contains(lower, ".pq")
	}
	return false
}

// Cells whose bags are not B-sized draws: a bag-only data set
// (bags:…, data.ReadBagOnly) gives its own bags, recorded as the protocol
// "given"; the feature and kmeans protocols make bags of varying sizes from
// a labelled set's features. Such a cell has bag size 0 (a report's column
// "varying"); its NumPoints is the instances the protocol takes (0: all of
// the training split; always 0 for given bags).

// GivenProtocol is the protocol of a bag-only data set's cells: the bags the
// data set gives.
const GivenProtocol = "given"

// IsBagOnly reports whether the data set name is a bag-only set (bags:…).
func IsBagOnly(name string) bool { return strings.HasPrefix(name, "bags:") }

// VariableBags reports whether protocol makes bags of varying sizes: given
// bags, feature:… and kmeans:K.
func VariableBags(protocol string) bool {
	if protocol == GivenProtocol {
		return true
	}
	p, err := bagproto.ParseProtocol(protocol)
	return err == nil && p.VariableSize()
}
