package bagproto

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distmv"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/internal/rng"
)

// Kind names a bag protocol.
type Kind int

// The bag protocols (see the package comment).
const (
	Paper     Kind = iota // Appendix `suppsec: exp`: γ ~ Dirichlet(1,…,1), counts ~ Multinomial(B, γ)
	Dirichlet             // the same with γ ~ Dirichlet(a,…,a)
	Shuffle               // Section 6, the prior work's protocol: shuffle, cut every B points
)

// Protocol is a bag protocol with its parameters.
type Protocol struct {
	Kind  Kind
	Alpha float64 // the Dirichlet concentration a (1 for Paper; unused by Shuffle)
	// Columns, MinSize and MaxSize are the feature protocol's: the columns
	// whose value combinations make the bags, and the sizes kept (0: no
	// bound).
	Columns          []string
	MinSize, MaxSize int
	// K is the number of bags of the kmeans protocol.
	K int
}

// String gives the protocol's name as ParseProtocol reads it.
func (p Protocol) String() string {
	switch p.Kind {
	case Paper:
		return "paper"
	case Shuffle:
		return "shuffle"
	case Dirichlet:
		return "dirichlet:" + strconv.FormatFloat(p.Alpha, 'g', -1, 64)
	case FeatureKind:
		return p.featureString()
	case KMeansKind:
		return "kmeans:" + strconv.Itoa(p.K)
	}
	return fmt.Sprintf("Protocol(%d)", int(p.Kind))
}

// ParseProtocol reads "paper", "shuffle", "dirichlet:a" with a finite
// a > 0, "feature:COL[,COL…][,min=M][,max=M]" or "kmeans:K" with K ≥ 1.
func ParseProtocol(s string) (Protocol, error) {
	switch {
	case s == "paper":
		return Protocol{Kind: Paper, Alpha: 1}, nil
	case s == "shuffle":
		return Protocol{Kind: Shuffle}, nil
	case strings.HasPrefix(s, "dirichlet:"):
		a, err := strconv.ParseFloat(strings.TrimPrefix(s, "dirichlet:"), 64)
		if err != nil || !(a > 0) || math.IsInf(a, 0) {
			return Protocol{}, fmt.Errorf("protocol %q: concentration must be a finite number > 0", s)
		}
		return Protocol{Kind: Dirichlet, Alpha: a}, nil
	case strings.HasPrefix(s, "feature:"):
		return parseFeature(s)
	case strings.HasPrefix(s, "kmeans:"):
		return parseKMeans(s)
	}
	return Protocol{}, fmt.Errorf("unknown bag protocol %q: want %s", s, ProtocolSyntax)
}

// ProtocolSyntax lists the protocols ParseProtocol reads, for messages.
const ProtocolSyntax = "paper, shuffle, dirichlet:a (a > 0), feature:COL[,COL…][,min=M][,max=M] or kmeans:K"

// Shortfall is what to do when a bag's counts exceed what remains of a
// class pool.
type Shortfall int

// The shortfall policies (see the package comment).
const (
	Restart Shortfall = iota // restart the whole draw (exact conditional distribution); the default
	Redraw                   // redraw the bag's γ and counts (bounded), then restart
	Strict                   // fail, naming the bag, class and shortfall
)

func (s Shortfall) String() string {
	switch s {
	case Strict:
		return "strict"
	case Redraw:
		return "redraw"
	}
	return "restart"
}

// ParseShortfall reads "redraw", "strict" or "restart".
func ParseShortfall(s string) (Shortfall, error) {
	switch s {
	case "redraw":
		return Redraw, nil
	case "strict":
		return Strict, nil
	case "restart":
		return Restart, nil
	}
	return 0, fmt.Errorf("unknown shortfall policy %q: want redraw, strict or restart", s)
}

// DefaultMaxRedraws bounds the redraws of one bag under the Redraw policy.
const DefaultMaxRedraws = 1000

// DefaultMaxRestarts bounds the restarts of the whole draw under the Redraw
// and Restart policies.
const DefaultMaxRestarts = 100

