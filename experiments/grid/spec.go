package grid

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/internal/jsonkeys"
	"github.com/llpfc/llpfc/training"
)

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
	Normalize string            `json:"normalize,omitempty"`
	Hyper     experiments.Hyper `json:"hyper"`
	// Device is the compute back end that trains the gorgonia learner's
	// cells: "cpu" (the meaning of the zero value), "opencl" or
	// "opencl:P:D" (training.Config.Device). It is where a cell runs, not
	// what it is: it is not part of the cells' Config or key (a grid may run
	// its shards on different machines), and every result records it
	// (Metrics.Device). `run --device` overrides it.
	Device string `json:"device,omitempty"`

	Overrides []Override `json:"overrides,omitempty"`

	// Tune searches every cell's learning rate (and minibatch, where its
	// method's descriptor lists some) without a label: each cell
	// gets its method's search space (training/methods, Descriptor.Search)
	// as hyper.search, unless an override set one, and hyper.lr (and
	// hyper.batch_size) 0; hyper.val_bags must hold bags out to score the
	// trials. False means every cell trains its own hyper.lr.
	Tune bool `json:"tune,omitempty"`
	// Extend, with Tune, lets every cell's search go on past an end of its
	// rates while the choice sits there, within these limits
	// (experiments.Search.Extend); nil means each method's rates alone.
	Extend *experiments.SearchExtend `json:"extend,omitempty"`
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

func (m Match) matches(c *experiments.Config) bool {
	return (len(m.Datasets) == 0 || slices.Contains(m.Datasets, c.Dataset)) &&
		(len(m.Methods) == 0 || slices.Contains(m.Methods, c.Method)) &&
		(len(m.BagSizes) == 0 || slices.Contains(m.BagSizes, c.BagSize))
}

// ParseSpec reads a spec from JSON, rejecting unknown fields, keys named
// twice in one object and keys in another case than documented (jsonkeys:
// encoding/json matches names without case), and validates it. name labels errors (a file name).
func ParseSpec(name string, r io.Reader) (*Spec, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("spec %s: %w", name, err)
	}
	if err := jsonkeys.Unique(data); err != nil {
		return nil, fmt.Errorf("spec %s: %w", name, err)
	}
	if err := jsonkeys.Exact(data, new(Spec)); err != nil {
		return nil, fmt.Errorf("spec %s: %w", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Spec
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("spec %s: %w", name, experiments.JSONError(err))
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
		return errors.New("methods: is empty, want at least one of " + strings.Join(experiments.Methods(), ", "))
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
		var probe experiments.Config
		dec := json.NewDecoder(bytes.NewReader(o.Set))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&probe); err != nil {
			return fmt.Errorf("overrides[%d].set: %w", i, experiments.JSONError(err))
		}
		if err := jsonkeys.Exact(o.Set, new(experiments.Config)); err != nil {
			return fmt.Errorf("overrides[%d].set: %w", i, err)
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
			if !experiments.IsBagOnly(d) {
				return false
			}
		}
		return len(s.Datasets) > 0
	}
	return experiments.VariableBags(s.Protocol)
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

// Cells expands the spec into its cells in a fixed order: datasets, then
// seeds, then bag sizes, then methods (so an interrupted run has complete
// tables for its first seeds). It validates the spec first.
func (s *Spec) Cells() ([]experiments.Cell, error) {
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
		n += int64(c.Config.Passes(c.Config.NumPoints)) * int64(c.Config.NumPoints)
	}
	return n, nil
}

