package experiments

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
)

// Config is the full configuration of one cell, the one description of a
// training run: a grid's cells and `llpfc train`'s one run. Its
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

// Flat returns c's canonical JSON as a map from dotted field path
// (hyper.schedule.kind) to the JSON text of its value.
func (c Config) Flat() map[string]string {
	var v map[string]any
	if err := json.Unmarshal(c.CanonicalJSON()[len(canonicalPrefix):], &v); err != nil {
		panic(err) // unreachable: our own encoding
	}
	out := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if m, ok := v.(map[string]any); ok {
			for k, x := range m {
				walk(prefix+k+".", x)
			}
			return
		}
		b, _ := json.Marshal(v)
		out[strings.TrimSuffix(prefix, ".")] = string(b)
	}
	walk("", v)
	return out
}

// Passes is the number of passes over its trainPoints training points that
// the cell's training makes, for estimating its work: hyper.epochs, or,
// with a step budget (Hyper.Steps), the steps times the instances a step
// sees (its minibatch of instances, or of bags of BagSize; the largest a
// search tries) over trainPoints, rounded up.
func (c Config) Passes(trainPoints int) int {
	h := c.Hyper
	if h.Steps == 0 || trainPoints <= 0 {
		return h.Epochs
	}
	per := slices.Max(h.batchSizes())
	if !CountsInstances(c.Method) {
		per *= max(c.BagSize, 1)
	}
	return int((int64(h.Steps)*int64(per) + int64(trainPoints) - 1) / int64(trainPoints))
}
