package nn

import (
	"errors"
	"fmt"

	"github.com/llpfc/llpfc/internal/choice"
	"gorgonia.org/gorgonia"
)

// BNStats selects the batch-norm statistics of a bag loss that is evaluated
// in chunks (KLChunked: the KL proportion loss of kl and llpvat). The
// authors' code puts the whole minibatch of bags through the network in one
// forward pass (kllib/train_fun.py@1d0cbc5:10-12), so every batch-norm layer
// normalizes with the minibatch's mean and variance; llpfc evaluates the
// minibatch in chunks of Config.ChunkSize instances so that memory does not
// grow with the bag size (App. `subsec:KL`, "Out of RAM").
type BNStats uint16

// The batch-norm statistics of a chunked bag loss; the zero value is not
// stated, read as BNStatsMinibatch.
const (
	// BNStatsMinibatch normalizes every chunk with the statistics of the
	// whole minibatch, exactly as one forward pass over the minibatch
	// would, in memory bounded by the chunk (bnSweep).
	BNStatsMinibatch BNStats = iota + 1
	// BNStatsChunk normalizes each chunk with its own statistics: one
	// forward and one backward pass per chunk, but a different loss when
	// the minibatch spans several chunks.
	BNStatsChunk
)

var bnStatsSet = choice.Set[BNStats]{What: "batch-norm statistics", Names: []string{"", "minibatch", "chunk"},
	Want: "minibatch (the whole minibatch's, as the authors' code; exact in chunks at the cost of extra passes) or chunk (each chunk's own)"}

// ParseBNStats parses a BNStats name; "" is the default, minibatch.
func ParseBNStats(s string) (BNStats, error) {
	if s == "" {
		return BNStatsMinibatch, nil
	}
	return bnStatsSet.Parse(s)
}

func (s BNStats) String() string { return bnStatsSet.String(s) }

// UnmarshalText parses batch-norm statistics where they enter (a spec, a
// result, a flag); empty is the zero value, read as minibatch.
func (s *BNStats) UnmarshalText(b []byte) error { return bnStatsSet.Unmarshal(s, b) }

// MarshalText writes the statistics' name.
func (s BNStats) MarshalText() ([]byte, error) { return bnStatsSet.Marshal(s) }

// bnMode is what a fused batch-norm op does with its statistics in a run.
type bnMode int

const (
	bnChunk      bnMode = iota // the chunk's own statistics (instance rows only)
	bnAccumulate               // the chunk's own, and fold them into the minibatch's
	bnFixed                    // the minibatch's, held constant (mean, variance)
)

// bnGlobal is the state a bnSweep shares with one fused batch-norm op.
type bnGlobal struct {
	mode  bnMode
	valid int // instance rows of the current chunk (the rest is padding)

	// The minibatch's statistics per channel, folded chunk by chunk
	// (Chan et al.'s pairwise update): count values, mean, and the sum of
	// squared deviations m2; variance = m2/count once finished.
	count              float64
	mean, m2, variance []float64

	// Reverse sweep: with collect set, the backward pass adds the partial
	// derivatives of the loss with respect to this layer's μ and σ² (all
	// statistics held fixed) to dMean, dVar; with extra set, it adds the
	// adjoints (adjMean, adjVar) of the layer's statistics to the gradient
	// of each instance value (bnBackward).
	collect, extra  bool
	dMean, dVar     []float64
	adjMean, adjVar []float64

	// dev, when set, keeps this state on a back end's device (the op's
	// KeepOnDevice): the sweep tells it its transitions, and the host
	// keeps only count.
	dev BNDevice
}

func newBNGlobal(c int) *bnGlobal {
	return &bnGlobal{mean: make([]float64, c), m2: make([]float64, c), variance: make([]float64, c),
		dMean: make([]float64, c), dVar: make([]float64, c), adjMean: make([]float64, c), adjVar: make([]float64, c)}
}

// fold adds a chunk's statistics of channel c (mean mu, biased variance v
// over m values) to the minibatch's; count is advanced by the caller once
// per run, after all channels.
func (g *bnGlobal) fold(c int, mu, v, m float64) {
	n := g.count
	d := mu - g.mean[c]
	g.mean[c] += d * m / (n + m)
	g.m2[c] += v*m + d*d*n*m/(n+m)
}

