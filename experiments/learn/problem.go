package learn

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/bagproto"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/internal/rng"
)

// Problem is one cell's learning problem: the training pool, the bags drawn
// from it by the cell's protocol and seed (Section 6: labels are then used
// only through each bag's γ̂), and the labelled test split.
type Problem struct {
	Train *data.Dataset
	Test  *data.Dataset
	// Bags index into Train.
	Bags estimators.BagSet
	// BagRedraws counts the bags redrawn because a class pool ran out
	// (bagproto's Restart policy).
	BagRedraws int
	// BagsDropped counts the instances the feature protocol's size bounds
	// left out of every bag.
	BagsDropped int
	// Norm is the input normalization fitted on the whole training split and
	// applied to Train and Test, as the authors standardize.
	Norm data.Standardization
}

// LoadProblem loads the cell's data set (both splits), normalizes both with
// the constants of the whole training split (Config.Normalize), keeps the
// first TestPoints test points when TestPoints > 0, and draws
// NumPoints/BagSize bags of size BagSize with the cell's protocol from the
// random stream rng.New(seed, "bags").
func LoadProblem(cell experiments.Cell) (*Problem, error) {
	p, err := LoadSplits(cell)
	if err != nil {
		return nil, err
	}
	bags, err := MakeBags(p.Train, cell.Config)
	if err != nil {
		return nil, err
	}
	p.Bags, p.BagRedraws, p.BagsDropped = *bags.Bags, bags.TotalRedraws(), bags.Dropped
	return p, nil
}

// LoadSplits is LoadProblem without the bags: the cell's data set (both
// splits; cell.DataDir is the --data-dir), normalized by Config.Normalize
// (empty means standardize) with the constants of the whole training split,
// and the first TestPoints test points when TestPoints > 0. The splits are
// cached and shared: callers must treat them as read-only. `llpfc train`
// calls it to size its default bags and to read a bags file's data.
func LoadSplits(cell experiments.Cell) (*Problem, error) {
	c := cell.Config
	mode := c.Normalize
	if mode == "" {
		mode = data.Standardize
	}
	train, test, norm, err := loadNormalized(c.Dataset, cell.DataDir, mode)
	if err != nil {
		return nil, err
	}
	if c.TestPoints > 0 && c.TestPoints < test.N {
		test = headRows(test, c.TestPoints)
	}
	return &Problem{Train: train, Test: test, Norm: norm}, nil
}

// normCache keeps the last data set loaded, normalized: a grid runs data set
// by data set, so consecutive cells share it (the raw splits are not kept). Learners must treat the splits as
// read-only.
var normCache struct {
	sync.Mutex
	key         string
	train, test *data.Dataset
	norm        data.Standardization
}

// loadNormalized returns both splits of a data set normalized by mode with
// the statistics of the training split.
func loadNormalized(name, dir, mode string) (train, test *data.Dataset, norm data.Standardization, err error) {
	normCache.Lock()
	defer normCache.Unlock()
	key := name + "\x00" + dir + "\x00" + mode + "\x00" + data.SourceStamp(name) // a file changed on disk is read again
	if normCache.key == key {
		return normCache.train, normCache.test, normCache.norm, nil
	}
	if train, test, err = loadDataset(name, dir); err != nil {
		return nil, nil, norm, err
	}
	if norm, err = data.Fit(mode, train); err != nil {
		return nil, nil, norm, fmt.Errorf("dataset %s: %w", name, err)
	}
	if train, err = norm.Apply(train); err != nil {
		return nil, nil, norm, err
	}
	if test, err = norm.Apply(test); err != nil {
		return nil, nil, norm, err
	}
	normCache.key, normCache.train, normCache.test, normCache.norm = key, train, test, norm
	return train, test, norm, nil
}

