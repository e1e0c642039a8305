package experiments

// The data sets and protocols every room names: the paper's data sets, and
// the predicates on a data set's name.

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
