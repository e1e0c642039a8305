package methods

import (
	"fmt"
	"hash/fnv"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/training/device"
)

// Descriptor is everything the project knows about a training method, in
// one place beside its implementation: the help text, the report's
// rows, the grids' method lists, the default minibatch, the parity, op-list
// and finite-difference cases, the comparison's search and the Python
// client's method names are all read from the registered descriptors, never
// from a list of names kept elsewhere.
type Descriptor struct {
	// Name is the method's name in specs, flags and results ("kl").
	Name string
	// Label is its name in tables, plots and messages ("KL").
	Label string
	// Order places its row in a report's tables: baselines first (10–99),
	// then LLPFC (100–199), then the ceiling (1000); ties are broken by
	// name.
	Order int
	// Style is its line in every plot (PlotStyle), 1 to 56: 0, for a new
	// method, is a stable function of its name, so that registering a
	// method redraws no plot it is not in; the methods of the committed
	// plots declare the style they were drawn with (1 + their place in the
	// registry then, 1 to 11). A new method whose name's style another has
	// (TestMethodStylesAreDistinct) declares a free one.
	Style int
	// Paper cites what it implements (a numbered item of the paper or
	// another paper), Code the authors' code it was read against
	// (repository@commit:file), empty when there is none.
	Paper, Code string
	// Family is the kind of objective.
	Family Family
	// Batch is what a minibatch counts, DefaultBatch its size when a run
	// names none (> 0: Register refuses a method without one).
	Batch        Unit
	DefaultBatch int
	// Help is its one line in `llpfc train -h` and `llpfc methods`.
	Help string
	// Settings are the method's own hyperparameters, each declared once
	// (name, type, default, range, help: Setting) and shared, as one
	// variable, by the methods that read it; one not Shared stated for
	// another method is an error.
	Settings []*Setting
	// Mode is the LLPFC algorithm's estimation of α (Algorithms 1–3);
	// empty for the other families.
	Mode estimators.Mode
	// Authors are the settings its authors' code trains with, nil for the
	// paper's own methods (whose settings are the appendix's, in the
	// built-in grids).
	Authors *Preset
	// Search is the label-free search space of the comparison.
	Search Search
	// Output is the link from the network's logits to the class
	// probabilities the method trains: Softmax (the zero value) or Sigmoid
	// (one independent probability per class, LLP-PVC's). Held-out bags
	// are scored on these probabilities, so that a method is validated by
	// what it trains, not by another reading of its logits.
	Output Link
	// Model is the one architecture it trains, empty when it trains any
	// classifier, and ModelRole what that model is to it (LLP-GAN's
	// "discriminator"); Images, when not empty, says why it needs image
	// data ("llpgan's generator makes images").
	Model, ModelRole string
	Images           string
	// Unsupported names the compute back ends it does not run on (none:
	// every back end, each with parity cases against the CPU's results).
	Unsupported []string
	// New builds the method.
	New Factory
	// Bag is the objective of a method registered with RegisterBag (nil for
	// the others): the finite-difference and parity cases build it.
	Bag *BagSpec
}

// Link is how a method reads class probabilities from the network's
// logits (Descriptor.Output).
type Link uint8

// The links.
const (
	// Softmax: p = softmax(z), one distribution over the classes.
	Softmax Link = iota
	// Sigmoid: p_c = σ(z_c), each class on its own (LLP-PVC's
	// Poisson-binomial counts: Ma et al., ICLR 2026, Sec. 3).
	Sigmoid
)

// String names the link.
func (l Link) String() string {
	if l == Sigmoid {
		return "sigmoid"
	}
	return "softmax"
}

// Family is the kind of objective a method trains.
type Family uint8

// The families.
const (
	// FamilyLLPFC: the FC loss of noisy labels on groups of bags
	// (Algorithms 1–3).
	FamilyLLPFC Family = iota + 1
	// FamilyInstance: instance labels (the supervised ceiling).
	FamilyInstance
	// FamilyBag: a loss of minibatches of bags computed from the network's
	// outputs (KL, LLP-VAT, EasyLLP, MixBag, LLP-PVC).
	FamilyBag
	// FamilyAdversarial: a generator beside the classifier (LLP-GAN).
	FamilyAdversarial
)

func (f Family) String() string {
	switch f {
	case FamilyLLPFC:
		return "llpfc"
	case FamilyInstance:
		return "instance"
	case FamilyBag:
		return "bag"
	case FamilyAdversarial:
		return "adversarial"
	}
	return fmt.Sprintf("Family(%d)", uint8(f))
}

// MarshalText writes the family's name.
func (f Family) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// Unit is what a minibatch counts.
type Unit uint8

// The units.
const (
	Instances Unit = iota + 1
	Bags
)