// MakeBags draws the cell's NumPoints/BagSize bags of size BagSize from d
// with the cell's protocol, shortfall policy and seed (package bagproto:
// "paper" is Section 6's protocol, γ ~ Dirichlet(1,…,1), counts ~
// Multinomial(B, γ), instances drawn without replacement per class).
//
// The protocol "given" returns a bag-only split's own bags; the feature and
// kmeans protocols make bags from d's features (featureBags). Every other
// protocol needs labels, which a bag-only split has none of.
func MakeBags(d *data.Dataset, c experiments.Config) (*bagproto.Result, error) {
	if c.Protocol == experiments.GivenProtocol {
		return givenBags(d, c)
	}
	if d.Unlabelled {
		return nil, fmt.Errorf("dataset %s has no labels (no y): protocol %s draws bags from labels; for LLP data give the bags and their proportions (bags:PATH)", c.Dataset, c.Protocol)
	}
	if !d.Labelled() {
		return nil, fmt.Errorf("dataset %s is bag-only: protocol %s draws bags from labels; its cells take the bags it gives (protocol %s)", c.Dataset, c.Protocol, experiments.GivenProtocol)
	}
	proto, err := bagproto.ParseProtocol(c.Protocol)
	if err != nil {
		return nil, err
	}
	if proto.VariableSize() {
		res, err := featureBags(d, c, proto)
		if err != nil {
			return nil, fmt.Errorf("dataset %s, protocol %s, seed %d: %w", c.Dataset, c.Protocol, c.Seed, err)
		}
		return res, nil
	}
	sf := bagproto.Restart
	if c.Shortfall != "" {
		if sf, err = bagproto.ParseShortfall(c.Shortfall); err != nil {
			return nil, err
		}
	}
	res, err := bagproto.Make(d.Y, d.NumClasses, bagproto.Config{Protocol: proto, BagSize: c.BagSize,
		NumPoints: c.NumPoints, Shortfall: sf, Seed: c.Seed, ClassNames: d.ClassNames})
	if err != nil {
		return nil, fmt.Errorf("dataset %s, protocol %s, bag size %d, seed %d: %w", c.Dataset, c.Protocol, c.BagSize, c.Seed, err)
	}
	return res, nil
}

func headRows(d *data.Dataset, n int) *data.Dataset {
	h := *d
	h.N = n
	h.X = d.X[:n*d.D]
	if d.Raw != nil {
		h.Raw = d.Raw[:n*d.D]
	}
	if d.Y != nil {
		h.Y = d.Y[:n]
	}
	return &h
}

// loadDataset returns the training and test splits of a named data set. The
// synthetic "gmm:…" sets are generated here; the others are read by package
// experiments/data.
// LoadRaw reads both splits of the data set name as a cell would (named
// sets through data.Resolve, csv:, libsvm:, gmm:), without normalizing
// them: what `llpfc predict` scores after applying a model's own
// normalization.
func LoadRaw(name, dir string) (train, test *data.Dataset, err error) { return loadDataset(name, dir) }

func loadDataset(name, dir string) (train, test *data.Dataset, err error) {
	if strings.HasPrefix(name, "gmm:") {
		return GaussianMixture(name)
	}
	return loadNamed(name, dir)
}

// loadNamed resolves the data set's directory from the --data-dir value (then
// $LLPFC_DATA, then the standard locations: data.Resolve) and reads both
// splits with data.Load.
func loadNamed(name, flagDir string) (train, test *data.Dataset, err error) {
	dir, err := data.Resolve(name, flagDir)
	if err != nil {
		return nil, nil, err
	}
	if train, err = data.Load(name, dir, data.Train); err != nil {
		return nil, nil, err
	}
	if test, err = data.Load(name, dir, data.Test); err != nil {
		return nil, nil, err
	}
	if train.NumClasses != test.NumClasses || train.D != test.D {
		// Name the files' place, not an internal count.
		return nil, nil, fmt.Errorf("%s in %s: the training split has %s inputs and %d classes, the test split %s and %d: they must match",
			name, dir, shapeText(train), train.NumClasses, shapeText(test), test.NumClasses)
	}
	return train, test, nil
}