// Config fixes how bags are made. Exactly one of NumBags and NumPoints is > 0;
// NumPoints must then be a multiple of BagSize (the paper uses 40,960 = 32 ×
// 1,280 points for CIFAR10 and SVHN, 106,496 = 32 × 3,328 for EMNIST).
type Config struct {
	Protocol    Protocol
	BagSize     int // B, the size of every bag
	NumBags     int // K
	NumPoints   int // N = K·B, an alternative to NumBags
	Shortfall   Shortfall
	MaxRedraws  int // per bag, for Redraw; 0 means DefaultMaxRedraws
	MaxRestarts int // of the whole draw, for Redraw and Restart; 0 means DefaultMaxRestarts
	Seed        int64
	// ClassNames, when given, name the classes (the data's labels) in
	// errors beside their indices: a user whose labels are -1, 0, 1 should
	// not read "class 0" as their label 0.
	ClassNames []string
}

// Result is an LLP data set and how it was made.
type Result struct {
	Bags *estimators.BagSet
	// Redraws[k] is how many times bag k's γ and counts were redrawn because
	// they did not fit the remaining class pools, in the accepted draw
	// (always 0 for Shuffle, Strict and Restart).
	Redraws []int
	// Restarts is how many times the whole draw was started again because a
	// bag could not be made to fit (Redraw after MaxRedraws, or Restart).
	Restarts int
	// Dropped and DroppedBags count the instances and the bags the feature
	// protocol left out for their size (min=, max=).
	Dropped, DroppedBags int
}

// TotalRedraws sums Redraws.
func (r *Result) TotalRedraws() int {
	t := 0
	for _, n := range r.Redraws {
		t += n
	}
	return t
}

// numBags checks cfg against n points and returns K.
func (cfg Config) numBags(n int) (int, error) {
	if cfg.BagSize < 1 {
		return 0, fmt.Errorf("bag size %d, want ≥ 1", cfg.BagSize)
	}
	k := cfg.NumBags
	switch {
	case cfg.NumBags > 0 && cfg.NumPoints > 0:
		return 0, fmt.Errorf("both a number of bags (%d) and a number of points (%d) given; give one", cfg.NumBags, cfg.NumPoints)
	case cfg.NumPoints > 0:
		if cfg.NumPoints%cfg.BagSize != 0 {
			return 0, fmt.Errorf("number of points %d is not a multiple of bag size %d", cfg.NumPoints, cfg.BagSize)
		}
		k = cfg.NumPoints / cfg.BagSize
	case cfg.NumBags <= 0:
		return 0, fmt.Errorf("no number of bags or points given (got %d bags, %d points); want one > 0", cfg.NumBags, cfg.NumPoints)
	}
	if int64(k)*int64(cfg.BagSize) > int64(n) {
		return 0, fmt.Errorf("%d bags of %d need %d points, the data set has %d", k, cfg.BagSize, int64(k)*int64(cfg.BagSize), n)
	}
	return k, nil
}

// Make draws the bags of an LLP data set from the labels y (0-based, each in
// 0…numClasses−1) under cfg: the bag generation of Appendix `suppsec: exp`
// ("Datasets") for Paper, and of the prior work described in Section 6 for
// Shuffle. Each bag's Indices index y and its Proportions are the empirical
// proportions γ̂ of the labels drawn (counts / B, Section 5.1).
func Make(y []int, numClasses int, cfg Config) (*Result, error) {
	if cfg.Protocol.VariableSize() {
		return nil, fmt.Errorf("protocol %v makes bags from the instances' features: use MakeFeature or MakeKMeans", cfg.Protocol)
	}
	if numClasses < 2 {
		return nil, fmt.Errorf("%d classes, want ≥ 2", numClasses)
	}
	for i, c := range y {
		if c < 0 || c >= numClasses {
			return nil, fmt.Errorf("instance %d has label %d, want 0…%d", i, c, numClasses-1)
		}
	}
	k, err := cfg.numBags(len(y))
	if err != nil {
		return nil, err
	}
	r := rng.New(cfg.Seed, "bags")
	var res *Result
	switch cfg.Protocol.Kind {
	case Shuffle:
		res = shuffle(r, y, numClasses, k, cfg.BagSize)
	case Paper, Dirichlet:
		a := cfg.Protocol.Alpha
		if cfg.Protocol.Kind == Paper {
			a = 1
		}
		if !(a > 0) || math.IsInf(a, 0) {
			return nil, fmt.Errorf("protocol %v: concentration must be a finite number > 0", cfg.Protocol)
		}
		res, err = dirichletBags(r, y, numClasses, k, a, cfg)
		if err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown protocol %v", cfg.Protocol)
	}
	if err := res.Bags.Validate(); err != nil {
		return nil, fmt.Errorf("bagproto: internal error: %w", err)
	}
	return res, nil
}

