package models

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"

	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
)

// The registered models' names (ModelNames lists them at run time).
const (
	ModelMLP      = "mlp"      // the MLP of the Fashion-MNIST experiments
	ModelCNN      = "cnn"      // a small convolutional network (this machine's scale)
	ModelCNNBN    = "cnn-bn"   // the cnn with batch norm (the KL scale's evidence)
	ModelWRN164   = "wrn-16-4" // Table 1, Wide ResNet-16-4
	ModelResNet18 = "resnet18" // Table 2
	ModelVGG16    = "vgg16"    // Table 3, VGG16 with batch norm
	ModelLLPGAND  = "llpgan-d" // Table 4, the LLPGAN discriminator
	ModelLLPGANG  = "llpgan-g" // the LLPGAN generator
)

// BuildFunc builds an architecture in g with parameters initialised from rng.
type BuildFunc func(g *gorgonia.ExprGraph, spec nn.ModelSpec, rng *rand.Rand) (nn.Model, error)

var (
	registryMu sync.RWMutex
	registry   = map[string]BuildFunc{}
)

// RegisterModel makes an architecture available to NewModel by name (each
// architecture file registers itself in init). Registering a name twice
// panics, as it is a programming error.
func RegisterModel(name string, build func(g *gorgonia.ExprGraph, spec nn.ModelSpec, rng *rand.Rand) (nn.Model, error)) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[name]; dup {
		panic("training: model " + name + " registered twice")
	}
	registry[name] = build
}

// ModelNames returns the registered architecture names, sorted.
func ModelNames() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// NewModel builds the architecture spec.Name in g, initialising its
// parameters from rng (see NewLearnable for the scheme).
func NewModel(g *gorgonia.ExprGraph, spec nn.ModelSpec, rng *rand.Rand) (nn.Model, error) {
	if g == nil {
		return nil, fmt.Errorf("model %q: nil graph", spec.Name)
	}
	if rng == nil {
		return nil, fmt.Errorf("model %q: nil random stream", spec.Name)
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	registryMu.RLock()
	build, ok := registry[spec.Name]
	registryMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("model %q: unknown architecture (known: %v)", spec.Name, ModelNames())
	}
	return build(g, spec, rng)
}

// BatchNormLayers returns K, the number of batch-norm layers in spec's
// training-mode forward pass that a bnSweep drives (0 for a model without
// batch norm). It builds the model's graph for one instance and runs
// nothing. With BNStatsMinibatch a bag loss whose minibatch spans several
// chunks costs about K + 1 times a chunked step (see bnSweep); a plan's
// estimate uses it.
func BatchNormLayers(spec nn.ModelSpec) (int, error) {
	g := gorgonia.NewGraph()
	m, err := NewModel(g, spec, rand.New(rand.NewPCG(0, 0)))
	if err != nil {
		return 0, err
	}
	x, _ := nn.NewInputNode(g, spec.DType(), "bn-count.x", spec.InputShape(1))
	z, err := m.Forward(x, true)
	if err != nil {
		return 0, err
	}
	s, err := nn.NewBNSweep(g, z)
	if err != nil {
		return 0, err
	}
	return s.Layers(), nil
}