// shapeText describes a split's inputs: C×H×W for images, D features else.
func shapeText(d *data.Dataset) string {
	if d.Channels > 0 {
		return fmt.Sprintf("%d×%d×%d", d.Channels, d.Height, d.Width)
	}
	return fmt.Sprintf("%d-feature", d.D)
}

// GaussianMixture generates the synthetic data set named
// "gmm:classes=C,dim=D,train=N,test=M,sep=S" (experiments.ParseGMM): C equiprobable
// classes in R^D, class c ~ N(μ_c, I) with μ_c = S·u_c for u_c uniform on
// the unit sphere. The data depend only on the name: the stream is
// rng.New(0, name). A set larger than MemoryBudget is an error.
func GaussianMixture(name string) (train, test *data.Dataset, err error) {
	g, err := experiments.ParseGMM(name)
	if err != nil {
		return nil, nil, err
	}
	if need := 4 * float64(g.Dim) * float64(g.Train+g.Test); need > float64(MemoryBudget()) {
		return nil, nil, &SizeError{What: fmt.Sprintf("dataset %q: %d instances × %d features (float32)", name, g.Train+g.Test, g.Dim),
			Need: need, Limit: float64(MemoryBudget())}
	}
	C, D, N, M := g.Classes, g.Dim, g.Train, g.Test
	r := rng.New(0, name)
	mu := make([]float64, C*D)
	for c := 0; c < C; c++ {
		norm := 0.0
		for j := 0; j < D; j++ {
			v := r.NormFloat64()
			mu[c*D+j] = v
			norm += v * v
		}
		norm = math.Sqrt(norm)
		for j := 0; j < D; j++ {
			mu[c*D+j] *= g.Sep / norm
		}
	}
	gen := func(n int, split string) *data.Dataset {
		d := &data.Dataset{Name: name + "/" + split, N: n, D: D, NumClasses: C,
			X: make([]float32, n*D), Y: make([]int, n)}
		for i := 0; i < n; i++ {
			y := r.IntN(C)
			d.Y[i] = y
			for j := 0; j < D; j++ {
				d.X[i*D+j] = float32(mu[y*D+j] + r.NormFloat64())
			}
		}
		return d
	}
	return gen(N, "train"), gen(M, "test"), nil
}

// featureBags makes the bags of the feature and kmeans protocols from the
// labelled split d.
func featureBags(d *data.Dataset, c experiments.Config, proto bagproto.Protocol) (*bagproto.Result, error) {
	cfg := bagproto.Config{Protocol: proto, NumPoints: c.NumPoints, Seed: c.Seed}
	if proto.Kind == bagproto.KMeansKind {
		return bagproto.MakeKMeans(d.Y, d.NumClasses, d.X, d.D, cfg)
	}
	keys, err := d.FeatureKeys(proto.Columns)
	if err != nil {
		return nil, err
	}
	return bagproto.MakeFeature(d.Y, d.NumClasses, keys, cfg)
}

// givenBags returns the bags of a bag-only training split.
func givenBags(d *data.Dataset, c experiments.Config) (*bagproto.Result, error) {
	if d.Bags == nil {
		return nil, fmt.Errorf("dataset %s: protocol %s, but the data set has no bags of its own", c.Dataset, experiments.GivenProtocol)
	}
	set := *d.Bags
	return &bagproto.Result{Bags: &set, Redraws: make([]int, len(set.Bags))}, nil
}

// cellExtra is a cell's Metrics.Extra: the bags redrawn, the parameter
// count, and the instances the feature protocol's size bounds dropped (only
// when some were).
func cellExtra(prob *Problem, params int) map[string]float64 {
	extra := map[string]float64{"bag_redraws": float64(prob.BagRedraws), "param_count": float64(params)}
	if prob.BagsDropped > 0 {
		extra["bag_dropped_instances"] = float64(prob.BagsDropped)
	}
	return extra
}