// proportions returns the empirical label proportions of idx.
func proportions(y []int, numClasses int, idx []int) []float64 {
	p := make([]float64, numClasses)
	for _, i := range idx {
		p[y[i]]++
	}
	for c := range p {
		p[c] /= float64(len(idx))
	}
	return p
}

// shuffle is the prior work's protocol: a uniform permutation of all points,
// cut into k consecutive runs of b.
func shuffle(r *rand.Rand, y []int, numClasses, k, b int) *Result {
	perm := r.Perm(len(y))
	res := &Result{Bags: &estimators.BagSet{NumClasses: numClasses}, Redraws: make([]int, k)}
	for j := 0; j < k; j++ {
		idx := append([]int(nil), perm[j*b:(j+1)*b]...)
		res.Bags.Bags = append(res.Bags.Bags, estimators.Bag{ID: j, Size: b, Proportions: proportions(y, numClasses, idx), Indices: idx})
	}
	return res
}

// drawGamma draws γ ~ Dirichlet(a,…,a) into g. For small a every Gamma draw
// can underflow to 0, leaving no valid γ; drawGamma then retries (a bounded
// number of times).
func drawGamma(d *distmv.Dirichlet, g []float64) error {
	for try := 0; try < 100; try++ {
		d.Rand(g)
		ok := true
		for _, v := range g {
			if math.IsNaN(v) || v < 0 {
				ok = false
			}
		}
		if ok {
			return nil
		}
	}
	return fmt.Errorf("Dirichlet draws kept underflowing (concentration too small)")
}

// multinomial draws counts ~ Multinomial(n, γ) as n independent categorical
// draws (gonum's distuv.Categorical) into counts.
func multinomial(cat distuv.Categorical, n int, counts []int) {
	for c := range counts {
		counts[c] = 0
	}
	for i := 0; i < n; i++ {
		counts[int(cat.Rand())]++
	}
}

// errShort is a bag that does not fit the remaining class pools.
type errShort struct {
	bag, class, need, have int
	name                   string // the class's label, "" when unknown (named when it is not the index)
	// classes is the number of classes when class c has no instance at all
	// (a gap in the labels), else 0.
	classes int
}

func (e *errShort) Error() string {
	class := fmt.Sprint(e.class)
	if e.name != "" && e.name != class {
		class += fmt.Sprintf(" (label %q)", e.name)
	}
	if e.classes > 0 {
		// Labels taken as class indices 0…C−1 with a gap (1…C, or 0, 2, 4)
		// leave a class without instances: no bag that needs one can be made.
		return fmt.Sprintf("bag %d: class %s is wanted %d times, but the data has no instance of it at all (classes 0…%d; labels read as class indices leave a class empty where they skip a number, as 1…C does)",
			e.bag, class, e.need, e.classes-1)
	}
	return fmt.Sprintf("bag %d: class %s needs %d more points than remain (have %d)", e.bag, class, e.need, e.have)
}

// className is class c's label from ClassNames, "" when not given.
func (cfg Config) className(c int) string {
	if c < len(cfg.ClassNames) {
		return cfg.ClassNames[c]
	}
	return ""
}

