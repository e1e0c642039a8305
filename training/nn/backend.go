package nn

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// What a compute back end other than the CPU (training/device/opencl)
// needs to run the project's fused operations: their geometry, and the
// hooks through which the batch-norm ops keep their host-side state (the
// statistics recorded for the running averages, the chunked sweep's
// minibatch statistics and adjoints) exactly as their CPU Do keeps it. The
// ops' CPU arithmetic does not use anything here.

// ConvGeometry is the geometry of a Conv2dIm2col op: C×H×W input images,
// O filters of C×K×K, zero padding Pad and stride Stride on both axes;
// Bias says whether the op adds a bias (its third input).
type ConvGeometry struct {
	C, H, W, O, K, Pad, Stride int
	Bias                       bool
}

// OutH and OutW are the output's height and width.
func (g ConvGeometry) OutH() int { return (g.H+2*g.Pad-g.K)/g.Stride + 1 }
func (g ConvGeometry) OutW() int { return (g.W+2*g.Pad-g.K)/g.Stride + 1 }

func exportConvGeom(g convGeom, bias bool) ConvGeometry {
	return ConvGeometry{C: g.c, H: g.h, W: g.w, O: g.o, K: g.k, Pad: g.pad, Stride: g.stride, Bias: bias}
}

// ConvGeometry returns the convolution's geometry (inputs x, W and, with
// Bias, b).
func (o *convOp) ConvGeometry() ConvGeometry { return exportConvGeom(o.geom, o.bias) }

// ConvGrad returns the geometry of the convolution the op differentiates
// (Bias unset), which input it differentiates (0: x from W and ∂L/∂y;
// 1: W from x and ∂L/∂y; 2: b from ∂L/∂y) and the shape of x.
func (o *convGradOp) ConvGrad() (g ConvGeometry, wrt int, x tensor.Shape) {
	return exportConvGeom(o.geom, false), o.wrt, o.xShape.Clone()
}

// Pool2Geometry is the geometry of a MaxPool2 op: N×C planes of H×W,
// pooled 2×2 with stride 2, of ReLU(x) when ReLU is set.
type Pool2Geometry struct {
	N, C, H, W int
	ReLU       bool
}

// Pool2Geometry returns the pool's geometry.
func (o *poolOp) Pool2Geometry() Pool2Geometry {
	return Pool2Geometry{N: o.n, C: o.c, H: o.h, W: o.w, ReLU: o.relu}
}

// Pool2Forward returns the MaxPool2 op whose gradient the op computes (its
// positions of the maxima are the forward run's).
func (o *poolGradOp) Pool2Forward() gorgonia.Op { return o.fwd }

// BNGeometry is the geometry of a fused batch-norm op: N rows of C
// channels of HW values (Dims 4: N×C×H×W, HW = H·W; Dims 2: N×C, HW = 1),
// ε, and whether the output is ReLU'd.
type BNGeometry struct {
	N, C, HW, Dims int
	Eps            float64
	ReLU           bool
}

// BNRun says how a training-mode fused batch-norm op normalizes in its next
// run and what its backward pass adds, as the state a BNSweep sets
// (bnsweep.go) decides it on the CPU.
type BNRun struct {
	// Rows is the number of leading instance rows behind the statistics
	// (the rest is a chunk's zero padding: no statistics, no coupling
	// terms in the backward pass).
	Rows int
	// Fixed: normalize with Mean and Variance (the minibatch's, biased;
	// not to be modified) held constant, instead of the rows' own
	// statistics.
	Fixed          bool
	Mean, Variance []float64
	// NeedStats: after the run, give the statistics the output used to
	// SetStats (they are recorded for the running averages, or folded into
	// the minibatch's).
	NeedStats bool
	// Running: the run's statistics only feed the layer's running
	// averages (tracked, no sweep), from RunningCount values per channel;
	// a back end that keeps the averages (RunningAverages) may fold them
	// itself instead of calling SetStats.
	Running      bool
	RunningCount int
	// Collect: the backward pass with respect to x adds the partial
	// derivatives of the loss with respect to the fixed mean and variance,
	// −γ/√(σ²+ε)·Σg and −½·γ/(σ²+ε)·Σg·x̂ per channel, through
	// AddStatGrads.
	Collect bool
	// Adjoint: the backward pass with respect to x adds
	// (AdjMean + 2·AdjVar·(x − μ))/Count per instance value (the adjoints
	// of the minibatch's statistics).
	Adjoint         bool
	AdjMean, AdjVar []float64
	Count           float64
}