func (u Unit) String() string {
	switch u {
	case Instances:
		return "instances"
	case Bags:
		return "bags"
	}
	return fmt.Sprintf("Unit(%d)", uint8(u))
}

// MarshalText writes the unit's name.
func (u Unit) MarshalText() ([]byte, error) { return []byte(u.String()), nil }

// The names of the settings declared before settings had declarations,
// each with a field of its own in Config and in a cell's hyper (Fielded);
// their declarations are beside the methods that read them.
const (
	SettingRegroupEvery  = "regroup_every"
	SettingWeights       = "weights"
	SettingCompat        = "compat"
	SettingKLScale       = "kl_scale"
	SettingBNStats       = "bn_stats"
	SettingChunkSize     = "chunk_size"
	SettingVATEps        = "vat_eps"
	SettingVATXi         = "vat_xi"
	SettingVATPowerIters = "vat_power_iters"
	SettingVATRampup     = "vat_rampup"
	SettingFlood         = "flood"
	SettingPVCLikelihood = "pvc_likelihood"
)

// Preset is a method's authors' training settings, read from their code.
type Preset struct {
	// Optimizer is sgd, nesterov, adam or adamw, with its constants (zero
	// β meaning PyTorch's defaults).
	Optimizer                               string
	LR, Momentum, WeightDecay, Beta1, Beta2 float64
	// BatchSize is their minibatch, in the method's Unit.
	BatchSize int
	// Flood is the flooding level they train with (0: none).
	Flood float64
	// Settings are the authors' values of the method's own settings, as a
	// spec spells them (LLP-PVC's "pvc_likelihood": "fft", their FFT
	// product); nil when they are the method's defaults.
	Settings map[string]string
	// Source cites the lines of their code each value comes from.
	Source string
}

// Search is a method's label-free search space: every combination of LR
// and BatchSize (the method's default or its authors' when empty) is one
// trial, scored on held-out bags' proportions.
type Search struct {
	LR        []float64
	BatchSize []int
}

// DefaultSearch is the learning rates every built-in method is tuned over:
// a factor of about 3 apart from 1e-4 to 3e-3, which holds each method's
// own default within a factor of 1.2 (LLPFC's and KL's 1e-3, EasyLLP's 1e-4,
// MixBag's 3e-4, LLP-PVC's 2.5e-3), so that every method gets the same
// number of trials over the same range.
var DefaultSearch = Search{LR: []float64{1e-4, 3e-4, 1e-3, 3e-3}}

// Trials is the number of configurations the space holds.
func (s Search) Trials() int { return max(len(s.LR), 1) * max(len(s.BatchSize), 1) }

// styleDeclared is one more than the largest style the built-in methods
// declare: the styles a name's hash gives (PlotStyle) lie above theirs.
const styleDeclared = 12

// styleCycle is the number of styles a plot tells apart (8 colours × 7
// shapes, experiments/report).
const styleCycle = 56

// PlotStyle is the method's style in plots, an index that
// experiments/report turns into a colour (index mod 8), a shape (index
// mod 7) and a dash pattern (from 8 on): its declared Style − 1, or, when it
// declares none, FNV-1a of its name mapped into [styleDeclared−1, 56), above
// the built-in methods' declared styles. It depends on nothing but the
// descriptor, so a plot's look does not change when another method
// registers.
func (d *Descriptor) PlotStyle() int {
	if d.Style > 0 {
		return d.Style - 1
	}
	h := fnv.New32a()
	h.Write([]byte(d.Name))
	return styleDeclared - 1 + int(h.Sum32()%uint32(styleCycle-styleDeclared+1))
}

// RunsOn reports whether the method runs on the back end named backend
// (its name before any ":"; empty is the CPU).
func (d *Descriptor) RunsOn(backend string) bool {
	name, _, _ := strings.Cut(backend, ":")
	if name == "" {
		name = "cpu"
	}
	return !slices.Contains(d.Unsupported, name)
}

// Backends are the registered back ends (device.Names) the method runs on.
func (d *Descriptor) Backends() []string {
	var out []string
	for _, b := range device.Names() {
		if d.RunsOn(b) {
			out = append(out, b)
		}
	}
	return out
}

// UsesLabels reports whether the method trains on instance labels (the
// supervised ceiling): it cannot run on bag-only data, and a method that
// tunes without labels never is one.
func (d *Descriptor) UsesLabels() bool { return d.Family == FamilyInstance }

var (
	registryMu sync.RWMutex
	registry   = map[string]*Descriptor{}
)