// dirichletBags implements the paper and dirichlet:a protocols, restarting
// the whole draw when the shortfall policy asks for it.
func dirichletBags(r *rand.Rand, y []int, numClasses, k int, a float64, cfg Config) (*Result, error) {
	maxRestarts := cfg.MaxRestarts
	if maxRestarts <= 0 {
		maxRestarts = DefaultMaxRestarts
	}
	byClass := make([][]int, numClasses)
	for i, c := range y {
		byClass[c] = append(byClass[c], i)
	}
	alpha := make([]float64, numClasses)
	for c := range alpha {
		alpha[c] = a
	}
	dir := distmv.NewDirichlet(alpha, r)
	for restarts := 0; ; restarts++ {
		res, err := drawOnce(r, dir, y, byClass, k, cfg)
		if err == nil {
			res.Restarts = restarts
			return res, nil
		}
		short, ok := err.(*errShort)
		if !ok || cfg.Shortfall == Strict {
			return nil, err
		}
		if restarts == maxRestarts {
			redraws := "no redraws of the bag"
			if cfg.Shortfall == Redraw {
				redraws = fmt.Sprintf("%d redraws of the bag", cfg.maxRedraws())
			}
			advice := "ask for fewer points"
			if short.classes > 0 {
				advice = "number the labels 0…C−1 with no gap, so that every class has instances"
			}
			return nil, fmt.Errorf("%v; gave up after %s and %d restarts of the whole draw: the data cannot supply %d bags of %d under %v; %s",
				short, redraws, maxRestarts, k, cfg.BagSize, cfg.Protocol, advice)
		}
	}
}

func (cfg Config) maxRedraws() int {
	switch {
	case cfg.Shortfall != Redraw:
		return 0
	case cfg.MaxRedraws <= 0:
		return DefaultMaxRedraws
	}
	return cfg.MaxRedraws
}

// drawOnce makes one attempt at the k bags. It returns an *errShort when a
// bag does not fit the remaining pools (after the bag's redraws, under
// Redraw).
func drawOnce(r *rand.Rand, dir *distmv.Dirichlet, y []int, byClass [][]int, k int, cfg Config) (*Result, error) {
	numClasses := len(byClass)
	b := cfg.BagSize
	maxRedraws := cfg.maxRedraws()
	// Class pools in random order: taking the next m of pool c is drawing m
	// of class c uniformly without replacement.
	pools := make([][]int, numClasses)
	for c, p := range byClass {
		pools[c] = append([]int(nil), p...)
		r.Shuffle(len(pools[c]), func(i, j int) { pools[c][i], pools[c][j] = pools[c][j], pools[c][i] })
	}
	used := make([]int, numClasses)
	gamma := make([]float64, numClasses)
	counts := make([]int, numClasses)
	res := &Result{Bags: &estimators.BagSet{NumClasses: numClasses}, Redraws: make([]int, k)}
	for j := 0; j < k; j++ {
		for {
			if err := drawGamma(dir, gamma); err != nil {
				return nil, fmt.Errorf("bag %d: %w", j, err)
			}
			multinomial(distuv.NewCategorical(gamma, r), b, counts)
			var short *errShort
			for c, m := range counts {
				if rem := len(pools[c]) - used[c]; m > rem {
					short = &errShort{bag: j, class: c, need: m - rem, have: rem, name: cfg.className(c)}
					if len(pools[c]) == 0 {
						short.classes = numClasses
					}
					break
				}
			}
			if short == nil {
				break
			}
			if res.Redraws[j] == maxRedraws {
				return nil, short
			}
			res.Redraws[j]++
		}
		idx := make([]int, 0, b)
		for c, m := range counts {
			idx = append(idx, pools[c][used[c]:used[c]+m]...)
			used[c] += m
		}
		r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		res.Bags.Bags = append(res.Bags.Bags, estimators.Bag{ID: j, Size: b, Proportions: proportions(y, numClasses, idx), Indices: idx})
	}
	return res, nil
}