// BatchNormOp is a fused training-mode batch-norm op (BatchNorm with γ in
// training mode, ReLU'd or not) as a compute back end drives it.
type BatchNormOp interface {
	gorgonia.Op
	BNGeometry() BNGeometry
	// NextRun returns what the next run does (read before each run).
	NextRun() BNRun
	// SetStats hands the op the per-channel mean and biased variance its
	// output used in a run computed elsewhere: the op folds them into a
	// sweep's minibatch statistics and records them for
	// UpdateRunningStats, as its CPU forward pass does.
	SetStats(mean, variance []float64) error
	// AddStatGrads adds a backward run's partial derivatives with respect
	// to the fixed mean and variance (BNRun.Collect) to the sweep's.
	AddStatGrads(dMean, dVar []float64) error
	// RunningAverages returns the running mean and variance nodes of the
	// op's layer and its momentum (BatchNorm.Update's rule), ok false when
	// the op does not track them.
	RunningAverages() (mean, variance *gorgonia.Node, momentum float64, ok bool)
}

// BNGeometry returns the op's geometry (also of the evaluation-mode op,
// which embeds it).
func (o *bnOp) BNGeometry() BNGeometry {
	return BNGeometry{N: o.n, C: o.c, HW: o.hw, Dims: o.dims, Eps: o.eps, ReLU: o.relu}
}

// NextRun returns what the op's next run does.
func (o *bnOp) NextRun() BNRun {
	r := BNRun{Rows: o.rows(), NeedStats: o.rec != nil}
	g := o.glob
	if g == nil {
		r.Running, r.RunningCount = o.rec != nil, o.rows()*o.hw
		return r
	}
	switch g.mode {
	case bnAccumulate:
		r.NeedStats = true
	case bnFixed:
		r.Fixed, r.Mean, r.Variance = true, g.mean, g.variance
		r.Collect = g.collect
		if g.extra {
			r.Adjoint, r.AdjMean, r.AdjVar, r.Count = true, g.adjMean, g.adjVar, g.count
		}
	}
	return r
}

// SetStats does what the CPU forward pass does with the statistics of a
// run, given them from the device that computed the run (float32 graphs).
func (o *bnOp) SetStats(mean, variance []float64) error {
	if len(mean) != o.c || len(variance) != o.c {
		return fmt.Errorf("%v: %d means and %d variances for %d channels", o, len(mean), len(variance), o.c)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.mean) != o.c {
		o.mean, o.invStd, o.variance = make([]float64, o.c), make([]float64, o.c), make([]float64, o.c)
	}
	g := o.glob
	if g != nil && g.mode == bnAccumulate {
		m := float64(o.rows() * o.hw)
		for c := range mean {
			g.fold(c, mean[c], variance[c], m)
		}
		g.count += m
	}
	for c := range mean {
		o.mean[c], o.variance[c], o.invStd[c] = mean[c], variance[c], 1/math.Sqrt(variance[c]+o.eps)
	}
	if o.rec != nil {
		o.record(tensor.Float32)
	}
	return nil
}

// AddStatGrads adds dMean and dVar to the sweep's partial derivatives with
// respect to the layer's fixed statistics.
func (o *bnOp) AddStatGrads(dMean, dVar []float64) error {
	g := o.glob
	if g == nil || len(dMean) != o.c || len(dVar) != o.c {
		return fmt.Errorf("%v: partial derivatives of %d and %d channels without a sweep's statistics", o, len(dMean), len(dVar))
	}
	for c := range dMean {
		g.dMean[c] += dMean[c]
		g.dVar[c] += dVar[c]
	}
	return nil
}

// RunningAverages returns the op's layer's running averages and momentum.
func (o *bnOp) RunningAverages() (mean, variance *gorgonia.Node, momentum float64, ok bool) {
	if o.rec == nil || o.layer == nil {
		return nil, nil, 0, false
	}
	return o.layer.RunMean, o.layer.RunVar, o.layer.Momentum, true
}

// BNGrad returns the forward op the gradient op differentiates and which
// input (0: x, 1: γ, 2: β).
func (o *bnGradOp) BNGrad() (BatchNormOp, int) { return o.fwd, o.wrt }