func (s *Spec) expand() ([]experiments.Cell, error) {
	var cells []experiments.Cell
	keys := map[string]int{}
	sizes := s.BagSizes
	if len(sizes) == 0 && s.variableBags() {
		sizes = []int{0} // bags of varying sizes: one cell per seed and method
	}
	for _, d := range s.Datasets {
		protocol := s.Protocol
		if protocol == "" && experiments.IsBagOnly(d) {
			protocol = experiments.GivenProtocol
		}
		for _, seed := range s.Seeds {
			for _, b := range sizes {
				for _, m := range s.Methods {
					c := experiments.Config{
						Learner: s.Learner, Dataset: d, Model: s.Model, Method: m,
						Protocol: protocol, BagSize: b, NumPoints: s.NumPoints,
						TestPoints: s.TestPoints, Shortfall: s.Shortfall, Normalize: s.Normalize, Seed: seed, Hyper: s.Hyper,
					}
					if c.Normalize == "" {
						c.Normalize = data.Standardize
					}
					c.Hyper.Schedule.Milestones = append([]int(nil), s.Hyper.Schedule.Milestones...)
					if s.Hyper.Search != nil { // each cell its own: an override's search decoded into a shared one set every cell's
						c.Hyper.Search = &experiments.Search{LR: slices.Clone(s.Hyper.Search.LR), BatchSize: slices.Clone(s.Hyper.Search.BatchSize)}
					}
					var dropped []droppedSetting
					c.Hyper.Settings = s.Hyper.Settings.Clone() // an override writes into the cell's own
					for i, o := range s.Overrides {
						if !o.When.matches(&c) {
							continue
						}
						if err := json.Unmarshal(o.Set, &c); err != nil {
							return nil, fmt.Errorf("overrides[%d].set: %w", i, experiments.JSONError(err))
						}
						dropped = append(dropped, o.tuned(i)...)
					}
					defaultBatch(&c)
					c.StateSettings() // the method's own settings as its key states them (the FFT's cells keep their keys)
					if s.Tune {
						tune(&c, s.Extend)
						if err := tunedAway(c, dropped); err != nil {
							return nil, err
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
					cells = append(cells, experiments.Cell{Spec: s.Name, Key: k, Config: c})
				}
			}
		}
	}
	return cells, nil
}

// defaultBatch gives cell c its method's default minibatch
// (methods.Descriptor.DefaultBatch, in the method's unit) when neither the
// spec nor an override stated one, as llpfc train does when --batch-size is
// left out: a spec listing methods that count their minibatches in bags and
// in instances need not state each one's.
func defaultBatch(c *experiments.Config) {
	d, ok := experiments.Method(c.Method)
	if !ok || c.Hyper.BatchSize != 0 || (c.Hyper.Search != nil && len(c.Hyper.Search.BatchSize) > 0) {
		return // an unknown method: Validate names it
	}
	c.Hyper.BatchSize = d.DefaultBatch
}

// droppedSetting is a setting an override gives that "tune" may replace
// by its search: the override's index, the field, and whether the same
// override gives a search (then the search says what is tried).
type droppedSetting struct {
	override   int
	field      string
	withSearch bool
}

// tuned lists the settings of o (the i-th override) that "tune" replaces:
// hyper.lr, and hyper.batch_size (replaced when the search lists
// minibatches).
func (o Override) tuned(i int) []droppedSetting {
	var set struct {
		Hyper map[string]json.RawMessage `json:"hyper"`
	}
	if json.Unmarshal(o.Set, &set) != nil {
		return nil
	}
	_, search := set.Hyper["search"]
	var out []droppedSetting
	for _, f := range []string{"lr", "batch_size"} {
		if _, ok := set.Hyper[f]; ok {
			out = append(out, droppedSetting{i, "hyper." + f, search})
		}
	}
	return out
}

// without returns o without the hyper fields named (the authors' rate of
// a tuned spec, which its search replaces).
func (o Override) without(fields ...string) Override {
	var set map[string]json.RawMessage
	var hyper map[string]json.RawMessage
	if json.Unmarshal(o.Set, &set) != nil || json.Unmarshal(set["hyper"], &hyper) != nil {
		return o
	}
	for _, f := range fields {
		delete(hyper, f)
	}
	set["hyper"], _ = json.Marshal(hyper)
	o.Set, _ = json.Marshal(set)
	return o
}

// tunedAway refuses an override's setting that "tune" replaced in cell c
// by its search (a hyper.lr override was silently dropped: its cells
// searched the descriptor's rates), saying how to fix the value: as the
// override's own search of one value, or without tune.
func tunedAway(c experiments.Config, dropped []droppedSetting) error {
	for _, d := range dropped {
		if d.withSearch {
			continue // the override says what is searched
		}
		replaced := d.field == "hyper.lr" || (c.Hyper.Search != nil && len(c.Hyper.Search.BatchSize) > 0)
		if !replaced {
			continue
		}
		key := strings.TrimPrefix(d.field, "hyper.")
		return fmt.Errorf("overrides[%d].set: %s under \"tune\", which searches it for %s (its method's hyper.search): the override's value would never train; fix it for these cells with {\"hyper\": {\"search\": {\"%s\": [VALUE]}}} in the override, or leave \"tune\" out",
			d.override, d.field, c.Method, key)
	}
	return nil
}

// tune gives cell c its method's search space (Spec.Tune), unless an
// override gave it one, extending within ext when it is not nil, and
// leaves the rate (and a searched minibatch) to the search.
func tune(c *experiments.Config, ext *experiments.SearchExtend) {
	d, ok := experiments.Method(c.Method)
	if !ok {
		return // Validate names an unknown method
	}
	if c.Hyper.Search == nil {
		c.Hyper.Search = &experiments.Search{LR: append([]float64(nil), d.Search.LR...), BatchSize: append([]int(nil), d.Search.BatchSize...)}
	}
	if ext != nil && c.Hyper.Search.Extend == nil {
		e := *ext
		c.Hyper.Search.Extend = &e
	}
	c.Hyper.LR = 0
	if len(c.Hyper.Search.BatchSize) > 0 {
		c.Hyper.BatchSize = 0
	}
}
