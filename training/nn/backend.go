package nn

import (
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// What a compute back end other than the CPU (training/device/opencl)
// needs to run the project's fused operations: their geometry, and the
// hooks through which the batch-norm ops keep their state — the statistics
// recorded for the running averages, the chunked sweep's minibatch
// statistics and adjoints — on the back end's device (BNDevice), driven as
// their CPU Do drives them on the host. The ops' CPU arithmetic does not
// use anything here.

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
// (bnsweep.go) decides it on the CPU; the statistics themselves are the
// back end's, kept on its device (BNDevice).
type BNRun struct {
	// Rows is the number of leading instance rows behind the statistics
	// (the rest is a chunk's zero padding: no statistics, no coupling
	// terms in the backward pass).
	Rows int
	// Fixed: normalize with the sweep's minibatch statistics (biased
	// variance) held constant, instead of the rows' own.
	Fixed bool
	// NeedStats: the statistics the output used are the op's record for
	// the running averages (DeviceRecorded), or folded into the sweep's
	// (Accumulate).
	NeedStats bool
	// Running: the run's statistics only feed the layer's running
	// averages (tracked, no sweep), from RunningCount values per channel;
	// a program that keeps the averages (RunningAverages) where it runs
	// may fold them at once.
	Running      bool
	RunningCount int
	// Collect: the backward pass with respect to x adds the partial
	// derivatives of the loss with respect to the fixed mean and variance,
	// −γ/√(σ²+ε)·Σg and −½·γ/(σ²+ε)·Σg·x̂ per channel, to the sweep's.
	Collect bool
	// Adjoint: the backward pass with respect to x adds
	// (ā_μ + 2·ā_σ²·(x − μ))/Count per instance value, ā the adjoints of
	// the minibatch's statistics (the sweep's, Count values behind them).
	Adjoint bool
	Count   float64
	// Accumulate: the run's statistics (over Rows·HW values per channel)
	// are folded into the sweep's minibatch statistics, which hold Folded
	// values before it.
	Accumulate bool
	Folded     float64
}

// BNDevice is a fused batch-norm op's statistics kept where a back end
// computes (BatchNormOp.KeepOnDevice): the minibatch statistics and
// adjoints of a chunked sweep (BNSweep) and the statistics of the last
// recorded run. The op and its sweep tell it each transition the host
// would otherwise compute from statistics downloaded after every run, so
// that a sweep, and the running averages' update, wait for nothing (KL's
// and LLP-VAT's steps: the back end's device runs ahead of the host).
type BNDevice interface {
	// StartAccumulate zeroes the minibatch statistics before a sweep
	// folds every chunk's into them (the runs with BNRun.Accumulate).
	StartAccumulate() error
	// FinishAccumulate fixes them once every chunk is folded, over count
	// values per channel (variance = m2/count): the runs with BNRun.Fixed
	// normalize with them from then on.
	FinishAccumulate(count float64) error
	// StartCollect zeroes the partial derivatives a collection sweep adds
	// up (the backward runs with BNRun.Collect).
	StartCollect() error
	// FinishCollect makes them the layer's adjoints (BNRun.Adjoint).
	FinishCollect() error
	// FoldRecord folds the statistics of the op's last recorded run, over
	// count values per channel, into its layer's running averages with
	// momentum (BatchNorm.Update's rule), on the device that holds them.
	FoldRecord(momentum float64, count int) error
}

// BatchNormOp is a fused training-mode batch-norm op (BatchNorm with γ in
// training mode, ReLU'd or not) as a compute back end drives it.
type BatchNormOp interface {
	gorgonia.Op
	BNGeometry() BNGeometry
	// NextRun returns what the next run does (read before each run).
	NextRun() BNRun
	// RunningAverages returns the running mean and variance nodes of the
	// op's layer and its momentum (BatchNorm.Update's rule), ok false when
	// the op does not track them.
	RunningAverages() (mean, variance *gorgonia.Node, momentum float64, ok bool)
	// KeepOnDevice hands the op a back end's device state: from then on
	// the back end neither calls SetStats nor AddStatGrads; NextRun says
	// which runs accumulate (and counts their values on the host), the
	// sweep calls d at its transitions, and a run the back end reports with
	// DeviceRecorded is folded into the running averages by d.
	KeepOnDevice(d BNDevice)
	// DeviceRecorded marks the run just made as the op's recorded one (its
	// statistics on the device), to be folded by the next
	// UpdateRunningStats; nothing when the op does not track.
	DeviceRecorded()
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
		r.NeedStats, r.Accumulate, r.Folded = true, true, g.count
		if o.dev != nil { // the device folds; the count advances here
			g.count += float64(o.rows() * o.hw)
		}
	case bnFixed:
		r.Fixed, r.Collect = true, g.collect
		if g.extra {
			r.Adjoint, r.Count = true, g.count
		}
	}
	return r
}

// KeepOnDevice keeps the op's statistics on a back end's device (see
// BatchNormOp).
func (o *bnOp) KeepOnDevice(d BNDevice) {
	o.dev = d
	if o.glob != nil {
		o.glob.dev = d
	}
}

// DeviceRecorded marks the last run as the recorded one, its statistics
// on the device (over statCount values per channel).
func (o *bnOp) DeviceRecorded() {
	if o.rec == nil || o.dev == nil {
		return
	}
	o.rec.mean, o.rec.variance = nil, nil
	o.rec.device, o.rec.count = o.dev, o.statCount()
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