// Register makes a method available by its name. It panics on a descriptor
// that is incomplete (no name, label, order, family, unit, default
// minibatch or factory; an LLPFC method without its mode) or whose name or
// label another method has: a method is described once and completely.
func Register(d Descriptor) {
	if err := d.check(); err != nil {
		panic("methods: " + err.Error())
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	for _, o := range registry {
		if o.Name == d.Name || o.Label == d.Label {
			panic(fmt.Sprintf("methods: %s registered twice (name %q, label %q)", d.Name, o.Name, o.Label))
		}
		if d.Style != 0 && o.Style == d.Style {
			panic(fmt.Sprintf("methods: %s declares the plot style %d of %s", d.Name, d.Style, o.Name))
		}
	}
	for _, o := range registry {
		for _, s := range d.Settings {
			if os, ok := o.Setting(s.Name); ok && os != s && !reflect.DeepEqual(*os, *s) {
				panic(fmt.Sprintf("methods: %s declares setting %s otherwise than %s does: declare it once and share it", d.Name, s.Name, o.Name))
			}
		}
	}
	registry[d.Name] = &d
}

// Unregister removes the method named name from the registry. It is for
// the tests that register a throwaway method to show what a new method
// changes (nothing committed: TestANewMethodChangesNothingCommitted) and
// take it away after; the built-in methods never call it.
func Unregister(name string) {
	registryMu.Lock()
	defer registryMu.Unlock()
	delete(registry, name)
}

// check says what a descriptor lacks.
func (d *Descriptor) check() error {
	switch {
	case d.Name == "" || d.Label == "" || d.Help == "":
		return fmt.Errorf("method %q: a name, a label and a help line are required", d.Name)
	case d.Order <= 0:
		return fmt.Errorf("method %s: Order %d, want > 0", d.Name, d.Order)
	case d.Family == 0 || d.Family > FamilyAdversarial:
		return fmt.Errorf("method %s: no family", d.Name)
	case d.Batch == 0 || d.Batch > Bags:
		return fmt.Errorf("method %s: what its minibatch counts is not stated (Batch)", d.Name)
	case d.DefaultBatch <= 0:
		return fmt.Errorf("method %s: no default minibatch (DefaultBatch %d)", d.Name, d.DefaultBatch)
	case d.New == nil:
		return fmt.Errorf("method %s: no factory", d.Name)
	case (d.Family == FamilyLLPFC) != (d.Mode != 0):
		return fmt.Errorf("method %s: family %s with mode %q (the LLPFC algorithms, and they alone, have one)", d.Name, d.Family, d.Mode)
	case len(d.Search.LR) == 0:
		return fmt.Errorf("method %s: an empty search space (Search.LR)", d.Name)
	case d.Style < 0 || d.Style > styleCycle:
		return fmt.Errorf("method %s: Style %d, want 1..%d (or 0: one from its name)", d.Name, d.Style, styleCycle)
	}
	seen := map[string]bool{}
	for _, s := range d.Settings {
		if s == nil {
			return fmt.Errorf("method %s: a nil setting", d.Name)
		}
		if err := s.check(); err != nil {
			return fmt.Errorf("method %s: %w", d.Name, err)
		}
		if seen[s.Name] {
			return fmt.Errorf("method %s: setting %s declared twice", d.Name, s.Name)
		}
		seen[s.Name] = true
	}
	if a := d.Authors; a != nil {
		for name, text := range a.Settings {
			s, ok := d.Setting(name)
			if !ok {
				return fmt.Errorf("method %s: its authors' preset sets %s, a setting it does not declare", d.Name, name)
			}
			if _, err := s.Parse(text); err != nil {
				return fmt.Errorf("method %s: its authors' %s %w", d.Name, name, err)
			}
		}
	}
	return nil
}

// Lookup returns the descriptor of the method named name.
func Lookup(name string) (*Descriptor, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	d, ok := registry[name]
	return d, ok
}

// MustLookup is Lookup for a name the caller has validated: an unknown
// name panics.
func MustLookup(name string) *Descriptor {
	d, ok := Lookup(name)
	if !ok {
		panic(fmt.Sprintf("methods: %q is not registered", name))
	}
	return d
}

// All returns every registered descriptor in report order (Order, then
// name).
func All() []*Descriptor {
	registryMu.RLock()
	out := make([]*Descriptor, 0, len(registry))
	for _, d := range registry {
		out = append(out, d)
	}
	registryMu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Order != out[j].Order {
			return out[i].Order < out[j].Order
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Names returns the registered methods' names, sorted.
func Names() []string {
	var ns []string
	for _, d := range All() {
		ns = append(ns, d.Name)
	}
	sort.Strings(ns)
	return ns
}

// Select returns the names, in report order, of the methods for which keep
// holds.
func Select(keep func(*Descriptor) bool) []string {
	var ns []string
	for _, d := range All() {
		if keep(d) {
			ns = append(ns, d.Name)
		}
	}
	return ns
}

// UnknownError is the error of a name no method is registered under.
func UnknownError(name string) error {
	return fmt.Errorf("method %q: unknown (want one of %s)", name, strings.Join(Names(), ", "))
}