// bnSweep makes a loss evaluated chunk by chunk see batch normalization
// over the whole minibatch (as the authors' runs), in memory bounded by the chunk.
//
// Let s_l = (μ_l, σ²_l) be the statistics of the l-th batch-norm layer
// (l = 1…K in forward order) over the minibatch's N instances. They are
// computed by K forward sweeps over the chunks: sweep l holds s_1…s_{l−1}
// fixed and folds layer l's chunk statistics into s_l. With all statistics
// fixed the network is a per-instance function, and the loss's gradient is,
// by the chain rule through the statistics (reverse mode over s_K…s_1),
//
//	dL/dθ = Σ_i ∂φ_i/∂θ,   φ_i = ℓ_i + Σ_l [ā_μl·h_li + ā_σl·(h_li − μ_l)²]/M_l,
//
// where h_l are layer l's inputs of instance i (M_l values per channel over
// the minibatch) and the adjoints ā_l = (ā_μl, ā_σl) are found from the top:
// ā_l = Σ_i ∂/∂s_l [ℓ_i + Σ_{j>l} (…)_j], one backward sweep per layer with
// the adjoints above it in place. The extra terms enter the backward pass of
// layer l as (ā_μl + 2·ā_σl·(h − μ_l))/M_l per input value (bnBackward).
// Cost: K forward sweeps for the statistics, one for the loss, K + 1
// backward sweeps (against 1 + 1 per chunk); memory: the chunk's graph plus
// 7 floats per channel per layer. TestKLChunkedExactBatchNorm checks the
// result against one forward pass over the whole minibatch.
type BNSweep struct {
	globs []*bnGlobal // in forward order
}

// NewBNSweep attaches a sweep to the training-mode fused batch-norm ops in
// the subgraph of g that root depends on.
func NewBNSweep(g *gorgonia.ExprGraph, root *gorgonia.Node) (*BNSweep, error) {
	sorted, err := gorgonia.Sort(g.SubgraphRoots(root))
	if err != nil {
		return nil, fmt.Errorf("batch-norm sweep: %w", err)
	}
	s := &BNSweep{}
	for i := len(sorted) - 1; i >= 0; i-- { // Sort puts the root first
		if op, ok := sorted[i].Op().(*bnOp); ok {
			op.glob = newBNGlobal(op.c)
			op.glob.dev = op.dev
			s.globs = append(s.globs, op.glob)
		}
	}
	return s, nil
}

// ErrUnfusedBatchNorm: whole-minibatch statistics need the fused ops.
var ErrUnfusedBatchNorm = errors.New("whole-minibatch batch-norm statistics in chunks need the fused batch-norm op (a layer with γ); use chunk statistics or a chunk that holds the minibatch")

// Layers is the number of batch-norm layers the sweep drives.
func (s *BNSweep) Layers() int { return len(s.globs) }

// SetValid marks the first rows rows of the next run's chunk as instances.
func (s *BNSweep) SetValid(rows int) {
	for _, g := range s.globs {
		g.valid = rows
	}
}

// Statistics runs K forward sweeps (sweep runs the network forward over
// every chunk of the minibatch) and leaves every layer at its minibatch
// statistics.
func (s *BNSweep) Statistics(sweep func() error) error {
	s.Release()
	for _, g := range s.globs {
		g.count = 0
		clear(g.mean)
		clear(g.m2)
		if g.dev != nil {
			if err := g.dev.StartAccumulate(); err != nil {
				return err
			}
		}
		g.mode = bnAccumulate
		if err := sweep(); err != nil {
			return err
		}
		if !(g.count > 0) {
			return errors.New("batch-norm sweep: no instance in the minibatch")
		}
		for c := range g.mean {
			g.variance[c] = g.m2[c] / g.count
		}
		if g.dev != nil {
			if err := g.dev.FinishAccumulate(g.count); err != nil {
				return err
			}
		}
		g.mode = bnFixed
	}
	return nil
}

// Adjoints runs K backward sweeps from the top layer down (sweep runs
// forward and backward over every chunk with the loss's fixed
// coefficients) and leaves every layer's adjoint in place, so that the
// next backward sweep gives the exact gradient.
func (s *BNSweep) Adjoints(sweep func() error) error {
	for l := len(s.globs) - 1; l >= 0; l-- {
		g := s.globs[l]
		clear(g.dMean)
		clear(g.dVar)
		if g.dev != nil {
			if err := g.dev.StartCollect(); err != nil {
				return err
			}
		}
		g.collect = true
		err := sweep()
		g.collect = false
		if err != nil {
			return err
		}
		copy(g.adjMean, g.dMean)
		copy(g.adjVar, g.dVar)
		if g.dev != nil {
			if err := g.dev.FinishCollect(); err != nil {
				return err
			}
		}
		g.extra = true
	}
	return nil
}

// Release returns every layer to the chunk's own statistics.
func (s *BNSweep) Release() {
	for _, g := range s.globs {
		g.mode, g.collect, g.extra = bnChunk, false, false
	}
}
