package experiments

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments/bagproto"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/training"
)

// knownDataset reports whether name is a data set the learners can load: a
// named set of package data, a csv:, parquet:, libsvm: or bag-only bags:
// one, or a synthetic gmm: one. A spec naming another fails before any cell
// runs (issue 17, item 8).
func knownDataset(name string) bool {
	for _, p := range []string{"csv:", "parquet:", "libsvm:", "bags:", "gmm:"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return containsStr(data.Names, name)
}

// Spec is a declarative experiment grid: the cross product
// datasets × seeds × bag sizes × methods, each cell sharing Config's other
// settings, with Overrides patching the cells they match (the appendix's
// settings differ by data set and method). Its JSON form is read strictly: an
// unknown field is an error naming it.
type Spec struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`

	// Learner names the registered Learner that trains the cells ("logreg",
	// "gorgonia", …; see RegisterLearner).
	Learner string `json:"learner"`
	// Model is the network (mlp, cnn, wrn-16-4, resnet18, vgg16, llpgan-d) or
	// "linear" for the logistic-regression learner.
	Model    string   `json:"model"`
	Datasets []string `json:"datasets"`
	Methods  []string `json:"methods"`
	// BagSizes is the grid's bag sizes; left out (empty) when the protocol
	// makes bags of varying sizes.
	BagSizes []int   `json:"bag_sizes,omitempty"`
	Seeds    []int64 `json:"seeds"`
	// Protocol makes the bags: "paper", "shuffle", "dirichlet:a",
	// "feature:COL[,COL…][,min=M][,max=M]" or "kmeans:K" (package
	// bagproto), or "given" for a bag-only data set's own bags (the
	// default when every data set is bags:…). The last three make bags of
	// varying sizes: bag_sizes is then left out (one cell per seed and
	// method, bag size 0).
	Protocol string `json:"protocol"`
	// NumPoints is the number of training points put in bags; it must be a
	// multiple of every bag size (App. `suppsec: exp`: 32×1280 = 40960 for
	// CIFAR10 and SVHN, 32×3328 = 106496 for EMNIST). For feature and
	// kmeans bags 0 means the whole training split; for given bags it is 0.
	NumPoints int `json:"num_points,omitempty"`
	// TestPoints caps the labelled test points evaluated (0: the whole split).
	TestPoints int `json:"test_points,omitempty"`
	// Shortfall is "" or "restart" (the default), "redraw" or "strict": see bagproto.
	Shortfall string `json:"shortfall,omitempty"`
	// Normalize is the input normalization every cell gets: "standardize"
	// (the default when empty: per-channel mean and standard deviation of the
	// training split, as the authors do for every data set) or "none".
	Normalize string `json:"normalize,omitempty"`
	Hyper     Hyper  `json:"hyper"`
	// Device is the compute back end that trains the gorgonia learner's
	// cells: "cpu" (the meaning of the zero value), "opencl" or
	// "opencl:P:D" (training.Config.Device). It is where a cell runs, not
	// what it is: it is not part of the cells' Config or key (a grid may run
	// its shards on different machines), and every result records it
	// (Metrics.Device). `run --device` overrides it.
	Device string `json:"device,omitempty"`

	Overrides []Override `json:"overrides,omitempty"`
}

// Override patches every cell matching When: Set is a partial Config in JSON
// (for example {"hyper": {"batch_size": 2}}) decoded over the cell's config,
// so fields it names replace the cell's and the others stay. Overrides apply
// in order.
type Override struct {
	When Match           `json:"when"`
	Set  json.RawMessage `json:"set"`
}

// Match selects cells; an empty list matches every value.
type Match struct {
	Datasets []string `json:"datasets,omitempty"`
	Methods  []string `json:"methods,omitempty"`
	BagSizes []int    `json:"bag_sizes,omitempty"`
}

func (m Match) matches(c *Config) bool {
	return (len(m.Datasets) == 0 || containsStr(m.Datasets, c.Dataset)) &&
		(len(m.Methods) == 0 || containsStr(m.Methods, c.Method)) &&
		(len(m.BagSizes) == 0 || containsInt(m.BagSizes, c.BagSize))
}

// Hyper holds the training hyperparameters of a cell (App. `suppsec: exp`,
// "Architecture and Hyperparameters" and "Implementation Details of LLPFC").
// As in gonum's optimize.Settings, every field whose zero value has a meaning
// says it; a field tagged omitempty is left out of the canonical encoding at
// its zero value, so its zero must be the behaviour cells had before the
// field existed (TestZeroValuesDocumented).
type Hyper struct {
	// Epochs is the number of passes over the bags; 0 is an error (Validate).
	Epochs int `json:"epochs"`
	// Optimizer is "sgd", "nesterov" (SGD with Nesterov momentum, dampening
	// 0), "adam" or "adamw"; "gd" is full-batch gradient descent (logreg only).
	// Empty is an error.
	Optimizer string `json:"optimizer"`
	// LR is the base learning rate; 0 is an error.
	LR float64 `json:"lr"`
	// Momentum μ of sgd and nesterov; zero means none (plain SGD), and is an
	// error with nesterov. Adam ignores it.
	Momentum float64 `json:"momentum,omitempty"`
	// WeightDecay λ; zero means no weight decay.
	WeightDecay float64 `json:"weight_decay,omitempty"`
	// Beta1 and Beta2 are Adam's and AdamW's β₁, β₂; zero means PyTorch's
	// defaults 0.9 and 0.999 (training.OptimizerConfig).
	Beta1 float64 `json:"beta1,omitempty"`
	Beta2 float64 `json:"beta2,omitempty"`
	// BatchSize counts instances for the LLPFC methods and bags for kl,
	// llpvat and llpgan (the appendix uses 128 or 256 instances; 2, 2 and 1
	// bags); 0 is an error.
	BatchSize int `json:"batch_size"`
	// Schedule is the learning-rate schedule; its empty Kind is an error
	// in a spec (see Schedule).
	Schedule Schedule `json:"schedule"`
	// RegroupEvery re-partitions the bags into groups every r epochs for the
	// LLPFC methods (App. "Implementation Details of LLPFC": 20, or 5 for
	// VGG16); zero means never: the groups drawn at epoch 0 serve the whole
	// run (training.Config.RegroupEvery's zero).
	RegroupEvery int `json:"regroup_every,omitempty"`
	// Dropout is the dropout probability of architectures that have dropout;
	// zero means none.
	Dropout float64 `json:"dropout,omitempty"`
	// Augment applies the appendix's augmentation: zero-pad 4, random crop,
	// random horizontal flip; false means none.
	Augment bool `json:"augment,omitempty"`
	// VATEps and VATXi are LLP-VAT's perturbation radius ε and
	// finite-difference step ξ; zero means the appendix's ε (6 for CIFAR10, 1
	// for the other data sets) and the authors' ξ = 1e-6
	// (training.PaperVATConfig).
	VATEps float64 `json:"vat_eps,omitempty"`
	VATXi  float64 `json:"vat_xi,omitempty"`
	// VATPowerIters is LLP-VAT's number of power iterations; zero means the
	// authors' 1.
	VATPowerIters int `json:"vat_power_iters,omitempty"`
	// Weights is the LLPFC group weighting w ∈ Δ^N: "uniform" (w_i = 1/N,
	// Section 6; empty means uniform), "hm" or "chvol" (see
	// estimators.WeightScheme).
	Weights string `json:"weights,omitempty"`
	// Compat is "paper" (Algorithms 1–3; empty means paper) or "original"
	// (the authors' code where it differs; see estimators.Compat).
	Compat string `json:"compat,omitempty"`
	// KLScale is the scale of kl's and llpvat's proportion loss: "authors"
	// (Σ over classes, mean over bags, as the authors' code trains) or
	// "paper" (the paper's 1/(C·B)); see training.KLScale. Empty for the
	// other methods; a spec's empty value is filled with "authors" in every
	// kl and llpvat cell, and TrainingConfig reads empty as "authors".
	KLScale string `json:"kl_scale,omitempty"`
	// VATRampup is llpvat's consistency-weight schedule: "authors" (a
	// constant 0.05, what the LLPFC authors' code computes) or "llpvat"
	// (LLP-VAT's ramp-up over 40% of the steps); see training.VATRampup.
	// Empty for the other methods; a spec's empty value is filled with
	// "authors" in every llpvat cell, and TrainingConfig reads empty as
	// "authors".
	VATRampup string `json:"vat_rampup,omitempty"`
	// Flood is easyllp's flooding level b: the loss trained is |L − b| + b
	// (the authors' easyllp_flood.py; training.Config.Flood); zero means none,
	// EasyLLP's plain loss. Zero for the other methods.
	Flood float64 `json:"flood,omitempty"`
	// BNStats is the batch-norm statistics of kl's and llpvat's proportion
	// loss when a minibatch of bags spans several chunks: empty means the
	// whole minibatch's (as the authors' code; see training.BNStats), or
	// "chunk" (each chunk's own). Empty for the other methods.
	BNStats string `json:"bn_stats,omitempty"`
	// ChunkSize is the number of instances per forward pass of the bag
	// methods' losses (kl, llpvat): it bounds their memory, and it changes
	// the result with BNStats "chunk" (and the order of float32 sums
	// otherwise); zero means training.DefaultChunkSize (256).
	ChunkSize int `json:"chunk_size,omitempty"`
	// ValBags holds bags out of training for model selection
	// (training.Config.ValBags: a fraction in (0, 1) or a number of bags);
	// zero means none, as the paper's tables (the authors' -v defaults to 0).
	ValBags float64 `json:"val_bags,omitempty"`
	// Select chooses the reported network: empty or "last" (the last
	// epoch's, the paper's) or "best-val" (the lowest validation KL of the
	// held-out bags; needs ValBags).
	Select string `json:"select,omitempty"`
}

// Schedule is a learning-rate schedule: "constant"; "multistep" (multiply by
// Factor at each epoch in Milestones); "cosine" (cosine annealing with warm
// restarts, first period Period epochs, each next period ×Mult; zero Mult
// means 1). An empty Kind is an error in a spec (Validate); Training reads
// it as constant. The fields a kind does not use must be zero.
type Schedule struct {
	// Kind is "constant", "multistep" or "cosine"; empty is an error in a
	// spec, and constant for Training.
	Kind string `json:"kind"`
	// Milestones and Factor are multistep's; zero (empty) for the others.
	Milestones []int   `json:"milestones,omitempty"`
	Factor     float64 `json:"factor,omitempty"`
	// Period is cosine's first period in epochs (zero for the others), and
	// Mult the factor of each next period; zero Mult means 1.
	Period int `json:"period,omitempty"`
	Mult   int `json:"mult,omitempty"`
}

// LR returns the learning rate of epoch e (0-based) for base rate base: the
// rate of the training package's schedule (Training), so the grid and the
// engine share one implementation (issue 19); an invalid schedule, which
// Validate refuses, keeps the base rate.
func (s Schedule) LR(base float64, e int) float64 {
	ts, err := s.Training()
	if err != nil {
		return base
	}
	return ts.LR(base, e)
}

// Training returns the schedule as package training implements it:
// constant, training.MultiStep (Factor is its Gamma) or
// training.CosineWarmRestarts (Period its T0, Mult its TMult, 0 meaning 1).
func (s Schedule) Training() (training.Schedule, error) {
	switch s.Kind {
	case "", "constant":
		return training.ConstantLR{}, nil
	case "multistep":
		ms := training.MultiStep{Milestones: append([]int(nil), s.Milestones...), Gamma: s.Factor}
		if err := ms.Validate(); err != nil {
			return nil, fmt.Errorf("hyper.schedule: %w", err)
		}
		return ms, nil
	case "cosine":
		return training.CosineWarmRestarts{T0: s.Period, TMult: max(s.Mult, 1)}, nil
	}
	return nil, fmt.Errorf("hyper.schedule.kind: is %q, want constant, multistep or cosine", s.Kind)
}

// Config is the full configuration of one cell, the one description of a
// training run: a grid's cells and `llpfc train`'s one run (issue 19). Its
// canonical encoding (CanonicalJSON) determines the cell's key. Every field
// whose zero value has a meaning says it (see Hyper).
type Config struct {
	// Learner names the registered Learner ("gorgonia", "logreg"); empty is
	// an error.
	Learner string `json:"learner"`
	// Dataset is a named set of package data, csv:…, libsvm:… or gmm:…;
	// empty is an error.
	Dataset string `json:"dataset"`
	// Model is the network (training.ModelNames) or "linear" (logreg);
	// empty is an error.
	Model string `json:"model"`
	// Method is one of Methods; empty is an error.
	Method string `json:"method"`
	// Protocol makes the bags: "paper", "shuffle", "dirichlet:a",
	// "feature:…" or "kmeans:K", or "given" (a bag-only data set's bags);
	// empty is an error. `llpfc train --bags FILE` records "bags-file".
	Protocol string `json:"protocol"`
	// BagSize and NumPoints: NumPoints/BagSize bags of BagSize instances;
	// 0 is an error for both, but for the protocols of bags of varying
	// sizes (VariableBags), whose BagSize is 0 and whose NumPoints 0 means
	// the whole training split.
	BagSize   int `json:"bag_size"`
	NumPoints int `json:"num_points"`
	// TestPoints caps the labelled test points evaluated; zero means the
	// whole test split.
	TestPoints int `json:"test_points,omitempty"`
	// Shortfall is the bag protocol's policy when a class pool runs out:
	// "restart" (bagproto's default; empty means restart), "redraw", or
	// "strict" (fail).
	Shortfall string `json:"shortfall,omitempty"`
	// Normalize is the input normalization, "standardize" or "none" (package
	// experiments/data); always set in a cell, so two cells that differ in it
	// never share a key (LoadProblem reads empty as "standardize").
	Normalize string `json:"normalize"`
	// Seed drives every random stream of the cell; 0 is a seed like any
	// other.
	Seed  int64 `json:"seed"`
	Hyper Hyper `json:"hyper"`
}

// NumBags is the number of bags of the cell, NumPoints/BagSize; 0 when the
// protocol makes bags of varying sizes (known once they are made).
func (c Config) NumBags() int {
	if c.BagSize <= 0 {
		return 0
	}
	return c.NumPoints / c.BagSize
}

// canonicalPrefix versions the canonical encoding: a change of encoding must
// change the prefix.
const canonicalPrefix = "llpfc-cell/v2\n"

// CanonicalJSON is the canonical encoding of c that Key hashes: the prefix
// "llpfc-cell/v2\n" followed by encoding/json's compact encoding of the
// Config struct — fields in the struct's declaration order (never the order of
// a spec file's keys), fields tagged omitempty left out at their zero value
// (so adding a new field whose zero value is the old behaviour keeps old keys),
// numbers in Go's shortest round-trip form (1e-1 and 0.1 both encode as 0.1),
// slices in their given order (milestones are ordered), no whitespace.
func (c Config) CanonicalJSON() []byte {
	b, err := json.Marshal(c)
	if err != nil { // unreachable: Config holds only strings, numbers, slices
		panic(err)
	}
	return append([]byte(canonicalPrefix), b...)
}

// Key is the cell's identity: the first 32 hex digits (128 bits) of the
// SHA-256 of CanonicalJSON. Any change of setting changes the key; the
// ordering or spelling of a spec file does not.
func (c Config) Key() string {
	sum := sha256.Sum256(c.CanonicalJSON())
	return hex.EncodeToString(sum[:16])
}

// Cell is one job of a grid: a configuration, its key and the name of the
// spec it came from. DataDir is where the learner finds data files; it is an
// environment setting, not part of the key.
type Cell struct {
	Spec    string
	Key     string
	Config  Config
	DataDir string
	// Device is the compute back end that trains the cell (Spec.Device or
	// Runner.Device; "" means cpu): not part of Config or Key.
	Device string
	// ModelPath, when set, is where the learner saves the trained network
	// (SaveModel: PATH.npz and PATH.json; Runner.SaveModels); empty means
	// not saved. Not part of Config or Key.
	ModelPath string
}

// ParseSpec reads a spec from JSON, rejecting unknown fields, and validates
// it. name labels errors (a file name).
func ParseSpec(name string, r io.Reader) (*Spec, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var s Spec
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("spec %s: %w", name, JSONError(err))
	}
	if dec.More() {
		return nil, fmt.Errorf("spec %s: trailing data after the spec object", name)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("spec %s: %w", name, err)
	}
	return &s, nil
}

// LoadSpec returns the built-in spec called nameOrPath, or else reads the JSON
// file at that path.
func LoadSpec(nameOrPath string) (*Spec, error) {
	if s, ok := BuiltinSpec(nameOrPath); ok {
		return s, nil
	}
	f, err := os.Open(nameOrPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("spec %q: neither a built-in spec (%s) nor a readable file: %w",
				nameOrPath, strings.Join(BuiltinNames(), ", "), err)
		}
		return nil, fmt.Errorf("spec %q: %w", nameOrPath, err)
	}
	defer f.Close()
	return ParseSpec(nameOrPath, f)
}

// Validate checks the spec's own fields and then every expanded cell, and
// returns an error naming the first field that breaks a rule.
func (s *Spec) Validate() error {
	if s.Name == "" {
		return errors.New("name: is empty, want a name")
	}
	if err := training.CheckDevice(s.Device); err != nil {
		return fmt.Errorf("device: %w", err)
	}
	if len(s.Datasets) == 0 {
		return errors.New("datasets: is empty, want at least one data set")
	}
	for i, d := range s.Datasets {
		if d == "" {
			return fmt.Errorf("datasets[%d]: is empty", i)
		}
	}
	if len(s.Methods) == 0 {
		return errors.New("methods: is empty, want at least one of " + strings.Join(Methods, ", "))
	}
	if len(s.BagSizes) == 0 && !s.variableBags() {
		return errors.New("bag_sizes: is empty, want at least one bag size")
	}
	if len(s.Seeds) == 0 {
		return errors.New("seeds: is empty, want at least one seed")
	}
	if err := dupCheck("datasets", s.Datasets); err != nil {
		return err
	}
	if err := dupCheck("methods", s.Methods); err != nil {
		return err
	}
	if err := dupCheck("bag_sizes", s.BagSizes); err != nil {
		return err
	}
	if err := dupCheck("seeds", s.Seeds); err != nil {
		return err
	}
	for i, o := range s.Overrides {
		if len(o.Set) == 0 {
			return fmt.Errorf("overrides[%d].set: is missing", i)
		}
		var probe Config
		dec := json.NewDecoder(bytes.NewReader(o.Set))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&probe); err != nil {
			return fmt.Errorf("overrides[%d].set: %w", i, JSONError(err))
		}
	}
	cells, err := s.expand()
	if err != nil {
		return err
	}
	for _, c := range cells {
		if err := c.Config.Validate(); err != nil {
			return fmt.Errorf("cell (dataset %s, method %s, bag size %d, seed %d): %w",
				c.Config.Dataset, c.Config.Method, c.Config.BagSize, c.Config.Seed, err)
		}
	}
	return nil
}

// variableBags reports whether the spec's protocol makes bags of varying
// sizes (or is left empty for bag-only data sets, whose bags are given).
func (s *Spec) variableBags() bool {
	if s.Protocol == "" {
		for _, d := range s.Datasets {
			if !IsBagOnly(d) {
				return false
			}
		}
		return len(s.Datasets) > 0
	}
	return VariableBags(s.Protocol)
}

func dupCheck[T comparable](field string, xs []T) error {
	seen := map[T]int{}
	for i, x := range xs {
		if j, dup := seen[x]; dup {
			return fmt.Errorf("%s[%d]: repeats %s[%d] (%v)", field, i, field, j, x)
		}
		seen[x] = i
	}
	return nil
}

// Validate checks one cell's configuration and names the offending field.
func (c Config) Validate() error {
	h := c.Hyper
	switch {
	case c.Learner == "":
		return errors.New("learner: is empty, want a registered learner (e.g. logreg, gorgonia)")
	case c.Dataset == "":
		return errors.New("dataset: is empty")
	case !knownDataset(c.Dataset):
		return fmt.Errorf("dataset: %q is unknown, want one of %s, or csv:…, parquet:…, libsvm:…, bags:…, gmm:…", c.Dataset, strings.Join(data.Names, ", "))
	case strings.HasPrefix(c.Dataset, "gmm:") && gmmError(c.Dataset) != nil:
		return fmt.Errorf("dataset: %w", gmmError(c.Dataset))
	case c.Model == "":
		return errors.New("model: is empty")
	case c.Learner == "gorgonia" && !containsStr(training.ModelNames(), c.Model):
		return fmt.Errorf("model: %q is unknown to the gorgonia learner, want one of %s", c.Model, strings.Join(training.ModelNames(), ", "))
	case !containsStr(Methods, c.Method):
		return fmt.Errorf("method: is %q, want one of %s", c.Method, strings.Join(Methods, ", "))
	case c.validateBagShape() != nil:
		return c.validateBagShape()
	case c.TestPoints < 0:
		return fmt.Errorf("test_points: is %d, want ≥ 0 (0 = the whole test split)", c.TestPoints)
	case h.Epochs <= 0:
		return fmt.Errorf("hyper.epochs: is %d, want > 0", h.Epochs)
	case !containsStr([]string{"sgd", "nesterov", "adam", "adamw", "gd"}, h.Optimizer):
		return fmt.Errorf("hyper.optimizer: is %q, want sgd, nesterov, adam, adamw or gd", h.Optimizer)
	case !(h.LR > 0) || math.IsInf(h.LR, 0):
		return fmt.Errorf("hyper.lr: is %v, want a finite number > 0", h.LR)
	case !(h.Momentum >= 0 && h.Momentum < 1):
		return fmt.Errorf("hyper.momentum: is %v, want in [0, 1)", h.Momentum)
	case h.Optimizer == "nesterov" && h.Momentum == 0:
		return errors.New("hyper.momentum: is 0, want > 0 with optimizer nesterov")
	case !(h.WeightDecay >= 0) || math.IsInf(h.WeightDecay, 0):
		return fmt.Errorf("hyper.weight_decay: is %v, want a finite number ≥ 0", h.WeightDecay)
	case !(h.Beta1 >= 0 && h.Beta1 < 1):
		return fmt.Errorf("hyper.beta1: is %v, want in [0, 1)", h.Beta1)
	case !(h.Beta2 >= 0 && h.Beta2 < 1):
		return fmt.Errorf("hyper.beta2: is %v, want in [0, 1)", h.Beta2)
	case h.BatchSize <= 0:
		return fmt.Errorf("hyper.batch_size: is %d, want > 0", h.BatchSize)
	case !(h.ValBags >= 0) || math.IsInf(h.ValBags, 0) || (h.ValBags >= 1 && h.ValBags != math.Trunc(h.ValBags)):
		return fmt.Errorf("hyper.val_bags: is %v, want a fraction in (0, 1), a whole number of bags, or 0 for none", h.ValBags)
	case h.Select != "" && h.Select != training.SelectLast && h.Select != training.SelectBestVal:
		return fmt.Errorf("hyper.select: is %q, want %s or %s", h.Select, training.SelectLast, training.SelectBestVal)
	case h.Select == training.SelectBestVal && h.ValBags == 0:
		return errors.New("hyper.select: best-val needs hyper.val_bags > 0 (bags held out to select on)")
	case !CountsInstances(c.Method) && !IsNewer(c.Method) && c.NumBags() > 0 && h.BatchSize > c.NumBags():
		return fmt.Errorf("hyper.batch_size: %d bags, but method %s at bag size %d has only %d bags", h.BatchSize, c.Method, c.BagSize, c.NumBags())
	case h.ChunkSize < 0:
		return fmt.Errorf("hyper.chunk_size: is %d, want ≥ 0 (0 = %d)", h.ChunkSize, training.DefaultChunkSize)
	case h.VATPowerIters < 0:
		return fmt.Errorf("hyper.vat_power_iters: is %d, want ≥ 0 (0 = 1)", h.VATPowerIters)
	case h.RegroupEvery < 0:
		return fmt.Errorf("hyper.regroup_every: is %d, want ≥ 0 (0 = never)", h.RegroupEvery)
	case !(h.Dropout >= 0 && h.Dropout < 1):
		return fmt.Errorf("hyper.dropout: is %v, want in [0, 1)", h.Dropout)
	case !(h.VATEps >= 0) || math.IsInf(h.VATEps, 0):
		return fmt.Errorf("hyper.vat_eps: is %v, want a finite number ≥ 0", h.VATEps)
	case !(h.VATXi >= 0) || math.IsInf(h.VATXi, 0):
		return fmt.Errorf("hyper.vat_xi: is %v, want a finite number ≥ 0", h.VATXi)
	}
	if h.Weights != "" {
		if _, err := estimators.ParseWeights(h.Weights); err != nil {
			return fmt.Errorf("hyper.weights: %w", err)
		}
	}
	if h.Compat != "" {
		if _, err := estimators.ParseCompat(h.Compat); err != nil {
			return fmt.Errorf("hyper.compat: %w", err)
		}
	}
	if err := validateProtocol(c.Protocol); err != nil {
		return err
	}
	if c.Shortfall != "" {
		if _, err := bagproto.ParseShortfall(c.Shortfall); err != nil {
			return fmt.Errorf("shortfall: %w", err)
		}
	}
	if _, err := data.ParseNormalize(c.Normalize); err != nil {
		return fmt.Errorf("normalize: %w", err)
	}
	switch {
	case UsesKL(c.Method) && h.KLScale != string(training.KLScaleAuthors) && h.KLScale != string(training.KLScalePaper):
		return fmt.Errorf("hyper.kl_scale: is %q, want authors or paper for method %s", h.KLScale, c.Method)
	case !UsesKL(c.Method) && h.KLScale != "":
		return fmt.Errorf("hyper.kl_scale: is %q, but method %s has no KL proportion loss", h.KLScale, c.Method)
	case c.Method == training.MethodLLPVAT && h.VATRampup != string(training.VATRampupAuthors) && h.VATRampup != string(training.VATRampupLLPVAT):
		return fmt.Errorf("hyper.vat_rampup: is %q, want authors or llpvat", h.VATRampup)
	case h.BNStats != "" && (h.BNStats != string(training.BNStatsChunk) || !UsesKL(c.Method)):
		return fmt.Errorf("hyper.bn_stats: is %q, want empty (the minibatch's statistics) or chunk, and only for a method with a KL proportion loss (method %s)", h.BNStats, c.Method)
	case !(h.Flood >= 0) || math.IsInf(h.Flood, 0) || (h.Flood != 0 && c.Method != training.MethodEasyLLP):
		return fmt.Errorf("hyper.flood: is %v, want a finite level ≥ 0, and only for method easyllp (method %s)", h.Flood, c.Method)
	case c.Method != training.MethodLLPVAT && h.VATRampup != "":
		return fmt.Errorf("hyper.vat_rampup: is %q, but method %s has no VAT term", h.VATRampup, c.Method)
	}
	if err := h.Schedule.validate(h.Epochs); err != nil {
		return err
	}
	return checkLearner(c)
}

// gmmError is parseGMM's error for a gmm:… name.
func gmmError(name string) error {
	_, err := parseGMM(name)
	return err
}

func validateProtocol(p string) error {
	switch {
	case p == "paper" || p == "shuffle" || p == GivenProtocol:
		return nil
	case strings.HasPrefix(p, "feature:") || strings.HasPrefix(p, "kmeans:"):
		if _, err := bagproto.ParseProtocol(p); err != nil {
			return fmt.Errorf("protocol: %w", err)
		}
		return nil
	case strings.HasPrefix(p, "dirichlet:"):
		a, err := strconv.ParseFloat(strings.TrimPrefix(p, "dirichlet:"), 64)
		if err != nil || !(a > 0) || math.IsInf(a, 0) {
			return fmt.Errorf("protocol: %q has concentration %q, want a finite number > 0", p, strings.TrimPrefix(p, "dirichlet:"))
		}
		return nil
	}
	return fmt.Errorf("protocol: is %q, want %s, or %s for a bag-only data set", p, bagproto.ProtocolSyntax, GivenProtocol)
}

func (s Schedule) validate(epochs int) error {
	switch s.Kind {
	case "constant":
		if len(s.Milestones) > 0 || s.Factor != 0 || s.Period != 0 || s.Mult != 0 {
			return errors.New("hyper.schedule: kind constant takes no milestones, factor, period or mult")
		}
	case "multistep":
		if len(s.Milestones) == 0 {
			return errors.New("hyper.schedule.milestones: is empty, want the epochs at which the rate drops")
		}
		for i, m := range s.Milestones {
			if m <= 0 || m >= epochs {
				return fmt.Errorf("hyper.schedule.milestones[%d]: is %d, want in 1..epochs-1=%d", i, m, epochs-1)
			}
			if i > 0 && m <= s.Milestones[i-1] {
				return fmt.Errorf("hyper.schedule.milestones[%d]: is %d, want > milestones[%d]=%d (increasing)", i, m, i-1, s.Milestones[i-1])
			}
		}
		if !(s.Factor > 0 && s.Factor < 1) {
			return fmt.Errorf("hyper.schedule.factor: is %v, want in (0, 1)", s.Factor)
		}
	case "cosine":
		if s.Period <= 0 {
			return fmt.Errorf("hyper.schedule.period: is %d, want > 0 epochs", s.Period)
		}
		if s.Mult < 0 {
			return fmt.Errorf("hyper.schedule.mult: is %d, want ≥ 1 (or 0 = 1)", s.Mult)
		}
	default:
		return fmt.Errorf("hyper.schedule.kind: is %q, want constant, multistep or cosine", s.Kind)
	}
	return nil
}

// Cells expands the spec into its cells in a fixed order: datasets, then
// seeds, then bag sizes, then methods (so an interrupted run has complete
// tables for its first seeds). It validates the spec first.
func (s *Spec) Cells() ([]Cell, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("spec %s: %w", s.Name, err)
	}
	return s.expand()
}

// InstanceEpochs is the grid's training work: the sum over its cells of
// epochs × training points, the number of training-instance visits. Divided
// by a measured throughput (Metrics.TrainImagesPerSecond) it estimates the
// grid's compute time.
func (s *Spec) InstanceEpochs() (int64, error) {
	cells, err := s.Cells()
	if err != nil {
		return 0, err
	}
	var n int64
	for _, c := range cells {
		n += int64(c.Config.Hyper.Epochs) * int64(c.Config.NumPoints)
	}
	return n, nil
}

func (s *Spec) expand() ([]Cell, error) {
	var cells []Cell
	keys := map[string]int{}
	sizes := s.BagSizes
	if len(sizes) == 0 && s.variableBags() {
		sizes = []int{0} // bags of varying sizes: one cell per seed and method
	}
	for _, d := range s.Datasets {
		protocol := s.Protocol
		if protocol == "" && IsBagOnly(d) {
			protocol = GivenProtocol
		}
		for _, seed := range s.Seeds {
			for _, b := range sizes {
				for _, m := range s.Methods {
					c := Config{
						Learner: s.Learner, Dataset: d, Model: s.Model, Method: m,
						Protocol: protocol, BagSize: b, NumPoints: s.NumPoints,
						TestPoints: s.TestPoints, Shortfall: s.Shortfall, Normalize: s.Normalize, Seed: seed, Hyper: s.Hyper,
					}
					if c.Normalize == "" {
						c.Normalize = data.Standardize
					}
					if UsesKL(m) && c.Hyper.KLScale == "" {
						c.Hyper.KLScale = string(training.KLScaleAuthors)
					}
					if m == training.MethodLLPVAT && c.Hyper.VATRampup == "" {
						c.Hyper.VATRampup = string(training.VATRampupAuthors)
					}
					c.Hyper.Schedule.Milestones = append([]int(nil), s.Hyper.Schedule.Milestones...)
					for i, o := range s.Overrides {
						if !o.When.matches(&c) {
							continue
						}
						if err := json.Unmarshal(o.Set, &c); err != nil {
							return nil, fmt.Errorf("overrides[%d].set: %w", i, JSONError(err))
						}
					}
					// The swept axes are the grid's; an override may not move a cell.
					if c.Dataset != d || c.Method != m || c.BagSize != b || c.Seed != seed {
						return nil, fmt.Errorf("overrides: may not set dataset, method, bag_size or seed (cell %s/%s/%d/%d)", d, m, b, seed)
					}
					k := c.Key()
					if j, dup := keys[k]; dup {
						return nil, fmt.Errorf("cells %d and %d have the same configuration", j, len(cells))
					}
					keys[k] = len(cells)
					cells = append(cells, Cell{Spec: s.Name, Key: k, Config: c})
				}
			}
		}
	}
	return cells, nil
}

func containsStr(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
